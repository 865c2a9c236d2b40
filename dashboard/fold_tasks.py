"""The per-fold tasks the Compare page sends to worker processes: fit on a fold's training
rows, predict its test rows.

Kept apart from :mod:`dashboard.evaluation`: a joblib worker unpickles a task by importing its
module, and importing a module of cached functions in a process without a Streamlit server
logs one "No runtime found" warning per cached function (H43: 84 lines in the server's log
at the first Compare of a small table, whose folds run in joblib's workers, not in the
pool of :mod:`dashboard.workqueue`, whose initializer quiets them).  Nothing here imports
Streamlit.
"""

from __future__ import annotations

from sklearn.base import clone

from slb.evaluation.predictions import model_outputs

__all__ = ["fold_outputs", "slb_fold_outputs"]


def _rows(X, idx):
    return X.iloc[idx] if hasattr(X, "iloc") else X[idx]


def fold_outputs(est, X, y, train, test) -> dict:
    """Fit a clone of ``est`` on ``train`` and predict ``test`` (labels, probabilities,
    scores): one fold of ``compare_estimators(record_predictions=True)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.dummy import DummyClassifier
    >>> X, y = np.arange(8.0).reshape(-1, 1), np.array([0, 0, 0, 1, 1, 1, 1, 1])
    >>> out = fold_outputs(DummyClassifier(), X, y, np.arange(2, 8), np.arange(2))
    >>> out["y_pred"].tolist()
    [1, 1]
    """
    model = clone(est).fit(_rows(X, train), y[train])
    return model_outputs(model, _rows(X, test))


def slb_fold_outputs(est, X, y, train, test) -> tuple[dict, int]:
    """:func:`fold_outputs` of an SLB estimator, and the number of pairs it kept.

    Examples
    --------
    >>> import numpy as np
    >>> from slb import SLBClassifier
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(60, 3)), np.repeat([0, 1], 30)
    >>> est = SLBClassifier(threshold=0.0, C=1.0, random_state=0)
    >>> out, n_pairs = slb_fold_outputs(est, X, y, np.arange(0, 60, 2), np.arange(1, 60, 2))
    >>> n_pairs, len(out["y_pred"])
    (3, 30)
    """
    model = clone(est).fit(_rows(X, train), y[train])
    return model_outputs(model, _rows(X, test)), len(model.pairs_)
