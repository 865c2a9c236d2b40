"""Out-of-fold predictions and what is computed from them: metrics, ROC/PR curves, confusions.

Every classifier of a comparison is cross-validated on the same folds (:func:`compare_estimators
<slb.evaluation.compare_estimators>` with ``record_predictions=True``, or :func:`path_predictions`);
each fold's model predicts its test rows once, and everything here comes from those predictions:

:func:`evaluate_predictions` (per-fold metrics, ``sklearn.metrics``, with mean and sd),
:func:`pooled_roc` / :func:`pooled_pr` (curves from the scores pooled over folds and repeats)
and :func:`confusion_matrices` (counts pooled likewise: they sum to ``n_samples x n_repeats``).

The prediction table has one row per (classifier, fold, test sample): ``classifier``, ``row``
(position in ``X``), ``fold``, ``repeat``, ``y_true``, ``y_pred``, ``proba`` (P(positive); NaN
without ``predict_proba``) and ``score`` (``decision_function``; NaN without one).  With K > 2
classes those two are NaN and each class has ``proba[c]`` and ``score[c]`` (:func:`class_column`);
the metrics are macro averages (BER = 1 - balanced accuracy, one-vs-rest AUC, F1, precision,
recall, the multinomial log-loss) and the curves one class against the rest (``pos_label``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit
from scipy.stats import rankdata
from sklearn.metrics import (
    average_precision_score,
    confusion_matrix,
    precision_recall_curve,
    roc_auc_score,
    roc_curve,
)

from .._folds import stratified_splits
from .._utils import DecisionPredictMixin

__all__ = [
    "CALIBRATIONS",
    "METRICS",
    "calibrate_decisions",
    "Evaluation",
    "class_column",
    "confusion_matrices",
    "evaluate_predictions",
    "per_class_recall",
    "fold_prediction_frame",
    "model_outputs",
    "naive_bayes_path_predictions",
    "path_predictions",
    "pooled_pr",
    "pooled_roc",
    "ranking_scores",
    "repeat_of_folds",
    "with_repeats",
]

#: The metrics of :func:`evaluate_predictions`, in display order.
METRICS = ("accuracy", "BER", "AUC", "F1", "precision", "recall", "log-loss")
_COLUMNS = ["classifier", "row", "fold", "y_true", "y_pred", "proba", "score"]


def repeat_of_folds(folds):
    """The repeat each fold belongs to: a new repeat starts when a fold tests a row again.

    Parameters
    ----------
    folds : list of (train_index, test_index)

    Returns
    -------
    repeat : ndarray of int, shape (n_folds,)

    Examples
    --------
    >>> from slb.evaluation import stratified_folds
    >>> from slb.evaluation.predictions import repeat_of_folds
    >>> repeat_of_folds(stratified_folds([0, 1] * 4, n_splits=2, n_repeats=2)).tolist()
    [0, 0, 1, 1]
    """
    out, seen, r = np.zeros(len(folds), dtype=int), set(), 0
    for k, (_, te) in enumerate(folds):
        te = set(np.asarray(te).tolist())
        if seen & te:
            r, seen = r + 1, set()
        seen |= te
        out[k] = r
    return out


def _optional_output(model, method, X):
    """``model.method(X)``, or None when the model does not offer it (e.g. SVC without
    probabilities, whose ``predict_proba`` raises AttributeError)."""
    try:
        fn = getattr(model, method)
        return np.asarray(fn(X), dtype=float)
    except (AttributeError, NotImplementedError):
        return None


def model_outputs(model, X_test, scores=True):
    """Predicted labels and, with ``scores``, probability of ``classes_[1]`` and decision score.

    Parameters
    ----------
    model : fitted classifier
    X_test : array-like of shape (n_samples, n_features)
    scores : bool, default=True

    Returns
    -------
    out : dict
        ``y_pred``; with ``scores`` also ``proba`` and ``score`` (arrays, NaN where the model
        has no ``predict_proba`` / ``decision_function``).  With more than two classes
        ``proba`` and ``score`` have one column per class and ``classes`` holds the labels.

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from slb.evaluation.predictions import model_outputs
    >>> X, y = [[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1]
    >>> out = model_outputs(GaussianNB().fit(X, y), X)
    >>> sorted(out), out["y_pred"].tolist(), bool(out["score"][0] == out["score"][0])
    (['proba', 'score', 'y_pred'], [0, 0, 1, 1], False)
    """
    if not scores:
        return {"y_pred": np.asarray(model.predict(X_test))}
    score = _optional_output(model, "decision_function", X_test)
    if score is not None and _proba_from_score(model):
        # slb's models map their decision values to probabilities: the same numbers as
        # predict_proba without evaluating the densities again
        proba = np.asarray(model._proba_from_decision(score), dtype=float)
    else:
        proba = _optional_output(model, "predict_proba", X_test)
    if score is not None and _predicts_by_sign(model):
        # exactly what its predict computes, without evaluating the densities a third time
        if hasattr(model, "_predict_from_decision"):
            y_pred = model._predict_from_decision(score)
        else:
            y_pred = model.classes_[(score.reshape(-1) > 0).astype(int)]
    else:
        y_pred = np.asarray(model.predict(X_test))
    n = len(y_pred)
    classes = getattr(model, "classes_", None)
    if classes is not None and len(classes) > 2:
        nan = np.full((n, len(classes)), np.nan)
        return {
            "y_pred": y_pred,
            "proba": proba if proba is not None else nan,
            "score": score if score is not None and score.ndim == 2 else nan,
            "classes": np.asarray(classes),
        }
    return {
        "y_pred": y_pred,
        "proba": proba[:, -1] if proba is not None else np.full(n, np.nan),
        "score": score.reshape(n) if score is not None else np.full(n, np.nan),
    }


def _proba_from_score(model):
    """The model's ``predict_proba`` exists and comes from ``_proba_from_decision`` (slb's)."""
    return hasattr(model, "_proba_from_decision") and hasattr(model, "predict_proba")


def _predicts_by_sign(model):
    """The model's ``predict`` is :class:`slb._utils.DecisionPredictMixin`'s, not overridden
    (also via ``SignPredictMixin``: sign, or largest column, of ``decision_function``)."""
    return getattr(type(model), "predict", None) is DecisionPredictMixin.predict


def class_column(kind, label):
    """Prediction-table column of class ``label``'s ``kind`` ("proba" or "score"), > 2 classes.

    Examples
    --------
    >>> class_column("proba", 2), class_column("score", "b")
    ('proba[2]', 'score[b]')
    """
    return f"{kind}[{label}]"


def fold_prediction_frame(
    name, fold, test_index, y_true, y_pred, proba=None, score=None, classes=None
):
    """One fold's out-of-fold predictions as rows of the prediction table.

    Parameters
    ----------
    name : str
        Classifier.
    fold : int
    test_index : array-like of int
        Rows of ``X`` that were predicted.
    y_true, y_pred : array-like
    proba, score : array-like or None
        Probability of the positive class, decision score (None: not available); with more
        than two ``classes``, one column per class.
    classes : array-like or None
        The labels of the columns of ``proba`` and ``score`` (more than two classes).

    Returns
    -------
    frame : DataFrame
        Columns ``classifier, row, fold, y_true, y_pred, proba, score``, and with more than
        two classes ``proba[c]`` and ``score[c]`` for every class ``c``.

    Examples
    --------
    >>> from slb.evaluation.predictions import fold_prediction_frame
    >>> f = fold_prediction_frame("NB", 0, [3, 5], [0, 1], [0, 0], proba=[0.2, 0.4])
    >>> f.columns.tolist(), f["row"].tolist(), bool(f["score"].isna().all())
    (['classifier', 'row', 'fold', 'y_true', 'y_pred', 'proba', 'score'], [3, 5], True)
    """
    n = len(test_index)
    nan = np.full(n, np.nan)
    multi = classes is not None and len(classes) > 2
    data = {
        "classifier": name,
        "row": np.asarray(test_index, dtype=int),
        "fold": int(fold),
        "y_true": np.asarray(y_true),
        "y_pred": np.asarray(y_pred),
        "proba": nan if proba is None or multi else np.asarray(proba, dtype=float),
        "score": nan if score is None or multi else np.asarray(score, dtype=float),
    }
    columns = list(_COLUMNS)
    if multi:
        for kind, values in (("proba", proba), ("score", score)):
            v = np.full((n, len(classes)), np.nan) if values is None else np.asarray(values)
            for k, c in enumerate(classes):
                data[class_column(kind, c)] = v[:, k].astype(float)
                columns.append(class_column(kind, c))
    return pd.DataFrame(data, columns=columns)


def ranking_scores(pred):
    """The score a classifier's ROC/PR curves rank by, and its name.

    The probability of the positive class where every prediction has one, else the decision
    score, else the predicted label (a curve with a single corner).

    Parameters
    ----------
    pred : DataFrame
        Prediction table of ONE classifier.

    Returns
    -------
    scores : ndarray
    source : {"probability", "decision score", "predicted label"}

    Examples
    --------
    >>> from slb.evaluation.predictions import fold_prediction_frame, ranking_scores
    >>> f = fold_prediction_frame("SVM", 0, [0, 1], [0, 1], [0, 1], score=[-1.5, 0.5])
    >>> ranking_scores(f)[1]  # no probabilities: the decision score
    'decision score'
    """
    for col, source in (("proba", "probability"), ("score", "decision score")):
        v = pred[col].to_numpy(dtype=float)
        if v.size and np.isfinite(v).all():
            return v, source
    return np.nan, "predicted label"


def _positive(pred, pos_label):
    yt = (pred["y_true"] == pos_label).to_numpy()
    yp = (pred["y_pred"] == pos_label).to_numpy()
    return yt, yp


def _rank(pred, pos_label):
    if _is_multiclass(pred):
        # one class against the rest: that class's probability, else its decision score
        for kind in ("proba", "score"):
            col = class_column(kind, pos_label)
            if col in pred.columns:
                v = pred[col].to_numpy(dtype=float)
                if v.size and np.isfinite(v).all():
                    return v
        return _positive(pred, pos_label)[1].astype(float)
    scores, source = ranking_scores(pred)
    if source == "predicted label":
        scores = _positive(pred, pos_label)[1].astype(float)
    return scores


def _is_multiclass(pred):
    return any(str(c).startswith("proba[") for c in pred.columns)


def _class_labels(pred):
    return list(np.unique(pred["y_true"].to_numpy()))


def _auc(y, s):
    """Area under the ROC curve as the Mann-Whitney statistic (ties count one half).

    Equal to ``sklearn.metrics.roc_auc_score`` (the tests check it); hand-written because
    scikit-learn 1.9 validates its input for ~25 ms per call, and the Compare page scores up to
    11 classifiers x 50 folds, SLB again whenever λ moves.
    """
    r = rankdata(s)
    n1 = int(y.sum())
    n0 = y.size - n1
    return float((r[y].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def _log_loss(y, p):
    """Mean negative log-likelihood, probabilities clipped to [eps, 1 - eps] as
    ``sklearn.metrics.log_loss`` does (hand-written for the reason of :func:`_auc`)."""
    eps = np.finfo(float).eps
    p = np.clip(p, eps, 1 - eps)
    return float(-np.mean(np.where(y, np.log(p), np.log1p(-p))))


def _fold_metrics(yt, yp, proba, rank):
    """The :data:`METRICS` of one classifier on one fold (NaN where one does not apply).

    ``yt``, ``yp``: true / predicted label is positive (bool arrays); ``proba``: probability
    of the positive class (NaN: none); ``rank``: the score the AUC ranks by.  Computed from
    the confusion counts, the Mann-Whitney AUC and the clipped log-likelihood in numpy (see
    :func:`_auc` for why not ``sklearn.metrics``; the tests compare every metric with its
    ``sklearn.metrics`` function).  A ratio with an empty denominator (no predicted positive,
    say) is 0, as sklearn's ``zero_division=0`` gives.
    """
    tp, fp = int(np.sum(yt & yp)), int(np.sum(~yt & yp))
    fn, tn = int(np.sum(yt & ~yp)), int(np.sum(~yt & ~yp))
    both = 0 < tp + fn < yt.size
    has_p = bool(proba.size and np.isfinite(proba).all())
    return {
        "accuracy": (tp + tn) / yt.size,
        # the operations of 1 - balanced_accuracy_score, so the BER is bit-identical to
        # slb.evaluation.balanced_error_rate (the significance tests use that one)
        "BER": 1.0 - np.mean([tn / (tn + fp), tp / (tp + fn)]) if both else np.nan,
        "AUC": _auc(yt, rank) if both else np.nan,
        "F1": _ratio(2 * tp, 2 * tp + fp + fn),
        "precision": _ratio(tp, tp + fp),
        "recall": _ratio(tp, tp + fn),
        "log-loss": _log_loss(yt, proba) if has_p else np.nan,
    }


def _multiclass_fold_metrics(mine, labels):
    """The :data:`METRICS` of ONE classifier on each fold for more than two classes: macro
    averages over ``labels`` (BER as :func:`slb.evaluation.balanced_error_rate`, one-vs-rest
    AUC on each class's probability or score, F1 / precision / recall), and the multinomial
    log-loss (the mean of ``-log p(true class)``, clipped as ``sklearn.metrics.log_loss``)."""
    from .metrics import balanced_error_rate

    fold = mine["fold"].to_numpy()
    yt_all, yp_all = mine["y_true"].to_numpy(), mine["y_pred"].to_numpy()
    P = np.column_stack([mine[class_column("proba", c)].to_numpy(dtype=float) for c in labels])
    ranks = [_rank(mine, c) for c in labels]
    rows = []
    folds = np.unique(fold)
    eps = np.finfo(float).eps
    for k in folds:
        i = fold == k
        yt, yp = yt_all[i], yp_all[i]
        per = [
            _fold_metrics(yt == c, yp == c, np.full(i.sum(), np.nan), r[i])
            for c, r in zip(labels, ranks, strict=True)
        ]
        present = [m for m, c in zip(per, labels, strict=True) if np.any(yt == c)]
        p = P[i]
        has_p = bool(p.size and np.isfinite(p).all())
        true_col = np.searchsorted(np.asarray(labels), yt)
        rows.append(
            {
                "accuracy": float(np.mean(yt == yp)),
                "BER": balanced_error_rate(yt, yp),
                "AUC": float(np.nanmean([m["AUC"] for m in present])) if present else np.nan,
                "F1": float(np.mean([m["F1"] for m in per])),
                "precision": float(np.mean([m["precision"] for m in per])),
                "recall": float(np.mean([m["recall"] for m in present])) if present else np.nan,
                "log-loss": float(
                    -np.mean(np.log(np.clip(p[np.arange(p.shape[0]), true_col], eps, 1 - eps)))
                )
                if has_p
                else np.nan,
            }
        )
    fm = pd.DataFrame(rows, columns=list(METRICS))
    fm.insert(0, "fold", folds)
    return fm


def _classifier_fold_metrics(mine, pos_label, labels=None):
    """Per-fold metrics of ONE classifier's predictions (numpy per fold: pandas indexing cost
    more than the metrics)."""
    if labels is not None and len(labels) > 2:
        return _multiclass_fold_metrics(mine, labels)
    yt, yp = _positive(mine, pos_label)
    proba = mine["proba"].to_numpy(dtype=float)
    rank = _rank(mine, pos_label)
    fold = mine["fold"].to_numpy()
    folds = np.unique(fold)
    rows = []
    for k in folds:
        i = fold == k
        rows.append(_fold_metrics(yt[i], yp[i], proba[i], rank[i]))
    fm = pd.DataFrame(rows, columns=list(METRICS))
    fm.insert(0, "fold", folds)
    return fm


def _ratio(a, b):
    return float(a / b) if b else 0.0


def _default_pos_label(pred):
    return np.unique(pred["y_true"].to_numpy())[-1]


@dataclass
class Evaluation:
    """Result of :func:`evaluate_predictions`.

    Attributes
    ----------
    per_fold : DataFrame
        One row per (classifier, fold), the :data:`METRICS` as columns.
    summary : DataFrame
        One row per classifier (in order of appearance): for each metric its mean over the
        folds and ``"<metric> sd"`` (ddof=1); ``"ranked by"`` says which score the AUC used.
    pos_label : object
        The positive class (None with more than two classes: the metrics are macro averages).

    Examples
    --------
    >>> from slb.evaluation.predictions import evaluate_predictions, fold_prediction_frame
    >>> ev = evaluate_predictions(fold_prediction_frame("m", 0, range(4), [0, 0, 1, 1], [0, 1, 1, 0]))
    >>> int(ev.pos_label), ev.per_fold.shape[0]  # positive class, one row per fold
    (1, 1)
    """

    per_fold: pd.DataFrame
    summary: pd.DataFrame
    pos_label: object


def evaluate_predictions(pred, pos_label=None):
    """Per-fold metrics of every classifier of a prediction table, and their mean ± sd.

    Parameters
    ----------
    pred : DataFrame
        Prediction table (see the module docstring).
    pos_label : object or None
        The positive class; None: the largest label (scikit-learn's ``classes_[1]``).
        Ignored with more than two classes (macro averages over the classes).

    Returns
    -------
    evaluation : Evaluation

    Examples
    --------
    >>> from slb.evaluation.predictions import evaluate_predictions, fold_prediction_frame
    >>> pred = fold_prediction_frame("m", 0, range(4), [0, 0, 1, 1], [0, 1, 1, 0], [.1, .6, .7, .4])
    >>> evaluate_predictions(pred).summary.loc["m", ["accuracy", "BER", "AUC"]].round(3).tolist()
    [0.5, 0.5, 0.75]
    """
    if pred.empty:
        raise ValueError("The prediction table is empty: cross-validate at least one classifier.")
    labels = _class_labels(pred) if _is_multiclass(pred) else None
    pos = None if labels else (_default_pos_label(pred) if pos_label is None else pos_label)
    names = list(dict.fromkeys(pred["classifier"]))
    rows, summary = [], {}
    for name in names:
        mine = pred[pred["classifier"] == name]
        fm = _classifier_fold_metrics(mine, pos, labels)
        fm.insert(0, "classifier", name)
        rows.append(fm)
        summary[name] = _mean_sd(fm) | {"ranked by": ranking_scores(mine)[1]}
    per_fold = pd.concat(rows, ignore_index=True)
    out = pd.DataFrame.from_dict(summary, orient="index")
    out.index.name = "classifier"
    return Evaluation(per_fold=per_fold, summary=out, pos_label=pos)


def _mean_sd(fold_metrics):
    out = {}
    for m in METRICS:
        v = fold_metrics[m].to_numpy(dtype=float)
        ok = v[np.isfinite(v)]
        out[m] = ok.mean() if ok.size else np.nan
        out[f"{m} sd"] = ok.std(ddof=1) if ok.size > 1 else np.nan
    return out


def _per_classifier(pred):
    return {name: g for name, g in pred.groupby("classifier", sort=False)}


def pooled_roc(pred, pos_label=None):
    """ROC curve of every classifier from its out-of-fold scores pooled over folds and repeats.

    Parameters
    ----------
    pred : DataFrame
        Prediction table.
    pos_label : object or None
        None: the largest label.  With more than two classes: the class whose one-vs-rest
        curve is drawn (ranked by its probability, else its decision score).

    Returns
    -------
    curves : dict
        Classifier -> DataFrame with columns ``fpr``, ``tpr``, ``threshold``.
    auc : Series
        Area under each pooled curve (``roc_auc_score`` on the pooled scores).

    Examples
    --------
    >>> from slb.evaluation.predictions import fold_prediction_frame, pooled_roc
    >>> pred = fold_prediction_frame("m", 0, range(4), [0, 0, 1, 1], [0, 1, 1, 0], [.1, .6, .7, .4])
    >>> curves, auc = pooled_roc(pred)
    >>> curves["m"].columns.tolist(), round(float(auc["m"]), 3)
    (['fpr', 'tpr', 'threshold'], 0.75)
    """
    pos = _default_pos_label(pred) if pos_label is None else pos_label
    curves, auc = {}, {}
    for name, g in _per_classifier(pred).items():
        yt, s = _positive(g, pos)[0], _rank(g, pos)
        fpr, tpr, thr = roc_curve(yt, s)
        curves[name] = pd.DataFrame({"fpr": fpr, "tpr": tpr, "threshold": thr})
        auc[name] = roc_auc_score(yt, s)
    return curves, pd.Series(auc, name="AUC")


def pooled_pr(pred, pos_label=None):
    """Precision-recall curve of every classifier from its pooled out-of-fold scores.

    Parameters
    ----------
    pred : DataFrame
    pos_label : object or None

    Returns
    -------
    curves : dict
        Classifier -> DataFrame with columns ``recall``, ``precision``.
    average_precision : Series
        ``average_precision_score`` on the pooled scores.
    prevalence : float
        Share of positive rows (the precision of a random ranking).

    Examples
    --------
    >>> from slb.evaluation.predictions import fold_prediction_frame, pooled_pr
    >>> pred = fold_prediction_frame("m", 0, range(4), [0, 0, 1, 1], [0, 1, 1, 0], [.1, .6, .7, .4])
    >>> curves, ap, prevalence = pooled_pr(pred)
    >>> round(float(ap["m"]), 3), prevalence
    (0.833, 0.5)
    """
    pos = _default_pos_label(pred) if pos_label is None else pos_label
    curves, ap = {}, {}
    for name, g in _per_classifier(pred).items():
        yt, s = _positive(g, pos)[0], _rank(g, pos)
        precision, recall, _ = precision_recall_curve(yt, s)
        curves[name] = pd.DataFrame({"recall": recall, "precision": precision})
        ap[name] = average_precision_score(yt, s)
    first = next(iter(_per_classifier(pred).values()))
    prevalence = float(_positive(first, pos)[0].mean())
    return curves, pd.Series(ap, name="average precision"), prevalence


def confusion_matrices(pred, labels=None):
    """Confusion counts of every classifier, pooled over all folds and repeats.

    Parameters
    ----------
    pred : DataFrame
    labels : sequence of 2 or None
        ``[negative, positive]``, or every class; None: the sorted labels.

    Returns
    -------
    matrices : dict
        Classifier -> K x K DataFrame of counts, rows the true class, columns the predicted
        class (both in ``labels`` order).

    Examples
    --------
    >>> from slb.evaluation.predictions import confusion_matrices, fold_prediction_frame
    >>> pred = fold_prediction_frame("m", 0, range(6), [0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 0])
    >>> confusion_matrices(pred)["m"].to_numpy().tolist()  # rows: true class
    [[2, 1], [1, 2]]
    """
    labels = list(np.unique(pred["y_true"].to_numpy())) if labels is None else list(labels)
    out = {}
    for name, g in _per_classifier(pred).items():
        cm = confusion_matrix(g["y_true"], g["y_pred"], labels=labels)
        out[name] = pd.DataFrame(
            cm,
            index=pd.Index(labels, name="true"),
            columns=pd.Index(labels, name="predicted"),
        )
    return out


def per_class_recall(pred):
    """The share of each class's rows predicted as that class, per classifier (pooled over
    folds and repeats); one minus their mean is the pooled macro BER.

    Parameters
    ----------
    pred : DataFrame
        Prediction table.

    Returns
    -------
    recall : DataFrame
        Classifiers (rows) x classes (columns, sorted labels).

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.evaluation.predictions import fold_prediction_frame, per_class_recall
    >>> pred = fold_prediction_frame("m", 0, [0, 1, 2, 3], ["a", "a", "b", "c"],
    ...                              ["a", "b", "b", "c"])
    >>> per_class_recall(pred).loc["m"].tolist()
    [0.5, 1.0, 1.0]
    """
    labels = _class_labels(pred)
    out = {}
    for name, g in _per_classifier(pred).items():
        yt, yp = g["y_true"].to_numpy(), g["y_pred"].to_numpy()
        out[name] = [float(np.mean(yp[yt == c] == c)) for c in labels]
    return pd.DataFrame.from_dict(out, orient="index", columns=labels)


# --- SLB through its threshold path ---------------------------------------------------------


CALIBRATIONS = ("other_folds", "inner", None)
#: Calibrated probabilities are kept within [PROBA_EPS, 1 - PROBA_EPS], as the estimators'.
PROBA_EPS = 1e-6


def _sigmoid(d, y_index, n_iter=50):
    """Platt's sigmoid ``P(+ | d) = expit(alpha * d + beta)``, fitted by Newton's method.

    Platt's smoothed targets ``(N+ + 1) / (N+ + 2)`` and ``1 / (N- + 2)``, as
    ``sklearn.calibration`` uses (so separable scores give a finite slope; the tests compare
    with it).  Hand-written because scikit-learn's L-BFGS fit took ~0.1 s per call here, and
    the Compare page fits 25 of them whenever λ moves; Newton on two parameters takes < 1 ms.

    Returns
    -------
    params : ndarray of shape (2,) or None
        ``(alpha, beta)``; None with a single class.
    """
    d, y = np.asarray(d, dtype=float), np.asarray(y_index)
    n_pos = int(y.sum())
    if n_pos in (0, y.size):
        return None
    t = np.where(y == 1, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (y.size - n_pos + 2.0))
    Z = np.column_stack([d, np.ones_like(d)])
    theta = np.array([0.0, np.log((n_pos + 1.0) / (y.size - n_pos + 1.0))])

    def loss(th):
        z = Z @ th
        return float(np.sum(np.logaddexp(0.0, z) - t * z))

    for _ in range(n_iter):
        p = expit(Z @ theta)
        grad = Z.T @ (p - t)
        hess = (Z * (p * (1 - p))[:, None]).T @ Z + 1e-12 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        f0, k = loss(theta), 1.0
        while loss(theta - k * step) > f0 + 1e-12 and k > 1e-8:
            k /= 2  # backtracking keeps every Newton step a descent step
        theta = theta - k * step
        if np.abs(k * step).max() < 1e-10:
            break
    return theta


def _inner_decisions(T, y_index, fit, n_folds, random_state, n_classes=2):
    """Out-of-fold decision values of the training rows (the SVM refitted ``n_folds`` times;
    ``fit`` returns :func:`slb.model.svm.fit_linear_model`'s ``(coef, intercept)``)."""
    from ..model.svm import linear_decision

    n_folds = int(min(n_folds, np.bincount(y_index, minlength=n_classes).min()))
    if n_folds < 2:
        return None
    d = np.empty(len(y_index)) if n_classes == 2 else np.empty((len(y_index), n_classes))
    # identical rows in one fold, as every split of the library (H46 found this one plain):
    # copies of a row have identical feature-map rows (the path's own folds keep them together)
    for itr, ite in stratified_splits(y_index, n_folds, random_state=random_state, X=T):
        d[ite] = linear_decision(T[ite], *fit(T[itr], y_index[itr]))
    return d


#: Rules :func:`calibrate_decisions` can pin its map to (``docs/probabilities.md``).
CALIBRATION_RULES = ("balanced", "prevalence", None)


def calibrate_decisions(decisions, folds, y_index, repeats, inner=None, *, rule="balanced"):
    """Calibrated probabilities of every fold's test rows from their decision values.

    The convention of ``docs/probabilities.md``: ``P(y | x)`` at the class frequencies of the
    rows the map is fitted on, ``softmax(s * decision + offsets)`` with one positive factor
    ``s`` and the offsets pinned so that the decision rule stays the Bayes rule of ``rule``'s
    priors (:func:`slb.probabilities.fit_logit_scale`), as :class:`slb.SLBClassifier`
    calibrates itself.  ``rule=None``: a free map (Platt's sigmoid, two parameters; more
    classes: :func:`slb._utils.multinomial_calibration`), whose largest probability may
    disagree with the decision rule.  Each fold's map is fitted without that fold's test rows.

    Parameters
    ----------
    decisions : list of ndarray
        Each fold's test decision values, shape (n_test,) or (n_test, n_classes).
    folds : list of (train_index, test_index)
    y_index : ndarray of shape (n_samples,)
        Class index of every row.
    repeats : ndarray of int
        The repeat of each fold (:func:`repeat_of_folds`).
    inner : list of ndarray or None
        Per-fold inner out-of-fold decision values of the fold's training rows; None: each
        fold's map is fitted on the test decisions of the OTHER folds of its repeat (rows it
        does not score, from models that did not see those rows: no extra fit).
    rule : {"balanced", "prevalence"} or None, default="balanced"
        The rule of the decision values: "balanced", the largest decision value (the sign)
        is the equal-prior rule (SLB's class-balanced SVM); "prevalence", it is the rule at
        the class frequencies; None: no pinning.

    Returns
    -------
    probas : list of ndarray or None
        Per fold (None where no map could be fitted).

    Examples
    --------
    >>> import numpy as np
    >>> from slb.evaluation.predictions import calibrate_decisions
    >>> y = np.array([0, 1, 0, 1, 0, 1, 0, 1])
    >>> folds = [(np.arange(4, 8), np.arange(4)), (np.arange(4), np.arange(4, 8))]
    >>> d = [np.array([-1.0, 2.0, -0.5, 1.0]), np.array([-2.0, 0.5, -1.0, 1.5])]
    >>> p = calibrate_decisions(d, folds, y, np.array([0, 0]))
    >>> bool(p[0][1] > 0.5 > p[0][0])
    True
    """
    if rule not in CALIBRATION_RULES:
        raise ValueError(f"rule must be one of {CALIBRATION_RULES}, not {rule!r}.")
    out = []
    for k in range(len(folds)):
        if inner is not None:
            d, yi = inner[k], y_index[folds[k][0]]
        else:
            mates = [j for j in range(len(folds)) if repeats[j] == repeats[k] and j != k]
            d = np.concatenate([decisions[j] for j in mates]) if mates else None
            yi = np.concatenate([y_index[folds[j][1]] for j in mates]) if mates else None
        if rule is not None:
            out.append(None if d is None else _pinned(d, yi, decisions[k], rule))
            continue
        if decisions[k].ndim == 2:  # K classes: the multinomial map of the K decision values
            out.append(None if d is None else _multinomial(d, yi, decisions[k]))
            continue
        sig = _sigmoid(d, yi) if d is not None else None
        p = None if sig is None else expit(sig[0] * decisions[k] + sig[1])
        out.append(None if p is None else np.clip(p, PROBA_EPS, 1.0 - PROBA_EPS))
    return out


def _pinned(d, y_index, decisions, rule):
    """Probabilities of ``decisions`` by the pinned map fitted on decision values ``d`` of
    other rows (:func:`calibrate_decisions`); two classes: of the positive class."""
    from .._utils import multiclass_proba
    from ..probabilities import decision_offsets, fit_logit_scale, scaled_proba

    K = 2 if decisions.ndim == 1 else decisions.shape[1]
    counts = np.bincount(np.asarray(y_index), minlength=K)
    if np.count_nonzero(counts) < 2:
        return None
    prevalence = np.maximum(counts, 0.5) / counts.sum()  # a class absent here: half a row
    prior = np.ones(K) if rule == "balanced" else prevalence
    offsets = decision_offsets(prevalence, prior)
    proba = multiclass_proba(scaled_proba(decisions, fit_logit_scale(d, y_index, offsets), offsets))
    return proba[:, 1] if decisions.ndim == 1 else proba


def _multinomial(d, y_index, decisions):
    """Class probabilities of ``decisions`` by :func:`slb._utils.multinomial_calibration`
    fitted on decision values ``d`` of other rows."""
    from .._utils import apply_calibration, multinomial_calibration

    K = decisions.shape[1]
    return apply_calibration(multinomial_calibration(d, y_index, K), decisions)


def path_predictions(
    path, y, selector, *, name="SLB", calibration="other_folds", inner_folds=3, random_state=0
):
    """SLB's out-of-fold predictions from a fitted :class:`slb.ThresholdPath`.

    One SVM per fold on the terms ``selector`` keeps, exactly as
    :meth:`slb.ThresholdPath.fold_ber_selected` fits it (the BER of these predictions equals
    its BER); the decision values of the test rows are the scores.  The probability of the
    positive class is the pinned map of :func:`calibrate_decisions` (one positive factor on
    the decision value, offset at the class balance, as :class:`slb.SLBClassifier` calibrates
    itself: ``docs/probabilities.md``; a ``class_weight`` dict: a free Platt sigmoid), fitted
    without the fold's test rows (more than two classes: the multinomial model of SLB, the
    prediction the largest decision value, and the same map of the K decision values):

    * ``"other_folds"``: on the out-of-fold decision values of the other folds of the same
      repeat (no extra fit; the sigmoid never sees the rows it scores);
    * ``"inner"``: on inner out-of-fold decision values of the fold's training rows, as
      ``CalibratedClassifierCV`` would (``inner_folds`` extra SVM fits per fold);
    * None: no probabilities (NaN).

    Parameters
    ----------
    path : ThresholdPath
        Fitted on ``X, y`` and its folds.
    y : array-like of shape (n_samples,)
        The labels the path was fitted on.
    selector : callable
        ``selector(screen) -> (n_classes, P)`` kept-term flags (see :mod:`slb.model.path`).
    name : str, default="SLB"
    calibration : {"other_folds", "inner", None}, default="other_folds"
    inner_folds : int, default=3
    random_state : int, default=0
        Seed of the inner calibration splits.

    Returns
    -------
    predictions : DataFrame
        The prediction table (labels as in ``y``).
    n_pairs : ndarray of shape (n_folds,)
        Pairs kept per fold.

    Examples
    --------
    >>> from slb import ThresholdPath
    >>> from slb.data.toy import xor
    >>> from slb.evaluation import evaluate_predictions, path_predictions, stratified_folds
    >>> from slb.model.path import threshold_selector
    >>> X, y = xor(n=80, noise=0.05, random_state=0)
    >>> path = ThresholdPath(random_state=0).fit(X, y, stratified_folds(y, 3))
    >>> pred, n_pairs = path_predictions(path, y, threshold_selector(0.0, "either"))
    >>> ber = evaluate_predictions(pred).summary.loc["SLB", "BER"]
    >>> pred.shape, n_pairs.tolist(), round(float(ber), 3)
    ((80, 8), [1, 1, 1], 0.124)
    """
    # Imported here: slb.model.path imports slb.evaluation.metrics (a cycle at import time).
    from ..model.path import column_mask, path_loss
    from ..model.svm import fit_linear_model, index_class_weight, linear_decision

    if calibration not in CALIBRATIONS:
        raise ValueError(f"calibration must be one of {CALIBRATIONS}, not {calibration!r}.")
    y = np.asarray(y)
    K = len(path.classes_)
    y_index = np.searchsorted(path.classes_, y)  # two classes: 1 for classes_[1]
    cw = index_class_weight(path.class_weight, path.classes_)

    def fit(T, yi):
        return fit_linear_model(T, yi, C=path.C, class_weight=cw, n_classes=K, loss=path_loss(path))

    folds = [(f.train, f.test) for f in path.folds_]
    decisions, inner, n_pairs = [], [], []
    for k, f in enumerate(path.folds_):
        keep = selector(f.screen)
        m = column_mask(keep, path.n_features_in_)
        decisions.append(linear_decision(f.T_test[:, m], *fit(f.T_train[:, m], y_index[f.train])))
        if calibration == "inner":
            T = f.T_train[:, m]
            inner.append(
                _inner_decisions(T, y_index[f.train], fit, inner_folds, random_state + k, K)
            )
        n_pairs.append(int(keep.any(axis=0).sum()))
    repeats = repeat_of_folds(folds)
    # the pinned map of the SVM's rule (a class_weight dict: a free map)
    rule = "balanced" if isinstance(cw, str) else ("prevalence" if cw is None else None)
    probas = (
        calibrate_decisions(
            decisions,
            folds,
            y_index,
            repeats,
            inner if calibration == "inner" else None,
            rule=rule,
        )
        if calibration is not None
        else [None] * len(folds)
    )

    def labels(d):
        return path.classes_[(d > 0).astype(int) if d.ndim == 1 else d.argmax(axis=1)]

    classes = path.classes_ if K > 2 else None
    frames = [
        fold_prediction_frame(name, k, te, y[te], labels(d), p, d, classes)
        for k, ((_, te), d, p) in enumerate(zip(folds, decisions, probas, strict=True))
    ]
    return with_repeats(frames, folds), np.array(n_pairs)


def naive_bayes_path_predictions(path, y, *, name="NB"):
    """Kernel naive Bayes's out-of-fold predictions from a fitted :class:`slb.ThresholdPath`.

    The path already holds every fold's univariate log-densities (the first block of each
    class in its feature map), so naive Bayes needs no density of its own: class ``c``'s
    score is the sum of its block, with balanced priors (the registry's ``KDENaiveBayes``).
    The labels are the balanced rule (two classes: the sign of ``sum log p+ - sum log p-``);
    the probabilities follow ``docs/probabilities.md`` as :meth:`slb.KDENaiveBayes.predict_proba`
    gives them: at the fold's training prevalence, the log-likelihoods scaled by one factor
    fitted on the fold's training rows' cross-fitted maps (``training_features="kfold"``: the
    same folds and numbers as ``KDENaiveBayes(random_state=seed)`` refitted on the fold when
    the path was fitted with that seed).

    Parameters
    ----------
    path : ThresholdPath
        Fitted on ``X, y`` and its folds.
    y : array-like of shape (n_samples,)
        The labels the path was fitted on.
    name : str, default="NB"

    Returns
    -------
    predictions : DataFrame
        The prediction table.

    Examples
    --------
    >>> from slb import ThresholdPath
    >>> from slb.data.toy import xor
    >>> from slb.evaluation import stratified_folds
    >>> from slb.evaluation.predictions import naive_bayes_path_predictions
    >>> X, y = xor(n=80, noise=0.05, random_state=0)
    >>> path = ThresholdPath(random_state=0).fit(X, y, stratified_folds(y, 3))
    >>> naive_bayes_path_predictions(path, y)["classifier"].unique().tolist()
    ['NB']
    """
    from .._utils import multiclass_proba
    from ..density.features import class_order
    from ..probabilities import decision_offsets, fit_logit_scale, scaled_proba

    y = np.asarray(y)
    d, K = path.n_features_in_, len(path.classes_)
    order, _ = class_order(path.classes_)
    pos = {c: i for i, c in enumerate(order)}
    y_index = np.searchsorted(path.classes_, y)

    def jll(T):
        return np.column_stack([T[:, pos[c] * d : (pos[c] + 1) * d].sum(axis=1) for c in range(K)])

    frames = []
    for k, f in enumerate(path.folds_):
        yi = y_index[f.train]
        counts = np.bincount(yi, minlength=K)
        offsets = decision_offsets(counts / counts.sum(), np.ones(K))
        scale = 1.0
        if min(5, counts.min()) >= 2:  # KDENaiveBayes's n_calibration_folds
            scale = fit_logit_scale(jll(f.T_train), yi, offsets)
        ll = jll(f.T_test)
        proba = multiclass_proba(scaled_proba(ll, scale, offsets))
        if K == 2:  # the balanced rule: the sign of the log-likelihood ratio
            score = ll[:, 1] - ll[:, 0]
            pred = path.classes_[(score > 0).astype(int)]
            frames.append(
                fold_prediction_frame(name, k, f.test, y[f.test], pred, proba[:, 1], score)
            )
            continue
        pred = path.classes_[np.argmax(proba / (counts / counts.sum()), axis=1)]
        frames.append(
            fold_prediction_frame(name, k, f.test, y[f.test], pred, proba, ll, path.classes_)
        )
    return with_repeats(frames, [(f.train, f.test) for f in path.folds_])


def with_repeats(frames, folds):
    """Concatenate per-fold prediction frames and add the ``repeat`` column.

    Parameters
    ----------
    frames : list of DataFrame
        From :func:`fold_prediction_frame`.
    folds : list of (train_index, test_index)
        The folds the ``fold`` column indexes.

    Returns
    -------
    predictions : DataFrame

    Examples
    --------
    >>> from slb.evaluation.predictions import fold_prediction_frame, with_repeats
    >>> frames = [fold_prediction_frame("m", k, [k], [k], [0]) for k in (0, 1, 2, 3)]
    >>> folds = [([1], [0]), ([0], [1]), ([1], [0]), ([0], [1])]  # two repeats of 2 folds
    >>> with_repeats(frames, folds)["repeat"].tolist()
    [0, 0, 1, 1]
    """
    frame = pd.concat(frames, ignore_index=True)
    frame.insert(3, "repeat", repeat_of_folds(folds)[frame["fold"].to_numpy()])
    return frame
