"""Issue 25: SLB and its peers on K > 2 classes (the two-class numbers: test_binary_regression).

Known structures: Lemma 1's weights for K forest-structured classes reproduce every class's exact
log-density; on classes that differ only in their pairwise structure, SLB keeps each class's
own pairs and beats naive Bayes (which is at chance there by construction); with permuted
labels the nested selection's numbers stay at chance.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import StratifiedKFold, cross_val_score

from slb import KDENaiveBayes, LUClassifier, SLBClassifier, TANClassifier, load_dataset
from slb.data.multiclass import (
    make_multiclass_forest,
    make_pairwise_classes,
    multiclass_bayes_error,
    oracle_class_coefficients,
    true_class_log_density_terms,
)
from slb.evaluation.metrics import balanced_error_rate
from slb.evaluation.registry import CLASSIFIERS, make_classifier
from slb.persistence import load_model, save_model


def _iris():
    X, y = load_iris(return_X_y=True)
    return X, np.array(["setosa", "versicolor", "virginica"], dtype=object)[y]


def _digits012():
    X, y = load_digits(return_X_y=True)
    keep = y <= 2
    # the 16 most variable pixels: the densities of 64 mostly-constant pixels add nothing here
    X = X[keep]
    cols = np.argsort(-X.var(axis=0), kind="stable")[:16]
    return X[:, cols], y[keep]


DATASETS = {
    "iris": _iris,
    "wine": lambda: load_wine(return_X_y=True),
    "digits012": _digits012,
    "penguins": lambda: tuple(a.to_numpy() for a in load_dataset("penguins")),
}
MULTICLASS = [name for name, info in CLASSIFIERS.items() if info.multiclass]
# SLB's defaults select (lambda, C) by nested CV: the fast tier fits them at fixed settings.
FIXED = {"threshold": 0.01, "C": 1.0}


def _fixed(name):
    est = make_classifier(name, random_state=0)
    if name.startswith("SLB") and "threshold" in est.get_params():
        est.set_params(**FIXED)
    elif name in ("SLB-", "LU"):
        est.set_params(C=1.0)
    return est


@pytest.mark.parametrize("dataset", sorted(DATASETS))
@pytest.mark.parametrize("name", MULTICLASS)
def test_every_multiclass_classifier_fits_k_classes(dataset, name):
    X, y = DATASETS[dataset]()
    est = _fixed(name).fit(X, y)
    K = len(np.unique(y))
    assert len(est.classes_) == K
    if hasattr(est, "predict_proba"):  # not scikit-learn's SVC(probability=False), LinearSVC
        proba = est.predict_proba(X[::7])
        assert proba.shape == (len(X[::7]), K)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)
        if type(est).__module__.startswith("slb"):  # slb's probabilities are clipped (log-loss)
            assert (proba > 0).all() and (proba < 1).all()
    pred = est.predict(X)
    assert set(pred) <= set(np.unique(y))
    assert balanced_error_rate(y, pred) < 0.25  # far from chance (0.67) on these tables
    if hasattr(est, "decision_function"):
        assert est.decision_function(X[:4]).shape == (4, K)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["SLB", "SLB(Pearson)", "SLB-", "LU"])
def test_default_selection_on_wine(name):
    X, y = load_wine(return_X_y=True)
    est = make_classifier(name, random_state=0).fit(X, y)
    assert est.decision_function(X).shape == (len(y), 3)
    assert est.coef_.shape == (3, est.n_terms_)
    assert est.cv_results_ is not None
    assert min(est.cv_results_["mean_ber"]) < 0.1


@pytest.mark.parametrize("name", ["Rényi", "DISCRETE"])
def test_binary_only_classifiers_say_why(name):
    info = CLASSIFIERS[name]
    assert (
        not info.multiclass
        and "two classes" in info.binary_only.lower()
        or "binary" in (info.binary_only.lower())
    )
    X, y = _iris()
    with pytest.raises(ValueError, match="takes two classes only.*SLB, SLB-, LU, TAN, NB"):
        make_classifier(name, random_state=0).fit(X, y)
    assert make_classifier(name).__sklearn_tags__().classifier_tags.multi_class is False


@pytest.mark.parametrize("name", MULTICLASS)
def test_multiclass_tag(name):
    assert make_classifier(name).__sklearn_tags__().classifier_tags.multi_class is True


def test_generative_peers_are_points_of_the_linear_model():
    """NB's and TAN's class scores are rows of their coef_ on the K-block map (so they are
    points of the K-class SLB's parameter space)."""
    X, y = load_wine(return_X_y=True)
    for est in (KDENaiveBayes(), KDENaiveBayes(priors="empirical"), TANClassifier()):
        est.fit(X, y)
        T = est.transformer_.transform(X)
        np.testing.assert_allclose(
            T @ est.coef_.T + est.intercept_, est.joint_log_likelihood(X), rtol=1e-12, atol=1e-9
        )
        assert est.coef_.shape == (3, T.shape[1])
    nb = KDENaiveBayes().fit(X, y)
    d = X.shape[1]
    # weight 1 on its own class's univariate block, 0 elsewhere
    np.testing.assert_array_equal(nb.coef_.sum(axis=1), np.full(3, float(d)))
    assert set(np.unique(nb.coef_)) == {0.0, 1.0}


def test_lemma1_oracle_weights_reproduce_the_class_log_densities():
    ds = make_multiclass_forest(n_classes=4, n_train=40, n_test=500, d=8, random_state=3)
    X = ds.X_test.to_numpy()
    terms = true_class_log_density_terms(ds, X)
    W = oracle_class_coefficients(ds)
    scores = terms[W.index].to_numpy() @ W.to_numpy()
    exact = np.column_stack([ds.models[c].logpdf(X) for c in ds.classes])
    np.testing.assert_allclose(scores, exact, rtol=0, atol=1e-10)
    # each class's weights live in its own block only, integers as in the binary Lemma 1
    for c in ds.classes:
        others = [t for t in W.index if not t.startswith(f"log p[{c}]")]
        assert (W.loc[others, c] == 0).all()
        assert np.array_equal(W[c], np.round(W[c]))
    # a broken tree (one edge dropped) no longer reproduces it: the check can fail
    c0 = ds.classes[0]
    edge = next(t for t in W.index if "," in t and t.startswith(f"log p[{c0}]"))
    W2 = W.copy()
    W2.loc[edge, c0] = 0.0
    bad = terms[W2.index].to_numpy() @ W2.to_numpy()
    assert np.abs(bad[:, 0] - exact[:, 0]).max() > 1e-3


def test_pairwise_structure_slb_keeps_each_class_pairs_and_beats_nb():
    ds = make_pairwise_classes(n_classes=3, n_train=600, n_test=3000, d=8, random_state=0)
    bayes = multiclass_bayes_error(ds, n=20000)
    nb = KDENaiveBayes().fit(ds.X_train, ds.y_train)
    slb = SLBClassifier(threshold="fdr", pair_rule="per_class", C=1.0, random_state=0)
    slb.fit(ds.X_train, ds.y_train)
    ber_nb = balanced_error_rate(ds.y_test, nb.predict(ds.X_test))
    ber_slb = balanced_error_rate(ds.y_test, slb.predict(ds.X_test))
    assert ber_nb > 0.55  # chance is 2/3: the marginals are the same in every class
    assert ber_slb < bayes + 0.08 and ber_slb < ber_nb - 0.35
    table = slb.term_table_[slb.term_table_["kind"] == "bivariate"]
    for c in ds.classes:
        kept = {(r.feature_i, r.feature_j) for r in table[table["label"] == c].itertuples()}
        truth = set(ds.graphs[c].edges)
        assert truth <= kept, c  # every dependent pair of the class is kept for it
        assert len(kept - truth) <= 1, c  # and at most one other pair (FDR at 5 %)


@pytest.mark.slow
def test_default_slb_on_pairwise_structure():
    ds = make_pairwise_classes(n_classes=3, n_train=300, n_test=3000, d=6, random_state=1)
    nb = KDENaiveBayes().fit(ds.X_train, ds.y_train)
    slb = SLBClassifier(random_state=0).fit(ds.X_train, ds.y_train)
    ber_nb = balanced_error_rate(ds.y_test, nb.predict(ds.X_test))
    ber_slb = balanced_error_rate(ds.y_test, slb.predict(ds.X_test))
    assert ber_slb < ber_nb - 0.3


@pytest.mark.slow
def test_permuted_labels_nested_selection_stays_at_chance():
    """Labels permuted on a design whose classes differ in pairwise structure: the inner-CV
    minimum may dip below chance (it is a minimum over 70 cells) but not far, and the outer
    CV of the whole selection is at chance (2/3).  Detectable: with 240 rows the outer
    estimate's standard error is about 0.03, so an optimism of 0.12 or more fails the test."""
    ds = make_pairwise_classes(n_classes=3, n_train=240, n_test=30, d=4, random_state=5)
    rng = np.random.default_rng(0)
    y = rng.permutation(ds.y_train)
    X = ds.X_train.to_numpy()
    est = SLBClassifier(random_state=0).fit(X, y)
    inner_min = float(np.min(est.cv_results_["mean_ber"]))
    assert inner_min > 0.5
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    outer = 1 - cross_val_score(
        SLBClassifier(random_state=0), X, y, cv=folds, scoring="balanced_accuracy"
    )
    assert 0.55 < outer.mean() < 0.8


def test_macro_ber_is_one_minus_balanced_accuracy():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 4, 200)
    p = np.where(rng.random(200) < 0.6, y, rng.integers(0, 4, 200))
    assert balanced_error_rate(y, p) == pytest.approx(1 - balanced_accuracy_score(y, p))
    labels = np.array(list("abcd"), dtype=object)
    assert balanced_error_rate(labels[y], labels[p]) == pytest.approx(balanced_error_rate(y, p))


@pytest.mark.parametrize(
    "est",
    [
        SLBClassifier(threshold=0.01, C=1.0, random_state=0),
        LUClassifier(C=1.0, random_state=0),
        KDENaiveBayes(),
        TANClassifier(),
    ],
    ids=lambda e: type(e).__name__,
)
def test_k_class_models_save_and_load(est):
    X, y = _iris()
    est.fit(X, y)
    buf = io.BytesIO()
    save_model(est, buf)
    buf.seek(0)
    loaded = load_model(buf)
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
    np.testing.assert_allclose(loaded.predict_proba(X), est.predict_proba(X), rtol=1e-12)
    np.testing.assert_allclose(loaded.decision_function(X), est.decision_function(X), rtol=1e-12)


def test_contributions_of_a_class_sum_to_its_decision():
    X, y = _iris()
    est = SLBClassifier(threshold=0.01, C=1.0, random_state=0).fit(X, y)
    dec = est.decision_function(X[:6])
    for k, label in enumerate(est.classes_):
        contrib, baseline = est.contributions(X[:6], target=label)
        np.testing.assert_allclose(contrib.sum(axis=1) + baseline, dec[:, k], rtol=1e-10)
    with pytest.raises(ValueError, match="target must be one of the classes"):
        est.contributions(X[:2], target="no such class")
    assert est.coef_series_.shape == (est.n_terms_, 3)


def test_k_class_prediction_metrics_equal_sklearn():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.metrics import f1_score, log_loss, precision_score, recall_score, roc_auc_score

    from slb import compare_estimators
    from slb.evaluation.predictions import (
        confusion_matrices,
        evaluate_predictions,
        per_class_recall,
        pooled_roc,
    )

    X, y = load_wine(return_X_y=True)
    yl = np.array(["a", "b", "c"], dtype=object)[y]
    models = {"NB": KDENaiveBayes(), "RF": RandomForestClassifier(30, random_state=0)}
    cmp = compare_estimators(models, X, yl, record_predictions=True)
    pred = cmp.predictions
    ev = evaluate_predictions(pred)
    labels = ["a", "b", "c"]
    for name in models:
        for k in range(5):
            g = pred[(pred["classifier"] == name) & (pred["fold"] == k)]
            P = g[[f"proba[{c}]" for c in labels]].to_numpy()
            row = ev.per_fold[(ev.per_fold["classifier"] == name) & (ev.per_fold["fold"] == k)]
            got = row.iloc[0]
            assert got["BER"] == pytest.approx(cmp.per_fold.loc[k, name], abs=1e-12)
            assert got["AUC"] == pytest.approx(
                roc_auc_score(g["y_true"], P, multi_class="ovr", labels=labels)
            )
            assert got["log-loss"] == pytest.approx(log_loss(g["y_true"], P, labels=labels))
            for metric, fn in (("F1", f1_score), ("precision", precision_score)):
                want = fn(g["y_true"], g["y_pred"], average="macro", zero_division=0)
                assert got[metric] == pytest.approx(want)
            assert got["recall"] == pytest.approx(
                recall_score(g["y_true"], g["y_pred"], average="macro")
            )
    cm = confusion_matrices(pred)["NB"]
    assert cm.shape == (3, 3) and cm.to_numpy().sum() == len(yl)
    rec = per_class_recall(pred)
    np.testing.assert_allclose(rec.loc["NB"], np.diag(cm) / cm.sum(axis=1))
    curves, auc = pooled_roc(pred, pos_label="b")
    g = pred[pred["classifier"] == "NB"]
    assert auc["NB"] == pytest.approx(roc_auc_score(g["y_true"] == "b", g["proba[b]"]))


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_k_class_threshold_path_warm_folds_and_steps_agree_with_cold_fits():
    """The dashboard's live-λ machinery on three classes: the warm per-fold SVMs (kernels moved
    both ways), the exact BER steps and the out-of-fold predictions give the numbers of one
    cold one-vs-rest fit per fold and λ (ThresholdPath.fold_ber)."""
    from slb import ThresholdPath
    from slb.evaluation import stratified_folds
    from slb.evaluation.predictions import evaluate_predictions, path_predictions
    from slb.model.path import threshold_selector
    from slb.model.steps import ber_steps, step_at
    from slb.model.warm import WarmFolds

    ds = make_pairwise_classes(n_classes=3, n_train=150, n_test=3, d=6, random_state=2)
    X, y = ds.X_train, ds.y_train
    folds = stratified_folds(y, 5, 1, 0)
    path = ThresholdPath().fit(X, y, folds)
    warm = WarmFolds(path, y)
    lams = path.candidate_thresholds(8)
    steps = ber_steps(path)
    for lam in [lams[3], lams[1], lams[5], lams[3], lams[0]]:  # both ways, and back
        sel = threshold_selector(float(lam), path.pair_rule)
        cold_ber, _ = path.fold_ber(float(lam))
        dec, _ = warm.decisions(sel)
        warm_ber = [
            balanced_error_rate(y[f.test], path.classes_[d.argmax(axis=1)])
            for f, d in zip(path.folds_, dec, strict=True)
        ]
        np.testing.assert_allclose(warm_ber, cold_ber, atol=1e-12)
        pred, _ = path_predictions(path, y, sel)
        ev = evaluate_predictions(pred)
        np.testing.assert_allclose(ev.per_fold["BER"], cold_ber, atol=1e-12)
        assert {f"proba[{c}]" for c in path.classes_} <= set(pred.columns)
        P = pred[[f"proba[{c}]" for c in path.classes_]].to_numpy()
        np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-9)
        assert step_at(steps, float(lam))["mean_ber"] == pytest.approx(cold_ber.mean(), abs=1e-12)


def test_ratio_coefficients_rewrite_the_two_class_decision():
    """Issue 26 item 8: ratio * (log p+ - log p-) + common * (log p+ + log p-) summed over the
    table is the decision function minus the intercept; three classes have no such form."""
    X, y = load_wine(return_X_y=True)
    keep = y < 2
    est = SLBClassifier(threshold=0.005, C=1.0, random_state=0).fit(X[keep], y[keep])
    table = est.ratio_coefficients()
    T = est.log_density_features(X[keep][:20])
    total = np.zeros(20)
    for term, r in table.iterrows():
        plus, minus = f"log p+({term})", f"log p-({term})"
        lp = T[plus].to_numpy() if plus in T else 0.0
        lm = T[minus].to_numpy() if minus in T else 0.0
        total += r["ratio"] * (lp - lm) + r["common"] * (lp + lm)
    np.testing.assert_allclose(
        total + est.intercept_[0], est.decision_function(X[keep][:20]), rtol=1e-10, atol=1e-10
    )
    assert (table["kind"] == "univariate").sum() == X.shape[1]
    assert table.loc[table["kind"] == "univariate", "importance"].notna().all()
    with pytest.raises(ValueError, match="two-class form"):
        SLBClassifier(threshold=0.01, C=1.0).fit(*_iris()).ratio_coefficients()


def test_naive_bayes_from_the_path_equals_kde_naive_bayes():
    """The dashboard's NB reads SLB's per-fold maps (no densities of its own): its fold BERs
    and labels equal KDENaiveBayes refitted on the same folds, for two and three classes."""
    from slb import ThresholdPath
    from slb.evaluation import stratified_folds
    from slb.evaluation.predictions import naive_bayes_path_predictions

    X, y3 = _iris()
    for y in (y3, np.where(y3 == "setosa", "setosa", "other")):
        folds = stratified_folds(y, 5, 1, 0)
        path = ThresholdPath(training_features="insample").fit(X, y, folds)
        pred = naive_bayes_path_predictions(path, y)
        for k, (tr, te) in enumerate(folds):
            nb = KDENaiveBayes().fit(X[tr], y[tr])
            got = pred[pred["fold"] == k]
            np.testing.assert_array_equal(got["y_pred"].to_numpy(), nb.predict(X[te]))
