"""The two-class weights of a fitted SLB model in an identifiable form (per log-density ratio
and common part) and its features' importances, each a figure of one panel.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from .model import FIXED_WEIGHTS, _oracle_trace, oracle_scale, pair_text, possessive, term_kind
from .style import COLORS, _base_layout, escape_text

__all__ = ["ratio_form", "ratio_figure", "importance_figure"]


def _rows_top_down(fig: go.Figure, labels: list) -> None:
    """Horizontal bars in the order of ``labels``, the first at the top."""
    fig.update_yaxes(
        type="category",
        categoryorder="array",
        categoryarray=labels,
        autorange="reversed",
        automargin=True,
    )


def _bars_height(n_rows: int) -> int:
    """Figure height for ``n_rows`` horizontal bars: 26 px a row, 360 to 960 px."""
    return int(min(960, max(360, 26 * n_rows + 180)))


def ratio_form(coef: pd.Series, feature_names: Sequence[str] | None = None) -> pd.DataFrame:
    """Two-class term weights ``log p±(...)`` rewritten per log-density ratio and common part.

    ``w+ log p+ + w- log p- = ratio (log p+ - log p-) + common (log p+ + log p-)`` with
    ``ratio = (w+ - w-) / 2`` and ``common = (w+ + w-) / 2``, as
    ``SLBClassifier.ratio_coefficients`` computes them from a fitted model; this reads them
    from term names (e.g. Lemma 1's oracle, ``SyntheticDataset.oracle_coef``).

    Parameters
    ----------
    coef : Series
        Weights indexed by term names ``log p+(a)``, ``log p-(a, b)``, ...
    feature_names : sequence of str or None
        As in :func:`term_kind`.

    Returns
    -------
    DataFrame
        Index ``a`` or ``a, b`` (the term's argument), columns ``kind``, ``ratio``, ``common``.

    Examples
    --------
    >>> import pandas as pd
    >>> w = pd.Series({"log p+(a)": 1.0, "log p-(a)": -1.0, "log p+(a, b)": 1.0})
    >>> ratio_form(w).to_dict("index")  # doctest: +NORMALIZE_WHITESPACE
    {'a': {'kind': 'univariate', 'ratio': 1.0, 'common': 0.0},
     'a, b': {'kind': 'bivariate', 'ratio': 0.5, 'common': 0.5}}
    """
    names = set(map(str, feature_names)) if feature_names is not None else None
    rows: dict = {}
    for term, w in pd.Series(coef, dtype=float).items():
        sign, kind = term_kind(str(term), names)
        inner = str(term)[7:-1] if sign != "?" else str(term)
        row = rows.setdefault(inner, {"kind": kind, "plus": 0.0, "minus": 0.0})
        row["plus" if sign == "+" else "minus"] += float(w)
    out = pd.DataFrame.from_dict(rows, orient="index", columns=["kind", "plus", "minus"])
    out["ratio"] = (out["plus"] - out["minus"]) / 2
    out["common"] = (out["plus"] + out["minus"]) / 2
    return out[["kind", "ratio", "common"]]


def ratio_figure(
    table: pd.DataFrame,
    *,
    oracle: pd.DataFrame | None = None,
    max_bars: int = 30,
    title: str | None = None,
    selected_model: str = "slb",
) -> go.Figure:
    """The two-class weights in an identifiable form (:func:`importance_figure` draws
    ``feature_importances_`` below it).

    A feature's terms ``log p+(a)`` and ``log p-(a)`` are nearly collinear when it does not
    separate the classes, so their weights may be large and cancel; per log-density ratio and
    common part (``SLBClassifier.ratio_coefficients``) they do not.  Left: the weight of each
    term's log-density ratio (dark) and of its common part (grey), the largest ``max_bars``;
    with ``oracle`` (Lemma 1's integer weights in the same form, :func:`ratio_form`), the
    learned weights are multiplied by the least-squares factor and the oracle's drawn as
    diamonds (not when ``selected_model`` is TAN or naive Bayes, whose weights are fixed and in
    the oracle's units).  One panel: at 1024 px with the sidebar open, a second panel beside the
    term names was 147 px wide, under the projector's 260 (H47).

    Parameters
    ----------
    table : DataFrame
        ``SLBClassifier.ratio_coefficients()`` (columns ``kind``, ``ratio``, ``common``; index
        the term's feature or pair).
    oracle : DataFrame or None
        Columns ``ratio`` and ``common`` (:func:`ratio_form` of ``oracle_coef``).
    max_bars : int
    title : str or None
    selected_model : {"slb", "tan", "naive_bayes"}
        As in :func:`coefficient_figure`.

    Returns
    -------
    Figure
        ``layout.meta``: ``kind="ratio_coefficients"``, ``terms`` (drawn, top first),
        ``n_terms``, ``scale`` (1 for fixed weights).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame(
    ...     {"kind": ["univariate", "bivariate"], "ratio": [0.8, 0.4], "common": [0.1, 0.0]},
    ...     index=["a", "a, b"])
    >>> ratio_figure(t).layout.meta["terms"]
    ['a', 'a, b']
    """
    t = pd.DataFrame(table).copy()
    mag = t[["ratio", "common"]].abs().max(axis=1)
    terms = mag.sort_values(ascending=False, kind="stable").index[: max(int(max_bars), 1)]
    scale = 1.0
    fixed = FIXED_WEIGHTS.get(str(selected_model))
    if oracle is not None and fixed is None:
        scale = oracle_scale(
            pd.concat([t["ratio"].add_suffix(" r"), t["common"].add_suffix(" c")]),
            pd.concat([oracle["ratio"].add_suffix(" r"), oracle["common"].add_suffix(" c")]),
        )
    shown = t.loc[terms]
    kind = shown["kind"].tolist()
    labels = [
        escape_text(pair_text(v) if k == "bivariate" else v)
        for v, k in zip(terms, kind, strict=True)
    ]
    if fixed is not None:
        what = f" ({possessive(fixed)} fixed weight)"
    else:
        what = f" × {scale:.3g}" if oracle is not None else ""
    fig = go.Figure()
    for col, colour, name in (
        ("ratio", "#374151", "log-density ratio (log p+ − log p−)"),
        ("common", "#9CA3AF", "common part (log p+ + log p−)"),
    ):
        fig.add_trace(
            go.Bar(
                y=labels,
                x=(shown[col] * scale).tolist(),
                orientation="h",
                name=name,
                marker={
                    "color": colour,
                    "pattern": {
                        "shape": ["/" if k == "bivariate" else "" for k in kind],
                        "fgcolor": "white",
                        "fillmode": "overlay",
                        "solidity": 0.35,
                    },
                },
                hovertemplate="%{y}<br>" + col + what + " %{x:.4g}<extra></extra>",
            )
        )
    if oracle is not None:
        o = oracle.reindex(terms)
        fig.add_trace(_oracle_trace(labels, o["ratio"].fillna(0.0).tolist()))
    fig.update_layout(barmode="group", bargap=0.2)
    _rows_top_down(fig, labels)
    x_title = f"{possessive(fixed)} fixed weight" if fixed is not None else "weight" + what
    fig.update_xaxes(title_text=x_title, zeroline=True, zerolinecolor="#9CA3AF")
    return _base_layout(
        fig,
        title=escape_text(title) if title else None,
        height=_bars_height(len(terms)),
        meta={
            "kind": "ratio_coefficients",
            "terms": [str(v) for v in terms],
            "n_terms": int(len(t)),
            "scale": float(scale),
            "selected_model": str(selected_model),
        },
    )


def importance_figure(
    importances: pd.Series, *, max_bars: int = 30, title: str | None = None
) -> go.Figure:
    """Each input feature's ``feature_importances_``, largest first (the largest ``max_bars``).

    Its own figure, drawn below :func:`ratio_figure`: a panel beside the weights' term names
    was 147 px wide at 1024 px with the sidebar open (H47), under the projector's 260.

    Parameters
    ----------
    importances : Series
        Indexed by feature name (``pd.Series(clf.feature_importances_, index=names)``).
    max_bars : int
    title : str or None

    Returns
    -------
    Figure
        ``layout.meta``: ``kind="feature_importance"``, ``features`` (drawn, largest first),
        ``n_features``.

    Examples
    --------
    >>> import pandas as pd
    >>> fig = importance_figure(pd.Series([0.2, 0.9, 0.0], index=["a", "b", "c"]), max_bars=2)
    >>> fig.layout.meta["features"], list(fig.data[0].x)
    (['b', 'a'], [0.9, 0.2])
    """
    imp = pd.Series(importances, dtype=float)
    if imp.isna().any() or (imp < 0).any():
        raise ValueError(
            "Feature importances must be non-negative numbers; pass the fitted model's "
            "feature_importances_."
        )
    shown = imp.sort_values(ascending=False, kind="stable").iloc[: max(int(max_bars), 1)]
    labels = [escape_text(str(v)) for v in shown.index]
    fig = go.Figure(
        go.Bar(
            y=labels,
            x=shown.tolist(),
            orientation="h",
            name="feature importance",
            marker={"color": COLORS["both"]},
            hovertemplate="%{y}<br>importance %{x:.3g}<extra></extra>",
        )
    )
    _rows_top_down(fig, labels)
    fig.update_xaxes(title_text="importance (spread of the feature's terms)", rangemode="tozero")
    return _base_layout(
        fig,
        title=escape_text(title) if title else None,
        height=_bars_height(len(shown)),
        meta={
            "kind": "feature_importance",
            "features": [str(v) for v in shown.index],
            "n_features": int(len(imp)),
        },
    )
