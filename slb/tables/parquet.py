"""Reading Parquet files safely with pyarrow.

pyarrow refuses pickle-based extension types (since version 14.0.1), so nothing is
unpickled.  The row and column counts and the uncompressed size of the data are checked from
the file's metadata before anything is read; text columns are read as dictionaries and their
expanded size is checked before they are expanded.  Exact decimals become floats, nested
columns (lists, records) are left out and a stored row index becomes an ordinary column.

pyarrow is imported only when a Parquet file is read (inside the functions), as before the split.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ._messages import _names, _q, _size
from .budget import Budget
from .cells import _text_dtype
from .limits import MAX_UNPACKED_BYTES, _limit_cells
from .result import TableRead


def _parquet_error(name: str, exc: BaseException) -> ValueError:
    """The error for a file pyarrow cannot open or read."""
    return ValueError(
        f"{_q(name, 60)} could not be read as a Parquet file ({type(exc).__name__}: "
        f"{_q(str(exc), 120)}). The file may be damaged; upload it again or save the table as CSV."
    )


def _parquet_too_big(name: str, size: int) -> ValueError:
    """The error for data that would take more than MAX_UNPACKED_BYTES once unpacked."""
    return ValueError(
        f"{_q(name, 60)} would take {_size(size)} once unpacked (its data are stored "
        f"compressed), more than the {_size(MAX_UNPACKED_BYTES)} this tool reads. Please upload "
        "fewer rows or columns, or shorter text values."
    )


def _read_parquet(data: bytes, name: str, budget: Budget | None = None) -> TableRead:
    """Read a Parquet file: check its metadata, read it, convert what pandas cannot hold.

    ``budget`` (:class:`slb.tables.budget.Budget`) is checked between the steps (pyarrow's
    reading itself is linear in the data, whose unpacked size is bounded beforehand).
    """
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - pyarrow is a dependency
        raise ValueError("Parquet files cannot be read because pyarrow is not installed.") from exc
    notes: list[str] = []
    try:
        pf = pq.ParquetFile(pa.BufferReader(data))
        meta = pf.metadata
        schema = pf.schema_arrow
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several error kinds
        raise _parquet_error(name, exc) from None
    _limit_cells(meta.num_rows, meta.num_columns, name)
    unpacked = sum(
        meta.row_group(g).column(c).total_uncompressed_size
        for g in range(meta.num_row_groups)
        for c in range(meta.row_group(g).num_columns)
    )
    if unpacked > MAX_UNPACKED_BYTES:
        raise _parquet_too_big(name, unpacked)
    if budget is not None:
        budget.check("reading")
    table = _read_with_dictionaries(data, schema, name)
    if budget is not None:
        budget.check("reading")
    expanded = _expanded_size(table)
    if expanded > MAX_UNPACKED_BYTES:
        raise _parquet_too_big(name, expanded)
    table = _decimals_to_floats(table, notes)
    table = _drop_nested(table, notes)
    if budget is not None:
        budget.check("reading")
    frame = _to_pandas(table, name, notes)
    frame.columns = [str(c) for c in frame.columns]
    return TableRead(frame=frame, notes=notes, format="parquet")


def _read_with_dictionaries(data: bytes, schema: Any, name: str) -> Any:
    """The table, with text and binary columns read as dictionaries.

    One copy of each distinct value plus small indices, so that a few long values repeated
    millions of times stay small; their expanded size is checked (:func:`_expanded_size`)
    before they are expanded.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    texts = [
        f.name
        for f in schema
        if pa.types.is_string(f.type)
        or pa.types.is_large_string(f.type)
        or pa.types.is_binary(f.type)
        or pa.types.is_large_binary(f.type)
    ]
    try:
        return pq.ParquetFile(pa.BufferReader(data), read_dictionary=texts or None).read()
    except Exception as exc:  # noqa: BLE001
        raise _parquet_error(name, exc) from None


def _expanded_size(table: Any) -> int:
    """Bytes the table takes once its dictionary columns are expanded (an estimate)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    expanded = 0
    for col in table.columns:
        for chunk in col.chunks:
            if pa.types.is_dictionary(chunk.type) and len(chunk):
                lengths = (
                    pc.binary_length(chunk.dictionary).fill_null(0).to_numpy(zero_copy_only=False)
                )
                idx = chunk.indices.fill_null(0).to_numpy(zero_copy_only=False)
                expanded += int(lengths[idx].sum(dtype=np.int64)) + 60 * len(chunk)
            else:
                expanded += chunk.nbytes
    return expanded


def _decimals_to_floats(table: Any, notes: list[str]) -> Any:
    """Exact decimal columns as float64, with a note."""
    import pyarrow as pa
    import pyarrow.compute as pc

    decimals = [f.name for f in table.schema if pa.types.is_decimal(f.type)]
    for col_name in decimals:
        i = table.schema.get_field_index(col_name)
        try:
            # through the decimal text: Arrow's direct cast divides in floating point and is
            # not correctly rounded (60.30 -> 60.300000000000004); parsing the text is
            as_text = pc.cast(table.column(i), pa.string())
            table = table.set_column(i, col_name, pc.cast(as_text, pa.float64()))
        except Exception:  # noqa: BLE001 - e.g. decimal256 beyond float range
            continue
    if decimals:
        notes.append(
            f"{_names(decimals)} {'holds' if len(decimals) == 1 else 'hold'} exact decimal "
            "numbers, which were converted to ordinary (floating-point) numbers."
        )
    return table


def _drop_nested(table: Any, notes: list[str]) -> Any:
    """The table without its columns of lists or records, with a note."""
    import pyarrow as pa

    nested = [
        f.name
        for f in table.schema
        if pa.types.is_nested(f.type)
        or pa.types.is_dictionary(f.type)
        and pa.types.is_nested(f.type.value_type)
    ]
    if nested:
        table = table.drop_columns(nested)
        notes.append(
            f"{len(nested)} column{'s' if len(nested) > 1 else ''} ({_names(nested)}) "
            f"{'hold' if len(nested) > 1 else 'holds'} lists or records instead of single values "
            f"and {'were' if len(nested) > 1 else 'was'} left out."
        )
    return table


def _to_pandas(table: Any, name: str, notes: list[str]) -> pd.DataFrame:
    """The Arrow table as a DataFrame with a RangeIndex and no categorical columns."""
    try:
        frame = table.to_pandas()
    except Exception as exc:  # noqa: BLE001
        raise ValueError(
            f"{_q(name, 60)} could not be converted to a table ({type(exc).__name__})."
        ) from None
    if not isinstance(frame.index, pd.RangeIndex):
        index_names = [n for n in frame.index.names if n is not None]
        frame = frame.reset_index()
        notes.append(
            "The file stored a row index"
            + (f" ({_names(index_names)})" if index_names else "")
            + "; it was turned into an ordinary column."
        )
    for j in range(frame.shape[1]):
        col = frame.iloc[:, j]
        if isinstance(col.dtype, pd.CategoricalDtype):
            values = [
                None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else v
                for v in col.to_numpy(dtype=object)
            ]
            plain = pd.Series(values, dtype=object).infer_objects()
            if plain.dtype == object:
                plain = plain.astype(_text_dtype())
            frame.isetitem(j, plain)
    return frame
