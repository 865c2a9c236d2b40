"""Decision surfaces: what fitted classifiers predict over a grid of two features.

The other features are held at one value each (their medians, one row of the data, or values
given by the caller), so every grid node is a full feature vector and the region drawn at a
node is exactly ``estimator.predict`` of that vector.  The grid is built once
(:func:`surface_grid`) and shared by every classifier (:func:`decision_surface`), so their
regions can be compared node by node.  The figure is :func:`slb.viz.surface.decision_surface_figure`.

Any fitted classifier with ``predict`` works (SLB, KDE naive Bayes, TAN, scikit-learn's), with
two or more classes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = [
    "DecisionSurface",
    "SurfaceGrid",
    "decision_surface",
    "predict_surface",
    "surface_axes",
    "surface_grid",
]

#: Grid nodes per axis: at least this many, at most :data:`MAX_RESOLUTION`.
MIN_RESOLUTION = 2
MAX_RESOLUTION = 400


@dataclass(frozen=True)
class SurfaceGrid:
    """A grid over two features, the others held fixed.

    Attributes
    ----------
    features : tuple of str
        The two features that vary: ``features[0]`` along ``x``, ``features[1]`` along ``y``.
    x, y : numpy.ndarray
        The grid's coordinates along each feature (``nx`` and ``ny`` values, increasing).
    held : pandas.Series
        The value of every feature at which the others are held (indexed by the column names;
        the entries of the two varying features are their values in the held row).
    held_from : str
        How ``held`` was chosen: ``"median"``, ``"row <i>"`` or ``"values"``.
    frame : pandas.DataFrame
        The ``ny * nx`` full feature vectors, row ``i * nx + j`` at ``(x[j], y[i])``, with the
        columns of the data.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0], "b": [0.0, 2.0, 4.0, 6.0], "c": [1.0, 1.0, 3.0, 5.0]})
    >>> grid = surface_grid(X, ["a", "b"], resolution=3, margin=0.0)
    >>> grid.features, grid.x.tolist(), grid.y.tolist(), grid.shape
    (('a', 'b'), [0.0, 1.5, 3.0], [0.0, 3.0, 6.0], (3, 3))
    >>> grid.held_from, float(grid.held["c"])  # c held at its median
    ('median', 2.0)
    >>> grid.frame.iloc[3].tolist()  # row i * nx + j = 1 * 3 + 0: (x[0], y[1])
    [0.0, 3.0, 2.0]
    """

    features: tuple
    x: np.ndarray
    y: np.ndarray
    held: pd.Series
    held_from: str
    frame: pd.DataFrame = field(repr=False)

    @property
    def shape(self) -> tuple[int, int]:
        """``(ny, nx)``: the shape of every region array."""
        return len(self.y), len(self.x)


@dataclass(frozen=True)
class DecisionSurface:
    """What each classifier predicts on one :class:`SurfaceGrid`.

    Attributes
    ----------
    grid : SurfaceGrid
    classes : numpy.ndarray
        Every class label, in the order of ``codes``.
    labels : dict
        Classifier name -> ``(ny, nx)`` array of its predicted labels (``labels[name][i, j]``
        is ``predict`` of ``grid.frame``'s row ``i * nx + j``).
    codes : dict
        Classifier name -> ``(ny, nx)`` int array: the index of each prediction in ``classes``.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0], "b": [0.0, 2.0, 4.0, 6.0]})
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, np.array([0, 0, 1, 1]))
    >>> s = decision_surface({"tree": tree}, X, ["a", "b"], resolution=3, margin=0.0)
    >>> isinstance(s, DecisionSurface), s.classes.tolist()
    (True, [0, 1])
    >>> s.codes["tree"].tolist()  # rows: b = 0, 3, 6
    [[0, 0, 0], [0, 0, 0], [1, 1, 1]]
    >>> s.shares().round(3).to_dict("index")
    {'tree': {0: 0.667, 1: 0.333}}
    """

    grid: SurfaceGrid
    classes: np.ndarray
    labels: dict
    codes: dict

    def shares(self) -> pd.DataFrame:
        """Share of the grid's nodes each classifier gives each class (rows: classifiers)."""
        k = len(self.classes)
        rows = {
            name: np.bincount(c.ravel(), minlength=k) / c.size for name, c in self.codes.items()
        }
        return pd.DataFrame.from_dict(rows, orient="index", columns=list(self.classes))

    def one_class(self) -> dict:
        """The classifiers that give one class to every node (no boundary on this plane), each
        with that class (an entry of ``classes``).

        Examples
        --------
        >>> import numpy as np
        >>> s = DecisionSurface(None, np.array([0, 1]), {}, {"a": np.zeros((2, 2), int),
        ...                                                  "b": np.eye(2, dtype=int)})
        >>> s.one_class()
        {'a': 0}
        """
        out = {}
        for name, c in self.codes.items():
            seen = np.unique(c)
            if seen.size == 1:
                out[name] = self.classes[int(seen[0])].item()
        return out

    def own_region_shares(self, X, y) -> pd.DataFrame:
        """Share of each class's rows that lie in that class's own region on this plane.

        A row lies at its own values of the two features, on the grid node nearest to it; the
        region there is the classifier's prediction at the *held* values of the other features,
        not at the row's.  A class whose rows mostly lie in another class's region is one the
        held values do not describe: there the other features decide (H52: at penguins'
        medians most Adelie rows fell in Chinstrap's region).

        Parameters
        ----------
        X : DataFrame or array of shape (n_samples, n_features)
            The rows (with the grid's columns, or in their order).
        y : array of shape (n_samples,)
            Their classes (entries of ``classes``; other values are ignored).

        Returns
        -------
        DataFrame
            Rows: classifiers; columns: the classes; NaN for a class without rows.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> X = pd.DataFrame({"a": [0.0, 1, 2, 3], "b": [0.0, 1, 0, 1], "c": [0.0, 9, 9, 0]})
        >>> y = np.array([0, 1, 1, 0])  # c alone separates the classes
        >>> tree = DecisionTreeClassifier(random_state=0).fit(X, y)
        >>> s = decision_surface({"tree": tree}, X, ["a", "b"], resolution=4, margin=0.0)
        >>> s.one_class()  # c held at its median, 4.5 (the tree's cut): class 0 everywhere
        {'tree': 0}
        >>> s.own_region_shares(X, y).to_dict("index")  # class 1's rows: all in 0's region
        {'tree': {0: 1.0, 1: 0.0}}
        """
        frame = _as_frame(X)
        fx, fy = self.grid.features
        cols = list(frame.columns)
        if fx in cols and fy in cols:
            vx, vy = (frame[f].to_numpy(dtype=float) for f in (fx, fy))
        else:
            arr = frame.to_numpy(dtype=float)
            held = list(self.grid.held.index)
            vx, vy = arr[:, held.index(fx)], arr[:, held.index(fy)]
        j = _nearest(self.grid.x, vx)
        i = _nearest(self.grid.y, vy)
        k = pd.Index(self.classes).get_indexer(np.asarray(y))
        if k.shape[0] != vx.shape[0]:
            raise ValueError(f"y has {k.shape[0]} entries for {vx.shape[0]} rows of X.")
        rows = {}
        for name, c in self.codes.items():
            own = c[i, j] == k
            rows[name] = [
                float(own[k == m].mean()) if (k == m).any() else np.nan
                for m in range(len(self.classes))
            ]
        return pd.DataFrame.from_dict(rows, orient="index", columns=list(self.classes))


def _nearest(axis: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The index of the entry of the increasing ``axis`` nearest each value."""
    hi = np.clip(np.searchsorted(axis, values), 1, axis.size - 1)
    lo = hi - 1
    return np.where(np.abs(values - axis[lo]) <= np.abs(axis[hi] - values), lo, hi)


def _as_frame(X) -> pd.DataFrame:
    if isinstance(X, pd.DataFrame):
        frame = X
    else:
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise ValueError(f"X must be a 2-d table of features, got shape {arr.shape}.")
        frame = pd.DataFrame(arr, columns=[f"x{i}" for i in range(arr.shape[1])])
    if frame.shape[1] < 2:
        raise ValueError("A decision surface needs at least two features.")
    if frame.shape[0] < 1:
        raise ValueError("X has no rows.")
    try:
        values = frame.to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise ValueError("Every feature must be numeric to draw a decision surface.") from None
    if not np.isfinite(values).all():
        raise ValueError("X has missing or infinite values.")
    return frame


def _feature(frame: pd.DataFrame, f) -> str:
    cols = list(frame.columns)
    if f in cols:
        return f
    if isinstance(f, (int, np.integer)) and not isinstance(f, bool) and 0 <= f < len(cols):
        return cols[int(f)]
    raise ValueError(
        f"Unknown feature {f!r}; the features are {cols[:10]}{'…' * (len(cols) > 10)}."
    )


def _held(frame: pd.DataFrame, held) -> tuple[pd.Series, str]:
    if isinstance(held, str):
        if held != "median":
            raise ValueError(f"held must be 'median', a row number or values, got {held!r}.")
        return frame.median(axis=0).astype(float), "median"
    if isinstance(held, (int, np.integer)) and not isinstance(held, bool):
        if not 0 <= held < len(frame):
            raise ValueError(
                f"Row {held} does not exist: X has {len(frame)} rows (0 to {len(frame) - 1})."
            )
        return frame.iloc[int(held)].astype(float), f"row {int(held)}"
    if isinstance(held, (Mapping, pd.Series)):
        values = pd.Series(dict(held), dtype=float)
        missing = [c for c in frame.columns if c not in values.index]
        if missing:
            raise ValueError(f"held has no value for {missing[:5]}.")
        values = values[list(frame.columns)]
        if not np.isfinite(values.to_numpy()).all():
            raise ValueError("held has missing or infinite values.")
        return values, "values"
    raise ValueError(f"held must be 'median', a row number or a mapping of values, got {held!r}.")


def surface_axes(X, *, min_values: int = 3) -> list:
    """The features that can span an axis of a decision surface: those with at least
    ``min_values`` distinct values.

    A column with two values (a 0/1 dummy of a one-hot encoding, a yes/no answer) or one makes
    a poor axis: the grid runs through the range between its values where no row lies, and a
    classifier's region there says nothing about the data.

    Parameters
    ----------
    X : DataFrame or array of shape (n_samples, n_features)
        The data (numeric features).
    min_values : int, default=3
        Distinct values a feature needs (missing values not counted).

    Returns
    -------
    list
        The column names (positions for an array), in the table's order.

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.evaluation.surface import surface_axes
    >>> X = pd.DataFrame({"age": [31, 45, 52, 38], "smoker": [0, 1, 0, 1], "bmi": [22.1, 30.4, 27.0, 24.8]})
    >>> surface_axes(X)
    ['age', 'bmi']
    """
    if (
        isinstance(min_values, bool)
        or not isinstance(min_values, (int, np.integer))
        or min_values < 1
    ):
        raise ValueError(f"min_values must be a whole number of at least 1, got {min_values!r}.")
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
    counts = frame.nunique(dropna=True)
    return [col for col, n in counts.items() if n >= min_values]


def surface_grid(X, features, *, held="median", resolution=60, margin: float = 0.05) -> SurfaceGrid:
    """A ``resolution`` x ``resolution`` grid over two features of ``X``, the others held.

    The grid spans each feature's range in ``X``, widened by ``margin`` times the range on both
    sides.

    Parameters
    ----------
    X : DataFrame or array of shape (n_samples, n_features)
        The data (at least two numeric features); sets the grid's extent and the held values.
    features : pair of str or int
        The two features that vary (column names, or positions).
    held : "median", int or mapping, default="median"
        Where the other features are held: their medians in ``X``, the row at that position of
        ``X``, or a value for every column.
    resolution : int or pair of int, default=60
        Grid nodes along each feature (2 to 400).
    margin : float, default=0.05
        Extra room on each side, as a share of the feature's range.

    Returns
    -------
    SurfaceGrid

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.evaluation.surface import surface_grid
    >>> X = pd.DataFrame({"a": [0.0, 1.0, 2.0], "b": [0.0, 10.0, 20.0], "c": [5.0, 6.0, 9.0]})
    >>> g = surface_grid(X, ["a", "b"], resolution=5, margin=0.0)
    >>> g.x.tolist(), g.shape, g.held_from
    ([0.0, 0.5, 1.0, 1.5, 2.0], (5, 5), 'median')
    >>> g.frame.iloc[6].tolist()  # row i * nx + j = 1 * 5 + 1: x[1], y[1], c at its median
    [0.5, 5.0, 6.0]
    """
    frame = _as_frame(X)
    if isinstance(features, str) or len(features) != 2:
        raise ValueError(f"features must name two features, got {features!r}.")
    fx, fy = (_feature(frame, f) for f in features)
    if fx == fy:
        raise ValueError(f"The two features must differ (both are {fx!r}).")
    res = (resolution, resolution) if np.isscalar(resolution) else tuple(resolution)
    if len(res) != 2 or any(
        isinstance(r, bool) or not isinstance(r, (int, np.integer)) for r in res
    ):
        raise ValueError(
            f"resolution must be a whole number or a pair of them, got {resolution!r}."
        )
    if not all(MIN_RESOLUTION <= r <= MAX_RESOLUTION for r in res):
        raise ValueError(f"resolution must be between {MIN_RESOLUTION} and {MAX_RESOLUTION}.")
    margin = float(margin)
    if not np.isfinite(margin) or not 0 <= margin <= 1:
        raise ValueError(f"margin must be between 0 and 1, got {margin!r}.")
    values, how = _held(frame, held)
    axes = []
    for f, r in zip((fx, fy), res, strict=True):
        col = frame[f].to_numpy(dtype=float)
        lo, hi = float(col.min()), float(col.max())
        pad = margin * (hi - lo) if hi > lo else max(abs(lo), 1.0) * 0.5
        axes.append(np.linspace(lo - pad, hi + pad, int(r)))
    gx, gy = np.meshgrid(axes[0], axes[1])  # (ny, nx)
    grid = np.tile(values.to_numpy(dtype=float), (gx.size, 1))
    cols = list(frame.columns)
    grid[:, cols.index(fx)] = gx.ravel()
    grid[:, cols.index(fy)] = gy.ravel()
    return SurfaceGrid(
        features=(fx, fy),
        x=axes[0],
        y=axes[1],
        held=values,
        held_from=how,
        frame=pd.DataFrame(grid, columns=frame.columns),
    )


def predict_surface(estimator, grid: SurfaceGrid, *, numpy_input: bool = False) -> np.ndarray:
    """``estimator.predict`` at every node of ``grid``, as a ``(ny, nx)`` array of labels.

    Parameters
    ----------
    estimator : fitted classifier
        Anything with ``predict``, fitted on the columns of the grid's data.
    grid : SurfaceGrid
    numpy_input : bool, default=False
        Pass the grid as a numpy array (for an estimator fitted without column names).

    Returns
    -------
    numpy.ndarray of shape (ny, nx)

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> from slb.data.toy import xor
    >>> from slb.evaluation.surface import predict_surface, surface_grid
    >>> X, y = xor(n=200, noise=0.0, random_state=0)
    >>> grid = surface_grid(X, ["x1", "x2"], resolution=4)
    >>> knn = KNeighborsClassifier(5).fit(X, y)
    >>> predict_surface(knn, grid).tolist()  # rows from the bottom (x2 < 0) up
    [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]
    """
    if not hasattr(estimator, "predict"):
        raise ValueError(f"{type(estimator).__name__} has no predict method.")
    Xg = grid.frame.to_numpy() if numpy_input else grid.frame
    pred = np.asarray(estimator.predict(Xg))
    if pred.shape != (len(grid.frame),):
        raise ValueError(
            f"{type(estimator).__name__}.predict returned shape {pred.shape} for "
            f"{len(grid.frame)} grid nodes."
        )
    return pred.reshape(grid.shape)


def decision_surface(
    estimators,
    X,
    features,
    *,
    held="median",
    resolution=60,
    margin: float = 0.05,
    classes=None,
) -> DecisionSurface:
    """The decision regions of fitted classifiers over two features of ``X``.

    Parameters
    ----------
    estimators : dict or fitted classifier
        ``{name: fitted classifier}`` (one classifier: named by its class).
    X : DataFrame or array of shape (n_samples, n_features)
        The data the classifiers were fitted on (or like it), see :func:`surface_grid`.
    features : pair of str or int
        The two features that vary.
    held, resolution, margin
        See :func:`surface_grid`.
    classes : sequence or None
        Every class label, in the order of the codes; None: the union of the classifiers'
        ``classes_`` (sorted).

    Returns
    -------
    DecisionSurface

    Examples
    --------
    >>> from slb import KDENaiveBayes, SLBClassifier
    >>> from slb.data.toy import xor
    >>> from slb.evaluation.surface import decision_surface
    >>> X, y = xor(n=200, noise=0.05, random_state=0)
    >>> models = {
    ...     "SLB": SLBClassifier(threshold=0.0, random_state=0).fit(X, y),
    ...     "NB": KDENaiveBayes().fit(X, y),
    ... }
    >>> s = decision_surface(models, X, ["x1", "x2"], resolution=9)
    >>> s.codes["SLB"].shape, s.classes.tolist()
    ((9, 9), [0, 1])
    >>> int(s.labels["SLB"][0, 0]), int(s.labels["SLB"][0, -1])  # (-, -): 1, (+, -): 0
    (1, 0)
    """
    if not isinstance(estimators, Mapping):
        estimators = {type(estimators).__name__: estimators}
    if not estimators:
        raise ValueError("No classifier to draw.")
    frame = _as_frame(X)
    grid = surface_grid(frame, features, held=held, resolution=resolution, margin=margin)
    numpy_input = not isinstance(X, pd.DataFrame)
    labels = {
        str(n): predict_surface(est, grid, numpy_input=numpy_input) for n, est in estimators.items()
    }
    if classes is None:
        known = [np.asarray(getattr(e, "classes_", [])) for e in estimators.values()]
        known += [np.unique(v) for v in labels.values()]
        classes = np.unique(np.concatenate(known))
    classes = np.asarray(classes)
    codes = {}
    for name, lab in labels.items():
        code = np.full(lab.shape, -1, dtype=np.int64)
        for k, c in enumerate(classes):
            code[lab == c] = k
        if (code < 0).any():
            stray = np.unique(lab[code < 0])[:5]
            raise ValueError(
                f"{name} predicts {stray.tolist()}, not among the classes {classes.tolist()}."
            )
        codes[name] = code
    return DecisionSurface(grid=grid, classes=classes, labels=labels, codes=codes)
