"""A slider that reports its position while it is dragged: a Streamlit Components v2 component.

Streamlit's ``st.slider`` tells the app its value only when the mouse is released, so the
figures a slider moves jump once instead of following the hand.  :func:`live_slider` draws an
``<input type="range">`` over the positions ``0..n`` of a value list (each position shows its
own text, e.g. "λ = 0.0123 · 45 of 1770 pairs kept") that reports at most one position per
150 ms while it is dragged, and the final one on release or on a key press.

It is written on Streamlit's documented Components v2 API, ``st.components.v2.component``
(inline HTML/CSS/JS from ``frontend/``, no iframe, no build step, ``setStateValue``), which
exists since Streamlit 1.51; the dashboard's floor is 1.56 (``slb/_min_dependencies.py``), so
no version switch is needed.  Nothing here imports a Streamlit module beyond ``streamlit``.

:func:`enabled` is False, and callers draw an ``st.select_slider`` over the same positions
instead (:mod:`dashboard.controls`), when

* ``st.components.v2`` is missing or the component cannot be registered (a moved API turns the
  live slider off instead of taking the app down);
* no browser is connected: AppTest runs the script without a frontend to run the JavaScript,
  and its sessions have no request headers (``st.context.headers``, a documented API);
* the environment variable ``SLB_LIVE_SLIDER`` is ``0``/``false`` (``1`` forces it on).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import streamlit as st

ENV = "SLB_LIVE_SLIDER"
NAME = "slb_live_slider"
_FRONTEND = Path(__file__).resolve().parent / "frontend"
_SOURCES: dict[str, str] = {}  # the frontend files, read once


def _read(name: str) -> str:
    if name not in _SOURCES:
        _SOURCES[name] = (_FRONTEND / name).read_text(encoding="utf-8")
    return _SOURCES[name]


def component():
    """The v2 mounting command, or None when ``st.components.v2`` is unavailable.

    Registered on every call, i.e. in the script run that mounts it: the registry belongs to
    the running Streamlit runtime (AppTest makes one per test, and before 1.67 a definition
    registered under another runtime is not found).  Registering the same definition again is
    silent and cheap.
    """
    try:
        v2 = getattr(st.components, "v2", None)
        register = getattr(v2, "component", None)
        if register is None:
            return None
        return register(
            NAME, html=_read("slider.html"), css=_read("slider.css"), js=_read("slider.js")
        )
    except Exception:  # pragma: no cover - depends on the installed streamlit
        return None


def browser_session() -> bool:
    """Whether a browser is connected to this session (its request headers are known)."""
    try:
        return bool(st.context.headers)
    except Exception:  # pragma: no cover - outside a script run or a moved API
        return False


def enabled() -> bool:
    """Whether to draw the live slider: ``SLB_LIVE_SLIDER`` (1/0) decides, else "a browser";
    never when the component cannot be registered."""
    flag = os.environ.get(ENV, "").strip().lower()
    if flag in {"0", "false", "no", "off"}:
        return False
    if flag not in {"1", "true", "yes", "on"} and not browser_session():
        return False
    return component() is not None


def reported(key: str) -> int | None:
    """The position the component with ``key`` last reported (None before its first report)."""
    state = st.session_state.get(key)
    pick = None
    if state is not None:
        try:
            pick = state["pick"]
        except (KeyError, TypeError, IndexError):
            pick = getattr(state, "pick", None)
    if isinstance(pick, dict):
        pick = pick.get("index")
    if isinstance(pick, (int, float)) and not isinstance(pick, bool):
        return int(pick)
    return None


def live_slider(
    label: str,
    *,
    key: str,
    index: int,
    texts: Sequence[str],
    counts: Sequence[int] | None = None,
    count_text: str = "",
    on_change: Callable[[int], None],
    help: str | None = None,  # noqa: A002 (Streamlit's name for it)
) -> None:
    """Draw the live slider over the positions ``0 .. len(texts) - 1`` at ``index``.

    Position ``k`` shows ``texts[k]`` (and ``counts[k] count_text``).  ``on_change(k)``
    receives every position the user moves it to, before the rerun that position triggers;
    the slider follows ``index`` on every run.
    """
    n = max(len(texts) - 1, 1)
    k = min(max(int(index), 0), n)

    def _changed():
        v = reported(key)
        if v is not None:
            on_change(min(max(v, 0), n))

    mount = component()
    if mount is None:  # pragma: no cover - enabled() said it was there in this run
        raise RuntimeError("st.components.v2 is unavailable: draw st.select_slider instead")
    mount(
        key=key,
        data={
            "label": label,
            "help": help or "",
            "index": k,
            "n": n,
            "text": [str(t) for t in texts],
            "count": [int(c) for c in counts] if counts is not None else [],
            "count_text": count_text,
        },
        on_pick_change=_changed,
    )
