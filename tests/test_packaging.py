"""The package as a user installs it: dependencies, bundled data, console scripts, the wheel."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from slb.data.bundled import BUNDLED_DATASETS, data_dir, load_dataset
from slb_explorer import app_dir, main, streamlit_command

tomllib = pytest.importorskip("tomllib", reason="Python 3.11+")

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _requirements(path: Path) -> dict:
    """name -> specifier of a requirements file (comments, -r lines left out)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            name, spec = re.match(r"([A-Za-z0-9_.\-\[\]]+)\s*(.*)", line).groups()
            out[name.lower()] = spec.replace(" ", "")
    return out


def _declared(reqs) -> dict:
    return {
        m.group(1).lower(): m.group(2).replace(" ", "")
        for m in (re.match(r"([A-Za-z0-9_.\-\[\]]+)\s*(.*)", r) for r in reqs)
        if not m.group(1).startswith("slb-explorer")
    }


def test_requirements_files_match_pyproject():
    """requirements.txt (the README's first command) = the library + the [app] extra, and
    requirements-dev.txt adds the [dev] extra: the three lists cannot drift apart."""
    project = PYPROJECT["project"]
    extras = project["optional-dependencies"]
    runtime = _declared(project["dependencies"])
    assert {"numpy", "scipy", "scikit-learn", "pandas", "networkx", "joblib"} <= set(runtime)
    assert not {"streamlit", "plotly"} & set(runtime)
    assert _requirements(ROOT / "requirements.txt") == {**runtime, **_declared(extras["app"])}
    assert _requirements(ROOT / "requirements-dev.txt") == _declared(extras["dev"])
    assert "slb-explorer[app]" in extras["dev"]
    assert project["scripts"] == {
        "slb-explorer": "slb_explorer:main",
        "slb-experiments": "slb.cli:experiments",
    }


def _run(code: str, cwd: Path, python=sys.executable, **kw) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # No server warm-up in these short runs (as in the suite's own AppTest runs): a warm-up
    # thread still computing when the interpreter exits aborted one run (-6) at load 12.
    env["SLB_WARMUP"] = "0"
    return subprocess.run(
        [str(python), "-c", code], cwd=cwd, env=env, capture_output=True, text=True, **kw
    )


IMPORT_CHECK = (
    "import sys, slb; "
    "print(slb.__file__); "
    "print(sorted(m for m in ('streamlit', 'plotly') if m in sys.modules))"
)


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_import_slb_loads_neither_streamlit_nor_plotly():
    res = _run(IMPORT_CHECK, ROOT, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[1] == "[]"


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_experiments_command_runs_without_plotly(tmp_path):
    """plotly belongs to the [app] extra: tables and CSV files must not need it."""
    code = (
        "import sys; sys.modules['plotly'] = None; sys.modules['streamlit'] = None\n"
        "from slb.cli import experiments\n"
        f"experiments(['real', '--datasets', 'pima', '--classifiers', '5NN', '--folds', '2', "
        f"'--quiet', '--out', {str(tmp_path)!r}])\n"
        "try:\n"
        "    experiments(['noise', '--dataset', 'pima', '--classifiers', '5NN', '--flip', '0', "
        f"'--replicates', '1', '--quiet', '--out', {str(tmp_path)!r}])\n"
        "except SystemExit as exc:\n"
        "    print('EXIT', exc)\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert res.returncode == 0, res.stderr
    assert "| pima (ours) |" in res.stdout
    assert (tmp_path / "real_per_fold.csv").is_file()
    # the noise command draws a figure: a clear message, not a traceback, and its tables are there
    assert "but the figures need plotly: pip install 'slb-explorer[app]'" in res.stdout
    assert (tmp_path / "noise_pima_summary.csv").is_file()


def test_data_dir_installed_and_checkout(tmp_path):
    # an installed wheel: <package>/_data exists and wins
    pkg = tmp_path / "site" / "slb"
    (pkg / "_data").mkdir(parents=True)
    assert data_dir(pkg, checkout_root=tmp_path / "checkout") == pkg / "_data"
    # a source checkout: no _data beside the modules, the top-level data/ is used
    bare = tmp_path / "src" / "slb"
    bare.mkdir(parents=True)
    assert data_dir(bare, checkout_root=tmp_path / "src") == tmp_path / "src" / "data"
    # this checkout
    assert Path(str(data_dir())) == ROOT / "data"
    for name, (file, _) in BUNDLED_DATASETS.items():
        assert (ROOT / "data" / file).is_file(), name
    X, y = load_dataset("sonar")
    assert X.shape == (208, 60) and sorted(y.unique()) == ["mine", "rock"]


def test_app_dir_installed_and_checkout(tmp_path):
    site = tmp_path / "site"
    (site / "slb_explorer").mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match="app.py"):
        app_dir(site / "slb_explorer")
    (site / "slb_explorer" / "app.py").write_text("")  # an installed wheel: the app inside
    assert app_dir(site / "slb_explorer") == site / "slb_explorer"
    assert app_dir() == ROOT  # this checkout runs its own top-level app.py
    command, cwd = streamlit_command(["--server.port", "8600"])
    assert command[1:5] == ["-m", "streamlit", "run", str(ROOT / "app.py")]
    assert command[5:] == ["--server.port", "8600"] and cwd == ROOT


def test_explorer_dry_run(capsys):
    assert main(["--dry-run", "--server.headless", "true"]) == 0
    out = capsys.readouterr().out
    assert f"app: {ROOT / 'app.py'}" in out
    assert out.rstrip().endswith("--server.headless true --server.scriptHealthCheckEnabled true")
    assert main(["--dry-run", "--no-prewarm"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("app.py")  # no health-check endpoint


# ----------------------------------------------------------------------------------------------
# the wheel, installed into a fresh virtual environment
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    pytest.importorskip("hatchling", reason="the build backend (requirements-dev.txt)")
    out = tmp_path_factory.mktemp("wheel")
    res = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "-q", "-w", str(out), str(ROOT)],
        cwd=out, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    (path,) = out.glob("slb_explorer-*.whl")
    return path


@pytest.mark.slow
def test_wheel_holds_library_data_and_app(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"slb/{p.name}" for p in (ROOT / "slb").glob("*.py")}
    expected |= {f"slb/_data/{p.name}" for p in (ROOT / "data").iterdir() if p.is_file()}
    expected |= {"slb_explorer/__init__.py", "slb_explorer/__main__.py"}
    expected |= {"slb_explorer/app.py", "slb_explorer/.streamlit/config.toml"}
    for folder in ("pages", "dashboard"):
        expected |= {f"slb_explorer/{folder}/{p.name}" for p in (ROOT / folder).glob("*.py")}
    # files the app opens at run time: the tab's icon, the live slider's HTML, CSS and JS
    frontend = (ROOT / "dashboard" / "live_slider" / "frontend").iterdir()
    for f in [*(ROOT / "static").iterdir(), *frontend]:
        expected.add(f"slb_explorer/{f.relative_to(ROOT).as_posix()}")
    assert expected <= names, sorted(expected - names)
    # one package for the app: the wheel's top level is slb, slb_explorer and the metadata
    top = {n.split("/")[0] for n in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"slb", "slb_explorer"}, top
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/", "docs/"))]


def _site_dirs() -> list[str]:
    """The site-packages folders the running interpreter imports from, in its order: a venv's
    own (and its base's, with --system-site-packages), the user's, Debian's dist-packages."""
    return [
        p
        for p in dict.fromkeys(sys.path)
        if Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()
    ]


def make_venv_with_our_dependencies(venv: Path) -> Path:
    """A new venv whose dependencies are the running interpreter's (no network), whatever that
    interpreter is.  ``python -m venv --system-site-packages`` is not that: from inside a venv
    it inherits the *base* interpreter's site-packages, not the venv's, where the dependencies
    are (pip then finds no joblib).  So the new venv gets a .pth file that adds the running
    interpreter's site folders *after* its own (the wheel installed there wins over anything,
    and nested .pth files are processed as in the running interpreter)."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    res = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    own = Path(res.stdout.strip())
    assert own.is_dir() and own.is_relative_to(venv), own
    lines = [f"import site; site.addsitedir({d!r})" for d in _site_dirs()]
    (own / "_running_interpreter_site.pth").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return py


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_the_fresh_venv_sees_the_running_interpreters_packages(tmp_path):
    """The venv of test_wheel_in_a_fresh_venv imports the dependencies this interpreter has
    (from a venv too, where --system-site-packages would give the base interpreter's)."""
    py = make_venv_with_our_dependencies(tmp_path / "venv")
    code = (
        "import sys, joblib, sklearn; print(sys.prefix); print(joblib.__file__); "
        "print(sys.path.index(next(p for p in sys.path if p.startswith(sys.prefix) "
        "and p.endswith('site-packages'))))"
    )
    res = _run(code, tmp_path, python=py, timeout=300)
    assert res.returncode == 0, res.stderr
    prefix, joblib_file, own_index = res.stdout.splitlines()[:3]
    import joblib

    assert prefix == str(tmp_path / "venv")
    assert Path(joblib_file) == Path(joblib.__file__)  # the running interpreter's joblib
    # the new venv's own site-packages comes before the added folders
    res = _run("import json, sys; print(json.dumps(sys.path))", tmp_path, python=py, timeout=60)
    paths = json.loads(res.stdout)
    added = [paths.index(d) for d in _site_dirs() if d in paths]
    assert added and int(own_index) < min(added), (own_index, added)


@pytest.mark.slow
def test_wheel_in_a_fresh_venv(wheel, tmp_path):
    """pip install of the wheel into a new venv (dependencies from the running interpreter's
    site-packages, no network; from the system interpreter and from a venv alike): the
    installed slb (not this checkout) imports without streamlit or plotly, loads a bundled
    dataset from its package data, runs the experiments command, and slb-explorer finds the
    installed app; AppTest runs that app.py; its version is slb.__version__."""
    venv = tmp_path / "venv"
    py = make_venv_with_our_dependencies(venv)
    res = subprocess.run(
        [str(py), "-m", "pip", "install", "--no-index", "--disable-pip-version-check", "-q",
         str(wheel)],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    work = tmp_path / "elsewhere"
    work.mkdir()

    # the version is written once (slb/__init__.py): the wheel's metadata says the same
    import slb

    code = "import importlib.metadata as m, slb; print(m.version('slb-explorer'), slb.__version__)"
    res = _run(code, work, python=py, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == [slb.__version__, slb.__version__]
    assert wheel.name.startswith(f"slb_explorer-{slb.__version__}-")

    res = _run(IMPORT_CHECK, work, python=py, timeout=300)
    assert res.returncode == 0, res.stderr
    slb_file, loaded = res.stdout.splitlines()[:2]
    assert slb_file.startswith(str(venv)) and loaded == "[]"

    code = (
        "from slb.data.bundled import data_dir, load_dataset; "
        "X, y = load_dataset('pima'); print(data_dir()); print(X.shape)"
    )
    res = _run(code, work, python=py, timeout=300)
    assert res.returncode == 0, res.stderr
    folder, shape = res.stdout.splitlines()[:2]
    assert folder.startswith(str(venv)) and folder.endswith("slb/_data") and shape == "(768, 8)"

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    args = ["real", "--datasets", "pima", "--classifiers", "5NN", "--folds", "2", "--quiet"]
    res = subprocess.run(
        [str(venv / "bin" / "slb-experiments"), *args, "--out", str(work / "out")],
        cwd=work, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "| pima (ours) |" in res.stdout and (work / "out" / "real_summary.csv").is_file()

    res = subprocess.run(
        [str(venv / "bin" / "slb-explorer"), "--dry-run"],
        cwd=work, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    app = Path(res.stdout.splitlines()[0].removeprefix("app: "))
    assert app.is_file() and str(app).startswith(str(venv))
    assert app.parent.name == "slb_explorer" and (app.parent / "pages" / "compare.py").is_file()
    assert (app.parent / "__init__.py").is_file()  # the app is the slb_explorer package
    res = _run("import slb_explorer; print(slb_explorer.app_dir())", work, python=py, timeout=300)
    assert res.returncode == 0 and res.stdout.strip() == str(app.parent), res.stderr

    # the installed app runs (AppTest, as tests/test_app.py does with the checkout's app.py)
    code = (
        "import sys; from streamlit.testing.v1 import AppTest\n"
        f"sys.path.insert(0, {str(app.parent)!r})\n"  # what streamlit run does for app.py
        f"at = AppTest.from_file({str(app)!r}, default_timeout=240).run()\n"
        "print(len(at.exception), [e.value for e in at.error])\n"
        "import dashboard, slb; print(dashboard.__file__); print(slb.__file__)\n"
    )
    res = _run(code, work, python=py, timeout=600)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[-3] == "0 []", res.stdout
    assert lines[-2].startswith(str(app.parent)) and lines[-1].startswith(str(venv))


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_import_slb_explorer_starts_nothing():
    """The app package's launcher imports neither streamlit nor plotly (a child process runs
    streamlit), and the library does not import the app package."""
    code = (
        "import sys, slb, slb.cli; print('slb_explorer' in sys.modules); import slb_explorer; "
        "print(sorted(m for m in ('streamlit', 'plotly', 'dashboard') if m in sys.modules))"
    )
    res = _run(code, ROOT, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split("\n")[:2] == ["False", "[]"]


def test_slb_explorer_examples():
    import doctest

    import slb_explorer

    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = [t for t in finder.find(slb_explorer) if t.examples]
    assert len(tests) == 5  # app_dir, streamlit_command, main, server_url, prewarm
    assert all(runner.run(t).failed == 0 for t in tests)


@pytest.mark.slow
def test_slb_explorer_runs_the_app_once_before_the_first_visitor(tmp_path):
    """The launcher's pre-run: once the server answers, one script health check runs app.py
    without error (a 404 without the option, or a 503 from a failing script, prints nothing)."""
    from browser_support import free_port

    port = free_port()
    env = {**os.environ, "SLB_WARMUP": "0", "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}
    log = tmp_path / "launcher.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "slb_explorer", "--server.headless", "true",
             "--server.port", str(port), "--server.address", "127.0.0.1",
             "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"],
            cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 300
            while "first run is done" not in log.read_text() and time.monotonic() < deadline:
                assert proc.poll() is None, log.read_text()
                time.sleep(0.5)
            assert f"first visitor of http://127.0.0.1:{port} " in log.read_text()
            # the server runs in a process group of its own; a SIGTERM to the launcher's group
            # alone reaches it through the launcher, which exits with the server's code
            os.killpg(proc.pid, 15)
            assert proc.wait(timeout=120) == 0, log.read_text()
            with pytest.raises(OSError):  # nothing listens on the port any more
                socket.create_connection(("127.0.0.1", port), timeout=5).close()
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, 9)
                proc.wait(timeout=60)
