"""SLB Explorer, the Streamlit dashboard of the ``slb`` library, as one installed package.

In a wheel this package holds the whole app: ``app.py``, ``pages/``, ``dashboard/``,
``static/`` and ``.streamlit/config.toml`` sit in this folder (``pyproject.toml``
force-includes them from the checkout's top level), so the distribution installs exactly two
top-level packages, ``slb`` (the library, which never imports streamlit) and ``slb_explorer``
(the app).  In a source checkout those files stay at the top level (``streamlit run app.py``
from the repository root, as the README says) and this package finds them there.

``slb-explorer`` (or ``python -m slb_explorer``) starts the dashboard: ``python -m streamlit run
app.py`` in the app's folder, so that Streamlit reads the app's ``.streamlit/config.toml``
(upload limit, theme, no developer menu) wherever it was started; Streamlit puts that folder
first on ``sys.path``, which is how ``app.py`` imports ``dashboard`` beside it.  This module
never imports streamlit: it starts it in a child process.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path

__all__ = ["app_dir", "main", "streamlit_command"]

_PACKAGE_DIR = Path(__file__).resolve().parent


def app_dir(package_dir: Path | None = None) -> Path:
    """The folder holding the dashboard's ``app.py``.

    Parameters
    ----------
    package_dir : Path or None
        This package's folder (default: where this module is).

    Returns
    -------
    Path
        The package's own folder for an installed wheel, else the checkout's top level.

    Raises
    ------
    FileNotFoundError
        Neither holds an ``app.py``.

    Examples
    --------
    >>> from slb_explorer import app_dir
    >>> (app_dir() / "app.py").is_file()
    True
    """
    here = package_dir or _PACKAGE_DIR
    for candidate in (here, here.parent):
        if (candidate / "app.py").is_file():
            return candidate
    raise FileNotFoundError(
        f"The dashboard's app.py is neither in {here} (installed wheel) nor in {here.parent} "
        "(source checkout); reinstall with pip install 'slb-explorer[app]'."
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

    Examples
    --------
    >>> from slb_explorer import streamlit_command
    >>> command, cwd = streamlit_command(["--server.port", "8502"])
    >>> command[1:4], command[-2:], command[4] == str(cwd / "app.py")
    (['-m', 'streamlit', 'run'], ['--server.port', '8502'], True)
    """
    folder = app_dir(package_dir)
    command = [sys.executable, "-m", "streamlit", "run", str(folder / "app.py"), *extra_args]
    return command, folder


def main(argv=None) -> int:
    """Entry point of ``slb-explorer``: start the dashboard (``--dry-run``: print how).

    Parameters
    ----------
    argv : list of str or None
        The arguments (default: ``sys.argv[1:]``); those it does not know go to streamlit.

    Returns
    -------
    int
        The exit code of streamlit (0 for ``--dry-run``).

    Examples
    --------
    >>> from slb_explorer import main
    >>> main(["--dry-run"])  # doctest: +ELLIPSIS
    app: .../app.py
    cwd: ...
    command: ... -m streamlit run .../app.py
    0
    """
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
    return subprocess.call(command, cwd=cwd)
