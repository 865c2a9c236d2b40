"""The malformed-upload corpus (``tests/data/malformed/``) through the dashboard (issue 7).

``tests/test_io.py`` checks each corpus file against ``slb.tables.read.read_table`` and
``slb.tables.clean.prepare_table`` directly (its ``CASES`` table, described in
``tests/data/README.md``).  Here every one of those cases goes through the *dashboard* with
``streamlit.testing.v1.AppTest``, the way a user would do it:

1. the Data page, source "Upload a file", the file given to the ``upload_file`` uploader
   (``AppTest.file_uploader(...).set_value``, which runs the dashboard's own ``on_upload``
   callback); files whose extension the uploader does not accept (``.json``, ``.xls``: a
   browser's file dialog never offers them) go in through the session entry the callback would
   store, ``dashboard.data.make_upload`` (the hook ``tests/test_app.py`` uses);
2. the case's options set with the Data page's widgets (worksheet, label column, positive class,
   text columns, missing values, row/feature limits, folds);
3. the outcome: a failing case shows ``st.error`` with the library's reason (and the previous
   data stay in use); a working case shows the library's notes (Markdown list or
   ``st.warning``), the sidebar and the metrics show the uploaded data, the prepared data are
   exactly what ``prepare_table`` returns with the same options, and every other page (Dependencies,
   Densities, Compare, Explain) runs on them.  No case may raise (``at.exception`` empty).

Where the dashboard legitimately differs from a direct ``prepare_table`` call, :data:`DASHBOARD`
says how and why (e.g. it picks a positive class itself when the label has 3-20 classes, and its
label box only offers existing column names).
"""

from __future__ import annotations

import dataclasses
import mimetypes
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

# Show real error messages in AppTest (the app's config hides them from users).
os.environ["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] = "full"

from streamlit.testing.v1 import AppTest  # noqa: E402
from test_io import CASES, CORPUS, Case  # noqa: E402  (the corpus' expected outcomes)

from dashboard.data import UPLOAD_TYPES, make_upload  # noqa: E402
from slb.tables.clean import prepare_table  # noqa: E402
from slb.tables.read import DEFAULT_MAX_BYTES, read_table  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
PAGES = ["pages/dependencies.py", "pages/densities.py", "pages/compare.py", "pages/explain.py"]
TIMEOUT = 300  # generous: CI machines are slow

pytestmark = pytest.mark.slow

#: The Data page's defaults for uploads (dashboard.state.DEFAULTS) that change prepare_table's
#: result compared with its own defaults.
DASHBOARD_PREPARE = {"max_rows": 1000, "max_features": 60, "n_folds": 5, "random_state": 0}


@dataclasses.dataclass(frozen=True)
class Expect:
    """What one corpus case should look like in the dashboard."""

    case: Case
    label: str  # the column picked in the "Label column" box
    error: str | None  # phrase of the st.error, or None for a working case
    notes: tuple[str, ...]  # phrases shown on the Data page (working case)
    prepare: dict  # options set through the Data page's widgets
    positive_ref: str | None = None  # positive class the dashboard picks by itself
    why: str = ""  # why this differs from tests/test_io.py


#: case id -> changes to the test_io expectation, with the reason.
DASHBOARD = {
    "five_classes.csv": dict(
        error=None,
        notes=("has 5 classes, all kept as they are",),
        positive_ref="gamma",
        why="issue 25: with 3-20 classes the dashboard keeps every class (no merge) instead of "
        "refusing; it prepares the table one-vs-rest with the smaller class (ties: the one "
        "listed last, gamma) and takes each row's own class back; the 'Classes' box merges "
        "(one vs the rest) only when the user asks",
    ),
    "latin1.csv[label=klasse]": dict(
        label="Klasse",
        notes=("read as Latin-1", "'ort') contains text"),
        why="the label box offers the real column names only, so 'klasse' cannot be typed: "
        "the user picks 'Klasse'",
    ),
    "tab_separated.tsv[label=diagnosis]": dict(
        label="label",
        error=None,
        notes=("separated by tabs",),
        why="the label box offers the real column names only: a missing column cannot be asked "
        "for (checked: 'diagnosis' is not offered)",
    ),
}


def expectation(case: Case) -> Expect:
    over = DASHBOARD.get(case.id, {})
    return Expect(
        case=case,
        label=over.get("label", case.label),
        error=over.get("error", case.error),
        notes=over.get("notes", case.notes),
        prepare=dict(case.prepare),
        positive_ref=over.get("positive_ref"),
        why=over.get("why", ""),
    )


EXPECTATIONS = [expectation(c) for c in CASES]

#: Dashboard bugs these cases expose (strict: the mark must go when the bug is fixed).
KNOWN_BUGS: dict[str, str] = {}  # case id -> reason, for a dashboard bug awaiting its fix
PARAMS = [
    pytest.param(
        e,
        id=e.case.id,
        marks=[pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[e.case.id])]
        if e.case.id in KNOWN_BUGS
        else [],
    )
    for e in EXPECTATIONS
]


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def unescape(text: str) -> str:
    """The dashboard backslash-escapes Markdown characters of user strings: undo that."""
    return re.sub(r"\\(.)", r"\1", text)


def assert_ok(at: AppTest, what: str) -> None:
    assert not at.exception, (what, [e.value for e in at.exception])


def visible_texts(at: AppTest) -> list[str]:
    els = [*at.error, *at.warning, *at.info, *at.markdown, *at.caption]
    return [unescape(str(e.value)) for e in els]


def sidebar_text(at: AppTest) -> str:
    return unescape("\n".join(m.value for m in at.sidebar.markdown))


def metric(at: AppTest, label: str) -> str:
    for m in at.metric:
        if m.label == label:
            return m.value
    raise AssertionError(f"no metric {label!r}: {[m.label for m in at.metric]}")


def has_widget(at: AppTest, kind: str, key: str) -> bool:
    return any(getattr(w, "key", None) == key for w in at.get(kind))


def upload(at: AppTest, name: str, data: bytes) -> None:
    at.radio(key="data_source").set_value("upload").run()
    assert_ok(at, "choosing the upload source")
    ext = Path(name).suffix.lower().lstrip(".")
    if ext in UPLOAD_TYPES:
        mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
        at.file_uploader(key="upload_file").set_value((name, data, mime)).run()
        assert at.session_state["upload"]["name"] == name  # the uploader's callback ran
    else:
        # Streamlit's uploader refuses other extensions itself (the browser's file dialog does
        # not offer them); the dashboard's reader must still explain them.
        at.session_state["upload"] = make_upload(name, data)
        at.run()
    assert_ok(at, f"uploading {name}")


def apply_options(at: AppTest, exp: Expect) -> None:
    """Set the case's worksheet, label and cleaning options with the Data page's widgets."""
    sheet = exp.case.read.get("sheet")
    if sheet is not None:
        at.selectbox(key="sheet").set_value(sheet).run()
        assert_ok(at, f"sheet {sheet}")
    if has_widget(at, "selectbox", "label_column"):
        box = at.selectbox(key="label_column")
        if exp.case.label not in box.options:
            assert exp.case.id in DASHBOARD, (
                f"label {exp.case.label!r} is not offered: {box.options}"
            )
        if box.value != exp.label:
            box.set_value(exp.label).run()
            assert_ok(at, f"label {exp.label}")
    p = exp.prepare
    for key in ("non_numeric", "missing"):
        if key in p:
            at.radio(key=key).set_value(p[key]).run()
            assert_ok(at, f"{key}={p[key]}")
    for key in ("max_rows", "max_features", "n_folds"):
        if key in p:
            at.number_input(key=key).set_value(p[key]).run()
            assert_ok(at, f"{key}={p[key]}")
    if "positive" in p:
        at.selectbox(key="positive_class").set_value(p["positive"]).run()
        assert_ok(at, f"positive={p['positive']}")


def reference(exp: Expect, data: bytes):
    """prepare_table's result for the same file and options as the dashboard's."""
    read = read_table(
        data, exp.case.file, sheet=exp.case.read.get("sheet"), max_bytes=DEFAULT_MAX_BYTES
    )
    kw = {**DASHBOARD_PREPARE, **exp.prepare}
    if exp.positive_ref is not None:
        kw.setdefault("positive", exp.positive_ref)
    return prepare_table(read.frame, exp.label, **kw)


# --------------------------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------------------------
def test_every_corpus_file_goes_through_the_dashboard():
    files = sorted(p.name for p in CORPUS.iterdir())
    assert len(files) >= 40
    assert {e.case.file for e in EXPECTATIONS} == set(files)
    assert set(DASHBOARD) | set(KNOWN_BUGS) <= {c.id for c in CASES}, "a case is gone"
    n_err = sum(e.error is not None for e in EXPECTATIONS)
    assert n_err >= 10 and len(EXPECTATIONS) - n_err >= 20


@pytest.mark.parametrize("exp", PARAMS)
def test_corpus_upload_in_the_dashboard(exp: Expect):
    data = (CORPUS / exp.case.file).read_bytes()
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    assert_ok(at, "first run")
    upload(at, exp.case.file, data)
    apply_options(at, exp)
    texts = visible_texts(at)

    if exp.case.id == "tab_separated.tsv[label=diagnosis]":
        assert "diagnosis" not in at.selectbox(key="label_column").options

    if exp.error is not None:
        assert at.error, f"no st.error; shown: {texts}"
        message = unescape(at.error[0].value)
        assert exp.error in message, message
        assert "Traceback" not in message and message.rstrip().endswith(".")
        # the app stays on the previous data (the bundled default, or the first worksheet)
        still = [t for t in texts if t.startswith("Still using the previous data: ")]
        assert still, texts
        previous = still[0].removeprefix("Still using the previous data: ").rstrip(".")
        assert f"Data: **{previous}**" in sidebar_text(at)
        return

    assert not at.error, [unescape(e.value) for e in at.error]
    joined = "\n".join(texts)
    for phrase in exp.notes:
        if "is treated as the positive class" in phrase or "marks the positive class" in phrase:
            # prepare_table's note on the class it chose: the Data page writes its own, with
            # the prepared rows' counts and its own rule (H47: "22 rows" above "+ fault: 21")
            assert 'because "automatic" picks the smaller class' in joined, joined
            continue
        assert phrase in joined, f"{phrase!r} not shown on the Data page:\n{joined}"
    side = sidebar_text(at)
    assert f"Data: **{exp.case.file}**" in side, side

    # the dashboard's data are prepare_table's, with the same options
    ref = reference(exp, data)
    ds = at.session_state["dataset"]
    assert metric(at, "rows n") == str(len(ref.X)) and metric(at, "features d") == str(
        ref.X.shape[1]
    )
    assert f"n = **{len(ref.X)}** rows · d = **{ref.X.shape[1]}** features" in side
    assert ds.feature_names == [str(c) for c in ref.X.columns]
    np.testing.assert_allclose(ds.X.to_numpy(), ref.X.to_numpy().astype(float))
    if ds.multiclass:  # every class kept (issue 25): the classes of the cleaned rows
        assert sorted(ds.classes) == sorted(map(str, ref.original_class_counts))
    else:
        assert str(ds.positive_label) == str(ref.positive_label)
    assert ds.n_folds == ref.n_folds and f"{ref.n_folds}-fold stratified CV" in side

    # every page works on the uploaded data
    for page in PAGES:
        at.switch_page(page).run()
        assert_ok(at, page)
        assert not at.error, (page, [unescape(e.value) for e in at.error])
        assert f"Data: **{exp.case.file}**" in sidebar_text(at), page


# --------------------------------------------------------------------------------------------
# issue 15: hostile uploads (tests/data/hostile_uploads/, made by make_hostile_uploads.py)
# --------------------------------------------------------------------------------------------
HOSTILE = ROOT / "tests" / "data" / "hostile_uploads"


def test_huge_values_are_refused_on_the_data_page_naming_the_column():
    # Values beyond 1e100 used to pass the Data page and crash Densities, Compare and Explain.
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    upload(at, "huge_values.csv", (HOSTILE / "huge_values.csv").read_bytes())
    assert at.error, visible_texts(at)
    message = unescape(at.error[0].value)
    assert "'income [$]'" in message and "1e+120" in message, message
    assert "Still using the previous data: Sonar." in visible_texts(at)
    for page in PAGES:  # the previous (bundled) data: every page runs
        at.switch_page(page).run()
        assert_ok(at, page)
        assert not at.error, (page, [unescape(e.value) for e in at.error])


def test_markdown_labels_upload_through_the_real_uploader():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    upload(at, "markdown_labels.csv", (HOSTILE / "markdown_labels.csv").read_bytes())
    assert not at.error, [unescape(e.value) for e in at.error]
    labels = [m.label for m in at.metric]
    # shown literally: escaped for Markdown, and the text is the label itself
    shown = [unescape(x).replace("\u200b", "") for x in labels]  # (autolink breaker)
    assert "+ ![p](http://127.0.0.1:9/x.png)" in shown and "− [neg](http://127.0.0.1:9/)" in shown
    assert not any("](http" in x for x in labels), labels


# --------------------------------------------------------------------------------------------
# issue 15: full-size hostile uploads (too large to commit; generated by make_malformed.py)
# --------------------------------------------------------------------------------------------
def _bomb(kind: str) -> tuple[str, bytes]:
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "data"))
    import make_malformed as gen

    if kind == "styled_rows":  # a lying dimension over 600,000 empty styled cells
        return "styled.xlsx", gen.xlsx_empty_styled_rows(30_000)
    if kind == "long_strings":  # 4.5 GB of text once expanded, a few KB on disk
        return "long.parquet", gen.parquet_long_strings(225_000, 20_000)
    if kind == "many_rows":  # the 9.9 million rows
        return "many.parquet", gen.parquet_many_rows(9_900_000)
    if kind == "single_line":  # the 5 MB single line
        return "line.csv", gen.csv_wide_line(2_500_000)[:5_000_000]
    if kind == "many_cells":  # 49.8 MB, 24.9 M cells
        return "cells.csv", gen.csv_many_cells(623_000, 40)
    assert kind == "oversize"  # one byte over the browser's limit
    return "big.csv", b"a,label\n" + b"1,x\n" * ((DEFAULT_MAX_BYTES - 8) // 4) + b"1,y\n"


BOMBS = {
    "styled_rows": "holds more than 500,000 cells",
    "long_strings": "would take 4.5 GB once unpacked",
    "many_rows": "has about 9,900,000 rows",
    "single_line": "more than the 10,000 columns",
    "many_cells": "more than the 10,000,000 cells",
    "oversize": "larger than the limit of 50 MB",
}


@pytest.mark.parametrize("kind", list(BOMBS))
def test_hostile_upload_bombs_in_the_dashboard(kind: str):
    name, data = _bomb(kind)
    with pytest.raises(ValueError, match=re.escape(BOMBS[kind])):
        read_table(data, name, max_bytes=DEFAULT_MAX_BYTES)  # the library's verdict
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    assert_ok(at, "first run")
    upload(at, name, data)
    assert at.error, [str(e) for e in visible_texts(at)]
    message = unescape(at.error[0].value)
    assert BOMBS[kind] in message and "Traceback" not in message
    still = [t for t in visible_texts(at) if t.startswith("Still using the previous data: ")]
    assert still, visible_texts(at)
    assert at.session_state["dataset"] is not None  # the previous data stay in use


def test_identifier_checkbox_in_the_dashboard():
    """issue 15 (5): patient_id is left out with a note; the column chooser's box keeps it."""
    name = "patient_id_sorted.csv"
    data = (CORPUS / name).read_bytes()
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    upload(at, name, data)
    assert not at.error, [unescape(e.value) for e in at.error]
    assert "patient_id" not in at.session_state["dataset"].feature_names
    assert any("looks like an identifier" in t for t in visible_texts(at))
    at.checkbox(key="keep_identifiers").check().run()
    assert_ok(at, "keeping identifiers")
    frame = read_table(data, name).frame
    ref = prepare_table(frame, "label", keep_identifiers=True, **DASHBOARD_PREPARE)
    ds = at.session_state["dataset"]
    assert ds.feature_names == [str(c) for c in ref.X.columns] and "patient_id" in ds.feature_names
    np.testing.assert_allclose(ds.X.to_numpy(), ref.X.to_numpy())


def test_drop_repeated_rows_checkbox_in_the_dashboard():
    """issue 26 (3): repeated rows are named on the Data page and kept; the cleaning box's
    checkbox drops the copies of an earlier row and its class, as prepare_table does, and the
    note names that control, not the library's parameter."""
    from dashboard.data import CLEANING_EXPANDER, DUPLICATES_LABEL

    rng = np.random.default_rng(6)
    frame = pd.DataFrame(rng.normal(size=(60, 3)).round(3), columns=["a", "b", "c"])
    frame["label"] = np.where(np.arange(60) % 2, "yes", "no")
    table = pd.concat([frame, frame.iloc[:12]], ignore_index=True)
    data = table.to_csv(index=False).encode()
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    upload(at, "repeats.csv", data)
    assert not at.error, [unescape(e.value) for e in at.error]
    assert at.session_state["dataset"].n == 72
    assert any("12 rows repeat an earlier row" in t for t in visible_texts(at))
    at.checkbox(key="drop_duplicates").check().run()
    assert_ok(at, "dropping repeated rows")
    ds = at.session_state["dataset"]
    ref = prepare_table(
        read_table(data, "repeats.csv").frame, "label", duplicate_rows="drop", **DASHBOARD_PREPARE
    )
    assert ds.n == len(ref.X) == 60
    np.testing.assert_allclose(ds.X.to_numpy(), ref.X.to_numpy())
    note = next(t for t in visible_texts(at) if "12 rows repeat an earlier row" in t)
    assert f"“{CLEANING_EXPANDER}” → “{DUPLICATES_LABEL}”" in note and "duplicate_rows" not in note


#: issue 29 (item 6): uploads that took a minute or more on the Data page, generated by
#: tests/test_upload_budget.py: (file name, generator, phrase of the expected st.error or None).
SLOW_UPLOADS = {
    "wide": ("wide.csv", "wide_csv", None),  # 40 x 9,000 numbers: 110 s before
    "flags": ("flags.csv", "two_valued_csv", None),  # a million TRUE/FALSE rows: 16 s before
    "long_sheet": ("long.xlsx", "long_xlsx", "holds more than 500,000 cells"),  # 31 s before
}


@pytest.mark.parametrize("kind", list(SLOW_UPLOADS))
def test_formerly_slow_uploads_on_the_data_page(kind: str):
    import time

    import test_upload_budget as gen

    name, make, error = SLOW_UPLOADS[kind]
    data = getattr(gen, make)(400_000) if make == "long_xlsx" else getattr(gen, make)()
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    assert_ok(at, "first run")
    start = time.perf_counter()
    upload(at, name, data)
    seconds = time.perf_counter() - start
    if error is None:
        assert not at.error, [unescape(e.value) for e in at.error]
        names = at.session_state["dataset"].feature_names  # the upload's, not the previous
        assert names and all(n == "flag" or re.fullmatch(r"f\d+", n) for n in names), names
    else:
        assert at.error and error in unescape(at.error[0].value)
    # the library's budgets (8 s reading, 8 s cleaning) bound the page's own work; AppTest
    # and a loaded two-core machine add to it
    assert seconds < 30, seconds
