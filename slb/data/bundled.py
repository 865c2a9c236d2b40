"""The bundled datasets and their loader.

The CSV files live in ``data/`` at the project's top level.  An installed wheel carries them as
package data, ``slb/_data`` (``pyproject.toml`` force-includes ``data/`` there), read through
:mod:`importlib.resources`; a source checkout (``pip install -e .`` or ``pythonpath = .``) reads
the top-level ``data/``.  :func:`data_dir` alone decides which.
"""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

import pandas as pd

#: The package's own folder and the checkout's top level (for a source checkout).
_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # slb/

#: name -> (file, description): the paper's Table 4 datasets, and one multiclass teaching set.
BUNDLED_DATASETS = {
    "sonar": ("sonar.csv", "Sonar: 60 sonar-return energies, mines vs rocks (208 rows)"),
    "ionosphere": ("ionosphere.csv", "Ionosphere: 33 radar-pulse features, good vs bad (351 rows)"),
    "pima": ("pima.csv", "Pima Indians diabetes: 8 clinical features (768 rows)"),
    "wdbc": ("wdbc.csv", "Wisconsin diagnostic breast cancer: 30 cell-nucleus features (569 rows)"),
    "penguins": (
        "penguins.csv",
        "Palmer penguins: 4 body measurements, 3 species (342 rows)",
    ),
}

#: The SLB paper's real datasets (its Table 4, all binary): the real-data experiment's default.
PAPER_DATASETS = ("sonar", "ionosphere", "pima", "wdbc")


def data_dir(package: str | Traversable = "slb", checkout_root: Path | None = None) -> Traversable:
    """The folder of the bundled CSV files.

    Parameters
    ----------
    package : str or Traversable, default="slb"
        The package whose ``_data`` folder an installed wheel holds (a name for
        :func:`importlib.resources.files`, or the folder itself; tests pass a folder).
    checkout_root : Path or None
        The source checkout's top level; default: the folder above the ``slb`` package.

    Returns
    -------
    Traversable
        ``<package>/_data`` when it exists (installed), else ``<checkout_root>/data``.

    Examples
    --------
    >>> from slb.data.bundled import data_dir
    >>> (data_dir() / "sonar.csv").is_file()
    True
    """
    root = resources.files(package) if isinstance(package, str) else package
    packaged = root / "_data"
    if packaged.is_dir():
        return packaged
    return (checkout_root or _PACKAGE_DIR.parent) / "data"


def load_dataset(name, *, as_frame=True):
    """Load a bundled dataset.

    Parameters
    ----------
    name : {"sonar", "ionosphere", "pima", "wdbc", "penguins"}
    as_frame : bool, default=True
        Return a DataFrame and a Series; otherwise two ndarrays.

    Returns
    -------
    X : DataFrame of shape (n_samples, n_features)
    y : Series of shape (n_samples,)
        String labels (column ``label`` of the file).

    Examples
    --------
    >>> from slb.data.bundled import load_dataset
    >>> X, y = load_dataset("sonar")
    >>> X.shape, sorted(y.unique())
    ((208, 60), ['mine', 'rock'])
    >>> X, y = load_dataset("penguins", as_frame=False)
    >>> X.shape, y.shape
    ((342, 4), (342,))
    """
    if name not in BUNDLED_DATASETS:
        raise ValueError(
            f"Unknown dataset {name!r}; the bundled ones are {', '.join(BUNDLED_DATASETS)}."
        )
    path = data_dir() / BUNDLED_DATASETS[name][0]
    if not path.is_file():
        raise ValueError(
            f"The bundled file {path} is missing; reinstall slb-explorer (pip install .) or "
            "restore the checkout's data/ folder."
        )
    with path.open("rb") as fh:
        frame = pd.read_csv(fh)
    y = frame.pop("label").astype(str).rename("label")
    X = frame.astype(float)
    if as_frame:
        return X, y
    return X.to_numpy(), y.to_numpy()
