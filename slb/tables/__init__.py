"""Reading uploaded tables safely and cleaning them into a numeric feature matrix and a binary label."""

from .budget import DEFAULT_TIME_LIMIT, Budget, TimeLimitExceeded
from .cleaner import TableCleaner, prepare_table
from .encode import MAX_CATEGORIES
from .labels import stray_classes
from .prepare import MIN_ROWS_PER_CLASS
from .read import (
    DEFAULT_MAX_BYTES,
    MAX_CELLS,
    MAX_COLUMNS,
    MAX_EXCEL_CELLS,
    MAX_ROWS,
    MAX_UNPACKED_BYTES,
    MAX_UPLOAD_MB,
    SUPPORTED_EXTENSIONS,
    TableRead,
    list_excel_sheets,
    read_table,
)
from .records import Change, PreparedData
from .tokens import MISSING_TOKENS

__all__ = [
    "Change",
    "PreparedData",
    "TableCleaner",
    "prepare_table",
    "MIN_ROWS_PER_CLASS",
    "MAX_CATEGORIES",
    "MISSING_TOKENS",
    "stray_classes",
    "TableRead",
    "read_table",
    "list_excel_sheets",
    "SUPPORTED_EXTENSIONS",
    "DEFAULT_MAX_BYTES",
    "MAX_UPLOAD_MB",
    "MAX_CELLS",
    "MAX_ROWS",
    "MAX_COLUMNS",
    "MAX_EXCEL_CELLS",
    "MAX_UNPACKED_BYTES",
    "Budget",
    "DEFAULT_TIME_LIMIT",
    "TimeLimitExceeded",
]
