"""A slider that reports its value while it is dragged: a small local Streamlit custom component.

Streamlit's ``st.slider`` tells the app its value only when the mouse is released, so the
figures a slider moves jump once instead of following the hand.  :func:`live_slider` draws an
``<input type="range">`` (the static page ``frontend/index.html``, served by the app itself: no
network, no build step) that reports at most one value per 150 ms while it is dragged, and the
final value on release or on a key press.

AppTest cannot drive custom components, so :func:`enabled` is False under AppTest (and when the
environment variable ``SLB_LIVE_SLIDER`` is ``0``); callers then draw an ``st.slider`` over the
same values instead (:mod:`dashboard.controls`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from .._streamlit_compat import declare_component, served_to_a_browser

ENV = "SLB_LIVE_SLIDER"
_FRONTEND = Path(__file__).resolve().parent / "frontend"
_component = declare_component("slb_live_slider", str(_FRONTEND))  # None: st.slider instead


def enabled() -> bool:
    """Whether to draw the live slider: ``SLB_LIVE_SLIDER`` (1/0) decides, else "not AppTest"."""
    flag = os.environ.get(ENV, "").strip().lower()
    if flag in {"0", "false", "no", "off"} or _component is None:
        return False
    if flag in {"1", "true", "yes", "on"}:
        return True
    return served_to_a_browser()


def grid(lo: float, hi: float, step: float) -> int:
    """Number of steps ``n`` of the value list ``lo, lo + step, ..., lo + n step = hi``."""
    return max(int(round((hi - lo) / step)), 1)


def snap(value: float, lo: float, step: float, n: int, decimals: int) -> float:
    """The value of the list nearest to ``value`` (rounded as the slider shows it)."""
    k = min(max(int(round((float(value) - lo) / step)), 0), n)
    return round(lo + k * step, decimals)


def reported(key: str) -> float | None:
    """The value the component with ``key`` last reported (None before its first report)."""
    v = st.session_state.get(key)
    if isinstance(v, dict):
        v = v.get("value")
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def live_slider(
    label: str,
    *,
    key: str,
    value: float,
    min_value: float,
    max_value: float,
    step: float,
    decimals: int,
    on_change: Callable[[float], None],
    help: str | None = None,  # noqa: A002 (Streamlit's name for it)
) -> None:
    """Draw the live slider over ``min_value, min_value + step, ..., max_value`` at ``value``.

    ``on_change(v)`` receives every value the user moves it to (snapped to the list), before
    the rerun that value triggers; the slider's position follows ``value`` on every run.
    """
    n = grid(min_value, max_value, step)
    k = min(max(int(round((float(value) - min_value) / step)), 0), n)

    def _changed():
        v = reported(key)
        if v is not None:
            on_change(snap(v, min_value, step, n, decimals))

    _component(
        label=label,
        help=help or "",
        lo=float(min_value),
        step=float(step),
        n=n,
        decimals=int(decimals),
        index=k,
        key=key,
        default=None,
        on_change=_changed,
    )
