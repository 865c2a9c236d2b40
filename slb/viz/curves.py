"""Balanced-error figures: the per-fold BER bars of the classifiers and the BER curve along the
threshold.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .style import (
    COLORS,
    FONT_PX,
    LEGEND_ROW_PX,
    _base_layout,
    _layout,
    _measure_label,
    classifier_order,
    escape_text,
)

__all__ = ["ber_bars", "ber_curve"]


#: The narrowest plot area the Compare page draws the BER bars in (1024 px wide with the
#: sidebar open), and the average glyph width of its tick labels (a share of the font size).
_BARS_PLOT_PX = 480.0
_TICK_GLYPH = 0.5


def _ticks_crowd(labels, plot_px: float = _BARS_PLOT_PX) -> bool:
    """Whether two neighbouring category labels would meet on a horizontal axis of ``plot_px``
    (plotly then rotates them all; H33: twelve classifiers' names at 45 degrees).

    Examples
    --------
    >>> _ticks_crowd(["SLB", "SLB (nested λ, C)", "TAN", "NB"])
    False
    >>> _ticks_crowd(["SLB", "TAN", "NB", "SVM(RBF)", "SVM(linear)", "RF", "5NN", "LU"])
    True
    """
    width = [len(html.unescape(str(t))) * _TICK_GLYPH * FONT_PX + 8.0 for t in labels]
    slot = plot_px / max(len(width), 1)
    return any((a + b) / 2 > slot for a, b in zip(width, width[1:], strict=False))


def ber_bars(per_fold: pd.DataFrame, summary: pd.DataFrame | None = None) -> go.Figure:
    """Mean balanced error rate per classifier with ±1 sd error bars and per-fold points.

    Vertical bars, or horizontal ones (SLB at the top) when the classifiers' names would not
    fit side by side under the bars (:func:`_ticks_crowd`): rotated names were hard to read.

    Parameters
    ----------
    per_fold : DataFrame
        One row per fold, one column per classifier (BER in [0, 1]).
    summary : DataFrame or None
        :func:`slb.evaluation.corrected_t_against_best` (or ``wilcoxon_against_best``) output;
        classifiers tied with the best are drawn darker.  None: no highlighting.

    Returns
    -------
    Figure
        The bar trace (named ``"mean BER"``) has one bar per classifier, in the columns' order
        with SLB first (:func:`slb.viz.style.classifier_order`: never re-sorted by value, so a
        bar stays in its place when λ or the data change); values in percent, on ``y`` (on
        ``x`` for horizontal bars; ``layout.meta["orientation"]``: ``"v"`` or ``"h"``).

    Examples
    --------
    >>> import pandas as pd
    >>> per_fold = pd.DataFrame({"SLB": [0.10, 0.14, 0.12], "NB": [0.20, 0.22, 0.18]})
    >>> fig = ber_bars(per_fold)
    >>> [trace.type for trace in fig.data]
    ['bar', 'scatter']
    >>> [round(v, 1) for v in fig.data[0].y]  # mean BER in percent
    [12.0, 20.0]
    """
    mean = per_fold.mean(axis=0) * 100
    sd = (per_fold.std(axis=0, ddof=1) if len(per_fold) > 1 else per_fold.std(axis=0, ddof=0)) * 100
    order = classifier_order(per_fold.columns)
    labels = [escape_text(n) for n in order]
    tied = {n: True for n in order}
    if summary is not None and "tied_with_best" in summary:
        tied = {n: bool(summary.loc[n, "tied_with_best"]) for n in order if n in summary.index}
    colors = [COLORS["+"] if tied.get(n, True) else "#9DB9D6" for n in order]
    horizontal = _ticks_crowd(order)
    cat, val = ("y", "x") if horizontal else ("x", "y")
    # ± one sd, drawn inside 0-100% (H43: on 15 rows TAN's bar reached past 100%); the hover
    # gives the whole sd
    up = [min(sd[n], 100.0 - mean[n]) for n in order]
    down = [min(sd[n], mean[n]) for n in order]
    bars = go.Bar(
        **{cat: labels, val: [mean[n] for n in order]},
        **{
            f"error_{val}": {
                "type": "data",
                "symmetric": False,
                "array": up,
                "arrayminus": down,
                "thickness": 1.5,
            }
        },
        orientation="h" if horizontal else "v",
        marker_color=colors,
        name="mean BER",
        customdata=[sd[n] for n in order],
        hovertemplate=f"%{{{cat}}}<br>BER %{{{val}:.1f}}% ± %{{customdata:.1f}}<extra></extra>",
    )
    rng = np.random.default_rng(0)
    pc, pv, ht = [], [], []
    for k, n in enumerate(order):
        vals = per_fold[n].to_numpy() * 100
        pc += list(k + rng.uniform(-0.18, 0.18, vals.size))
        pv += list(vals)
        ht += [f"{labels[k]}, fold {f + 1}: {v:.1f}%" for f, v in enumerate(vals)]
    points = go.Scatter(
        **{cat: pc, val: pv, f"{cat}axis": f"{cat}2"},
        mode="markers",
        name="per fold",
        marker={"color": "#111827", "size": 6, "opacity": 0.7},
        hovertext=ht,
        hoverinfo="text",
    )
    span = [-0.5, len(order) - 0.5]
    if horizontal:  # the first classifier (SLB) on top
        span = span[::-1]
    value_axis = {"title": {"text": "balanced error rate (%)"}, "rangemode": "tozero"}
    layout = _layout(
        height=max(380, 30 * len(order) + 140) if horizontal else 380,
        meta={
            "kind": "ber_bars",
            "classifiers": order,
            "n_folds": int(len(per_fold)),
            "orientation": "h" if horizontal else "v",
        },
        **{
            f"{cat}axis2": {"overlaying": cat, "range": span, "visible": False},
            f"{cat}axis": {"range": span, "automargin": True},
            f"{val}axis": value_axis,
        },
    )
    return go.Figure(data=[bars, points], layout=layout)


def ber_curve(
    steps: pd.DataFrame,
    threshold: float,
    ber_at_threshold: float | None = None,
    *,
    measure: str = "hsic",
    lam_range: tuple[float, float] | None = None,
    nested_ber: float | None = None,
) -> go.Figure:
    """SLB's cross-validated BER as the exact step function of λ, the current λ on it.

    Parameters
    ----------
    steps : DataFrame
        :func:`slb.model.steps.ber_steps` output: row ``k`` holds the mean CV BER for every λ
        in ``(threshold[k-1], threshold[k]]`` (``mean_ber``, ``sd_ber``, ``mean_pairs``);
        ``attrs["lo"]`` / ``attrs["requested_lo"]``: where the computed steps start and where
        they were asked to start; ``attrs["gaps"]`` (optional, :func:`slb.model.steps.join_steps`):
        open intervals inside without steps.  Every part of the range without steps is grey
        (named in the legend: the plot area holds no text, which overlapped the lines).
    threshold : float
        Current λ.
    ber_at_threshold : float or None
        Mean CV BER at the current λ as shown elsewhere (the bar): marked with a star.
    measure : str
    lam_range : (float, float) or None
        The slider's range; the x axis is clipped to it.
    nested_ber : float or None
        The nested estimate (λ and C chosen inside every outer fold), drawn as a dotted
        horizontal line beside the curve, its value in the legend.

    Returns
    -------
    Figure
        ``layout.meta``: ``steps`` (``threshold``, ``lower``, ``ber`` as fractions),
        ``range``, ``computed_from``, ``uncomputed`` (the grey intervals), ``current``
        (``threshold``, ``curve_ber``: the step holding λ, None where nothing is computed;
        ``marker_ber``) and ``nested_ber``.

    Examples
    --------
    >>> import pandas as pd
    >>> steps = pd.DataFrame(
    ...     {
    ...         "threshold": [0.1, 0.2, 0.3],
    ...         "lower": [0.0, 0.1, 0.2],
    ...         "mean_ber": [0.3, 0.2, 0.25],
    ...         "sd_ber": [0.02, 0.03, 0.02],
    ...         "mean_pairs": [3.0, 2.0, 1.0],
    ...     }
    ... )
    >>> fig = ber_curve(steps, 0.15, ber_at_threshold=0.2)
    >>> fig.layout.meta["current"]  # λ = 0.15 lies in the step (0.1, 0.2]
    {'threshold': 0.15, 'curve_ber': 0.2, 'marker_ber': 0.2}
    >>> fig.layout.meta["range"]
    [0.1, 0.3]
    """
    t = steps["threshold"].to_numpy(dtype=float)
    m = steps["mean_ber"].to_numpy(dtype=float) * 100
    s = steps["sd_ber"].to_numpy(dtype=float) * 100
    lo_req = float(steps.attrs.get("requested_lo", t[0] if t.size else 0.0))
    lo = float(steps.attrs.get("lo", t[0] if t.size else 0.0))
    rng = lam_range or (lo_req, float(t[-1]) if t.size else 1.0)
    gaps = [(float(a), float(b)) for a, b in steps.attrs.get("gaps", ())]
    broken = _break_at_gaps(t, [m, s, steps["mean_pairs"].to_numpy(dtype=float)], gaps)
    fig = go.Figure(_step_traces(*broken))
    bands = _uncomputed_bands(rng, lo, float(t[-1]) if t.size else rng[1], gaps)
    _mark_uncomputed(fig, bands)
    _mark_nested(fig, nested_ber, rng)
    row = None
    inside = t.size and np.isfinite(threshold) and t[0] <= threshold <= t[-1]
    if inside and not any(a < threshold < b for a, b in gaps):
        row = int(np.searchsorted(t, float(threshold), side="left"))
    _mark_current(fig, threshold, ber_at_threshold)
    fig.update_xaxes(
        title=f"λ ({_measure_label(measure)} threshold): larger keeps fewer pairs",
        range=[float(rng[0]), float(rng[1])],
    )
    fig.update_yaxes(title_text="CV balanced error rate (%)")
    extra = bands or (nested_ber is not None and np.isfinite(nested_ber))
    return _base_layout(
        fig,
        height=380 + (LEGEND_ROW_PX if extra else 0),  # a second legend row, not a lower plot
        meta={
            "kind": "ber_curve",
            "threshold": float(threshold),
            "steps": {
                "threshold": t.tolist(),
                "lower": steps["lower"].to_numpy(dtype=float).tolist(),
                "ber": (m / 100).tolist(),
            },
            "range": [float(rng[0]), float(rng[1])],
            "computed_from": lo,
            "uncomputed": [list(b) for b in bands],
            "current": {
                "threshold": float(threshold),
                "curve_ber": None if row is None else float(m[row] / 100),
                "marker_ber": None if ber_at_threshold is None else float(ber_at_threshold),
            },
            "nested_ber": None if nested_ber is None else float(nested_ber),
        },
    )


def _break_at_gaps(t, columns, gaps):
    """``t`` and ``columns`` with a NaN point at the top ``b`` of every gap ``(a, b)``, just
    before the row at ``b``: the step lines stop at ``a`` and start again at ``b``."""
    at = np.searchsorted(t, [b for _, b in gaps], side="left")
    return [np.insert(t, at, [b for _, b in gaps]), *(np.insert(c, at, np.nan) for c in columns)]


def _uncomputed_bands(rng, lo: float, hi: float, gaps) -> list[tuple[float, float]]:
    """The parts of the slider's range ``rng`` without steps: below ``lo``, the gaps, above
    ``hi``."""
    bands = [(float(rng[0]), lo)] if lo > rng[0] else []
    bands += [(a, b) for a, b in gaps]
    return bands + ([(hi, float(rng[1]))] if hi < rng[1] else [])


#: The grey of the parts of the λ range without computed steps.
_UNCOMPUTED_GREY = "#E5E7EB"


def _mark_uncomputed(fig: go.Figure, bands) -> None:
    """Grey out the parts of the slider's range where no steps were computed, named in the
    legend: a label in the plot sat under the current λ's line or the curve (H33)."""
    grey = {"fillcolor": _UNCOMPUTED_GREY, "opacity": 0.6, "line_width": 0, "layer": "below"}
    for band in bands:
        fig.add_vrect(x0=band[0], x1=band[1], **grey)
    if bands:  # a legend entry only (no point is drawn)
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                marker={
                    "symbol": "square",
                    "size": 14,
                    "color": _UNCOMPUTED_GREY,
                    "line": {"color": "#9CA3AF", "width": 1},
                },
                name="not computed yet",
                hoverinfo="skip",
            )
        )


def _mark_nested(fig: go.Figure, nested_ber, rng) -> None:
    """The nested CV estimate as a dotted horizontal line across ``rng``, its value in the
    legend (nothing if None or not finite): a label in the plot lay over the curve and its
    band, which often pass near the estimate (H33)."""
    if nested_ber is not None and np.isfinite(nested_ber):
        y = 100 * float(nested_ber)
        fig.add_trace(
            go.Scatter(
                x=[float(rng[0]), float(rng[1])],
                y=[y, y],
                mode="lines",
                line={"color": COLORS["-"], "dash": "dot", "width": 2},
                name=f"nested CV estimate: {y:.1f}%",
                hovertemplate=(
                    f"nested CV estimate {y:.2f}%<br>(λ and C chosen inside each fold)"
                    "<extra></extra>"
                ),
            )
        )


def _mark_current(fig: go.Figure, threshold, ber_at_threshold) -> None:
    """The current λ as a dashed vertical line, with a star at its BER if given."""
    if np.isfinite(threshold):
        fig.add_vline(x=float(threshold), line={"color": "#111827", "dash": "dash", "width": 1})
        if ber_at_threshold is not None:
            fig.add_trace(
                go.Scatter(
                    x=[float(threshold)],
                    y=[100 * float(ber_at_threshold)],
                    mode="markers",
                    marker={"size": 14, "color": "#111827", "symbol": "star"},
                    name="current λ",
                    hovertemplate=f"current λ = {threshold:.4g}<br>BER %{{y:.2f}}%<extra></extra>",
                )
            )


def _step_traces(t, m, s, pairs) -> list:
    """The ±1 sd band and the step line; ``shape="vh"``: each value holds up to its λ.

    A NaN in ``m`` (a gap, see :func:`_break_at_gaps`) breaks the line; the band is drawn
    segment by segment (a filled band would bridge the gap).
    """
    step = {"shape": "vh", "width": 0}
    band = []
    for seg in np.split(np.arange(t.size), np.flatnonzero(np.isnan(m))):
        seg = seg[~np.isnan(m[seg])]
        first = not band
        band += [
            go.Scatter(
                x=t[seg],
                y=(m + s)[seg],
                mode="lines",
                line=step,
                hoverinfo="skip",
                showlegend=False,
                name="+1 sd",
            ),
            go.Scatter(
                x=t[seg],
                y=(m - s)[seg],
                mode="lines",
                line=step,
                fill="tonexty",
                fillcolor="rgba(0,114,178,0.12)",
                hoverinfo="skip",
                name="± 1 sd over folds",
                showlegend=first,
                legendgroup="sd",
            ),
        ]
    return [
        *band,
        go.Scatter(
            x=t,
            y=m,
            mode="lines",
            name="SLB CV BER (exact steps)",
            line={"color": COLORS["+"], "width": 2, "shape": "vh"},
            customdata=np.column_stack([pairs, s]),
            hovertemplate=(
                "λ up to %{x:.4g}<br>BER %{y:.2f}% ± %{customdata[1]:.1f}"
                "<br>%{customdata[0]:.1f} pairs kept per fold<extra></extra>"
            ),
        ),
    ]
