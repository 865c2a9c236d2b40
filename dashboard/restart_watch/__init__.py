"""Rerun a tab left open while the server restarted: a Streamlit Components v2 component.

After a restart of the server, Streamlit's frontend reconnects but keeps showing the old page
(an upload that is gone, figures of the old process) until the user touches a widget, minutes
later or never.  :func:`watch` mounts an invisible component whose JavaScript
(``watch.js``) polls the app's own health endpoint every second; once it has seen the server down
and up again it reports a value, the frontend reruns the page in the new server's session, and
that run restores the settings from the address and shows the restart notice
(:mod:`dashboard.urlstate`).  Nothing is drawn without a browser (AppTest has none) or when
``st.components.v2`` is missing.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import streamlit as st

NAME = "slb_restart_watch"
KEY = "restart_watch"
_HERE = Path(__file__).resolve().parent
_renderer = None
_failed = False


def component():
    """The v2 mounting command (registered once per process), or None when unavailable."""
    global _renderer, _failed
    if _renderer is None and not _failed:
        try:
            _renderer = st.components.v2.component(
                NAME,
                html=(_HERE / "watch.html").read_text(encoding="utf-8"),
                js=(_HERE / "watch.js").read_text(encoding="utf-8"),
            )
        except Exception:  # pragma: no cover - depends on the installed streamlit
            _failed = True
    return _renderer


def _browser() -> bool:
    try:
        return bool(st.context.headers)
    except Exception:  # pragma: no cover - outside a script run or a moved API
        return False


def watch() -> None:
    """Mount the watch (in the current container); a fresh ``run`` id on every run tells the
    JavaScript that a run has redrawn the page."""
    render = component()
    if render is None or not _browser():
        return
    render(key=KEY, data={"run": uuid.uuid4().hex[:12]}, on_ping_change=lambda: None)
