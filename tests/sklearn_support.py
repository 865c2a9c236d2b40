"""scikit-learn's estimator checks for classifiers whose probabilities are calibrated.

``predict`` of the SVM family and of DISCRETE is the sign of ``decision_function`` (for the SVMs
trained with balanced class weights: the balanced-error rule), while ``predict_proba`` is Platt
scaling fitted to the class frequencies.  Where the two thresholds differ, ``argmax(predict_proba)``
differs from ``predict``, as with ``SVC(probability=True)``; ``check_classifiers_train`` asserts
that they agree as its last step.  It is expected to fail on these estimators, and
:func:`without_proba` runs all of it but that step.
"""

from sklearn.utils.metaestimators import available_if

PROBA_REASON = (
    "predict is the sign of decision_function (balanced-error rule) while predict_proba is "
    "Platt-calibrated to the class frequencies, so argmax(predict_proba) may differ from "
    "predict, as with SVC(probability=True); the rest of the check runs without predict_proba"
)

CALIBRATED_CHECKS = ("check_classifiers_train",)


def without_proba(estimator):
    """The same estimator (same parameters) with ``predict_proba`` hidden from ``hasattr``."""
    base = type(estimator)

    def never(_):
        return False

    hidden = type(
        base.__name__,
        (base,),
        {
            "predict_proba": available_if(never)(base.predict_proba),
            "predict_log_proba": available_if(never)(base.predict_log_proba),
        },
    )
    return hidden(**estimator.get_params(deep=False))


def expected_calibration_failures(estimator):
    """``{check name: reason}`` for the checks a calibrated classifier is expected to fail."""
    return {name: PROBA_REASON for name in CALIBRATED_CHECKS}
