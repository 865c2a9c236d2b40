"""scikit-learn's estimator checks for classifiers whose probabilities are calibrated.

``check_classifiers_train`` asserts, as its last step, that ``predict`` equals
``argmax(predict_proba)``.  Under the library's convention (``docs/probabilities.md``) the
SVM family's ``predict`` is the balanced-error rule ``argmax(predict_proba /
training_prevalence_)``, which equals ``argmax(predict_proba)`` when the classes are balanced,
as in scikit-learn's check data: the check passes, so no failure is expected (an expected
failure that passes would be a test that cannot fail).  The rule on unbalanced classes is
tested in ``tests/test_probability_convention.py``; :func:`without_proba` still runs the check
on the estimator without ``predict_proba``.  (Before issue 26 item 2 the Platt intercept was
free, so the two could disagree even on balanced classes.)
"""

from sklearn.utils.metaestimators import available_if

#: Checks a calibrated classifier is expected to fail: none (see the module docstring).
CALIBRATED_CHECKS = ()


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
    return dict.fromkeys(CALIBRATED_CHECKS, "")
