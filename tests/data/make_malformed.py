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

    for path in sorted(OUT.iterdir()):
        size = path.stat().st_size
        assert size < 50_000, f"{path.name} is {size} bytes"
        print(f"{path.name:36s} {size:7,d} bytes")


if __name__ == "__main__":
    main()
