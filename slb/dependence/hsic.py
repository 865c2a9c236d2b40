"""Pairwise dependence of all features at once: HSIC (with gamma p-values), Pearson, Spearman.

HSIC
----
The biased V-statistic of Gretton et al. (2005), ``HSIC(i, j) = tr(K_i H K_j H) / n^2`` with
Gaussian kernels ``k(a, b) = exp(-(a - b)^2 / (2 sigma^2))`` and a median heuristic
(:func:`median_heuristic_sigma2`): ``sigma^2`` is half the median of the *non-zero* squared
differences ``(a_k - a_l)^2``, ``k < l`` (ties excluded; the mean of the two middle values for
an even count), over at most 1000 evenly spaced observations; 1 for a constant feature.  This
is close to, but not exactly, the default of the R package dHSIC (2.2) used by the SLB paper,
whose ``median_bandwidth`` takes ``sigma^2`` as half the element of 0-based rank
``floor(P / 2)`` of *all* ``P`` squared differences, zeros included, on the first 1000 rows of
a random permutation, and ``sigma = 0.001`` when that is zero.  The two agree for untied data
with an odd number of pairs and up to 1000 points; with ties slb's ``sigma`` is never smaller
(dHSIC's drops to 0.001 when more than half of the differences are zero).

Because ``H`` is idempotent, ``tr(K_i H K_j H) = <H K_i H, H K_j H>_F``: with the centred Gram
matrices flattened into the rows of a ``d x n^2`` matrix ``F``, the whole ``d x d`` HSIC matrix
is ``F F^T / n^2``, one matrix product.  Two ways to compute it (``method``):

``"exact"``
    The Gram matrices are symmetric with unit diagonal, so
    ``F F^T = 2 sum_{a < b} f_ab f_ab^T + sum_a f_aa f_aa^T``, where the centred diagonal
    values ``f_aa`` have a closed form (``1 - 2 u_a + c`` with the row means ``u`` and grand
    mean ``c``): only the ``n (n - 1) / 2`` pairs ``a < b`` are evaluated.  They are dealt into
    *panels* of sample blocks ``(A, B)`` (sides of about ``n / 4``, at most 256 samples): every
    pair ``A x B`` for ``A < B``, the pairs ``a < b`` of ``A`` (a triangle, packed row by row)
    for ``A = B``.  A panel holds the kernel values of every feature on its pairs -- at most
    ``memory_budget`` bytes over all workers, so no ``d x n x n`` array is ever formed -- and
    contributes ``F_AB F_AB^T`` (a BLAS ``syrk``).  Centring needs the row sums of
    every Gram matrix: a first pass computes them (keeping the panels when they all fit in the
    budget) and a second one the centred products (with p-values also the products of the
    squared centred values; without, that half of the work is skipped and the statistic is
    bit-identical to the one computed with p-values, so screening on it does not depend on
    whether p-values were asked for).  The panels
    can run in ``n_jobs`` threads (numpy releases the GIL; BLAS is limited to one thread);
    their sizes and grouping, hence the result, do not depend on ``n_jobs``.
    Exact to rounding (differences from the textbook formula ~1e-16).
``"approx"``
    Incomplete (pivoted) Cholesky factors ``K_i ~ G_i G_i^T`` (Fine & Scheinberg 2001; Bach &
    Jordan 2002), the classic low-rank route to kernel independence measures.  The rank ``r_i``
    of each feature is the smallest one whose residual trace ``eps_i = tr(K_i - G_i G_i^T)``
    is at most ``approx_tol / 2`` (capped at ``max_rank``).  The residual ``E`` is positive
    semi-definite, so ``||H E H||_F <= tr E`` and ``||K_c||_F <= tr K = n`` give
    ``|HSIC_approx(i, j) - HSIC(i, j)| <= (eps_i + eps_j) / n``: with the default
    ``approx_tol = 1e-3`` every value is within ``1e-3 / n`` of the exact one, a thousandth of
    the scale of HSIC under independence (about ``1 / n``); the bound is typically ~100 times
    pessimistic.  The statistic is ``||Gc_i^T Gc_j||_F^2 / n^2`` with the column-centred
    factors, one ``R x R`` Gram matrix (``R = sum r_i``, a few hundred): O(n R^2) time and
    O(n R) memory instead of O(d n^2), and only ``r_i`` kernel columns per feature are
    evaluated.  Pivoted Cholesky is preferred to random Fourier features (error
    ``O(1 / sqrt(D))``, thousands of features for 1e-4, no usable bound) and to uniform Nystrom
    (no a-posteriori bound without the full residual): its rank adapts to each feature and it
    comes with the rigorous, free bound above, which ``max_error`` of the result reports.
    Heavy-tailed features need larger ranks (each isolated outlier is a rank of its own): past
    ``max_rank`` (200) the bound is whatever that rank achieves.
``"auto"`` (default)
    ``"exact"`` below ``approx_min_samples`` samples (:data:`HSIC_APPROX_MIN_SAMPLES` = 2000),
    ``"approx"`` from there on.  Measured (CPU, d = 20, with p-values): exact 0.14 / 0.45 /
    1.05 s at n = 1000 / 2000 / 3000, approximate 0.07 / 0.09 / 0.10 s.  Below 2000 samples the
    exact path costs under half a second, so the exact value is kept.

Gamma p-values follow Gretton et al. (2008) (``hsicTestGamma``): the null distribution of
``n * HSIC`` is approximated by a gamma law matching its mean and variance.  The mean needs the
mean off-diagonal kernel value of each feature; the variance needs the mean over ``a != b`` of
``(Kc_i[a, b] Kc_j[a, b])^2`` for every pair, again a matrix product, of the element-wise
squared centred Gram matrices.  The exact path computes both exactly.  The approximate path
takes the kernel means from the factors (error at most ``eps_i / (n - 1)``) and estimates the
variance term on ``pvalue_pairs`` (default 100,000) random sample pairs ``a != b`` -- every pair
when there are fewer -- whose centred kernel entries are computed exactly with the full-sample
row means (from the factors).  The estimate is unbiased, with a relative standard error well
under 1 %; measured against the exact path, ``|log10 p|`` moves by at most 0.02-0.06 for
``p > 1e-8`` (far smaller p-values move more in log, but stay far below any threshold).

Pearson and Spearman
--------------------
``|r|`` of Pearson's correlation or of Spearman's rank correlation, with the usual
t-distribution p-values (``scipy.stats.pearsonr``'s and ``spearmanr``'s asymptotic form).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._parallel import one_blas_thread, resolve_n_jobs, run_tasks
from .lowrank import incomplete_cholesky

HSIC_METHODS = ("auto", "exact", "approx")

#: ``method="auto"`` uses the approximate HSIC from this many samples on.
HSIC_APPROX_MIN_SAMPLES = 2000
#: Default bound on ``n * |HSIC_approx - HSIC|`` (units of 1/n, the scale of HSIC under
#: independence).
HSIC_APPROX_TOL = 1e-3
#: Default cap on the incomplete-Cholesky rank of one feature.
HSIC_APPROX_MAX_RANK = 200
#: Default number of random sample pairs behind the approximate path's p-value variance.
HSIC_PVALUE_PAIRS = 100_000

_MEDIAN_MAX_POINTS = 1000  # median heuristic on <= 1000 points (dHSIC: 1000 random rows)
_MEDIAN_DIRECT_POINTS = 300  # up to here the median takes all squared differences at once
_MIN_PANEL = 16  # smallest panel side, whatever the memory budget
_MAX_PANEL = 256  # panels of at most 256 x 256 sample pairs keep the element-wise work in cache
_MIN_PARALLEL_WORK = 10_000_000  # d n^2 below which worker threads are not worth starting
_PANEL_GROUPS = 8  # tasks the panels are dealt into


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
    method : str, default="exact"
        ``"exact"``, or ``"approx"`` for the low-rank HSIC.
    max_error : float, default=0.0
        Guaranteed bound on ``|statistic - exact statistic|`` over all pairs (0 when exact).

    Examples
    --------
    >>> import numpy as np
    >>> from slb.dependence.hsic import DependenceResult, correlation_all_pairs
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> result = correlation_all_pairs(X)
    >>> isinstance(result, DependenceResult), result.statistic.shape, result.measure
    (True, (3, 3), 'pearson')
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    measure: str
    method: str = "exact"
    max_error: float = 0.0


def median_heuristic_sigma2(x):
    """Median-heuristic kernel variance: half the median of the non-zero squared differences.

    ``sigma^2 = median{(a_k - a_l)^2 : k < l, a_k != a_l} / 2`` with numpy's median (the mean
    of the two middle values for an even count).  Zero differences (ties) are left out, unlike
    dHSIC, which takes the upper middle of all squared differences, zeros included (see the
    module docstring).

    Parameters
    ----------
    x : ndarray of shape (n,)

    Returns
    -------
    sigma2 : float
        Above 1000 points, computed on 1000 evenly spaced positions of ``x`` (dHSIC uses the
        first 1000 of a random permutation); 1.0 for a constant sample.

    Examples
    --------
    >>> from slb.dependence.hsic import median_heuristic_sigma2
    >>> median_heuristic_sigma2([0.0, 1.0, 3.0])  # median of 1, 4 and 9, halved
    2.0
    >>> median_heuristic_sigma2([5.0, 5.0, 5.0])
    1.0
    """
    return float(_median_sigma2_all(np.asarray(x, float).reshape(1, -1))[0])


def _last_le(x, t):
    """For sorted ``x`` and every ``a``: the last ``b >= a`` with ``x[b] - x[a] <= t`` (t >= 0)."""
    m = x.size
    a = np.arange(m)
    lo = a.copy()
    hi = np.full(m, m)
    while True:
        open_ = hi - lo > 1
        if not open_.any():
            return lo
        mid = (lo + hi) // 2
        ok = (x[np.minimum(mid, m - 1)] - x) <= t
        lo = np.where(open_ & ok, mid, lo)
        hi = np.where(open_ & ~ok, mid, hi)


def _median_sq_diff_sorted(x, rng):
    """median over a < b with x[b] != x[a] of (x[b] - x[a])^2, x sorted; None if no such pair."""
    m = x.size
    a = np.arange(m)
    P = m * (m - 1) // 2
    zero = int((_last_le(x, 0.0) - a).sum())
    N = P - zero
    if N == 0:
        return None
    k1, k2 = zero + (N - 1) // 2, zero + N // 2  # 0-based ranks among all pairs
    S = 4000
    ia, ib = rng.integers(0, m, S), rng.integers(0, m, S)
    lo_i, hi_i = np.minimum(ia, ib), np.maximum(ia, ib)
    sample = np.sort(x[hi_i[lo_i < hi_i]] - x[lo_i[lo_i < hi_i]])
    t_lo, t_hi = 0.0, float(x[-1] - x[0])
    if sample.size > 100:
        q1, q2 = k1 / P, (k2 + 1) / P
        se = np.sqrt(max(q1 * (1 - q1), 1.0 / sample.size) / sample.size)
        i_lo = int(np.floor((q1 - 6 * se) * sample.size)) - 1
        i_hi = int(np.ceil((q2 + 6 * se) * sample.size))
        if i_lo >= 0:
            t_lo = float(sample[i_lo])
        if i_hi < sample.size:
            t_hi = float(sample[i_hi])
    last_lo = _last_le(x, t_lo)
    c_lo = int((last_lo - a).sum())
    if c_lo > k1:  # bracket missed: start from 0
        t_lo, last_lo, c_lo = 0.0, a + (_last_le(x, 0.0) - a), zero
    last_hi = _last_le(x, t_hi)
    if int((last_hi - a).sum()) < k2 + 1:
        last_hi = np.full(m, m - 1)
    # every difference in (t_lo, t_hi]: rows a, columns last_lo[a] + 1 .. last_hi[a]
    cnt = last_hi - last_lo
    rows = np.repeat(a, cnt)
    cols = np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt) + np.repeat(last_lo + 1, cnt)
    vals = (x[rows] - x[cols]) ** 2
    r1, r2 = k1 - c_lo, k2 - c_lo
    part = np.partition(vals, [r1, r2] if r2 != r1 else r1)
    if r1 == r2:
        return float(np.mean(part[[r1]]))
    return float(np.mean(part[[r1, r2]]))


def _median_positive_rows(D2):
    """``np.median(row[row > 0])`` of every row of ``D2`` (entries >= 0), bit for bit; 2.0 for
    a row without positive entry (so that half of it is the constant-feature value 1.0).

    The zeros sort first, so the median of the positive entries is found at ranks shifted by
    their number, without compacting the row.  Non-negative doubles order like their bit
    patterns read as integers, and integer selection is faster than floating-point selection
    (which must order NaNs).
    """
    d, n = D2.shape
    out = np.full(d, 2.0)
    if not np.all(np.isfinite(D2)):  # never for finite data; keep numpy's NaN semantics
        for k in range(d):
            v = D2[k][D2[k] > 0]
            out[k] = float(np.median(v)) if v.size else 2.0
        return out
    zeros = (D2 <= 0).sum(axis=1)
    as_int = D2.view(np.int64)
    for k in range(d):
        m = n - zeros[k]
        if m == 0:
            continue
        r1, r2 = zeros[k] + (m - 1) // 2, zeros[k] + m // 2
        part = np.partition(as_int[k], [r1, r2] if r2 != r1 else r1).view(np.float64)
        out[k] = (part[r1] + part[r2]) / 2.0
    return out


def _squared_differences(Xt):
    """``(x_k - x_l)^2`` for every row of ``Xt`` and every pair ``k < l``: (d, m (m - 1) / 2).

    Built row block by row block (contiguous slices) instead of gathering the triangle.
    """
    d, m = Xt.shape
    out = np.empty((d, m * (m - 1) // 2))
    start = 0
    for k in range(m - 1):
        stop = start + m - 1 - k
        np.subtract(Xt[:, k + 1 :], Xt[:, k : k + 1], out=out[:, start:stop])
        start = stop
    return np.square(out, out=out)


def _median_sigma2_all(Xt, n_jobs=1):
    """:func:`median_heuristic_sigma2` of every row of ``Xt``, rows split over threads."""
    Xt = np.asarray(Xt, float)
    if n_jobs > 1 and Xt.shape[0] > 1 and Xt.shape[0] * min(Xt.shape[1], 1000) ** 2 >= 1e7:
        groups = _chunk(list(range(Xt.shape[0])), n_jobs)
        parts = run_tasks([(_median_rows, (Xt[g],)) for g in groups], n_jobs)
        out = np.empty(Xt.shape[0])
        for g, part in zip(groups, parts, strict=True):
            out[g] = part
        return out
    return _median_rows(Xt)


def _median_rows(Xt):
    """:func:`median_heuristic_sigma2` of every row of ``Xt`` (d, n).

    The median of the ``m (m - 1) / 2`` squared differences is selected exactly from the sorted
    sample in O(m log m) plus a small bracket (found from a random sample of pairs; the seed
    only affects speed, never the value) instead of materialising all of them.
    """
    Xt = np.asarray(Xt, float)
    d, n = Xt.shape
    if n > _MEDIAN_MAX_POINTS:
        Xt = Xt[:, np.linspace(0, n - 1, _MEDIAN_MAX_POINTS).round().astype(int)]
    m = Xt.shape[1]
    out = np.ones(d)
    if m < 2:
        return out
    if m <= _MEDIAN_DIRECT_POINTS:
        # Small samples: all squared differences at once, features vectorised.
        n_pairs = m * (m - 1) // 2
        step = max(1, int(2**22 // n_pairs))
        for a in range(0, d, step):
            D2 = _squared_differences(Xt[a : a + step])
            out[a : a + step] = _median_positive_rows(D2) / 2.0
        return out
    xs = np.sort(Xt, axis=1)
    for i in range(d):
        med = _median_sq_diff_sorted(xs[i], np.random.default_rng(0))
        if med is not None:
            out[i] = med / 2.0
    return out


def gaussian_gram(x, sigma2=None):
    """Gaussian Gram matrix ``exp(-(x_a - x_b)^2 / (2 sigma^2))`` of one feature.

    Parameters
    ----------
    x : ndarray of shape (n,)
    sigma2 : float or None
        Kernel variance; None: :func:`median_heuristic_sigma2` of ``x``.

    Returns
    -------
    K : ndarray of shape (n, n)

    Examples
    --------
    >>> from slb.dependence.hsic import gaussian_gram
    >>> gaussian_gram([0.0, 1.0, 3.0], sigma2=1.0).round(3).tolist()
    [[1.0, 0.607, 0.011], [0.607, 1.0, 0.135], [0.011, 0.135, 1.0]]
    """
    x = np.asarray(x, float)
    if sigma2 is None:
        sigma2 = median_heuristic_sigma2(x)
    return np.exp(-((x[:, None] - x[None, :]) ** 2) / (2.0 * sigma2))


# ---------------------------------------------------------------------------------------------
# execution helpers
# ---------------------------------------------------------------------------------------------
def _chunk(items, n_chunks):
    n_chunks = max(1, min(n_chunks, len(items)))
    return [items[k::n_chunks] for k in range(n_chunks)]


# ---------------------------------------------------------------------------------------------
# exact HSIC: panels of sample pairs
# ---------------------------------------------------------------------------------------------
# A panel is a pair of sample blocks (A, B), A <= B.  For A < B it holds every pair A x B (a
# rectangle); for A == B only the pairs a < b of A (a triangle, packed row by row: row a holds
# (a, a + 1), ..., (a, A.stop - 1)).  The panels cover every pair a < b exactly once; the Gram
# matrices being symmetric, each pair (a, b) stands for (b, a) too, and the diagonal
# pairs (a, a), whose kernel value is 1, are added in closed form.
def _gaussian(Z):
    """``exp(-Z^2)`` in place (``Z``: differences of pre-scaled values)."""
    np.square(Z, out=Z)
    np.negative(Z, out=Z)
    return np.exp(Z, out=Z)


def _triangle_rows(A):
    """``(a, lo, hi)`` of every row of the packed triangle of block ``A``: columns ``lo:hi``
    hold the pairs ``(a, b)``, ``a < b < A.stop``."""
    lo = 0
    for a in range(A.start, A.stop - 1):
        hi = lo + A.stop - 1 - a
        yield a, lo, hi
        lo = hi


def _panel_pairs(A, B):
    m = A.stop - A.start
    return m * (m - 1) // 2 if A == B else m * (B.stop - B.start)


def _gram_panel(Xs, A, B):
    """Kernel values of every feature on the panel's pairs: (d, |A|, |B|), or (d, pairs) for
    a triangle.  ``Xs`` holds the samples divided by ``sqrt(2 sigma^2)``."""
    if A != B:
        return _gaussian(Xs[:, A, None] - Xs[:, None, B])
    Z = np.empty((Xs.shape[0], _panel_pairs(A, B)))
    for a, lo, hi in _triangle_rows(A):
        np.subtract(Xs[:, a : a + 1], Xs[:, a + 1 : A.stop], out=Z[:, lo:hi])
    return _gaussian(Z)


def _rowsum_task(Xs, panels, keep):
    """Row sums of every Gram matrix over ``panels``, without the diagonal; the panels
    themselves when ``keep``."""
    d, n = Xs.shape
    s = np.zeros((d, n))
    kept = []
    for A, B in panels:
        Z = _gram_panel(Xs, A, B)
        if A != B:
            s[:, A] += Z.sum(axis=2)
            s[:, B] += Z.sum(axis=1)
        else:
            for a, lo, hi in _triangle_rows(A):
                s[:, a] += Z[:, lo:hi].sum(axis=1)
                s[:, a + 1 : A.stop] += Z[:, lo:hi]
        if keep:
            kept.append(Z)
    return s, kept


def _centre_panel(Z, A, B, v):
    """``Kc = K - v_a - v_b`` in place on the panel's pairs (``v = u - c / 2``: the row means
    and half the grand mean); returns them as (d, pairs)."""
    if A != B:
        Z -= v[:, A, None]
        Z -= v[:, None, B]
    else:
        for a, lo, hi in _triangle_rows(A):
            Z[:, lo:hi] -= v[:, a : a + 1]
            Z[:, lo:hi] -= v[:, a + 1 : A.stop]
    return Z.reshape(Z.shape[0], -1)


def _centred_task(Xs, panels, v, want_s, want_q, kept=None):
    """Sums over the panels' pairs of ``F F^T`` (centred values) and ``F2 F2^T`` (their
    squares), each pair ``a < b`` once."""
    d = Xs.shape[0]
    S = np.zeros((d, d)) if want_s else None
    Q = np.zeros((d, d)) if want_q else None
    for k, (A, B) in enumerate(panels):
        Z = kept[k] if kept is not None else _gram_panel(Xs, A, B)
        F = _centre_panel(Z, A, B, v)
        if want_s:
            S += F @ F.T  # numpy hands F @ F.T to BLAS syrk: half the flops of a product
        if want_q:
            np.square(F, out=F)
            Q += F @ F.T
    return S, Q


def _panels(n, side):
    edges = list(range(0, n, side)) + [n]
    blocks = [slice(a, b) for a, b in zip(edges[:-1], edges[1:], strict=True)]
    # slices compare by value, so "A == B" identifies the triangles; a block of one sample
    # has no pair a < b
    return [
        (blocks[a], blocks[b])
        for a in range(len(blocks))
        for b in range(a, len(blocks))
        if a != b or blocks[a].stop - blocks[a].start > 1
    ]


def _panel_side(n, d, memory_budget):
    """Panel side: about n / 4 (at least 64, at most 256), at least 16, and small enough for
    one panel per task group to fit in ``memory_budget``.

    Sized for all :data:`_PANEL_GROUPS` groups at once, not for ``n_jobs`` of them: the
    panels, hence the summation order and the result, must not depend on the thread count.
    """
    fit = int(np.sqrt(max(memory_budget, 0) / (8.0 * max(d, 1) * _PANEL_GROUPS)))
    side = min(fit, _MAX_PANEL, max(-(-n // 4), 64))
    return int(min(n, max(_MIN_PANEL, side)))


def _panel_bytes(panels, d):
    return sum(8 * d * _panel_pairs(A, B) for A, B in panels)


def _hsic_exact(Xs, pvalues, memory_budget, n_jobs):
    """Exact ``S = <Kc_i, Kc_j>``, and for p-values ``Qoff`` (the sum over ``a != b`` of
    ``Kc_i[a, b]^2 Kc_j[a, b]^2``) and ``kmean`` (mean off-diagonal kernel values).

    ``Xs`` holds the samples divided by ``sqrt(2 sigma^2)``, one feature per row.
    """
    d, n = Xs.shape
    panels = _panels(n, _panel_side(n, d, memory_budget))
    # A fixed grouping (not n_jobs-dependent) keeps the summation order, hence the result,
    # bit-identical whatever the number of threads.
    groups = _chunk(panels, _PANEL_GROUPS)
    # Two passes: row sums, then centred products.  When every panel fits in the budget the
    # first pass keeps them and the kernels are evaluated once.
    keep = _panel_bytes(panels, d) <= memory_budget
    parts = run_tasks([(_rowsum_task, (Xs, g, keep)) for g in groups], n_jobs)
    s_off = sum(p[0] for p in parts)  # row sums without the diagonal (kernel value 1)
    u = (s_off + 1.0) / n  # row means
    c = u.mean(axis=1)  # grand means
    v = u - c[:, None] / 2.0  # Kc[a, b] = K[a, b] - v[a] - v[b]: one pass less than u, u, c
    parts = run_tasks(
        [
            (_centred_task, (Xs, g, v, True, pvalues, p[1] if keep else None))
            for g, p in zip(groups, parts, strict=True)
        ],
        n_jobs,
    )
    # Pairs a < b stand for a > b too; the diagonal's centred values are 1 - 2 u_a + c.
    diag = 1.0 - 2.0 * v
    S = 2.0 * sum(p[0] for p in parts) + diag @ diag.T
    if not pvalues:
        return S, None, None
    Qoff = 2.0 * sum(p[1] for p in parts)
    kmean = s_off.sum(axis=1) / (n * (n - 1))  # mean off-diagonal kernel value
    return S, Qoff, kmean


# ---------------------------------------------------------------------------------------------
# approximate HSIC: incomplete Cholesky
# ---------------------------------------------------------------------------------------------
def _cholesky_task(Xt, cols, sigma2, tol, max_rank):
    return [incomplete_cholesky(Xt[i], sigma2[i], tol, max_rank) for i in cols]


def _hsic_approx(
    Xt, sigma2, pvalues, approx_tol, max_rank, pvalue_pairs, random_state, memory_budget, n_jobs
):
    d, n = Xt.shape
    groups = _chunk(list(range(d)), n_jobs)
    res = {}
    tasks = [(_cholesky_task, (Xt, g, sigma2, approx_tol / 2.0, max_rank)) for g in groups]
    for g, part in zip(groups, run_tasks(tasks, n_jobs), strict=True):
        res.update(zip(g, part, strict=True))
    factors = [res[i][0] for i in range(d)]
    eps = np.array([res[i][1] for i in range(d)])
    ranks = np.array([f.shape[0] for f in factors])
    sums = [f.sum(axis=1) for f in factors]  # G_i 1
    Gc = np.vstack([f - (s / n)[:, None] for f, s in zip(factors, sums, strict=True)])  # (R, n)
    M = Gc @ Gc.T
    # HSIC(i, j) n^2 = ||Gc_i Gc_j^T||_F^2: block sums of the squared Gram matrix.  Every rank
    # is at least 1 (the first pivot of a Gram matrix with unit diagonal is 1).
    starts = np.concatenate([[0], np.cumsum(ranks)[:-1]]).astype(int)
    S = np.add.reduceat(np.add.reduceat(M * M, starts, axis=0), starts, axis=1)
    bound = (eps[:, None] + eps[None, :]) / n  # bound on |HSIC_approx - HSIC|
    info = {"ranks": ranks, "residual_trace": eps, "bound": bound}
    if not pvalues:
        return S, None, info
    # Mean off-diagonal kernel value, from the factors.
    tot = np.array([s @ s for s in sums])  # 1' K~ 1
    tr = np.array([float((f * f).sum()) for f in factors])  # tr K~
    kmean = (tot - tr) / (n * (n - 1))
    # Variance term: mean over a != b of (Kc_i[a, b] Kc_j[a, b])^2, estimated on random pairs
    # of samples; the centred entries are exact kernel values centred with the full-sample
    # row means of K~.
    n_pairs = int(max(pvalue_pairs, 16))
    if n * (n - 1) // 2 <= n_pairs:  # few samples: every pair a < b, no sampling
        ia, ib = np.triu_indices(n, k=1)
        n_pairs = ia.size
    else:
        rng = np.random.default_rng(random_state)
        ia = rng.integers(0, n, n_pairs)
        ib = (ia + rng.integers(1, n, n_pairs)) % n  # uniform over b != a
    offmean = np.zeros((d, d))
    U = np.vstack(
        [s @ f / n for f, s in zip(factors, sums, strict=True)]
    )  # row means of K~, (d, n)
    c = tot / n**2
    step = max(1, int(memory_budget // (32 * max(d, 1))))
    for k in range(0, n_pairs, step):
        a_, b_ = ia[k : k + step], ib[k : k + step]
        Kc = np.exp(-((Xt[:, a_] - Xt[:, b_]) ** 2) / (2.0 * sigma2[:, None]))
        Kc -= U[:, a_]
        Kc -= U[:, b_]
        Kc += c[:, None]
        np.square(Kc, out=Kc)
        offmean += Kc @ Kc.T
    offmean /= n_pairs
    return S, (offmean, kmean), info


# ---------------------------------------------------------------------------------------------
# public entry points
# ---------------------------------------------------------------------------------------------
# Over 80 lines only through its numpydoc docstring (38 lines: one entry per parameter);
# the code is 70 lines.
def hsic_all_pairs(
    X,
    *,
    pvalues=True,
    memory_budget=2**30,
    method="auto",
    n_jobs=None,
    approx_min_samples=None,
    approx_tol=None,
    max_rank=None,
    pvalue_pairs=None,
    random_state=0,
    return_info=False,
):
    """All-pairs biased HSIC of the columns of ``X``, with gamma-approximation p-values.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    pvalues : bool
        Also compute the gamma-approximation p-values (NaN when n < 6).
    memory_budget : int
        Bytes allowed for the kernel values held at once (all worker threads together); the
        exact path works on panels of sample pairs that fit (at least 16 x 16 samples).
    method : {"auto", "exact", "approx"}
        See the module docstring; "auto" is exact below ``approx_min_samples`` samples.
    n_jobs : int or None
        Worker threads over panels (exact), features (approximate) and the median heuristic;
        -1: all CPUs.  None: one, as in scikit-learn (see
        :func:`slb._parallel.resolve_n_jobs`).  The result does not depend on it.
    approx_min_samples : int or None
        Threshold of ``method="auto"``; None: :data:`HSIC_APPROX_MIN_SAMPLES`.
    approx_tol : float or None
        Approximate path: bound on ``n * |HSIC_approx - HSIC|`` of every pair; None:
        :data:`HSIC_APPROX_TOL`.  The rank of each feature is chosen to meet it.
    max_rank : int or None
        Approximate path: rank cap per feature; None: :data:`HSIC_APPROX_MAX_RANK`.
    pvalue_pairs : int or None
        Approximate path: random sample pairs estimating the variance of the p-values' gamma
        law; None: :data:`HSIC_PVALUE_PAIRS`.
    random_state : int
        Seeds the approximate path's p-value pairs.
    return_info : bool
        Also return a dict of diagnostics (``method``, and for the approximate path ``ranks``,
        ``residual_trace`` and the pairwise ``bound``).

    Returns
    -------
    result : DependenceResult
    info : dict
        Only when ``return_info`` is True.

    Examples
    --------
    A quadratic dependence, which HSIC detects and a correlation does not:

    >>> import numpy as np
    >>> from slb.dependence.hsic import hsic_all_pairs
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=100)
    >>> X = np.column_stack([a, a**2 + 0.1 * rng.normal(size=100), rng.normal(size=100)])
    >>> result = hsic_all_pairs(X)
    >>> result.method, round(float(result.statistic[0, 1]), 3)
    ('exact', 0.052)
    >>> bool(result.pvalue[0, 1] < 0.01), bool(result.pvalue[0, 2] > 0.05)
    (True, True)
    """
    X = np.asarray(X, float)
    n, d = X.shape
    if method not in HSIC_METHODS:
        raise ValueError(f"method must be one of {', '.join(HSIC_METHODS)}, got {method!r}.")
    threshold = HSIC_APPROX_MIN_SAMPLES if approx_min_samples is None else approx_min_samples
    if method == "auto":
        method = "approx" if n >= threshold else "exact"
    if n < 2:
        method = "exact"
    n_jobs = resolve_n_jobs(n_jobs)
    if d * n * n < _MIN_PARALLEL_WORK:
        n_jobs = 1  # threads cost more than they save on small problems
    Xt = np.ascontiguousarray(X.T)
    pval = np.full((d, d), np.nan)
    info = {"method": method}
    max_error = 0.0
    moments = None
    with one_blas_thread():  # BLAS threads contend with ours (and each other) here
        sigma2 = _median_sigma2_all(Xt, n_jobs)
        if n < 2:
            S = np.zeros((d, d))
        elif method == "exact":
            # Scaled once here, the kernel is exp(-(a - b)^2): one pass less per panel.
            Xs = Xt / np.sqrt(2.0 * sigma2)[:, None]
            S, Qoff, kmean = _hsic_exact(Xs, pvalues and n >= 6, memory_budget, n_jobs)
            if Qoff is not None:
                moments = (Qoff / (n * (n - 1)), kmean)
        else:
            tol = HSIC_APPROX_TOL if approx_tol is None else float(approx_tol)
            rank = HSIC_APPROX_MAX_RANK if max_rank is None else int(max_rank)
            n_pairs = HSIC_PVALUE_PAIRS if pvalue_pairs is None else int(pvalue_pairs)
            S, moments, extra = _hsic_approx(
                Xt,
                sigma2,
                pvalues and n >= 6,
                tol,
                rank,
                n_pairs,
                random_state,
                memory_budget,
                n_jobs,
            )
            info.update(extra)
            off = ~np.eye(d, dtype=bool)
            max_error = float(extra["bound"][off].max()) if d > 1 else 0.0
    constant = np.ptp(X, axis=0) == 0 if n else np.ones(d, bool)
    # A constant feature's centred Gram matrix is exactly zero.
    S[constant, :] = 0.0
    S[:, constant] = 0.0
    hsic = S / n**2 if n else S
    if moments is not None:
        pval = _gamma_pvalues(hsic, *moments, n)
    np.fill_diagonal(hsic, np.nan)
    np.fill_diagonal(pval, np.nan)
    result = DependenceResult(hsic, pval, "hsic", method, max_error)
    return (result, info) if return_info else result


def _gamma_pvalues(hsic, offmean, kmean, n):
    """Gamma approximation of the HSIC null (Gretton et al. 2008, hsicTestGamma).

    ``offmean[i, j]`` is the mean over ``a != b`` of ``(Kc_i[a, b] Kc_j[a, b])^2``, ``kmean[i]``
    the mean off-diagonal kernel value of feature ``i``.
    """
    off = offmean / 36.0
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

    Examples
    --------
    >>> import numpy as np
    >>> from slb.dependence.hsic import correlation_all_pairs
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=100)
    >>> X = np.column_stack([a, -2 * a + 0.1 * rng.normal(size=100), rng.normal(size=100)])
    >>> result = correlation_all_pairs(X, "spearman")
    >>> round(float(result.statistic[0, 1]), 2), bool(result.pvalue[0, 1] < 1e-6)
    (1.0, True)
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


@dataclass(frozen=True)
class DependenceMeasure:
    """One entry of :data:`DEPENDENCE_MEASURE_REGISTRY`: everything slb needs of a measure.

    Attributes
    ----------
    name : str
    function : callable
        ``function(X, *, pvalues, memory_budget, **options) -> DependenceResult`` (all pairs).
    null_scale : callable
        ``null_scale(n)``: the factor that makes the statistic's null level free of the
        sample size ``n`` (HSIC ~ 1/n: ``n``; ``|r|`` ~ 1/sqrt(n): ``sqrt(n)``), the
        ``screening_score="scaled"`` of :mod:`slb.dependence.screening`.
    label : str
        How figures and pages name the statistic.

    Examples
    --------
    >>> from slb.dependence.hsic import DEPENDENCE_MEASURE_REGISTRY
    >>> hsic = DEPENDENCE_MEASURE_REGISTRY["hsic"]
    >>> hsic.name, hsic.label, hsic.null_scale(50)
    ('hsic', 'HSIC', 50)
    """

    name: str
    function: object
    null_scale: object
    label: str


def _hsic_measure(X, *, pvalues=True, memory_budget=2**30, **hsic_options):
    return hsic_all_pairs(X, pvalues=pvalues, memory_budget=memory_budget, **hsic_options)


def _correlation_measure(method):
    def measure(X, *, pvalues=True, memory_budget=2**30, **options):
        return correlation_all_pairs(X, method)

    return measure


#: Every dependence measure by name (as scikit-learn's ``PAIRWISE_KERNEL_FUNCTIONS``): a new
#: measure is one entry here; screening, SLB's ``dependence`` parameter, its validation and the
#: figures' labels read it.
DEPENDENCE_MEASURE_REGISTRY = {
    "hsic": DependenceMeasure("hsic", _hsic_measure, lambda n: n, "HSIC"),
    "pearson": DependenceMeasure(
        "pearson", _correlation_measure("pearson"), np.sqrt, "|Pearson r|"
    ),
    "spearman": DependenceMeasure(
        "spearman", _correlation_measure("spearman"), np.sqrt, "|Spearman ρ|"
    ),
}
DEPENDENCE_MEASURES = tuple(DEPENDENCE_MEASURE_REGISTRY)


def get_dependence_measure(name):
    """The registry entry of measure ``name`` (a clear ValueError for an unknown name).

    Examples
    --------
    >>> from slb.dependence.hsic import get_dependence_measure
    >>> get_dependence_measure("pearson").label
    '|Pearson r|'
    """
    try:
        return DEPENDENCE_MEASURE_REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"Unknown dependence measure {name!r}; use one of {', '.join(DEPENDENCE_MEASURES)}."
        ) from None


def dependence_matrix(X, measure="hsic", *, pvalues=True, memory_budget=2**30, **hsic_options):
    """All-pairs dependence by the named measure.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    measure : {"hsic", "pearson", "spearman"}
    pvalues : bool
        HSIC only: compute gamma p-values (doubles the cost).
    memory_budget : int
        HSIC only: bytes for kernel values held at once.
    **hsic_options
        HSIC only: ``method``, ``n_jobs``, ``approx_min_samples``, ``approx_tol``, ``max_rank``,
        ``pvalue_pairs``, ``random_state`` of :func:`hsic_all_pairs`.

    Returns
    -------
    result : DependenceResult

    Examples
    --------
    >>> import numpy as np
    >>> from slb.dependence.hsic import dependence_matrix
    >>> X = np.random.default_rng(0).normal(size=(40, 4))
    >>> result = dependence_matrix(X, "pearson")
    >>> result.measure, result.statistic.shape, bool(np.isnan(result.statistic[0, 0]))
    ('pearson', (4, 4), True)
    """
    entry = get_dependence_measure(measure)
    return entry.function(X, pvalues=pvalues, memory_budget=memory_budget, **hsic_options)


def benjamini_hochberg(pvalues, alpha=0.05):
    """Benjamini-Hochberg rejections at false discovery rate ``alpha``.

    Parameters
    ----------
    pvalues : ndarray of shape (m,)
    alpha : float

    Returns
    -------
    reject : ndarray of bool, shape (m,)

    Examples
    --------
    >>> from slb.dependence.hsic import benjamini_hochberg
    >>> benjamini_hochberg([0.001, 0.02, 0.03, 0.5], alpha=0.05).tolist()
    [True, True, True, False]
    """
    p = np.asarray(pvalues, float)
    if p.size == 0:
        return np.zeros(0, dtype=bool)
    return stats.false_discovery_control(p, method="bh") <= alpha
