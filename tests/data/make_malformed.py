"""Regenerate the corpus of malformed uploads in ``tests/data/malformed/``.

Run from anywhere: ``python tests/data/make_malformed.py``.  The output is deterministic
(fixed seeds; Excel and Parquet files get fixed timestamps), so re-running it does not change
the committed files except where this script changed.  Every file is described in
``tests/data/README.md`` and its expected outcome is asserted in ``tests/test_io.py``.
"""

from __future__ import annotations

import datetime as dt
import gzip
import io
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parent / "malformed"
FIXED_TIME = dt.datetime(2024, 1, 1, 12, 0, 0)


def base_table(n: int = 40, d: int = 3, seed: int = 0, labels=("yes", "no")) -> pd.DataFrame:
    """A small, clean two-class table: features x1..xd (2 decimals) and a ``label`` column."""
    rng = np.random.default_rng(seed)
    y = np.array([labels[i % len(labels)] for i in range(n)], dtype=object)
    shift = np.array([labels.index(v) for v in y], dtype=float)[:, None]
    X = np.round(rng.normal(size=(n, d)) + shift, 2)
    frame = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(d)])
    frame["label"] = y
    return frame


def write_text(name: str, text: str, encoding: str = "utf-8") -> None:
    (OUT / name).write_bytes(text.encode(encoding))


def write_bytes(name: str, data: bytes) -> None:
    (OUT / name).write_bytes(data)


def csv_text(frame: pd.DataFrame, sep: str = ",", **kwargs) -> str:
    return frame.to_csv(index=False, sep=sep, lineterminator="\n", **kwargs)


def fixed_zip(data: bytes) -> bytes:
    """Rewrite a ZIP archive (an .xlsx) with fixed timestamps so that it is reproducible."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info.filename)
            body = _fix_core_dates(info.filename, body)
            new = zipfile.ZipInfo(info.filename, date_time=(2024, 1, 1, 12, 0, 0))
            new.compress_type = zipfile.ZIP_DEFLATED
            new.external_attr = info.external_attr
            dst.writestr(new, body)
    return out.getvalue()


def _fix_core_dates(filename: str, body: bytes) -> bytes:
    if filename != "docProps/core.xml":
        return body
    import re

    return re.sub(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", b"2024-01-01T12:00:00Z", body)


def workbook_bytes(sheets: dict[str, list[list]]) -> bytes:
    from openpyxl import Workbook

    wb = Workbook()
    wb.remove(wb.active)
    for title, rows in sheets.items():
        ws = wb.create_sheet(title)
        for row in rows:
            ws.append(row)
    wb.properties.created = FIXED_TIME
    wb.properties.modified = FIXED_TIME
    buf = io.BytesIO()
    wb.save(buf)
    return fixed_zip(buf.getvalue())


def rows_of(frame: pd.DataFrame) -> list[list]:
    return [list(frame.columns)] + [
        [v.item() if isinstance(v, np.generic) else v for v in row]
        for row in frame.itertuples(index=False)
    ]


def png_bytes() -> bytes:
    """A valid 2x2 PNG image."""
    import struct
    import zlib

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return (
            struct.pack(">I", len(payload))
            + kind
            + payload
            + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)
        )

    raw = b"\x00\xff\x00\x00\x00\xff\x00\x00\x00\x00\xff\x00\x00\x00\x00\xff"
    ihdr = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(raw[:14]))
        + chunk(b"IEND", b"")
    )


# --- hostile uploads (issue 15): generators shared with the tests --------------------------------
def xlsx_with_dimension(ref: str, rows: list[list]) -> bytes:
    """A workbook whose first sheet declares ``<dimension ref=...>`` whatever it holds."""
    import re

    data = workbook_bytes({"data": rows})
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                body = re.sub(
                    rb'<dimension ref="[^"]*" ?/>', f'<dimension ref="{ref}"/>'.encode(), body
                )
            dst.writestr(info, body)
    return out.getvalue()


def xlsx_empty_styled_rows(n_rows: int, n_cols: int = 20, dimension: str = "A1:C4") -> bytes:
    """A workbook with a small table and then ``n_rows`` rows of empty cells that carry a style.

    This is what a spreadsheet looks like after formatting whole columns: every cell of the
    rows is written (``<c r="B7" s="1"/>``) although none holds a value.  The dimension is a
    lie (``dimension``), as some programs write it, so only reading can find the size.
    """
    cols = [chr(65 + j) for j in range(n_cols)]
    head = [
        '<row r="1"><c r="A1" t="inlineStr"><is><t>x1</t></is></c>'
        '<c r="B1" t="inlineStr"><is><t>x2</t></is></c>'
        '<c r="C1" t="inlineStr"><is><t>label</t></is></c></row>'
    ]
    for i in range(2, 6):
        head.append(
            f'<row r="{i}"><c r="A{i}"><v>{i}</v></c><c r="B{i}"><v>{i * i}</v></c>'
            f'<c r="C{i}" t="inlineStr"><is><t>{"ab"[i % 2]}</t></is></c></row>'
        )
    body = "".join(
        f'<row r="{i}">' + "".join(f'<c r="{c}{i}" s="1"/>' for c in cols) + "</row>"
        for i in range(6, 6 + n_rows)
    )
    sheet = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        f'<dimension ref="{dimension}"/><sheetData>{"".join(head)}{body}</sheetData></worksheet>'
    )
    base = workbook_bytes({"data": [["x"]]})
    src = zipfile.ZipFile(io.BytesIO(base))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body_bytes = src.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                body_bytes = sheet.encode()
            dst.writestr(info, body_bytes)
    return out.getvalue()


def parquet_long_strings(n_rows: int, length: int) -> bytes:
    """A Parquet file whose text column repeats one ``length``-character value ``n_rows`` times.

    Dictionary encoding stores the value once, so the file is tiny, while reading it naively
    makes ``n_rows * length`` bytes of text.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    value = pa.array(["v" * length])
    text = pa.DictionaryArray.from_arrays(pa.array(np.zeros(n_rows, dtype=np.int32)), value)
    table = pa.table(
        {
            "x": pa.array(np.arange(n_rows) % 7, pa.int8()),
            "note": text,
            "label": pa.array(np.where(np.arange(n_rows) % 2, "a", "b")),
        }
    )
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    return buf.getvalue()


def parquet_many_rows(n_rows: int) -> bytes:
    """A small Parquet file of ``n_rows`` rows of two constant-ish columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(
        {
            "x": pa.array(np.zeros(n_rows, dtype=np.int8)),
            "label": pa.array(np.arange(n_rows) % 2 == 0),
        }
    )
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    return buf.getvalue()


def csv_wide_line(n_fields: int) -> bytes:
    """One line of ``n_fields`` comma-separated numbers (no table: the issue's 5 MB line)."""
    return ",".join(str(i % 10) for i in range(n_fields)).encode()


def csv_many_cells(n_rows: int, n_cols: int) -> bytes:
    """A CSV of ``n_rows`` x ``n_cols`` one-digit cells (about ``2 * n_rows * n_cols`` bytes)."""
    header = ",".join(f"c{j}" for j in range(n_cols)) + "\n"
    line = ",".join("1" for _ in range(n_cols)) + "\n"
    return (header + line * n_rows).encode()


def _issue15(rng: np.random.Generator) -> None:
    """Files for the findings of issue 15 (hostile uploads)."""
    # 3. thousands separators: integers written "2,928" beside "718"
    t = base_table(n=120, seed=40)
    counts = rng.integers(100, 4000, size=120) + np.where(t["label"] == "yes", 300, 0)
    t.insert(1, "count", [f"{v:,}" for v in counts])
    write_text("thousands_separators.csv", csv_text(t))
    # 5. an identifier, rising down a file sorted by class
    t = base_table(n=60, seed=41).sort_values("label", kind="stable").reset_index(drop=True)
    t.insert(0, "patient_id", np.arange(1001, 1061))
    write_text("patient_id_sorted.csv", csv_text(t))
    # 9. UTF-16 LE without a byte-order mark
    write_bytes("utf16le_no_bom.txt", csv_text(base_table(seed=42), sep="\t").encode("utf-16-le"))
    # 9. Parquet decimal128
    import decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    t = base_table(seed=43)
    prices = [decimal.Decimal(f"{v:.2f}") for v in t["x1"] * 10 + 50]
    table = pa.table(
        {"price": pa.array(prices, pa.decimal128(10, 2)), "x2": t["x2"], "label": t["label"]}
    )
    buf = io.BytesIO()
    pq.write_table(table, buf)
    write_bytes("decimal_numbers.parquet", buf.getvalue())
    # 9. formulas without saved values (written by a program that does not compute them)
    rows = [["a", "b", "label"]] + [
        [f"=ROW()*{k}", f"=A{k + 2}/2", '=IF(MOD(ROW(),2)=0,"x","y")'] for k in range(20)
    ]
    write_bytes("formulas_no_values.xlsx", workbook_bytes({"calc": rows}))
    # 9. a title over merged cells above a two-column table
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "results"
    ws.append(["Blood pressure study 2023"])
    ws.merge_cells("A1:B1")
    for row in rows_of(base_table(seed=44)[["x1", "label"]]):
        ws.append(row)
    wb.properties.created = wb.properties.modified = FIXED_TIME
    out = io.BytesIO()
    wb.save(out)
    write_bytes("merged_title.xlsx", fixed_zip(out.getvalue()))
    # 9. a hidden first sheet
    wb = Workbook()
    old = wb.active
    old.title = "old_version"
    for row in [["a", "b"], [1, 2]]:
        old.append(row)
    old.sheet_state = "hidden"
    ws = wb.create_sheet("data")
    for row in rows_of(base_table(seed=45)):
        ws.append(row)
    wb.properties.created = wb.properties.modified = FIXED_TIME
    out = io.BytesIO()
    wb.save(out)
    write_bytes("hidden_first_sheet.xlsx", fixed_zip(out.getvalue()))
    # 9. tables pasted together (the header again) and a total row
    t = base_table(n=60, seed=46)
    lines = csv_text(t).splitlines()
    lines.insert(31, lines[0])
    lines.append(f"{t['x1'].sum():.2f},{t['x2'].sum():.2f},{t['x3'].sum():.2f},Total")
    write_text("repeated_header_total.csv", "\n".join(lines) + "\n")
    # 9. a stray class of 2 rows
    t = base_table(n=200, seed=47).astype(object)
    t.loc[[17, 150], "label"] = "unclear"
    write_text("stray_class.csv", csv_text(t))
    # 9. percentages and ISO dates
    t = base_table(seed=48)
    t["rate"] = [f"{v}%" for v in rng.integers(0, 100, size=40)]
    t["visit"] = pd.date_range("2023-03-01", periods=40, freq="3D").strftime("%Y-%m-%d")
    write_text("percent_and_dates.csv", csv_text(t))
    # 2. an Excel bomb's declaration: a few rows, but a dimension of a million rows
    write_bytes(
        "excel_declared_million_rows.xlsx",
        xlsx_with_dimension("A1:T1000121", rows_of(base_table(n=10, seed=49))),
    )
    # 4. Parquet: 2 million rows in a few kilobytes; one long text repeated
    write_bytes("parquet_many_rows.parquet", parquet_many_rows(2_000_000))
    write_bytes("parquet_long_strings.parquet", parquet_long_strings(200_000, 20_000))
    # 8. a single line with more fields than the column limit
    write_bytes("too_many_columns.csv", csv_wide_line(10_001))


def _issue29(rng: np.random.Generator) -> None:
    """Files for the misleading outcomes and names of issue 29 (items 7 and 8)."""
    # 7. a two-row header: 'Group of features' merged across B1:D1, 'label' merged down A1:A2
    from openpyxl import Workbook

    t = base_table(n=40, seed=50)
    wb = Workbook()
    ws = wb.active
    ws.title = "data"
    ws.append(["label", "Group of features", None, None])
    ws.append([None, "x1", "x2", "x3"])
    for row in t[["label", "x1", "x2", "x3"]].itertuples(index=False):
        ws.append([v.item() if isinstance(v, np.generic) else v for v in row])
    ws.merge_cells("A1:A2")
    ws.merge_cells("B1:D1")
    wb.properties.created = FIXED_TIME
    wb.properties.modified = FIXED_TIME
    buf = io.BytesIO()
    wb.save(buf)
    write_bytes("merged_two_row_header.xlsx", fixed_zip(buf.getvalue()))
    # 7. lines of UTF-8 and lines of Windows-1252 in one file (pasted from two sources)
    t = base_table(n=40, seed=51, labels=("pós", "neg"))
    lines = csv_text(t).splitlines()
    body = [lines[0].encode()] + [
        ln.encode("utf-8" if i % 4 < 2 else "cp1252") for i, ln in enumerate(lines[1:])
    ]
    write_bytes("mixed_utf8_latin1.csv", b"\n".join(body) + b"\n")
    # 7. every sheet hidden (openpyxl refuses to save that: the workbook XML is edited)
    data = workbook_bytes({"first": rows_of(base_table(seed=52)), "second": [["x"]]})
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body_bytes = src.read(info.filename)
            if info.filename == "xl/workbook.xml":
                body_bytes = body_bytes.replace(b'state="visible"', b'state="hidden"')
            dst.writestr(info, body_bytes)
    write_bytes("all_sheets_hidden.xlsx", out.getvalue())
    # 7. a space as thousands separator ("1 234"), beside the no-break-space variant
    t = base_table(n=40, seed=53)
    values = rng.integers(1000, 90000, size=40) + np.where(t["label"] == "yes", 5000, 0)
    sep = ["\u00a0" if i % 5 == 0 else " " for i in range(40)]
    t.insert(0, "income", [f"{v:,}".replace(",", s) for v, s in zip(values, sep, strict=True)])
    write_text("space_thousands.csv", csv_text(t))
    # 7. a Parquet duration column
    t = base_table(n=40, seed=54)
    t["stay"] = pd.to_timedelta((t["x1"] - t["x1"].min()).round(2), unit="D")
    buf = io.BytesIO()
    t[["stay", "x2", "label"]].to_parquet(buf, index=False)
    write_bytes("duration.parquet", buf.getvalue())
    # 8. names: a second byte-order mark, and four names that all display as "label"
    t = base_table(n=40, seed=55)
    t.columns = ["\ufeffid_x", "l\u0430bel", "la\u200bbel", "label"]  # x1, x2, x3, label
    write_bytes("lookalike_names.csv", b"\xef\xbb\xbf" + csv_text(t).encode("utf-8"))
    # 8. unique integers named like an identifier, shuffled
    t = base_table(n=60, seed=56)
    t.insert(0, "sample_code", rng.permutation(np.arange(5001, 5061)))
    write_text("sample_code_shuffled.csv", csv_text(t))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.iterdir():
        old.unlink()
    rng = np.random.default_rng(42)

    # --- reading problems --------------------------------------------------------------------
    write_bytes("empty.csv", b"")
    write_text("header_only.csv", "x1,x2,x3,label\n")
    write_text("blank_lines_only.csv", "\n\n   \n\n")

    t = base_table(seed=1)
    text = csv_text(t, sep=";").replace(".", ",")
    write_text("semicolon_decimal_comma.csv", text)
    write_text("tab_separated.tsv", csv_text(base_table(seed=2), sep="\t"))
    write_text("pipe_delimited.txt", csv_text(base_table(seed=3), sep="|"))
    write_text("space_separated.dat", csv_text(base_table(seed=4), sep=" "))

    t = base_table(seed=5, labels=("gesund", "krank"))
    t.columns = ["größe", "gewicht", "länge", "Klasse"]
    t["ort"] = ["München", "Köln", "Zürich", "Genève"] * 10
    write_text("latin1.csv", csv_text(t), encoding="latin-1")
    write_bytes("utf8_bom.csv", b"\xef\xbb\xbf" + csv_text(base_table(seed=6)).encode("utf-8"))
    write_bytes("utf16_unicode_text.txt", csv_text(base_table(seed=7), sep="\t").encode("utf-16"))

    title = "Results of the 2023 field campaign\nExported by LabTool v2.1, operator: J. Smith\n\n"
    write_text("title_rows.csv", title + csv_text(base_table(seed=8)))

    t = base_table(seed=9)
    lines = csv_text(t).splitlines()
    lines[5] = lines[5] + ",99,extra"
    write_text("ragged_rows.csv", "\n".join(lines) + "\n")

    t = base_table(seed=10)
    write_text("no_header.csv", csv_text(t, header=False))

    t = base_table(seed=11)
    write_text("index_column.csv", t.to_csv(lineterminator="\n"))  # pandas index, empty header

    write_text(
        "single_column.csv", "value\n" + "\n".join(f"{v:.2f}" for v in rng.normal(size=30)) + "\n"
    )
    write_text(
        "prose.txt",
        "Dear colleagues,\n\nplease find attached the results of our experiment. We measured the\n"
        "samples twice; the second run, however, was noisier than the first one.\n"
        "The label column is called 'outcome' and has two values.\n\n"
        "Best regards, and thanks again for your help with the analysis.\nAnna\n",
    )
    write_text(
        "html_page.csv",
        "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n"
        "<body><h1>Not Found</h1><p>The requested file was not found.</p></body></html>\n",
    )
    write_bytes("png_renamed.csv", png_bytes())
    write_bytes(
        "random_binary.csv",
        np.random.default_rng(7).integers(0, 256, 2048, dtype=np.uint8).tobytes(),
    )
    write_bytes(
        "gzip_compressed.csv",
        gzip.compress(csv_text(base_table(seed=12)).encode(), mtime=0),
    )
    write_text("unknown_extension.json", '[{"x1": 1.0, "label": "yes"}]\n')
    write_bytes("old_format.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))

    # --- Excel and Parquet -------------------------------------------------------------------
    data_rows = rows_of(base_table(seed=13))
    summary = [["statistic", "value", "remark"], ["rows", 40, "all"], ["features", 3, "numeric"]]
    write_bytes("two_sheets.xlsx", workbook_bytes({"measurements": data_rows, "summary": summary}))
    write_bytes(
        "excel_title_row.xlsx",
        workbook_bytes(
            {"Sheet1": [["Blood test results, ward 3"], []] + rows_of(base_table(seed=14))}
        ),
    )
    t = rows_of(base_table(seed=15))
    t[3][1] = "#DIV/0!"
    t[7][0] = "#N/A"
    write_bytes("excel_formula_errors.xlsx", workbook_bytes({"data": t}))
    good = workbook_bytes({"data": rows_of(base_table(seed=16))})
    write_bytes("broken.xlsx", good[: len(good) // 2])

    t = base_table(seed=17)
    t["site"] = pd.Categorical(["north", "south", "east", "west"] * 10)
    t.index = pd.Index([f"s{i:03d}" for i in range(len(t))], name="sample_id")
    buf = io.BytesIO()
    t.to_parquet(buf, engine="pyarrow", index=True, compression="snappy")
    write_bytes("table.parquet", buf.getvalue())

    # --- label problems ----------------------------------------------------------------------
    t = base_table(n=50, seed=18, labels=("alpha", "beta", "gamma", "delta", "epsilon"))
    write_text("five_classes.csv", csv_text(t))
    t = base_table(seed=19)
    t["label"] = "yes"
    write_text("one_class.csv", csv_text(t))
    t = base_table(seed=20).astype(object)
    for i, v in [(2, ""), (5, "NA"), (9, "?"), (11, " yes "), (14, "no  ")]:
        t.loc[i, "label"] = v
    write_text("odd_labels.csv", csv_text(t))
    t = base_table(seed=21)
    t["label"] = [True, False] * 20
    write_text("boolean_label.csv", csv_text(t))

    # --- feature problems --------------------------------------------------------------------
    t = base_table(seed=22)
    t.insert(0, "patient", [f"Patient {chr(65 + i % 26)}{i}" for i in range(40)])
    t.insert(2, "smoker", ["yes", "no", "no", "yes", "no"] * 8)
    t.insert(3, "blood_group", ["A", "B", "AB", "0"] * 10)
    write_text("text_features.csv", csv_text(t))
    t = base_table(seed=23).astype(object)
    t.loc[[3, 8, 15], "x1"] = np.nan
    t.loc[[8, 21], "x3"] = np.nan
    write_text("missing_values.csv", csv_text(t))
    t = base_table(seed=24).astype(object)
    t["x4"] = np.where(np.arange(40) % 4 == 0, np.round(rng.normal(size=40), 2), np.nan)
    write_text("mostly_missing_column.csv", csv_text(t))
    t = base_table(seed=25).astype(object)
    t.loc[4, "x2"] = "inf"
    t.loc[10, "x2"] = "-inf"
    t.loc[12, "x3"] = "Infinity"
    write_text("inf_values.csv", csv_text(t))
    t = base_table(seed=26)
    t.insert(1, "batch", 7)
    write_text("constant_column.csv", csv_text(t))
    t = base_table(seed=27)
    t.columns = ["size", "size", "weight", "label"]
    write_text("duplicate_column_names.csv", csv_text(t))
    t = base_table(seed=28)
    t["x1_copy"] = t["x1"]
    write_text("duplicate_columns.csv", csv_text(t))
    t = base_table(seed=29).astype(object)
    t["x1"] = [f" {v} " for v in t["x1"]]
    t["x2"] = [str(v).replace(".", ",") for v in t["x2"]]
    t["x3"] = t["x3"].astype(str)
    t.loc[[6, 30], "x3"] = ["<0.01", "n.d."]
    write_text("numbers_as_text.csv", csv_text(t, quoting=1))
    t = base_table(seed=30)
    t = pd.DataFrame(
        {
            "name": [f"item {i}" for i in range(40)],
            "comment": [f"looks {'fine' if i % 3 else 'odd'} on day {i}" for i in range(40)],
            "label": t["label"],
        }
    )
    write_text("all_text_features.csv", csv_text(t))

    # --- size problems -----------------------------------------------------------------------
    t = base_table(n=30, d=60, seed=31)
    write_text("thirty_rows_sixty_features.csv", csv_text(t))
    write_text("six_rows.csv", csv_text(base_table(n=6, seed=32)))
    t = base_table(n=60, seed=33)
    t["label"] = ["rare" if i < 7 else "common" for i in range(60)]
    write_text("small_class_for_folds.csv", csv_text(t))
    t = base_table(n=2000, d=2, seed=34)
    write_text("many_rows.csv", csv_text(t))

    _issue15(np.random.default_rng(15))
    _issue29(np.random.default_rng(29))

    for path in sorted(OUT.iterdir()):
        size = path.stat().st_size
        assert size < 50_000, f"{path.name} is {size} bytes"
        print(f"{path.name:36s} {size:7,d} bytes")


if __name__ == "__main__":
    main()
