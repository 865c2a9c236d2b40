"""The balanced error rate, re-exported from the leaf module :mod:`slb._metrics` (so that the
model layer can score folds without importing the evaluation package)."""

from .._metrics import balanced_error_rate

__all__ = ["balanced_error_rate"]
