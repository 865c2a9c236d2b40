"""Cross-validated balanced error of SLB along the threshold path, densities computed once.

Moving the threshold ``lambda`` changes only which columns of the log-density feature map enter
the SVM.  :class:`ThresholdPath` computes, once per fold, the per-class dependence matrices and
the feature map of *every* candidate pair (leave-one-out on the training rows, plain on the test
rows); afterwards the cross-validated BER at any threshold costs one SVM fit per fold.  At a
given threshold it returns exactly what cross-validating ``SLBClassifier(threshold=lambda)`` on
the same folds returns (the tests check this).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._utils import all_pairs, check_binary_target, check_magnitude, overrides_by_index
from .dependence import DEPENDENCE_MEASURES, dependence_matrix
from .evaluation import balanced_error_rate
from .features import LogDensityTransformer
from .screening import check_pair_rule, kept_terms, pair_scores
from .svm import fit_linear_svm, index_class_weight


@dataclass
class _Fold:
    train: np.ndarray
    test: np.ndarray
    stat: np.ndarray  # (2, P) dependence of every candidate pair in each class
    T_train: np.ndarray
    T_test: np.ndarray


class ThresholdPath:
    """SLB's cross-validated BER for any threshold, refitting only the SVM.

    Parameters
    ----------
    dependence : {"hsic", "pearson", "spearman"}, default="hsic"
    pair_rule : {"either", "both", "per_class"}, default="either"
    C : float, default=0.03
    class_weight : "balanced", dict or None, default="balanced"
    max_pairs : int or None, default=5000
        Keep at most this many candidate pairs per fold (the most dependent ones), bounding
        memory for wide tables; thresholds below the cut behave like the cut.
    **density_params
        Passed to :class:`slb.features.LogDensityTransformer` (bandwidth rule, multiplier,
        overrides, floors, training_features, ...).

    Attributes
    ----------
    folds_ : list
        Per-fold cached dependence and feature maps.
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    """

    def __init__(
        self,
        *,
        dependence="hsic",
        pair_rule="either",
        C=0.03,
        class_weight="balanced",
        max_pairs=5000,
        **density_params,
    ):
        if dependence not in DEPENDENCE_MEASURES:
            raise ValueError(f"dependence must be one of {', '.join(DEPENDENCE_MEASURES)}.")
        check_pair_rule(pair_rule)
        self.dependence = dependence
        self.pair_rule = pair_rule
        self.C = C
        self.class_weight = class_weight
        self.max_pairs = max_pairs
        self.density_params = density_params

    def fit(self, X, y, folds, progress=None):
        """Compute the dependence and the candidate feature maps of every fold.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        folds : list of (train_index, test_index)
        progress : callable or None
            Called as ``progress(done, total, message)`` after each fold.

        Returns
        -------
        self : ThresholdPath
        """
        names = [str(c) for c in X.columns] if hasattr(X, "columns") else None
        X = np.asarray(X, dtype=float)
        y = np.asarray(y)
        if names is None:
            names = [f"x{i}" for i in range(X.shape[1])]
        density_params = dict(self.density_params)
        density_params["bandwidth_overrides"] = overrides_by_index(
            density_params.get("bandwidth_overrides"), names
        )
        self.classes_, y_index = check_binary_target(y)
        check_magnitude(X, names)
        self.n_features_in_ = X.shape[1]
        self._y_index = y_index
        pairs_all = all_pairs(X.shape[1])
        self.folds_ = []
        for k, (tr, te) in enumerate(folds):
            yi = y_index[tr]
            stat = np.stack(
                [
                    # Same call as SLBClassifier, so both screen on bit-identical statistics.
                    dependence_matrix(X[tr][yi == c], self.dependence).statistic
                    for c in (0, 1)
                ]
            )[:, pairs_all[:, 0], pairs_all[:, 1]]
            score = self._score(stat)
            keep = np.ones(pairs_all.shape[0], dtype=bool)
            if self.max_pairs is not None and keep.size > self.max_pairs:
                keep[:] = False
                keep[np.argsort(-score, kind="stable")[: self.max_pairs]] = True
            pairs = pairs_all[keep]
            tf = LogDensityTransformer(pairs=pairs, **density_params)
            T_train = tf.fit_transform(X[tr], y[tr])
            T_test = tf.transform(X[te])
            self.folds_.append(_Fold(tr, te, stat[:, keep], T_train, T_test))
            if progress is not None:
                progress(k + 1, len(folds), f"densities of fold {k + 1}/{len(folds)}")
        return self

    def _score(self, stat):
        return pair_scores(stat, self.pair_rule)

    def _mask(self, stat, threshold):
        keep_c = kept_terms(stat, threshold, self.pair_rule)
        d, P = self.n_features_in_, stat.shape[1]
        m = np.zeros(2 * d + 2 * P, dtype=bool)
        m[: 2 * d] = True
        m[2 * d : 2 * d + P] = keep_c[1]
        m[2 * d + P :] = keep_c[0]
        return m, int(keep_c.any(axis=0).sum())

    def fold_ber(self, threshold):
        """BER of each fold at ``threshold``, and the number of kept pairs in each fold.

        Parameters
        ----------
        threshold : float

        Returns
        -------
        ber : ndarray of shape (n_folds,)
        n_pairs : ndarray of shape (n_folds,)
        """
        ber, n_pairs = [], []
        for f in self.folds_:
            m, k = self._mask(f.stat, threshold)
            yi_tr, yi_te = self._y_index[f.train], self._y_index[f.test]
            w, b = fit_linear_svm(
                f.T_train[:, m],
                yi_tr,
                C=self.C,
                class_weight=index_class_weight(self.class_weight, self.classes_),
            )
            pred = (f.T_test[:, m] @ w + b > 0).astype(int)
            ber.append(balanced_error_rate(yi_te, pred))
            n_pairs.append(k)
        return np.array(ber), np.array(n_pairs)

    def candidate_thresholds(self, n=25):
        """A grid spanning all pairs kept (0) to none kept, at quantiles of the pair scores.

        Parameters
        ----------
        n : int

        Returns
        -------
        thresholds : ndarray
        """
        scores = np.concatenate([self._score(f.stat) for f in self.folds_])
        if scores.size == 0:
            return np.array([0.0])
        q = np.quantile(scores, np.linspace(0, 1, n))
        return np.unique(np.concatenate([[0.0], q, [scores.max() * 1.0001 + 1e-12]]))

    def curve(self, thresholds=None):
        """Cross-validated BER along a grid of thresholds.

        Parameters
        ----------
        thresholds : array-like or None
            None: :meth:`candidate_thresholds`.

        Returns
        -------
        curve : DataFrame
            Columns ``threshold``, ``mean_ber``, ``sd_ber`` (ddof=1), ``mean_pairs``.
        """
        grid = self.candidate_thresholds() if thresholds is None else np.asarray(thresholds)
        rows = []
        for t in grid:
            ber, k = self.fold_ber(float(t))
            rows.append(
                {
                    "threshold": float(t),
                    "mean_ber": ber.mean(),
                    "sd_ber": ber.std(ddof=1) if ber.size > 1 else 0.0,
                    "mean_pairs": k.mean(),
                }
            )
        return pd.DataFrame(rows)
