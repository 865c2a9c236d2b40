"""The dashboard's "Download model" (issue 12, item 4): the file is the Data page's cleaning
plus the chosen classifier, and the Explain page offers it."""

from __future__ import annotations

import numpy as np
import pytest
from test_app import assert_ok, goto, new_app
from test_model_roundtrip import LABEL, N_TRAIN, _raw_table

from dashboard import data, models, state
from slb import KDENaiveBayes, load_dataset
from slb.persistence import load_model
from slb.tables.read import read_table

DENSITY = ("scott", 1.0, ())


def test_model_file_is_the_data_pages_cleaning_plus_the_classifier():
    raw = _raw_table()
    cfg = dict(state.DEFAULTS, source="upload", non_numeric="encode", missing="impute")
    cfg["label"] = LABEL
    upload = data.make_upload("train.csv", raw.iloc[:N_TRAIN].to_csv(index=False).encode())
    built = data.build(cfg, upload)
    ds = built.dataset
    assert built.error is None and "colour=red" in ds.feature_names

    model = load_model(models.model_file(ds, built.raw, cfg, "NB", DENSITY))
    cleaner = model[0]
    # the file's cleaner repeats the Data page's cleaning, value for value
    np.testing.assert_array_equal(cleaner.transform(built.raw.frame).to_numpy(), ds.X.to_numpy())
    # and its classifier is the catalogue's NB fitted on the cleaned rows with the class names
    new = read_table(raw.iloc[N_TRAIN:].drop(columns=LABEL).to_csv(index=False).encode(), "n.csv")
    labels = np.where(ds.y == 1, ds.positive_label, ds.negative_label)
    reference = KDENaiveBayes(**state.density_params(DENSITY)).fit(ds.X, labels)
    expected = reference.predict(cleaner.transform(new.frame))
    np.testing.assert_array_equal(model.predict(new.frame), expected)
    assert set(expected) == {"diabetic", "healthy"}


@pytest.mark.slow
def test_explain_page_offers_the_model_file():
    at = goto(new_app(), "pages/explain.py")
    assert not [b for b in at.get("download_button") if "Download model" in str(b.proto)]
    # H37: the note spoke of "the density settings above", and Explain has none: it says
    # where they are (the sidebar shows them, the Densities page sets them)
    note = next(c.value for c in at.caption if c.value.startswith("The file holds"))
    assert "settings above" not in note
    assert "shown in the sidebar and set on the Densities page" in note
    at.selectbox(key="dl_model_name").set_value("NB")
    at.button(key="dl_model_fit").click().run()
    assert_ok(at)
    assert not at.error
    buttons = [b for b in at.get("download_button") if "Download model" in str(b.proto)]
    assert len(buttons) == 1
    _, payload = at.session_state["dl_model_file"]  # the bytes behind the button
    model = load_model(payload)
    X, _ = load_dataset("sonar")
    assert type(model[-1]) is KDENaiveBayes
    assert list(model[0].get_feature_names_out()) == [str(c) for c in X.columns]
    assert set(model.predict(X)) <= set(model[-1].classes_)
