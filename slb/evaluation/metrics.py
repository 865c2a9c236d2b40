"""The balanced error rate, re-exported from the leaf module :mod:`slb._metrics` (so that the
model layer can score folds without importing the evaluation package), and its chance level."""

from .._metrics import balanced_error_rate

__all__ = ["balanced_error_rate", "chance_ber"]


def chance_ber(n_classes: int) -> float:
    """The BER of a guess: ``1 - 1 / K`` for ``K`` classes, whatever the class sizes.

    A constant prediction recalls one class wholly and the others not at all, and a random one
    (any class probabilities) recalls class ``k`` at the rate it predicts ``k``; either way the
    mean recall is ``1 / K``.  A classifier whose BER is not below this has learnt nothing.

    Parameters
    ----------
    n_classes : int
        At least 2.

    Returns
    -------
    float

    Examples
    --------
    >>> chance_ber(2), round(chance_ber(3), 4)
    (0.5, 0.6667)
    >>> balanced_error_rate([0, 0, 0, 1, 2], [0, 0, 0, 0, 0]) == chance_ber(3)
    True
    >>> chance_ber(1)
    Traceback (most recent call last):
    ...
    ValueError: chance_ber needs at least 2 classes, got 1.
    """
    k = int(n_classes)
    if k < 2:
        raise ValueError(f"chance_ber needs at least 2 classes, got {n_classes}.")
    return 1.0 - 1.0 / k
