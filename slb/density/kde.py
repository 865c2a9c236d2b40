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

Exact and binned evaluation
---------------------------
:class:`ClassConditionalKDE` evaluates each class's densities exactly (cost ``m n_c`` per
density) or, for large classes, *binned* on a grid (:mod:`slb.density.binned`: cubic binning, exact
smoothing on the grid, cubic interpolation; cost about ``4 G^3 + 16 (n_c + m)`` per pair with
``G`` ~ 100-200 nodes per axis, instead of ``m n_c``).  ``method="auto"`` (default) bins the classes with
at least ``binned_min_samples`` (:data:`KDE_BINNED_MIN_SAMPLES` = 1000) training points.  The
binned error is bounded in log-density: ``|log p_binned - log p| <= 0.01`` wherever ``p`` is at
least 1e-3 of its maximum (measured: <= 5e-4 at the training points, leave-one-out included,
<= 7e-3 at new points in the gaps of near-discrete data; see :mod:`slb.density.binned`).  The choice depends on the class size only, never on the number of
evaluation points, so a row's features do not depend on the batch it is evaluated in.
"""

from __future__ import annotations

import numpy as np

from .._parallel import one_blas_thread, resolve_n_jobs, run_tasks
from .binned import BinnedPairs, Grid, binned_pdf_1d

_INV_SQRT_2PI = 1.0 / np.sqrt(2.0 * np.pi)
_CHUNK_BYTES = 64 * 2**20  # working memory per evaluation chunk
#: Working memory per chunk of the element-wise kernel passes (the univariate sums and the
#: all-pairs products): the five passes of :meth:`ClassConditionalKDE._kernels` then run in a
#: core's L2 cache instead of main memory.  1.2-1.7x faster than 64 MB chunks at 640-1500
#: training rows per class, d = 20 (``benchmarks/scale.py --case cv7400``), the same values
#: bit for bit (each evaluation row's sums do not depend on the chunk;
#: ``tests/test_speed_paths.py``).  The pairs-by-first-feature path keeps ``_CHUNK_BYTES``:
#: its per-chunk loop over features costs Python calls per chunk (2x slower at d = 300).
_CACHE_CHUNK_BYTES = 2**20

KDE_METHODS = ("auto", "exact", "binned")
#: ``method="auto"`` bins the densities of classes with at least this many training points.
KDE_BINNED_MIN_SAMPLES = 1000
#: Grid nodes per bandwidth of the binned pair densities (error ~ ratio^-4); univariate grids
#: have twice as many (they are cheap).
KDE_GRID_RATIO = 5.0
#: The binned grid extends beyond the (windowed) training range by the distance where the
#: density falls below its floor, clipped to these many bandwidths.
KDE_GRID_MARGIN = (3.0, 8.0)
_MAX_NODES_1D = 4096
_MAX_NODES_2D = 320
_MAX_OUT_FRACTION = 0.01  # training points allowed outside a grid's window (added exactly)
#: Exact evaluations with fewer kernel values (rows x training points x features) than this
#: stay in one thread (threads cost more than they save on small problems).
_EXACT_PARALLEL_MIN_WORK = 20_000_000


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

    Examples
    --------
    >>> from slb.density.kde import kernel_matrix
    >>> kernel_matrix([0.0, 1.0], [0.0], h=1.0).round(4).tolist()  # the N(0, 1) density
    [[0.3989], [0.242]]
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

    Examples
    --------
    The same density as scipy's ``gaussian_kde`` with that bandwidth:

    >>> import numpy as np
    >>> from scipy.stats import gaussian_kde
    >>> from slb.density.kde import kde_pdf_1d
    >>> x = np.array([-1.0, 0.0, 0.5, 2.0])
    >>> p = kde_pdf_1d(x, [0.0], h=0.5)
    >>> reference = gaussian_kde(x, bw_method=0.5 / x.std(ddof=1))([0.0])
    >>> round(float(p[0]), 4), bool(np.allclose(p, reference))
    (0.3475, True)
    >>> kde_pdf_1d(x, x, h=0.5, loo=True).round(3).tolist()  # the isolated 2.0 drops most
    [0.039, 0.197, 0.167, 0.003]
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

    Examples
    --------
    A product kernel: one training point gives the product of two univariate densities.

    >>> import numpy as np
    >>> from slb.density.kde import kde_pdf_1d, kde_pdf_2d
    >>> p = kde_pdf_2d([[0.0, 0.0]], [[1.0, -0.5]], h=[1.0, 0.5])
    >>> q = kde_pdf_1d([0.0], [1.0], 1.0) * kde_pdf_1d([0.0], [-0.5], 0.5)
    >>> round(float(p[0]), 4), bool(np.allclose(p, q))
    (0.1171, True)
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


def _each(work, chunks):
    for sl in chunks:
        work(sl)


def _groups_by_first(ii):
    """(feature, indices of the pairs whose first feature it is) for every first feature."""
    order = np.argsort(ii, kind="stable")
    firsts, starts = np.unique(ii[order], return_index=True)
    return list(zip(firsts, np.split(order, starts[1:]), strict=True))


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
    method : {"auto", "exact", "binned"}, default="auto"
        Exact sums over the training points, or binned evaluation on a grid (see the module
        docstring); "auto" bins the classes with at least ``binned_min_samples`` points.
    binned_min_samples : int or None, default=None
        Threshold of ``method="auto"``; None: :data:`KDE_BINNED_MIN_SAMPLES`.
    grid_ratio : float or None, default=None
        Grid nodes per bandwidth of the binned pair densities (twice as many for univariate
        ones); None: :data:`KDE_GRID_RATIO`.
    n_jobs : int or None, default=None
        Threads over the binned pairs; None: one, as in scikit-learn; -1: all CPUs (see
        :func:`slb._parallel.resolve_n_jobs`).  The result does not depend on it.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.density.kde import ClassConditionalKDE
    >>> rng = np.random.default_rng(0)
    >>> y_index = np.repeat([0, 1], 20)
    >>> X = rng.normal(size=(40, 2)) + 2.0 * y_index[:, None]  # class 1 centred at (2, 2)
    >>> h = np.full((2, 2), 0.5)
    >>> kde = ClassConditionalKDE(X, y_index, h, h, np.full(2, 1e-6), np.full((2, 2), 1e-6))
    >>> E = np.array([[0.0, 0.0], [2.0, 2.0]])
    >>> log_uni = kde.log_univariate(E)  # (n_classes, rows, features)
    >>> log_uni.shape, log_uni[:, 0, 0].round(2).tolist()
    ((2, 2, 2), [-0.98, -3.22])
    >>> log_pair = kde.log_bivariate(E, [(0, 1)])  # (n_classes, rows, pairs)
    >>> log_pair[:, :, 0].round(2).tolist()  # each class is densest at its own centre
    [[-1.69, -6.06], [-8.13, -2.43]]
    """

    def __init__(
        self,
        X,
        y_index,
        h1,
        h2,
        floor1,
        floor2,
        *,
        method="auto",
        binned_min_samples=None,
        grid_ratio=None,
        n_jobs=None,
    ):
        if method not in KDE_METHODS:
            raise ValueError(f"method must be one of {', '.join(KDE_METHODS)}, got {method!r}.")
        self.X = [np.ascontiguousarray(X[y_index == c]) for c in range(len(h1))]
        self.h1 = np.asarray(h1, float)
        self.h2 = np.asarray(h2, float)
        self.floor1 = np.asarray(floor1, float)
        self.floor2 = np.asarray(floor2, float)
        self.method = method
        self.binned_min_samples = binned_min_samples
        self.grid_ratio = grid_ratio
        self.n_jobs = n_jobs

    def binned(self, c):
        """Whether class ``c``'s densities are evaluated on the binned path."""
        method = getattr(self, "method", "auto")  # models saved before the option: "auto"
        if method == "exact":
            return False
        if method == "binned":
            return True
        threshold = getattr(self, "binned_min_samples", None)
        threshold = KDE_BINNED_MIN_SAMPLES if threshold is None else threshold
        return self.X[c].shape[0] >= threshold

    def _grid(self, x, h, dim, peak_ratio):
        """Grid of one feature; ``peak_ratio`` bounds density / floor at the kernel's peak."""
        ratio = getattr(self, "grid_ratio", None)
        ratio = KDE_GRID_RATIO if ratio is None else float(ratio)
        if dim == 1:
            ratio *= 2.0
        max_nodes = _MAX_NODES_1D if dim == 1 else _MAX_NODES_2D
        # Beyond this distance from every training value the density is below its floor.
        with np.errstate(divide="ignore", invalid="ignore"):
            reach = h * np.sqrt(2.0 * np.log(max(peak_ratio, 1.0)))
        if not np.isfinite(reach):
            reach = np.inf
        return Grid.build(x, h, ratio, max_nodes, _MAX_OUT_FRACTION, reach, KDE_GRID_MARGIN)

    @staticmethod
    def _chunks(m, n_c, width, chunk_bytes):
        step = max(1, int(chunk_bytes // (8 * max(n_c, 1) * max(width, 1))))
        return [slice(a, min(a + step, m)) for a in range(0, m, step)]

    def _run_chunks(self, work, m, n_c, width, chunk_bytes):
        """``work(chunk)`` over the evaluation rows' chunks, in threads on big problems.

        Each chunk writes its own rows of the output and the chunks are the same whatever the
        threads, so the result does not depend on them (bit for bit); each thread holds one
        chunk's working memory (``chunk_bytes``).
        """
        n_jobs = resolve_n_jobs(getattr(self, "n_jobs", None))
        if n_jobs > 1 and m * n_c * width < _EXACT_PARALLEL_MIN_WORK:
            n_jobs = 1
        chunks = self._chunks(m, n_c, width, chunk_bytes)
        n_jobs = min(n_jobs, len(chunks))
        if n_jobs <= 1:
            for sl in chunks:
                work(sl)
            return
        run_tasks([(_each, (work, chunks[g::n_jobs])) for g in range(n_jobs)], n_jobs)

    @staticmethod
    def _kernels(E, Xc, h):
        # (m, n_c, d) kernel values; broadcasting instead of a loop over features, in place in
        # one array (the same values as exp(-0.5 z^2) / (h sqrt(2 pi)) with four temporaries,
        # which made this memory-bound function 2-3x slower).  The points are scaled by
        # 1 / (h sqrt 2) first (two small arrays), which saves two passes over the big one
        # (25-35 % of this function; the values agree to ~1e-13 relative).
        s = np.sqrt(0.5) / h
        z = np.subtract((E * s)[:, None, :], (Xc * s)[None, :, :])
        np.multiply(z, z, out=z)
        np.negative(z, out=z)
        np.exp(z, out=z)
        z *= _INV_SQRT_2PI / h
        return z

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
        out = np.empty((len(self.X),) + E.shape)
        for c in range(len(self.X)):
            out[c] = self.univariate_class(c, E, None if self_class is None else self_class == c)
        return out

    def univariate_class(self, c, E, rows=None):
        """Univariate densities of every feature in class ``c``.

        Parameters
        ----------
        c : int
            Class index.
        E : ndarray of shape (m, n_features)
            Evaluation points.
        rows : ndarray of bool of shape (m,) or None
            Rows of ``E`` that are training points of class ``c`` (leave-one-out is applied to
            them); None: none.

        Returns
        -------
        p : ndarray of shape (m, n_features)
            The densities :meth:`univariate` gives for class ``c``, not floored.
        """
        E = np.asarray(E, float)
        m, d = E.shape
        out = np.empty((m, d))
        feats = np.arange(d)
        if self.binned(c):
            exact = []
            peak = _INV_SQRT_2PI / self.h1[c]
            with np.errstate(divide="ignore"):
                peak_ratio = peak / self.floor1
            for i in feats:
                g = self._grid(self.X[c][:, i], self.h1[c, i], 1, peak_ratio[i])
                if g is None:
                    exact.append(i)
                else:
                    out[:, i] = binned_pdf_1d(self.X[c][:, i], E[:, i], g, rows)
            feats = np.array(exact, dtype=int)
        if feats.size:
            out[:, feats] = self._exact_univariate(c, E, feats, rows)
        return out

    def _exact_univariate(self, c, E, feats, rows):
        Xc, h = self.X[c][:, feats], self.h1[c, feats]
        m = E.shape[0]
        p = np.empty((m, feats.size))
        Ef = E[:, feats]

        def work(sl):
            p[sl] = self._kernels(Ef[sl], Xc, h).mean(axis=1)

        self._run_chunks(work, m, Xc.shape[0], feats.size, _CACHE_CHUNK_BYTES)
        if rows is not None:
            self._apply_loo(p, rows, Xc.shape[0], _INV_SQRT_2PI / h)
        return p

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
        out = np.empty((len(self.X), E.shape[0], pairs.shape[0]))
        for c in range(len(self.X)):
            rows = None if self_class is None else self_class == c
            out[c] = self.bivariate_class(c, E, pairs, rows)
        return out

    def bivariate_class(self, c, E, pairs, rows=None):
        """Bivariate densities of the given pairs in class ``c``.

        Parameters
        ----------
        c : int
        E : ndarray of shape (m, n_features)
        pairs : ndarray of shape (n_pairs, 2)
        rows : ndarray of bool of shape (m,) or None
            As in :meth:`univariate_class`.

        Returns
        -------
        p : ndarray of shape (m, n_pairs)
            The densities :meth:`bivariate` gives for class ``c``, not floored.
        """
        E = np.asarray(E, float)
        pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
        n_pairs = pairs.shape[0]
        out = np.empty((E.shape[0], n_pairs))
        if n_pairs == 0:
            return out
        todo = np.arange(n_pairs)
        if self.binned(c):
            grids = {}
            peak = _INV_SQRT_2PI / self.h2[c]
            fl = self.floor2[pairs[:, 0], pairs[:, 1]]
            with np.errstate(divide="ignore"):
                # density <= phi_i(dist_i) phi_j(0): worst partner of each feature
                pr = np.concatenate([peak[pairs[:, 1]] / fl, peak[pairs[:, 0]] / fl])
            worst = {}
            for f, v in zip(np.concatenate([pairs[:, 0], pairs[:, 1]]), pr, strict=True):
                worst[int(f)] = max(worst.get(int(f), 0.0), v)
            for i in np.unique(pairs):
                g = self._grid(self.X[c][:, i], self.h2[c, i], 2, peak[i] * worst[int(i)])
                if g is not None:
                    grids[int(i)] = g
            ok = np.array([int(i) in grids and int(j) in grids for i, j in pairs])
            if ok.any():
                with one_blas_thread():  # many small products
                    bp = BinnedPairs(self.X[c], grids, E, rows)
                    idx = np.flatnonzero(ok)
                    n_jobs = resolve_n_jobs(getattr(self, "n_jobs", None))
                    n_jobs = min(n_jobs, max(1, idx.size // 8))
                    groups = [idx[g::n_jobs] for g in range(n_jobs)]
                    # pairs are independent: the result does not depend on the threads
                    run_tasks([(self._binned_pairs, (bp, pairs, g, out)) for g in groups], n_jobs)
            todo = np.flatnonzero(~ok)
        if todo.size == n_pairs:  # every pair exact: its array is the output (no copy)
            return self._exact_bivariate(c, E, pairs, rows)
        if todo.size:
            out[:, todo] = self._exact_bivariate(c, E, pairs[todo], rows)
        return out

    @staticmethod
    def _binned_pairs(bp, pairs, idx, out):
        for k in idx:
            out[:, k] = bp.pdf(int(pairs[k, 0]), int(pairs[k, 1]))

    def _exact_bivariate(self, c, E, pairs, rows):
        feats, local = np.unique(pairs, return_inverse=True)
        local = local.reshape(-1, 2)
        ii, jj = local[:, 0], local[:, 1]
        Xc, h = self.X[c][:, feats], self.h2[c, feats]
        Ef = E[:, feats]
        m, d = Ef.shape
        n_c, n_pairs = Xc.shape[0], pairs.shape[0]
        p = np.empty((m, n_pairs))
        # All pairs: one batched matrix product K^T K per evaluation point is cheaper than
        # gathering the pair columns; few pairs: per first feature i, one contraction of its
        # kernel rows with its partners' (feature-major layout: contiguous gathers, no product
        # array; 5-10x faster than gathering both columns of every pair at d = 1000).
        use_gram = n_pairs >= d * (d - 1) // 4
        # Per evaluation row a chunk holds the kernels (n_c x d) and their feature-major copy;
        # the gathered partners of one first feature are at most one more (3 d in all).  The
        # pairs' own output is in ``p``.  (Counting the pairs here too made chunks of a few
        # rows at d = 1000: a million small einsum calls, 20 s of Python overhead.)
        width = d if use_gram else 3 * d
        groups = None if use_gram else _groups_by_first(ii)

        def work(sl):
            K = self._kernels(Ef[sl], Xc, h)
            if use_gram:
                G = np.matmul(K.transpose(0, 2, 1), K) / n_c
                p[sl] = G[:, ii, jj]
                return
            Kt = np.ascontiguousarray(K.transpose(2, 0, 1))  # (features, m, n_c)
            del K
            for i, sel in groups:
                p[sl, sel] = np.einsum("mk,jmk->mj", Kt[i], Kt[jj[sel]]) / n_c

        with one_blas_thread():  # small batched products: one BLAS thread is much faster
            self._run_chunks(work, m, n_c, width, _CACHE_CHUNK_BYTES if use_gram else _CHUNK_BYTES)
        if rows is not None:
            self_k = _INV_SQRT_2PI**2 / (h[ii] * h[jj])
            self._apply_loo(p, rows, n_c, self_k)
        return p

    @staticmethod
    def _apply_loo(p, rows, n_c, self_k):
        if n_c < 2 or not np.any(rows):
            return
        # Rounding can leave -1e-17 where a point is alone: clip at zero.
        p[rows] = np.maximum((n_c * p[rows] - self_k) / (n_c - 1), 0.0)

    def log_univariate(self, E, self_class=None):
        """Floored log univariate densities, shape (n_classes, m, n_features)."""
        p = self.univariate(E, self_class)
        np.maximum(p, self.floor1, out=p)  # in place: the same values, no new arrays
        return np.log(p, out=p)

    def log_bivariate(self, E, pairs, self_class=None):
        """Floored log bivariate densities of ``pairs``, shape (n_classes, m, n_pairs)."""
        pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
        floor = self.floor2[pairs[:, 0], pairs[:, 1]]
        p = self.bivariate(E, pairs, self_class)
        np.maximum(p, floor, out=p)
        return np.log(p, out=p)

    def log_own_class(self, c, E, pairs):
        """Floored leave-one-out log densities of class ``c`` at its own training points.

        What :meth:`log_univariate` and :meth:`log_bivariate` give in class ``c`` at those
        points with ``self_class`` set, without the other classes' densities.

        Parameters
        ----------
        c : int
        E : ndarray of shape (n_c, n_features)
            Class ``c``'s training points (every row is left out of its own density).
        pairs : ndarray of shape (n_pairs, 2)

        Returns
        -------
        log_uni : ndarray of shape (n_c, n_features)
        log_biv : ndarray of shape (n_c, n_pairs)
        """
        pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
        rows = np.ones(np.shape(E)[0], dtype=bool)
        uni = self.univariate_class(c, E, rows)
        np.log(np.maximum(uni, self.floor1, out=uni), out=uni)
        biv = self.bivariate_class(c, E, pairs, rows)
        np.log(np.maximum(biv, self.floor2[pairs[:, 0], pairs[:, 1]], out=biv), out=biv)
        return uni, biv
