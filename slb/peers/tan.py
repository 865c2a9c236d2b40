"""Tree-augmented naive Bayes (TAN) with KDE densities, as in the SLB paper's comparison.

For each class: estimate the mutual information of every feature pair, take the maximum spanning
tree (Chow-Liu), and model the class density as the tree density

``log p_y(x) = sum_i log p_y(x_i) + sum_{(i,j) in tree_y} [log p_y(x_i, x_j) - log p_y(x_i)
- log p_y(x_j)]``

built from the same univariate and bivariate KDEs as SLB.  The mutual information of a pair in a
class is the average over that class's training points of the leave-one-out log density ratio
``log p(x_i, x_j) - log p(x_i) - log p(x_j)`` (a resubstitution estimate without the self-kernel
bias).  The spanning tree is Kruskal's (:func:`chow_liu_tree`).
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from .._utils import (
    all_pairs,
    default_feature_names,
)
from .naive_bayes import _DensityBayes, _doc


def chow_liu_tree(weights):
    """Maximum spanning tree of a symmetric weight matrix (Chow-Liu).

    Kruskal's algorithm as networkx's ``maximum_spanning_tree(algorithm="kruskal")`` runs it
    on the complete graph built pair by pair (same edge order, so the same tree when weights
    tie), on arrays: building that graph's ``d (d - 1) / 2`` edge objects was a third of
    TAN's fit on Sonar (``tests/test_classifiers.py`` checks the trees against networkx).

    Parameters
    ----------
    weights : ndarray of shape (d, d)
        Pairwise weights (e.g. mutual information); the diagonal is ignored.

    Returns
    -------
    edges : list of (i, j)
        ``d - 1`` edges with ``i < j``, sorted.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.peers.tan import chow_liu_tree
    >>> weights = np.array(
    ...     [[0.0, 0.9, 0.1, 0.2], [0.9, 0.0, 0.3, 0.8], [0.1, 0.3, 0.0, 0.5], [0.2, 0.8, 0.5, 0.0]]
    ... )
    >>> chow_liu_tree(weights)  # the heaviest edges that form no cycle
    [(0, 1), (1, 3), (2, 3)]
    """
    d = weights.shape[0]
    pairs = all_pairs(d)
    w = np.asarray(weights, dtype=float)[pairs[:, 0], pairs[:, 1]]
    if np.isnan(w).any():
        raise ValueError("NaN found as an edge weight of the Chow-Liu tree.")
    # heaviest first, ties in pair order: networkx's stable sort of the edges as added
    order = np.argsort(-w, kind="stable")
    parent = list(range(d))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]  # path halving
            i = parent[i]
        return i

    edges = []
    for i, j in pairs[order].tolist():
        ri, rj = root(i), root(j)
        if ri != rj:
            parent[ri] = rj
            edges.append((i, j))
            if len(edges) == d - 1:
                break
    return sorted(edges)


class TANClassifier(_DensityBayes):
    __doc__ = _doc("""Tree-augmented naive Bayes with per-class Chow-Liu trees on KDE mutual information.

    Parameters
    ----------
    %(params)s

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    trees_ : dict
        Maps each class label to its tree's edge list of feature-index pairs ``(i, j)``.
    tree_names_ : dict
        The same edges as pairs of feature names.
    mutual_info_ : ndarray of shape (n_classes, n_features, n_features)
        Estimated mutual information of every pair in each class of ``classes_``.
    class_log_prior_ : ndarray of shape (n_classes,)
    transformer_ : LogDensityTransformer
        Its ``pairs_`` are the union of the classes' trees' edges.
    %(linear)s
        A tree density is linear in these terms: ``+1`` on each of the class's tree edges and
        ``1 - degree`` on each univariate term (``+``: positive, ``-``: negative signs).
    %(proba)s
        The cross-fitting refits the class densities without each fold and keeps the trees
        chosen on every row.
    n_features_in_ : int
    feature_names_in_ : ndarray

    Examples
    --------
    Features 0 and 1 share a common factor; the trees of both classes join them:

    >>> import numpy as np
    >>> from slb.peers.tan import TANClassifier
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 50)
    >>> a = rng.normal(size=100)
    >>> X = np.column_stack([a + y, a + 0.3 * rng.normal(size=100), rng.normal(size=100) + y])
    >>> clf = TANClassifier().fit(X, y)
    >>> all((0, 1) in edges for edges in clf.trees_.values())
    True
    >>> clf.tree_names_[1][0], clf.predict_proba(X[:3]).shape
    (('x0', 'x1'), (3, 2))
    """)

    def fit(self, X, y):
        """Estimate the densities, the mutual information and one Chow-Liu tree per class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : TANClassifier
        """
        X, y, y_index = self._check_fit_data(X, y)
        d = X.shape[1]
        pairs = all_pairs(d)
        tr = self._density_transformer(X, pairs).fit(X, y)
        K = len(self.classes_)
        self.mutual_info_ = np.zeros((K, d, d))
        names = default_feature_names(self, d)
        self.trees_, self.tree_names_ = {}, {}
        union = set()
        for c in range(K):
            # class c's own leave-one-out densities at its rows only: the other class's
            # densities there (half of the "loo" map) never enter the mutual information
            uni, biv = tr._own_class_loo(X[y_index == c], c)
            mi = (biv - uni[:, pairs[:, 0]] - uni[:, pairs[:, 1]]).mean(axis=0)
            self.mutual_info_[c][pairs[:, 0], pairs[:, 1]] = mi
            self.mutual_info_[c][pairs[:, 1], pairs[:, 0]] = mi
            edges = chow_liu_tree(self.mutual_info_[c]) if d > 1 else []
            label = (
                self.classes_[c].item() if hasattr(self.classes_[c], "item") else self.classes_[c]
            )
            self.trees_[label] = edges
            self.tree_names_[label] = [(names[i], names[j]) for i, j in edges]
            union.update(edges)
        tree_pairs = np.array(sorted(union), dtype=int).reshape(-1, 2)
        tr.pairs_ = tree_pairs  # evaluate only the tree pairs at prediction time
        self.transformer_ = tr
        self._edge_index = [
            np.array([sorted(union).index(e) for e in self.trees_[lab]], dtype=int)
            for lab in self.trees_
        ]
        self._set_linear_model()
        self._calibrate(X, y_index)
        return self

    def _class_term_weights(self):
        # Class y's tree density: sum_i log p(x_i) + sum_edges [log p(x_i, x_j) - log p(x_i)
        # - log p(x_j)], so 1 - degree on its univariate terms and 1 on its tree's pairs, in
        # class y's blocks of the map (univariate blocks, then pair blocks, in class order).
        d = self.n_features_in_
        P = self.transformer_.pairs_.shape[0]
        K = len(self.classes_)
        W = np.zeros((K, K * (d + P)))
        for c, e in enumerate(self._edge_index):
            p = self._blocks()[c]
            edges = self.transformer_.pairs_[e]
            W[c, p * d : (p + 1) * d] = 1.0 - np.bincount(edges.ravel(), minlength=d)
            W[c, K * d + p * P + e] = 1.0
        return W

    def joint_log_likelihood(self, X):
        """``log p_y(x) + log prior_y`` for every class under its tree density.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        jll : ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._class_log_likelihood(self.transformer_.transform(X)) + self.class_log_prior_

    def _class_log_likelihood(self, T):
        """``log p_y(x)`` of every class under its tree density, from the map's rows ``T``."""
        d = self.n_features_in_
        pairs = self.transformer_.pairs_
        P = pairs.shape[0]
        K = len(self.classes_)
        out = np.empty((T.shape[0], K))
        for c, p in sorted(self._blocks().items()):
            u0, b0 = p * d, K * d + p * P
            uni = T[:, u0 : u0 + d]
            ll = uni.sum(axis=1)
            e = self._edge_index[c]
            if e.size:
                pe = pairs[e]
                ll += (T[:, b0 + e] - uni[:, pe[:, 0]] - uni[:, pe[:, 1]]).sum(axis=1)
            out[:, c] = ll
        return out
