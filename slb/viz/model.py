"""Figures of a fitted SLB model: its coefficients and the contributions of the terms to one
prediction.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from ..evaluation.explain import PAIR_SEP
from .style import COLORS, _base_layout, _layout, escape_text, shorten

__all__ = [
    "term_kind",
    "FIXED_WEIGHTS",
    "possessive",
    "oracle_scale",
    "coefficient_figure",
    "contributions_figure",
    "wrap_term",
    "pair_text",
    "term_text",
]


def term_kind(term: str, feature_names: Sequence[str] | None = None) -> tuple[str, str]:
    """Class sign and kind of a log-density term name such as ``log p+(a)`` or ``log p-(a, b)``.

    Parameters
    ----------
    term : str
    feature_names : sequence of str or None
        When given, a term is univariate exactly when its argument is a feature name (names
        that contain ``", "`` are handled); otherwise a top-level ``", "`` means bivariate.

    Returns
    -------
    sign : {"+", "-", "?"}
    kind : {"univariate", "bivariate"}

    Examples
    --------
    >>> term_kind("log p+(a)"), term_kind("log p-(a, b)")
    (('+', 'univariate'), ('-', 'bivariate'))
    >>> term_kind("log p+(a, b)", feature_names=["a, b", "c"])  # a feature named "a, b"
    ('+', 'univariate')
    """
    t = str(term)
    sign = "+" if t.startswith("log p+(") else "-" if t.startswith("log p-(") else "?"
    inner = t[7:-1] if sign != "?" and t.endswith(")") else t
    if feature_names is not None:
        names = (
            feature_names
            if isinstance(feature_names, (set, frozenset))
            else set(map(str, feature_names))
        )
        kind = "univariate" if inner in names else "bivariate"
    else:
        kind = "bivariate" if ", " in inner else "univariate"
    return sign, kind


def pair_text(argument: str, feature_names: Sequence[str] | None = None) -> str:
    """A term's argument as the pages write it: ``a × b`` for the pair (a, b), a feature's name
    unchanged (H37: Compare and Experiments wrote "a, b" where Explain writes "a × b").

    Display only: the term names of a fitted model (``log p+(a, b)``, the index of
    ``ratio_coefficients``) keep their comma.  With ``feature_names`` the argument is split
    where both sides are feature names (names with ``", "`` are handled); without, at its only
    ``", "`` (an argument with several is left as it is).

    Examples
    --------
    >>> pair_text("band_31, band_35"), pair_text("band_31")
    ('band_31 × band_35', 'band_31')
    >>> pair_text("a, b, c", feature_names=["a, b", "c"])
    'a, b × c'
    >>> pair_text("a, b", feature_names=["a, b", "c"])  # one feature named "a, b"
    'a, b'
    """
    text = str(argument)
    if feature_names is None:
        parts = text.split(", ")
        return PAIR_SEP.join(parts) if len(parts) == 2 else text
    names = set(map(str, feature_names))
    if text in names:
        return text
    for m in re.finditer(", ", text):
        a, b = text[: m.start()], text[m.end() :]
        if a in names and b in names:
            return f"{a}{PAIR_SEP}{b}"
    return text


def term_text(term: str, feature_names: Sequence[str] | None = None) -> str:
    """A log-density term's name as the pages write it: ``log p+(a × b)`` for
    ``log p+(a, b)`` (also ``log p[c](a, b)`` of K classes); see :func:`pair_text`.  The
    negative class's sign is the minus sign ``−`` the pages' prose writes, not the library
    name's ASCII hyphen (H49: "log p-(f2)" under "log p−(x)").

    Examples
    --------
    >>> term_text("log p-(a, b)"), term_text("log p[Chinstrap](x, y)"), term_text("log p+(a)")
    ('log p−(a × b)', 'log p[Chinstrap](x × y)', 'log p+(a)')
    """
    t = str(term)
    m = re.fullmatch(r"(log p(?:[+-]|\[.*?\]))\((.*)\)", t, flags=re.DOTALL)
    if m is None:
        return t
    head = "log p−" if m.group(1) == "log p-" else m.group(1)
    return f"{head}({pair_text(m.group(2), feature_names)})"


#: SLB's generative candidates (``SLBClassifier.selected_model_``), whose weights are fixed by
#: their densities rather than learned: their display names.
FIXED_WEIGHTS = {"tan": "TAN", "naive_bayes": "naive Bayes"}


def possessive(name: str) -> str:
    """The possessive of a model's display name (the captions and axis titles of fixed weights).

    Examples
    --------
    >>> possessive("TAN"), possessive("naive Bayes")
    ("TAN's", "naive Bayes'")
    """
    return name + ("'" if name.endswith("s") else "'s")


def _class_name(sign: str, cname: str) -> str:
    """``class + (M)``; just ``class +`` when the class's name is its sign (``+``, ``-``)."""
    mark = "+" if sign == "+" else "−"
    if str(cname).strip() in ("+", "-", "−", ""):
        return f"class {mark}"
    return f"class {mark} ({escape_text(cname)})"


def oracle_scale(coef: pd.Series, oracle: pd.Series) -> float:
    """Least-squares factor ``s`` minimising ``||s * coef - oracle||²`` over the union of terms.

    Terms missing on one side count as 0.  Returns 1.0 when ``coef`` is all zero.

    Examples
    --------
    >>> import pandas as pd
    >>> coef = pd.Series({"log p+(a)": 1.0, "log p-(a)": -1.0})
    >>> oracle_scale(coef, pd.Series({"log p+(a)": 2.0, "log p-(a)": -2.0, "log p+(b)": 0.0}))
    2.0
    >>> oracle_scale(0 * coef, coef)
    1.0
    """
    idx = coef.index.union(oracle.index, sort=False)
    c = coef.reindex(idx).fillna(0.0).to_numpy(dtype=float)
    o = oracle.reindex(idx).fillna(0.0).to_numpy(dtype=float)
    den = float(c @ c)
    return float(c @ o) / den if den > 0 else 1.0


def _term_order(shown_d: dict, oracle_d: dict) -> list:
    """Every shown term, then the nonzero oracle terms not shown, by magnitude (stable)."""
    terms = list(shown_d)
    terms += [t for t, v in oracle_d.items() if t not in shown_d and v != 0]
    mag = pd.Series(
        [max(abs(shown_d.get(t, 0.0)), abs(oracle_d.get(t, 0.0))) for t in terms], index=terms
    )
    return mag.sort_values(ascending=False, kind="stable").index.tolist()


def _coef_bars(ts, labels, shown_d, sign, kind, cname, what) -> go.Bar:
    """The bars of one class's univariate or bivariate terms (bivariate ones hatched)."""
    return go.Bar(
        y=[labels[t] for t in ts],
        x=[shown_d[t] for t in ts],
        orientation="h",
        name=f"{kind} terms of {_class_name(sign, cname)}",
        marker={
            "color": COLORS[sign],
            "pattern": {
                "shape": "/" if kind == "bivariate" else "",
                "fgcolor": "white",
                "fillmode": "overlay",
                "solidity": 0.35,
            },
        },
        hovertemplate="%{y}<br>" + what + " %{x:.4g}<extra></extra>",
        meta={"role": "coef"},
    )


def _oracle_trace(y, x) -> go.Scatter:
    """Lemma 1's oracle weights as black diamonds."""
    return go.Scatter(
        y=y,
        x=x,
        mode="markers",
        marker={"symbol": "diamond", "size": 10, "color": "#111827"},
        name="oracle weight (Lemma 1)",
        hovertemplate="%{y}<br>oracle %{x:+.0f}<extra></extra>",
    )


def coefficient_figure(
    coef: pd.Series,
    *,
    feature_names: Sequence[str] | None = None,
    oracle: pd.Series | None = None,
    n_visible: int = 40,
    max_bars: int | None = None,
    pos_name: str = "+",
    neg_name: str = "-",
    selected_model: str = "slb",
) -> go.Figure:
    """SLB's learned weight of every log-density term, sorted by magnitude.

    Horizontal bars, one per term of ``coef`` (or of its ``max_bars`` largest; the view opens
    on the ``n_visible`` largest, drag the axis to scroll).  Colour: class ``+`` (blue) or ``-``
    (vermillion); univariate terms solid, bivariate terms hatched.  With ``oracle`` (Lemma 1's
    integer weights on synthetic forest data) the learned weights are multiplied by the
    least-squares factor of :func:`oracle_scale` and the oracle weights are drawn as black
    diamonds beside them; oracle terms that SLB did not keep get a diamond at zero-width bars.
    When SLB's nested selection chose TAN or naive Bayes (``selected_model``), ``coef`` holds
    that model's fixed weights, in the oracle's units: they are drawn as they are (no factor)
    and the axis says whose weights they are.

    Parameters
    ----------
    coef : Series
        ``SLBClassifier.coef_``.
    feature_names : sequence of str or None
        Feature names (to tell univariate from bivariate terms reliably).
    oracle : Series or None
        ``SyntheticDataset.oracle_coef``.
    n_visible : int
    max_bars : int or None
        Draw only the first ``max_bars`` terms of the order (the largest weights, oracle
        included); None: every term.  Hundreds of bars cannot be told apart on a screen and
        take longer to draw (first draw in Chromium: 40 bars 70 ms, Sonar's 482 145 ms); the
        oracle scale is fitted on every term either way.
    pos_name, neg_name : str
        The classes' names, in the legend after the class's sign (not when a name is the sign).
    selected_model : {"slb", "tan", "naive_bayes"}
        ``SLBClassifier.selected_model_``: "tan" or "naive_bayes" when ``coef`` is that
        model's fixed weights (see :data:`FIXED_WEIGHTS`).

    Returns
    -------
    Figure
        The four bar traces together have one bar per drawn term of ``coef`` (``layout.meta``:
        ``n_terms`` of ``coef``, ``n_drawn`` terms drawn, ``scale``: 1 for fixed weights).

    Examples
    --------
    >>> import pandas as pd
    >>> coef = pd.Series({"log p+(a)": 1.0, "log p-(a)": -1.0, "log p+(a, b)": 0.5})
    >>> oracle = 2 * coef
    >>> fig = coefficient_figure(coef, feature_names=["a", "b"], oracle=oracle)
    >>> [trace.type for trace in fig.data]  # bars of the learned weights, diamonds of the oracle
    ['bar', 'bar', 'bar', 'scatter']
    >>> [fig.layout.meta[k] for k in ("n_terms", "n_drawn", "scale")]
    [3, 3, 2.0]
    """
    coef = pd.Series(coef, dtype=float)
    fixed = FIXED_WEIGHTS.get(str(selected_model))
    rescale = oracle is not None and fixed is None
    scale = oracle_scale(coef, oracle) if rescale else 1.0
    shown = coef * scale
    shown_d = {str(t): float(v) for t, v in shown.items()}
    oracle_d = {str(t): float(v) for t, v in oracle.items()} if oracle is not None else {}
    order = _term_order(shown_d, oracle_d)
    if max_bars is not None:
        order = order[: max(int(max_bars), 1)]
    names = set(map(str, feature_names)) if feature_names is not None else None
    labels = {t: escape_text(term_text(t, names)) for t in order}
    kinds = {t: term_kind(t, names) for t in order}
    if fixed is not None:
        what = f"{possessive(fixed)} fixed weight"
    else:
        what = f"learned × {scale:.3g}" if rescale else "learned weight"
    traces = []
    for sign, cname in (("+", pos_name), ("-", neg_name)):
        for kind in ("univariate", "bivariate"):
            ts = [t for t in order if t in shown_d and kinds[t] == (sign, kind)]
            if ts:
                traces.append(_coef_bars(ts, labels, shown_d, sign, kind, cname, what))
    if oracle is not None:
        ot = [t for t in order if t in oracle_d]
        traces.append(_oracle_trace([labels[t] for t in ot], [oracle_d[t] for t in ot]))
    n_show = min(max(int(n_visible), 1), len(order))
    if fixed is not None:  # SLB selected TAN or naive Bayes: its weights are not learned
        x_title = f"{possessive(fixed)} fixed weight (log-density units)"
    else:
        x_title = "weight (log-density units)" + (f", learned × {scale:.3g}" if rescale else "")
    layout = _layout(
        height=int(min(900, max(320, 20 * n_show + 140))),
        meta={
            "kind": "coefficients",
            "n_terms": int(coef.size),
            "n_drawn": sum(t in shown_d for t in order),
            "n_rows": len(order),
            "n_in_view": n_show,
            "scale": float(scale),
            "selected_model": str(selected_model),
        },
        bargap=0.25,
        dragmode="pan",
        yaxis={
            "type": "category",
            "categoryorder": "array",
            "categoryarray": [labels[t] for t in order],
            "range": [n_show - 0.5, -0.5],
            "title": None,
            "automargin": True,
        },
        xaxis={
            "title": {"text": x_title},
            "zeroline": True,
            "zerolinecolor": "#9CA3AF",
        },
    )
    return go.Figure(data=traces, layout=layout)


#: Longest line of a waterfall's term name: longer names are broken before their "(" and
#: after their commas.  A K-class pair term ("log p[Chinstrap](bill_length_mm,
#: flipper_length_mm)") left the plot 242 px wide at 1024 px (the projector's 260 minimum);
#: at 30 a pair of two short names ("(bill_depth_mm × body_mass_g)") keeps one line, so the
#: rows (as tall as the tallest name, H39) stay two lines high on penguins.
TERM_LINE_CHARS = 30


def wrap_term(label: str, width: int = TERM_LINE_CHARS) -> str:
    """``label`` on lines of at most ``width`` characters where it can break (before ``(``,
    after ``", "`` and ``" × "``), joined by plotly's ``<br>``; a part longer than ``width`` keeps its line.

    Examples
    --------
    >>> wrap_term("log p+(a)")
    'log p+(a)'
    >>> wrap_term("log p[Chinstrap](bill_length_mm × flipper_length_mm)")
    'log p[Chinstrap]<br>(bill_length_mm ×<br>flipper_length_mm)'
    >>> wrap_term("log p[Gentoo](bill_depth_mm × body_mass_g)")
    'log p[Gentoo]<br>(bill_depth_mm × body_mass_g)'
    """
    if len(label) <= width:
        return label
    # a long name breaks before its "(" first (every long term reads "log p[class]" over its
    # features, H39), then its features' part where it must
    head, paren, rest = label.partition("(")
    lines: list[str] = [head] if head and paren else []
    first = len(lines)  # the head keeps its own line
    for part in re.split(r"(?<=, )|(?<= × )", paren + rest if paren else label):
        if len(lines) > first and len(lines[-1]) + len(part) <= width:
            lines[-1] += part
        elif part:
            lines.append(part)
    return "<br>".join(line.rstrip() for line in lines)


def _largest_first(c: pd.Series) -> list:
    """The terms by ``|contribution|``, largest first (ties in their order)."""
    return c.abs().sort_values(ascending=False, kind="stable").index.tolist()


def _waterfall_steps(c: pd.Series, baseline, top, feature_names) -> tuple:
    """Labels, values, measures and hover texts of the waterfall's steps, read from the top."""
    order = _largest_first(c)
    head, rest = order[: max(int(top), 0)], order[max(int(top), 0) :]
    labels = ["baseline (training means)"] + [
        wrap_term(escape_text(term_text(t, feature_names))) for t in head
    ]
    values = [float(baseline)] + [float(c[t]) for t in head]
    measure = ["absolute"] + ["relative"] * len(head)
    hover = ["decision value at the training means"]
    hover += [f"{term_kind(t, feature_names)[1]} term" for t in head]
    if rest:
        one = len(rest) == 1
        labels.append("1 other term" if one else f"{len(rest)} other terms")
        values.append(float(c[rest].sum()))
        measure.append("relative")
        hover.append("the one other term" if one else f"sum of the other {len(rest)} terms")
    labels.append("decision value")
    values.append(float(baseline) + float(c.sum()))
    measure.append("total")
    hover.append("baseline + every term; > 0 predicts +")
    return labels, values, measure, hover


def _colour_legend(
    pos: str, neg: str, colors: tuple[str, str] | None = None, score_of: str | None = None
) -> list:
    """Empty bars, legend entries only: the waterfall's colours in words (``colors``: the
    two steps' own colours, named by the legend's swatches; None: the + / − class colours;
    ``score_of``: the steps raise or lower that class's score, ``colors`` given)."""
    if score_of is not None:
        up, down = colors
        entries = ((up, f"raises {score_of}'s value"), (down, f"lowers {score_of}'s value"))
    elif colors is None:
        entries = (
            (COLORS["+"], f"pushes toward + ({pos}): that class's colour"),
            (COLORS["-"], f"pushes toward − ({neg}): that class's colour"),
        )
    else:
        entries = ((colors[0], f"pushes toward {pos}"), (colors[1], f"pushes toward {neg}"))
    return [
        go.Bar(x=[None], y=[None], orientation="h", marker_color=c, name=name, hoverinfo="skip")
        for c, name in entries
    ]


def contributions_figure(
    contributions: pd.Series,
    *,
    baseline: float,
    top: int = 15,
    pos_name: str = "+",
    neg_name: str = "-",
    feature_names: Sequence[str] | None = None,
    colors: tuple[str, str] | None = None,
    score_of: str | None = None,
) -> go.Figure:
    """Waterfall from the baseline to one sample's decision value, term by term.

    Parameters
    ----------
    contributions : Series
        One sample's row of ``SLBClassifier.contributions(X)[0]`` (term -> coef × (T(x) − mean)).
    baseline : float
        The decision value at the training means (``contributions(X)[1]``).
    top : int
        Terms shown one by one (largest ``|contribution|`` first); the others make one step.
    pos_name, neg_name : str
    feature_names : sequence of str or None
    colors : (str, str) or None
        The colours of a step toward ``pos_name`` and toward ``neg_name`` (K classes: the
        decided class's own colour and a grey for "the rest"); None: the + / − class colours.
    score_of : str or None
        K classes: the class whose multinomial score this is (the largest of the K scores
        wins; its sign decides nothing).  The legend then says a step raises or lowers that
        score, the axis names it (briefly: a longer title was cut at 1024 px), and
        ``pos_name`` / ``neg_name`` are not used.  None: two classes, the sign decides
        (``< 0``: ``neg_name``, ``> 0``: ``pos_name``).

    Returns
    -------
    Figure
        One ``go.Waterfall``, read from the top: the baseline, the ``top`` terms, one
        "N other terms" step (their sum), then the decision value (baseline + every step).
        Colours are the class colours of every page: a step toward ``+`` is drawn in the
        positive class's colour (:data:`COLORS` ``"+"``), a step toward ``−`` in the negative
        class's; the legend says so in words.

    Examples
    --------
    >>> import pandas as pd
    >>> c = pd.Series({"log p+(a)": 0.6, "log p-(a)": -0.2, "log p+(b)": 0.1})
    >>> fig = contributions_figure(c, baseline=0.5, top=2)
    >>> fig.data[0].y
    ('baseline (training means)', 'log p+(a)', 'log p−(a)', '1 other term', 'decision value')
    >>> fig.data[0].x  # the decision value is the baseline plus every step
    (0.5, 0.6, -0.2, 0.1, 1.0)

    With K classes the waterfall explains one class's score, whose sign decides nothing:

    >>> fig = contributions_figure(c, baseline=0.5, score_of="setosa")
    >>> fig.layout.xaxis.title.text, [t.name for t in fig.data[1:]]
    ("setosa's decision value", ["raises setosa's value", "lowers setosa's value"])
    """
    c = pd.Series(contributions, dtype=float)
    labels, values, measure, hover = _waterfall_steps(c, baseline, top, feature_names)
    shown = _largest_first(c)[: max(int(top), 0)]
    decision = values[-1]
    # class names in the axis title and the legend, shortened with a visible "…" (a name of
    # 44 characters cut the axis title at 1024 px, H41)
    pos, neg = escape_text(shorten(pos_name, 24)), escape_text(shorten(neg_name, 24))
    up, down = colors or (COLORS["+"], COLORS["-"])
    fig = go.Figure(
        go.Waterfall(
            orientation="h",
            y=labels,
            x=values,
            measure=measure,
            base=0,
            customdata=hover,
            hovertemplate="%{y}<br>%{x:+.3g} (%{customdata})<extra></extra>",
            increasing={"marker": {"color": up}},
            decreasing={"marker": {"color": down}},
            totals={"marker": {"color": COLORS["neutral"]}},
            connector={"line": {"color": "#9CA3AF", "width": 1}},
            name="contribution",
            showlegend=False,
        )
    )
    named = None if score_of is None else escape_text(shorten(score_of, 24))
    for trace in _colour_legend(pos, neg, colors if named is None else (up, down), named):
        fig.add_trace(trace)
    fig.update_yaxes(type="category", autorange="reversed", automargin=True)
    fig.update_xaxes(
        title=f"decision value (< 0: − {neg}   ·   > 0: + {pos})"
        if named is None
        else f"{named}'s decision value",
        zeroline=True,
        zerolinecolor="#111827",
    )
    # Every row of a category axis is as tall as the tallest: room for the longest name's
    # lines (19 px each at 14 px) and a gap, or three-line names touch (H39)
    lines = max(1 + t.count("<br>") for t in labels)
    row_px = max(26, 19 * lines + 12)
    return _base_layout(
        fig,
        height=int(max(340, row_px * len(labels) + 160)),
        meta={
            "kind": "contributions",
            "baseline": float(baseline),
            "decision": decision,
            "n_steps": len(labels),
            # the terms drawn one by one (their names, largest first), the largest of their
            # steps, and the "other" step: how many terms it sums and their sum (0 terms: 0.0)
            "terms": shown,
            "largest": max((abs(v) for v in values[1 : 1 + len(shown)]), default=0.0),
            "n_other": c.size - len(shown),
            "other": values[-2] if c.size > len(shown) else 0.0,
            "colors": {"toward +": COLORS["+"], "toward -": COLORS["-"]},
        },
    )
