"""Bandwidth rules for the univariate and bivariate Gaussian kernel density estimates.

Every density in SLB is a Gaussian KDE with a *diagonal* bandwidth: a univariate density of
feature ``i`` uses the bandwidth ``h1[i]``, a bivariate density of the pair ``(i, j)`` uses the
product kernel with bandwidths ``(h2[i], h2[j])``.  A bandwidth is::

    h = rule(x, dim) * multiplier

where ``rule`` is one of

``"scott"``
    ``sigma * n ** (-1 / (dim + 4))`` (Scott 1992), ``sigma`` the sample standard deviation.
``"silverman"``
    Silverman's robust rule of thumb, ``0.9 * min(sigma, IQR / 1.349) * n ** (-1/5)`` in one
    dimension and ``min(sigma, IQR / 1.349) * n ** (-1/6)`` in two (the normal-reference factor
    ``(4 / (dim + 2)) ** (1 / (dim + 4))`` equals 1 for ``dim = 2``).
``"lcv"``
    Likelihood cross-validation (data adaptive): the univariate bandwidth maximising the
    leave-one-out log-likelihood, searched on ``[0.1, 4] x`` Silverman's bandwidth.  For pairs it
    is rescaled by the ratio of the two-dimensional and one-dimensional rates,
    ``n ** (1/5 - 1/6)``.  It adapts to multimodal and skewed features, where the rules of thumb
    oversmooth.

Tied or discrete features can have zero spread within a class; the scale then falls back to the
pooled scale of the feature over all classes, and every bandwidth is floored at
``min_bandwidth`` times that pooled scale.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import logsumexp

BANDWIDTH_RULES = ("scott", "silverman", "lcv")

_LCV_MAX_POINTS = 1000  # LCV is O(n^2) per evaluation: subsample above this size (rescaled).


def robust_scale(x):
    """Return ``min(std, IQR / 1.349)`` of a 1-d sample, ignoring whichever is zero.

    Parameters
    ----------
    x : ndarray of shape (n,)

    Returns
    -------
    scale : float
        Zero only when the sample is constant.
    """
    x = np.asarray(x, dtype=float)
    if x.size < 2:
        return 0.0
    sd = float(np.std(x, ddof=1))
    q75, q25 = np.percentile(x, [75, 25])
    iqr = float(q75 - q25) / 1.349
    positive = [s for s in (sd, iqr) if s > 0]
    return min(positive) if positive else 0.0


def _lcv_bandwidth(x, h0):
    """Univariate bandwidth maximising the leave-one-out log-likelihood around ``h0``."""
    n_full = x.size
    if n_full > _LCV_MAX_POINTS:
        idx = np.linspace(0, n_full - 1, _LCV_MAX_POINTS).round().astype(int)
        x = np.sort(x)[idx]
    n = x.size
    d2 = (x[:, None] - x[None, :]) ** 2
    off = ~np.eye(n, dtype=bool)
    d2 = d2[off].reshape(n, n - 1)

    def neg_loo_loglik(log_h):
        h = np.exp(log_h)
        logk = -0.5 * d2 / h**2 - np.log(h) - 0.5 * np.log(2 * np.pi)
        return -np.sum(logsumexp(logk, axis=1) - np.log(n - 1))

    res = minimize_scalar(
        neg_loo_loglik,
        bounds=(np.log(0.1 * h0), np.log(4.0 * h0)),
        method="bounded",
        options={"xatol": 1e-3},
    )
    h = float(np.exp(res.x))
    # Rescale from the subsample size to the full sample size at the optimal 1-d rate.
    return h * (n / n_full) ** 0.2


def rule_bandwidth(x, rule="scott", dim=1, fallback_scale=1.0):
    """Bandwidth of one feature in one class by a named rule (before multiplier and floor).

    Parameters
    ----------
    x : ndarray of shape (n,)
        The feature's values in one class.
    rule : {"scott", "silverman", "lcv"}
    dim : {1, 2}
        Dimension of the density the bandwidth is used in (1: univariate, 2: pair).
    fallback_scale : float
        Scale used when ``x`` has zero spread (tied or discrete feature within the class).

    Returns
    -------
    h : float
    """
    if rule not in BANDWIDTH_RULES:
        raise ValueError(
            f"Unknown bandwidth rule {rule!r}; use one of {', '.join(BANDWIDTH_RULES)}."
        )
    if dim not in (1, 2):
        raise ValueError(f"dim must be 1 or 2, got {dim!r}.")
    x = np.asarray(x, dtype=float)
    n = max(x.size, 2)
    sd = float(np.std(x, ddof=1)) if x.size > 1 else 0.0
    rscale = robust_scale(x)
    if rule == "scott":
        scale = sd if sd > 0 else fallback_scale
        return scale * n ** (-1.0 / (dim + 4))
    scale = rscale if rscale > 0 else fallback_scale
    silverman = (0.9 if dim == 1 else 1.0) * scale * n ** (-1.0 / (dim + 4))
    if rule == "silverman" or rscale == 0:
        return silverman
    h1 = _lcv_bandwidth(x, 0.9 * scale * n ** (-0.2))
    return h1 if dim == 1 else h1 * n ** (0.2 - 1.0 / 6.0)


def class_bandwidths(
    X,
    y_index,
    *,
    rule="scott",
    multiplier=1.0,
    overrides=None,
    min_bandwidth=1e-3,
    dim=1,
):
    """Bandwidths of every feature in every class.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y_index : ndarray of shape (n_samples,)
        Class index of each row, in ``{0, ..., n_classes - 1}``.
    rule : {"scott", "silverman", "lcv"}
    multiplier : float
        Global multiplier applied to every rule bandwidth.
    overrides : ndarray of shape (n_features,) or None
        Per-feature multipliers replacing ``multiplier``; NaN entries keep the global one.
    min_bandwidth : float
        Floor, as a fraction of the feature's pooled robust scale.
    dim : {1, 2}
        Univariate or bivariate (pair) bandwidths.

    Returns
    -------
    h : ndarray of shape (n_classes, n_features)
    """
    X = np.asarray(X, dtype=float)
    n_features = X.shape[1]
    mult = np.full(n_features, float(multiplier))
    if overrides is not None:
        ov = np.asarray(overrides, dtype=float)
        mult = np.where(np.isnan(ov), mult, ov)
    pooled = np.array([robust_scale(X[:, i]) for i in range(n_features)])
    pooled = np.where(pooled > 0, pooled, 1.0)
    n_classes = int(np.max(y_index)) + 1
    h = np.empty((n_classes, n_features))
    for c in range(n_classes):
        Xc = X[y_index == c]
        for i in range(n_features):
            h[c, i] = rule_bandwidth(Xc[:, i], rule, dim, fallback_scale=pooled[i])
    h *= mult
    return np.maximum(h, min_bandwidth * pooled)
