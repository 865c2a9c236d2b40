"""Reliability diagrams and the operating point of out-of-fold probabilities (issues 26 and 28).

:func:`reliability_table` bins every classifier's out-of-fold probability of the positive class
(the prediction table's ``proba`` column, :mod:`slb.evaluation.predictions`) and
:func:`reliability_figure` draws mean predicted probability against the observed share of
positives, one line per classifier with the number of rows in each bin; a calibrated classifier
(``docs/probabilities.md``) lies on the diagonal.  :func:`operating_point` gives the confusion
counts and rates of one classifier at a probability threshold (the Compare page's slider).
Every user string is escaped; ``fig.layout.meta`` holds the numbers drawn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..probabilities import probability_bins
from .evaluation import classifier_style
from .style import COLORS, FONT_PX, LEGEND_ROW_PX, _base_layout, classifier_order, escape_text

__all__ = [
    "operating_point",
    "operating_point_figure",
    "reliability_counts",
    "reliability_figure",
    "reliability_table",
]


def _positive_mask(pred, pos_label):
    y = pred["y_true"].to_numpy()
    return y.astype(str) == str(pos_label)


def reliability_table(pred: pd.DataFrame, pos_label, n_bins: int = 10) -> pd.DataFrame:
    """Binned out-of-fold probabilities of the positive class, per classifier.

    Parameters
    ----------
    pred : DataFrame
        The prediction table (columns ``classifier``, ``y_true``, ``proba``); rows whose
        ``proba`` is NaN (classifiers without probabilities) are left out.
    pos_label
        The positive class (``proba`` is its probability).
    n_bins : int, default=10
        Equal-width bins of ``[0, 1]``.

    Returns
    -------
    table : DataFrame
        One row per non-empty (classifier, bin): ``classifier``, ``bin``, ``lower``,
        ``upper``, ``mean_predicted``, ``observed`` (share of positives), ``count``.

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.viz.calibration import reliability_table
    >>> pred = pd.DataFrame({"classifier": "A", "y_true": [0, 0, 1, 1],
    ...                      "proba": [0.1, 0.15, 0.9, 0.6]})
    >>> reliability_table(pred, 1, n_bins=2)["count"].tolist()
    [2, 2]
    """
    if n_bins < 1:
        raise ValueError(f"n_bins must be at least 1, got {n_bins}.")
    rows = []
    for name in classifier_order(pred["classifier"].unique()):
        mine = pred[pred["classifier"] == name]
        p = mine["proba"].to_numpy(dtype=float)
        ok = np.isfinite(p)
        if not ok.any():
            continue
        p, pos = p[ok], _positive_mask(mine, pos_label)[ok]
        edges, b = probability_bins(p, n_bins)
        for k in np.unique(b):
            m = b == k
            rows.append(
                {
                    "classifier": name,
                    "bin": int(k),
                    "lower": float(edges[k]),
                    "upper": float(edges[k + 1]),
                    "mean_predicted": float(p[m].mean()),
                    "observed": float(pos[m].mean()),
                    "count": int(m.sum()),
                }
            )
    cols = ["classifier", "bin", "lower", "upper", "mean_predicted", "observed", "count"]
    return pd.DataFrame(rows, columns=cols)


def reliability_counts(table: pd.DataFrame, n_bins: int = 10) -> pd.DataFrame:
    """Rows per bin of a reliability table: one row per classifier, one column per bin.

    The reliability diagrams size their markers by these counts and give them in the hover;
    this table shows them all at once, for a projector (H37: written beside the markers,
    the counts of classifiers whose bins coincide were printed over each other).

    Parameters
    ----------
    table : DataFrame
        :func:`reliability_table` or one class's rows of
        :func:`slb.viz.classwise.classwise_reliability_table` (columns ``classifier``,
        ``bin``, ``count``).
    n_bins : int, default=10
        The number of bins the table was cut into (empty bins are 0).

    Returns
    -------
    counts : DataFrame
        Index ``classifier`` (in the table's order), columns the bins' ranges (``0–0.1``, ...),
        integer counts.

    Examples
    --------
    >>> import pandas as pd
    >>> pred = pd.DataFrame({"classifier": "A", "y_true": [0, 0, 1, 1],
    ...                      "proba": [0.1, 0.15, 0.9, 0.6]})
    >>> reliability_counts(reliability_table(pred, 1, n_bins=2), n_bins=2).to_dict("index")
    {'A': {'0–0.5': 2, '0.5–1': 2}}
    """
    edges, _ = probability_bins([], n_bins)
    counts = (
        table.groupby(["classifier", table["bin"].astype(int)], sort=False)["count"]
        .sum()
        .unstack(fill_value=0)
        .reindex(index=pd.unique(table["classifier"]), columns=range(int(n_bins)), fill_value=0)
        .astype(int)
    )
    counts.columns = [f"{edges[k]:g}–{edges[k + 1]:g}" for k in range(int(n_bins))]
    return counts


def reliability_figure(
    pred: pd.DataFrame, pos_label, *, n_bins: int = 10, height: int = 420
) -> go.Figure:
    """Reliability diagram: mean predicted probability against observed frequency per bin.

    Parameters
    ----------
    pred : DataFrame
        The prediction table (:func:`reliability_table`).
    pos_label
        The positive class.
    n_bins : int, default=10
    height : int
        Height without the legend (below the plot: one row per line).

    Returns
    -------
    Figure
        One line per classifier with probabilities (markers sized by the bin's count, the
        count in the hover; :func:`reliability_counts` tabulates them); ``layout.meta``:
        ``kind="reliability"``, ``classifiers``, ``bins`` (name -> list of
        ``[mean_predicted, observed, count]``).

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.viz.calibration import reliability_figure
    >>> pred = pd.DataFrame({"classifier": "A", "y_true": [0, 0, 1, 1],
    ...                      "proba": [0.1, 0.15, 0.9, 0.6]})
    >>> reliability_figure(pred, 1, n_bins=2).layout.meta["bins"]["A"][0][2]
    2
    """
    table = reliability_table(pred, pos_label, n_bins)
    return _reliability_diagram(
        table,
        classifier_order(pred["classifier"].unique()),
        title="Reliability (out-of-fold probabilities; marker area: rows per bin)",
        x_title="predicted probability (bin mean)",
        y_title="observed share of the positive class",
        height=height,
        meta={"kind": "reliability"},
    )


def _reliability_diagram(
    table: pd.DataFrame,
    order: list,
    *,
    title: str,
    x_title: str,
    y_title: str,
    height: int,
    meta: dict,
    digits: int | None = None,
    avoid: Sequence[str] = (),
) -> go.Figure:
    """The reliability diagram of a table of bins (the two-class one and one class's).

    ``table`` has the columns ``classifier``, ``mean_predicted``, ``observed`` and ``count``
    (one row per non-empty bin); ``order`` lists every classifier of the prediction table (it
    fixes each one's colour and dash).  Draws the diagonal of perfect calibration and one line
    per classifier of ``table`` (markers sized by the bin's count, the count in the hover, not
    written beside the marker: near (0, 0) and (1, 1) every classifier's bins meet and the
    numbers were printed over each other, H37); ``title``, ``x_title`` and ``y_title`` must be escaped
    already.  ``layout.meta`` is ``meta`` followed by ``classifiers`` and ``bins`` (name ->
    list of ``[mean_predicted, observed, count]``, the two shares rounded to ``digits``
    decimals when given).  The figure is ``height`` plus one legend row per line and one more.
    ``avoid``: colours the lines do not use (:func:`slb.viz.style.classifier_colors`).
    """
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[0, 1],
            y=[0, 1],
            mode="lines",
            name="perfectly calibrated",
            line={"color": COLORS["neutral"], "dash": "dot", "width": 1},
            hoverinfo="skip",
        )
    )
    names = classifier_order(table["classifier"].unique())
    meta_bins = {}
    for name in names:
        t = table[table["classifier"] == name]
        style = classifier_style(name, order, avoid)
        safe = escape_text(name)
        n = t["count"].to_numpy(dtype=int)
        fig.add_trace(
            go.Scatter(
                x=t["mean_predicted"].to_numpy(dtype=float),
                y=t["observed"].to_numpy(dtype=float),
                mode="lines+markers",
                name=safe,
                marker={"size": 6 + 14 * np.sqrt(n / max(1, n.max())), "color": style["color"]},
                line={**style, "width": 2},
                customdata=n,
                hovertemplate=(
                    f"{safe}<br>mean predicted %{{x:.3f}}<br>observed %{{y:.3f}}"
                    "<br>%{customdata} rows<extra></extra>"
                ),
            )
        )
        shares = zip(t["mean_predicted"], t["observed"], n, strict=True)
        if digits is None:
            meta_bins[name] = [[float(a), float(b), int(c)] for a, b, c in shares]
        else:
            meta_bins[name] = [
                [round(float(a), digits), round(float(b), digits), int(c)] for a, b, c in shares
            ]
    fig.update_xaxes(range=[-0.02, 1.02], constrain="domain", title_text=x_title)
    fig.update_yaxes(
        range=[-0.02, 1.08],
        scaleanchor="x",
        scaleratio=1,
        constrain="domain",
        title_text=y_title,
    )
    return _base_layout(
        fig,
        title=title,
        height=height + LEGEND_ROW_PX * (len(names) + 1),
        meta={**meta, "classifiers": names, "bins": meta_bins},
    )


def operating_point(pred: pd.DataFrame, classifier, pos_label, threshold: float) -> dict:
    """Confusion counts and rates of one classifier at a probability threshold.

    A row is predicted positive when its out-of-fold probability of ``pos_label`` is at least
    ``threshold`` (its decision score when it has no probability).

    Parameters
    ----------
    pred : DataFrame
        The prediction table.
    classifier : str
    pos_label
    threshold : float

    Returns
    -------
    point : dict
        ``tp``, ``fn``, ``fp``, ``tn``, ``tpr``, ``fpr``, ``precision`` (NaN with no predicted
        positive), ``ber``, ``source`` ("probability" or "decision score") and
        ``predicted_positive`` (boolean array in the order of the classifier's rows).

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.viz.calibration import operating_point
    >>> pred = pd.DataFrame({"classifier": "A", "y_true": [0, 0, 1, 1],
    ...                      "proba": [0.1, 0.7, 0.9, 0.6], "score": float("nan")})
    >>> point = operating_point(pred, "A", 1, 0.65)
    >>> point["tp"], point["fp"], point["fn"], point["tn"]
    (1, 1, 1, 1)
    """
    mine = pred[pred["classifier"] == classifier]
    if mine.empty:
        raise ValueError(f"No predictions of classifier {classifier!r}.")
    s = mine["proba"].to_numpy(dtype=float)
    source = "probability"
    if not np.isfinite(s).all():
        s = mine["score"].to_numpy(dtype=float) if "score" in mine else s
        source = "decision score"
    if not np.isfinite(s).all():
        raise ValueError(f"Classifier {classifier!r} has no probability or decision score.")
    pos = _positive_mask(mine, pos_label)
    hit = s >= threshold
    tp, fn = int((hit & pos).sum()), int((~hit & pos).sum())
    fp, tn = int((hit & ~pos).sum()), int((~hit & ~pos).sum())
    tpr = tp / (tp + fn) if tp + fn else float("nan")
    fpr = fp / (fp + tn) if fp + tn else float("nan")
    return {
        "tp": tp,
        "fn": fn,
        "fp": fp,
        "tn": tn,
        "tpr": tpr,
        "fpr": fpr,
        "precision": tp / (tp + fp) if tp + fp else float("nan"),
        "ber": 0.5 * ((1 - tpr) + fpr),
        "source": source,
        "predicted_positive": hit,
    }


def operating_point_figure(
    pred: pd.DataFrame, classifier, pos_label, threshold: float
) -> go.Figure:
    """One classifier's ROC curve (its out-of-fold probabilities, or decision scores, pooled)
    with the operating point of ``threshold`` marked on it.

    Parameters
    ----------
    pred : DataFrame
        The prediction table.
    classifier : str
    pos_label
    threshold : float

    Returns
    -------
    Figure
        ``layout.meta``: ``kind="operating_point"``, ``classifier``, ``threshold``, ``tpr``,
        ``fpr``.

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.viz.calibration import operating_point_figure
    >>> pred = pd.DataFrame({"classifier": "A", "y_true": [0, 0, 1, 1],
    ...                      "proba": [0.1, 0.7, 0.9, 0.6], "score": float("nan")})
    >>> operating_point_figure(pred, "A", 1, 0.65).layout.meta["tpr"]
    0.5
    """
    from sklearn.metrics import roc_curve

    point = operating_point(pred, classifier, pos_label, threshold)
    mine = pred[pred["classifier"] == classifier]
    s = mine["proba" if point["source"] == "probability" else "score"].to_numpy(dtype=float)
    fpr, tpr, _ = roc_curve(_positive_mask(mine, pos_label), s)
    safe = escape_text(classifier)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[0, 1],
            y=[0, 1],
            mode="lines",
            name="chance",
            line={"color": COLORS["neutral"], "dash": "dot", "width": 1},
            hoverinfo="skip",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=fpr,
            y=tpr,
            mode="lines",
            name=safe,
            line={**classifier_style(classifier), "width": 2},
            hovertemplate="FPR %{x:.3f}<br>TPR %{y:.3f}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[point["fpr"]],
            y=[point["tpr"]],
            mode="markers+text",
            name=f"threshold {threshold:.3g}",
            text=[f"threshold {threshold:.3g}"],
            textposition="bottom right",
            textfont={"size": FONT_PX},
            marker={"size": 16, "color": COLORS["both"], "symbol": "star"},
            hovertemplate="FPR %{x:.3f}<br>TPR %{y:.3f}<extra></extra>",
        )
    )
    fig.update_xaxes(range=[-0.01, 1.01], constrain="domain", title_text="false positive rate")
    fig.update_yaxes(
        range=[-0.01, 1.01],
        scaleanchor="x",
        scaleratio=1,
        constrain="domain",
        title_text="true positive rate",
    )
    meta = {
        "kind": "operating_point",
        "classifier": classifier,
        "threshold": float(threshold),
        "tpr": float(point["tpr"]),
        "fpr": float(point["fpr"]),
    }
    return _base_layout(
        fig, title=f"ROC of {safe}: the operating point", height=380 + 3 * LEGEND_ROW_PX, meta=meta
    )
