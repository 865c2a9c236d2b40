"""Every private scikit-learn name slb uses, in one module, behind a version check.

scikit-learn offers no public entry for these; each is imported here only, with the versions
it was checked on (``tests/test_sklearn_compat.py`` fails loudly when one moves or changes,
and a source scan there refuses a private scikit-learn import anywhere else), as
imbalanced-learn's ``utils/_sklearn_compat.py`` does:

* ``Interval``, ``StrOptions`` (``sklearn.utils._param_validation``): the declarative
  ``_parameter_constraints`` that ``BaseEstimator._validate_params`` checks (the estimators'
  parameter validation, with scikit-learn's own messages);
* ``sigmoid_calibration`` (``sklearn.calibration._sigmoid_calibration``): Platt's fit with his
  smoothed targets, the one behind ``CalibratedClassifierCV(method="sigmoid")``;
* ``Tree``, ``NODE_DTYPE`` (``sklearn.tree._tree``): a decision tree rebuilt from the numbers
  of a JSON model file (never a pickle);
* :func:`libsvm_fit` (``sklearn.svm._libsvm.fit``): libsvm's C-SVC on a precomputed kernel
  without ``SVC``'s per-call validation, which cost about three times libsvm's own solve on
  Sonar's folds (a measurement of ``benchmarks/speed.py``; the selection makes hundreds of
  these fits).  Whether the direct call gives ``SVC``'s numbers is checked once, on a small
  problem, the first time it is needed; if it does not (a newer scikit-learn changed it),
  every fit goes through the public ``SVC`` (the same numbers, slower) and
  :data:`LIBSVM_DIRECT` says so.
"""

from __future__ import annotations

import numpy as np
import sklearn
from sklearn.svm import SVC
from sklearn.utils.fixes import parse_version

__all__ = [
    "NODE_DTYPE",
    "SKLEARN_VERSION",
    "TESTED_SKLEARN",
    "Interval",
    "StrOptions",
    "Tree",
    "libsvm_direct",
    "libsvm_fit",
    "sigmoid_calibration",
]

SKLEARN_VERSION = parse_version(sklearn.__version__)
#: The scikit-learn releases these private names were checked on (the CI jobs at the minimum
#: and at the newest version run ``tests/test_sklearn_compat.py``).
TESTED_SKLEARN = ("1.6", "1.9")


def _moved(what, err):
    return ImportError(
        f"slb uses scikit-learn's private {what}, which this scikit-learn "
        f"({sklearn.__version__}) does not have ({err}); slb was checked on scikit-learn "
        f"{TESTED_SKLEARN[0]} to {TESTED_SKLEARN[1]}: install a version in that range."
    )


try:
    from sklearn.utils._param_validation import Interval, StrOptions
except ImportError as err:  # pragma: no cover - depends on the installed scikit-learn
    raise _moved("sklearn.utils._param_validation (Interval, StrOptions)", err) from err
try:
    from sklearn.calibration import _sigmoid_calibration as sigmoid_calibration
except ImportError as err:  # pragma: no cover
    raise _moved("sklearn.calibration._sigmoid_calibration", err) from err
try:
    from sklearn.tree._tree import NODE_DTYPE, Tree
except ImportError as err:  # pragma: no cover
    raise _moved("sklearn.tree._tree (Tree, NODE_DTYPE)", err) from err
try:
    from sklearn.svm import _libsvm
except ImportError:  # pragma: no cover - then every fit goes through SVC
    _libsvm = None

#: libsvm's stopping tolerance of every SLB fit (scikit-learn's default).
TOL = 1e-3

#: Whether :func:`libsvm_fit` calls libsvm directly (None: not checked yet).
LIBSVM_DIRECT = None


def _direct_fit(K, y, C, weights, tol):
    _libsvm.set_verbosity_wrap(0)  # process-wide in libsvm; SVC sets it before every fit too
    support, _, _, dual, intercept, *_ = _libsvm.fit(
        K,
        y,
        svm_type=0,  # C-SVC
        sample_weight=np.empty(0),
        class_weight=np.asarray(weights, dtype=np.float64),
        kernel="precomputed",
        C=float(C),
        nu=0.5,
        probability=False,
        degree=3,
        shrinking=True,
        tol=tol,
        cache_size=200,
        coef0=0.0,
        gamma=0.0,
        epsilon=0.0,
        max_iter=-1,
        random_seed=0,
    )
    return -dual.ravel(), support, -float(intercept[0])  # SVC flips both for two classes


def svc_fit(K, y, C, weights, tol=TOL):
    """libsvm's C-SVC on the precomputed kernel ``K`` through the public ``SVC``.

    Returns
    -------
    dual : ndarray of shape (n_support,)
        ``SVC.dual_coef_`` (signed dual coefficients).
    support : ndarray of int
    intercept : float
    """
    svm = SVC(
        kernel="precomputed", C=float(C), class_weight={0: weights[0], 1: weights[1]}, tol=tol
    )
    svm.fit(K, y)
    return svm.dual_coef_.ravel(), svm.support_, float(svm.intercept_[0])


def libsvm_direct():
    """Whether the direct libsvm entry gives ``SVC``'s numbers here (checked once, on a
    small problem whose solution has bound and free support vectors)."""
    global LIBSVM_DIRECT
    if LIBSVM_DIRECT is None:
        LIBSVM_DIRECT = False
        if _libsvm is not None:
            rng = np.random.default_rng(0)
            Z = rng.normal(size=(40, 3))
            y = (Z[:, 0] + 0.5 * rng.normal(size=40) > 0).astype(np.float64)
            K = Z @ Z.T
            try:
                got = _direct_fit(K, y, 1.0, np.array([1.0, 2.0]), TOL)
            except (TypeError, AttributeError, ValueError):
                got = None
            want = svc_fit(K, y, 1.0, np.array([1.0, 2.0]))
            LIBSVM_DIRECT = got is not None and all(
                np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(got, want, strict=True)
            )
    return LIBSVM_DIRECT


def libsvm_fit(K, y, C, weights, tol=TOL):
    """libsvm's C-SVC on the precomputed kernel ``K``: (dual coefficients, support, intercept).

    Exactly what ``SVC(kernel="precomputed", C=C, class_weight={0: w0, 1: w1}, tol=tol)
    .fit(K, y)`` computes (signs as its ``dual_coef_`` and ``intercept_``): through libsvm
    directly when :func:`libsvm_direct`, else through ``SVC``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        C-contiguous float64 kernel.
    y : ndarray of shape (n,)
        0/1 labels as float64.
    C : float
    weights : array-like of shape (2,)
        Cost weights of class 0 and class 1.
    tol : float, default=1e-3

    Returns
    -------
    dual : ndarray
    support : ndarray of int
    intercept : float

    Examples
    --------
    >>> import numpy as np
    >>> from slb._sklearn_compat import libsvm_fit
    >>> Z = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> dual, support, b = libsvm_fit(Z @ Z.T, np.array([0.0, 0.0, 1.0, 1.0]), 10.0, [1, 1])
    >>> support.tolist(), abs(round(b, 6))
    ([1, 2], 0.0)
    """
    if libsvm_direct():
        return _direct_fit(K, y, C, weights, tol)
    return svc_fit(K, y, C, weights, tol)
