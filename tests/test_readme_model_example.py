"""The README's "Saving a model and predicting on a new CSV" example runs as printed.

The snippet is taken from README.md itself and run in a temporary directory holding a
``train.csv`` (300 bundled Pima rows with a label column, a text column and missing cells) and
a ``new.csv`` (100 other rows, no label).  Its loaded model must predict the held-out rows far
better than chance, which fails if the new rows were cleaned differently from the training rows.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from slb import load_dataset
from slb.evaluation.metrics import balanced_error_rate

README = Path(__file__).resolve().parent.parent / "README.md"
HEADING = "## Saving a model and predicting on a new CSV"


def _snippet() -> str:
    text = README.read_text(encoding="utf-8")
    assert HEADING in text, "the README section this test runs is gone"
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 1
    return blocks[0]


def write_example_files(folder: Path) -> np.ndarray:
    """The README's ``train.csv`` and ``new.csv`` in this folder; returns the 400 labels (the
    first 300 are train.csv's, the last 100 those of new.csv's rows).  Also used by
    tests/test_readme_blocks.py, which runs every README block."""
    X, y = load_dataset("pima")
    table = X.iloc[:400].reset_index(drop=True).astype(object)
    labels = np.asarray(y.iloc[:400])
    table["smoker"] = np.where(np.arange(400) % 3 == 0, "yes", "no")
    table.loc[::11, "glucose"] = "?"
    table.loc[4::13, "smoker"] = ""
    table["label"] = labels
    table.iloc[:300].to_csv(folder / "train.csv", index=False)
    table.iloc[300:].drop(columns="label").to_csv(folder / "new.csv", index=False)
    return labels


def test_readme_model_example_runs(tmp_path, monkeypatch, capsys):
    labels = write_example_files(tmp_path)
    monkeypatch.chdir(tmp_path)

    namespace: dict = {}
    exec(compile(_snippet(), "README.md", "exec"), namespace)  # our own file, not user input

    assert (tmp_path / "model.slbmodel").is_file()
    model, new = namespace["model"], namespace["new"]
    assert "smoker=yes" in list(model[0].get_feature_names_out())
    predicted = model.predict(new)
    assert len(predicted) == 100 and set(predicted) <= set(labels)
    assert balanced_error_rate(labels[300:], predicted) < 0.4
    printed = capsys.readouterr().out
    assert printed.count("diabetic") + printed.count("healthy") >= 100
