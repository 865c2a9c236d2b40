"""Tests for slb.tables.clean.prepare_table: one test per rule, then a property-based test that
pushes hostile DataFrames through it (only ValueError may escape; any result is clean)."""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slb.tables.clean import (
    MAX_CATEGORIES,
    MIN_ROWS_PER_CLASS,
    Change,
    PreparedData,
    prepare_table,
)
from slb.tables.numbers import parse_numeric


def table(n: int = 40, d: int = 3, seed: int = 0, labels=("a", "b")) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = np.array([labels[i % len(labels)] for i in range(n)], dtype=object)
    X = rng.normal(size=(n, d)) + (y == labels[0])[:, None]
    frame = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(d)])
    frame["label"] = y
    return frame


def kinds(result: PreparedData) -> list[str]:
    return [c.kind for c in result.report]


def message(result: PreparedData, kind: str) -> str:
    found = [c.message for c in result.report if c.kind == kind]
    assert found, f"no {kind!r} in {kinds(result)}"
    return found[0]


def assert_clean(result: PreparedData) -> None:
    X, y = result.X, result.y
    assert isinstance(X, pd.DataFrame) and X.shape[0] == len(y) == len(result.source_rows)
    assert X.shape[1] >= 1
    assert all(dt == np.float64 for dt in X.dtypes)
    assert np.isfinite(X.to_numpy()).all()
    assert isinstance(X.index, pd.RangeIndex)
    names = list(X.columns)
    assert all(isinstance(c, str) for c in names) and len(set(names)) == len(names)
    values = set(pd.unique(pd.Series(y, dtype=object)))
    assert values == {result.positive_label, result.negative_label}
    assert len(values) == 2 and not any(
        v is None or (isinstance(v, float) and math.isnan(v)) for v in values
    )
    assert result.class_counts == {
        result.positive_label: int(np.sum(y == result.positive_label)),
        result.negative_label: int(np.sum(y == result.negative_label)),
    }
    assert len(set(result.source_rows.tolist())) == len(result.source_rows)
    for change in result.report:
        assert isinstance(change, Change) and change.message.strip().endswith(".")
        assert change.severity in ("info", "warning")


# ---- label ------------------------------------------------------------------------------------
def test_clean_table_passes_through() -> None:
    frame = table()
    before = frame.copy()
    result = prepare_table(frame, "label")
    assert_clean(result)
    pd.testing.assert_frame_equal(frame, before)  # input untouched
    np.testing.assert_array_equal(result.X.to_numpy(), frame[["x1", "x2", "x3"]].to_numpy())
    assert kinds(result) == ["chose_positive_class"]
    assert result.label == "label" and result.feature_names == ["x1", "x2", "x3"]
    assert list(result.y01) == [int(v == result.positive_label) for v in result.y]


def test_label_column_missing_lists_columns() -> None:
    with pytest.raises(
        ValueError,
        match=r"The label column 'class' is not in the table\. .*'x1', 'x2', 'x3' and 'label'",
    ):
        prepare_table(table(), "class")


def test_label_case_insensitive_match() -> None:
    result = prepare_table(table(), " LABEL ")
    assert "label_name_case" in kinds(result) and result.label == "label"


def test_missing_labels_dropped_with_rows() -> None:
    frame = table().astype({"label": object})
    frame.loc[[1, 4], "label"] = None
    frame.loc[7, "label"] = np.nan
    frame.loc[9, "label"] = "  "
    frame.loc[12, "label"] = "N/A"
    result = prepare_table(frame, "label")
    change = next(c for c in result.report if c.kind == "dropped_missing_label")
    assert change.count == 5 and change.rows == (1, 4, 7, 9, 12)
    assert "rows 2, 5, 8, 10 and 13" in change.message
    assert len(result.y) == 35 and 1 not in result.source_rows


def test_one_class_is_an_error() -> None:
    frame = table()
    frame["label"] = "a"
    with pytest.raises(ValueError, match=r"only one class, 'a' \(40 rows\)"):
        prepare_table(frame, "label")


def test_a_measurement_chosen_as_the_label_is_named_as_such() -> None:
    # a column of floats as the label: most rows their own "class" (a newcomer's wrong guess)
    frame = table(n=60)
    frame["reading"] = np.round(np.random.default_rng(0).normal(size=60), 3)
    with pytest.raises(ValueError, match=r"looks like a measurement rather than a class"):
        prepare_table(frame, "reading")
    few = table(n=60, labels=("cat", "dog", "fox"))
    with pytest.raises(ValueError) as err:
        prepare_table(few, "label")
    assert "measurement" not in str(err.value)


def test_many_classes_need_positive() -> None:
    frame = table(n=60, labels=("cat", "dog", "fox"))
    with pytest.raises(
        ValueError,
        match=r"3 classes: 'cat' \(20 rows\), 'dog' \(20 rows\) and 'fox' \(20 rows\)\. .*choose the positive class",
    ):
        prepare_table(frame, "label")
    with pytest.raises(ValueError, match=r"'cow' does not occur .*'cat' \(20 rows\)"):
        prepare_table(frame, "label", positive="cow")
    result = prepare_table(frame, "label", positive="dog")
    assert_clean(result)
    assert (result.positive_label, result.negative_label) == ("dog", "not dog")
    assert result.class_counts == {"dog": 20, "not dog": 40}
    assert result.original_class_counts == {"cat": 20, "dog": 20, "fox": 20}
    assert "'cat' and 'fox'" in message(result, "merged_classes")


def test_merged_negative_name_does_not_collide() -> None:
    frame = table(n=60, labels=("a", "not a", "c"))
    result = prepare_table(frame, "label", positive="a")
    assert result.negative_label == "not a (all other classes)"


def test_numeric_labels_keep_their_values() -> None:
    frame = table()
    frame["label"] = np.where(np.arange(40) % 4 == 0, 1, 0)  # 1 is the minority... and conventional
    result = prepare_table(frame, "label")
    assert result.y.dtype == np.int64 and result.positive_label == 1 and result.negative_label == 0
    frame["label"] = np.where(np.arange(40) % 4 == 0, 0, 1)  # 1 is the majority: still positive
    assert prepare_table(frame, "label").positive_label == 1
    frame["label"] = np.where(np.arange(40) % 4 == 0, 2.0, 7.0)
    result = prepare_table(frame, "label")
    assert result.y.dtype == np.int64 and result.positive_label == 2
    result = prepare_table(frame, "label", positive="7")  # text matches the number
    assert result.positive_label == 7 and result.class_counts == {7: 30, 2: 10}
    frame["label"] = np.where(np.arange(40) % 4 == 0, 2.5, 7.0)
    assert prepare_table(frame, "label").y.dtype == np.float64


def test_default_positive_is_minority_then_last_sorted() -> None:
    frame = table()
    frame["label"] = ["rare" if i < 12 else "common" for i in range(40)]
    assert prepare_table(frame, "label").positive_label == "rare"
    frame = table()  # 20/20 a/b
    result = prepare_table(frame, "label")
    assert result.positive_label == "b" and "same size" in message(result, "chose_positive_class")
    assert prepare_table(frame, "label", positive="a").positive_label == "a"


def test_mixed_and_padded_labels_become_text() -> None:
    frame = table()
    frame["label"] = [1 if i % 2 else "1" for i in range(20)] + ["b "] * 10 + [" b"] * 10
    result = prepare_table(frame, "label")
    assert result.class_counts == {"1": 20, "b": 20}
    assert "label_as_text" in kinds(result)
    frame["label"] = ["yes "] * 20 + ["no"] * 20
    assert "label_spaces_stripped" in kinds(prepare_table(frame, "label"))


# ---- features -----------------------------------------------------------------------------------
def test_text_columns_drop_or_encode() -> None:
    frame = table()
    frame["smoker"] = ["yes", "no"] * 20
    frame["colour"] = ["red", "green", "blue", None] * 10
    frame["name"] = [f"n{i}" for i in range(40)]
    result = prepare_table(frame, "label")
    assert result.feature_names == ["x1", "x2", "x3"]
    assert "choose to encode them (non_numeric='encode')" in message(result, "dropped_text_columns")
    result = prepare_table(frame, "label", non_numeric="encode", missing="impute")
    assert_clean(result)
    assert result.feature_names == [
        "x1",
        "x2",
        "x3",
        "smoker=yes",
        "colour=blue",
        "colour=green",
        "colour=red",
    ]
    np.testing.assert_array_equal(result.X["smoker=yes"].to_numpy(), [1.0, 0.0] * 20)
    assert f"more than {MAX_CATEGORIES} different values" in message(
        result, "dropped_many_categories"
    )
    assert "1 means 'yes', 0 means 'no'" in message(result, "encoded_categories")


def test_numbers_stored_as_text() -> None:
    frame = table()
    frame["t1"] = [" 3 ", "1,5", "2", "-0,25"] * 10
    frame["t2"] = ["1,234.5", "12", "7.5", "1,000"] * 10
    frame["t3"] = ["1.5", "2.5", "?", "n.d."] + ["4"] * 36
    frame["t4"] = [True, False] * 20
    frame["t5"] = pd.array([True, None] * 20, dtype="boolean")
    result = prepare_table(frame, "label", missing="impute")
    assert_clean(result)
    np.testing.assert_allclose(result.X["t1"].to_numpy()[:4], [3, 1.5, 2, -0.25])
    np.testing.assert_allclose(result.X["t2"].to_numpy()[:4], [1234.5, 12, 7.5, 1000])
    assert "'n.d.'" in message(result, "unreadable_numbers_missing")
    assert "'t4' and 't5'" in message(result, "converted_booleans")
    assert "decimal comma" in message(result, "converted_text_numbers")


def test_parse_numeric_cases() -> None:
    p = parse_numeric(["1,5", "2,25", None, "", "NA"])
    assert p.comma == "decimal" and p.n_present == 2 and p.fraction == 1.0
    p = parse_numeric(["1,500", "2.5"])
    assert p.comma == "thousands" and list(p.values) == [1500.0, 2.5]
    p = parse_numeric(["1.234,5", "x"])
    assert p.values[0] == 1234.5 and p.n_bad == 1 and p.bad_values == ["x"]
    p = parse_numeric(["inf", "-Infinity", 10**400, b"bytes", [1]])
    assert (
        p.values[0] == np.inf and p.values[1] == -np.inf and p.values[2] == np.inf and p.n_bad == 2
    )
    long = [f"{i / 7:.4f}" for i in range(5000)]
    p = parse_numeric(np.array(long, dtype=object))
    assert p.n_numbers == 5000 and abs(p.values[7] - 1.0) < 1e-3


def test_missing_values_drop_or_impute() -> None:
    frame = table()
    frame.loc[[3, 8, 15], "x1"] = np.nan
    frame.loc[[8, 21], "x2"] = np.nan
    result = prepare_table(frame, "label")
    change = next(c for c in result.report if c.kind == "dropped_missing_rows")
    assert change.count == 4 and change.rows == (3, 8, 15, 21)
    assert "'x1': 3, 'x2': 2" in change.message and len(result.y) == 36
    result = prepare_table(frame, "label", missing="impute")
    change = next(c for c in result.report if c.kind == "imputed_missing")
    assert change.count == 5 and len(result.y) == 40
    assert result.X.loc[3, "x1"] == pytest.approx(np.nanmedian(frame["x1"]))


def test_every_row_missing_is_an_error() -> None:
    frame = table()
    frame.loc[frame.index % 2 == 0, "x1"] = np.nan
    frame.loc[frame.index % 2 == 1, "x2"] = np.nan
    frame.loc[frame.index % 2 == 1, "x3"] = np.nan
    # x2/x3 are half empty (not more), x1 too: all rows lose something
    with pytest.raises(ValueError, match=r"missing='impute'"):
        prepare_table(frame, "label")
    assert_clean(prepare_table(frame, "label", missing="impute"))


def test_class_lost_to_missing_values() -> None:
    frame = table()
    frame.loc[frame["label"] == "a", "x1"] = np.nan
    frame["x1"] = frame["x1"].where(frame["label"] == "b", np.nan)
    frame.loc[frame["label"] == "a", "x2"] = np.nan
    with pytest.raises(ValueError, match=r"no row of the class 'a' is left"):
        prepare_table(frame, "label", features=["x1", "x2"])


def test_infinite_values_are_missing() -> None:
    frame = table()
    frame.loc[2, "x1"] = np.inf
    frame.loc[5, "x2"] = -np.inf
    result = prepare_table(frame, "label")
    assert "2 cells in 'x1' and 'x2' held an infinite value" in message(
        result, "infinite_to_missing"
    )
    assert len(result.y) == 38


def test_constant_duplicate_and_renamed_columns() -> None:
    frame = table()
    frame["const"] = 3.0
    frame["copy"] = frame["x2"]
    frame.columns = ["x1", "x2", "x1", "label", "const", "copy"]
    result = prepare_table(frame, "label")
    assert "'x1_2' (a second 'x1')" in message(result, "renamed_duplicate_names")
    assert "('const')" in message(result, "dropped_constant_columns")
    assert "'copy' (same as 'x2')" in message(result, "dropped_duplicate_columns")
    assert result.feature_names == ["x1", "x2", "x1_2"]


def test_blank_and_odd_column_names() -> None:
    frame = table()
    frame.columns = [None, 7, "  ", "label"]
    result = prepare_table(frame, "label")
    assert result.feature_names == ["column_1", "7", "column_3"]
    assert "named_blank_columns" in kinds(result)
    frame = table()
    frame.columns = ["a\nb", ("m", 1), "x" * 100, "label"]
    result = prepare_table(frame, "label")
    assert result.feature_names[1] == "m / 1"


def test_mostly_missing_column_dropped() -> None:
    frame = table()
    frame["sparse"] = np.where(np.arange(40) % 3 == 0, 1.0, np.nan)
    result = prepare_table(frame, "label")
    assert "'sparse': 65%" in message(result, "dropped_mostly_missing_columns")
    assert len(result.y) == 40


def test_row_numbers_and_empty_columns_dropped_dates_become_days() -> None:
    frame = table()
    frame.insert(0, "index", np.arange(40))
    frame["when"] = pd.date_range("2024-01-01", periods=40)
    frame["nothing"] = np.nan
    result = prepare_table(frame, "label")
    assert "'index' is just the row numbers" in message(result, "dropped_row_numbers")
    assert "days since 1970-01-01" in message(result, "converted_dates")
    assert "'nothing'" in message(result, "dropped_empty_columns")
    assert result.feature_names == ["x1", "x2", "x3", "when"]
    # 2024-01-01 is day 19723 after 1970-01-01 (54 years with 13 leap days: 54*365 + 13)
    assert result.X["when"].iloc[0] == 54 * 365 + 13
    assert np.array_equal(np.diff(result.X["when"].to_numpy()), np.ones(39))


def test_features_argument() -> None:
    frame = table()
    result = prepare_table(frame, "label", features=["x3", "x1", "label"])
    assert result.feature_names == ["x3", "x1"] and "label_not_a_feature" in kinds(result)
    with pytest.raises(ValueError, match="The feature column 'x9' is not in the table"):
        prepare_table(frame, "label", features=["x9"])
    with pytest.raises(ValueError, match="No feature columns"):
        prepare_table(frame, "label", features=[])
    with pytest.raises(ValueError, match="list of column names"):
        prepare_table(frame, "label", features="x1")


def test_no_usable_feature() -> None:
    frame = pd.DataFrame({"name": [f"p{i}" for i in range(20)], "c": 1.0, "label": ["a", "b"] * 10})
    with pytest.raises(
        ValueError,
        match=r"No usable feature column is left.*'name' \(contain text\).*'c' \(have the same value in every row\)",
    ):
        prepare_table(frame, "label")


# ---- sizes --------------------------------------------------------------------------------------
def test_too_few_rows_per_class() -> None:
    frame = table(n=8)
    with pytest.raises(
        ValueError,
        match=rf"'b' has 4 rows and 'a' has 4 rows after cleaning, but each class needs at least {MIN_ROWS_PER_CLASS} rows",
    ):
        prepare_table(frame, "label")
    assert_clean(prepare_table(frame, "label", min_class_size=4))


def test_folds_reduced_or_error() -> None:
    frame = table(n=60)
    frame["label"] = ["r" if i < 6 else "c" for i in range(60)]
    result = prepare_table(frame, "label", n_folds=10)
    assert result.n_folds == 6 and "so 6 folds will be used" in message(result, "reduced_folds")
    assert prepare_table(frame, "label", n_folds=5).n_folds == 5
    assert prepare_table(frame, "label").n_folds is None
    frame["label"] = ["r" if i < 1 else "c" for i in range(60)]
    with pytest.raises(ValueError, match="only 1 row; cross-validation needs at least 2"):
        prepare_table(frame, "label", n_folds=5, min_class_size=1)


def test_more_features_than_rows_warns() -> None:
    result = prepare_table(table(n=20, d=30), "label")
    change = next(c for c in result.report if c.kind == "more_features_than_rows")
    assert change.severity == "warning" and "(30) than rows (20)" in change.message
    assert result.warnings and result.X.shape == (20, 30)


def test_max_rows_is_stratified_and_deterministic() -> None:
    frame = table(n=1000)
    frame["label"] = np.where(np.arange(1000) < 100, "rare", "common")
    a = prepare_table(frame, "label", max_rows=200, random_state=3)
    b = prepare_table(frame, "label", max_rows=200, random_state=3)
    c = prepare_table(frame, "label", max_rows=200, random_state=4)
    assert a.class_counts == {"rare": 20, "common": 180}
    np.testing.assert_array_equal(a.source_rows, b.source_rows)
    assert not np.array_equal(a.source_rows, c.source_rows)
    assert np.all(np.diff(a.source_rows) > 0)
    assert "random sample of 200 rows" in message(a, "subsampled_rows")
    # a tiny class keeps enough rows for the folds
    frame["label"] = np.where(np.arange(1000) < 12, "rare", "common")
    d = prepare_table(frame, "label", max_rows=100, n_folds=10)
    assert d.class_counts["rare"] == 10 and len(d.y) == 100


def test_max_features_scale_free_label_free_deterministic() -> None:
    rng = np.random.default_rng(0)
    n = 300
    latent = rng.normal(size=(n, 2))
    block = latent[:, [0] * 5 + [1] * 5] + 0.3 * rng.normal(size=(n, 10))  # correlated structure
    noise = rng.normal(size=(n, 10))
    frame = pd.DataFrame(
        np.hstack([noise[:, :5], block, noise[:, 5:]]), columns=[f"f{i}" for i in range(20)]
    )
    frame["label"] = np.where(latent[:, 0] > 0, "p", "q")
    a = prepare_table(frame, "label", max_features=10)
    assert a.feature_names == [f"f{i}" for i in range(5, 15)]  # the structured block
    scaled = frame.copy()
    scaled[["f5", "f6", "f7"]] *= 1e-6
    scaled[["f0", "f1"]] *= 1e6
    assert prepare_table(scaled, "label", max_features=10).feature_names == a.feature_names
    shuffled = frame.copy()
    shuffled["label"] = rng.permutation(frame["label"].to_numpy())
    assert prepare_table(shuffled, "label", max_features=10).feature_names == a.feature_names
    assert "ignores the label" in message(a, "selected_features")


def test_option_validation() -> None:
    frame = table()
    for kwargs, pattern in [
        ({"non_numeric": "keep"}, "non_numeric must be"),
        ({"missing": "zero"}, "missing must be"),
        ({"max_rows": 5}, "max_rows must be"),
        ({"max_rows": 10.5}, "max_rows must be"),
        ({"max_features": 0}, "max_features must be"),
        ({"n_folds": 1}, "n_folds must be"),
        ({"min_class_size": 0}, "min_class_size must be"),
    ]:
        with pytest.raises(ValueError, match=pattern):
            prepare_table(frame, "label", **kwargs)
    with pytest.raises(TypeError):
        prepare_table(frame.to_numpy(), "label")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no rows"):
        prepare_table(frame.iloc[:0], "label")
    with pytest.raises(ValueError, match="no columns"):
        prepare_table(pd.DataFrame(index=range(3)), "label")


def test_pandas_extension_dtypes() -> None:
    frame = table()
    frame["i"] = pd.array([1, None, 3, 4] * 10, dtype="Int64")
    frame["s"] = pd.array(["1.5", "2", None, "3"] * 10, dtype="string")
    frame["c"] = pd.Categorical(["u", "v"] * 20)
    frame["label"] = pd.Categorical(frame["label"])
    result = prepare_table(frame, "label", non_numeric="encode", missing="impute")
    assert_clean(result)
    assert {"i", "s", "c=v"} <= set(result.feature_names)


def test_large_table_is_fast() -> None:
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(50_000, 40)), columns=[f"f{i}" for i in range(40)])
    frame["label"] = np.where(rng.random(50_000) < 0.2, "pos", "neg")
    frame.loc[::97, "f3"] = np.nan
    start = time.perf_counter()
    result = prepare_table(frame, "label", max_rows=5000, max_features=20, n_folds=5)
    assert time.perf_counter() - start < 10
    assert result.X.shape == (5000, 20)


# ---- property-based: hostile DataFrames -----------------------------------------------------------
ODD_VALUES = [
    None,
    np.nan,
    np.inf,
    -np.inf,
    "",
    "  ",
    "NA",
    "?",
    "None",
    "nan",
    "inf",
    "1,5",
    " 3 ",
    "1.234,5",
    "ünïcødé",
    "🙂",
    "True",
    "false",
    True,
    False,
    0,
    1,
    -1,
    2**70,
    1e308,
    -1e308,
    5e-324,
    0.5,
    "0",
    "1",
    pd.NA,
    pd.NaT,
    b"bytes",
    (1, 2),
]
odd_value = st.sampled_from(ODD_VALUES) | st.text(max_size=4) | st.floats() | st.integers(-5, 5)


@st.composite
def column(draw, n: int):
    kind = draw(
        st.sampled_from(
            [
                "float",
                "int",
                "bool",
                "constant",
                "numtext",
                "category",
                "mixed",
                "datetime",
                "Int64",
                "boolean",
                "string",
                "empty",
                "categorical",
                "huge",
                "dupe",
            ]
        )
    )
    if kind == "float":
        return np.array(
            draw(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=n, max_size=n)),
            dtype=float,
        )
    if kind == "int":
        return np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=np.int64)
    if kind == "bool":
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    if kind == "constant":
        return np.full(n, draw(st.sampled_from([0.0, 1.0, "k", None])), dtype=object)
    if kind == "numtext":
        return np.array(
            draw(
                st.lists(
                    st.sampled_from(
                        ["1,5", " 2 ", "3.25", "-1", "1,000", "x", "", "NA", "1.234,5"]
                    ),
                    min_size=n,
                    max_size=n,
                )
            ),
            dtype=object,
        )
    if kind == "category":
        return np.array(
            draw(
                st.lists(
                    st.sampled_from(["a", "b", "c", "é", "🙂", None, ""]), min_size=n, max_size=n
                )
            ),
            dtype=object,
        )
    if kind == "mixed":
        return np.array(draw(st.lists(odd_value, min_size=n, max_size=n)) + [None], dtype=object)[
            :n
        ]
    if kind == "datetime":
        return pd.date_range("2020-01-01", periods=n).to_numpy()
    if kind == "Int64":
        return pd.array(
            draw(st.lists(st.none() | st.integers(-2, 2), min_size=n, max_size=n)), dtype="Int64"
        )
    if kind == "boolean":
        return pd.array(
            draw(st.lists(st.none() | st.booleans(), min_size=n, max_size=n)), dtype="boolean"
        )
    if kind == "string":
        return pd.array(
            draw(st.lists(st.none() | st.text(max_size=3), min_size=n, max_size=n)), dtype="string"
        )
    if kind == "empty":
        return np.full(n, np.nan)
    if kind == "categorical":
        return pd.Categorical(
            draw(st.lists(st.sampled_from(["lo", "hi", None]), min_size=n, max_size=n))
        )
    if kind == "huge":
        return np.array(
            draw(st.lists(st.sampled_from([1e308, -1e308, 0.0, 1e-308]), min_size=n, max_size=n))
        )
    return "dupe"


LABEL_POOLS = [
    ["a", "b"],
    ["a", "b", "c", "d", "e"],
    [0, 1],
    [True, False],
    [1.0, 2.5],
    ["x"],
    [None, "a", "b", ""],
    [1, "1", "b"],
    ["ü", "🙂"],
    [np.nan, 0, 1],
    ["a ", " a", "b"],
]


@st.composite
def hostile_case(draw):
    n = draw(st.integers(0, 9) | st.integers(10, 45) | st.integers(10, 45))
    n_cols = draw(st.integers(0, 6))
    columns, names = [], []
    for _ in range(n_cols):
        col = draw(column(n))
        if isinstance(col, str):  # duplicate of an earlier column, or float noise
            col = columns[-1] if columns else np.zeros(n)
        columns.append(col)
        names.append(
            draw(
                st.sampled_from(["x", "x", "y", "", " ", None, 0, 1.5, "label", "é", "a=b"])
                | st.text(max_size=3)
            )
        )
    if draw(st.booleans()):  # half of the cases get one usable numeric column somewhere
        columns.append(
            np.array(draw(st.lists(st.floats(-1e6, 1e6), min_size=n, max_size=n)), dtype=float)
        )
        names.append(draw(st.sampled_from(["x", "good", ""])))
        n_cols += 1
    pool = draw(st.sampled_from(LABEL_POOLS[:4]) | st.sampled_from(LABEL_POOLS))
    labels = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    position = draw(st.integers(0, n_cols))
    label_name = draw(st.sampled_from(["label", "Label", "class", "x"]))
    columns.insert(position, np.array(labels + [None], dtype=object)[:n])
    names.insert(position, label_name)
    frame = pd.DataFrame(
        {k: pd.Series(c) if not isinstance(c, pd.Categorical) else c for k, c in enumerate(columns)}
    )
    frame.columns = names
    options = {
        "non_numeric": draw(st.sampled_from(["drop", "encode"])),
        "missing": draw(st.sampled_from(["drop", "impute"])),
        "n_folds": draw(st.sampled_from([None, 2, 3, 5, 10])),
        "max_rows": draw(st.sampled_from([None, 10, 15, 30])),
        "max_features": draw(st.sampled_from([None, 1, 2, 4])),
        "positive": draw(st.none() | st.none() | st.sampled_from([*pool, "zzz"])),
        "random_state": draw(st.integers(0, 3)),
    }
    return frame, label_name, options


N_HOSTILE = 300


def test_prepare_table_survives_hostile_frames(record_property) -> None:
    stats = {"examples": 0, "ok": 0, "value_error": 0}

    @settings(
        max_examples=N_HOSTILE,
        deadline=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
    )
    @given(case=hostile_case())
    def check(case) -> None:
        frame, label, options = case
        stats["examples"] += 1
        try:
            result = prepare_table(frame, label, **options)
        except ValueError as exc:
            stats["value_error"] += 1
            text = str(exc)
            assert text.strip() and "Traceback" not in text
            return
        stats["ok"] += 1
        assert_clean(result)
        for count in result.class_counts.values():
            assert count >= MIN_ROWS_PER_CLASS
        if options["max_rows"] is not None:
            assert len(result.y) <= options["max_rows"]
        if options["max_features"] is not None:
            assert result.X.shape[1] <= options["max_features"]
        if options["n_folds"] is not None:
            assert 2 <= result.n_folds <= min(options["n_folds"], *result.class_counts.values())
        assert result.source_rows.max() < len(frame)

    start = time.perf_counter()
    check()
    elapsed = time.perf_counter() - start
    record_property("hypothesis_examples", stats["examples"])
    print(
        f"\nhostile DataFrames: {stats['examples']} hypothesis examples in {elapsed:.1f} s "
        f"({stats['ok']} prepared cleanly, {stats['value_error']} rejected with ValueError)"
    )
    assert stats["examples"] >= N_HOSTILE * 0.9
    assert stats["ok"] > 0 and stats["value_error"] > 0


# ---- issue 15: thousands separators, identifiers, stray classes, percentages -------------------
def test_thousands_separators_are_not_decimal_commas() -> None:
    # the column: integers written with thousands separators beside small ones
    rng = np.random.default_rng(3)
    truth = rng.integers(100, 5000, size=120)
    texts = [f"{v:,}" for v in truth]  # Python's own thousands formatting: the reference
    parsed = parse_numeric(texts)
    assert parsed.comma == "thousands" and not parsed.comma_ambiguous
    np.testing.assert_array_equal(parsed.values, truth.astype(float))
    # the same through the vectorised path (long string column)
    long = pd.Series(texts * 20, dtype="string")
    np.testing.assert_array_equal(parse_numeric(long).values, np.tile(truth, 20).astype(float))
    # decimal commas: one value that is not a group of three digits decides
    parsed = parse_numeric(["2,928", "1,5", "0,25"])
    assert parsed.comma == "decimal"
    np.testing.assert_array_equal(parsed.values, [2.928, 1.5, 0.25])
    assert parse_numeric(["0,125", "1,250"]).comma == "decimal"  # a group never starts with 0
    # both readings fit: thousands, flagged as ambiguous, unless the file says otherwise
    both = parse_numeric(["2,928", "1,517", "4,000"])
    assert both.comma == "thousands" and both.comma_ambiguous
    hinted = parse_numeric(["2,928", "1,517"], comma_hint="decimal")
    np.testing.assert_array_equal(hinted.values, [2.928, 1.517])


def test_thousands_separators_in_prepare_table_note_ambiguity() -> None:
    frame = table(n=40)
    frame["count"] = [f"{1000 + 7 * i:,}" for i in range(40)]  # every value 1,xxx
    result = prepare_table(frame, "label")
    assert result.X["count"].tolist() == [1000.0 + 7 * i for i in range(40)]
    assert "could be a decimal comma or a thousands separator" in message(
        result, "converted_text_numbers"
    )


def test_percentages_are_fractions() -> None:
    frame = table(n=40)
    frame["rate"] = [f"{i}%" for i in range(40)]
    frame["rate"] = frame["rate"].sample(frac=1, random_state=1).to_numpy()
    result = prepare_table(frame, "label")
    expected = np.array([int(t[:-1]) / 100 for t in frame["rate"]])
    np.testing.assert_allclose(result.X["rate"].to_numpy(), expected)
    assert "read as fractions (12% -> 0.12)" in message(result, "converted_text_numbers")


def test_identifier_columns_dropped_unless_kept() -> None:
    frame = table(n=60, seed=4).sort_values("label", kind="stable").reset_index(drop=True)
    frame.insert(0, "patient_id", np.arange(1001, 1061))  # rising, sorted by class
    rng = np.random.default_rng(5)
    frame.insert(1, "Sample No", rng.permutation(np.arange(500, 560)))  # shuffled, but the name
    frame.insert(2, "visits", rng.integers(0, 5, 60))  # repeated values: a real feature
    frame.insert(3, "code", rng.permutation(np.arange(60)) * 3 + 7)  # unique, unordered, plain name
    result = prepare_table(frame, "label")
    assert result.feature_names == ["visits", "code", "x1", "x2", "x3"]
    text = message(result, "dropped_identifiers")
    assert "'patient_id': all different whole numbers that rise" in text
    assert "'Sample No': all different whole numbers in a column named like" in text
    kept = prepare_table(frame, "label", keep_identifiers=True)
    assert kept.feature_names[:2] == ["patient_id", "Sample No"]
    assert "dropped_identifiers" not in kinds(kept)
    # nearly monotone (2 of 59 steps go down) is still an identifier
    ids = np.arange(60) * 2
    ids[[10, 30]] = ids[[11, 31]] + 1
    frame2 = table(n=60, seed=6)
    frame2["rid"] = ids
    assert "dropped_identifiers" in kinds(prepare_table(frame2, "label"))


def test_stray_classes_dropped_when_two_remain() -> None:
    frame = table(n=300, seed=7).astype({"label": object})
    frame.loc[[10, 200], "label"] = "label"  # a repeated header line
    frame.loc[250, "label"] = "Total"
    result = prepare_table(frame, "label")
    assert set(result.class_counts) == {"a", "b"}
    assert sorted(set(range(300)) - set(result.source_rows)) == [10, 200, 250]
    text = message(result, "dropped_stray_classes")
    assert "fewer than 3 rows" in text and "'Total' (1 row)" in text
    # three real classes of 100: still the three-class error, nothing dropped
    three = table(n=300, seed=7, labels=("a", "b", "c"))
    with pytest.raises(ValueError, match="has 3 classes"):
        prepare_table(three, "label")
    # with a positive class given, nothing is dropped: one against the rest
    merged = prepare_table(frame, "label", positive="a")
    assert len(merged.y) == 300


def test_long_text_columns_parse_like_python_float() -> None:
    # the vectorised path (Arrow's parser) against Python's correctly rounded float()
    rng = np.random.default_rng(8)
    texts = [
        f"{v:.{k}g}"
        for v, k in zip(rng.normal(scale=1e3, size=5000), rng.integers(1, 17, 5000), strict=True)
    ]
    texts[7], texts[11], texts[13] = "1e-320", "-.5", "+7."
    parsed = parse_numeric(pd.Series(texts, dtype="string"))
    assert parsed.n_bad == 0
    np.testing.assert_array_equal(parsed.values, [float(t) for t in texts])


def test_long_text_labels_cleaned_like_short_ones() -> None:
    # the vectorised label cleaning (>= 2000 rows) against the row-by-row one on the same rows
    rng = np.random.default_rng(9)
    labels = rng.choice(["yes", "no", " yes ", "no  ", "NA", "?", ""], size=3000).astype(object)
    frame = pd.DataFrame({"x": rng.normal(size=3000), "label": labels})
    long = prepare_table(frame, "label")
    parts = [
        prepare_table(frame.iloc[k : k + 1000].reset_index(drop=True), "label")
        for k in (0, 1000, 2000)
    ]
    assert list(long.y) == [v for p in parts for v in p.y]
    missing = sum(c.count for p in parts for c in p.report if c.kind == "dropped_missing_label")
    assert message(long, "dropped_missing_label").startswith(f"{missing:,} rows")
    stripped = sum(c.count for p in parts for c in p.report if c.kind == "label_spaces_stripped")
    assert message(long, "label_spaces_stripped").startswith(f"{stripped:,} labels")
