"""The DISCRETE paper's label-noise experiment (Figure 1): flip training labels, score on clean ones."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import StratifiedShuffleSplit

from ..data.bundled import BUNDLED_DATASETS, load_dataset
from ..evaluation.metrics import balanced_error_rate

if TYPE_CHECKING:
    import plotly.graph_objects as go
from .common import (
    DEFAULT_NOISE_CLASSIFIERS,
    FLIP_PROBS,
    ProgressFn,
    _cell,
    _check_classifiers,
    _Progress,
    _seeds,
    make_estimator,
    markdown_table,
)
from .designs import Design


# ----------------------------------------------------------------------------------------------
# label noise (DISCRETE paper, Figure 1)
# ----------------------------------------------------------------------------------------------
@dataclass
class NoiseResults:
    """Result of :func:`run_label_noise`.

    Attributes
    ----------
    long : DataFrame
        One row per replicate, flip probability and classifier: ``source``, ``replicate``,
        ``p``, ``flipped`` (share of training labels actually flipped), ``classifier``,
        ``accuracy`` and ``ber`` on the clean test labels (fractions), ``seconds``.
    summary : DataFrame
        One row per ``p`` and classifier: ``accuracy``, ``accuracy_se``, ``ber``, ``ber_se``
        (mean and standard error over replicates), ``flipped`` (mean share flipped).
    settings : dict

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2))
    >>> data = (X, np.where(X[:, 0] > 0, 1, -1))
    >>> results = run_label_noise(data, ["Gaussian NB"], (0.0, 0.2), n_replicates=1)
    >>> results.long.shape, results.summary.shape
    ((2, 8), (2, 7))
    """

    long: pd.DataFrame
    summary: pd.DataFrame
    settings: dict = field(default_factory=dict)

    def table(self, metric="accuracy", digits=1) -> pd.DataFrame:
        """Rows: flip probability; columns: classifiers; cells ``mean ± se`` in %."""
        if metric not in ("accuracy", "ber"):
            raise ValueError("metric must be 'accuracy' or 'ber'")
        classifiers = self.settings.get("classifiers") or list(
            dict.fromkeys(self.summary["classifier"])
        )
        rows, index = [], []
        for p, block in self.summary.groupby("p", sort=True):
            b = block.set_index("classifier")
            best = b[metric].idxmax() if metric == "accuracy" else b[metric].idxmin()
            rows.append(
                [
                    _cell(b.loc[c, metric], b.loc[c, f"{metric}_se"], digits, c == best)
                    for c in classifiers
                ]
            )
            index.append(f"{p:g}")
        return pd.DataFrame(rows, index=pd.Index(index, name="flip p"), columns=classifiers)

    def to_markdown(self, metric="accuracy") -> str:
        s = self.settings
        what = "accuracy" if metric == "accuracy" else "balanced error rate"
        caption = (
            f"{s.get('source')}: clean-test {what} % (mean ± standard error over "
            f"{s.get('n_replicates')} replicates, seed {s.get('random_state')}) after flipping "
            f"each training label with probability p; {s.get('split')}. Bold: the best mean."
        )
        return markdown_table(self.table(metric)) + "\n\n" + caption + "\n"

    def figure(self, metric="accuracy", title=None) -> go.Figure:
        from ..viz.figures import noise_figure

        return noise_figure(self, metric=metric, title=title)


def _as_noise_source(data):
    """``("real", name, X, y)`` or ``("synthetic", name, Design)``."""
    if isinstance(data, Design):
        return ("synthetic", data.name, data)
    if isinstance(data, Mapping):
        d = Design(**data)
        return ("synthetic", d.name, d)
    if isinstance(data, str):
        if data in BUNDLED_DATASETS:
            X, y = load_dataset(data)
            return ("real", data, X, np.asarray(y))
        d = Design.from_name(data)
        return ("synthetic", d.name, d)
    if isinstance(data, tuple) and len(data) == 2:
        X, y = data
        return ("real", "data", X, np.asarray(y))
    if isinstance(data, tuple) and len(data) == 3 and isinstance(data[0], str):
        return ("real", data[0], data[1], np.asarray(data[2]))
    raise TypeError(
        "data must be a bundled dataset name, (X, y), (name, X, y), a design name such as "
        "'forest-normal-balanced', a Design or a dict of Design fields"
    )


def _flip(y, mask):
    classes = np.unique(y)
    if len(classes) != 2:
        raise ValueError(f"Label noise needs two classes; the training labels have {len(classes)}.")
    other = np.where(y == classes[0], classes[1], classes[0])
    return np.where(mask, other, y)


def run_label_noise(
    data,
    classifiers=DEFAULT_NOISE_CLASSIFIERS,
    flip_probs=FLIP_PROBS,
    n_replicates=5,
    random_state=0,
    progress: ProgressFn | None = None,
    *,
    test_size=0.3,
    n_train=1000,
    density_params=None,
) -> NoiseResults:
    """The DISCRETE paper's Figure 1 protocol: train on noisy labels, test on clean ones.

    Each replicate draws a train/test split (real data: a stratified split with ``test_size``
    of the rows held out; a synthetic design: fresh networks, ``n_train`` training rows and the
    design's balanced test set), then for every ``p`` in ``flip_probs`` flips each training
    label with probability ``p`` (nested across ``p``: one uniform number per row), fits every
    classifier on the noisy labels and scores it on the clean test labels.

    Parameters
    ----------
    data : str, tuple, Design or dict
        A bundled dataset name, ``(X, y)``, ``(name, X, y)``, a synthetic design name
        (``"forest-normal-balanced"``, ``"bn-complex-imbalanced-shared"``, ...), a
        :class:`Design` or a dict of its fields.
    classifiers : sequence of str
    flip_probs : sequence of float in [0, 0.5)
    n_replicates : int
    random_state : int
    progress : callable or None
    test_size : float
        Real data only.
    n_train : int
        Synthetic designs only.
    density_params : dict or None

    Returns
    -------
    NoiseResults

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2))
    >>> data = (X, np.where(X[:, 0] > 0, 1, -1))
    >>> results = run_label_noise(data, ["Gaussian NB"], (0.0, 0.2), n_replicates=1)
    >>> results.summary[["p", "flipped"]].round(2).values.tolist()
    [[0.0, 0.0], [0.2, 0.24]]
    """
    names = _check_classifiers(classifiers)
    probs = [float(p) for p in flip_probs]
    if not probs or any(not 0.0 <= p < 0.5 for p in probs):
        raise ValueError("flip probabilities must lie in [0, 0.5).")
    if int(n_replicates) < 1:
        raise ValueError("n_replicates must be at least 1.")
    source = _as_noise_source(data)
    R = int(n_replicates)
    seeds = _seeds(random_state, R, key=1)
    draw, split = _noise_draws(source, R, seeds, random_state, test_size, n_train)
    name = source[1]
    long = _noise_runs(
        draw, name, names, probs, seeds, _seeds(random_state, R, key=2), progress, density_params
    )
    settings = {
        "source": name,
        "kind": source[0],
        "classifiers": names,
        "flip_probs": probs,
        "n_replicates": R,
        "random_state": random_state,
        "split": split,
        "test_size": test_size if source[0] == "real" else None,
        "n_train": int(n_train) if source[0] == "synthetic" else None,
    }
    return NoiseResults(long=long, summary=_noise_summary(long, R), settings=settings)


def _noise_draws(source, R, seeds, random_state, test_size, n_train):
    """``draw(r) -> (X_train, y_train, X_test, y_test)`` for replicate ``r``, and the split's words."""
    if source[0] == "real":
        _, _, X, y = source
        sss = StratifiedShuffleSplit(
            n_splits=R, test_size=test_size, random_state=_seeds(random_state, 1, key=3)[0]
        )
        splits = list(sss.split(np.zeros(len(y)), y))
        take = (lambda idx: X.iloc[idx]) if hasattr(X, "iloc") else (lambda idx: X[idx])

        def draw(r):
            tr, te = splits[r]
            return take(tr), y[tr], take(te), y[te]

        return draw, f"stratified {1 - test_size:.0%}/{test_size:.0%} train/test splits"
    spec = source[2]

    def draw(r):
        ds = spec.make(int(n_train), seeds[r])
        return ds.X_train, ds.y_train, ds.X_test, ds.y_test

    return draw, (
        f"fresh networks per replicate, {int(n_train)} training and "
        f"{spec.n_test} balanced test rows"
    )


def _noise_runs(draw, name, names, probs, seeds, flip_seeds, progress, density_params):
    """One row per (replicate, flip probability, classifier): accuracy and BER on clean labels."""
    R = len(seeds)
    tracker = _Progress(progress, R * len(probs) * len(names))
    rows = []
    for r in range(R):
        X_tr, y_tr, X_te, y_te = draw(r)
        u = np.random.default_rng(flip_seeds[r]).random(len(y_tr))
        for p in probs:
            y_noisy = _flip(y_tr, u < p)
            for c in names:
                t0 = time.perf_counter()
                model = make_estimator(c, random_state=seeds[r], density_params=density_params)
                pred = clone(model).fit(X_tr, y_noisy).predict(X_te)
                rows.append(
                    {
                        "source": name,
                        "replicate": r,
                        "p": p,
                        "flipped": float(np.mean(u < p)),
                        "classifier": c,
                        "accuracy": float(np.mean(pred == y_te)),
                        "ber": float(balanced_error_rate(y_te, pred)),
                        "seconds": time.perf_counter() - t0,
                    }
                )
                tracker.step(f"{name} rep {r + 1}/{R} p={p:g} {c}")
    return pd.DataFrame(rows)


def _noise_summary(long, R):
    """Mean accuracy and BER with standard errors per (p, classifier)."""
    g = long.groupby(["p", "classifier"], sort=False)
    summary = g.agg(
        accuracy=("accuracy", "mean"),
        accuracy_sd=("accuracy", "std"),
        ber=("ber", "mean"),
        ber_sd=("ber", "std"),
        flipped=("flipped", "mean"),
    ).reset_index()
    summary["accuracy_se"] = summary.pop("accuracy_sd") / np.sqrt(R)
    summary["ber_se"] = summary.pop("ber_sd") / np.sqrt(R)
    return summary[["p", "classifier", "accuracy", "accuracy_se", "ber", "ber_se", "flipped"]]
