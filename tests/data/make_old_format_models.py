"""Write model files in the format of commit 8313bc9 (``coef_`` a pandas Series).

Run ONCE with that commit's code on the path (the files are committed; a newer ``slb`` writes
the new format, so running this with it would not test anything)::

    mkdir /tmp/slb_head && git archive 8313bc9 slb data | tar -x -C /tmp/slb_head
    PYTHONPATH=/tmp/slb_head python tests/data/make_old_format_models.py

Each ``<Class>.slbmodel`` is a saved fitted model; ``expected.json`` holds the rows it was
fitted on (the first 60 rows, 3 columns of the bundled Pima data) and its decision values,
labels and (where the old code had them) term names, which ``tests/test_old_model_files.py``
compares with what the current code loads.
"""

import json
from pathlib import Path

from slb import (
    ForestDensityClassifier,
    KDENaiveBayes,
    LUClassifier,
    SLBClassifier,
    TANClassifier,
    load_dataset,
)
from slb.persistence import save_model

OUT = Path(__file__).with_name("old_models")


def main():
    X, y = load_dataset("pima")
    X = X.iloc[:60, :3]
    y = y.iloc[:60]
    models = [
        SLBClassifier(threshold=0.0, C=1.0, random_state=0),
        ForestDensityClassifier(C=1.0, random_state=0),
        LUClassifier(C=1.0, random_state=0),
        KDENaiveBayes(),
        TANClassifier(),
    ]
    expected = {
        "format": "commit 8313bc9: coef_ a pandas Series",
        "columns": list(X.columns),
        "X": X.to_numpy().tolist(),
    }
    OUT.mkdir(exist_ok=True)
    for model in models:
        model.fit(X, y)
        name = type(model).__name__
        save_model(model, OUT / f"{name}.slbmodel")
        entry = {
            "decision_function": model.decision_function(X).tolist(),
            "predict": [str(v) for v in model.predict(X)],
        }
        if hasattr(model, "coef_"):
            entry["terms"] = [str(t) for t in model.coef_.index]
            entry["coef"] = model.coef_.to_numpy().tolist()
            entry["intercept"] = float(model.intercept_)
        expected[name] = entry
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1))


if __name__ == "__main__":
    main()
