"""Bandwidth rules for the univariate and bivariate Gaussian kernel density estimates.

Every density in SLB is a Gaussian KDE with a *diagonal* bandwidth: a univariate density of
feature ``i`` uses the bandwidth ``h1[i]``, a bivariate density of the pair ``(i, j)`` uses the
product kernel with bandwidths ``(h2[i], h2[j])``.  A bandwidth is::

    h = rule(x, dim) * multiplier

where ``rule`` is one of

``"scott"``
    ``sigma * n ** (-1 / (dim + 4))``, ``sigma`` the sample standard deviation (``ddof=1``).
    This is scipy's ``gaussian_kde`` "scott" factor times ``sigma``; there is *no* normal-
    reference constant such as the 1.06 of the textbook one-dimensional rule.
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
``"plugin"``
    The plug-in selectors of R's ``ks`` package, which the SLB paper used for its densities.

    *Univariate* (``dim=1``): ``ks::hpi(x)`` (two-stage Sheather--Jones plug-in).  For
    ``deriv.order = 0`` ``ks::hpi`` calls ``KernSmooth::dpik(x, level = 2, gridsize = 401)``,
    which *always* estimates the density functionals from linearly binned counts on 401 grid
    points (``hpi``'s ``binned`` argument is ignored), scaled by ``min(sd, IQR / 1.349)``.  It is
    reproduced here step by step, including the R/Fortran arithmetic that decides whether the
    largest observation lands on the grid (KernSmooth drops it when it falls exactly on the
    last grid point); it matches ``ks`` 1.14.0 / KernSmooth 2.23 to ~1e-14 and is O(n) for any
    ``n``.

    *Bivariate* (``dim=2``): ``ks::Hpi.diag`` (two-stage, "samse" pilot, data pre-scaled) gives
    for the pair ``(x_i, x_j)`` a diagonal matrix ``H``; its per-coordinate bandwidths are
    ``sqrt(H[k, k])`` (:func:`hpi_diag` reproduces it, unbinned, including the way ks 1.14.0
    looks up the order-6 pilot functionals, see ``_gsamse``; ``ks::kde``'s own default in two
    dimensions is the unconstrained ``Hpi``, which product kernels cannot use).  That entry
    depends on the partner ``j`` (through the mixed functional ``psi_22`` and the pilot), so it
    cannot be stored as one ``h2[c, i]``.  ``class_bandwidths`` therefore evaluates the same two-dimensional
    ``Hpi.diag`` formula *marginally*: on the pair of feature ``i`` with an independent copy of
    itself, i.e. with every bivariate functional replaced by the product of univariate ones,
    ``psi_(a,b) = psi_a psi_b`` (exact for the sample of all ``n^2`` pairs ``(x_k, x_l)``), the
    scaled covariance the identity and the sample size ``n``.  The result has the 2-d rate
    ``n^(-1/6)`` and estimates what :func:`hpi_diag` gives for two independent features with
    the same distribution.  The functionals are exact O(n^2) sums up to 500 points and are estimated
    from linearly binned counts (401 points, as ``ks`` bins) above.  Like ``Hpi.diag``, which
    pre-scales by the standard deviations, the pair rule scales by ``sd``: an outlier inflates
    it, where the univariate rule's ``min(sd, IQR / 1.349)`` resists.

Tied or discrete features can have zero spread within a class; the scale then falls back to the
pooled scale of the feature over all classes, and every bandwidth is floored at
``min_bandwidth`` times that pooled scale.  On a feature whose values lie on a lattice
(:func:`lattice_spacing`: integers, counts, scores, codes) the estimators also floor every
bandwidth at ``lattice_floor`` lattice steps (1 by default, ``docs/defaults.md``, Protocol 4),
so a class with nearly all values equal gets no spike at them; the plug-in bandwidths are then
``ks``'s only where that floor does not bind.  The plug-in rules fall back to Silverman's rule where
``ks`` would stop (zero ``min(sd, IQR / 1.349)``), for pairs of fewer than 3 points, and where an
estimated functional has the wrong sign.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.signal import fftconvolve
from scipy.special import logsumexp

BANDWIDTH_RULES = ("scott", "silverman", "lcv", "plugin")

_LCV_MAX_POINTS = 1000  # LCV is O(n^2) per evaluation: subsample above this size (rescaled).
_KFE_EXACT_POINTS = 500  # exact O(n^2) functionals up to here, binned above (ks: 2-d bins > 500)
_GRIDSIZE = 401  # KernSmooth::dpik's and ks's univariate binning grid
_CHUNK = 2**20  # elements per block of pairwise differences
_MAX_LATTICE_STEPS = 1e9  # lattice_spacing: more steps across a column's range is no lattice


def robust_scale(x):
    """Return ``min(std, IQR / 1.349)`` of a 1-d sample, ignoring whichever is zero.

    Parameters
    ----------
    x : ndarray of shape (n,)

    Returns
    -------
    scale : float
        Zero only when the sample is constant.

    Examples
    --------
    >>> from slb.density.bandwidth import robust_scale
    >>> round(robust_scale([1.0, 2.0, 3.0, 4.0, 100.0]), 4)  # the IQR ignores the outlier
    1.4826
    >>> robust_scale([2.0, 2.0, 2.0])
    0.0
    """
    x = np.asarray(x, dtype=float)
    if x.size < 2:
        return 0.0
    sd = float(np.std(x, ddof=1))
    q75, q25 = np.percentile(x, [75, 25])
    iqr = float(q75 - q25) / 1.349
    positive = [s for s in (sd, iqr) if s > 0]
    return min(positive) if positive else 0.0


def column_scales(X):
    """Standard deviation and :func:`robust_scale` of every column at once.

    Bit for bit the values of the one-dimensional calls: the columns are made contiguous rows
    so numpy reduces each with the same (pairwise) summation as a 1-d array.

    Parameters
    ----------
    X : ndarray of shape (n, p)

    Returns
    -------
    sd : ndarray of shape (p,)
        Sample standard deviations (``ddof=1``); 0 when ``n < 2``.
    rscale : ndarray of shape (p,)
        ``min(sd, IQR / 1.349)`` ignoring whichever is zero; 0 for constant columns.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.density.bandwidth import column_scales, robust_scale
    >>> X = np.random.default_rng(0).normal(size=(200, 2)) * [1.0, 3.0]
    >>> sd, rscale = column_scales(X)
    >>> sd.round(2).tolist(), rscale.round(2).tolist()
    ([0.98, 3.03], [0.98, 2.94])
    >>> bool(rscale[1] == robust_scale(X[:, 1]))  # the same as the 1-d call
    True
    """
    Xt = np.ascontiguousarray(np.asarray(X, dtype=float).T)
    p, n = Xt.shape
    if n < 2:
        return np.zeros(p), np.zeros(p)
    sd = np.std(Xt, axis=1, ddof=1)
    q75, q25 = np.percentile(Xt, [75, 25], axis=1)
    iqr = (q75 - q25) / 1.349
    rscale = np.where(
        (sd > 0) & (iqr > 0), np.minimum(sd, iqr), np.where(sd > 0, sd, np.where(iqr > 0, iqr, 0.0))
    )
    return sd, rscale


def lattice_spacing(X):
    """The lattice step of every column: the common step of its distinct values, if any.

    A column whose distinct values are all integer multiples of the smallest gap between them
    (integers, counts, scores, one-hot codes, values recorded to a fixed number of decimals)
    lies on a lattice of that step.  A kernel density of such a column resolves its
    discretisation when a bandwidth is below the step: a class whose values are nearly all
    equal gets a spike there and a density at the floor one step away, which makes the
    log-density ratios of naive Bayes, TAN and SLB overconfident.  ``lattice_floor`` in
    :func:`class_bandwidths` floors the bandwidths at a multiple of this step.

    Parameters
    ----------
    X : ndarray of shape (n, p)

    Returns
    -------
    step : ndarray of shape (p,)
        The lattice step of each column; NaN for a column with fewer than two distinct finite
        values or whose gaps are not multiples of one step (continuous values).

    Examples
    --------
    >>> import numpy as np
    >>> from slb.density.bandwidth import lattice_spacing
    >>> X = np.column_stack([[0, 2, 2, 6], [0.1, 0.3, 0.3, 0.4], [0.0, 0.3, 1.7, 2.9]])
    >>> lattice_spacing(X).round(3).tolist()  # steps 2 and 0.1; the third is not on one
    [2.0, 0.1, nan]
    """
    X = np.asarray(X, dtype=float)
    p = X.shape[1]
    out = np.full(p, np.nan)
    if X.shape[0] < 2 or p == 0:
        return out
    # All columns at once (one sort; a loop of np.unique per column cost 2.8 ms per call on a
    # Sonar fold, 11% of its per-fold densities): the positive differences of a sorted column
    # are exactly the gaps of its distinct values (NaN, for the non-finite values, sorts last
    # and compares false).
    S = np.sort(np.where(np.isfinite(X), X, np.nan), axis=0)
    # a "lattice" of more than a billion steps across the range is no lattice a bandwidth
    # could resolve (its floor would be nothing), and its ratios could overflow (a step of
    # 1e-303 beside a gap of 5e5: found by tests/test_fuzz_pipeline.py; gaps of values near
    # the float limits overflow too)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        gaps = np.diff(S, axis=0)
        is_gap = gaps > 0
        step = np.where(is_gap, gaps, np.inf).min(axis=0)
        k = np.where(is_gap, gaps / step, 0.0)
        # multiples of the step up to rounding of the recorded values (decimals are inexact
        # in binary: 0.3 - 0.1 is not 0.2, an error of a few ulps of the values); a continuous
        # column fails on almost every gap.  Where the values' rounding is not small against
        # the step (a large offset beside a tiny gap) the test cannot tell: no lattice.
        ulps = 8 * np.finfo(float).eps * np.where(np.isnan(S), 0.0, np.abs(S)).max(axis=0)
        near = np.abs(gaps - np.round(k) * step) <= np.maximum(1e-6 * step, ulps)
        ok = (
            is_gap.any(axis=0)
            & (k.sum(axis=0) <= _MAX_LATTICE_STEPS)  # false for an infinite or NaN ratio too
            & ~(ulps > 1e-3 * step)
            & (near | ~is_gap).all(axis=0)
        )
    out[ok] = step[ok]
    return out


# ---------------------------------------------------------------------------------------------
# likelihood cross-validation
# ---------------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------------
# plug-in: R's arithmetic where KernSmooth's binning decisions depend on the last bit
# ---------------------------------------------------------------------------------------------
# Hand-written because no Python library implements KernSmooth::dpik / ks::Hpi.diag; matching
# them to 1e-6 needs R's exact summation (long double, sequential) for the mean and variance.
def _r_mean(x):
    """R's ``mean(x)``: long-double sum, then one refinement pass (src/main/summary.c)."""
    xl = x.astype(np.longdouble)
    s = np.cumsum(xl)[-1] / x.size
    t = np.cumsum(xl - s)[-1]
    return float(s + t / x.size)


def _r_sd(x):
    """R's ``sqrt(var(x))``: double deviations from R's mean, long-double sum of squares."""
    d = x - _r_mean(x)
    return float(np.sqrt(float(np.cumsum((d * d).astype(np.longdouble))[-1] / (x.size - 1))))


def _r_quantile7(xs, p):
    """R's ``quantile(x, p)`` (type 7) of the sorted sample ``xs``."""
    index = 1 + (xs.size - 1) * p
    lo, hi = int(np.floor(index)), int(np.ceil(index))
    q = xs[lo - 1]
    if index > lo and xs[hi - 1] != q:
        h = index - lo
        q = (1 - h) * q + h * xs[hi - 1]
    return float(q)


def _linbin(x, a, b, m, truncate=True):
    """KernSmooth's Fortran ``linbin``: linear binning on ``m`` points from ``a`` to ``b``.

    With ``truncate`` a point whose grid position is ``>= m`` (the maximum, when the division
    lands exactly on the last point) is dropped, as in KernSmooth; otherwise it is kept.
    Whether the division lands there depends on rounding, so the plug-in bandwidth of a
    feature can change slightly with its units (H53: 2.9 % for one class after x 1000; never
    for a power of two).  Kept as KernSmooth does it, so that ``hpi`` equals R's to rounding.
    """
    delta = (b - a) / (m - 1)
    lxi = ((x - a) / delta) + 1.0
    li = np.trunc(lxi).astype(np.int64)
    rem = lxi - li
    inside = (li >= 1) & (li < m)
    counts = np.bincount(li[inside] - 1, weights=1.0 - rem[inside], minlength=m)
    counts += np.bincount(li[inside], weights=rem[inside], minlength=m + 1)[:m]
    if not truncate:
        counts[0] += np.count_nonzero(li < 1)
        counts[-1] += np.count_nonzero(li >= m)
    return counts


def _gauss_derivs(u, orders):
    """``{r: phi^(r)(u)}`` of the standard normal density, by one Hermite recursion."""
    top = max(orders)
    phi = np.exp(-0.5 * u * u) / np.sqrt(2 * np.pi)
    out = {}
    h0, h1 = np.ones_like(u), u
    for i in range(top + 1):
        if i >= 2:
            h0, h1 = h1, u * h1 - (i - 1) * h0
        if i in orders:
            he = h0 if i == 0 else h1
            out[i] = he * phi if i % 2 == 0 else -he * phi
    return out


def _gauss_deriv(u, r):
    """``phi^(r)(u)`` of the standard normal density."""
    return _gauss_derivs(u, (r,))[r]


def _binned_functional(counts, delta, drv, h, truncate_at=None):
    """``sum_jk c_j c_k phi_h^(drv)((j - k) delta) / (sum c)^2`` (KernSmooth's ``bkfe``).

    ``truncate_at`` is the largest lag used (``bkfe``: ``min(floor((4 + drv) h / delta), M)``);
    ``None`` uses every lag.
    """
    m = counts.size
    L = m - 1 if truncate_at is None else truncate_at
    kappa = _gauss_deriv(np.arange(L + 1) * delta / h, drv) / h ** (drv + 1)
    kernel = np.concatenate([kappa[:0:-1], kappa])
    smooth = fftconvolve(counts, kernel)[L : L + m]
    n = counts.sum()
    return float(np.dot(counts, smooth) / n**2)


def _dpik(x):
    """``KernSmooth::dpik(x, level = 2, gridsize = 401)``, i.e. ``ks::hpi(x)``; NaN where R fails.

    Parameters
    ----------
    x : ndarray of shape (n,)

    Returns
    -------
    h : float
        NaN when ``min(sd, IQR / 1.349)`` is zero or a functional has the wrong sign.
    """
    n, m = x.size, _GRIDSIZE
    xs = np.sort(x)
    iqr = (_r_quantile7(xs, 0.75) - _r_quantile7(xs, 0.25)) / 1.349
    scalest = min(iqr, _r_sd(x))
    if not scalest > 0:
        return np.nan
    mu = _r_mean(x)
    sx = (x - mu) / scalest
    sa, sb = (xs[0] - mu) / scalest, (xs[-1] - mu) / scalest
    counts = _linbin(sx, sa, sb, m)
    delta = (sb - sa) / (m - 1)

    def bkfe(drv, h):
        return _binned_functional(counts, delta, drv, h, min(int((4 + drv) * h / delta), m))

    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = (2 * np.sqrt(2) ** 9 / (7 * n)) ** (1 / 9)
        psi6 = bkfe(6, alpha)
        alpha = (-3 * np.sqrt(2 / np.pi) / (psi6 * n)) ** (1 / 7)
        if not (np.isfinite(alpha) and alpha > 0):
            return np.nan
        psi4 = bkfe(4, alpha)
        del0 = 1 / (4 * np.pi) ** (1 / 10)
        return float(scalest * del0 * (1 / (psi4 * n)) ** (1 / 5))


def _kfe_1d(z, g, orders):
    """Univariate density functionals ``psi_r = n^-2 sum_kl phi_g^(r)(z_k - z_l)`` for ``orders``.

    Exact O(n^2) sums (in blocks) up to ``_KFE_EXACT_POINTS`` points; linearly binned counts on
    401 points over the data range above.
    """
    n = z.size
    if n > _KFE_EXACT_POINTS:
        a, b = float(z.min()), float(z.max())
        counts = _linbin(z, a, b, _GRIDSIZE, truncate=False)
        delta = (b - a) / (_GRIDSIZE - 1)
        return {r: _binned_functional(counts, delta, r, g) for r in orders}
    out = dict.fromkeys(orders, 0.0)
    step = max(1, _CHUNK // n)
    for s in range(0, n, step):
        derivs = _gauss_derivs((z[s : s + step, None] - z[None, :]) / g, orders)
        for r in orders:
            out[r] += float(derivs[r].sum()) / g ** (r + 1)
    return {r: v / n**2 for r, v in out.items()}


def _pair_functionals(Z, g, orders):
    """Bivariate functionals ``psi_(a,b) = n^-2 sum_kl phi_g^(a)(dz1) phi_g^(b)(dz2)`` (exact)."""
    n = Z.shape[0]
    out = dict.fromkeys(orders, 0.0)
    step = max(1, _CHUNK // n)
    for s in range(0, n, step):
        d1 = _gauss_derivs((Z[s : s + step, 0, None] - Z[None, :, 0]) / g, {a for a, _ in orders})
        d2 = _gauss_derivs((Z[s : s + step, 1, None] - Z[None, :, 1]) / g, {b for _, b in orders})
        for a, b in orders:
            out[(a, b)] += float(np.vdot(d1[a], d2[b])) / g ** (a + b + 2)
    return {k: v / n**2 for k, v in out.items()}


def _normal_deriv_at_zero(alpha, sigma):
    """``d^alpha phi_Sigma(0)`` of the bivariate normal density (multivariate Hermite recursion)."""
    A = np.linalg.inv(sigma)
    memo = {(0, 0): 1.0}

    def H(a):  # H_{a + e_j}(0) = -sum_k A_jk a_k H_{a - e_k}(0)
        if a in memo:
            return memo[a]
        j = 0 if a[0] > 0 else 1
        prev = (a[0] - (j == 0), a[1] - (j == 1))
        val = 0.0
        for k in (0, 1):
            if prev[k] > 0:
                val -= A[j, k] * prev[k] * H((prev[0] - (k == 0), prev[1] - (k == 1)))
        memo[a] = val
        return val

    phi0 = 1 / (2 * np.pi * np.sqrt(np.linalg.det(sigma)))
    return (-1) ** sum(alpha) * H(tuple(alpha)) * phi0


def _even_indices(order):
    return [(order - k, k) for k in range(0, order + 1, 2)]


def _gsamse(s_star, n, modr, psi_hat=None):
    """``ks:::gsamse``: the SAMSE pilot bandwidth for the order-``modr`` functionals (d = 2).

    With ``psi_hat`` (the second stage, ``modr = 4``) the order-6 functionals are looked up the
    way ks 1.14.0 does it: the position of the index among the 7 *unique* order-6 indices is
    used as a position in the full 64-vector of derivatives (ordered with the first index
    fastest), so ``(4, 2)`` reads ``psi_(5,1)``, ``(2, 4)`` reads ``psi_(5,1)`` and ``(0, 6)``
    reads ``psi_(4,2)``.  Reproduced deliberately: this is the selector ks computes.
    """
    K = np.array([_normal_deriv_at_zero(a, np.eye(2)) for a in _even_indices(modr)])
    psi = []
    for a in _even_indices(modr):
        total = 0.0
        for j in (0, 1):
            b = (a[0] + 2 * (j == 0), a[1] + 2 * (j == 1))
            if psi_hat is None:
                total += _normal_deriv_at_zero(b, 2 * s_star)
            else:
                ones = bin(b[1]).count("1")  # position b[1] of the full vector
                total += psi_hat[(6 - ones, ones)]
        psi.append(total)
    psi = np.array(psi)
    B1 = (2 * modr + 4) * np.sum(K**2)
    B2 = modr * np.sum(K * psi)
    B3 = np.sum(psi**2)
    gamma1 = (-B2 + np.sqrt(B2**2 + 4 * B1 * B3)) / (2 * B1)
    return float((gamma1 * n) ** (-1 / (modr + 4)))


_ORDER6 = ((6, 0), (5, 1), (4, 2))
_ORDER4 = ((4, 0), (2, 2), (0, 4))


def _hpi_diag_scaled(functionals, s_star, n):
    """Per-coordinate ``Hpi.diag`` bandwidths of pre-scaled data (before multiplying by sd).

    ``functionals(g, orders)`` returns the bivariate density functionals at pilot ``g``.
    """
    g6 = _gsamse(s_star, n, 6)
    g4 = _gsamse(s_star, n, 4, functionals(g6, _ORDER6))
    psi = functionals(g4, _ORDER4)
    p40, p22, p04 = psi[(4, 0)], psi[(2, 2)], psi[(0, 4)]
    rk = 1 / (4 * np.pi)
    with np.errstate(invalid="ignore", divide="ignore"):
        h1 = (p04**0.75 * rk / (p40**0.75 * (np.sqrt(p40 * p04) + p22) * n)) ** (1 / 6)
        h2 = (p40 / p04) ** 0.25 * h1
    return float(h1), float(h2)


def hpi_diag(X):
    """Per-coordinate bandwidths of ``ks::Hpi.diag(X, binned = FALSE)`` for a pair of features.

    Two-stage diagonal plug-in with the "samse" pilot on the data scaled to unit variances
    (ks's defaults for two dimensions), functionals as exact O(n^2) sums.  ``ks`` itself bins
    pairs of more than 500 points by default; this function never bins.

    Parameters
    ----------
    X : array-like of shape (n, 2)

    Returns
    -------
    h : ndarray of shape (2,)
        ``sqrt(diag(H))``; NaN where a functional has the wrong sign.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.density.bandwidth import hpi_diag
    >>> X = np.random.default_rng(0).normal(size=(200, 2)) * [1.0, 3.0]
    >>> hpi_diag(X).round(2).tolist()  # proportional to each column's spread
    [0.42, 1.27]
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2 or X.shape[0] < 3:
        raise ValueError(f"hpi_diag needs an (n, 2) array with n >= 3, got shape {X.shape}.")
    sd = np.std(X, axis=0, ddof=1)
    if not np.all(sd > 0):
        raise ValueError("hpi_diag needs two non-constant columns.")
    Z = X / sd
    h = _hpi_diag_scaled(
        lambda g, orders: _pair_functionals(Z, g, orders), np.cov(Z, rowvar=False), X.shape[0]
    )
    return sd * np.array(h)


def _marginal_functionals(z):
    """Bivariate functionals of the independent pair ``(z, z')``: products of univariate ones."""

    def functionals(g, orders):
        psi = _kfe_1d(z, g, sorted({r for o in orders for r in o if r % 2 == 0}))
        # Odd univariate functionals vanish (phi^(odd) is odd): so do mixed odd ones.
        return {(a, b): psi.get(a, 0.0) * psi.get(b, 0.0) for a, b in orders}

    return functionals


def _plugin_bandwidth(x, dim, sd):
    """The plug-in bandwidth of one feature (see the module docstring); NaN where ks fails."""
    if dim == 1:
        return _dpik(x)
    if not sd > 0 or x.size < 3:
        return np.nan
    h1, _ = _hpi_diag_scaled(_marginal_functionals(x / sd), np.eye(2), x.size)
    return sd * h1


# ---------------------------------------------------------------------------------------------
# rules
# ---------------------------------------------------------------------------------------------
def _check_rule(rule, dim):
    if rule not in BANDWIDTH_RULES:
        raise ValueError(
            f"Unknown bandwidth rule {rule!r}; use one of {', '.join(BANDWIDTH_RULES)}."
        )
    if dim not in (1, 2):
        raise ValueError(f"dim must be 1 or 2, got {dim!r}.")


def _rules_of_thumb(rule, dim, n, sd, rscale, fallback_scale):
    """Scott's or Silverman's bandwidth from precomputed scales (arrays or floats)."""
    if rule == "scott":
        scale = np.where(sd > 0, sd, fallback_scale)
        return scale * n ** (-1.0 / (dim + 4))
    scale = np.where(rscale > 0, rscale, fallback_scale)
    return (0.9 if dim == 1 else 1.0) * scale * n ** (-1.0 / (dim + 4))


def _adaptive(x, rule, dim, sd, rscale, silverman):
    """LCV or plug-in bandwidth of one feature; Silverman's where they are undefined."""
    if rscale == 0:
        return silverman
    n = max(x.size, 2)
    if rule == "lcv":
        h1 = _lcv_bandwidth(x, 0.9 * rscale * n ** (-0.2))
        return h1 if dim == 1 else h1 * n ** (0.2 - 1.0 / 6.0)
    h = _plugin_bandwidth(x, dim, sd)
    return h if np.isfinite(h) and h > 0 else silverman


def rule_bandwidth(x, rule="scott", dim=1, fallback_scale=1.0):
    """Bandwidth of one feature in one class by a named rule (before multiplier and floor).

    Parameters
    ----------
    x : ndarray of shape (n,)
        The feature's values in one class.
    rule : {"scott", "silverman", "lcv", "plugin"}
    dim : {1, 2}
        Dimension of the density the bandwidth is used in (1: univariate, 2: pair).
    fallback_scale : float
        Scale used when ``x`` has zero spread (tied or discrete feature within the class).

    Returns
    -------
    h : float

    Examples
    --------
    >>> import numpy as np
    >>> from slb.density.bandwidth import rule_bandwidth
    >>> x = np.random.default_rng(0).normal(size=100)
    >>> round(rule_bandwidth(x, "scott"), 3), round(rule_bandwidth(x, "silverman"), 3)
    (0.385, 0.346)
    >>> round(rule_bandwidth(x, "scott", dim=2), 3)  # n ** (-1/6) for a pair's density
    0.449
    """
    _check_rule(rule, dim)
    x = np.asarray(x, dtype=float)
    sd, rscale = (float(v[0]) for v in column_scales(x.reshape(-1, 1)))
    h = float(_rules_of_thumb(rule, dim, max(x.size, 2), sd, rscale, fallback_scale))
    if rule in ("scott", "silverman"):
        return h
    silverman = float(_rules_of_thumb("silverman", dim, max(x.size, 2), sd, rscale, fallback_scale))
    return _adaptive(x, rule, dim, sd, rscale, silverman)


def class_bandwidths(
    X,
    y_index,
    *,
    rule="scott",
    multiplier=1.0,
    overrides=None,
    min_bandwidth=1e-3,
    dim=1,
    lattice_floor=0.0,
):
    """Bandwidths of every feature in every class.

    The scales of all features of a class are computed at once (:func:`column_scales`); only the
    data-adaptive rules ("lcv", "plugin") visit the features one by one.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y_index : ndarray of shape (n_samples,)
        Class index of each row, in ``{0, ..., n_classes - 1}``.
    rule : {"scott", "silverman", "lcv", "plugin"}
    multiplier : float
        Global multiplier applied to every rule bandwidth.
    overrides : ndarray of shape (n_features,) or None
        Per-feature multipliers replacing ``multiplier``; NaN entries keep the global one.
    min_bandwidth : float
        Floor, as a fraction of the feature's pooled robust scale.
    dim : {1, 2}
        Univariate or bivariate (pair) bandwidths.
    lattice_floor : float, default=0.0
        A second floor, as a multiple of the feature's :func:`lattice_spacing` (on the rows of
        ``X``, all classes), for features whose values lie on a lattice; 0: none.  (This
        function's default is none; the estimators' ``lattice_floor`` default is 1.)

    Returns
    -------
    h : ndarray of shape (n_classes, n_features)

    Examples
    --------
    >>> import numpy as np
    >>> from slb.density.bandwidth import class_bandwidths
    >>> X = np.random.default_rng(0).normal(size=(200, 2)) * [1.0, 3.0]
    >>> y_index = np.repeat([0, 1], 100)
    >>> class_bandwidths(X, y_index).round(2).tolist()
    [[0.39, 1.13], [0.4, 1.27]]
    >>> class_bandwidths(X, y_index, overrides=[np.nan, 3.0]).round(2).tolist()
    [[0.39, 3.4], [0.4, 3.82]]
    """
    _check_rule(rule, dim)
    X = np.asarray(X, dtype=float)
    y_index = np.asarray(y_index)
    n_features = X.shape[1]
    mult = np.full(n_features, float(multiplier))
    if overrides is not None:
        ov = np.asarray(overrides, dtype=float)
        mult = np.where(np.isnan(ov), mult, ov)
    pooled = column_scales(X)[1]
    pooled = np.where(pooled > 0, pooled, 1.0)
    n_classes = int(np.max(y_index)) + 1
    h = np.empty((n_classes, n_features))
    for c in range(n_classes):
        Xc = X[y_index == c]
        n = max(Xc.shape[0], 2)
        sd, rscale = column_scales(Xc)
        h[c] = _rules_of_thumb(rule, dim, n, sd, rscale, pooled)
        if rule in ("lcv", "plugin"):
            silverman = _rules_of_thumb("silverman", dim, n, sd, rscale, pooled)
            for i in range(n_features):
                h[c, i] = _adaptive(Xc[:, i], rule, dim, sd[i], rscale[i], silverman[i])
    h *= mult
    h = np.maximum(h, min_bandwidth * pooled)
    if lattice_floor > 0:
        step = lattice_spacing(X)
        h = np.maximum(h, np.where(np.isnan(step), 0.0, lattice_floor * step))
    return h
