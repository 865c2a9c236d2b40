"""What every page needs before it draws anything: settings, dataset, λ and the sidebar.

``app.py`` (the ``st.navigation`` entry point) calls :func:`setup` on every run, then marks the
run as routed while the selected page runs.  A page file calls :func:`ensure` first: inside the
app it does nothing; run on its own (``streamlit run pages/compare.py``, or AppTest after
``switch_page``, which runs the page file without the entry point) it does the setup itself,
so every page always has its data and its sidebar.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from . import compute, controls, data, restart_watch, sidebar, state, urlstate, warmup

ROUTED = "_routed_by_app"

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


def ensure() -> None:
    """Run :func:`setup` unless ``app.py`` already did in this run."""
    if not st.session_state.get(ROUTED, False):
        page_config()
        setup()


def run_routed(page) -> None:
    """Run the selected ``st.Page``, flagged as set up by the entry point."""
    st.session_state[ROUTED] = True
    try:
        page.run()
    finally:
        st.session_state[ROUTED] = False
