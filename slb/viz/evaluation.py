"""Plotly figures of out-of-fold evaluation: ROC and precision-recall curves, confusion matrices.

The numbers come from :mod:`slb.evaluation.predictions` (:func:`~slb.evaluation.pooled_roc`,
:func:`~slb.evaluation.pooled_pr`, :func:`~slb.evaluation.confusion_matrices`); these builders
only draw them.  Classifiers get the Okabe-Ito colours that are NOT the class colours (blue
``+``, vermillion ``-`` of :data:`slb.viz.figures.COLORS`), then dashed variants; the confusion
matrix labels its rows and columns in the class colours.  Every user string (classifier and class
names) is escaped; ``fig.layout.meta`` holds a machine-readable summary.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .style import (
    COLORS,
    FONT_PX,
    LEGEND_ROW_PX,
    _base_layout,
    classifier_colors,
    classifier_order,
    escape_text,
    wrap_lines,
)

__all__ = ["classifier_style", "roc_figure", "pr_figure", "confusion_figure"]


def classifier_style(name, order=(), avoid=()) -> dict:
    """Line colour and dash of the classifier ``name`` among ``order`` (the figure's
    classifiers): its own colour on every figure (:func:`slb.viz.style.classifier_colors`),
    solid.

    Examples
    --------
    >>> classifier_style("SLB")
    {'color': '#000000', 'dash': 'solid'}
    >>> classifier_style("TAN", ["SLB", "TAN"], avoid=["#009E73"])  # a class's green
    {'color': '#7570B3', 'dash': 'solid'}
    """
    names = list(dict.fromkeys([*order, name]))
    return {"color": classifier_colors(names, avoid)[name], "dash": "solid"}


def _curve_figure(curves, areas, x, y, label, chance, *, title, height, avoid=()):
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=chance[0],
            y=chance[1],
            mode="lines",
            name="chance",
            line={"color": COLORS["neutral"], "dash": "dot", "width": 1},
            hoverinfo="skip",
        )
    )
    order = classifier_order(curves)
    for name in order:
        c = curves[name]
        safe = escape_text(name)
        fig.add_trace(
            go.Scatter(
                x=c[x].to_numpy(),
                y=c[y].to_numpy(),
                mode="lines",
                name=f"{safe} ({label} {areas[name]:.3f})",
                line={
                    **classifier_style(name, order, avoid),
                    "width": 2,
                    "shape": "hv" if x == "recall" else None,
                },
                hovertemplate=f"{safe}<br>{x} %{{x:.3f}}<br>{y} %{{y:.3f}}<extra></extra>",
            )
        )
    fig.update_xaxes(range=[-0.01, 1.01], constrain="domain")
    fig.update_yaxes(range=[-0.01, 1.01], scaleanchor="x", scaleratio=1, constrain="domain")
    meta = {
        "kind": "roc" if label == "AUC" else "pr",
        "classifiers": classifier_order(curves),
        label: {k: float(v) for k, v in areas.items()},
    }
    # the legend below the plot, one row per curve in a half-width column: the plot keeps
    # ``height`` and the figure grows by the legend's rows
    height = (height or 420) + LEGEND_ROW_PX * (len(curves) + 1)
    return _base_layout(fig, title=title, height=height, meta=meta)


def roc_figure(curves: dict, auc: pd.Series, *, height: int = 420, avoid_colors=()) -> go.Figure:
    """ROC curves, one line per classifier (in the catalogue's order), its area in the legend.

    Parameters
    ----------
    curves : dict
        Classifier -> DataFrame with columns ``fpr``, ``tpr`` (:func:`slb.evaluation.pooled_roc`).
    auc : Series
        Area under each curve.
    height : int
        Height without the legend (below the plot: the figure grows by one row per line).
    avoid_colors : sequence of str
        Colours the classifiers' lines do not use (:func:`classifier_style`).

    Returns
    -------
    Figure
        ``layout.meta``: ``kind="roc"``, ``classifiers``, ``AUC`` (name -> area).

    Examples
    --------
    >>> import pandas as pd
    >>> curves = {
    ...     "SLB": pd.DataFrame({"fpr": [0.0, 0.2, 1.0], "tpr": [0.0, 0.8, 1.0]}),
    ...     "NB": pd.DataFrame({"fpr": [0.0, 1.0], "tpr": [0.0, 1.0]}),
    ... }
    >>> fig = roc_figure(curves, pd.Series({"SLB": 0.8, "NB": 0.5}))
    >>> [trace.name for trace in fig.data]
    ['chance', 'SLB (AUC 0.800)', 'NB (AUC 0.500)']
    >>> fig.layout.meta["AUC"]
    {'SLB': 0.8, 'NB': 0.5}
    """
    fig = _curve_figure(
        curves,
        auc,
        "fpr",
        "tpr",
        "AUC",
        ([0, 1], [0, 1]),
        title="ROC curves (out-of-fold, all folds pooled)",
        height=height,
        avoid=avoid_colors,
    )
    fig.update_xaxes(title_text="false positive rate (1 − specificity)")
    fig.update_yaxes(title_text="true positive rate (recall)")
    return fig


def pr_figure(
    curves: dict,
    average_precision: pd.Series,
    prevalence: float,
    *,
    height: int = 420,
    avoid_colors=(),
) -> go.Figure:
    """Precision-recall curves, one line per classifier, average precision in the legend.

    Parameters
    ----------
    curves : dict
        Classifier -> DataFrame with columns ``recall``, ``precision``
        (:func:`slb.evaluation.pooled_pr`).
    average_precision : Series
    prevalence : float
        Share of positives: the precision of a random ranking (the dotted line).
    height : int
        Height without the legend (below the plot: the figure grows by one row per line).
    avoid_colors : sequence of str
        As in :func:`roc_figure`.

    Returns
    -------
    Figure
        ``layout.meta``: ``kind="pr"``, ``classifiers``, ``AP`` (name -> average precision).

    Examples
    --------
    >>> import pandas as pd
    >>> curves = {"SLB": pd.DataFrame({"recall": [0.0, 0.5, 1.0], "precision": [1.0, 0.8, 0.5]})}
    >>> fig = pr_figure(curves, pd.Series({"SLB": 0.8}), prevalence=0.5)
    >>> [trace.name for trace in fig.data]
    ['chance', 'SLB (AP 0.800)']
    >>> fig.data[0].y  # a random ranking's precision: the prevalence
    (0.5, 0.5)
    """
    fig = _curve_figure(
        curves,
        average_precision,
        "recall",
        "precision",
        "AP",
        ([0, 1], [prevalence, prevalence]),
        title="Precision-recall curves (out-of-fold, all folds pooled)",
        height=height,
        avoid=avoid_colors,
    )
    fig.update_xaxes(title_text="recall (true positive rate)")
    fig.update_yaxes(title_text="precision")
    return fig


#: A confusion matrix's class name on its axes: lines of this many characters, at most
#: :data:`TICK_MAX_LINES` of them ("…" after).  Whole long names left a 213 x 35 px plot at
#: 1024 px, the turned column names cut (H41, three names of 43 characters).
TICK_LINE_CHARS = 16
TICK_MAX_LINES = 3


def tick_lines(name) -> list[str]:
    """A class name for an axis: wrapped at spaces to :data:`TICK_LINE_CHARS` characters, at
    most :data:`TICK_MAX_LINES` lines, each escaped.

    Examples
    --------
    >>> tick_lines("Adelie")
    ['Adelie']
    >>> tick_lines("Another very long class name for <beta> group")
    ['Another very', 'long class name', 'for &lt;beta&gt; group']
    """
    return wrap_lines(name, TICK_LINE_CHARS, TICK_MAX_LINES)


def styled_ticks(lines_per_class, styles) -> list[str]:
    """Axis labels from :func:`tick_lines` output, each line in its class's ``style`` (a
    ``(prefix, suffix)`` of plotly's pseudo-HTML), made distinct: plotly draws equal category
    labels as one row, so a repeated label gets an invisible zero-width tail.

    Examples
    --------
    >>> styled_ticks([["a"], ["a"]], [("<b>", "</b>")] * 2) == ["<b>a</b>", "<b>a</b>\u200b"]
    True
    """
    out: list[str] = []
    for lines, (pre, post) in zip(lines_per_class, styles, strict=True):
        tick = "<br>".join(f"{pre}{line}{post}" for line in lines)
        while tick in out:
            tick += "\u200b"
        out.append(tick)
    return out


def _class_tick_lines(symbol: str, name) -> list[str]:
    sign = "+" if symbol == "+" else "−"
    return [f"<b>{sign}</b> {line}" if k == 0 else line for k, line in enumerate(tick_lines(name))]


def confusion_heatmap(pct, ticks, text, hover_text) -> go.Figure:
    """The heatmap of a confusion matrix (row percentages ``pct``, cell ``text``, class
    ``ticks`` on both axes, true classes down, predicted across), without the layout: the
    two-class and the K-class figures share it.

    Parameters
    ----------
    pct : ndarray of shape (K, K)
    ticks : list of str
        Escaped class names.
    text : list of list of str
    hover_text : str
        The hover's cell part (a plotly template).

    Returns
    -------
    Figure

    Examples
    --------
    >>> import numpy as np
    >>> pct = np.array([[80.0, 20.0], [10.0, 90.0]])
    >>> fig = confusion_heatmap(pct, ["a", "b"], [["8", "2"], ["1", "9"]], "%{text}")
    >>> fig.data[0].type, fig.data[0].z.tolist()
    ('heatmap', [[80.0, 20.0], [10.0, 90.0]])
    >>> fig.layout.yaxis.autorange  # the first true class on top
    'reversed'
    """
    fig = go.Figure(
        go.Heatmap(
            z=pct,
            x=ticks,
            y=ticks,
            text=text,
            texttemplate="%{text}",
            textfont={"size": FONT_PX},
            colorscale=[[0, "#FFFFFF"], [1, "#4B5563"]],
            zmin=0,
            zmax=100,
            showscale=False,
            hovertemplate=f"true %{{y}}<br>predicted %{{x}}<br>{hover_text}<extra></extra>",
        )
    )
    fig.update_xaxes(title_text="predicted class", side="bottom")
    fig.update_yaxes(title_text="true class", autorange="reversed")
    return fig


def confusion_figure(
    counts: pd.DataFrame, *, pos_name, neg_name, title: str | None = None, height: int = 340
) -> go.Figure:
    """A 2 x 2 confusion matrix: counts and row percentages (share of the true class).

    Parameters
    ----------
    counts : DataFrame
        Rows the true class, columns the predicted class, both ordered ``[negative, positive]``
        (:func:`slb.evaluation.confusion_matrices`).
    pos_name, neg_name : str
        Names of the classes (escaped here).
    title : str or None
        Escaped here.
    height : int

    Returns
    -------
    Figure
        Rows drawn positive first; ``layout.meta``: ``kind="confusion"``, ``counts``
        (``[[TP, FN], [FP, TN]]``, as drawn), ``total``.

    Examples
    --------
    >>> import pandas as pd
    >>> counts = pd.DataFrame([[9, 1], [2, 8]], index=["-", "+"], columns=["-", "+"])
    >>> fig = confusion_figure(counts, pos_name="sick", neg_name="healthy")
    >>> fig.layout.meta["counts"]  # [[TP, FN], [FP, TN]]
    [[8, 2], [1, 9]]
    >>> fig.data[0].text
    (['8<br>80.0%', '2<br>20.0%'], ['1<br>10.0%', '9<br>90.0%'])
    """
    c = np.asarray(counts, dtype=int)[::-1, ::-1]  # positive class first
    totals = c.sum(axis=1, keepdims=True)
    pct = np.divide(100.0 * c, totals, out=np.zeros(c.shape), where=totals > 0)
    ticks = styled_ticks(
        [_class_tick_lines("+", pos_name), _class_tick_lines("-", neg_name)],
        [(f'<span style="color:{COLORS[sym]}">', "</span>") for sym in ("+", "-")],
    )
    text = [[f"{c[i, j]}<br>{pct[i, j]:.1f}%" for j in range(2)] for i in range(2)]
    fig = confusion_heatmap(pct, ticks, text, "%{text} of the true class")
    meta = {"kind": "confusion", "counts": c.tolist(), "total": int(c.sum())}
    return _base_layout(fig, title=escape_text(title) if title else None, height=height, meta=meta)
