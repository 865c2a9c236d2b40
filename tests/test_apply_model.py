"""A saved model applied to the table in use (H45: a downloaded model could be loaded back in
Python only): :func:`slb.evaluation.scoring.score_table` and the Explain page's "Apply a saved
model" block, checked against the model's own predictions and scikit-learn's balanced
accuracy."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import balanced_accuracy_score
from test_app import assert_ok, goto, new_app

from slb.evaluation.scoring import score_table
from slb.persistence import load_model


def _downloaded(at, name="NB") -> bytes:
    """The bytes behind Explain's "Download model" for ``name``."""
    at.selectbox(key="dl_model_name").set_value(name)
    at.button(key="dl_model_fit").click().run()
    assert_ok(at)
    return at.session_state["dl_model_file"][1]


def _texts(at) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption])


def _reference(payload: bytes, frame: pd.DataFrame, label: str):
    model = load_model(payload)
    pred = model.predict(frame)
    truth = frame[label].astype(str).str.strip().to_numpy()
    return model, pred, 1.0 - balanced_accuracy_score(truth, pred.astype(str))


def test_score_table_is_the_models_predictions_and_their_ber():
    at = goto(new_app(), "pages/explain.py")
    payload = _downloaded(at)
    raw = at.session_state["data_build"].raw
    label = at.session_state["data_build"].dataset.label
    model, pred, ber = _reference(payload, raw.frame, label)
    s = score_table(model, raw.frame, label)
    np.testing.assert_array_equal(s.predictions["predicted"].to_numpy(), pred.astype(str))
    proba = model.predict_proba(raw.frame)
    for k, c in enumerate(model.classes_):
        np.testing.assert_array_equal(s.predictions[f"P({c})"].to_numpy(), proba[:, k])
    assert s.n_labelled == s.n_scored == len(raw.frame) == 208
    assert s.ber == pytest.approx(ber, abs=1e-12) and 0.0 < ber < 0.5
    # the first rows only, and no error rate without a label column
    few = score_table(model, raw.frame.drop(columns=label), None, max_rows=10)
    assert (few.n_scored, few.n_rows, few.n_labelled) == (10, 208, 0) and np.isnan(few.ber)


def test_explain_applies_an_uploaded_model_file():
    at = goto(new_app(), "pages/explain.py")
    assert not at.error
    payload = _downloaded(at)
    raw = at.session_state["data_build"].raw
    label = at.session_state["data_build"].dataset.label
    _, pred, ber = _reference(payload, raw.frame, label)
    at.file_uploader(key="apply_model_file").set_value(
        ("sonar_NB.slbmodel", payload, "application/octet-stream")
    ).run()
    assert_ok(at)
    assert not at.error, [e.value for e in at.error]
    text = _texts(at)
    assert "208 rows predicted" in text
    assert f"Balanced error rate **{100 * ber:.1f}%** on the 208 rows" in text
    assert "training error" in text  # the file was fitted on these rows: said to be optimistic
    shown = next(d.value for d in at.dataframe if "predicted" in d.value.columns)
    assert len(shown) == 200
    np.testing.assert_array_equal(shown["predicted"].to_numpy(), pred[:200].astype(str))
    assert any("Download the predictions" in str(b.proto) for b in at.get("download_button"))
    # the predicted class and the probability follow two rules, and the page says so (H52)
    assert "not the largest probability" in text


@pytest.mark.parametrize("what", ["damaged", "other columns"])
def test_a_file_that_cannot_be_applied_gets_a_message(what):
    at = goto(new_app(), "pages/explain.py")
    payload = _downloaded(at)
    if what == "damaged":
        payload = payload[: len(payload) // 2]
        expected = "model file"
    else:  # a model for Pima, applied to Sonar: the cleaner names the missing columns
        goto(at, "app.py")
        at.selectbox(key="bundled_name").set_value("pima").run()
        assert_ok(at)
        goto(at, "pages/explain.py")
        pima = _downloaded(at)
        goto(at, "app.py")
        at.selectbox(key="bundled_name").set_value("sonar").run()
        goto(at, "pages/explain.py")
        payload, expected = pima, "lack"
    at.file_uploader(key="apply_model_file").set_value(
        ("m.slbmodel", payload, "application/octet-stream")
    ).run()
    assert_ok(at)
    assert len(at.error) == 1 and expected in at.error[0].value, [e.value for e in at.error]
    assert not [d for d in at.dataframe if "predicted" in d.value.columns]


def test_a_file_with_markdown_in_its_names_is_shown_as_text():
    """Class names come from the file: shown as text, never as Markdown or HTML."""
    from sklearn.pipeline import Pipeline

    from slb import TableCleaner, load_dataset
    from slb.peers import KDENaiveBayes
    from slb.persistence import save_model

    X, y = load_dataset("sonar")
    table = X.assign(kind=np.where(np.asarray(y) == "rock", "**bold**", "<b>x</b>"))
    cleaner = TableCleaner("kind")
    prep = cleaner.fit_prepare(table)
    buf = io.BytesIO()
    save_model(Pipeline([("c", cleaner), ("m", KDENaiveBayes().fit(prep.X, prep.y))]), buf)
    at = goto(new_app(), "pages/explain.py")
    at.file_uploader(key="apply_model_file").set_value(
        ("m.slbmodel", buf.getvalue(), "application/octet-stream")
    ).run()
    assert_ok(at)
    assert not at.error, [e.value for e in at.error]
    line = next(m.value for m in at.markdown if "rows predicted" in m.value)
    assert "\\*\\*bold\\*\\*" in line and "\\<b\\>x\\</b\\>" in line, line
    assert "<b>" not in line.replace("\\<b\\>", "")
    # Sonar's labels (rock, mine) are not the file's classes: no error rate, said so
    assert "no error rate" in _texts(at)


def test_three_classes_too():
    """Penguins (three species) on the K-class Explain page: every class's probability."""
    at = new_app()
    at.selectbox(key="bundled_name").set_value("penguins").run()
    goto(at, "pages/explain.py")
    payload = _downloaded(at)
    build = at.session_state["data_build"]
    model, pred, ber = _reference(payload, build.raw.frame, build.dataset.label)
    at.file_uploader(key="apply_model_file").set_value(
        ("penguins_NB.slbmodel", payload, "application/octet-stream")
    ).run()
    assert_ok(at)
    assert not at.error, [e.value for e in at.error]
    shown = next(d.value for d in at.dataframe if "predicted" in d.value.columns)
    label = build.dataset.label
    assert list(shown.columns) == [
        "file row",
        f"{label} (as the model reads it)",
        "on the Data page",
        "predicted",
    ] + [f"P({c})" for c in model.classes_]
    assert len(model.classes_) == 3
    assert f"Balanced error rate **{100 * ber:.1f}%**" in _texts(at)


def _upload_with_gaps(tmp_frame: pd.DataFrame):
    from test_app import csv_upload

    return csv_upload(new_app(), "gaps.csv", tmp_frame.to_csv(index=False).encode())


def test_rows_the_data_page_dropped_are_named_and_scored_apart():
    """H47: a table whose incomplete rows the Data page drops (n = 275 of 300) was predicted on
    all 300 rows with one error rate and nothing said.  Each row now says whether the Data
    page's table has it, a caption counts the others, and the error rate is also given on the
    Data page's rows, equal to the model's own on exactly those rows."""
    rng = np.random.default_rng(5)
    n = 300
    y = np.where(rng.random(n) < 0.4, "fault", "ok")
    df = pd.DataFrame({"a": rng.normal(size=n) + (y == "fault"), "b": rng.normal(size=n)})
    gaps = rng.choice(n, 25, replace=False)
    df.loc[gaps, "b"] = np.nan
    df["state"] = y
    at = _upload_with_gaps(df)
    assert not at.error, [e.value for e in at.error]
    ds = at.session_state["data_build"].dataset
    assert ds.n == 275 and sorted(set(range(n)) - set(ds.source_rows.tolist())) == sorted(gaps)
    goto(at, "pages/explain.py")
    payload = _downloaded(at)
    at.file_uploader(key="apply_model_file").set_value(
        ("gaps.slbmodel", payload, "application/octet-stream")
    ).run()
    assert_ok(at)
    assert not at.error, [e.value for e in at.error]
    text = _texts(at)
    assert "25 of these rows are not in the Data page's table of 275 rows" in text
    shown = next(d.value for d in at.dataframe if "predicted" in d.value.columns)
    outside = shown.loc[shown["on the Data page"] == "dropped", "file row"].to_numpy()
    assert sorted(outside) == sorted(gaps[gaps < 200] + 1)  # numbered from 1, as the notes
    # kept / dropped, not yes / no (H49: beside "yes"/"no" labels it read "no, yes, no")
    assert set(shown["on the Data page"]) == {"kept", "dropped"}
    model = load_model(payload)
    pred = model.predict(df).astype(str)
    on = np.setdiff1d(np.arange(n), gaps)
    page_ber = 1.0 - balanced_accuracy_score(y[on], pred[on])
    all_ber = 1.0 - balanced_accuracy_score(y, pred)
    assert f"**{100 * all_ber:.1f}%** on the 300 rows" in text
    assert f"**{100 * page_ber:.1f}%** on the 275 of them in the Data page's table" in text


def test_a_one_against_the_rest_file_reads_the_other_classes_as_the_rest():
    """A file fitted on penguins' one species against the rest: its classes are "Adelie" and
    "not Adelie", so the other species' rows are its second class (they were left out of the
    error rate: 152 labelled rows of 342, one class, an error rate of one class's recall)."""
    from slb.tables.cleaner import TableCleaner

    at = new_app()
    at.selectbox(key="bundled_name").set_value("penguins").run()
    at.selectbox(key="positive_class").set_value("Adelie").run()
    assert_ok(at)
    goto(at, "pages/explain.py")
    payload = _downloaded(at)
    build = at.session_state["data_build"]
    frame, label = build.raw.frame, build.dataset.label
    model = load_model(payload)
    assert sorted(map(str, model.classes_)) == ["Adelie", "not Adelie"]
    s = score_table(model, frame, label)
    cleaner = model.steps[0][1]
    assert isinstance(cleaner, TableCleaner)
    labelled = frame[label].notna().to_numpy()
    truth = cleaner.encode_labels(frame[label][labelled]).astype(str)
    pred = model.predict(frame).astype(str)[labelled]
    assert s.n_labelled == int(labelled.sum()) > 300
    assert s.ber == pytest.approx(1.0 - balanced_accuracy_score(truth, pred), abs=1e-12)


def test_the_rule_sentence_follows_the_files_own_priors():
    """The page explained every file's labels as the balanced rule (stop 48's H52 fix); a
    library model fitted at the training shares (``priors="empirical"``) predicts the largest
    probability, and the page now says that instead, as :func:`decision_rule` reads the file."""
    from sklearn.pipeline import Pipeline

    from slb import KDENaiveBayes, SLBClassifier, TableCleaner
    from slb.persistence import save_model
    from slb.probabilities import decision_rule

    at = goto(new_app(), "pages/explain.py")
    raw = at.session_state["data_build"].raw
    label = at.session_state["data_build"].dataset.label
    cleaner = TableCleaner(label)
    prep = cleaner.fit_prepare(raw.frame)
    rules = {
        "balanced": KDENaiveBayes(),
        "prevalence": KDENaiveBayes(priors="empirical"),
        "priors": SLBClassifier(threshold=0.05, C=1.0, class_weight={"mine": 1.0, "rock": 3.0}),
    }
    for want, clf in rules.items():
        buf = io.BytesIO()
        save_model(Pipeline([("clean", cleaner), ("clf", clf.fit(prep.X, prep.y))]), buf)
        assert decision_rule(load_model(buf.getvalue())) == want
        at.file_uploader(key="apply_model_file").set_value(
            (f"sonar_{want}.slbmodel", buf.getvalue(), "application/octet-stream")
        ).run()
        assert_ok(at)
        assert not at.error, [e.value for e in at.error]
        text = _texts(at)
        assert ("not the largest probability" in text) == (want == "balanced"), want
        assert ("the one of largest probability" in text) == (want == "prevalence"), want
        assert ("at the class priors it was fitted with" in text) == (want == "priors"), want
    from sklearn.ensemble import RandomForestClassifier

    assert decision_rule(RandomForestClassifier(n_estimators=3).fit(prep.X, prep.y)) is None
