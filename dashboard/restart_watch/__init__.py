"""Rerun a tab left open while the server restarted, with Streamlit's own reconnection.

After a restart of the server, Streamlit's frontend reconnects its websocket to the new server
but, by default, keeps showing the old page (an upload that is gone, figures of the old
process) until the user touches a widget: it requests a run on reconnecting only when the
disconnection interrupted one, or when the page holds fragments, auto-rerunning ones included
(streamlit/streamlit#11890, in every version this app supports: the floor is 1.56), because the
new session must register them again.

:func:`watch` therefore draws an empty fragment with ``run_every`` (the documented
``st.fragment`` parameter).  Its only effect, besides a no-op rerun every
:data:`TICK` seconds, is that the frontend reruns the whole page in the new server's session
as soon as its websocket is back: that run restores the settings from the address and shows
the restart notice (:mod:`dashboard.urlstate`).

Why not a watch of our own: an earlier version polled the health endpoint from a Components v2
module every second and asked for a rerun once it had seen the server down and up again.  It
depended on sampling a short outage (1.4-2.8 s measured between the old server's stop and the
new one's health, on a loaded machine), on its own state surviving the disconnection, and it
repeated its rerun request every second until a run redrew it, each request stopping the new
session's run in progress; once, in a fresh-clone CI run, no rerun came within 300 s (it was
not reproduced here).  The frontend, by contrast, always sees its websocket close, and asks
for exactly one run once it is connected again.

Nothing is drawn without a browser (AppTest has no websocket to lose).
"""

from __future__ import annotations

from datetime import timedelta

import streamlit as st

#: How often the empty fragment reruns (a no-op on the server): what matters is only that the
#: page holds an auto-rerunning fragment when the websocket reconnects.
TICK = timedelta(minutes=10)


@st.fragment(run_every=TICK)
def _reconnect_marker() -> None:
    """Draws nothing: its ``run_every`` makes the frontend rerun the page after a reconnection."""


def _browser() -> bool:
    try:
        return bool(st.context.headers)
    except Exception:  # pragma: no cover - outside a script run or a moved API
        return False


def watch() -> None:
    """Mount the marker fragment (in the current container) when a browser is connected."""
    if _browser():
        _reconnect_marker()
