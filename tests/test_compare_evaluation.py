"""Out-of-fold evaluation (issue 13, item 4): the library against independent scikit-learn
computations on the same folds, the figures, and the Compare page in AppTest (Sonar and an
uploaded CSV: AUC, F1, confusion matrix and ROC for SLB, TAN and NB)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import expit
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import (
    accuracy_score,
    average_precision_score,
    balanced_accuracy_score,
    confusion_matrix,
    f1_score,
    log_loss,
    precision_score,
    recall_score,
    roc_auc_score,
    roc_curve,
)
from sklearn.model_selection import cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import SVC
from test_app import chart, csv_upload, goto, new_app, small_csv  # the AppTest helpers, one copy

from dashboard.compute import affordable_repeats
from slb import ThresholdPath
from slb._sklearn_compat import sigmoid_calibration  # Platt's fit, the reference
from slb.evaluation import (
    compare_estimators,
    confusion_matrices,
    evaluate_predictions,
    path_predictions,
    pooled_pr,
    pooled_roc,
    stratified_folds,
)
from slb.evaluation.predictions import calibrate_decisions, repeat_of_folds
from slb.model.path import fraction_selector, threshold_selector
from slb.viz import confusion_figure, pr_figure, roc_figure


def _data(n=150, seed=3, labels=("no", "yes")):
    X, y = make_classification(
        n_samples=n, n_features=6, n_informative=3, weights=[0.6], flip_y=0.1, random_state=seed
    )
    return X, np.array(labels)[y]


ESTIMATORS = {
    "logistic": LogisticRegression(max_iter=1000),  # probabilities and decision scores
    "gaussian NB": GaussianNB(),  # probabilities only
    "SVC": SVC(kernel="linear", C=0.5),  # decision scores only: log-loss does not apply
}


def _sklearn_fold_metrics(yt, yp, proba, rank, pos):
    """Every metric of one fold, straight from sklearn.metrics."""
    t, p = yt == pos, yp == pos
    return {
        "accuracy": accuracy_score(t, p),
        "BER": 1 - balanced_accuracy_score(t, p),
        "AUC": roc_auc_score(t, rank),
        "F1": f1_score(t, p, zero_division=0),
        "precision": precision_score(t, p, zero_division=0),
        "recall": recall_score(t, p, zero_division=0),
        "log-loss": log_loss(t, proba) if proba is not None else np.nan,
    }


def test_oof_metrics_equal_cross_val_predict_on_the_same_folds():
    X, y = _data()
    folds = stratified_folds(y, n_splits=5, random_state=4)
    comp = compare_estimators(ESTIMATORS, X, y, folds=folds, record_predictions=True)
    pred = comp.predictions
    ev = evaluate_predictions(pred, pos_label="yes")
    for name, est in ESTIMATORS.items():
        mine = pred[pred["classifier"] == name].sort_values("row")
        assert mine["row"].tolist() == list(range(len(y)))  # every row once
        ref_pred = cross_val_predict(est, X, y, cv=folds)
        assert (mine["y_pred"].to_numpy() == ref_pred).all()
        has_proba = hasattr(est, "predict_proba") and name != "SVC"
        has_score = name != "gaussian NB"
        proba = (
            cross_val_predict(est, X, y, cv=folds, method="predict_proba")[:, 1]
            if has_proba
            else None
        )
        score = (
            cross_val_predict(est, X, y, cv=folds, method="decision_function")
            if has_score
            else None
        )
        if has_proba:
            np.testing.assert_allclose(mine["proba"], proba, rtol=1e-10)
        else:
            assert mine["proba"].isna().all()
        if has_score:
            np.testing.assert_allclose(mine["score"], score, rtol=1e-10)
        else:
            assert mine["score"].isna().all()
        rank = proba if has_proba else score
        ref = pd.DataFrame(
            [
                _sklearn_fold_metrics(
                    y[te], ref_pred[te], None if proba is None else proba[te], rank[te], "yes"
                )
                for _, te in folds
            ]
        )
        s = ev.summary.loc[name]
        for m in ref:
            if ref[m].isna().all():
                assert np.isnan(s[m]) and np.isnan(s[f"{m} sd"]), (name, m)
            else:
                assert s[m] == pytest.approx(ref[m].mean(), rel=1e-9), (name, m)
                assert s[f"{m} sd"] == pytest.approx(ref[m].std(ddof=1), rel=1e-9), (name, m)
        # the BER of the significance test is the same number
        assert comp.per_fold[name].mean() == pytest.approx(s["BER"], rel=1e-12)
    assert ev.summary.loc["SVC", "ranked by"] == "decision score"


def test_pooled_roc_pr_and_confusion_over_repeats():
    X, y = _data(n=120, seed=5)
    folds = stratified_folds(y, n_splits=4, n_repeats=3, random_state=1)
    assert repeat_of_folds(folds).tolist() == [0] * 4 + [1] * 4 + [2] * 4
    comp = compare_estimators(ESTIMATORS, X, y, folds=folds, record_predictions=True)
    pred = comp.predictions
    curves, auc = pooled_roc(pred, pos_label="yes")
    pr_curves, ap, prevalence = pooled_pr(pred, pos_label="yes")
    cms = confusion_matrices(pred, labels=["no", "yes"])
    assert prevalence == pytest.approx(np.mean(y == "yes"))
    for name in ESTIMATORS:
        mine = pred[pred["classifier"] == name]
        assert len(mine) == 3 * len(y)
        # each repeat predicts every row exactly once
        assert (mine.groupby("repeat")["row"].nunique() == len(y)).all()
        t = (mine["y_true"] == "yes").to_numpy()
        s = mine["score"] if name == "SVC" else mine["proba"]
        assert auc[name] == pytest.approx(roc_auc_score(t, s), abs=1e-12)
        fpr, tpr, _ = roc_curve(t, s)
        np.testing.assert_allclose(curves[name]["fpr"], fpr)
        np.testing.assert_allclose(curves[name]["tpr"], tpr)
        assert ap[name] == pytest.approx(average_precision_score(t, s), abs=1e-12)
        cm = cms[name]
        assert int(cm.to_numpy().sum()) == len(y) * 3
        np.testing.assert_array_equal(
            cm.to_numpy(), confusion_matrix(mine["y_true"], mine["y_pred"], labels=["no", "yes"])
        )
        assert list(cm.index) == ["no", "yes"]


def test_without_recording_nothing_changes():
    X, y = _data()
    folds = stratified_folds(y, n_splits=5, random_state=0)
    a = compare_estimators(ESTIMATORS, X, y, folds=folds)
    b = compare_estimators(ESTIMATORS, X, y, folds=folds, record_predictions=True)
    assert a.predictions is None
    pd.testing.assert_frame_equal(a.per_fold, b.per_fold)
    seen = []
    compare_estimators(
        {"l": LogisticRegression()}, X, y, folds=folds, on_fit=lambda n, k, m: seen.append((n, k))
    )
    assert seen == [("l", k) for k in range(5)]


def test_path_predictions_match_the_path_ber_and_are_calibrated_out_of_fold():
    X, y = _data(n=100, seed=2, labels=(0, 1))
    folds = stratified_folds(y, n_splits=4, n_repeats=2, random_state=0)
    path = ThresholdPath(random_state=0).fit(X, y, folds)
    lam = float(path.candidate_thresholds(8)[3])
    for selector in (threshold_selector(lam, "either"), fraction_selector(0.3, "either")):
        pred, n_pairs = path_predictions(path, y, selector)
        ber, pairs = path.fold_ber_selected(selector)
        ev = evaluate_predictions(pred)
        np.testing.assert_array_equal(ev.per_fold["BER"], ber)  # bit for bit
        np.testing.assert_array_equal(n_pairs, pairs)
        # the label follows the sign of the decision score
        assert ((pred["score"] > 0) == (pred["y_pred"] == 1)).all()
        p = pred["proba"].to_numpy()
        assert np.all((p > 0) & (p < 1))
        # probabilities increase with the score within a fold (one sigmoid per fold)
        for _, g in pred.groupby("fold"):
            o = np.argsort(g["score"].to_numpy())
            assert np.all(np.diff(g["proba"].to_numpy()[o]) >= -1e-12)
    sel = threshold_selector(lam, "either")
    # fold k's sigmoid is fitted on the decision values of the other folds of its repeat only,
    # with the offset pinned at their class balance (docs/probabilities.md): P(+) =
    # expit(a * score + log(n+ / n-)), ``a`` the maximum-likelihood slope (Platt's targets)
    base, _ = path_predictions(path, y, sel)
    k = 5  # repeat 1
    mates = base[(base["repeat"] == 1) & (base["fold"] != k)]
    s, t = mates["score"].to_numpy(), mates["y_true"].to_numpy()
    n1, n0 = t.sum(), t.size - t.sum()
    target = np.where(t == 1, (n1 + 1) / (n1 + 2), 1 / (n0 + 2))
    off = np.log(n1 / n0)

    def nll(a):
        z = a * s + off
        return np.sum(np.logaddexp(0, z) - target * z)

    a = minimize_scalar(nll, bounds=(1e-6, 1e3), method="bounded", options={"xatol": 1e-9}).x
    mine = base[base["fold"] == k]
    np.testing.assert_allclose(mine["proba"], expit(a * mine["score"] + off), rtol=1e-4)
    # the label is the balanced rule of the probability: P(+) / share+ > P(-) / share-
    odds = mine["proba"] / (1 - mine["proba"]) / (n1 / n0)
    assert ((odds > 1) == (mine["y_pred"] == 1)).all()
    # the free sigmoid of before is still available (rule=None) and is Platt's
    free = calibrate_decisions(
        [s, mine["score"].to_numpy()],
        [(None, np.arange(s.size)), (None, np.arange(s.size, s.size + len(mine)))],
        np.r_[t, mine["y_true"].to_numpy()],
        np.array([0, 0]),
        rule=None,
    )
    a2, b2 = sigmoid_calibration(s, t)
    np.testing.assert_allclose(free[1], 1 / (1 + np.exp(a2 * mine["score"] + b2)), rtol=1e-6)
    inner, _ = path_predictions(path, y, sel, calibration="inner")
    assert inner["proba"].notna().all()
    none, _ = path_predictions(path, y, sel, calibration=None)
    assert none["proba"].isna().all()
    assert np.isnan(evaluate_predictions(none).summary.loc["SLB", "log-loss"])
    with pytest.raises(ValueError, match="calibration"):
        path_predictions(path, y, sel, calibration="isotonic")


def test_figures_draw_the_library_numbers_and_escape_names():
    X, y = _data(n=90, seed=1)
    folds = stratified_folds(y, n_splits=3, n_repeats=2, random_state=0)
    ests = {"<b>lr</b>": LogisticRegression(), "nb": GaussianNB()}
    pred = compare_estimators(ests, X, y, folds=folds, record_predictions=True).predictions
    curves, auc = pooled_roc(pred, "yes")
    fig = roc_figure(curves, auc)
    assert fig.layout.meta["kind"] == "roc"
    assert fig.layout.meta["AUC"]["nb"] == pytest.approx(auc["nb"])
    names = [t.name for t in fig.data]
    assert any("&lt;b&gt;lr&lt;/b&gt; (AUC" in n for n in names)
    assert not any("<b>lr" in n for n in names)
    pr_curves, ap, prev = pooled_pr(pred, "yes")
    fig = pr_figure(pr_curves, ap, prev)
    assert fig.layout.meta["kind"] == "pr" and len(fig.data) == 3
    cm = confusion_matrices(pred, ["no", "yes"])["nb"]
    fig = confusion_figure(cm, pos_name="<i>yes</i>", neg_name="no", title="nb")
    (tp, fn), (fp, tn) = fig.layout.meta["counts"]
    assert (tp, fn, fp, tn) == (
        cm.loc["yes", "yes"],
        cm.loc["yes", "no"],
        cm.loc["no", "yes"],
        cm.loc["no", "no"],
    )
    assert fig.layout.meta["total"] == 2 * len(y)
    assert "<i>" not in str(fig.data[0].y)
    # row percentages: each drawn row sums to 100
    np.testing.assert_allclose(np.asarray(fig.data[0].z).sum(axis=1), [100, 100])


def test_bad_input_is_refused_clearly():
    with pytest.raises(ValueError, match="empty"):
        evaluate_predictions(pd.DataFrame(columns=["classifier", "fold", "y_true", "y_pred"]))


# --------------------------------------------------------------------------------------------
# the Compare page (AppTest)
# --------------------------------------------------------------------------------------------
def _table(at, column: str) -> pd.DataFrame:
    """The page's dataframe that has ``column`` (AppTest gives dataframes no key)."""
    for el in at.dataframe:
        if column in el.value.columns:
            return el.value
    raise AssertionError(f"no table with a column {column!r}")


def _check_compare_evaluation(at, n_rows: int, reps: int) -> None:
    """AUC, F1, a confusion matrix and ROC curves for SLB, TAN and NB, consistent with each
    other and with the BER table; computed only once their section is opened."""
    core = ["SLB", "TAN", "NB"]
    assert not any("AUC (pooled)" in el.value.columns for el in at.dataframe)  # not yet
    assert not [el for el in at.get("plotly_chart") if el.proto.id.endswith("-cmp_roc")]
    at.session_state["cmp_eval_open"] = True  # what opening the expander does
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    metrics = _table(at, "AUC (pooled)")
    assert set(core) <= set(metrics.index)
    for col in ("accuracy (%)", "BER (%)", "AUC", "F1 (%)", "precision (%)", "recall (%)"):
        assert not metrics.loc[core, col].isin(["—", "None", "nan"]).any(), col
    auc = metrics.loc[core, "AUC (pooled)"].astype(float)
    assert auc.between(0.5, 1.0).all(), auc
    # log-loss of the three density-based classifiers: they all give probabilities
    assert not metrics.loc[core, "log-loss"].isin(["—"]).any()
    # the out-of-fold BER is the BER of the significance table (same fits)
    ber_table = _table(at, "mean BER (%)")
    for name in core:
        mean_ber = float(metrics.loc[name, "BER (%)"].split(" ± ")[0])
        assert mean_ber == pytest.approx(float(ber_table.loc[name, "mean BER (%)"]), abs=0.051)
    roc = chart(at, "cmp_roc")
    assert roc["layout"]["meta"]["kind"] == "roc"
    assert set(core) <= set(roc["layout"]["meta"]["classifiers"])
    for name in core:
        assert roc["layout"]["meta"]["AUC"][name] == pytest.approx(auc[name], abs=5e-4)
    pr = chart(at, "cmp_pr")
    assert set(core) <= set(pr["layout"]["meta"]["classifiers"])
    for name in core:
        at.selectbox(key="cmp_eval_model").set_value(name).run()
        assert not at.exception, [e.value for e in at.exception]
        cm = chart(at, "cmp_confusion")
        assert cm["layout"]["meta"]["kind"] == "confusion"
        assert cm["layout"]["meta"]["total"] == n_rows * reps
        assert name in cm["layout"]["title"]["text"]
        preds = _table(at, "P(+)")
        assert len(preds) == n_rows * reps
        assert preds["row"].nunique() == n_rows
        assert preds["P(+)"].between(0, 1).all()
    labels = {b.label for b in at.get("download_button")}
    assert "All out-of-fold predictions, every classifier (CSV)" in labels


@pytest.mark.slow
def test_compare_shows_auc_f1_confusion_and_roc_on_sonar():
    at = goto(new_app(), "pages/compare.py")
    _check_compare_evaluation(at, n_rows=208, reps=5)


@pytest.mark.slow
def test_compare_shows_auc_f1_confusion_and_roc_on_an_uploaded_csv():
    at = goto(csv_upload(new_app(), "patients.csv", small_csv()), "pages/compare.py")
    ds = at.session_state["data_build"].dataset
    assert ds.name.startswith("patients.csv") or "patients" in ds.name
    _check_compare_evaluation(at, n_rows=ds.n, reps=affordable_repeats(ds.n, ds.d, 5))


@pytest.mark.slow
def test_home_page_maps_the_four_steps_to_the_pages():
    at = new_app()
    text = " ".join(m.value for m in at.markdown)
    assert "Start here" in text
    for step in (
        "Screen pairs by HSIC",
        "1-d and 2-d KDEs",
        "Log-density features",
        "A linear model",
    ):
        assert step in text
    labels = [el.proto.label for el in at.get("page_link")]
    assert labels == ["Dependencies →", "Densities →", "Explain →", "Compare →"], labels


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_dashboard_evaluation_reuses_the_fits_and_equals_the_estimators(monkeypatch):
    """NB read off SLB's path and TAN in worker processes: the same out-of-fold labels,
    probabilities and scores as the estimators cross-validated by compare_estimators."""
    from test_speed_paths import DENS, DENS_PARAMS, _dashboard_dataset

    from dashboard import evaluation
    from slb import KDENaiveBayes, TANClassifier

    ds = _dashboard_dataset(n=120, d=5, seed=21)
    monkeypatch.setenv("SLB_CV_PROCESSES", "2")
    folds = stratified_folds(ds.y, n_splits=5, n_repeats=2, random_state=0)
    for name, est in (("NB", KDENaiveBayes(**DENS_PARAMS)), ("TAN", TANClassifier(**DENS_PARAMS))):
        ev = evaluation.classifier_eval(ds, name, DENS, 5, 0, 2, "hsic", "either")
        ref = compare_estimators({name: est}, ds.X, ds.y, folds=folds, record_predictions=True)
        mine, theirs = ev.predictions, ref.predictions
        np.testing.assert_array_equal(mine["row"], theirs["row"])
        np.testing.assert_array_equal(mine["y_pred"], theirs["y_pred"])
        np.testing.assert_allclose(mine["score"], theirs["score"], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(mine["proba"], theirs["proba"], rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(ev.ber, ref.per_fold[name].to_numpy())
        assert int(ev.confusion.to_numpy().sum()) == 2 * ds.n
        assert ev.auc == pytest.approx(roc_auc_score(theirs["y_true"], theirs["proba"]))


def test_warm_lambda_pass_equals_the_from_scratch_path():
    """The Compare page's λ changes (warm per-fold SVMs, kernels updated column by column,
    unchanged folds reused) against an independent slow reference: a ThresholdPath fitted
    again and one cold ``fit_linear_svm`` per fold and λ (``path_predictions``).  Fold BERs,
    kept pairs and labels bit for bit; scores and probabilities to libsvm's tolerance (1e-3);
    every metric of the page as the page prints it."""
    from test_speed_paths import DENS, DENS_PARAMS, _dashboard_dataset

    from dashboard import evaluation

    ds = _dashboard_dataset(n=150, d=6, seed=16)
    folds = stratified_folds(ds.y, n_splits=5, n_repeats=2, random_state=0)
    ref_path = ThresholdPath(random_state=0, **DENS_PARAMS).fit(ds.X, ds.y, folds)
    scores = np.concatenate([ref_path._score(f.score) for f in ref_path.folds_])
    # down (columns enter), up (columns leave), a jump to no pair, back to every pair
    lams = [float(np.quantile(scores, q)) for q in (0.9, 0.5, 0.7, 0.2, 0.95, 0.0, 0.6)]
    args = (ds.key, ds, "hsic", "either", DENS, 5, 0)
    changed = set()
    for lam in [*lams, lams[1]]:
        sp = evaluation.slb_fold_pass(*args, "value", lam, n_repeats=2)
        pred, n_pairs = path_predictions(ref_path, ds.y, threshold_selector(lam, "either"))
        np.testing.assert_array_equal(sp.ber, ref_path.fold_ber(lam)[0])
        np.testing.assert_array_equal(sp.n_pairs, n_pairs)
        ev = evaluation.slb_fold_eval(*args, "value", lam, n_repeats=2)
        ref = evaluation.fold_eval(pred, n_pairs=n_pairs)
        mine = ev.predictions
        np.testing.assert_array_equal(mine["row"], pred["row"])
        np.testing.assert_array_equal(mine["y_pred"], pred["y_pred"])
        # libsvm stops at tol = 1e-3: kernel rounding moves its solution within that
        np.testing.assert_allclose(mine["score"], pred["score"], rtol=1e-3, atol=5e-3)
        np.testing.assert_allclose(mine["proba"], pred["proba"], rtol=1e-3, atol=1e-3)
        np.testing.assert_array_equal(ev.ber, ref.ber)
        pd.testing.assert_frame_equal(
            evaluation.metrics_display({"SLB": ev}), evaluation.metrics_display({"SLB": ref})
        )
        warm = evaluation.warm_folds(*args, 2)
        changed |= {k for k, fk in warm._kernels.items() if fk.n_updates > 1}
        changed |= {k for k, p in getattr(warm, "_paths", {}).items() if p.n_fits > 1}
    assert changed  # some folds were moved column by column (kernels or paths), not rebuilt
    # λ by quantile (each fold its own top share): the same machinery, the same BERs
    sp = evaluation.slb_fold_pass(*args, "quantile", 0.8, n_repeats=2)
    np.testing.assert_array_equal(
        sp.ber, ref_path.fold_ber_selected(fraction_selector(0.2, "either"))[0]
    )


def test_labels_from_the_decision_sign_equal_predict():
    """For the package's sign-of-decision classifiers the recorded label is read off the
    decision score (one density evaluation fewer); it must be what ``predict`` returns, and
    other classifiers (Rényi overrides predict; sklearn's) still go through ``predict``."""
    from slb import KDENaiveBayes, RenyiClassifier, TANClassifier
    from slb.evaluation.predictions import _predicts_by_sign, model_outputs

    X, y = _data(n=120, seed=8)
    for est in (TANClassifier(), KDENaiveBayes(), LogisticRegression(), RenyiClassifier()):
        model = est.fit(X[:80], y[:80])
        out = model_outputs(model, X[80:])
        np.testing.assert_array_equal(out["y_pred"], model.predict(X[80:]))
    assert _predicts_by_sign(TANClassifier()) and not _predicts_by_sign(LogisticRegression())


def test_probabilities_from_the_decision_equal_predict_proba(monkeypatch):
    """slb's models give their probabilities from the decision values the recorded outputs
    already hold (one evaluation of the model for both): the numbers must be predict_proba's
    bit for bit, the densities evaluated once per test fold, and a model without
    predict_proba (SLB with probability=False) must still record none."""
    from slb import (
        KDENaiveBayes,
        LUClassifier,
        RenyiClassifier,
        SLBClassifier,
        TANClassifier,
    )
    from slb.density.features import LogDensityTransformer
    from slb.evaluation.predictions import model_outputs

    X, y = _data(n=120, seed=9)
    models = (
        TANClassifier(),
        KDENaiveBayes(),
        SLBClassifier(threshold=0.0, C=1.0, random_state=0),
        LUClassifier(C=1.0, random_state=0),
        RenyiClassifier(),
        LogisticRegression(),
    )
    for est in models:
        model = est.fit(X[:80], y[:80])
        out = model_outputs(model, X[80:])
        np.testing.assert_array_equal(out["proba"], model.predict_proba(X[80:])[:, 1])
        np.testing.assert_array_equal(out["score"], model.decision_function(X[80:]))
    calls = []
    real = LogDensityTransformer._features

    def counting(self, *a, **k):
        calls.append(1)
        return real(self, *a, **k)

    monkeypatch.setattr(LogDensityTransformer, "_features", counting)
    model_outputs(models[0], X[80:])  # TAN, fitted above
    assert len(calls) == 1
    plain = SLBClassifier(threshold=0.0, C=1.0, probability=False, random_state=0)
    out = model_outputs(plain.fit(X[:80], y[:80]), X[80:])
    assert np.isnan(out["proba"]).all() and np.isfinite(out["score"]).all()


def test_inner_calibration_folds_keep_copies_together():
    """H46: the inner calibration's splits were plain stratified folds, so a copy of a test
    row could sit in the training rows.  Every row twice: no fold trains on a test row's
    twin (the plain folds did on every fold)."""
    from slb.evaluation.predictions import _inner_decisions

    rng = np.random.default_rng(0)
    T = rng.normal(size=(60, 3))
    T, y = np.vstack([T, T]), np.tile(np.arange(60) % 2, 2)
    leaks = []

    def fit(T_train, y_train):
        rows = {r.tobytes() for r in T_train}
        leaks.append(rows)
        return np.zeros(T.shape[1]), 0.0

    d = _inner_decisions(T, y, fit, 3, 0)
    assert d is not None and len(leaks) == 3
    seen = set()
    from slb._folds import stratified_splits

    for (_, te), rows in zip(stratified_splits(y, 3, random_state=0, X=T), leaks, strict=True):
        twins = [r.tobytes() in rows for r in T[te]]
        assert not any(twins)
        seen.update(te.tolist())
    assert seen == set(range(120))
