"""What every experiment shares: classifier names, seeds, progress reporting, table formatting."""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np
import pandas as pd
from tqdm import tqdm

from ..evaluation.registry import CLASSIFIERS, make_classifier, resolve_name

#: Table 4 columns plus the two SLB variants (the paper reports SLB- on synthetic data only).
DEFAULT_REAL_CLASSIFIERS = (
    "SLB",
    "SLB(Pearson)",
    "SLB-",
    "LU",
    "TAN",
    "NB",
    "RF",
    "SVM(RBF)",
    "5NN",
)
#: The eight classifiers of the paper's Table 2 (Table 1 has no SLB-).
DEFAULT_SYNTHETIC_CLASSIFIERS = ("SLB", "SLB-", "LU", "TAN", "NB", "RF", "SVM(RBF)", "5NN")
#: The DISCRETE paper compares DISCRETE with a linear SVM; SLB and NB for our own question.
DEFAULT_NOISE_CLASSIFIERS = ("SLB", "NB", "SVM(linear)", "DISCRETE")
#: Label-flip probabilities of the DISCRETE paper's Figure 1.
FLIP_PROBS = (0.0, 0.1, 0.2, 0.3, 0.4)

ProgressFn = Callable[[int, int, str], None]


# ----------------------------------------------------------------------------------------------
# classifiers, seeds, progress
# ----------------------------------------------------------------------------------------------
def classifier_names() -> list:
    """Every classifier name the experiments accept: the keys of :data:`slb.evaluation.registry.CLASSIFIERS`.

    Examples
    --------
    >>> names = classifier_names()
    >>> names[0], "NB" in names
    ('SLB', True)
    """
    return list(CLASSIFIERS)


def make_estimator(name, random_state=None, density_params=None):
    """A fresh classifier by name: :func:`slb.evaluation.registry.make_classifier`.

    Parameters
    ----------
    name : str
        See :func:`classifier_names`.
    random_state : int or None
    density_params : dict or None
        Shared bandwidth settings for the density-based classifiers.

    Returns
    -------
    estimator

    Examples
    --------
    >>> type(make_estimator("NB", random_state=0)).__name__
    'KDENaiveBayes'
    """
    return make_classifier(name, random_state=random_state, **dict(density_params or {}))


def _check_classifiers(classifiers) -> list:
    if isinstance(classifiers, str):
        classifiers = [classifiers]
    names = list(dict.fromkeys(_resolve_name(str(c)) for c in classifiers))
    if not names:
        raise ValueError("Give at least one classifier.")
    known = set(classifier_names())
    bad = [c for c in names if c not in known]
    if bad:
        raise ValueError(
            f"Unknown classifier(s) {', '.join(map(repr, bad))}; choose from "
            f"{', '.join(classifier_names())}."
        )
    return names


def _seeds(random_state, n, key=0) -> list:
    """``n`` independent 31-bit integer seeds derived from ``random_state`` (and a stream key)."""
    if random_state is None:
        raise ValueError("random_state must be an integer: experiments must be reproducible.")
    ss = np.random.SeedSequence([int(random_state), int(key)])
    return [int(child.generate_state(1)[0] & 0x7FFFFFFF) for child in ss.spawn(n)]


class _Progress:
    """Counts work units and forwards them to an optional user callback."""

    def __init__(self, callback, total):
        self.callback = callback
        self.total = int(total)
        self.done = 0

    def step(self, message, k=1):
        self.done += k
        if self.callback is not None:
            self.callback(self.done, self.total, message)


class TerminalProgress:
    """A ``progress(done, total, message)`` callback drawing a :mod:`tqdm` bar on stderr.

    The experiments report progress through plain callbacks (the dashboard passes its own);
    this adapter turns them into a tqdm bar.  A call whose ``done`` goes backwards or whose
    ``total`` changes starts a new bar (a new run).  Off a terminal (a log file under ``nohup``)
    the bar is redrawn at most every ``log_interval`` seconds, so logs stay short.

    Parameters
    ----------
    stream : file-like, default sys.stderr
    log_interval : float, default 30
        Seconds between two redraws when the stream is not a terminal.

    Examples
    --------
    >>> import io
    >>> progress = TerminalProgress(stream=io.StringIO())
    >>> progress(1, 2, "first")
    >>> progress(2, 2, "second")
    >>> progress.bar.n, progress.bar.total
    (2, 2)
    """

    def __init__(self, stream=None, log_interval=30.0):
        self.stream = stream if stream is not None else sys.stderr
        self.log_interval = float(log_interval)
        self.bar = None
        try:
            self.tty = bool(self.stream.isatty())
        except (AttributeError, ValueError):
            self.tty = False

    def _new_bar(self, total):
        if self.bar is not None:
            self.bar.close()
        self.bar = tqdm(
            total=total,
            file=self.stream,
            mininterval=0.2 if self.tty else self.log_interval,
            ascii=not self.tty,
            dynamic_ncols=self.tty,
            leave=True,
        )

    def __call__(self, done, total, message=""):
        total = max(int(total), 1)
        if self.bar is None or done < self.bar.n or total != self.bar.total:
            self._new_bar(total)
        self.bar.set_postfix_str(str(message), refresh=False)
        self.bar.update(int(done) - self.bar.n)
        if done >= total:
            self.bar.close()


# ----------------------------------------------------------------------------------------------
# formatting
# ----------------------------------------------------------------------------------------------
def _cell(mean, sd, digits=1, bold=False):
    """``"12.3 ± 4.5"`` in percent from fractions; bold in Markdown when asked."""
    if mean is None or not np.isfinite(mean):
        return "–"
    text = f"{100 * mean:.{digits}f}"
    if sd is not None and np.isfinite(sd):
        text += f" ± {100 * sd:.{digits}f}"
    return f"**{text}**" if bold else text


def _paper_cell(mean, sd, digits=None):
    """A cell of the paper's: as printed there (``:g``), or with ``digits`` decimals."""
    if mean is None or not np.isfinite(mean):
        return "–"
    f = "g" if digits is None else f".{int(digits)}f"
    return f"{mean:{f}} ± {sd:{f}}" if sd is not None and np.isfinite(sd) else f"{mean:{f}}"


def markdown_table(frame: pd.DataFrame, index=True) -> str:
    """A plain GitHub-flavoured Markdown table of a DataFrame (no extra dependency).

    Examples
    --------
    >>> frame = pd.DataFrame({"error": [0.1, 0.2]}, index=pd.Index(["SLB", "NB"], name="clf"))
    >>> print(markdown_table(frame))
    | clf | error |
    |---|---|
    | SLB | 0.1 |
    | NB | 0.2 |
    """
    cols = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for idx, row in frame.iterrows():
        cells = ([str(idx)] if index else []) + ["" if pd.isna(v) else str(v) for v in row]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# command line
# ----------------------------------------------------------------------------------------------
def _resolve_name(name: str) -> str:
    """Catalogue name for a user spelling; see :func:`slb.evaluation.registry.resolve_name`."""
    return resolve_name(name)
