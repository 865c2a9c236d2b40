"""The house style of the SLB Explorer figures: colours, fonts, the shared layout and the
escaping of user-provided text.

Safety: feature and class names come from user files.  Plotly renders a subset of HTML in
titles, tick labels, legends and hover labels (``<a href=...>``, ``<b>``, ...), so every
user-provided string goes through :func:`escape_text` (``&``, ``<`` and ``>`` become HTML
entities) before it enters a figure.

Colours follow the Okabe-Ito palette (readable with the common colour-vision deficiencies):
blue for the positive class ``+``, vermillion for the negative class ``-``, purple for pairs
dependent in both classes.
"""

from __future__ import annotations

import html
import textwrap

import plotly.colors
import plotly.graph_objects as go

__all__ = ["COLORS", "FONT_PX", "LEGEND_BELOW", "LEGEND_ROW_PX", "classifier_order", "escape_text"]


#: Colours of the positive class, the negative class and "both classes".
COLORS = {"+": "#0072B2", "-": "#D55E00", "both": "#7B3F9E", "neutral": "#6B7280"}

#: Marker symbols of the classes' points, so the classes differ without colour too; one symbol
#: per colour on every page (H52: the Densities page drew + as circles, the Decision surface as
#: crosses).  K classes: class ``k`` the ``k``-th; see :func:`class_symbol`.
CLASS_SYMBOLS = ("circle", "diamond", "square", "triangle-up", "x", "cross", "star", "pentagon")


def class_symbol(code: int, n_classes: int) -> str:
    """The marker symbol of class ``code`` (0-based) among ``n_classes``: with two classes the
    positive class (1, blue) is the circle and the negative one (0, vermillion) the diamond;
    with K, class ``k`` takes ``CLASS_SYMBOLS[k]`` (class 0, blue on the K-class pages, the
    circle), so a colour keeps its symbol.

    Examples
    --------
    >>> class_symbol(1, 2), class_symbol(0, 2), [class_symbol(k, 3) for k in range(3)]
    ('circle', 'diamond', ['circle', 'diamond', 'square'])
    """
    k = 1 - int(code) if int(n_classes) == 2 else int(code)
    return CLASS_SYMBOLS[k % len(CLASS_SYMBOLS)]


#: Smallest text size of every figure (ticks, legends, axis titles, cell labels): readable on a
#: projector at 1024 × 768 (issue 28).  Titles are larger; hover labels are exempt.
FONT_PX = 14
TITLE_PX = 16
#: Height of one legend row (14 px text) below a figure.
LEGEND_ROW_PX = 24
_FONT = {"family": "Inter, Segoe UI, Helvetica, Arial, sans-serif", "size": FONT_PX}
#: Axis text colour: Streamlit's chart theme writes ticks in #808495 (3.7:1 on white, below
#: WCAG AA's 4.5:1, faint on a projector); this grey is 10.3:1.
AXIS_TEXT = "#374151"
#: Axis text set explicitly: Streamlit's chart theme (a template) writes 12 px ticks otherwise.
_AXIS = {
    "tickfont": {"size": FONT_PX, "color": AXIS_TEXT},
    "title": {"font": {"size": FONT_PX, "color": AXIS_TEXT}},
    "automargin": True,
}
#: Node names on the graphs: dark text with a white halo (CSS ``text-shadow``), legible where
#: no place beside the node is free of edges (dense parts of a pair graph, H33).
NODE_TEXT = {
    "size": FONT_PX,
    "color": "#111827",
    "shadow": "1px 1px 1px #fff, -1px -1px 1px #fff, 1px -1px 1px #fff, -1px 1px 1px #fff",
}
#: The legend below the plot, in the figure's bottom margin (``yref="container"``: plotly
#: grows the margin to fit it), never over the title or the plot area.
LEGEND_BELOW = {
    "orientation": "h",
    "yref": "container",
    "yanchor": "bottom",
    "y": 0,
    "xanchor": "left",
    "x": 0,
    "font": {"size": FONT_PX},
    "title": {"font": {"size": FONT_PX}},
}


def escape_text(text) -> str:
    """``str(text)`` with ``&``, ``<``, ``>`` (and quotes) as HTML entities, for plotly labels.

    Examples
    --------
    >>> escape_text("<b>x</b> & y")
    '&lt;b&gt;x&lt;/b&gt; &amp; y'
    """
    return html.escape(str(text), quote=True)


def shorten(text, width: int) -> str:
    """``text`` in at most ``width`` characters: cut at its last space in the final third of
    that room when it has one, else anywhere, and ended with a visible "…" (plain text, not
    escaped).  :func:`textwrap.shorten` returns only its placeholder for a long name without
    spaces ("Patient_group_with_diabetes").

    Examples
    --------
    >>> shorten("Adelie", 10)
    'Adelie'
    >>> shorten("Another very long class name", 16)
    'Another very…'
    >>> shorten("Patient_group_with_diabetes", 12)
    'Patient_gro…'
    """
    text = str(text)
    if len(text) <= width:
        return text
    cut = text[: max(width - 1, 1)]
    space = cut.rfind(" ")
    if space >= (2 * len(cut)) // 3:
        cut = cut[:space]
    return cut.rstrip() + "…"


def signed(value, decimals: int = 3) -> str:
    """``value`` with its sign always written, a negative one with the minus sign "−" (U+2212)
    that plotly draws on axes and in hover labels, so a number beside a figure reads as the
    figure's own (H41: "-1.086" in a metric beside "−1.0" on the waterfall's axis).

    Examples
    --------
    >>> signed(-1.0864), signed(0.25), signed(2, decimals=1)
    ('−1.086', '+0.250', '+2.0')
    """
    return f"{float(value):+.{int(decimals)}f}".replace("-", "\u2212")


def wrap_lines(text, width: int, max_lines: int) -> list[str]:
    """``text`` wrapped at spaces (a longer word broken) on lines of at most ``width``
    characters, at most ``max_lines`` of them (the last ending in "…" when cut), each line
    escaped for a plotly label.

    Examples
    --------
    >>> wrap_lines("Another very long class name for <beta> group", 16, 3)
    ['Another very', 'long class name', 'for &lt;beta&gt; group']
    >>> wrap_lines("word " * 20, 12, 2)
    ['word word', 'word word …']
    """
    text = str(text)
    lines = textwrap.wrap(text, width, max_lines=max_lines, placeholder=" …") or [text]
    return [escape_text(line) for line in lines]


def _names(names) -> list[str]:
    return [escape_text(n) for n in names]


#: Height of plotly's toolbar band at a figure's top (its buttons, shown on hover, end 27 px
#: below the top at the dashboard's sizes): titles start below it.
MODEBAR_PX = 30


def _title(title) -> dict | None:
    """The title in the figure's top margin (grown to fit it), left-aligned, below the band of
    plotly's toolbar (H45: a long title went under the buttons on hover)."""
    if not title:
        return None
    return {
        "text": title,
        "x": 0.0,
        "xanchor": "left",
        "xref": "container",
        "yref": "container",
        "y": 1.0,
        "yanchor": "top",
        "pad": {"t": MODEBAR_PX, "l": 4},
        "automargin": True,
        "font": {"size": TITLE_PX},
    }


def _with_axis_fonts(axis) -> dict:
    """An axis dict with the house text sizes under the builder's own keys."""
    axis = dict(axis or {})
    for key, value in _AXIS.items():
        if isinstance(value, dict):
            mine = axis.get(key)
            if isinstance(mine, str):  # a title given as text
                mine = {"text": mine}
            axis[key] = {**value, **(mine or {})}
        else:
            axis.setdefault(key, value)
    return axis


def _layout(*, title=None, height=None, meta=None, **more) -> dict:
    """The house layout as a dict (``more``: the builder's own keys, on top; the axes keep the
    house text sizes under their own keys)."""
    layout = {
        "font": _FONT,
        "title": _title(title),
        "margin": {"l": 10, "r": 10, "t": 10, "b": 10},
        "legend": LEGEND_BELOW,
        "hoverlabel": {"align": "left"},
        "xaxis": _AXIS,
        "yaxis": _AXIS,
        # text inside bars is never shrunk below 14 px (plotly shrinks it to fit otherwise)
        "uniformtext": {"minsize": FONT_PX, "mode": "show"},
    }
    if height is not None:
        layout["height"] = height
    if meta is not None:
        layout["meta"] = meta
    layout.update(more)
    for key in list(layout):
        if key.startswith(("xaxis", "yaxis")):
            layout[key] = _with_axis_fonts(layout[key])
    if layout.get("legend") is not LEGEND_BELOW:  # a builder's own legend: the house font
        layout["legend"] = {"font": {"size": FONT_PX}, **(layout.get("legend") or {})}
    return layout


def _base_layout(fig: go.Figure, *, title=None, height=None, meta=None) -> go.Figure:
    # No template of our own: Streamlit's chart theme styles the figures in the app, but every
    # text size is explicit (its template's 12 px ticks are too small on a projector).  One
    # update_layout call: each call costs plotly 2-4 ms of validation bookkeeping, more than
    # building a small figure (it matters when λ moves); the figures redrawn at every λ build
    # their whole layout with _layout and pass it to go.Figure at once.
    layout = _layout(title=title, height=height, meta=meta)
    for name in fig.layout:  # every axis of a figure with subplots
        if name.startswith(("xaxis", "yaxis")):
            layout[name] = _with_axis_fonts(None)
    return fig.update_layout(layout)


#: One colour per catalogued classifier on every figure (H54: SLB was black on Compare's ROC
#: curves, blue on the learning curve, and TAN, NB changed too).  None is a class colour (blue
#: +, vermillion −, the purple of "both") nor one of their :data:`LOOKALIKES` (H55: RF's indigo
#: and DISCRETE's maroon were).
CLASSIFIER_COLORS = {
    "SLB": "#000000",
    "SLB(Pearson)": "#882255",
    "SLB-": "#8C6D1F",
    "LU": "#999933",
    "TAN": "#009E73",
    "NB": "#CC79A7",
    "RF": "#117733",
    "SVM(RBF)": "#555555",
    "SVM(linear)": "#999999",
    "5NN": "#DDCC77",
    "SVM(RBF, balanced)": "#44AA99",
    "Gaussian NB": "#E7298A",
    "Rényi": "#A6761D",
    "DISCRETE": "#66A61E",
}
#: For another name, or a classifier whose colour means a class in this figure: first these,
#: then plotly's Dark24 (none of them twice in a figure, none a banned colour).
_SPARE_COLORS = ("#7570B3", "#1B9E77", "#666666", "#6A3D9A", "#B2828D", "#6C7C32")
#: Colours that read as the same hue on a projector: a figure that avoids one avoids all of
#: them (H48: TAN's orange #E69F00 read as penguins' Chinstrap, vermillion #D55E00).
LOOKALIKES = {
    "#D55E00": ("#E69F00", "#661100", "#862A16", "#EB663B"),
    "#0072B2": ("#56B4E9", "#332288", "#88CCEE", "#2E91E5", "#778AAE", "#0D2A63", "#1616A7"),
    "#E69F00": ("#D55E00", "#B68100"),
    "#009E73": ("#117733", "#44AA99", "#1B9E77", "#00A08B", "#1CA71C"),
    "#CC79A7": ("#E7298A", "#E15F99", "#DA60CA"),
    "#7B3F9E": ("#6A3D9A", "#7570B3", "#750D86", "#A777F1"),
}


def classifier_colors(names, avoid=()) -> dict:
    """The line colour of each classifier in ``names``: its own (:data:`CLASSIFIER_COLORS`),
    the same on every figure; a classifier whose colour is in ``avoid`` (a K-class table's
    class colours) or reads like one (:data:`LOOKALIKES`), or a name outside the catalogue,
    takes the first free spare colour.

    Examples
    --------
    >>> classifier_colors(["SLB", "TAN", "NB"])
    {'SLB': '#000000', 'TAN': '#009E73', 'NB': '#CC79A7'}
    >>> classifier_colors(["SLB", "TAN"], avoid=["#0072B2", "#D55E00", "#009E73"])["TAN"]
    '#7570B3'
    """
    banned = {c.upper() for c in avoid}
    for c in list(banned):
        banned |= {x.upper() for x in LOOKALIKES.get(c, ())}
    listed = set(map(str, names))
    # a catalogued classifier's own colour is kept for it even when it comes later
    reserved = {CLASSIFIER_COLORS[n].upper() for n in listed if n in CLASSIFIER_COLORS}
    spares = [*_SPARE_COLORS, *plotly.colors.qualitative.Dark24, *CLASSIFIER_COLORS.values()]
    out, taken = {}, set()
    for name in names:
        own = CLASSIFIER_COLORS.get(str(name))
        if own is None or own.upper() in banned or own.upper() in taken:
            # never a colour another line has or keeps (H55: three black lines on a K-class
            # figure with every classifier chosen)
            own = next(
                (c for c in spares if c.upper() not in banned | taken | reserved),
                None,
            ) or next(c for c in spares if c.upper() not in taken)
        out[name] = own
        taken.add(own.upper())
    return out


def classifier_order(names) -> list:
    """``names`` in the one order every chart draws classifiers in: SLB first, the others in
    the order given (the catalogue's, as the dashboard and the experiments list them), never
    re-sorted by a value, so a bar or a line keeps its place when λ or the data change.

    Examples
    --------
    >>> classifier_order(["TAN", "NB", "SLB", "RF"])
    ['SLB', 'TAN', 'NB', 'RF']
    """
    names = list(dict.fromkeys(names))
    return sorted(names, key=lambda n: (n != "SLB", names.index(n)))


def _measure_label(measure: str) -> str:
    return {"hsic": "HSIC", "pearson": "|Pearson r|", "spearman": "|Spearman ρ|"}.get(
        str(measure).lower(), str(measure)
    )
