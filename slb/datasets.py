"""The bundled datasets (``data/`` at the project's top level) and their loader."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

DATA_DIR = Path(__file__).resolve().parent.parent / "data"

#: name -> (file, description); the paper's Table 4 datasets.
BUNDLED_DATASETS = {
    "sonar": ("sonar.csv", "Sonar: 60 sonar-return energies, mines vs rocks (208 rows)"),
    "ionosphere": ("ionosphere.csv", "Ionosphere: 33 radar-pulse features, good vs bad (351 rows)"),
    "pima": ("pima.csv", "Pima Indians diabetes: 8 clinical features (768 rows)"),
    "wdbc": ("wdbc.csv", "Wisconsin diagnostic breast cancer: 30 cell-nucleus features (569 rows)"),
}


def load_dataset(name, *, as_frame=True):
    """Load a bundled dataset.

    Parameters
    ----------
    name : {"sonar", "ionosphere", "pima", "wdbc"}
    as_frame : bool, default=True
        Return a DataFrame and a Series; otherwise two ndarrays.

    Returns
    -------
    X : DataFrame of shape (n_samples, n_features)
    y : Series of shape (n_samples,)
        String labels (column ``label`` of the file).
    """
    if name not in BUNDLED_DATASETS:
        raise ValueError(
            f"Unknown dataset {name!r}; the bundled ones are {', '.join(BUNDLED_DATASETS)}."
        )
    path = DATA_DIR / BUNDLED_DATASETS[name][0]
    if not path.exists():
        raise ValueError(f"The bundled file {path} is missing; reinstall the project's data/.")
    frame = pd.read_csv(path)
    y = frame.pop("label").astype(str).rename("label")
    X = frame.astype(float)
    if as_frame:
        return X, y
    return X.to_numpy(), y.to_numpy()
