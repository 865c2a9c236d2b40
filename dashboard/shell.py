"""What every page needs before it draws anything: settings, dataset, λ and the sidebar.

``app.py`` (the ``st.navigation`` entry point) calls :func:`setup` on every run, then marks the
run as routed while the selected page runs.  A page file calls :func:`ensure` first: inside the
app it does nothing; run on its own (``streamlit run pages/compare.py``, or AppTest after
``switch_page``, which runs the page file without the entry point) it does the setup itself,
so every page always has its data and its sidebar.  In a browser session a page file run on
its own is Streamlit's fallback for a ``pages/`` folder: :func:`ensure` ends it and reruns
through ``app.py``.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from . import compute, controls, data, restart_watch, sidebar, state, urlstate, warmup

ROUTED = "_routed_by_app"
_FALLBACK_LEFT = "_left_pages_folder_fallback"  # ensure() has ended it once in this session

#: The browser tab's icon, a file served by the app itself.  A ``:material/...:`` name makes
#: Streamlit's frontend fetch the icon from fonts.gstatic.com on every load (an error offline);
#: an image file goes through the app's own media endpoint.
PAGE_ICON = Path(__file__).resolve().parent.parent / "static" / "icon.png"


def page_config() -> None:
    """``st.set_page_config`` of every page: title, the local icon, wide layout.

    The sidebar keeps Streamlit's 300 px: ``initial_sidebar_state=<width>`` does not apply to
    this app (the navigation, known from ``pages/`` when the tab connects, mounts the sidebar
    before the script's page config arrives; measured in Chromium), so the controls' labels
    are kept short instead.
    """
    st.set_page_config(page_title="SLB Explorer", page_icon=str(PAGE_ICON), layout="wide")


def setup() -> compute.LambdaInfo:
    """Settings, dataset (from the settings), λ, sidebar; returns the current λ."""
    compute.limit_native_threads()
    warmup.start()  # once per server process: the bundled datasets' defaults, in the background
    state.init()
    urlstate.restore()  # a new session (tab, reload, restart): the settings in its address
    data.refresh()
    urlstate.keep_url_lambda()
    urlstate.check_url_positive()
    urlstate.check_url_data()
    state.sync_url()
    if state.upload_lost():
        st.sidebar.warning(state.LOST_MESSAGE, icon=":material/cloud_off:")
    urlstate.notices()
    controls.sync_lambda_context()
    lam = compute.current_lambda(state.dataset(), state.cfg(), state.density_key())
    state.cfg()["lam_last"] = lam.value
    urlstate.write()
    sidebar.render(lam)
    with st.sidebar:
        restart_watch.watch()  # a tab left open across a server restart reruns by itself
    return lam


#: The page files (``st.Page`` sources of ``app.py``'s navigation).
PAGE_FILES = sorted(
    f"pages/{p.name}" for p in (Path(__file__).resolve().parent.parent / "pages").glob("*.py")
)


def _data_page_placeholder() -> None:  # pragma: no cover - never run (see ensure)
    pass


def ensure() -> None:
    """Run :func:`setup` unless ``app.py`` already did in this run.

    In a browser session a page file runs without ``app.py`` only through Streamlit's fallback
    for apps with a ``pages/`` folder, used by a fresh server process until ``st.navigation``
    has run once: the first visitor who opens a page's address (``/compare``, a shared link)
    got the folder's file names as the sidebar's navigation ("app", "compare", ...; H35's
    follow-up, measured with plain ``streamlit run``).  The documented ``st.navigation`` ends
    the fallback for the process, and the rerun goes through ``app.py`` to the same page.
    """
    if st.session_state.get(ROUTED, False):
        return
    # a browser session (AppTest has no request headers), once (never a loop of reruns)
    if st.context.headers and not st.session_state.get(_FALLBACK_LEFT):
        st.session_state[_FALLBACK_LEFT] = True
        try:
            pages = [st.Page(_data_page_placeholder, title="Data", default=True)]
            st.navigation(pages + [st.Page(f) for f in PAGE_FILES], position="hidden")
        except Exception:  # noqa: BLE001 - e.g. ``streamlit run pages/compare.py``: no such files
            pass
        else:
            st.rerun()
    page_config()
    setup()


def run_routed(page) -> None:
    """Run the selected ``st.Page``, flagged as set up by the entry point."""
    st.session_state[ROUTED] = True
    try:
        page.run()
    finally:
        st.session_state[ROUTED] = False
