"""``SLBClassifierCV``: SLB with ``lambda`` and ``C`` always chosen by the nested inner CV, and
the selection reported under the names of scikit-learn's ``GridSearchCV``.

scikit-learn pairs a cheap fixed-parameter estimator with a ``...CV`` one that selects its
parameters (``Lasso``/``LassoCV``).  :class:`~slb.SLBClassifier` is both already: with numbers
(``threshold=0.01, C=1.0``) it fits one screening, one feature map and one SVM; with its
defaults (``"cv"``, chosen by the protocol of ``docs/defaults.md``) it runs the nested
selection.  This class is the ``...CV`` name for the second use (``docs/estimator-shape.md``
gives the reasons): the same fit as ``SLBClassifier(threshold="cv", C="cv")``, numbers refused
for ``threshold`` and ``C``, and ``cv_results_`` keeps SLB's keys (``mean_ber``, ``split0_ber``,
``param_fraction`` or ``param_threshold``, ``param_C``, ``mean_n_pairs``...) and adds
``GridSearchCV``'s: ``params``, ``mean_test_score``, ``std_test_score``, ``split{k}_test_score``
and ``rank_test_score``, the score being the balanced accuracy ``1 - BER`` (scikit-learn's
``scoring="balanced_accuracy"``: larger is better), with ``best_params_`` and ``best_score_``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._sklearn_compat import StrOptions
from .classifier import SLBClassifier

__all__ = ["SLBClassifierCV", "grid_search_results"]


def grid_search_results(cv_results: dict) -> dict:
    """SLB's ``cv_results_`` (BER keys) with ``GridSearchCV``'s keys added.

    Parameters
    ----------
    cv_results : dict
        ``SLBClassifier(...).cv_results_``: ``param_*``, ``mean_ber``, ``std_ber``,
        ``split{k}_ber``, ``rank_ber``, ``mean_n_pairs``.

    Returns
    -------
    dict
        The same entries plus ``params`` (one dict per candidate, as ``GridSearchCV``),
        ``mean_test_score``/``std_test_score``/``split{k}_test_score`` (balanced accuracy,
        ``1 - BER``) and ``rank_test_score`` (= ``rank_ber``).

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.cv import grid_search_results
    >>> res = grid_search_results({
    ...     "param_C": np.array([0.1, 1.0]), "mean_n_pairs": np.array([0.0, 0.0]),
    ...     "mean_ber": np.array([0.3, 0.2]), "std_ber": np.array([0.1, 0.0]),
    ...     "split0_ber": np.array([0.2, 0.2]), "split1_ber": np.array([0.4, 0.2]),
    ...     "rank_ber": np.array([2, 1])})
    >>> res["params"], res["mean_test_score"].round(2).tolist(), res["rank_test_score"].tolist()
    ([{'C': 0.1}, {'C': 1.0}], [0.7, 0.8], [2, 1])
    """
    out = dict(cv_results)
    names = [k for k in cv_results if k.startswith("param_")]
    n = len(cv_results["mean_ber"])
    out["params"] = [
        {k.removeprefix("param_"): _plain(cv_results[k][i]) for k in names} for i in range(n)
    ]
    splits = sorted(
        (k for k in cv_results if k.startswith("split") and k.endswith("_ber")),
        key=lambda k: int(k[len("split") : -len("_ber")]),
    )
    for k in splits:
        out[k.replace("_ber", "_test_score")] = 1.0 - np.asarray(cv_results[k], dtype=float)
    out["mean_test_score"] = 1.0 - np.asarray(cv_results["mean_ber"], dtype=float)
    out["std_test_score"] = np.asarray(cv_results["std_ber"], dtype=float)
    out["rank_test_score"] = np.asarray(cv_results["rank_ber"], dtype=int)
    return out


def _plain(v):
    """A numpy scalar as the Python number GridSearchCV's ``params`` would hold."""
    return v.item() if isinstance(v, np.generic) else v


@dataclass(eq=False, repr=False)
class SLBClassifierCV(SLBClassifier):
    """SLB with ``lambda`` and ``C`` chosen jointly by nested inner cross-validation.

    The same estimator as ``SLBClassifier(threshold="cv", C="cv")`` (its defaults), under the
    ``...CV`` name scikit-learn gives selecting estimators (``LassoCV``), with the selection
    reported as ``GridSearchCV`` reports it.  ``threshold`` and ``C`` accept only ``"cv"``;
    for fixed values use :class:`~slb.SLBClassifier`.  The grids are ``thresholds`` (None: the
    label-free grid of top pair fractions) and ``Cs``; every other parameter is
    :class:`~slb.SLBClassifier`'s.

    Attributes
    ----------
    cv_results_ : dict or None
        :class:`~slb.SLBClassifier`'s (``mean_ber``, ``split{k}_ber``, ``param_*``,
        ``mean_n_pairs``...) plus ``params``, ``mean_test_score``, ``std_test_score``,
        ``split{k}_test_score`` and ``rank_test_score`` (balanced accuracy ``1 - BER``;
        ``selection="corrected"`` adds ``corrected_ber``, the scores it compared).  None when a class has too few rows to cross-validate (the sparsest model is used).
    best_index_ : int
        Row of ``cv_results_`` chosen by ``selection`` (``"min"``: lowest mean BER; ties:
        sparser, then smaller C; ``"one_se"`` and ``"corrected"``: see
        :mod:`slb.model.selection`); 0 when ``cv_results_`` is None (nothing was selected).
    best_params_ : dict
        ``cv_results_["params"][best_index_]`` (with ``generative_candidates=True`` it also
        names the ``model``; a selected naive Bayes or TAN has NaN grid values).
    best_score_ : float
        ``cv_results_["mean_test_score"][best_index_]`` (NaN without ``cv_results_``).
    threshold_, fraction_, C_ : float
        The chosen ``lambda`` (the fraction of pairs it keeps, for the default grid) and cost.

    Examples
    --------
    >>> import numpy as np
    >>> from slb import load_dataset
    >>> from slb.model.cv import SLBClassifierCV
    >>> X, y = load_dataset("pima")
    >>> clf = SLBClassifierCV(Cs=[0.1, 1.0], random_state=0).fit(X[:200], y[:200])
    >>> sorted(clf.best_params_)  # the model: SLB, or naive Bayes or TAN (Protocol 3)
    ['C', 'fraction', 'model']
    >>> bool(clf.best_score_ == clf.cv_results_["mean_test_score"][clf.best_index_])
    True
    >>> clf.best_params_["model"]  # the grid's lucky minimum is passed over (Protocol 5)
    'naive_bayes'
    >>> int(clf.cv_results_["rank_test_score"][clf.best_index_]) > 1
    True
    >>> res = clf.cv_results_  # it won on the grid's minimum after its bias correction:
    >>> bool(res["corrected_ber"][clf.best_index_] == np.nanmin(res["corrected_ber"]))
    True
    """

    _parameter_constraints = {
        **SLBClassifier._parameter_constraints,
        "threshold": [StrOptions({"cv"})],
        "C": [StrOptions({"cv"})],
    }

    def fit(self, X, y):
        """Select ``lambda`` and ``C`` by nested inner CV, then fit SLB on all the rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        super().fit(X, y)
        if self.cv_results_ is None:
            self.best_index_ = 0
            self.best_params_ = {"C": self.C_, "threshold": self.threshold_}
            self.best_score_ = float("nan")
            return self
        self.cv_results_ = grid_search_results(self.cv_results_)
        self.best_params_ = dict(self.cv_results_["params"][self.best_index_])
        self.best_score_ = float(self.cv_results_["mean_test_score"][self.best_index_])
        return self
