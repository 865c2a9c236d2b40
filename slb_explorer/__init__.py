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

Then it **pre-runs the app once** (:func:`prewarm`, off with ``--no-prewarm``): as soon as the
server answers, one request to Streamlit's script health check (the server option
``server.scriptHealthCheckEnabled``, switched on for this server only) runs ``app.py`` in a
session of its own.  That first run pays what would otherwise be the first visitor's wait:
importing the app (numpy, pandas, scikit-learn, plotly, the ``slb`` and ``dashboard``
modules), the default page's cached computations and the start of the server's warm-up
(:mod:`dashboard.warmup`).  Measured in Chromium (``benchmarks/first_figure.py``, load 3.5-3.8):
the first visitor's first figure 4.05-5.16 s after a plain ``streamlit run``, 2.54-3.23 s after
the pre-run (which itself took 1.8-1.9 s).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

__all__ = ["app_dir", "main", "prewarm", "server_url", "streamlit_command"]

#: Streamlit's port when none is given.
DEFAULT_PORT = 8501

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


def _option(args, name: str):
    """The value of ``--name value`` or ``--name=value`` in ``args`` (the last one), or None."""
    value = None
    for k, a in enumerate(args):
        if a == name and k + 1 < len(args):
            value = args[k + 1]
        elif a.startswith(name + "="):
            value = a.split("=", 1)[1]
    return value


def server_url(extra_args=()) -> str:
    """The local address the dashboard's server will answer on, from the ``streamlit run``
    arguments (``--server.port``, ``--server.address``, ``--server.baseUrlPath``).

    Parameters
    ----------
    extra_args : sequence of str

    Returns
    -------
    str

    Examples
    --------
    >>> from slb_explorer import server_url
    >>> server_url(["--server.port", "8502"])
    'http://127.0.0.1:8502'
    >>> server_url(["--server.port=9000", "--server.baseUrlPath", "/slb/"])
    'http://127.0.0.1:9000/slb'
    >>> server_url(["--server.address", "::1", "--server.port", "8600"])
    'http://[::1]:8600'
    """
    env = os.environ.get
    port = _option(extra_args, "--server.port") or env("STREAMLIT_SERVER_PORT") or DEFAULT_PORT
    address = _option(extra_args, "--server.address") or env("STREAMLIT_SERVER_ADDRESS") or ""
    address = address.strip("[]")
    if address in ("0.0.0.0", "::", ""):  # every interface: this machine answers on loopback
        address = "127.0.0.1"
    if ":" in address:  # an IPv6 literal
        address = f"[{address}]"
    base = _option(extra_args, "--server.baseUrlPath") or env("STREAMLIT_SERVER_BASE_URL_PATH")
    base = (base or "").strip("/")
    return f"http://{address}:{port}" + (f"/{base}" if base else "")


def _port_free(url: str) -> bool:
    """Nothing listens on the port of ``url`` yet (so the server about to start will); False
    when that cannot be told (an address this machine cannot resolve): no pre-run then."""
    host, port = url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=1):
            return False  # something answered: not the server about to start
    except ConnectionRefusedError:
        return True
    except (OSError, ValueError):
        return False


#: Requests to the local server never go through a proxy (``http_proxy`` is honoured by
#: ``urllib`` even for 127.0.0.1 on Linux).
_LOCAL = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def prewarm(url: str, proc=None, *, start_budget: float = 120.0, run_budget: float = 300.0) -> bool:
    """Wait for the server at ``url`` to answer, then have it run the app once.

    One GET of ``/_stcore/script-health-check`` (the server must run with
    ``server.scriptHealthCheckEnabled``): Streamlit runs ``app.py`` in a session of its own
    and answers when the run ends, so the imports, the default page's cached results and the
    warm-up's start are paid before the first visitor arrives.  Streamlit ends that run after
    60 s (it answers 503, "timeout"); the app's first run takes 2-3 s on two cores.

    Parameters
    ----------
    url : str
        The server's address (:func:`server_url`).
    proc : subprocess.Popen or None
        The server process: stop waiting when it has ended.
    start_budget, run_budget : float
        Seconds to wait for the server to answer, and for the run to end.

    Returns
    -------
    bool
        Whether the app ran without error (False also when a budget ran out or the server
        ended: the pre-run only saves time, the server works without it).

    Examples
    --------
    >>> from slb_explorer import prewarm
    >>> prewarm("http://127.0.0.1:9", start_budget=0.2)  # nothing listens there
    False
    """
    deadline = time.monotonic() + start_budget
    while True:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with _LOCAL.open(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    try:
        with _LOCAL.open(f"{url}/_stcore/script-health-check", timeout=run_budget) as r:
            return r.status == 200
    except OSError:  # 503 (the script failed: its visitors will see why), timeout
        return False


def _announce_prewarm(url: str, proc) -> None:
    t0 = time.monotonic()
    ok = prewarm(url, proc)
    if ok:
        print(
            f"SLB Explorer: the app's first run is done ({time.monotonic() - t0:.1f} s); "
            f"the first visitor of {url} does not wait for it.",
            flush=True,
        )
    elif proc.poll() is None:
        print(
            f"SLB Explorer: the app's first run at {url} did not happen or failed; the first "
            "visitor runs it (and sees any error).",
            flush=True,
        )


def _exit_code(rc: int) -> int:
    """A child's return code as a shell reports it (killed by signal N: 128 + N)."""
    return 128 - rc if rc < 0 else rc


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
    command: ... -m streamlit run .../app.py --server.scriptHealthCheckEnabled true
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
    parser.add_argument(
        "--no-prewarm",
        action="store_true",
        help="do not run the app once at start (the first visitor then waits for its imports)",
    )
    args, rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    url = server_url(rest)
    if not args.no_prewarm:
        rest = [*rest, "--server.scriptHealthCheckEnabled", "true"]
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
    warm = not args.no_prewarm and _port_free(url)  # a busy port: not our server to ask
    if not args.no_prewarm and not warm:
        print(f"SLB Explorer: {url} is taken or unknown; no pre-run.", flush=True)
    # The server in a process group of its own, and every stop signal the launcher gets passed
    # on once: `kill <launcher>`, a service manager or Ctrl-C in a terminal stop the server too
    # (a terminal's Ctrl-C reaches only the launcher's group, so the server hears it once).
    posix = os.name == "posix"
    group = {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}
    proc = subprocess.Popen(command, cwd=cwd, **(group if posix else {}))
    if posix:
        for name in ("SIGTERM", "SIGINT", "SIGHUP"):
            signal.signal(getattr(signal, name), lambda sig, _f: proc.send_signal(sig))
    if warm:
        threading.Thread(target=_announce_prewarm, args=(url, proc), daemon=True).start()
    try:
        return _exit_code(proc.wait())
    except KeyboardInterrupt:  # not POSIX: Ctrl-C reached the server too
        return _exit_code(proc.wait())
