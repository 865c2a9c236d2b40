"""The linear-model options of slb.model.svm that Protocol 2 compares (docs/defaults.md):
the squared hinge (the default since the Newton path) and the naive-Bayes anchor (not used)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import LinearSVC

from slb.model import svm
from slb.model.svm import (
    anchor_columns,
    fit_linear_model,
    grid_mask_predictions,
    linear_decision,
)


def _map(n=120, d=4, P=3, K=2, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % K
    T = rng.normal(size=(n, K * d + K * P))
    T[:, : K * d] += 0.8 * np.eye(K)[y].repeat(d, axis=1)  # class c's univariate block
    return T, y, d


def test_the_default_is_the_squared_hinge_without_anchor_everywhere():
    # Protocol 2 of docs/defaults.md: one source of truth, followed by the estimators.
    from slb import ForestDensityClassifier, LUClassifier, SLBClassifier, ThresholdPath

    assert svm.DEFAULT_LOSS == "squared_hinge"
    assert not hasattr(svm, "LINEAR_MODEL")  # no module-level switch
    for est in (SLBClassifier(), LUClassifier(), ForestDensityClassifier(), ThresholdPath()):
        assert est.loss == "squared_hinge"
    T, y, _ = _map()
    np.testing.assert_array_equal(
        fit_linear_model(T, y, C=0.5)[0], fit_linear_model(T, y, C=0.5, loss="squared_hinge")[0]
    )


def test_squared_hinge_is_liblinears_solution_in_the_maps_units():
    T, y, _ = _map()
    coef, b = fit_linear_model(T, y, C=0.5, loss="squared_hinge")
    Z = (T - T.mean(0)) / T.std(0)
    ref = LinearSVC(
        C=0.5,
        loss="squared_hinge",
        dual=False,
        class_weight="balanced",
        intercept_scaling=10.0,
        tol=1e-10,  # liblinear to a tight tolerance: ours is exact (finite Newton)
        max_iter=100_000,
    ).fit(Z, y)
    np.testing.assert_allclose(
        Z @ ref.coef_.ravel() + ref.intercept_[0], linear_decision(T, coef, b), rtol=1e-6, atol=1e-6
    )


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("anchor", [None, "naive_bayes"])
@pytest.mark.parametrize("K", [2, 3])
def test_every_grid_cell_equals_a_from_scratch_fit(loss, anchor, K):
    # The selection table's promise: a (mask, C) cell of the grid predicts exactly what
    # fit_linear_model on that mask's columns predicts.
    T, y, d = _map(K=K)
    perm = np.random.default_rng(1).permutation(120)
    tr, te = np.sort(perm[:70]), np.sort(perm[70:])
    base = np.zeros(T.shape[1], dtype=bool)
    base[: K * d] = True
    masks = [base, base | (np.arange(T.shape[1]) >= K * d)]
    Cs = [0.01, 1.0]
    preds = grid_mask_predictions(
        T[tr], y[tr], T[te], masks, Cs, "balanced", K, loss=loss, anchor=anchor, n_features=d
    )
    for j, C in enumerate(Cs):
        for g, m in enumerate(masks):
            coef, b = fit_linear_model(
                T[tr][:, m], y[tr], C=C, n_classes=K, loss=loss, anchor=anchor, n_features=d
            )
            dec = linear_decision(T[te][:, m], coef, b)
            want = (dec > 0).astype(int) if dec.ndim == 1 else dec.argmax(axis=1)
            np.testing.assert_array_equal(preds[j][g], want)


def test_the_anchor_gives_naive_bayes_at_small_C_and_not_without_it():
    # Penalised toward alpha * w_NB, the smallest C ranks rows as KDE naive Bayes's
    # log-likelihood ratio does; penalised toward 0 (no anchor) it does not.
    T, y, d = _map(n=200, seed=3)
    T[:, 8:] += 1.5 * (2 * y[:, None] - 1)  # pair terms that separate better than NB's
    nb = anchor_columns(T, d, 2).ravel()
    anchored = linear_decision(
        T, *fit_linear_model(T, y, C=1e-5, anchor="naive_bayes", n_features=d, loss="squared_hinge")
    )
    free = linear_decision(T, *fit_linear_model(T, y, C=1e-5, loss="squared_hinge"))
    r_anchor = abs(np.corrcoef(anchored, nb)[0, 1])
    r_free = abs(np.corrcoef(free, nb)[0, 1])
    assert r_anchor > 0.999
    assert r_free < 0.9


def test_the_anchor_is_folded_back_onto_the_maps_columns():
    # The returned weights act on T alone: the decision equals that of the model fitted on
    # [T | anchor] with the anchor's weight spread over the univariate block.
    T, y, d = _map(K=3)
    coef, b = fit_linear_model(T, y, C=0.3, n_classes=3, anchor="naive_bayes", n_features=d)
    assert coef.shape == (3, T.shape[1])
    A = anchor_columns(T, d, 3)
    np.testing.assert_allclose(A, T[:, : 3 * d].reshape(-1, 3, d).sum(axis=2))


def test_bad_options_are_refused_clearly():
    T, y, d = _map()
    with pytest.raises(ValueError, match="loss must be one of"):
        fit_linear_model(T, y, loss="log")
    with pytest.raises(ValueError, match="needs n_features"):
        fit_linear_model(T, y, anchor="naive_bayes")
