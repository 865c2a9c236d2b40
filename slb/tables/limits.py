"""What :func:`slb.tables.read.read_table` accepts: the file extensions and the size limits.

The limits are checked from what a file declares *before* it is parsed (see
:mod:`slb.tables.read`), so that a small file cannot expand into gigabytes.
"""

from __future__ import annotations

from ._messages import _q

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "DEFAULT_MAX_BYTES",
    "MAX_UPLOAD_MB",
    "MAX_CELLS",
    "MAX_ROWS",
    "MAX_COLUMNS",
    "MAX_EXCEL_CELLS",
    "MAX_UNPACKED_BYTES",
]

#: Upload size limit in megabytes: the same number as ``server.maxUploadSize`` in the
#: dashboard's ``.streamlit/config.toml`` (a test checks that they agree).
MAX_UPLOAD_MB = 50
#: Default upload size limit, in bytes.  The browser's uploader counts a megabyte as
#: 1,000,000 bytes (1,048,576 on Windows); the smaller reading is used so that the library, the
#: dashboard and every browser refuse the same files.
DEFAULT_MAX_BYTES = MAX_UPLOAD_MB * 1000 * 1000
#: Largest number of cells (rows x columns) read from any file (about 1 GB of memory at most
#: once the cells are text).
MAX_CELLS = 10_000_000
#: Largest number of data rows read from any file.
MAX_ROWS = 1_000_000
#: Largest number of columns read from any file.
MAX_COLUMNS = 10_000
#: Largest number of cell positions streamed from an Excel sheet (empty styled cells count:
#: they cost as much to parse as filled ones).
MAX_EXCEL_CELLS = 500_000
#: Largest uncompressed size of an Excel archive or of the data of a Parquet file.
MAX_UNPACKED_BYTES = 400 * 1000 * 1000
#: Largest uncompressed size of an Excel archive, as a multiple of ``max_bytes`` (the smaller
#: of this and :data:`MAX_UNPACKED_BYTES` applies).
EXCEL_EXPANSION_LIMIT = 20

TEXT_EXTENSIONS = (".csv", ".tsv", ".tab", ".txt", ".dat", ".data")
EXCEL_EXTENSIONS = (".xlsx", ".xlsm")
PARQUET_EXTENSIONS = (".parquet", ".pq")
#: File-name extensions :func:`slb.tables.read.read_table` accepts.
SUPPORTED_EXTENSIONS = TEXT_EXTENSIONS + EXCEL_EXTENSIONS + PARQUET_EXTENSIONS


def _limit_cells(n_rows: int, n_cols: int, filename: str) -> None:
    """Refuse a table that has (or declares) too many rows, columns or cells."""
    if n_cols > MAX_COLUMNS:
        raise ValueError(
            f"{_q(filename, 60)} has {n_cols:,} columns, more than the {MAX_COLUMNS:,} this tool "
            "can handle. Please upload a table with fewer columns (one column per feature)."
        )
    if n_rows > MAX_ROWS:
        raise ValueError(
            f"{_q(filename, 60)} has about {n_rows:,} rows, more than the {MAX_ROWS:,} this tool "
            "can handle. Please upload a sample of the rows."
        )
    if n_rows * n_cols > MAX_CELLS:
        raise ValueError(
            f"{_q(filename, 60)} has about {n_rows:,} rows and {n_cols:,} columns, more than the "
            f"{MAX_CELLS:,} cells this tool can handle. Please upload a smaller table."
        )
