"""Pairwise dependence of all features at once: HSIC (with gamma p-values), Pearson, Spearman.

HSIC
----
The biased V-statistic of Gretton et al. (2005), ``HSIC(i, j) = tr(K_i H K_j H) / n^2`` with
Gaussian kernels ``k(a, b) = exp(-(a - b)^2 / (2 sigma^2))`` and the median heuristic
``sigma^2 = median(|a_k - a_l|^2) / 2`` over distinct pairs with a non-zero distance (the
default of the R package dHSIC used by the SLB paper).  Because ``H`` is idempotent,
``tr(K_i H K_j H) = <H K_i H, H K_j H>_F``: with the centred Gram matrices flattened into the
rows of a ``d x n^2`` matrix ``F``, the whole ``d x d`` HSIC matrix is ``F F^T / n^2``, one
matrix product.  Blocks of features bound the memory (``memory_budget``).

Gamma p-values follow Gretton et al. (2008) (``hsicTestGamma``): the null distribution of
``n * HSIC`` is approximated by a gamma law matching its mean and variance.  The variance needs
``sum_{a != b} (Kc_i[a, b] Kc_j[a, b])^2`` for every pair, which is again a matrix product, of
the element-wise squared centred Gram matrices.

Pearson and Spearman
--------------------
``|r|`` of Pearson's correlation or of Spearman's rank correlation, with the usual
t-distribution p-values (``scipy.stats.pearsonr``'s and ``spearmanr``'s asymptotic form).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

DEPENDENCE_MEASURES = ("hsic", "pearson", "spearman")

_MEDIAN_MAX_POINTS = 1000  # dHSIC also subsamples large inputs for the median heuristic


@dataclass(frozen=True)
class DependenceResult:
    """All-pairs dependence of one sample.

    Attributes
    ----------
    statistic : ndarray of shape (n_features, n_features)
        Symmetric; the diagonal is NaN (a feature's dependence on itself is not screened).
    pvalue : ndarray of shape (n_features, n_features)
        Symmetric p-values of the independence test; NaN diagonal.
    measure : str
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    measure: str


def median_heuristic_sigma2(x):
    """Median-heuristic kernel variance ``sigma^2 = median(|a_k - a_l|^2) / 2``.

    Parameters
    ----------
    x : ndarray of shape (n,)

    Returns
    -------
    sigma2 : float
        Computed over distinct pairs with a non-zero distance; 1.0 for a constant sample.
    """
    x = np.asarray(x, float)
    if x.size > _MEDIAN_MAX_POINTS:
        x = x[np.linspace(0, x.size - 1, _MEDIAN_MAX_POINTS).round().astype(int)]
    iu = np.triu_indices(x.size, k=1)
    d2 = (x[:, None] - x[None, :])[iu] ** 2
    d2 = d2[d2 > 0]
    if d2.size == 0:
        return 1.0
    return float(np.median(d2)) / 2.0


def gaussian_gram(x, sigma2=None):
    """Gaussian Gram matrix ``exp(-(x_a - x_b)^2 / (2 sigma^2))`` of one feature."""
    x = np.asarray(x, float)
    if sigma2 is None:
        sigma2 = median_heuristic_sigma2(x)
    return np.exp(-((x[:, None] - x[None, :]) ** 2) / (2.0 * sigma2))


def _centred_block(X, cols):
    """Centred Gram matrices of ``cols``: (len(cols), n, n), plus row sums of the raw Grams."""
    n = X.shape[0]
    out = np.empty((len(cols), n, n))
    kmean = np.empty(len(cols))
    for b, i in enumerate(cols):
        K = gaussian_gram(X[:, i])
        kmean[b] = (K.sum() - n) / (n * (n - 1))  # mean off-diagonal kernel value
        rm = K.mean(axis=0)
        out[b] = K - rm[None, :] - rm[:, None] + rm.mean()
    return out, kmean


def hsic_all_pairs(X, *, pvalues=True, memory_budget=2**30):
    """All-pairs biased HSIC of the columns of ``X``, with gamma-approximation p-values.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    pvalues : bool
        Also compute the gamma-approximation p-values (NaN when n < 6).
    memory_budget : int
        Bytes allowed for the centred Gram matrices held at once; the features are processed
        in blocks that fit.

    Returns
    -------
    result : DependenceResult
    """
    X = np.asarray(X, float)
    n, d = X.shape
    per_feature = n * n * 8 * (2 if pvalues else 1)
    block = int(max(1, min(d, memory_budget // (2 * per_feature))))
    blocks = [list(range(a, min(a + block, d))) for a in range(0, d, block)]
    S = np.empty((d, d))
    Q = np.empty((d, d)) if pvalues else None
    kmean = np.empty(d)
    diag = np.empty((d, n)) if pvalues else None

    def block_data(cols):
        C, km = _centred_block(X, cols)
        F = C.reshape(len(cols), n * n)
        return F, (F * F if pvalues else None), km, np.einsum("bii->bi", C)

    # Off-diagonal blocks recompute the second block's Gram matrices: O(block * n^2) extra
    # work against the O(block^2 * n^2) product, and memory stays within the budget.
    for bi, I in enumerate(blocks):
        Fi, Fi2, kmean[I], dg = block_data(I)
        S[np.ix_(I, I)] = Fi @ Fi.T
        if pvalues:
            diag[I] = dg
            Q[np.ix_(I, I)] = Fi2 @ Fi2.T
        for J in blocks[bi + 1 :]:
            Fj, Fj2, _, _ = block_data(J)
            S[np.ix_(I, J)] = Fi @ Fj.T
            S[np.ix_(J, I)] = S[np.ix_(I, J)].T
            if pvalues:
                Q[np.ix_(I, J)] = Fi2 @ Fj2.T
                Q[np.ix_(J, I)] = Q[np.ix_(I, J)].T
    hsic = S / n**2
    pval = np.full((d, d), np.nan)
    if pvalues and n >= 6:  # the gamma moments need n >= 6; smaller samples get NaN
        pval = _gamma_pvalues(hsic, Q, diag, kmean, n)
    np.fill_diagonal(hsic, np.nan)
    np.fill_diagonal(pval, np.nan)
    return DependenceResult(hsic, pval, "hsic")


def _gamma_pvalues(hsic, Q, diag, kmean, n):
    """Gamma approximation of the HSIC null (Gretton et al. 2008, hsicTestGamma)."""
    D2 = diag**2
    off = (Q - D2 @ D2.T) / 36.0 / (n * (n - 1))
    var = off * 72.0 * (n - 4) * (n - 5) / (n * (n - 1) * (n - 2) * (n - 3))
    mean = (1.0 + np.outer(kmean, kmean) - kmean[:, None] - kmean[None, :]) / n
    stat = n * hsic
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = mean**2 / var
        beta = var * n / mean
        p = stats.gamma.sf(stat, alpha, scale=beta)
    # Degenerate (constant feature): no evidence of dependence.
    p = np.where((var > 0) & (mean > 0) & np.isfinite(p), p, 1.0)
    return p


def correlation_all_pairs(X, method="pearson"):
    """All-pairs ``|r|`` (Pearson or Spearman) with two-sided t-distribution p-values.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    method : {"pearson", "spearman"}

    Returns
    -------
    result : DependenceResult
    """
    X = np.asarray(X, float)
    n, d = X.shape
    if method == "spearman":
        X = stats.rankdata(X, axis=0)
    Xc = X - X.mean(axis=0)
    norms = np.sqrt((Xc**2).sum(axis=0))
    ok = norms > 0
    Z = np.zeros_like(Xc)
    Z[:, ok] = Xc[:, ok] / norms[ok]
    r = np.clip(Z.T @ Z, -1.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = r * np.sqrt((n - 2) / (1.0 - r**2))
    p = 2 * stats.t.sf(np.abs(t), df=max(n - 2, 1))
    p = np.where(np.isnan(p), 0.0, p)
    dead = ~(ok[:, None] & ok[None, :])
    r[dead] = 0.0
    p[dead] = 1.0
    stat = np.abs(r)
    np.fill_diagonal(stat, np.nan)
    np.fill_diagonal(p, np.nan)
    return DependenceResult(stat, p, method)


def dependence_matrix(X, measure="hsic", *, pvalues=True, memory_budget=2**30):
    """All-pairs dependence by the named measure.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    measure : {"hsic", "pearson", "spearman"}
    pvalues : bool
        HSIC only: compute gamma p-values (doubles the cost).
    memory_budget : int
        HSIC only: bytes for centred Gram matrices held at once.

    Returns
    -------
    result : DependenceResult
    """
    if measure == "hsic":
        return hsic_all_pairs(X, pvalues=pvalues, memory_budget=memory_budget)
    if measure in ("pearson", "spearman"):
        return correlation_all_pairs(X, measure)
    raise ValueError(
        f"Unknown dependence measure {measure!r}; use one of {', '.join(DEPENDENCE_MEASURES)}."
    )


def benjamini_hochberg(pvalues, alpha=0.05):
    """Benjamini-Hochberg rejections at false discovery rate ``alpha``.

    Parameters
    ----------
    pvalues : ndarray of shape (m,)
    alpha : float

    Returns
    -------
    reject : ndarray of bool, shape (m,)
    """
    p = np.asarray(pvalues, float)
    if p.size == 0:
        return np.zeros(0, dtype=bool)
    return stats.false_discovery_control(p, method="bh") <= alpha
