"""What one cell of a table is: missing, a number, and its text as a label or category.

A leaf module of the cleaning (:mod:`slb.tables.clean`): the conversion of features, the label
coding and the predict-time application all decide with these helpers whether a cell is
missing and how a value is written in a message.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from .tokens import MISSING_TOKENS


def _native(value: Any) -> Any:
    """numpy scalar -> Python scalar (for dict keys and messages)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def _is_missing_scalar(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(np.isnan(value))
    if isinstance(value, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(value))
    return False


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


def _label_text(value: Any) -> str:
    """Text form of a label or category value (integral floats without '.0')."""
    if isinstance(value, (bool, np.bool_)):
        return "True" if value else "False"
    if (
        isinstance(value, (float, np.floating))
        and math.isfinite(value)
        and float(value).is_integer()
    ):
        if abs(value) < 2**63:
            return str(int(value))
    if isinstance(value, str):
        return value.strip()
    return str(_native(value)).strip()


def _category_text(value: Any) -> str | None:
    """A cell as category text, or None when missing (the rule of :func:`_categories`)."""
    if _is_missing_scalar(value):
        return None
    t = _label_text(value) if not isinstance(value, str) else value.strip()
    return None if t.lower() in MISSING_TOKENS else t
