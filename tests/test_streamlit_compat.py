"""The one module of Streamlit entries beyond ``st.*`` (dashboard/_streamlit_compat.py): each
still resolves on the installed Streamlit, and no other module reaches one (a source scan).
If a test here fails, a Streamlit release moved an entry: fix it in that module alone."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from dashboard import _streamlit_compat as compat

ROOT = Path(__file__).resolve().parents[1]


def test_the_entries_resolve():
    assert compat.get_script_run_ctx is not None and compat.add_script_run_ctx is not None
    assert compat.script_run_ctx() is None  # no session in a test thread
    assert compat.script_run_context_logger().name == compat.SCRIPT_RUN_CONTEXT_LOGGER
    # the warnings are logged by the module of that name: it must still exist
    assert importlib.util.find_spec(compat.SCRIPT_RUN_CONTEXT_LOGGER) is not None
    import streamlit.runtime.scriptrunner_utils.script_run_context as where

    assert where.get_script_run_ctx is compat.get_script_run_ctx
    assert compat.history_navigation() is None  # no session in a test thread
    assert importlib.util.find_spec(compat.CACHE_DATA_LOGGER) is not None


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_a_compute_worker_imports_the_pages_cached_functions_quietly():
    """H35: the launcher's terminal showed 84 "No runtime found" warnings, one per cached
    function the compute workers imported; the worker initializer quiets that logger."""
    import subprocess
    import sys

    code = "from dashboard import workqueue; {} import dashboard.compute, dashboard.evaluation"
    runs = {}
    for init in ("", "workqueue._init_worker(0);"):
        runs[init] = subprocess.run(
            [sys.executable, "-c", code.format(init)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert runs[init].returncode == 0, runs[init].stderr[-2000:]
    assert "No runtime found" in runs[""].stderr  # the warning this quiets is still emitted
    assert "No runtime found" not in runs["workqueue._init_worker(0);"].stderr


@pytest.mark.slow  # three fresh interpreters: about 8 s
def test_the_compare_folds_joblib_workers_run_import_no_cached_function():
    """H43: the first Compare of a small table logged 84 "No runtime found" warnings: its folds
    run in joblib's workers (not in the quieted pool), which imported the cached functions of
    dashboard.evaluation to unpickle the task.  The tasks live in dashboard.fold_tasks now."""
    import pickle
    import subprocess
    import sys

    from dashboard.fold_tasks import fold_outputs, slb_fold_outputs

    load = "import pickle, sys; pickle.loads(sys.stdin.buffer.read())"
    for task in (fold_outputs, slb_fold_outputs):  # what a joblib worker does with a task
        run = subprocess.run(
            [sys.executable, "-c", load],
            input=pickle.dumps(task),
            cwd=ROOT,
            capture_output=True,
            timeout=300,
        )
        assert run.returncode == 0, run.stderr[-2000:]
        assert b"No runtime found" not in run.stderr, run.stderr[-2000:]
    # what the old tasks' module costs a worker: the warnings come back
    run = subprocess.run(
        [sys.executable, "-c", "import dashboard.evaluation"],
        cwd=ROOT,
        capture_output=True,
        timeout=300,
    )
    assert b"No runtime found" in run.stderr


def test_the_history_flag_exists_from_its_release_on():
    """urlstate.restore applies an address from the browser's history only on a run that
    Back or Forward started, when Streamlit says so (from HISTORY_FLAG_SINCE on)."""
    import streamlit
    from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext

    version = tuple(int(p) for p in streamlit.__version__.split(".")[:2])
    fields = getattr(ScriptRunContext, "__dataclass_fields__", {})
    if version >= compat.HISTORY_FLAG_SINCE:
        assert "is_history_navigation" in fields


def test_no_v1_component_or_runtime_singleton_left():
    """Issue 30 item 1: the v1 component protocol and the AppTest check by the type of
    Runtime.instance() are gone; the live slider uses st.components.v2 and st.context."""
    assert not hasattr(compat, "declare_component") and not hasattr(compat, "_components")
    assert not hasattr(compat, "served_to_a_browser") and not hasattr(compat, "_runtime")
    for path in (ROOT / "dashboard").rglob("*"):
        if path.suffix in {".py", ".js", ".html"}:
            text = path.read_text(encoding="utf-8")
            assert "components.v1" not in text and "postMessage" not in text, path


def test_no_streamlit_internals_outside_the_compat_module():
    offenders = []
    files = [p for d in ("dashboard", "pages", "slb") for p in (ROOT / d).rglob("*.py")]
    for path in files + [ROOT / "app.py"]:
        if path.name == "_streamlit_compat.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            bad = [n for n in names if n.startswith("streamlit.") or n == "streamlit.runtime"]
            if bad:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {bad}")
    assert offenders == []


def test_the_launchers_script_health_check_still_exists():
    """The launcher (slb_explorer, which never imports streamlit: it starts it in a child) uses
    one entry beyond ``st.*``, a hidden server option and its endpoint, to run the app once at
    start (its pre-run).  Both must still be there; tests/test_packaging.py runs the pre-run."""
    import inspect

    import streamlit.config as config
    import streamlit.web.server as server

    import slb_explorer

    source = inspect.getsource(slb_explorer)
    assert "--server.scriptHealthCheckEnabled" in source
    assert config.get_option("server.scriptHealthCheckEnabled") is False  # exists, off
    routes = "".join(
        p.read_text(encoding="utf-8") for p in Path(server.__file__).parent.rglob("*.py")
    )
    assert "script-health-check" in routes and "/_stcore/script-health-check" in source
