"""scikit-learn's own conformance checks for every estimator of slb's core."""

import pytest
from sklearn.utils.estimator_checks import check_classifiers_train, parametrize_with_checks
from sklearn_support import expected_calibration_failures, without_proba

from slb import (
    ForestDensityClassifier,
    KDENaiveBayes,
    LogDensityTransformer,
    LUClassifier,
    SLBClassifier,
    TANClassifier,
)

# fit_transform returns out-of-sample (cross-fitted) features of the training rows on purpose,
# exactly like sklearn's TargetEncoder, so it differs from fit(X).transform(X).
_LOO_REASON = (
    "fit_transform returns cross-fitted (out-of-sample) densities of the training rows on "
    "purpose (like TargetEncoder); fit(X).transform(X) gives in-sample densities"
)
EXPECTED_FAILED = {
    "LogDensityTransformer": {
        "check_transformer_general": _LOO_REASON,
        "check_transformer_data_not_an_array": _LOO_REASON,
        "check_fit_transform_idempotent": _LOO_REASON,
    },
}
# predict: the sign of the SVM (balanced-error rule); predict_proba: Platt, class frequencies
# (without predict_proba, probability=False, nothing is expected to fail).
CALIBRATED = ("SLBClassifier", "LUClassifier", "ForestDensityClassifier")


def _expected_failed(estimator):
    name = type(estimator).__name__
    if name in CALIBRATED and estimator.get_params()["probability"]:
        return expected_calibration_failures(estimator)
    return EXPECTED_FAILED.get(name, {})


@parametrize_with_checks(
    [
        SLBClassifier(random_state=0),
        SLBClassifier(threshold=0.01, random_state=0),
        SLBClassifier(threshold=0.01, C=1.0, probability=False, random_state=0),
        SLBClassifier(threshold="fdr", dependence="spearman"),
        LUClassifier(),
        ForestDensityClassifier(),
        KDENaiveBayes(),
        TANClassifier(),
        LogDensityTransformer(),
    ],
    expected_failed_checks=_expected_failed,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize(
    "estimator",
    [
        SLBClassifier(random_state=0),
        SLBClassifier(threshold=0.01, C=1.0, random_state=0),
        LUClassifier(random_state=0),
        ForestDensityClassifier(random_state=0),
    ],
    ids=repr,
)
def test_classifiers_train_check_without_the_calibrated_probabilities(estimator):
    est = without_proba(estimator)
    check_classifiers_train(type(est).__name__, est)
