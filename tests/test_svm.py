"""The linear SVM solvers of :mod:`slb.model.svm` solve e1071's problem at every size.

The working-set decomposition (used above ``GRAM_MAX_SAMPLES`` rows) is checked against an
independent solve of the same problem: scikit-learn's ``SVC(kernel="linear")`` on all rows
(libsvm with its own kernel evaluations), by the primal objective and the weights.  Sizes are
small: the size thresholds are lowered with ``monkeypatch`` so that the decomposition runs on a
few hundred rows.
"""

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import slb.model.path as path_module
from slb import SLBClassifier
from slb.model import svm
from slb.model.svm import (
    WorkingSetSVM,
    class_weights,
    fit_linear_svm,
    index_class_weight,
    nested_mask_predictions,
)


def make_data(n, p, sep, seed):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.normal(size=(n, p))
    X[:, :3] += sep * (y[:, None] - 0.5)
    X[:, 3:] += 0.5 * X[:, :1]  # correlated columns, like log-densities of pairs
    return X, y


def primal(Z, y, w, b, C, weights):
    s = np.where(y == 1, 1.0, -1.0)
    hinge = np.maximum(0.0, 1.0 - s * (Z @ w + b))
    return 0.5 * w @ w + C * np.sum(weights[y] * hinge)


def reference(Z, y, C, weights, tol=1e-7):
    ref = SVC(kernel="linear", C=C, class_weight={0: weights[0], 1: weights[1]}, tol=tol)
    ref.fit(Z, y)
    return ref.coef_.ravel(), float(ref.intercept_[0])


@pytest.fixture
def small_thresholds(monkeypatch):
    monkeypatch.setattr(svm, "GRAM_MAX_SAMPLES", 100)
    monkeypatch.setattr(svm, "_INITIAL_ROWS", 60)
    monkeypatch.setattr(svm, "_MIN_ADDED_ROWS", 8)


@pytest.mark.parametrize("sep", [1.0, 2.5])
@pytest.mark.parametrize("C", [0.03, 1.0])
def test_working_set_solves_the_full_problem(small_thresholds, sep, C):
    X, y = make_data(600, 12, sep, seed=int(10 * sep + C))
    y[:50] = 1  # unequal classes: the class weights matter
    Z = StandardScaler().fit_transform(X)
    weights = class_weights("balanced", y)
    ws = WorkingSetSVM(Z, y, C, weights, tol=1e-6, max_rows=550)  # default: half the rows
    w, b = ws.fit()
    assert ws.rows is not None and ws.rows.size < Z.shape[0]  # it did decompose
    w_ref, b_ref = reference(Z, y, C, weights)
    f, f_ref = primal(Z, y, w, b, C, weights), primal(Z, y, w_ref, b_ref, C, weights)
    assert f == pytest.approx(f_ref, rel=1e-6)
    np.testing.assert_allclose(w, w_ref, atol=1e-3 * np.abs(w_ref).max())
    assert b == pytest.approx(b_ref, abs=1e-3 * max(1.0, abs(b_ref)))


@pytest.mark.parametrize("class_weight", ["balanced", None, {0: 2.0, 1: 0.5}])
def test_class_weights_are_scikit_learns(class_weight):
    from sklearn.utils.class_weight import compute_class_weight

    rng = np.random.default_rng(0)
    for y in (
        (rng.random(97) < 0.3).astype(int),
        (rng.random(208) < 0.5).astype(np.int32),
        rng.random(41) < 0.8,  # bool
        np.array([0, 1]),
    ):
        want = compute_class_weight(class_weight, classes=np.array([0, 1]), y=y)
        got = class_weights(class_weight, y)
        assert got.dtype == np.float64 and np.array_equal(got, want)  # bit for bit
    if class_weight == "balanced":  # a class absent: scikit-learn's error
        with pytest.raises(ValueError, match="classes"):
            class_weights(class_weight, np.zeros(5, dtype=int))


def test_fit_linear_svm_same_solution_on_both_paths(monkeypatch):
    # full kernel (n <= GRAM_MAX_SAMPLES) vs working set: the same weights in T's units
    X, y = make_data(500, 8, 1.5, seed=3)
    T = 3.0 * X + 1.0  # not standardised: the weights come back in these units
    w_full, b_full = fit_linear_svm(T, y, C=0.1)
    monkeypatch.setattr(svm, "GRAM_MAX_SAMPLES", 100)
    monkeypatch.setattr(svm, "_INITIAL_ROWS", 60)
    w_ws, b_ws = fit_linear_svm(T, y, C=0.1)
    np.testing.assert_allclose(w_ws, w_full, atol=3e-3 * np.abs(w_full).max())
    assert b_ws == pytest.approx(b_full, abs=3e-3 * max(1.0, abs(b_full)))
    Z = StandardScaler().fit_transform(T)
    assert np.mean((T @ w_ws + b_ws > 0) == (T @ w_full + b_full > 0)) >= 0.99
    assert np.all(np.isfinite(Z))


def test_too_many_support_vectors_fall_back_to_liblinear(small_thresholds):
    X, y = make_data(600, 6, 0.2, seed=5)  # heavy overlap: most rows are support vectors
    Z = StandardScaler().fit_transform(X)
    weights = class_weights("balanced", y)
    ws = WorkingSetSVM(Z, y, 0.03, weights, max_rows=150)
    w, b = ws.fit()
    assert ws.rows is None and ws.gave_up  # the decomposition gave up
    w_ref, b_ref = reference(Z, y, 0.03, weights)
    # liblinear penalises the intercept (slightly): close to, not equal to, the optimum
    f, f_ref = primal(Z, y, w, b, 0.03, weights), primal(Z, y, w_ref, b_ref, 0.03, weights)
    assert f_ref <= f <= f_ref * 1.01
    # and stays given up for the next column set, without trying a working set again
    ws.use_columns(np.arange(6) < 3)
    w3, b3 = ws.fit()
    assert ws.rows is None and ws.n_rounds_ == 0
    w_ref, b_ref = reference(Z[:, :3], y, 0.03, weights)
    f3 = primal(Z[:, :3], y, w3, b3, 0.03, weights)
    assert primal(Z[:, :3], y, w_ref, b_ref, 0.03, weights) <= f3 * (1 + 1e-9)
    assert f3 <= 1.01 * primal(Z[:, :3], y, w_ref, b_ref, 0.03, weights)
    # by default a working set may hold half the rows
    assert WorkingSetSVM(Z, y, 0.03, weights).max_rows == 300


def test_wide_maps_fall_back_to_the_full_kernel(small_thresholds, monkeypatch):
    monkeypatch.setattr(svm, "FALLBACK_KERNEL_MIN_COLUMNS", 5)
    X, y = make_data(600, 6, 0.2, seed=5)
    Z = StandardScaler().fit_transform(X)
    weights = class_weights("balanced", y)
    ws = WorkingSetSVM(Z, y, 0.03, weights, max_rows=150)
    w, b = ws.fit()
    assert ws.gave_up
    w_ref, b_ref = reference(Z, y, 0.03, weights)
    # libsvm on the full kernel: the optimum itself, not liblinear's approximation of it
    f, f_ref = primal(Z, y, w, b, 0.03, weights), primal(Z, y, w_ref, b_ref, 0.03, weights)
    assert f == pytest.approx(f_ref, rel=1e-5)
    monkeypatch.setattr(svm, "FALLBACK_KERNEL_MAX_SAMPLES", 500)  # too tall: liblinear
    w2, b2 = WorkingSetSVM(Z, y, 0.03, weights, max_rows=150).fit()
    assert not np.allclose(w2, w, rtol=1e-6)


def test_nested_columns_reuse_the_working_set(small_thresholds):
    X, y = make_data(500, 10, 1.5, seed=7)
    Z = StandardScaler().fit_transform(X)
    weights = class_weights("balanced", y)
    ws = WorkingSetSVM(Z, y, 0.1, weights, tol=1e-6)
    masks = [np.arange(10) < k for k in (3, 6, 10)]
    for m in masks:
        ws.use_columns(m)
        w, b = ws.fit()
        w_ref, b_ref = reference(Z[:, m], y, 0.1, weights)
        f = primal(Z[:, m], y, w, b, 0.1, weights)
        assert f == pytest.approx(primal(Z[:, m], y, w_ref, b_ref, 0.1, weights), rel=1e-6)
    # a mask that is not a superset starts afresh and is still right
    ws.use_columns(np.arange(10) >= 5)
    w, b = ws.fit()
    m = np.arange(10) >= 5
    w_ref, b_ref = reference(Z[:, m], y, 0.1, weights)
    assert primal(Z[:, m], y, w, b, 0.1, weights) == pytest.approx(
        primal(Z[:, m], y, w_ref, b_ref, 0.1, weights), rel=1e-6
    )


@pytest.mark.parametrize("n", [90, 400])  # full-kernel path, working-set path
def test_nested_mask_predictions_equal_one_fit_per_mask(small_thresholds, n):
    X, y = make_data(n + 100, 9, 1.2, seed=n)
    tr, te = np.arange(n), np.arange(n, n + 100)
    masks = [np.arange(9) < k for k in (9, 2, 5)] + [np.zeros(9, dtype=bool)]
    preds = nested_mask_predictions(X, y, tr, te, masks, 0.05, "balanced")
    for m, pred in zip(masks, preds, strict=True):
        if not m.any():
            assert np.all(pred == 0)
            continue
        w, b = fit_linear_svm(X[tr][:, m], y[tr], C=0.05)
        # same problem, solved to libsvm's tolerance: at most a row on the boundary differs
        assert np.sum(pred != (X[te][:, m] @ w + b > 0)) <= 1


def test_class_weight_by_label():
    assert index_class_weight({"a": 2.0}, np.array(["a", "b"])) == {0: 2.0, 1: 1.0}
    assert index_class_weight("balanced", np.array([0, 1])) == "balanced"
    assert index_class_weight(None, np.array([0, 1])) is None
    with pytest.raises(ValueError, match="not class labels"):
        index_class_weight({"c": 1.0}, np.array(["a", "b"]))
    with pytest.raises(ValueError, match="positive number"):
        index_class_weight({"a": -1.0}, np.array(["a", "b"]))
    with pytest.raises(ValueError, match="'balanced', None or a dict"):
        index_class_weight("uniform", np.array(["a", "b"]))
    # a dict keyed by labels equal to the balanced weights gives the balanced model
    X, y01 = make_data(160, 4, 1.0, seed=9)
    y01[:30] = 1
    y = np.where(y01 == 1, "b", "a")
    bal = class_weights("balanced", y01)
    by_label = SLBClassifier(
        threshold=0.0, C=0.5, random_state=0, class_weight={"a": bal[0], "b": bal[1]}
    ).fit(X, y)
    balanced = SLBClassifier(threshold=0.0, C=0.5, random_state=0).fit(X, y)
    np.testing.assert_allclose(by_label.coef_, balanced.coef_, rtol=1e-9)
    with pytest.raises(ValueError, match="not class labels"):
        SLBClassifier(threshold=0.0, class_weight={0: 1.0}).fit(X, y)


def test_threaded_internal_cv_gives_the_same_choice(monkeypatch, small_thresholds):
    X, y = make_data(500, 5, 1.0, seed=11)
    X[y == 1, 4] += 0.8 * X[y == 1, 3] ** 2
    monkeypatch.setattr(path_module, "THREADED_MIN_ROWS", 0)
    one = SLBClassifier(random_state=0, n_jobs=1).fit(X, y)
    two = SLBClassifier(random_state=0, n_jobs=2).fit(X, y)
    with pytest.raises(ValueError, match="n_jobs"):
        SLBClassifier(n_jobs=0).fit(X, y)
    np.testing.assert_array_equal(one.cv_results_["mean_ber"], two.cv_results_["mean_ber"])
    assert one.threshold_ == two.threshold_
    np.testing.assert_array_equal(one.coef_, two.coef_)


def test_slb_above_the_kernel_threshold_matches_the_full_kernel(monkeypatch):
    # real sizes, default thresholds: 3400 rows take the working-set path in the final fit and
    # in the threshold CV (2720-row internal folds stay on the full kernel)
    X, y = make_data(3400, 4, 1.0, seed=13)
    X[y == 1, 3] += 0.7 * X[y == 1, 2] ** 2
    fast = SLBClassifier(threshold=0.0, C=0.03, random_state=0).fit(X, y)
    monkeypatch.setattr(svm, "GRAM_MAX_SAMPLES", 10_000)
    full = SLBClassifier(threshold=0.0, C=0.03, random_state=0).fit(X, y)
    w, w_ref = fast.coef_[0], full.coef_[0]
    np.testing.assert_allclose(w, w_ref, atol=2e-3 * np.abs(w_ref).max())
    E = make_data(400, 4, 1.0, seed=14)[0]
    assert np.mean(fast.predict(E) == full.predict(E)) >= 0.995
