"""Every Streamlit name the dashboard uses beyond ``import streamlit as st``, in one module.

Streamlit documents ``st.*``; the few other entries below are its runtime's and its v1
components', which have moved between releases.  Each is reached here only, with the versions it
was checked on, and fails soft: a moved entry turns a convenience off (the queue's waiting
notice, the live slider, the quiet warm-up logs) instead of taking the app down.
``tests/test_streamlit_compat.py`` fails loudly when one moves, and its source scan refuses these
imports anywhere else.
"""

from __future__ import annotations

import logging

import streamlit

STREAMLIT_VERSION = streamlit.__version__
#: The releases these entries were checked on (the minimums CI step and the newest).
TESTED_STREAMLIT = ("1.56", "1.67")

#: The logger of Streamlit's "missing ScriptRunContext" warnings (background threads).
SCRIPT_RUN_CONTEXT_LOGGER = "streamlit.runtime.scriptrunner_utils.script_run_context"

try:
    from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx
except ImportError:  # pragma: no cover - depends on the installed streamlit
    add_script_run_ctx = get_script_run_ctx = None

try:
    import streamlit.components.v1 as _components
except ImportError:  # pragma: no cover
    _components = None

try:
    from streamlit import runtime as _runtime
except ImportError:  # pragma: no cover
    _runtime = None


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


def script_run_context_logger() -> logging.Logger:
    """The logger of Streamlit's missing-context warnings."""
    return logging.getLogger(SCRIPT_RUN_CONTEXT_LOGGER)


def declare_component(name: str, path: str):
    """A local v1 custom component (None when components are unavailable: callers fall back)."""
    if _components is None:
        return None
    try:
        return _components.declare_component(name, path=path)
    except Exception:  # pragma: no cover
        return None


def served_to_a_browser() -> bool:
    """Whether a real server runs the page: AppTest replaces Streamlit's Runtime singleton by a
    mock (its element tree has no frontend to run a component's JavaScript)."""
    if _runtime is None or not _runtime.exists():
        return False
    return type(_runtime.Runtime.instance()) is _runtime.Runtime
