"""Tests for slb.tables.read.read_table and the corpus of malformed uploads in tests/data/malformed/.

Every corpus file goes through ``read_table`` -> ``prepare_table`` (with the label and options
listed in ``CASES``) and must end either in a clean result whose notes contain the expected
phrases, or in a ``ValueError`` raised at the expected stage with the expected phrase.
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slb.tables.clean import prepare_table
from slb.tables.read import (
    DEFAULT_MAX_BYTES,
    SUPPORTED_EXTENSIONS,
    TableRead,
    list_excel_sheets,
    read_table,
)

DATA = Path(__file__).resolve().parent / "data"
CORPUS = DATA / "malformed"


@dataclass(frozen=True)
class Case:
    """One corpus file, how to read and prepare it, and the expected outcome.

    ``error`` is a phrase of the expected ValueError message (``stage`` says whether
    read_table or prepare_table raises it); otherwise the run must succeed and every phrase
    of ``notes`` must occur in the read notes or the prepare_table messages.
    """

    file: str
    label: str = "label"
    read: dict = field(default_factory=dict)
    prepare: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    error: str | None = None
    stage: str | None = None

    @property
    def id(self) -> str:
        extra = ",".join(f"{k}={v}" for k, v in {**self.read, **self.prepare}.items())
        return (
            self.file
            + (f"[{extra}]" if extra else "")
            + ("" if self.label == "label" else f"[label={self.label}]")
        )


CASES = [
    # ---- reading problems ---------------------------------------------------------------------
    Case("empty.csv", error="is empty (0 bytes)", stage="read"),
    Case("header_only.csv", error="has a header row but no data rows", stage="read"),
    Case("blank_lines_only.csv", error="contains only blank lines", stage="read"),
    Case("semicolon_decimal_comma.csv", notes=("separated by semicolons", "decimal comma")),
    Case("tab_separated.tsv", notes=("separated by tabs",)),
    Case("pipe_delimited.txt", notes=("separated by '|'",)),
    Case("space_separated.dat", notes=("separated by spaces",)),
    Case("latin1.csv", label="Klasse", notes=("read as Latin-1", "'ort') contains text")),
    Case("latin1.csv", label="klasse", notes=("same name up to upper/lower case",)),
    Case("utf8_bom.csv", notes=("byte-order mark",)),
    Case("utf16_unicode_text.txt", notes=("UTF-16", "separated by tabs")),
    Case(
        "title_rows.csv", notes=("table starts at line 4", "'Results of the 2023 field campaign'")
    ),
    Case("ragged_rows.csv", notes=("Line 6 has more values than the header row",)),
    Case("no_header.csv", label="column_4", notes=("no header row",)),
    Case("index_column.csv", notes=("had no name", "just the row numbers")),
    Case("single_column.csv", error="has a single column", stage="read"),
    Case("prose.txt", error="No table was found", stage="read"),
    Case("html_page.csv", error="is a web page (HTML), not a table", stage="read"),
    Case("png_renamed.csv", error="is a PNG image, not a table", stage="read"),
    Case("random_binary.csv", error="is binary data", stage="read"),
    Case("gzip_compressed.csv", error="is a gzip-compressed file", stage="read"),
    Case("unknown_extension.json", error="'.json', which is not supported", stage="read"),
    Case("old_format.xls", error="The old Excel format .xls is not supported", stage="read"),
    # ---- Excel and Parquet ----------------------------------------------------------------------
    Case("two_sheets.xlsx", notes=("workbook has 2 sheets", "'measurements' was read")),
    Case(
        "two_sheets.xlsx",
        label="statistic",
        read={"sheet": "summary"},
        error="each class needs at least 5 rows",
        stage="prepare",
    ),
    Case("excel_title_row.xlsx", notes=("table starts at row 3 of the sheet",)),
    Case("excel_formula_errors.xlsx", notes=("formula error", "had missing values")),
    Case("broken.xlsx", error="could not be read as an Excel workbook", stage="read"),
    Case("table.parquet", notes=("stored a row index ('sample_id')", "contain text")),
    Case(
        "table.parquet",
        prepare={"non_numeric": "encode"},
        notes=("'site' has 4 categories", "looks like identifiers"),
    ),
    # ---- label problems -----------------------------------------------------------------------
    Case("five_classes.csv", error="has 5 classes", stage="prepare"),
    Case(
        "five_classes.csv",
        prepare={"positive": "gamma"},
        notes=("merged into one negative class named 'not gamma'",),
    ),
    Case("one_class.csv", error="has only one class, 'yes' (40 rows)", stage="prepare"),
    Case(
        "odd_labels.csv",
        notes=(
            "3 rows (data rows 3, 6 and 10 of the file, counting from 1) had no value in the label",
        ),
    ),
    Case("boolean_label.csv", notes=("1/True conventionally marks the positive class",)),
    Case(
        "tab_separated.tsv",
        label="diagnosis",
        error="'diagnosis' is not in the table",
        stage="prepare",
    ),
    # ---- feature problems ---------------------------------------------------------------------
    Case("text_features.csv", notes=("('patient', 'smoker' and 'blood_group') contain text",)),
    Case(
        "text_features.csv",
        prepare={"non_numeric": "encode"},
        notes=(
            "single 0/1 column 'smoker=yes'",
            "'blood_group' has 4 categories",
            "'patient') has more than 10",
        ),
    ),
    Case("all_text_features.csv", error="No usable feature column is left", stage="prepare"),
    Case("missing_values.csv", notes=("4 rows of 40", "were removed")),
    Case("missing_values.csv", prepare={"missing": "impute"}, notes=("5 missing values", "median")),
    Case("mostly_missing_column.csv", notes=("'x4': 75%) is more than half empty",)),
    Case("inf_values.csv", notes=("3 cells in 'x2' and 'x3' held an infinite value",)),
    Case("constant_column.csv", notes=("('batch') has the same value in every row",)),
    Case("duplicate_column_names.csv", notes=("'size_2' (a second 'size')",)),
    Case("duplicate_columns.csv", notes=("'x1_copy' (same as 'x1')",)),
    Case(
        "numbers_as_text.csv",
        notes=("decimal comma", "stored numbers as text", "('<0.01' and 'n.d.')"),
    ),
    # ---- size problems ------------------------------------------------------------------------
    Case("thirty_rows_sixty_features.csv", notes=("more features (60) than rows (30)",)),
    Case(
        "thirty_rows_sixty_features.csv",
        prepare={"max_features": 10},
        notes=("60 usable features, more than the limit of 10",),
    ),
    Case("six_rows.csv", error="'yes' has 3 rows and 'no' has 3 rows", stage="prepare"),
    Case("small_class_for_folds.csv", prepare={"n_folds": 10}, notes=("so 7 folds will be used",)),
    Case("many_rows.csv", prepare={"max_rows": 500}, notes=("random sample of 500 rows",)),
    # ---- hostile uploads (issue 15) -------------------------------------------------------------
    Case("thousands_separators.csv", notes=("Commas in 'count' were read as thousands",)),
    Case("patient_id_sorted.csv", notes=("('patient_id': all different whole numbers that rise",)),
    Case("utf16le_no_bom.txt", notes=("UTF-16 text without a byte-order mark", "by tabs")),
    Case("decimal_numbers.parquet", notes=("'price' holds exact decimal numbers",)),
    Case(
        "formulas_no_values.xlsx", error="60 cells with formulas without saved values", stage="read"
    ),
    Case("merged_title.xlsx", notes=("a title over merged cells) was skipped",)),
    Case("hidden_first_sheet.xlsx", notes=("'old_version' is hidden in Excel and not read",)),
    Case(
        "repeated_header_total.csv",
        notes=("data row (31) held the header row again", "data row (62) held a total"),
    ),
    Case("stray_class.csv", notes=("'unclear' (2 rows) has fewer than 3 rows",)),
    Case("percent_and_dates.csv", notes=("Percentages in 'rate'", "days since 1970-01-01")),
    Case(
        "excel_declared_million_rows.xlsx",
        error="declares 1,000,121 rows and 20 columns",
        stage="read",
    ),
    Case("parquet_many_rows.parquet", error="has about 2,000,000 rows, more than", stage="read"),
    Case("parquet_long_strings.parquet", error="would take 4 GB once unpacked", stage="read"),
    Case("too_many_columns.csv", error="more than the 10,000 columns", stage="read"),
    # ---- misleading outcomes and names (issue 29) ------------------------------------------------
    Case("merged_two_row_header.xlsx", notes=("The header spans rows 1 and 2",)),
    Case("mixed_utf8_latin1.csv", notes=("mixes two text encodings",)),
    Case("all_sheets_hidden.xlsx", notes=("Every sheet of the workbook is hidden",)),
    Case(
        "space_thousands.csv",
        notes=("'yes' (20 rows in the file) is treated as the positive class",),
    ),
    Case("duration.parquet", notes=("Durations (lengths of time, not dates) in 'stay'",)),
    Case("lookalike_names.csv", notes=("'[U+FEFF]id_x' -> 'id_x'", "(looks like 'label'")),
    Case("sample_code_shuffled.csv", notes=("('sample_code': all different whole numbers",)),
]


def _run(case: Case):
    data = (CORPUS / case.file).read_bytes()
    read = read_table(data, case.file, **case.read)
    prepared = prepare_table(read.frame, case.label, **case.prepare)
    return read, prepared


def _check_message(message: str) -> None:
    assert isinstance(message, str) and message.strip()
    assert message.rstrip().endswith("."), message
    assert "Traceback" not in message and "<" not in message.replace("'<0.01'", "")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_corpus_file(case: Case) -> None:
    if case.error is not None:
        assert case.stage in ("read", "prepare")
        data = (CORPUS / case.file).read_bytes()
        if case.stage == "read":
            with pytest.raises(ValueError) as info:
                read_table(data, case.file, **case.read)
        else:
            read = read_table(data, case.file, **case.read)
            with pytest.raises(ValueError) as info:
                prepare_table(read.frame, case.label, **case.prepare)
        message = str(info.value)
        assert case.error in message, message
        _check_message(message)
        return

    read, prepared = _run(case)
    assert isinstance(read, TableRead)
    texts = list(read.notes) + prepared.messages
    for text in texts:
        _check_message(text)
    joined = "\n".join(texts)
    for phrase in case.notes:
        assert phrase in joined, f"{phrase!r} not in:\n{joined}"
    assert case.notes, "a successful corpus case must expect at least one visible note"
    X, y = prepared.X, prepared.y
    assert len(X) == len(y) > 0 and X.shape[1] > 0
    assert all(dt == np.float64 for dt in X.dtypes)
    assert np.isfinite(X.to_numpy()).all()
    assert set(pd.unique(pd.Series(y, dtype=object))) == {
        prepared.positive_label,
        prepared.negative_label,
    }
    assert sum(prepared.class_counts.values()) == len(y)


def test_every_corpus_file_is_tested_and_documented() -> None:
    files = sorted(p.name for p in CORPUS.iterdir())
    assert len(files) >= 20
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    tested = {c.file for c in CASES}
    for name in files:
        assert name in tested, f"{name} has no entry in CASES"
        assert f"`{name}`" in readme, f"{name} is not described in tests/data/README.md"
    for name in tested:
        assert name in files
    for path in CORPUS.iterdir():
        assert path.stat().st_size < 50_000


# ---- specific read_table behaviour ------------------------------------------------------------
def test_corpus_details() -> None:
    read, prepared = _run(Case("utf8_bom.csv"))
    assert read.encoding == "utf-8-sig" and read.frame.columns[0] == "x1"
    read = read_table((CORPUS / "latin1.csv").read_bytes(), "latin1.csv")
    assert read.encoding in ("cp1252", "latin-1")
    assert list(read.frame.columns[:3]) == ["größe", "gewicht", "länge"]
    assert "München" in set(read.frame["ort"])
    read = read_table((CORPUS / "semicolon_decimal_comma.csv").read_bytes(), "s.csv")
    assert read.delimiter == ";" and read.frame["x1"].dtype == np.float64
    read = read_table((CORPUS / "two_sheets.xlsx").read_bytes(), "two_sheets.xlsx")
    assert read.sheets == ["measurements", "summary"] and read.sheet == "measurements"
    assert read.format == "excel" and read.frame.shape == (40, 4)
    read = read_table((CORPUS / "title_rows.csv").read_bytes(), "title_rows.csv")
    assert read.header_row == 4 and list(read.frame.columns) == ["x1", "x2", "x3", "label"]
    _, prepared = _run(Case("small_class_for_folds.csv", prepare={"n_folds": 10}))
    assert prepared.n_folds == 7
    _, prepared = _run(Case("many_rows.csv", prepare={"max_rows": 500}))
    assert prepared.class_counts == {"yes": 250, "no": 250}
    _, prepared = _run(Case("boolean_label.csv"))
    assert prepared.y.dtype == bool and prepared.positive_label is True
    _, prepared = _run(Case("five_classes.csv", prepare={"positive": "gamma"}))
    assert prepared.class_counts == {"gamma": 10, "not gamma": 40}


def test_list_excel_sheets_and_sheet_choice() -> None:
    data = (CORPUS / "two_sheets.xlsx").read_bytes()
    assert list_excel_sheets(data) == ["measurements", "summary"]
    by_index = read_table(data, "b.xlsx", sheet=1)
    assert by_index.sheet == "summary" and list(by_index.frame.columns) == [
        "statistic",
        "value",
        "remark",
    ]
    with pytest.raises(ValueError, match="no sheet named 'nope'.*'measurements' and 'summary'"):
        read_table(data, "b.xlsx", sheet="nope")
    with pytest.raises(ValueError, match="no sheet number 5"):
        read_table(data, "b.xlsx", sheet=4)
    with pytest.raises(ValueError, match="could not be read as an Excel workbook"):
        list_excel_sheets(b"not a workbook")


def _xlsx(sheets: dict[str, list[list]]) -> bytes:
    from openpyxl import Workbook

    wb = Workbook()
    wb.remove(wb.active)
    for title, rows in sheets.items():
        ws = wb.create_sheet(title)
        for row in rows:
            ws.append(row)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def test_excel_first_sheet_empty_and_no_header() -> None:
    rows = [[float(i), float(i % 3), "a" if i % 2 else "b"] for i in range(12)]
    data = _xlsx({"cover": [], "data": rows})
    read = read_table(data, "w.xlsx")
    assert read.sheet == "data"
    assert any("first sheet, 'cover', is empty" in n for n in read.notes)
    assert any("no header row" in n for n in read.notes)
    assert list(read.frame.columns) == ["column_1", "column_2", "column_3"]
    with pytest.raises(ValueError, match="The sheet 'cover' of 'w.xlsx' is empty"):
        read_table(data, "w.xlsx", sheet="cover")


def test_content_wins_over_extension() -> None:
    xlsx = (CORPUS / "two_sheets.xlsx").read_bytes()
    read = read_table(xlsx, "really_excel.csv")
    assert read.format == "excel" and any("is an Excel workbook although" in n for n in read.notes)
    parquet = (CORPUS / "table.parquet").read_bytes()
    read = read_table(parquet, "really_parquet.csv")
    assert read.format == "parquet"
    with pytest.raises(ValueError, match="not a valid Excel workbook"):
        read_table(b"a,b\n1,2\n", "fake.xlsx")
    with pytest.raises(ValueError, match="not a valid Parquet file"):
        read_table(b"a,b\n1,2\n", "fake.parquet")
    import pickle

    with pytest.raises(ValueError, match="pickle"):
        read_table(pickle.dumps({"a": [1, 2]}), "data.csv")
    with pytest.raises(ValueError, match="never read, for safety"):
        read_table(pickle.dumps({"a": [1, 2]}), "data.pkl")
    buf = io.BytesIO()
    with __import__("zipfile").ZipFile(buf, "w") as zf:
        zf.writestr("inner.csv", "a,b\n1,2\n")
    with pytest.raises(ValueError, match="ZIP archive"):
        read_table(buf.getvalue(), "archive.csv")


def test_size_limit_and_bad_arguments() -> None:
    data = b"a,b,label\n" + b"1,2,x\n" * 100
    with pytest.raises(ValueError, match=r"larger than the limit of 100 bytes"):
        read_table(data, "big.csv", max_bytes=100)
    assert read_table(data, "big.csv", max_bytes=None).frame.shape == (100, 3)
    assert DEFAULT_MAX_BYTES >= 10 * 1024 * 1024
    with pytest.raises(ValueError, match=r"Supported files are .*\.csv.*\.xlsx.*\.parquet"):
        read_table(data, "table")
    with pytest.raises(TypeError):
        read_table("a,b\n1,2\n", "x.csv")  # type: ignore[arg-type]
    assert ".csv" in SUPPORTED_EXTENSIONS and ".xlsx" in SUPPORTED_EXTENSIONS


def test_text_variants() -> None:
    # CRLF and old-Mac line ends, quoted separators and line breaks inside quotes
    text = 'name,value,label\r\n"Smith, J.",1.5,a\r\n"two\nlines",2.5,b\r\n'
    read = read_table(text.encode(), "q.csv")
    assert list(read.frame["name"]) == ["Smith, J.", "two\nlines"]
    read = read_table(b"a,b\r1,2\r3,4\r", "mac.csv")
    assert read.frame.to_dict("list") == {"a": [1, 3], "b": [2, 4]}
    # thousands separators in quoted cells of a comma file
    read = read_table(b'a,b\n"1,234.5",1\n"2,000.25",2\n', "t.csv")
    assert list(read.frame["a"]) == [1234.5, 2000.25]
    assert any("thousands separators" in n for n in read.notes)
    # trailing separator, empty rows and missing-value markers
    read = read_table(b"a,b,\n1,NA,\n,,\n3,?,\n", "t.csv")
    assert read.frame.shape == (2, 2) and read.frame["b"].isna().all()
    assert any("empty column without a name" in n for n in read.notes)
    assert any("empty row" in n for n in read.notes)
    # TRUE/FALSE text becomes a boolean column
    read = read_table(b"a,flag\n1,TRUE\n2,false\n", "b.csv")
    assert read.frame["flag"].dtype == bool
    # a JSON document is not a table
    with pytest.raises(ValueError, match="JSON"):
        read_table(b'{"a": [1, 2, 3]}', "j.txt")


def test_many_bad_lines_is_an_error() -> None:
    text = "a,b,c\n" + "".join("1,2,3\n" if i % 2 else "1,2,3,4,5\n" for i in range(20))
    with pytest.raises(ValueError, match="rows do not have the same number of values"):
        read_table(text.encode(), "bad.csv")
    text = "a,b,c\n" + "".join("1,2,3,4\n" if i in (1, 3) else "1,2,3\n" for i in range(20))
    read = read_table(text.encode(), "some_bad.csv")
    assert read.frame.shape == (18, 3)
    assert "2 lines (3 and 5) have more values than the header row has columns (3)" in read.notes[0]


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_large_csv_is_read_quickly() -> None:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        rng.normal(size=(20_000, 20)).round(4), columns=[f"f{i}" for i in range(20)]
    )
    frame["label"] = np.where(rng.random(20_000) < 0.3, "pos", "neg")
    data = frame.to_csv(index=False, sep=";", decimal=",").encode()
    start = time.perf_counter()
    read = read_table(data, "big.csv")
    elapsed = time.perf_counter() - start
    assert read.frame.shape == (20_000, 21)
    assert np.allclose(read.frame["f0"].to_numpy(), frame["f0"].to_numpy())
    assert elapsed < 15, elapsed


# ---- fuzzing: whatever the bytes, read_table raises ValueError or returns a clean table ---------
_TOKENS = st.sampled_from(
    [
        "1",
        "2.5",
        "-3",
        "1,5",
        "abc",
        "",
        " ",
        "NA",
        "?",
        "inf",
        '"q,uoted"',
        '"',
        "ü",
        "🙂",
        "\t",
        ";",
        "|",
        ",",
        "\n",
        "\r\n",
        "#",
        "x y",
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.one_of(
        st.binary(max_size=600),
        st.lists(_TOKENS, max_size=120).map(lambda t: "".join(t).encode("utf-8")),
        st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")),
    ),
    ext=st.sampled_from(list(SUPPORTED_EXTENSIONS)),
)
def test_read_table_fuzz(data: bytes, ext: str) -> None:
    try:
        read = read_table(data, "upload" + ext)
    except ValueError as exc:
        assert str(exc).strip()
        return
    frame = read.frame
    assert len(frame) > 0 and frame.shape[1] > 0
    names = list(frame.columns)
    assert all(isinstance(n, str) and n for n in names) and len(set(names)) == len(names)
    assert isinstance(frame.index, pd.RangeIndex)


def test_excel_dates_and_zip_bomb_guard() -> None:
    import datetime as dt
    import zipfile

    rows = [["when", "x", "label"]] + [
        [dt.datetime(2024, 1, 1 + i), float(i % 7), "a" if i % 2 else "b"] for i in range(20)
    ]
    data = _xlsx({"s": rows})
    read = read_table(data, "dates.xlsx")
    assert pd.api.types.is_datetime64_any_dtype(read.frame["when"])
    prepared = prepare_table(read.frame, "label")
    assert "'when'" in next(c.message for c in prepared.report if c.kind == "converted_dates")
    # days since 1970-01-01: 2024-01-01 is 54 * 365 + 13 leap days
    assert prepared.X["when"].iloc[0] in (54 * 365 + 13, 54 * 365 + 14)
    buf = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as src,
        zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as dst,
    ):
        for info in src.infolist():
            dst.writestr(info, src.read(info.filename))
        dst.writestr("xl/media/padding.bin", bytes(5_000_000))
    bomb = buf.getvalue()
    assert len(bomb) < 100_000
    with pytest.raises(ValueError, match="once unpacked, more than the"):
        read_table(bomb, "bomb.xlsx", max_bytes=100_000)


def test_parquet_nested_columns_left_out() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(
        {
            "x": [1.0, 2.0, 3.0],
            "tags": [[1, 2], [3], []],
            "label": ["a", "b", "a"],
        }
    )
    buf = io.BytesIO()
    pq.write_table(table, buf)
    read = read_table(buf.getvalue(), "nested.parquet")
    assert list(read.frame.columns) == ["x", "label"]
    assert any("('tags') holds lists or records" in n for n in read.notes)
    with pytest.raises(ValueError, match="could not be read as a Parquet file"):
        read_table(b"PAR1" + bytes(100) + b"PAR1", "broken.parquet")


# ---- issue 15: hostile uploads --------------------------------------------------------------------
def _generators():
    import sys

    sys.path.insert(0, str(DATA))
    import make_malformed

    return make_malformed


def _forbid(monkeypatch, *targets: str) -> None:
    """Make the named parsers fail the test if they are called (a bound must come first)."""

    def boom(*args, **kwargs):
        raise AssertionError("the file was parsed before its size was checked")

    for target in targets:
        monkeypatch.setattr(target, boom)


def test_corpus_values_issue29() -> None:
    def read(name: str):
        return read_table((CORPUS / name).read_bytes(), name)

    assert list(read("merged_two_row_header.xlsx").frame.columns) == ["label", "x1", "x2", "x3"]
    mixed = read("mixed_utf8_latin1.csv")
    assert mixed.encoding == "mixed" and set(mixed.frame["label"]) == {"pós", "neg"}
    hidden = read("all_sheets_hidden.xlsx")
    assert hidden.sheet == "first" and not any("because it was chosen" in n for n in hidden.notes)
    income = read("space_thousands.csv").frame["income"]
    assert income.dtype == np.int64 and income.min() >= 1000
    text = (CORPUS / "space_thousands.csv").read_text(encoding="utf-8").splitlines()[1:]
    assert [
        int(line.split(",")[0].replace(" ", "").replace("\u00a0", "")) for line in text
    ] == list(income)
    names = read("lookalike_names.csv").frame.columns
    assert list(names) == ["id_x", "l\u0430bel_3", "label_2", "label"]  # the real label kept
    prepared = prepare_table(read("lookalike_names.csv").frame, "label")
    assert prepared.label == "label" and set(prepared.class_counts) == {"yes", "no"}


def test_corpus_values_issue15() -> None:
    # thousands separators: the reference is Python's own formatting of the integers
    read = read_table((CORPUS / "thousands_separators.csv").read_bytes(), "t.csv")
    counts = read.frame["count"].to_numpy()
    assert read.frame["count"].dtype == np.int64 and counts.min() >= 100 and counts.max() > 1000
    text = (CORPUS / "thousands_separators.csv").read_text().splitlines()[1:]
    assert [f"{v:,}" for v in counts] == [
        line.split('"')[1] if '"' in line else line.split(",")[1] for line in text
    ]
    # UTF-16 LE without BOM reads as the same table as the UTF-8 original would
    read = read_table((CORPUS / "utf16le_no_bom.txt").read_bytes(), "u.txt")
    original = (CORPUS / "utf16le_no_bom.txt").read_bytes().decode("utf-16-le")
    again = read_table(original.encode("utf-8"), "u.txt")
    pd.testing.assert_frame_equal(read.frame, again.frame)
    assert read.encoding == "utf-16-le"
    # decimal128 -> float, the same numbers as the Decimal values
    import pyarrow.parquet as pq

    read = read_table((CORPUS / "decimal_numbers.parquet").read_bytes(), "d.parquet")
    raw = pq.read_table(CORPUS / "decimal_numbers.parquet").column("price").to_pylist()
    assert read.frame["price"].dtype == np.float64
    assert read.frame["price"].tolist() == [float(v) for v in raw]
    # hidden first sheet: the visible one is read; asking for the hidden one still works
    data = (CORPUS / "hidden_first_sheet.xlsx").read_bytes()
    assert read_table(data, "h.xlsx").sheet == "data"
    hidden = read_table(data, "h.xlsx", sheet="old_version")
    assert hidden.frame.shape == (1, 2) and any("because it was chosen" in n for n in hidden.notes)
    # merged title: the header is the row below it
    read = read_table((CORPUS / "merged_title.xlsx").read_bytes(), "m.xlsx")
    assert list(read.frame.columns) == ["x1", "label"] and read.header_row == 2
    # repeated header and total rows: the numeric columns stay numeric, 60 rows are left
    read = read_table((CORPUS / "repeated_header_total.csv").read_bytes(), "r.csv")
    assert read.frame.shape == (60, 4) and read.frame["x1"].dtype == np.float64
    # dates become numbers through prepare_table: 2023-03-01 is day 19417 after 1970-01-01
    read = read_table((CORPUS / "percent_and_dates.csv").read_bytes(), "p.csv")
    prepared = prepare_table(read.frame, "label")
    assert prepared.X["visit"].iloc[0] == (pd.Timestamp("2023-03-01") - pd.Timestamp(0)).days
    assert prepared.X["rate"].between(0, 1).all()


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_excel_stream_cap_cannot_be_bypassed_by_the_dimension(monkeypatch) -> None:
    gen = _generators()
    # a lying dimension (A1:C4) over 30,000 rows of 20 empty styled cells (600,000 positions):
    # the tags of the sheet's XML are counted before openpyxl streams it (issue 29) ...
    bomb = gen.xlsx_empty_styled_rows(30_000, dimension="A1:C4")
    with pytest.raises(
        ValueError, match=r"holds more than 500,000 cells \(5\d\d,\d\d\d or more, counted"
    ):
        read_table(bomb, "styled.xlsx")
    # ... and the stream's own cap is still there when the count cannot be made
    monkeypatch.setattr("slb.tables.excel._count_cells", lambda *args: (0, 0))
    with pytest.raises(ValueError, match=r"holds more than 500,000 cells \(after 25,00\d rows"):
        read_table(bomb, "styled.xlsx", time_limit=None)
    monkeypatch.undo()
    # the same with a few empty rows is read; the lie neither cuts nor pads the table
    small = gen.xlsx_empty_styled_rows(100, dimension="A1:B2")
    read = read_table(small, "styled.xlsx")
    assert list(read.frame.columns) == ["x1", "x2", "label"] and len(read.frame) == 4
    rows = gen.rows_of(gen.base_table(n=40, seed=3))
    read = read_table(gen.xlsx_with_dimension("A1:B2", rows), "short_dim.xlsx")
    assert read.frame.shape == (40, 4)


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_parquet_bombs_refused_from_metadata(monkeypatch) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    gen = _generators()
    many = gen.parquet_many_rows(9_900_000)  # the issue's 9.9 M rows
    long = gen.parquet_long_strings(225_000, 20_000)  # 4.5 GB of text once expanded
    assert len(many) < 200_000 and len(long) < 200_000
    _forbid(monkeypatch, "pyarrow.parquet.ParquetFile.read")
    with pytest.raises(ValueError, match="has about 9,900,000 rows"):
        read_table(many, "many.parquet")
    monkeypatch.undo()
    with pytest.raises(ValueError, match=r"would take 4.5 GB once unpacked"):
        read_table(long, "long.parquet")
    # plainly encoded (not dictionary) repeated text: the uncompressed size in the metadata
    table = pa.table({"t": pa.array(["w" * 50_000] * 10_000), "label": pa.array([1, 0] * 5_000)})
    buf = io.BytesIO()
    pq.write_table(table, buf, use_dictionary=False, compression="zstd")
    assert len(buf.getvalue()) < 1_000_000
    with pytest.raises(ValueError, match="once unpacked"):
        read_table(buf.getvalue(), "plain.parquet")


def test_text_caps_before_parsing(monkeypatch) -> None:
    gen = _generators()
    line = gen.csv_wide_line(2_500_000)[:5_000_000]  # the issue's 5 MB single line
    cells = gen.csv_many_cells(623_000, 40)  # 49.8 MB, 24.9 M cells
    rows = gen.csv_many_cells(1_050_000, 3)
    assert len(cells) < DEFAULT_MAX_BYTES
    _forbid(monkeypatch, "pandas.read_csv", "csv.Sniffer.sniff", "slb.tables.text._parse_body")
    with pytest.raises(
        ValueError, match=r"a line with [\d,]+ or more values, more than the 10,000"
    ):
        read_table(line, "line.csv")
    monkeypatch.undo()  # the separator is sniffed on a bounded sample; the body is never parsed
    _forbid(monkeypatch, "pandas.read_csv", "slb.tables.text._parse_body")
    with pytest.raises(ValueError, match="623,000 rows and 40 columns, more than the 10,000,000"):
        read_table(cells, "cells.csv")
    with pytest.raises(ValueError, match="1,050,000 rows, more than the 1,000,000"):
        read_table(rows, "rows.csv")


def test_upload_limit_is_the_dashboards() -> None:
    import tomllib

    from slb.tables.read import MAX_UPLOAD_MB

    config = tomllib.loads((DATA.parent.parent / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == MAX_UPLOAD_MB
    assert DEFAULT_MAX_BYTES == MAX_UPLOAD_MB * 1_000_000  # the browser's megabyte
    data = b"a,label\n" + b"1,x\n" * ((DEFAULT_MAX_BYTES - 8) // 4) + b"1,y\n"
    assert len(data) == DEFAULT_MAX_BYTES + 1 or len(data) > DEFAULT_MAX_BYTES
    with pytest.raises(ValueError, match=f"larger than the limit of {MAX_UPLOAD_MB} MB"):
        read_table(data, "big.csv")


@pytest.mark.parametrize(
    "kind,error",
    [
        ("text", MemoryError()),
        ("text", UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")),
        ("text", __import__("csv").Error("field larger than field limit")),
        ("excel", __import__("zipfile").BadZipFile("Bad CRC-32")),
        ("excel", KeyError("xl/sharedStrings.xml")),
        ("parquet", "arrow"),
    ],
)
def test_parser_errors_become_value_errors(monkeypatch, kind: str, error) -> None:
    import pyarrow as pa

    if error == "arrow":
        error = pa.ArrowMemoryError("malloc of size 4500000000 failed")
    reader = {"text": "_read_text", "excel": "_read_excel", "parquet": "_read_parquet"}[kind]

    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(f"slb.tables.read.{reader}", fail)
    data = {
        "text": b"a,b\n1,2\n",
        "excel": (CORPUS / "two_sheets.xlsx").read_bytes(),
        "parquet": (CORPUS / "table.parquet").read_bytes(),
    }[kind]
    with pytest.raises(ValueError) as info:
        read_table(data, "f." + {"text": "csv", "excel": "xlsx", "parquet": "parquet"}[kind])
    message = str(info.value)
    assert message.endswith(".") and "Traceback" not in message
    assert (
        ("memory" in message)
        if isinstance(error, MemoryError)
        else (type(error).__name__ in message)
    )


def test_ambiguous_commas_follow_the_file() -> None:
    # every comma followed by three digits: thousands in a comma file (quoted cells) ...
    read = read_table(b'a,label\n"1,517",x\n"2,928",y\n"4,250",x\n', "c.csv")
    assert read.frame["a"].tolist() == [1517, 2928, 4250]
    assert any("could be a decimal comma or a thousands separator" in n for n in read.notes)
    # ... decimal commas in a semicolon file, as European spreadsheets write them
    read = read_table(b"a;b;label\n1,517;0,5;x\n2,928;1,25;y\n4,250;2;x\n", "s.csv")
    assert read.frame["a"].tolist() == [1.517, 2.928, 4.25]
    assert any("read like the decimal commas of the rest of the file" in n for n in read.notes)
    # a column whose other values are plain numbers below 1000 is not ambiguous: thousands
    read = read_table(b"a;label\n718;x\n2,928;y\n1,517;x\n", "s.csv")
    assert read.frame["a"].tolist() == [718, 2928, 1517]
