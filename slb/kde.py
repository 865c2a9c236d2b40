"""Gaussian kernel density estimates: univariate and bivariate, per class, with leave-one-out.

The bivariate densities use a product Gaussian kernel with a diagonal bandwidth
``(h_i, h_j)``::

    p(x_i, x_j) = 1/n * sum_k  phi_{h_i}(x_i - X_ki) * phi_{h_j}(x_j - X_kj)

which is separable: once the kernel values ``phi_{h_i}(x_i - X_ki)`` of every feature are
known, the density of every pair is a row-wise inner product, and all pairs at once are one
batched matrix product.  That is why this module evaluates kernels itself instead of calling
``scipy.stats.gaussian_kde`` once per pair (which refits and re-evaluates ``d (d - 1) / 2``
separate estimators and has no leave-one-out mode); the tests check it against scipy.

Leave-one-out (LOO) values at a training point subtract that point's own kernel contribution
``phi_h(0)`` (``phi_{h_i}(0) phi_{h_j}(0)`` for pairs) and divide by ``n_c - 1``.
"""

from __future__ import annotations

import numpy as np

_INV_SQRT_2PI = 1.0 / np.sqrt(2.0 * np.pi)
_CHUNK_BYTES = 64 * 2**20  # working memory per evaluation chunk


def kernel_matrix(x_eval, x_train, h):
    """Gaussian kernel values ``phi_h(x_eval[a] - x_train[b])`` for one feature.

    Parameters
    ----------
    x_eval : ndarray of shape (m,)
    x_train : ndarray of shape (n,)
    h : float
        Bandwidth (standard deviation of the kernel).

    Returns
    -------
    K : ndarray of shape (m, n)
    """
    z = (np.asarray(x_eval, float)[:, None] - np.asarray(x_train, float)[None, :]) / h
    return np.exp(-0.5 * z * z) * (_INV_SQRT_2PI / h)


def kde_pdf_1d(x_train, x_eval, h, *, loo=False):
    """Univariate Gaussian KDE evaluated at ``x_eval``.

    Parameters
    ----------
    x_train : ndarray of shape (n,)
    x_eval : ndarray of shape (m,)
        When ``loo`` is True this must be ``x_train`` itself (same order).
    h : float
    loo : bool
        Leave-one-out: each training point's own kernel is removed from its density.

    Returns
    -------
    p : ndarray of shape (m,)
    """
    x_train = np.asarray(x_train, float)
    n = x_train.size
    p = kernel_matrix(x_eval, x_train, h).mean(axis=1)
    if loo:
        p = (n * p - _INV_SQRT_2PI / h) / (n - 1)
    return p


def kde_pdf_2d(X_train, X_eval, h, *, loo=False):
    """Bivariate product-Gaussian KDE with diagonal bandwidth ``h = (h_1, h_2)``.

    Parameters
    ----------
    X_train : ndarray of shape (n, 2)
    X_eval : ndarray of shape (m, 2)
    h : array-like of shape (2,)
    loo : bool
        Leave-one-out (``X_eval`` must be ``X_train``).

    Returns
    -------
    p : ndarray of shape (m,)
    """
    X_train = np.asarray(X_train, float)
    X_eval = np.asarray(X_eval, float)
    n = X_train.shape[0]
    K = kernel_matrix(X_eval[:, 0], X_train[:, 0], h[0]) * kernel_matrix(
        X_eval[:, 1], X_train[:, 1], h[1]
    )
    p = K.mean(axis=1)
    if loo:
        p = (n * p - _INV_SQRT_2PI**2 / (h[0] * h[1])) / (n - 1)
    return p


class ClassConditionalKDE:
    """Univariate and bivariate KDEs of every feature in each class.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Training data.
    y_index : ndarray of shape (n_samples,)
        Class index (0, ..., n_classes - 1) of each row.
    h1, h2 : ndarray of shape (n_classes, n_features)
        Univariate and bivariate (per-coordinate) bandwidths of each class.
    floor1 : ndarray of shape (n_features,)
        Density floor of each univariate density (paper, Remark 1).
    floor2 : ndarray of shape (n_features, n_features)
        Density floor of each bivariate density.
    """

    def __init__(self, X, y_index, h1, h2, floor1, floor2):
        self.X = [np.ascontiguousarray(X[y_index == c]) for c in range(len(h1))]
        self.h1 = np.asarray(h1, float)
        self.h2 = np.asarray(h2, float)
        self.floor1 = np.asarray(floor1, float)
        self.floor2 = np.asarray(floor2, float)

    def _chunks(self, m, n_c, width):
        step = max(1, int(_CHUNK_BYTES // (8 * max(n_c, 1) * max(width, 1))))
        return [slice(a, min(a + step, m)) for a in range(0, m, step)]

    @staticmethod
    def _kernels(E, Xc, h):
        # (m, n_c, d) kernel values; broadcasting instead of a loop over features.
        z = (E[:, None, :] - Xc[None, :, :]) / h
        return np.exp(-0.5 * z * z) * (_INV_SQRT_2PI / h)

    def univariate(self, E, self_class=None):
        """Univariate densities of every feature in both classes.

        Parameters
        ----------
        E : ndarray of shape (m, n_features)
            Evaluation points.
        self_class : ndarray of shape (m,) or None
            For rows of ``E`` that are training points, their class index (leave-one-out is
            applied to that class's density); -1 for other rows.  None: plain evaluation.

        Returns
        -------
        p : ndarray of shape (n_classes, m, n_features)
            Densities, not floored.
        """
        E = np.asarray(E, float)
        m, d = E.shape
        out = np.empty((len(self.X), m, d))
        for c in range(len(self.X)):
            Xc, h = self.X[c], self.h1[c]
            for sl in self._chunks(m, Xc.shape[0], d):
                out[c, sl] = self._kernels(E[sl], Xc, h).mean(axis=1)
            if self_class is not None:
                self._apply_loo(out[c], self_class == c, Xc.shape[0], _INV_SQRT_2PI / h)
        return out

    def bivariate(self, E, pairs, self_class=None):
        """Bivariate densities of the given pairs in both classes.

        Parameters
        ----------
        E : ndarray of shape (m, n_features)
        pairs : ndarray of shape (n_pairs, 2)
            Feature index pairs ``(i, j)``.
        self_class : ndarray of shape (m,) or None
            As in :meth:`univariate`.

        Returns
        -------
        p : ndarray of shape (n_classes, m, n_pairs)
        """
        E = np.asarray(E, float)
        pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
        m, d = E.shape
        n_pairs = pairs.shape[0]
        out = np.empty((len(self.X), m, n_pairs))
        if n_pairs == 0:
            return out
        I, J = pairs[:, 0], pairs[:, 1]
        # All pairs: one batched matrix product K^T K per evaluation point is cheaper than
        # gathering the pair columns; few pairs: gather and multiply.
        use_gram = n_pairs >= d * (d - 1) // 4
        for c in range(len(self.X)):
            Xc, h = self.X[c], self.h2[c]
            n_c = Xc.shape[0]
            width = d if use_gram else d + n_pairs
            for sl in self._chunks(m, n_c, width):
                K = self._kernels(E[sl], Xc, h)
                if use_gram:
                    G = np.matmul(K.transpose(0, 2, 1), K) / n_c
                    out[c, sl] = G[:, I, J]
                else:
                    out[c, sl] = np.einsum("mkp,mkp->mp", K[:, :, I], K[:, :, J]) / n_c
            if self_class is not None:
                self_k = _INV_SQRT_2PI**2 / (h[I] * h[J])
                self._apply_loo(out[c], self_class == c, n_c, self_k)
        return out

    @staticmethod
    def _apply_loo(p, rows, n_c, self_k):
        if n_c < 2 or not np.any(rows):
            return
        # Rounding can leave -1e-17 where a point is alone: clip at zero.
        p[rows] = np.maximum((n_c * p[rows] - self_k) / (n_c - 1), 0.0)

    def log_univariate(self, E, self_class=None):
        """Floored log univariate densities, shape (n_classes, m, n_features)."""
        return np.log(np.maximum(self.univariate(E, self_class), self.floor1))

    def log_bivariate(self, E, pairs, self_class=None):
        """Floored log bivariate densities of ``pairs``, shape (n_classes, m, n_pairs)."""
        pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
        floor = self.floor2[pairs[:, 0], pairs[:, 1]]
        return np.log(np.maximum(self.bivariate(E, pairs, self_class), floor))
