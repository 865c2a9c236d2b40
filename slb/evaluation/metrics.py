"""The balanced error rate, the score every comparison in slb reports."""

from __future__ import annotations

from sklearn.metrics import balanced_accuracy_score


def balanced_error_rate(y_true, y_pred):
    """Balanced error rate ``BER = 1 - (sensitivity + specificity) / 2``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)

    Returns
    -------
    ber : float
        In [0, 1]; 0.5 for a constant prediction.
    """
    return 1.0 - balanced_accuracy_score(y_true, y_pred)
