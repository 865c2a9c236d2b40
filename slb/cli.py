"""Console scripts of the installed package: ``slb-explorer`` and ``slb-experiments``.

``slb-experiments`` is ``python -m slb.experiments``.  ``slb-explorer`` starts the dashboard:
``python -m streamlit run app.py`` on the app the package ships.  An installed wheel holds it in
``slb_explorer_app/`` beside ``slb/`` (``pyproject.toml`` force-includes ``app.py``, ``pages/``,
``dashboard/`` and ``.streamlit/config.toml`` there); a source checkout runs its own top-level
``app.py``.  Streamlit runs in the app's folder, so that it reads the app's
``.streamlit/config.toml`` (upload limit, theme, no developer menu) wherever it was started.

This module never imports streamlit: it starts it in a child process.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path

__all__ = ["app_dir", "experiments", "explorer", "streamlit_command"]

_PACKAGE_DIR = Path(__file__).resolve().parent


def app_dir(package_dir: Path | None = None) -> Path:
    """The folder holding the dashboard's ``app.py``.

    Parameters
    ----------
    package_dir : Path or None
        The ``slb`` package's folder (default: this module's).

    Returns
    -------
    Path
        ``<site-packages>/slb_explorer_app`` for an installed wheel, else the checkout's top level.

    Raises
    ------
    FileNotFoundError
        Neither holds an ``app.py``.
    """
    parent = (package_dir or _PACKAGE_DIR).parent
    for candidate in (parent / "slb_explorer_app", parent):
        if (candidate / "app.py").is_file():
            return candidate
    raise FileNotFoundError(
        f"The dashboard's app.py is neither in {parent / 'slb_explorer_app'} (installed wheel) "
        f"nor in {parent} (source checkout); reinstall with pip install 'slb-explorer[app]'."
    )


def streamlit_command(extra_args=(), package_dir: Path | None = None) -> tuple[list, Path]:
    """The command that starts the dashboard, and the folder to run it in.

    Parameters
    ----------
    extra_args : sequence of str
        Passed on to ``streamlit run`` (e.g. ``--server.port 8502``).
    package_dir : Path or None
        See :func:`app_dir`.

    Returns
    -------
    command : list of str
    cwd : Path
    """
    folder = app_dir(package_dir)
    command = [sys.executable, "-m", "streamlit", "run", str(folder / "app.py"), *extra_args]
    return command, folder


def explorer(argv=None) -> int:
    """Entry point of ``slb-explorer``: start the dashboard (``--dry-run``: print how)."""
    parser = argparse.ArgumentParser(
        prog="slb-explorer",
        description="Start the SLB Explorer dashboard (streamlit run on the installed app.py). "
        "Other arguments go to streamlit, e.g. --server.port 8502.",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print the command and the app folder, start nothing"
    )
    args, rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    try:
        command, cwd = streamlit_command(rest)
    except FileNotFoundError as exc:
        parser.exit(2, f"slb-explorer: {exc}\n")
    if args.dry_run:
        print(f"app: {cwd / 'app.py'}")
        print(f"cwd: {cwd}")
        print("command: " + " ".join(command))
        return 0
    if importlib.util.find_spec("streamlit") is None:
        parser.exit(2, "slb-explorer: streamlit is missing; pip install 'slb-explorer[app]'\n")
    # streamlit puts app.py's folder first on sys.path, so app.py finds dashboard/ beside it.
    return subprocess.call(command, cwd=cwd)


def experiments(argv=None) -> int:
    """Entry point of ``slb-experiments`` (= ``python -m slb.experiments``)."""
    from .experiments.cli import main

    main(argv)
    return 0
