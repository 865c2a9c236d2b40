"""Low-rank HSIC: the pivoted incomplete Cholesky factor of a one-feature Gaussian Gram
matrix, with a rigorous residual-trace stopping rule."""

from __future__ import annotations

import numpy as np


# ---------------------------------------------------------------------------------------------
# incomplete Cholesky (low-rank HSIC)
# ---------------------------------------------------------------------------------------------
def incomplete_cholesky(x, sigma2, tol, max_rank):
    """Pivoted (incomplete) Cholesky factor of the Gaussian Gram matrix of one feature.

    Parameters
    ----------
    x : ndarray of shape (n,)
    sigma2 : float
        Kernel variance: ``k(a, b) = exp(-(a - b)^2 / (2 sigma2))``.
    tol : float
        Stop once the residual trace ``tr(K - G^T G)`` is at most ``tol``.
    max_rank : int

    Returns
    -------
    G : ndarray of shape (rank, n)
        ``K ~ G^T G``; the residual ``K - G^T G`` is positive semi-definite.
    residual_trace : float

    Examples
    --------
    >>> import numpy as np
    >>> from slb.dependence.lowrank import incomplete_cholesky
    >>> x = np.random.default_rng(0).normal(size=200)
    >>> G, residual = incomplete_cholesky(x, sigma2=1.0, tol=1e-6, max_rank=50)
    >>> G.shape[0] < 50, residual <= 1e-6  # a low rank reaches the tolerance
    (True, True)
    >>> K = np.exp(-np.subtract.outer(x, x) ** 2 / 2.0)
    >>> bool(np.abs(K - G.T @ G).max() < 1e-6)
    True
    """
    x = np.asarray(x, float)
    n = x.size
    diag = np.ones(n)
    G = np.empty((int(min(max_rank, n)), n))
    err = float(n)
    r = 0
    while r < G.shape[0] and err > tol:
        j = int(np.argmax(diag))
        pivot = diag[j]
        if pivot <= 1e-15:
            break
        col = np.exp(-((x - x[j]) ** 2) / (2.0 * sigma2))
        if r:
            col -= G[:r, j] @ G[:r]
        col /= np.sqrt(pivot)
        G[r] = col
        diag -= col * col
        np.maximum(diag, 0.0, out=diag)
        err = float(diag.sum())
        r += 1
    return G[:r], err
