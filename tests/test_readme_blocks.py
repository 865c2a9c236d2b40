"""Every fenced code block of README.md is run or checked: prose that is not run goes stale.

* ``python`` blocks run as they are, each in a fresh interpreter (``python -c BLOCK``) with the
  checkout on ``sys.path`` (what the README's first command gives a user: the repo root is the
  working directory), a time limit, and a working directory of its own holding the two files the
  README tells the reader to bring (``train.csv`` with a label column, ``new.csv``), so that no
  block writes into the checkout.  A block that raises fails the test with its traceback.
* ``bash`` blocks: every command in them (split at ``&&``, comments dropped) must be one this
  file knows how to check, else the test fails; a new command in the README needs a check here.
  They are checked, not run, because running them would start a server that never returns
  (``streamlit run``) or recurse into this very suite for ~15 minutes (``bash
  scripts/run-tests.sh``, which CI runs anyway through ``.ci/run``):
    - ``pip install -r FILE``: the file exists and pip resolves it (``--dry-run``, nothing is
      installed or changed); ``pip`` is on PATH;
    - ``streamlit run APP``: the app file exists and compiles, and ``streamlit run --help`` works
      from the same PATH (the command exists, without starting a server; tests/test_app.py runs
      the app itself through AppTest);
    - ``python -m slb_explorer``: the launcher's ``--dry-run`` (what it would start) succeeds
      from the checkout and names the checkout's ``app.py`` (the launcher itself, its pre-run
      included, is run by tests/test_packaging.py);
    - ``bash SCRIPT``: the script exists, ``bash -n`` parses it, and it installs
      requirements-dev.txt and runs pytest.
* Any other fence language fails the test, and so does an unclosed fence.

``test_a_broken_block_fails`` checks the harness itself: the README's old first snippet
(``clf.coef_.sort_values()``, coef_ being an ndarray) and an unknown bash command must fail.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_readme_model_example import write_example_files

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PY_TIMEOUT = 600  # seconds per python block (the first fits SLB with nested CV on Pima: ~10 s)
FENCE = re.compile(r"^(\s*)```(.*)$")


def fenced_blocks(text: str) -> list[tuple[str, int, str]]:
    """(language, first line number, code) of every fenced block, in order."""
    blocks, lang, start, body = [], None, 0, []
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if lang is None:
            if m:
                lang, start, body = m.group(2).strip() or "(none)", number, []
        elif m and not m.group(2).strip():
            blocks.append((lang, start, "\n".join(body) + "\n"))
            lang = None
        else:
            body.append(line)
    assert lang is None, f"README.md: the fence opened at line {start} is never closed"
    return blocks


BLOCKS = fenced_blocks(README.read_text(encoding="utf-8"))
PYTHON = [(line, code) for lang, line, code in BLOCKS if lang == "python"]
BASH = [(line, code) for lang, line, code in BLOCKS if lang == "bash"]


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(ROOT)
    env["MPLBACKEND"] = "Agg"
    return env


def run_python_block(code: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=_env(),
        capture_output=True, text=True, timeout=PY_TIMEOUT,
    )  # fmt: skip


def test_the_readme_has_the_blocks_this_file_knows():
    langs = [lang for lang, _, _ in BLOCKS]
    assert set(langs) <= {"python", "bash"}, f"a block this test cannot run or check: {langs}"
    assert len(PYTHON) >= 2 and len(BASH) >= 1, langs
    # the README opens with its two commands: the dashboard on bundled data, the whole suite
    first = BASH[0][1].splitlines()
    assert first[0].split("#")[0].split() == [
        "pip", "install", "-r", "requirements.txt", "&&", "python", "-m", "slb_explorer",
    ]  # fmt: skip
    assert first[1].split("#")[0].split() == ["bash", "scripts/run-tests.sh"]


@pytest.mark.slow
@pytest.mark.parametrize("line,code", PYTHON, ids=[f"line{n}" for n, _ in PYTHON])
def test_python_block_runs(line, code, tmp_path):
    write_example_files(tmp_path)  # train.csv and new.csv, as the README's reader brings them
    res = run_python_block(code, tmp_path)
    assert res.returncode == 0, f"README.md line {line}:\n{code}\n{res.stderr[-3000:]}"


# ----------------------------------------------------------------------------------------------
# bash blocks: each command checked without being run (see the module docstring)
# ----------------------------------------------------------------------------------------------
def _check_pip_install(args: list[str]) -> None:
    assert args[:2] == ["install", "-r"] and len(args) == 3, args
    assert shutil.which("pip"), "pip is not on PATH"
    assert (ROOT / args[2]).is_file(), args[2]
    res = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet",
         "--disable-pip-version-check", "-r", args[2]],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr[-3000:]


def _check_streamlit_run(args: list[str]) -> None:
    assert args[0] == "run" and len(args) == 2, args
    app = ROOT / args[1]
    assert app.is_file(), args[1]
    compile(app.read_text(encoding="utf-8"), str(app), "exec")
    streamlit = shutil.which("streamlit")
    assert streamlit, "streamlit is not on PATH"
    res = subprocess.run(
        [streamlit, "run", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 0 and "Usage" in res.stdout, res.stderr[-3000:]


def _check_bash_script(args: list[str]) -> None:
    assert len(args) == 1, args
    script = ROOT / args[0]
    assert script.is_file(), args[0]
    res = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    text = script.read_text(encoding="utf-8")
    if args[0] == "scripts/run-tests.sh":
        assert "-r requirements-dev.txt" in text and "python -m pytest" in text


def _check_python_module(args: list[str]) -> None:
    assert args == ["-m", "slb_explorer"], args
    res = subprocess.run(
        [sys.executable, "-m", "slb_explorer", "--dry-run"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr[-3000:]
    assert f"app: {ROOT / 'app.py'}" in res.stdout, res.stdout


CHECKS = {
    "pip": _check_pip_install,
    "streamlit": _check_streamlit_run,
    "bash": _check_bash_script,
    "python": _check_python_module,
}


def bash_commands(code: str) -> list[list[str]]:
    """The commands of a bash block: one list of words per command (split at && and ;)."""
    commands = []
    for line in code.splitlines():
        words = shlex.split(line, comments=True)
        command: list[str] = []
        for word in [*words, "&&"]:
            if word in ("&&", ";"):
                if command:
                    commands.append(command)
                command = []
            else:
                command.append(word)
    return commands


def check_bash_command(words: list[str]) -> None:
    assert words[0] in CHECKS, f"no check for the README command {shlex.join(words)!r}"
    CHECKS[words[0]](words[1:])


@pytest.mark.parametrize("line,code", BASH, ids=[f"line{n}" for n, _ in BASH])
def test_bash_block_commands_exist(line, code):
    commands = bash_commands(code)
    assert commands, f"README.md line {line}: an empty bash block"
    for words in commands:
        check_bash_command(words)


# ----------------------------------------------------------------------------------------------
# the harness can fail
# ----------------------------------------------------------------------------------------------
@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_a_broken_block_fails(tmp_path):
    broken = (
        "from slb import SLBClassifier, load_dataset\n"
        "X, y = load_dataset('pima')\n"
        "clf = SLBClassifier(threshold=0.5, C=1.0, random_state=0).fit(X, y)\n"
        "clf.coef_.sort_values()\n"  # the README's old line: coef_ is an ndarray
    )
    res = run_python_block(broken, tmp_path)
    assert res.returncode != 0 and "AttributeError" in res.stderr, res.stderr[-2000:]
    with pytest.raises(AssertionError, match="no check for the README command"):
        check_bash_command(["curl", "https://example.invalid"])
    with pytest.raises(AssertionError):
        check_bash_command(["bash", "scripts/no-such-script.sh"])
    with pytest.raises(AssertionError):
        check_bash_command(["pip", "install", "-r", "no-such-requirements.txt"])
    assert bash_commands("pip install -r a.txt && streamlit run b.py  # c && d\n") == [
        ["pip", "install", "-r", "a.txt"],
        ["streamlit", "run", "b.py"],
    ]
    with pytest.raises(AssertionError, match="never closed"):
        fenced_blocks("text\n```python\nprint(1)\n")


def test_paths_named_in_the_readme_exist():
    """Files and folders the prose sends the reader to (`docs/results.md`, ...) are there."""
    text = README.read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:[\w.\-]+/)+[\w.\-]*)`", text))
    named |= set(re.findall(r"`python ((?:[\w\-]+/)+[\w\-]+\.py)`", text))
    named = {n for n in named if not n.startswith(("http", "slb/_data"))}
    assert len(named) >= 5, named
    # a path is from the repo root, or inside the package where the table names it
    # (`paper_tables/` in the row of slb.experiments)
    missing = sorted(
        n for n in named if not (ROOT / n).exists() and not any(ROOT.glob(f"slb/*/{n}"))
    )
    assert not missing, missing
