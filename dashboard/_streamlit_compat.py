"""Every Streamlit name the dashboard uses beyond ``import streamlit as st``, in one module.

Streamlit documents ``st.*``; the entries below are its runtime's, which have moved between
releases: the script-run context of a session (given to the work queue's notice thread; its
``is_history_navigation`` says whether the browser's Back or Forward started the run) and
the loggers of the "missing ScriptRunContext" warnings (quieted for the warm-up threads) and of
the "No runtime found" warnings of cached functions imported in a compute worker (quieted
there).  No
``st.*`` API does either: ``st.context`` describes the browser's request (headers, cookies,
locale...), not the thread that runs the script, and Streamlit's multithreading guide
("Multithreading in Streamlit", option "Expose ScriptRunContext to the thread") uses exactly
these two functions, while saying multithreading is not officially supported.  Each entry is
reached here only, with the versions it was checked on, and fails soft: a moved entry turns a
convenience off (the queue's waiting notice, the quiet warm-up logs) instead of taking the app
down.  ``tests/test_streamlit_compat.py`` fails loudly when one moves, and its source scan
refuses these imports anywhere else.

One more entry lives outside this module, because its user never imports streamlit: the
launcher ``slb_explorer`` (the README's first command) starts the server with the hidden option
``server.scriptHealthCheckEnabled`` and requests ``/_stcore/script-health-check`` once, so that
the server runs the app before its first visitor (Streamlit calls the option "an experimental
internal API").  It fails soft (no pre-run, the server works as with ``streamlit run``), and
``tests/test_streamlit_compat.py`` fails loudly when the option or the endpoint moves.

The live λ slider needs nothing here: it is a Components v2 component
(``st.components.v2.component``, documented, at the 1.56 floor) and detects AppTest through
``st.context.headers`` (:mod:`dashboard.live_slider`).
"""

from __future__ import annotations

import logging

import streamlit

STREAMLIT_VERSION = streamlit.__version__
#: The releases these entries were checked on (the minimums CI step and the newest).
TESTED_STREAMLIT = ("1.56", "1.67")

#: The logger of Streamlit's "missing ScriptRunContext" warnings (background threads).
SCRIPT_RUN_CONTEXT_LOGGER = "streamlit.runtime.scriptrunner_utils.script_run_context"
#: The logger of "No runtime found, using MemoryCacheStorageManager": one warning per
#: ``st.cache_data`` function of a module imported outside a server (the compute workers).
CACHE_DATA_LOGGER = "streamlit.runtime.caching.cache_data_api"

try:
    from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx
except ImportError:  # pragma: no cover - depends on the installed streamlit
    add_script_run_ctx = get_script_run_ctx = None


def script_run_ctx():
    """The calling thread's script-run context (its session), or None outside a session or
    when the entry moved."""
    if get_script_run_ctx is None:
        return None
    try:
        return get_script_run_ctx(suppress_warning=True)
    except Exception:  # pragma: no cover - streamlit internals changed
        return None


def attach_ctx(thread, ctx) -> None:
    """Give ``thread`` the session context ``ctx`` (its element calls reach that page)."""
    if add_script_run_ctx is not None and ctx is not None:
        add_script_run_ctx(thread, ctx)


#: The release that exposes the run's history-navigation flag (ScriptRunContext's
#: ``is_history_navigation``, set when the browser's Back or Forward started the run); 1.56,
#: the floor, has none.
HISTORY_FLAG_SINCE = (1, 67)


def history_navigation() -> bool | None:
    """Whether the browser's Back or Forward started this run; None when this Streamlit does
    not say (before :data:`HISTORY_FLAG_SINCE`, or outside a session).

    Used by :func:`dashboard.urlstate.restore` (an address from the browser's history is
    applied as the settings); with None it falls back to comparing the address with the one
    the session wrote.
    """
    ctx = script_run_ctx()
    flag = getattr(ctx, "is_history_navigation", None) if ctx is not None else None
    return flag if isinstance(flag, bool) else None


def script_run_context_logger() -> logging.Logger:
    """The logger of Streamlit's missing-context warnings."""
    return logging.getLogger(SCRIPT_RUN_CONTEXT_LOGGER)


def quiet_cache_without_runtime() -> None:
    """In a process without a Streamlit server (a compute worker): no "No runtime found"
    warning per cached function imported (H35: 84 lines in the launcher's terminal)."""
    logging.getLogger(CACHE_DATA_LOGGER).setLevel(logging.ERROR)
