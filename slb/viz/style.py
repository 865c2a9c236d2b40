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

import plotly.graph_objects as go

__all__ = ["COLORS", "escape_text"]


#: Colours of the positive class, the negative class and "both classes".
COLORS = {"+": "#0072B2", "-": "#D55E00", "both": "#7B3F9E", "neutral": "#6B7280"}


_FONT = {"family": "Inter, Segoe UI, Helvetica, Arial, sans-serif", "size": 13}


def escape_text(text) -> str:
    """``str(text)`` with ``&``, ``<``, ``>`` (and quotes) as HTML entities, for plotly labels."""
    return html.escape(str(text), quote=True)


def _names(names) -> list[str]:
    return [escape_text(n) for n in names]


def _layout(*, title=None, height=None, meta=None, **more) -> dict:
    """The house layout as a dict (``more``: the builder's own keys, on top)."""
    layout = {
        "font": _FONT,
        "title": {"text": title, "x": 0.0, "xanchor": "left"} if title else None,
        "margin": {"l": 10, "r": 10, "t": 50 if title else 20, "b": 10},
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0},
        "hoverlabel": {"align": "left"},
    }
    if height is not None:
        layout["height"] = height
    if meta is not None:
        layout["meta"] = meta
    layout.update(more)
    return layout


def _base_layout(fig: go.Figure, *, title=None, height=None, meta=None) -> go.Figure:
    # No template of our own: Streamlit's chart theme styles the figures in the app.  One
    # update_layout call: each call costs plotly 2-4 ms of validation bookkeeping, more than
    # building a small figure (it matters when λ moves); the figures redrawn at every λ build
    # their whole layout with _layout and pass it to go.Figure at once.
    return fig.update_layout(_layout(title=title, height=height, meta=meta))


def _measure_label(measure: str) -> str:
    return {"hsic": "HSIC", "pearson": "|Pearson r|", "spearman": "|Spearman ρ|"}.get(
        str(measure).lower(), str(measure)
    )
