"""The linear SVM on the log-density feature map, one formulation at every sample size.

SLB, SLB- and LU train a linear SVM on standardised log-density features ``z``, with one of
two losses (``loss``, :data:`LINEAR_LOSSES`).  The default (:data:`DEFAULT_LOSS`, chosen by
Protocol 2 of ``docs/defaults.md``) is the **squared hinge**, liblinear's problem solved
exactly by the warm-started finite Newton path of :mod:`slb.model.primal`.  ``"hinge"`` is the
SVM of the R package e1071, the paper's (libsvm's C-SVC with a linear kernel and an
*unpenalised* intercept):

    min_{w, b}  1/2 |w|^2 + sum_i C_i max(0, 1 - s_i (z_i . w + b)),   s_i = +-1,

with ``C_i = C * weight(class of i)``; the rest of this paragraph is about it.  The feature maps have many columns (hundreds to
thousands) and the solution has few support vectors, so the problem is solved in its dual, on
the linear kernel ``Z Z^T``, by libsvm:

* up to :data:`GRAM_MAX_SAMPLES` rows: on the full precomputed kernel (the working set below,
  holding every row);
* above, by **working-set decomposition** (chunking; Osuna, Freund & Girosi 1997): libsvm
  solves the problem restricted to a working set of rows, the margins of *all* rows are computed
  (one matrix-vector product), and the rows outside the set that violate the optimality
  conditions (``s_i f(z_i) < 1 - tol``: a row outside has zero dual weight, which is optimal
  only on or beyond the margin) join the set, until none does.  The rows inside satisfy the
  conditions by libsvm's solution and the rows outside by the check, so the final solution
  solves the *full* problem to libsvm's tolerance: it is the same estimator, not an
  approximation (tested against libsvm on the full kernel).  Its kernel is only that of the
  working set (a few hundred to a few thousand rows: the support vectors and their neighbours),
  grown incrementally.  Should the set outgrow half the rows (at most
  :data:`WORKING_SET_MAX_SAMPLES`; noisy classes have many support vectors), the problem is
  solved without it: on the full kernel when it is wide and not too tall (the same libsvm
  solution), else by liblinear's dual coordinate descent (``LinearSVC(loss="hinge")``, which
  penalises the intercept slightly), in bounded memory.

Why by hand: scikit-learn's ``SVC`` needs the whole ``n x n`` kernel (180 MB and 0.6 s to build
at n = 4700 with 400 columns, before the solver starts), and ``LinearSVC`` has no unpenalised
intercept, no warm start, and is slower here (its coordinate descent needs hundreds of passes
over all rows): 1.9x for one fit and 3.5-5x for SLB's threshold CV at 5920 rows and 420 columns
(``benchmarks/speed.py``, section 6).  The decomposition reuses libsvm for
every subproblem, so the numerical core is still the well-kept solver.

:func:`grid_mask_predictions` evaluates many nested column subsets (the candidate thresholds
of SLB's internal cross-validation) and a grid of costs ``C`` on one split, growing one kernel
column group by column group instead of rebuilding it per subset.  Up to
:data:`GRAM_MAX_SAMPLES` training rows the kernel depends on the columns only, so each column
subset's kernel serves the whole ``C`` grid (built once, not once per ``C``); above, the
working set of one ``C`` starts the next (warm start along the increasing grid).  The feature
map is standardised on the fly, block by block (``center`` and ``scale`` of
:class:`WorkingSetSVM`), never copied whole: a fold's map can hold thousands of columns.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np
from sklearn import config_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC
from sklearn.utils.class_weight import compute_class_weight

from .._parallel import one_blas_thread
from .._sklearn_compat import libsvm_fit
from .kernel import IncrementalKernel
from .primal import SquaredHingePath, fit_squared_hinge

#: Up to this many rows the SVM is solved on the full precomputed kernel.
GRAM_MAX_SAMPLES = 3000
#: Largest working set of the decomposition (its kernel: 8 * 4000^2 bytes = 128 MB) before
#: falling back to liblinear.
WORKING_SET_MAX_SAMPLES = 4000
#: When the working set outgrows its cap, feature maps with at least this many columns and at
#: most ``FALLBACK_KERNEL_MAX_SAMPLES`` rows are solved on the full kernel (288 MB at 6000
#: rows), the others by liblinear.  Measured at 4000-6000 rows (one thread): full kernel plus
#: libsvm 1.0-2.7 s vs liblinear 2.5-5.4 s at 420 columns, but 1.0 vs 0.5 s at 200 columns.
FALLBACK_KERNEL_MIN_COLUMNS = 300
FALLBACK_KERNEL_MAX_SAMPLES = 6000
#: libsvm's stopping tolerance (scikit-learn's default), also the optimality-check tolerance.
TOL = 1e-3
_INITIAL_ROWS = 1000
_INITIAL_MARGIN = 0.1
_MIN_ADDED_ROWS = 256

# liblinear draws its coordinate order from one process-wide generator: concurrent fits in
# threads would interleave its draws and make results depend on timing.  libsvm (C-SVC) draws
# nothing, so only the fallback is serialised.
_LIBLINEAR_LOCK = threading.Lock()


#: Losses of the two-class linear model.  ``"hinge"``: libsvm's C-SVC (e1071's, the paper's).
#: ``"squared_hinge"``: the same problem with the squared hinge, solved in the primal by
#: liblinear's trust-region Newton method (``LinearSVC(dual=False)``; the intercept is a
#: feature of value ``PRIMAL_INTERCEPT_SCALING``, so its penalty is negligible).  Measured
#: on one inner fold of a 1,000 x 20 table (800 rows, 40-420 columns, load 9): libsvm
#: 0.15-1.05 s per fit at C = 1-10 against 0.012-0.06 s for the primal solver at every C.
LINEAR_LOSSES = ("hinge", "squared_hinge")
PRIMAL_INTERCEPT_SCALING = 10.0
#: Scale of the naive-Bayes anchor column (:func:`anchor_columns`) after standardisation: its
#: weight's penalty is ``1 / ANCHOR_SCALE**2`` of an ordinary term's, so the weights are shrunk
#: toward ``alpha * w_NB`` (``alpha`` free) instead of toward 0.
ANCHOR_SCALE = 30.0
#: The loss of every fit of this module (and of the SLB family's ``loss`` parameter) unless
#: told otherwise: the squared hinge, by Protocol 2 of ``docs/defaults.md`` (tied with the hinge
#: in test BER over the nine design families; the cheaper one per fit since its exact Newton
#: path, :mod:`slb.model.primal`).
DEFAULT_LOSS = "squared_hinge"


def _settings(loss=None, anchor=None):
    loss = DEFAULT_LOSS if loss is None else loss
    if loss not in LINEAR_LOSSES:
        raise ValueError(f"loss must be one of {', '.join(LINEAR_LOSSES)}, got {loss!r}.")
    if anchor not in (None, "none", "naive_bayes"):
        raise ValueError(f"anchor must be None or 'naive_bayes', got {anchor!r}.")
    return loss, (None if anchor == "none" else anchor)


def anchor_columns(T, n_features, n_classes):
    """Naive Bayes's log-likelihoods from the univariate block of a feature map.

    The map's first ``n_classes * n_features`` columns are the univariate log-densities, one
    block of ``n_features`` per class in :func:`slb.density.features.class_order`.  Two classes:
    one column, the first block's sum minus the second's (KDE naive Bayes's log-likelihood
    ratio); more: one column per block (each class's naive-Bayes log-likelihood).  A linear
    model whose penalty spares these columns is shrunk toward naive Bayes (small ``C``) rather
    than toward a constant.

    Parameters
    ----------
    T : ndarray of shape (n_samples, n_terms)
    n_features : int
    n_classes : int

    Returns
    -------
    A : ndarray of shape (n_samples, 1) for two classes, else (n_samples, n_classes)

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.svm import anchor_columns
    >>> T = np.array([[1.0, 2.0, 0.5, 0.5, 9.0]])  # d = 2: "+" block, "-" block, a pair term
    >>> anchor_columns(T, 2, 2)
    array([[2.]])
    """
    n, K, d = T.shape[0], int(n_classes), int(n_features)
    blocks = np.asarray(T[:, : K * d], dtype=float).reshape(n, K, d).sum(axis=2)
    if K == 2:
        return blocks[:, :1] - blocks[:, 1:2]
    return blocks


def _with_anchor(T, n_features, n_classes):
    """``T`` with its anchor columns appended, and the (mean, scale) that standardise them to
    ``ANCHOR_SCALE`` times unit variance."""
    A = anchor_columns(T, n_features, n_classes)
    mu, sd = A.mean(axis=0), A.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return np.hstack([T, A]), mu, sd / ANCHOR_SCALE


def _fold_anchor(coef, intercept, n_anchor, n_features, n_classes):
    """Weights on ``[T | A]`` back to weights on ``T`` alone (A is linear in T's first
    ``n_classes * n_features`` columns): same decision values."""
    coef = np.array(coef, dtype=float, copy=True)
    intercept = np.array(intercept, dtype=float, copy=True)
    wa, coef = coef[:, -n_anchor:], coef[:, :-n_anchor]
    d, K = int(n_features), int(n_classes)
    if K == 2:
        coef[:, :d] += wa[:, :1]
        coef[:, d : 2 * d] -= wa[:, :1]
    else:
        for k in range(K):
            coef[:, k * d : (k + 1) * d] += wa[:, k : k + 1]
    return coef, intercept


def _fit_primal(Z, y, C, weights):
    """Squared-hinge linear SVM on standardised ``Z``: liblinear's ``LinearSVC(dual=False)``
    problem, solved exactly by the finite Newton method of :mod:`slb.model.primal` (the same
    solver as the grid path, so a cell of the selection equals this from-scratch fit)."""
    return fit_squared_hinge(Z, y, C, weights, PRIMAL_INTERCEPT_SCALING)


def index_class_weight(class_weight, classes):
    """Translate an estimator's ``class_weight`` to the 0/1 class indices the solvers use.

    Parameters
    ----------
    class_weight : "balanced", dict or None
        A dict is keyed by class label (``classes`` entries); missing labels weigh 1.
    classes : ndarray of shape (2,)
        The estimator's ``classes_``.

    Returns
    -------
    class_weight : "balanced", dict keyed 0/1, or None

    Raises
    ------
    ValueError
        Anything else, or a dict with a key that is not a class label or a weight that is not
        a positive number.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.svm import index_class_weight
    >>> index_class_weight({"b": 3}, np.array(["a", "b"]))  # "a" weighs 1
    {0: 1.0, 1: 3.0}
    >>> index_class_weight("balanced", np.array(["a", "b"]))
    'balanced'
    """
    if class_weight is None or (isinstance(class_weight, str) and class_weight == "balanced"):
        return class_weight
    if not isinstance(class_weight, dict):
        raise ValueError(
            f"class_weight must be 'balanced', None or a dict label -> weight, got {class_weight!r}."
        )
    labels = list(np.asarray(classes).tolist())
    unknown = [k for k in class_weight if k not in labels]
    if unknown:
        raise ValueError(
            f"class_weight has keys that are not class labels: {unknown!r}; the classes are "
            f"{labels!r}."
        )
    out = {}
    for idx, label in enumerate(labels):
        v = class_weight.get(label, 1.0)
        if not (
            np.isscalar(v) and isinstance(v, (int, float, np.number)) and np.isfinite(v) and v > 0
        ):
            raise ValueError(f"class_weight[{label!r}] must be a positive number, got {v!r}.")
        out[idx] = float(v)
    return out


def class_weights(class_weight, y_index):
    """Per-class weights (index 0 and 1) of the SVM cost, as scikit-learn computes them.

    Parameters
    ----------
    class_weight : "balanced", dict or None
        A dict must be keyed by class index (0, 1); the estimators translate labels first.
    y_index : ndarray of shape (n_samples,)
        0/1 class indices.

    Returns
    -------
    weights : ndarray of shape (2,)

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.svm import class_weights
    >>> y_index = np.array([0, 0, 0, 1])
    >>> class_weights("balanced", y_index).round(3).tolist()  # n / (2 n_c)
    [0.667, 2.0]
    >>> class_weights(None, y_index).tolist(), class_weights({0: 1, 1: 5}, y_index).tolist()
    ([1.0, 1.0], [1.0, 5.0])
    """
    yi = np.asarray(y_index).ravel()
    plain = class_weight is None or (isinstance(class_weight, str) and class_weight == "balanced")
    if plain and yi.dtype.kind in "biu" and yi.size and yi.min() >= 0:
        counts = np.bincount(yi, minlength=2)
        if counts.size == 2 and counts.all():  # else scikit-learn says what is wrong
            # scikit-learn's formula, without its argument validation (3 ms a call: 0.07 s of
            # the 25 folds' SVMs on Compare); the same values (tests/test_svm.py)
            return np.ones(2) if class_weight is None else yi.size / (2 * counts.astype(float))
    return compute_class_weight(class_weight, classes=np.array([0, 1]), y=y_index)


def _svc(C, weights, tol=TOL):
    return SVC(
        kernel="precomputed",
        C=C,
        class_weight={0: weights[0], 1: weights[1]},
        tol=tol,
        max_iter=-1,
    )


def _fit_kernel(K, y, C, weights, tol=TOL):
    """libsvm on a precomputed kernel: (dual coefficients, support indices, intercept)."""
    if tol == TOL and K.dtype == np.float64 and K.flags.c_contiguous and np.ptp(y) == 1:
        # The same libsvm call as SVC's, without its per-call validation (about 2.4 ms, 7 %
        # of a default fit's 350 inner-fold fits at 1600 rows): slb._sklearn_compat.
        return libsvm_fit(K, np.asarray(y, dtype=np.float64), C, weights)
    with warnings.catch_warnings(), config_context(assume_finite=True):
        # The kernel is built here from finite standardised features: no need to scan it.
        warnings.simplefilter("ignore", ConvergenceWarning)
        svm = _svc(C, weights, tol).fit(K, y)
    return svm.dual_coef_.ravel(), svm.support_, float(svm.intercept_[0])


def _fit_fallback(Z, y, C, weights):
    """The SVM without a working set: full-kernel libsvm or liblinear (see the constants)."""
    if Z.shape[0] <= FALLBACK_KERNEL_MAX_SAMPLES and Z.shape[1] >= FALLBACK_KERNEL_MIN_COLUMNS:
        dual, support, b = _fit_kernel(Z @ Z.T, y, C, weights)
        return dual @ Z[support], b
    return _fit_liblinear(Z, y, C, weights)


def _fit_liblinear(Z, y, C, weights, max_iter=20000):
    svm = LinearSVC(
        C=C,
        loss="hinge",
        dual=True,
        class_weight={0: weights[0], 1: weights[1]},
        intercept_scaling=10.0,
        max_iter=max_iter,
        random_state=0,
    )
    with warnings.catch_warnings(), _LIBLINEAR_LOCK:
        # On nearly separable high-dimensional maps the margin is settled long before the
        # solver's tolerance; a ConvergenceWarning would only alarm users.
        warnings.simplefilter("ignore", ConvergenceWarning)
        svm.fit(Z, y)
    return svm.coef_.ravel(), float(svm.intercept_[0])


class WorkingSetSVM:
    """The hinge-loss SVM on many rows by working-set decomposition (see the module docstring).

    The columns can be switched (:meth:`use_columns`); when the new columns contain the old
    ones, the working set and its kernel carry over (only the new columns' part is added), which
    makes a sequence of nested column subsets cheap.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_columns)
        Standardised features (all candidate columns).
    y : ndarray of shape (n_samples,)
        0/1 class indices.
    C : float
    weights : ndarray of shape (2,)
        Class weights of the cost (see :func:`class_weights`).
    tol : float
    max_rows : int or None
        Largest working set before solving without one (:func:`_fit_fallback`).  None: every
        row up to :data:`GRAM_MAX_SAMPLES` rows (the full kernel), else half the rows, at most
        :data:`WORKING_SET_MAX_SAMPLES` (a working set of more than half the rows saves little
        kernel and costs libsvm more than liblinear: measured 3x slower on noisy data).  Once
        a fit has fallen back, the later ones (other column sets) skip the working set.
    center, scale : ndarray of shape (n_columns,) or None
        When given, ``Z`` is the raw map and the solver works on ``(Z - center) / scale``,
        standardising only the blocks it reads (no copy of ``Z``).
    initial_rows : ndarray of int or None
        A first working set (e.g. the previous ``C``'s); None: a guess from a subsample.  The
        solution does not depend on it beyond the tolerance.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.svm import WorkingSetSVM, class_weights, fit_linear_svm
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 30)
    >>> T = rng.normal(size=(60, 4))
    >>> T[:, 0] += 2 * y  # only the first column separates the classes
    >>> masks = [np.array([True, False, False, False]), np.ones(4, dtype=bool)]
    >>> Z = (T - T.mean(axis=0)) / T.std(axis=0)
    >>> svm = WorkingSetSVM(Z, y, 1.0, class_weights("balanced", y))
    >>> w, b = svm.fit()
    >>> bool(np.allclose(w, fit_linear_svm(Z, y, C=1.0, loss="hinge")[0], atol=1e-6))  # the same SVM
    True
    >>> svm.use_columns(masks[0])  # a subset of the columns: the kernel is updated
    >>> svm.fit()[0].shape
    (1,)
    """

    def __init__(
        self,
        Z,
        y,
        C,
        weights,
        *,
        tol=TOL,
        max_rows=None,
        center=None,
        scale=None,
        initial_rows=None,
    ):
        self.Z, self.y, self.C, self.weights, self.tol = Z, y, C, weights, tol
        self.center, self.scale, self.initial_rows = center, scale, initial_rows
        if max_rows is None:
            # Up to GRAM_MAX_SAMPLES rows the working set is every row: the full kernel.
            small = y.size <= GRAM_MAX_SAMPLES
            max_rows = y.size if small else min(WORKING_SET_MAX_SAMPLES, y.size // 2)
        self.max_rows = max_rows
        self.gave_up = False
        self.sign = np.where(y == 1, 1.0, -1.0)
        self.rows = None  # working set (row indices) and its kernel on the current columns
        self.kernel = None  # slb.model.kernel.IncrementalKernel over the working set
        self.cols = np.ones(Z.shape[1], dtype=bool)
        self.n_rounds_ = 0

    @property
    def K(self):
        """The working set's kernel on the current columns (None before a fit)."""
        return None if self.kernel is None else self.kernel.K

    def _new_kernel(self, rows):
        """The incremental kernel of the working set ``rows`` (None: every row in order)."""
        p = self.Z.shape[1]
        center = np.zeros(p) if self.center is None else self.center
        scale = np.ones(p) if self.scale is None else self.scale
        every = rows.size == self.y.size and (rows.size < 2 or bool(np.all(np.diff(rows) > 0)))
        kernel = IncrementalKernel(
            self.Z, None, center, scale, removals=False, rows=None if every else rows
        )
        kernel.set_columns(self.cols)
        return kernel

    def _block(self, rows, cols=None):
        """``Z[rows][:, cols]`` (default: the current columns) in one copy."""
        cols = np.flatnonzero(self.cols if cols is None else cols)
        if rows.size == self.y.size and (rows.size < 2 or bool(np.all(np.diff(rows) > 0))):
            # every row in order (the full kernel): a column gather only.  Every row but in
            # another order (libsvm lists the support vectors class by class; at small C every
            # row is one) must keep that order: ``dual`` is aligned with it.
            A = self.Z[:, cols]
        else:
            A = self.Z[np.ix_(rows, cols)]
        if self.center is not None:  # standardise the gathered copy in place
            A -= self.center[cols]
            A /= self.scale[cols]
        return A

    def _weights(self, dual, support):
        """``w = sum_i dual_i z_i`` over the current columns (the support rows only)."""
        if self.center is None:
            return dual @ self._block(self.rows[support])
        # sum_i dual_i (z_i - c) / s = (dual @ Z_support - sum(dual) c) / s: the support rows
        # are gathered whole (contiguous rows) and never standardised; the same weights to
        # rounding, without a standardised copy of the (support x columns) block.
        cols = self.cols
        v = dual @ self.Z[self.rows[support]]
        return (v[cols] - dual.sum() * self.center[cols]) / self.scale[cols]

    def _margins(self, w, b):
        """``s_i (z_i . w + b)`` of every row, ``w`` over the current columns."""
        w_all = np.zeros(self.Z.shape[1])
        w_all[self.cols] = w  # a product with zeros instead of a copy of the columns
        if self.center is not None:  # (Z - c) / s @ w = Z @ (w / s) - c @ (w / s)
            w_all /= self.scale
            b = b - self.center @ w_all
        return self.sign * (self.Z @ w_all + b)

    def _initial_rows(self):
        # A guess of the support vectors: the support vectors of the SVM on a stratified
        # subsample, plus every row on the wrong side of (or within) that SVM's margin.  Any
        # start gives the same final solution; a good one saves rounds.
        y = self.y
        if self.max_rows >= y.size:
            return np.arange(y.size)
        if self.initial_rows is not None:
            return np.unique(np.asarray(self.initial_rows, dtype=int))
        k = _INITIAL_ROWS // 2
        rng = np.random.default_rng(0)  # a fixed choice of rows: fits are reproducible
        sub = np.sort(np.concatenate([rng.permutation(np.flatnonzero(y == c))[:k] for c in (0, 1)]))
        A = self._block(sub)
        dual, support, b = _fit_kernel(A @ A.T, y[sub], self.C, self.weights, self.tol)
        guess = self._margins(dual @ A[support], b) < 1.0 + _INITIAL_MARGIN
        guess[sub[support]] = True
        return np.flatnonzero(guess)

    def use_columns(self, cols):
        """Switch to the column mask ``cols`` (boolean over ``Z``'s columns)."""
        cols = np.asarray(cols, dtype=bool)
        if self.rows is not None and not (self.cols & ~cols).any():
            if (cols & ~self.cols).any():
                self.kernel.set_columns(cols)  # only the new columns' products are added
        else:
            self.rows, self.kernel = None, None
        self.cols = cols

    def _give_up(self):
        # Too many support vectors for a small kernel: solve without a working set.
        self.rows, self.kernel, self.gave_up = None, None, True
        return _fit_fallback(self._block(np.arange(self.y.size)), self.y, self.C, self.weights)

    def fit(self):
        """Solve on the current columns: (w over the current columns, b)."""
        self.n_rounds_ = 0
        if self.gave_up:
            return _fit_fallback(self._block(np.arange(self.y.size)), self.y, self.C, self.weights)
        if self.rows is None:
            self.rows = self._initial_rows()
            if self.rows.size > self.max_rows:
                return self._give_up()
            self.kernel = self._new_kernel(self.rows)
        in_set = np.zeros(self.y.size, dtype=bool)
        in_set[self.rows] = True
        while True:
            self.n_rounds_ += 1
            dual, support, b = _fit_kernel(
                self.kernel.K, self.y[self.rows], self.C, self.weights, self.tol
            )
            w = self._weights(dual, support)
            if in_set.all():
                return w, b  # the full kernel: libsvm's solution as it is
            margin = self._margins(w, b)
            violators = np.flatnonzero(~in_set & (margin < 1.0 - self.tol))
            if violators.size == 0:
                return w, b
            room = self.max_rows - self.rows.size
            if violators.size > room:
                # Take the worst half of what fits; when little fits, the support vectors are
                # too many for a small kernel: bounded memory instead.
                if room // 2 < _MIN_ADDED_ROWS:
                    return self._give_up()
                violators = violators[np.argsort(margin[violators], kind="stable")[: room // 2]]
            add = np.sort(violators)
            self.kernel.add_rows(add)
            self.rows = np.concatenate([self.rows, add])
            in_set[add] = True


def fit_linear_svm(T, y_index, *, C=1.0, class_weight="balanced", loss=None):
    """Standardise ``T`` and fit the linear SVM; return weights in ``T``'s units.

    Parameters
    ----------
    T : ndarray of shape (n_samples, n_terms)
    y_index : ndarray of shape (n_samples,)
        0/1 class indices.
    C : float
    class_weight : "balanced", dict (keyed 0/1) or None
    loss : {"hinge", "squared_hinge"} or None
        None: :data:`DEFAULT_LOSS` (see :data:`LINEAR_LOSSES`).

    Returns
    -------
    coef : ndarray of shape (n_terms,)
    intercept : float
        ``T @ coef + intercept`` is the SVM's decision function.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.svm import fit_linear_svm
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 30)
    >>> T = rng.normal(size=(60, 2)) + 2 * y[:, None]
    >>> w, b = fit_linear_svm(T, y, C=1.0)
    >>> float(np.mean(((T @ w + b) > 0) == y)) > 0.8
    True
    """
    loss, _ = _settings(loss)
    if T.shape[1] == 0:
        # No feature at all: a constant decision (the first class).
        return np.zeros(0), 0.0
    return _fit_standardised(T, y_index, C, class_weights(class_weight, y_index), loss)


def _fit_standardised(T, y_index, C, weights, loss, center=None, scale=None):
    """The two-class SVM on ``(T - center) / scale`` (StandardScaler's when None), weights
    returned in ``T``'s units."""
    if center is None:
        center, scale = column_scaling(T)
    Z = (T - center) / scale
    # One BLAS thread: on shared machines two-thread products of these sizes were 2-5x slower.
    with one_blas_thread():
        if loss == "squared_hinge":
            w_std, b_std = _fit_primal(Z, y_index, C, weights)
        else:
            w_std, b_std = WorkingSetSVM(Z, y_index, C, weights).fit()
    w = w_std / scale
    return w, float(b_std - w @ center)


def ovr_class_weight(class_weight, k):
    """The class weight of the one-vs-rest problem of class index ``k`` (``k``: 1, rest: 0).

    "balanced" balances ``k`` against the rest within that problem (each side weighs half,
    the aim of the balanced error rate); a dict keyed by class index gives class ``k`` its
    weight and the rest 1 (liblinear's one-vs-rest convention, as ``LinearSVC``); None: 1.

    Examples
    --------
    >>> from slb.model.svm import ovr_class_weight
    >>> ovr_class_weight({2: 5.0}, 2), ovr_class_weight({2: 5.0}, 0)
    ({0: 1.0, 1: 5.0}, {0: 1.0, 1: 1.0})
    """
    if isinstance(class_weight, dict):
        return {0: 1.0, 1: float(class_weight.get(k, 1.0))}
    return class_weight


#: The linear model of the K-class SLB (K > 2), chosen by the protocol of ``docs/multiclass.md``
#: (18 synthetic K-class designs): multinomial logistic regression had the lowest mean BER,
#: 0.96 points below one-vs-rest hinge SVMs (Wilcoxon p = 0.0003, Holm 0.0005) and 0.74 below
#: Crammer-Singer.  Two classes keep the binary SLB's hinge SVM.
MULTICLASS_FORMULATIONS = ("multinomial", "ovr")


def fit_linear_model(
    T,
    y_index,
    *,
    C=1.0,
    class_weight="balanced",
    n_classes=2,
    formulation=None,
    loss=None,
    anchor=None,
    n_features=None,
):
    """The linear model of SLB, LU and SLB- on the map ``T``: one per class score.

    Two classes: :func:`fit_linear_svm` (one hinge-loss hyperplane, positive for class index
    1), the binary SLB.  More: multinomial logistic regression on the standardised K-block map
    (scikit-learn's ``LogisticRegression``, L2 penalty of cost ``C``, unpenalised intercepts,
    "balanced" class weights over the K classes), one row of weights per class, the prediction
    the largest of the K scores; ``docs/multiclass.md`` gives the protocol that chose it over
    one-vs-rest hinge SVMs (``formulation="ovr"``, kept for that protocol) and Crammer-Singer.

    Parameters
    ----------
    T : ndarray of shape (n_samples, n_terms)
    y_index : ndarray of shape (n_samples,)
        Class indices 0 .. n_classes - 1.
    C : float
    class_weight : "balanced", dict (keyed by class index) or None
    n_classes : int
    formulation : {"multinomial", "ovr"} or None
        More than two classes only; None: ``"multinomial"``.
    loss : {"hinge", "squared_hinge"} or None
        Two classes only; None: :data:`DEFAULT_LOSS`.
    anchor : None, "none" or "naive_bayes"
        None or "none": no anchor.  ``"naive_bayes"``: the penalty spares the
        :func:`anchor_columns` (needs ``n_features``), so small ``C`` gives (a rescaled) KDE naive
        Bayes rather than a constant; the returned weights are on ``T``'s columns as always.
    n_features : int or None
        Features of the map (its first ``n_classes * n_features`` columns are univariate).

    Returns
    -------
    coef : ndarray of shape (1, n_terms) for two classes, else (n_classes, n_terms)
    intercept : ndarray of shape (1,) or (n_classes,)
        :func:`linear_decision` gives the decision values.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.svm import fit_linear_model, linear_decision
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1, 2], 20)
    >>> T = rng.normal(size=(60, 3)) + 3 * np.eye(3)[y]
    >>> coef, intercept = fit_linear_model(T, y, C=1.0, n_classes=3)
    >>> coef.shape, intercept.shape
    ((3, 3), (3,))
    >>> float(np.mean(linear_decision(T, coef, intercept).argmax(axis=1) == y)) > 0.9
    True
    """
    loss, anchor = _settings(loss, anchor)
    if anchor is not None and T.shape[1] > 0:
        if n_features is None:
            raise ValueError("anchor='naive_bayes' needs n_features.")
        Ta, mu, sd = _with_anchor(T, n_features, n_classes)
        n_anchor = Ta.shape[1] - T.shape[1]
        if n_classes == 2:
            center, scale = column_scaling(T)
            center, scale = np.append(center, mu), np.append(scale, sd)
            w, b = _fit_standardised(
                Ta, y_index, C, class_weights(class_weight, y_index), loss, center, scale
            )
            coef, intercept = w.reshape(1, -1), np.array([b])
        else:
            coef, intercept = _fit_multiclass(
                Ta, y_index, C, class_weight, n_classes, formulation, n_anchor, mu, sd
            )
        return _fold_anchor(coef, intercept, n_anchor, n_features, n_classes)
    if n_classes == 2:
        w, b = fit_linear_svm(T, y_index, C=C, class_weight=class_weight, loss=loss)
        return np.asarray(w, dtype=float).reshape(1, -1), np.array([float(b)])
    return _fit_multiclass(T, y_index, C, class_weight, n_classes, formulation)


def _fit_multiclass(
    T, y_index, C, class_weight, n_classes, formulation, n_anchor=0, mu=None, sd=None
):
    """K > 2 classes: multinomial logistic regression (or one-vs-rest hinge SVMs) on the
    standardised map; the last ``n_anchor`` columns standardised by ``(mu, sd)`` instead."""
    formulation = "multinomial" if formulation is None else formulation
    if formulation not in MULTICLASS_FORMULATIONS:
        raise ValueError(
            f"formulation must be one of {', '.join(MULTICLASS_FORMULATIONS)}, got {formulation!r}."
        )
    coef, intercept = np.zeros((n_classes, T.shape[1])), np.zeros(n_classes)
    if T.shape[1] == 0:
        return coef, intercept
    center, scale = column_scaling(T)
    if n_anchor:
        center[-n_anchor:], scale[-n_anchor:] = mu, sd
    Z = (T - center) / scale
    with one_blas_thread():
        if formulation == "multinomial":
            lr = LogisticRegression(C=float(C), class_weight=class_weight, max_iter=5000)
            with warnings.catch_warnings():
                # a separable map: the weights grow until max_iter; the argmax is settled
                warnings.simplefilter("ignore", ConvergenceWarning)
                lr.fit(Z, np.asarray(y_index))
            w_std, b_std = np.zeros_like(coef), np.zeros_like(intercept)
            w_std[lr.classes_], b_std[lr.classes_] = lr.coef_, lr.intercept_
            coef = w_std / scale
            intercept = b_std - coef @ center
            return coef, intercept
        for k in range(n_classes):
            yb = (np.asarray(y_index) == k).astype(int)
            cw = class_weights(ovr_class_weight(class_weight, k), yb)
            w_std, b_std = WorkingSetSVM(Z, yb, C, cw).fit()
            coef[k] = w_std / scale
            intercept[k] = float(b_std - coef[k] @ center)
    return coef, intercept


def linear_decision(T, coef, intercept):
    """Decision values of :func:`fit_linear_model`'s model: shape (n,) for one hyperplane
    (two classes), (n, n_classes) for one per class.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.svm import linear_decision
    >>> T = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> linear_decision(T, np.array([[2.0, -1.0]]), np.array([0.5])).tolist()
    [2.5, -0.5]
    """
    if coef.shape[0] == 1:
        return T @ coef[0] + intercept[0]
    return T @ coef.T + intercept


def column_scaling(T, chunk_bytes=64 * 2**20):
    """Column means and scales of ``T`` as :class:`~sklearn.preprocessing.StandardScaler` has them.

    Computed over column blocks of at most ``chunk_bytes``, so a wide map needs no temporary
    of its own size.

    Parameters
    ----------
    T : ndarray of shape (n_samples, n_columns)
    chunk_bytes : int

    Returns
    -------
    center, scale : ndarray of shape (n_columns,)

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.svm import column_scaling
    >>> center, scale = column_scaling(np.array([[1.0, 10.0], [3.0, 10.0], [5.0, 10.0]]))
    >>> center.tolist(), scale.round(3).tolist()  # a constant column keeps scale 1
    ([3.0, 10.0], [1.633, 1.0])
    """
    n, p = T.shape
    center, scale = np.zeros(p), np.ones(p)
    step = max(1, int(chunk_bytes // (8 * max(n, 1))))
    for a in range(0, p, step):
        sc = StandardScaler().fit(T[:, a : a + step])
        center[a : a + step], scale[a : a + step] = sc.mean_, sc.scale_
    return center, scale


def grid_mask_predictions(
    T_train,
    y_train,
    T_test,
    masks,
    Cs,
    class_weight,
    n_classes=2,
    *,
    loss=None,
    anchor=None,
    n_features=None,
):
    """Test predictions of :func:`fit_linear_model` for every column mask and every ``C``.

    The same SVM as :func:`fit_linear_svm` on ``T_train[:, m]`` (columns standardised on the
    training rows), for each mask ``m`` and cost ``C``.  Neither map is copied whole: the
    solver standardises the blocks it reads.  Nested masks (SLB's candidate thresholds) share
    the kernel, grown mask by mask in order of size; up to :data:`GRAM_MAX_SAMPLES` training
    rows each mask's kernel also serves every ``C``; above, each ``C``'s working set starts
    from the previous ``C``'s (pass ``Cs`` increasing).  More than two classes: one
    :func:`fit_linear_model` (multinomial) per mask and ``C``, the prediction the class of the
    largest score.

    Parameters
    ----------
    T_train : ndarray of shape (n_train, n_terms)
    y_train : ndarray of shape (n_train,)
        Class indices 0 .. n_classes - 1.
    T_test : ndarray of shape (n_test, n_terms)
    masks : list of ndarray of bool
        Column masks; fastest when nested (each contains the smaller ones).
    Cs : list of float
    class_weight : "balanced", dict (keyed by class index) or None
    n_classes : int, default=2
    loss, anchor, n_features
        As in :func:`fit_linear_model`.

    Returns
    -------
    preds : list (one per ``C``) of lists (one per mask) of ndarray
        Class-index predictions of the test rows.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.svm import grid_mask_predictions
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 30)
    >>> T = rng.normal(size=(60, 4))
    >>> T[:, 0] += 2 * y  # only the first column separates the classes
    >>> masks = [np.array([True, False, False, False]), np.ones(4, dtype=bool)]
    >>> tr, te = np.arange(0, 60, 2), np.arange(1, 60, 2)
    >>> preds = grid_mask_predictions(T[tr], y[tr], T[te], masks, [0.1, 1.0], "balanced")
    >>> len(preds), len(preds[0])  # (C, mask)
    (2, 2)
    >>> [[round(float(np.mean(p == y[te])), 2) for p in row] for row in preds]  # accuracy
    [[0.9, 0.87], [0.9, 0.9]]
    """
    loss, anchor = _settings(loss, anchor)
    if anchor is not None:
        if n_features is None:
            raise ValueError("anchor='naive_bayes' needs n_features.")
        T_train, mu, sd = _with_anchor(T_train, n_features, n_classes)
        T_test = np.hstack([T_test, anchor_columns(T_test, n_features, n_classes)])
        masks = [np.append(m, np.ones(T_train.shape[1] - m.size, dtype=bool)) for m in masks]
    if n_classes == 2 and (loss == "squared_hinge" or anchor is not None):
        weights = class_weights(class_weight, y_train)
        center, scale = column_scaling(T_train)
        if anchor is not None:
            center[-1], scale[-1] = mu[0], sd[0]
        if loss == "squared_hinge":
            return _grid_mask_primal(T_train, y_train, T_test, masks, Cs, weights, center, scale)
        preds = [[None] * len(masks) for _ in Cs]
        for g, m in enumerate(masks):
            for j, C in enumerate(Cs):
                if not m.any():
                    preds[j][g] = np.zeros(T_test.shape[0], dtype=int)
                    continue
                w, b = _fit_standardised(
                    T_train[:, m], y_train, C, weights, loss, center[m], scale[m]
                )
                preds[j][g] = ((T_test[:, m] @ w + b) > 0).astype(int)
        return preds
    if n_classes == 2:
        dec = _grid_mask_decisions(
            T_train, y_train, T_test, masks, Cs, class_weights(class_weight, y_train)
        )
        empty = np.zeros(T_test.shape[0], dtype=int)  # no column: the first class
        return [[empty if d is None else (d > 0).astype(int) for d in row] for row in dec]
    preds = [[None] * len(masks) for _ in Cs]
    for g, m in enumerate(masks):
        for j, C in enumerate(Cs):
            if not m.any():
                preds[j][g] = np.zeros(T_test.shape[0], dtype=int)
                continue
            if anchor is not None:
                coef, b = _fit_multiclass(
                    T_train[:, m], y_train, C, class_weight, n_classes, None, n_classes, mu, sd
                )
            else:
                coef, b = fit_linear_model(
                    T_train[:, m], y_train, C=C, class_weight=class_weight, n_classes=n_classes
                )
            preds[j][g] = np.argmax(linear_decision(T_test[:, m], coef, b), axis=1)
    return preds


def _grid_mask_primal(T_train, y_train, T_test, masks, Cs, weights, center, scale):
    """:func:`grid_mask_predictions` for the squared hinge: one warm-started Newton path
    (:class:`slb.model.primal.SquaredHingePath`) over the masks in order of size and the costs
    in a snake order (increasing on one mask, decreasing on the next), so each fit starts at
    the previous solution.  Every fit is exact (finite Newton), so each cell equals a
    from-scratch :func:`fit_linear_svm` to rounding."""
    preds = [[None] * len(masks) for _ in Cs]
    empty = np.zeros(T_test.shape[0], dtype=int)  # no column: the first class
    order = np.argsort([int(m.sum()) for m in masks], kind="stable")
    with one_blas_thread():
        path = SquaredHingePath(
            T_train, y_train, weights, PRIMAL_INTERCEPT_SCALING, center=center, scale=scale
        )
        forward = True
        for g in order:
            m = masks[g]
            if not m.any():
                for j in range(len(Cs)):
                    preds[j][g] = empty
                continue
            cols = np.flatnonzero(m)
            Zte = (T_test[:, cols] - center[cols]) / scale[cols]
            js = range(len(Cs)) if forward else range(len(Cs) - 1, -1, -1)
            for j in js:
                w, b = path.fit(cols, Cs[j])
                preds[j][g] = ((Zte @ w + b) > 0).astype(int)
            forward = not forward
    return preds


def _grid_mask_decisions(T_train, y_train, T_test, masks, Cs, weights):
    """Test decision values of the binary SVM (0/1 ``y_train``, cost weights ``weights``) for
    every column mask and ``C``: a list per ``C`` of a list per mask (None: empty mask)."""
    with one_blas_thread():
        center, scale = column_scaling(T_train)
        order = np.argsort([int(m.sum()) for m in masks], kind="stable")
        dec = [[None] * len(masks) for _ in Cs]

        def decision(m, w, b):
            Zte = T_test[:, m]  # a copy of the test rows' columns only
            Zte -= center[m]
            Zte /= scale[m]
            return Zte @ w + b

        def solver(C, start=None):
            return WorkingSetSVM(
                T_train, y_train, C, weights, center=center, scale=scale, initial_rows=start
            )

        if y_train.size <= GRAM_MAX_SAMPLES:
            # The full kernel depends on the columns only: one per mask for the whole C grid.
            ws = solver(Cs[0])
            for g in order:
                m = masks[g]
                if not m.any():
                    continue
                ws.use_columns(m)
                for j, C in enumerate(Cs):
                    ws.C = C
                    dec[j][g] = decision(m, *ws.fit())
            return dec
        start = None
        for j, C in enumerate(Cs):
            ws, first = solver(C, start), None
            for g in order:
                m = masks[g]
                if not m.any():
                    continue
                ws.use_columns(m)
                dec[j][g] = decision(m, *ws.fit())
                if first is None and ws.rows is not None:
                    first = ws.rows.copy()  # the working set of the sparsest mask
            # Warm start of the next C's sparsest mask (none after a fallback).
            start = first
        return dec


def nested_mask_predictions(T, y_index, tr, te, masks, C, class_weight, n_classes=2):
    """Test predictions of :func:`fit_linear_svm` on ``T[tr][:, m]`` for column masks ``m``.

    One ``C`` of :func:`grid_mask_predictions` (the same SVM as :func:`fit_linear_svm` on each
    mask; nested masks share the kernel and the working set).

    Parameters
    ----------
    T : ndarray of shape (n_samples, n_terms)
    y_index : ndarray of shape (n_samples,)
    tr, te : ndarray of int
        Training and test rows.
    masks : list of ndarray of bool
        Column masks; fastest when nested (each contains the smaller ones).
    C : float
    class_weight : "balanced", dict (keyed 0/1) or None

    Returns
    -------
    preds : list of ndarray
        0/1 predictions of the rows ``te``, one per mask, in the order of ``masks``.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.model.svm import nested_mask_predictions
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 30)
    >>> T = rng.normal(size=(60, 4))
    >>> T[:, 0] += 2 * y  # only the first column separates the classes
    >>> masks = [np.array([True, False, False, False]), np.ones(4, dtype=bool)]
    >>> tr, te = np.arange(0, 60, 2), np.arange(1, 60, 2)
    >>> preds = nested_mask_predictions(T, y, tr, te, masks, 1.0, "balanced")
    >>> [round(float(np.mean(p == y[te])), 2) for p in preds]
    [0.9, 0.9]
    """
    return grid_mask_predictions(T[tr], y_index[tr], T[te], masks, [C], class_weight, n_classes)[0]
