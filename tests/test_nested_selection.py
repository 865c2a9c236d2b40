"""Nested selection of lambda and C (honest numbers).

* With permuted labels the true BER is 50 %: the inner-CV table of the default SLB must not
  report much less (it did: 0.4-20 % on tied data when the inner CV reused a whole-training-set
  leave-one-out map), and the outer CV of the whole estimator must be near 50 %.
* The joint (lambda, C) selection must equal a slow, independent reference: scikit-learn's
  ``GridSearchCV`` over an SLB with fixed threshold and C, on the same inner folds.
"""

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from slb import ForestDensityClassifier, LUClassifier, SLBClassifier
from slb.dependence.screening import pair_scores, top_fraction_threshold
from slb.evaluation import balanced_error_rate
from slb.model.classifier import DEFAULT_CS, DEFAULT_FRACTIONS


def _continuous(rng, n):
    Z = rng.normal(size=(n, 8))
    Z[:, 1] += 0.8 * Z[:, 0]
    Z[:, 3] += np.sin(2 * Z[:, 2])
    return Z


def _tied(rng, n):
    # integer lab values with few levels (like the liver data): heavy ties in every column
    return np.round(_continuous(rng, n) * 1.2)


def _one_hot(rng, n):
    cols = []
    for levels in (3, 4, 3):
        c = rng.integers(0, levels, size=n)
        cols.append(np.eye(levels)[c])
    cols.append(rng.normal(size=(n, 2)))
    return np.hstack(cols)


SHAPES = {"continuous": _continuous, "tied": _tied, "one_hot": _one_hot}


def _permuted(shape, n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = SHAPES[shape](rng, n)
    y = rng.permutation(np.r_[np.zeros(n * 2 // 5, int), np.ones(n - n * 2 // 5, int)])
    return X, y


@pytest.mark.slow
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_permuted_labels_inner_and_outer_cv_near_chance(shape):
    X, y = _permuted(shape)
    clf = SLBClassifier(random_state=0).fit(X, y)
    inner = np.asarray(clf.cv_results_["mean_ber"])
    # 70 SLB cells, then naive Bayes and TAN (the generative candidates of the default)
    assert inner.size == len(DEFAULT_FRACTIONS) * len(DEFAULT_CS) + 2
    # the minimum over 72 candidates of 5-fold BERs at n = 300: within sampling noise of 50 %
    assert inner.min() >= 0.40, inner.min()
    assert np.median(inner) >= 0.45
    outer = [
        balanced_error_rate(y[te], SLBClassifier(random_state=0).fit(X[tr], y[tr]).predict(X[te]))
        for tr, te in StratifiedKFold(5, shuffle=True, random_state=1).split(X, y)
    ]
    assert abs(np.mean(outer) - 0.5) <= 0.08, outer


def test_permuted_labels_leave_one_out_features_leak_on_tied_data():
    # the documented reason for the cross-fitted default: LOO training features of tied data
    # carry the label (a row's own-class density loses its kernel), so an SVM trained on them
    # separates *permuted* labels in training and fails on new rows.
    X, y = _permuted("tied", n=300, seed=3)
    tr, te = next(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    fits = {
        tf: LUClassifier(C=10.0, training_features=tf, random_state=0).fit(X[tr], y[tr])
        for tf in ("loo", "kfold")
    }
    T_loo = fits["loo"].transformer_.fit_transform(X[tr], y[tr])
    w, b = fits["loo"].coef_[0], fits["loo"].intercept_[0]
    train_ber_loo = balanced_error_rate(y[tr], (T_loo @ w + b > 0).astype(int))
    assert train_ber_loo < 0.35  # the leak: permuted labels look learnable in training
    for tf, m in fits.items():
        assert balanced_error_rate(y[te], m.predict(X[te])) > 0.38, tf  # nothing to learn


def _reference_grid_search(X, y, grid, Cs, seed, k):
    """GridSearchCV over an SLB with a fixed threshold and C, on SLB's own inner folds."""
    ref = GridSearchCV(
        SLBClassifier(random_state=seed),
        {"threshold": list(grid), "C": list(Cs)},
        cv=StratifiedKFold(k, shuffle=True, random_state=seed),
        scoring="balanced_accuracy",
        refit=False,
    ).fit(X, y)
    r = ref.cv_results_
    # (threshold, C) -> per-fold BERs
    return {
        (p["threshold"], p["C"]): np.array([1 - r[f"split{f}_test_score"][i] for f in range(k)])
        for i, p in enumerate(r["params"])
    }


def test_joint_selection_equals_grid_search_reference():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 5))
    y = (X[:, 0] * X[:, 1] + 0.5 * X[:, 2] + 0.7 * rng.normal(size=120) > 0).astype(int)
    grid, Cs, seed, k = [0.002, 0.01, 0.04, 1e9], [0.05, 0.5, 5.0], 11, 3
    clf = SLBClassifier(
        threshold="cv",
        thresholds=grid,
        C="cv",
        Cs=Cs,
        cv=k,
        random_state=seed,
        generative_candidates=False,  # SLB's own grid (NB and TAN: test_selection_options.py)
    )
    clf.fit(X, y)
    ref = _reference_grid_search(X, y, grid, Cs, seed, k)
    res = clf.cv_results_
    rows = list(zip(res["param_threshold"], res["param_C"], strict=True))
    assert sorted(rows) == sorted(ref)
    for i, key in enumerate(rows):
        got = np.array([res[f"split{f}_ber"][i] for f in range(k)])
        np.testing.assert_allclose(got, ref[key], atol=1e-12, err_msg=str(key))
    # the choice: lowest mean; ties go to the sparser model (larger threshold), then smaller C
    mean = {key: v.mean() for key, v in ref.items()}
    best = min(mean.values())
    tied = [key for key, m in mean.items() if m <= best + 1e-9]
    want = sorted(tied, key=lambda t: (-t[0], t[1]))[0]
    assert (clf.threshold_, clf.C_) == want
    assert rows[clf.best_index_] == want
    # the final model is the fixed-parameter SLB at the chosen values
    fixed = SLBClassifier(threshold=want[0], C=want[1], random_state=seed).fit(X, y)
    np.testing.assert_allclose(clf.coef_, fixed.coef_, rtol=1e-9)


def test_default_grid_keeps_the_top_fraction_in_every_split():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(150, 7))
    X[:, 1] += X[:, 0]
    y = (X[:, 2] + rng.normal(size=150) > 0).astype(int)
    clf = SLBClassifier(random_state=0, Cs=[0.1], generative_candidates=False).fit(X, y)
    n_all = 21
    expected = [min(int(np.ceil(q * n_all - 1e-9)), n_all) for q in DEFAULT_FRACTIONS]
    # continuous data: no tied scores, so each split keeps exactly the top ceil(q * 21) pairs
    np.testing.assert_array_equal(clf.cv_results_["mean_n_pairs"], expected)
    assert clf.fraction_ in DEFAULT_FRACTIONS
    k = min(int(np.ceil(clf.fraction_ * n_all - 1e-9)), n_all)
    assert len(clf.pairs_) == k
    assert clf.threshold_ == top_fraction_threshold(
        np.vstack([clf.dependence_[c][np.triu_indices(7, 1)] for c in (0, 1)]), clf.fraction_
    )
    assert (
        np.sum(
            pair_scores(np.vstack([clf.dependence_[c][np.triu_indices(7, 1)] for c in (0, 1)]))
            >= clf.threshold_
        )
        == k
    )


def test_lu_and_slb_minus_select_c_by_nested_cv():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(100, 4))
    y = (X[:, 0] + rng.normal(size=100) > 0).astype(int)
    for est in (LUClassifier(random_state=0), ForestDensityClassifier(random_state=0)):
        m = est.fit(X, y)
        assert m.C_ in DEFAULT_CS
        assert len(m.cv_results_["mean_ber"]) == len(DEFAULT_CS)
        fixed = type(est)(C=m.C_, random_state=0).fit(X, y)
        assert not hasattr(fixed, "cv_results_")
        np.testing.assert_allclose(m.coef_, fixed.coef_, rtol=1e-9)


def test_fixed_parameters_do_not_select():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    m = SLBClassifier(threshold=0.01, C=0.3).fit(X, y)
    assert m.C_ == 0.3 and m.threshold_ == 0.01
    assert not hasattr(m, "cv_results_")
    with pytest.raises(ValueError, match="'C' parameter"):
        SLBClassifier(C="auto").fit(X, y)
    with pytest.raises(ValueError, match="Cs must be"):
        SLBClassifier(Cs=[-1.0]).fit(X, y)
    with pytest.raises(ValueError, match="screening_score"):
        SLBClassifier(screening_score="z").fit(X, y)
