"""Every catalogued classifier plus its table cleaner survives save -> load (issue 12, item 4).

The training table is a raw CSV as a user would upload it: the bundled Pima rows plus text
columns (three colours, yes/no, free text, percentages written as text) and missing values
("?", "NA", empty cells).  Each model of ``slb.evaluation.registry.CLASSIFIERS`` is fitted as
``Pipeline(TableCleaner, model)``, saved with ``slb.persistence.save_model``, loaded, and must
give identical predictions (and probabilities / decision values) on new raw rows read from a
second CSV.  The cleaner itself is checked against an independent reference: its output for new
rows is recomputed by hand from the raw cells with pandas.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import Pipeline

from slb import KDENaiveBayes, SLBClassifier, TableCleaner, load_dataset, prepare_table
from slb.evaluation.registry import CLASSIFIERS, make_classifier
from slb.persistence import load_model, save_model
from slb.tables.read import read_table

N_TRAIN, N_NEW = 200, 60
LABEL = "outcome"


def _raw_table() -> pd.DataFrame:
    X, y = load_dataset("pima")
    n = N_TRAIN + N_NEW
    rng = np.random.default_rng(0)
    df = X.iloc[:n].reset_index(drop=True).astype(object)
    df["colour"] = rng.choice(["red", "green", "blue"], n)
    df["smoker"] = np.where(np.asarray(y.iloc[:n]) == "diabetic", "yes", "no")
    flip = rng.random(n) < 0.3  # a useful but imperfect text feature
    df.loc[flip, "smoker"] = np.where(df.loc[flip, "smoker"] == "yes", "no", "yes")
    df["note"] = [f"visit {i} by dr {rng.integers(1000)}" for i in range(n)]  # free text
    df["body_fat"] = [f"{v:.0f}%" for v in rng.uniform(10, 40, n)]
    df.loc[::13, "glucose"] = "?"
    df.loc[5::17, "bmi"] = "NA"
    df.loc[3::19, "colour"] = ""
    df[LABEL] = np.asarray(y.iloc[:n])
    return df


def _read(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    return read_table(frame.to_csv(index=False).encode(), name).frame


@pytest.fixture(scope="module")
def tables():
    raw = _raw_table()
    train = _read(raw.iloc[:N_TRAIN], "train.csv")
    new = _read(raw.iloc[N_TRAIN:].drop(columns=LABEL), "new.csv")
    return train, new


def _cleaner(**kw) -> TableCleaner:
    return TableCleaner(non_numeric="encode", missing="impute", **kw)


def _round_trip(model):
    buf = io.BytesIO()
    save_model(model, buf)
    return load_model(buf.getvalue())


@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_every_catalogued_model_with_its_cleaner(tables, name):
    train, new = tables
    model = Pipeline([("clean", _cleaner()), ("model", make_classifier(name, random_state=0))])
    model.fit(train.drop(columns=LABEL), train[LABEL])
    again = _round_trip(model)
    assert type(again) is Pipeline
    assert [type(s) for _, s in again.steps] == [type(s) for _, s in model.steps]
    predicted = model.predict(new)
    np.testing.assert_array_equal(again.predict(new), predicted)
    assert set(predicted) <= {"diabetic", "healthy"} and len(predicted) == N_NEW
    for method in ("predict_proba", "decision_function"):
        if hasattr(model, method):
            np.testing.assert_array_equal(getattr(again, method)(new), getattr(model, method)(new))
    np.testing.assert_array_equal(again.classes_, model.classes_)


@pytest.mark.parametrize("classifier", [SLBClassifier(random_state=0), KDENaiveBayes()])
def test_dashboard_style_model_keeps_the_cleaners_report(tables, classifier):
    # As the dashboard builds it: the cleaner fitted on the table with its label column, the
    # model on the cleaned rows, both joined in a Pipeline.
    train, new = tables
    cleaner = TableCleaner(LABEL, non_numeric="encode", missing="drop")
    prep = cleaner.fit_prepare(train)
    model = Pipeline([("clean", cleaner), ("model", classifier.fit(prep.X, prep.y))])
    again = _round_trip(model)
    np.testing.assert_array_equal(again.predict(new), model.predict(new))
    np.testing.assert_array_equal(again.predict_proba(new), model.predict_proba(new))
    assert again[0].report_ == cleaner.report_
    pd.testing.assert_frame_equal(again[0].changes_, cleaner.changes_)
    assert "dropped_missing_rows" in set(cleaner.changes_["kind"])
    assert list(again[0].get_feature_names_out()) == list(prep.X.columns)


@pytest.mark.parametrize("missing", ["drop", "impute"])
def test_transform_of_the_training_rows_is_prepare_tables_table(tables, missing):
    train, _ = tables
    prep = prepare_table(train, LABEL, non_numeric="encode", missing=missing)
    cleaner = TableCleaner(LABEL, non_numeric="encode", missing=missing).fit(train)
    again = cleaner.transform(train)
    assert list(again.columns) == list(prep.X.columns)
    rows = again.iloc[prep.source_rows].to_numpy()
    np.testing.assert_array_equal(rows, prep.X.to_numpy())
    assert [c.message for c in cleaner.report_] == prep.messages


def test_new_rows_are_cleaned_as_computed_by_hand(tables):
    train, new = tables
    cleaner = _cleaner(label=LABEL).fit(train)
    out = cleaner.transform(new)
    cols = list(out.columns)
    assert "note" not in " ".join(cols)  # free text: dropped at fit, ignored on new rows
    assert {"colour=blue", "colour=green", "colour=red", "smoker=yes"} <= set(cols)
    assert len(out) == N_NEW and np.isfinite(out.to_numpy()).all()

    def numbers(frame, col):  # "?"/"NA" -> NaN, "12%" -> 0.12 (if the reader left text)
        s = frame[col]
        if pd.api.types.is_numeric_dtype(s):
            return s.astype(float)
        text = s.astype(str).str.strip()
        v = pd.to_numeric(text.str.rstrip("%"), errors="coerce")
        return v.where(~text.str.endswith("%"), v / 100)

    for col in ("glucose", "bmi", "age", "body_fat"):
        fill = numbers(train, col).median()  # all training rows have a label
        expected = numbers(new, col).fillna(fill)
        assert cleaner.columns_[cols.index(col)]["fill"] == pytest.approx(fill, rel=1e-12)
        np.testing.assert_allclose(out[col].to_numpy(), expected.to_numpy(), rtol=1e-12)
    colour = new["colour"].fillna("").astype(str).str.strip()
    present = colour != ""
    for level in ("blue", "green", "red"):
        got = out[f"colour={level}"].to_numpy()
        np.testing.assert_array_equal(got[present], (colour[present] == level).astype(float))
        train_colour = train["colour"].fillna("").astype(str)
        fill = (train_colour[train_colour != ""] == level).median()
        np.testing.assert_array_equal(got[~present], np.full((~present).sum(), fill))
    np.testing.assert_array_equal(out["smoker=yes"], (new["smoker"] == "yes").astype(float))


def test_unknown_categories_and_missing_columns(tables):
    train, new = tables
    cleaner = _cleaner(label=LABEL).fit(train)
    odd = new.copy()
    odd.loc[odd.index[2], "colour"] = "purple"
    with pytest.raises(ValueError, match=r"'colour'.*'purple'.*row 3.*handle_unknown"):
        cleaner.transform(odd)
    lenient = _cleaner(label=LABEL, handle_unknown="impute").fit(train)
    row = lenient.transform(odd).iloc[2]
    for level in ("blue", "green", "red"):
        assert row[f"colour={level}"] == lenient.columns_[cols_index(lenient, level)]["fill"]
    with pytest.raises(ValueError, match=r"lack 2 columns.*'bmi' and 'colour'"):
        cleaner.transform(new.drop(columns=["colour", "bmi"]))
    with pytest.raises(ValueError, match="pandas DataFrame"):
        cleaner.transform(new.to_numpy())
    # extra columns, another order, the label present: all fine
    shuffled = new[new.columns[::-1]].assign(extra=1.0, **{LABEL: "healthy"})
    pd.testing.assert_frame_equal(cleaner.transform(shuffled), cleaner.transform(new))


def cols_index(cleaner, level):
    return list(cleaner.get_feature_names_out()).index(f"colour={level}")


def test_merged_labels_are_coded_as_at_fit():
    frame = pd.DataFrame(
        {"x": np.arange(30.0) % 7, "kind": ["a", "b", "c"] * 10, "z": np.arange(30.0) ** 0.5}
    )
    cleaner = TableCleaner("kind", positive="b").fit(frame)
    assert cleaner.merged_ and cleaner.positive_label_ == "b"
    coded = cleaner.encode_labels(["a", " b", "c", "b"])
    assert list(coded) == ["not b", "b", "not b", "b"]
    with pytest.raises(ValueError, match="missing"):
        cleaner.encode_labels(["a", None])
