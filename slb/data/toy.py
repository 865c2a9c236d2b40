"""Toy two-dimensional data for teaching: XOR, circles, moons and spirals.

Each generator is seeded (``random_state``), takes the number of rows ``n`` and a ``noise``
level, and returns ``(X, y)``: a :class:`pandas.DataFrame` with the columns ``x1`` and ``x2``
and a :class:`pandas.Series` of integer class labels named ``label`` (classes as balanced as
``n`` allows).  They are the kind of data TensorFlow Playground draws: two features whose
*joint* distribution, not their marginals, tells the classes apart, which is what SLB's pair
terms are for (naive Bayes sees only the marginals, which are alike in both classes of XOR).

- :func:`xor`: uniform on the square [-1, 1]²; the label is 1 where ``x1 * x2 > 0`` (the
  first and third quadrants), before the noise moves the points;
- :func:`circles`: an outer circle of radius 1 (class 0) around an inner one of radius 0.5
  (class 1) (scikit-learn's ``make_circles`` with ``factor=0.5``);
- :func:`moons`: two interleaving half circles (scikit-learn's ``make_moons``);
- :func:`spirals`: ``n_classes`` interleaved arms of an Archimedean spiral (two by default).

The noise is Gaussian, added to both coordinates with standard deviation ``noise`` (in the
units of the data, which span 2 to 3 units in every generator).  :data:`TOY_DATASETS` lists
the generators with a one-line description, and :func:`make_toy` calls one by name.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["TOY_DATASETS", "circles", "make_toy", "moons", "spirals", "xor"]

COLUMNS = ("x1", "x2")
MAX_NOISE = 2.0


def _check(n, noise, n_classes: int = 2) -> tuple[int, float]:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ValueError(f"n must be a whole number of rows, got {n!r}.")
    if int(n) < 2 * n_classes:
        raise ValueError(f"n must be at least {2 * n_classes} (two rows per class), got {n}.")
    noise = float(noise)
    if not np.isfinite(noise) or not 0.0 <= noise <= MAX_NOISE:
        raise ValueError(f"noise must be between 0 and {MAX_NOISE:g}, got {noise!r}.")
    return int(n), noise


def _sizes(n: int, k: int) -> np.ndarray:
    """Rows per class: ``n`` split as evenly as possible (the first classes get the extra)."""
    return np.full(k, n // k) + (np.arange(k) < n % k)


def _frame(X: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple:
    """Shuffled rows as the (DataFrame, Series) pair every generator returns."""
    order = rng.permutation(len(y))
    frame = pd.DataFrame(np.asarray(X, dtype=float)[order], columns=list(COLUMNS))
    return frame, pd.Series(np.asarray(y, dtype=np.int64)[order], name="label")


def xor(n: int = 400, noise: float = 0.1, random_state: int | None = 0):
    """XOR: the label is 1 in the first and third quadrants, 0 in the other two.

    The clean points are uniform on [-1, 1]², half of them (rounded) in each class; Gaussian
    noise of standard deviation ``noise`` is then added to both coordinates, so near the axes
    some points cross into a quadrant of the other class.  Each feature alone carries no
    information about the class.

    Parameters
    ----------
    n : int, default=400
        Number of rows.
    noise : float, default=0.1
        Standard deviation of the Gaussian noise added to both coordinates (0 to 2).
    random_state : int or None, default=0
        Seed of the draw.

    Returns
    -------
    X : pandas.DataFrame
        Columns ``x1`` and ``x2``.
    y : pandas.Series
        0 or 1 (named ``label``).

    Examples
    --------
    >>> from slb.data.toy import xor
    >>> X, y = xor(n=200, noise=0.0, random_state=0)
    >>> list(X.columns), X.shape, int(y.sum())
    (['x1', 'x2'], (200, 2), 100)
    >>> bool(((X["x1"] * X["x2"] > 0) == (y == 1)).all())
    True
    """
    n, noise = _check(n, noise)
    rng = np.random.default_rng(random_state)
    parts, labels = [], []
    for label, m in enumerate(_sizes(n, 2)):
        # a point of the class: |x1| and |x2| uniform, signs equal (class 1) or opposite (0)
        mag = rng.uniform(0.0, 1.0, size=(m, 2))
        s1 = rng.choice([-1.0, 1.0], size=m)
        s2 = s1 if label == 1 else -s1
        parts.append(mag * np.column_stack([s1, s2]))
        labels.append(np.full(m, label))
    X = np.vstack(parts)
    X = X + rng.normal(0.0, noise, size=X.shape) if noise > 0 else X
    return _frame(X, np.concatenate(labels), rng)


def circles(n: int = 400, noise: float = 0.1, random_state: int | None = 0):
    """Two concentric circles: class 0 on the outer one (radius 1), class 1 on the inner (0.5).

    scikit-learn's ``make_circles(factor=0.5)``; the noise is Gaussian, of standard deviation
    ``noise``, on both coordinates.

    Parameters
    ----------
    n : int, default=400
        Number of rows.
    noise : float, default=0.1
        Standard deviation of the Gaussian noise (0 to 2).
    random_state : int or None, default=0
        Seed of the draw.

    Returns
    -------
    X : pandas.DataFrame
        Columns ``x1`` and ``x2``.
    y : pandas.Series
        0 (outer circle) or 1 (inner circle), named ``label``.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.data.toy import circles
    >>> X, y = circles(n=100, noise=0.0, random_state=1)
    >>> r = np.hypot(X["x1"], X["x2"])
    >>> round(float(r[y == 0].mean()), 6), round(float(r[y == 1].mean()), 6)
    (1.0, 0.5)
    """
    from sklearn.datasets import make_circles

    n, noise = _check(n, noise)
    rng = np.random.default_rng(random_state)
    X, y = make_circles(
        n_samples=n,
        noise=noise if noise > 0 else None,
        factor=0.5,
        random_state=int(rng.integers(2**31 - 1)),
    )
    return _frame(X, y, rng)


def moons(n: int = 400, noise: float = 0.1, random_state: int | None = 0):
    """Two interleaving half circles (scikit-learn's ``make_moons``).

    Class 0 is the upper half circle of radius 1 centred at (0, 0), class 1 the lower one
    centred at (1, 0.5); the noise is Gaussian, of standard deviation ``noise``.

    Parameters
    ----------
    n : int, default=400
        Number of rows.
    noise : float, default=0.1
        Standard deviation of the Gaussian noise (0 to 2).
    random_state : int or None, default=0
        Seed of the draw.

    Returns
    -------
    X : pandas.DataFrame
        Columns ``x1`` and ``x2``.
    y : pandas.Series
        0 (upper moon) or 1 (lower moon), named ``label``.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.data.toy import moons
    >>> X, y = moons(n=100, noise=0.0, random_state=0)
    >>> upper = X[y == 0]
    >>> bool(np.allclose(np.hypot(upper["x1"], upper["x2"]), 1.0))
    True
    """
    from sklearn.datasets import make_moons

    n, noise = _check(n, noise)
    rng = np.random.default_rng(random_state)
    X, y = make_moons(
        n_samples=n, noise=noise if noise > 0 else None, random_state=int(rng.integers(2**31 - 1))
    )
    return _frame(X, y, rng)


#: Turns of each spiral arm, from the centre to radius 1.
SPIRAL_TURNS = 1.5


def spirals(n: int = 400, noise: float = 0.1, random_state: int | None = 0, n_classes: int = 2):
    """Interleaved spiral arms, one per class.

    A point of class ``k`` at radius ``r`` (``r = sqrt(u)``, ``u`` uniform on [0.05, 1], so the
    arms are evenly filled) lies at the angle ``2π (SPIRAL_TURNS · r + k / n_classes)``: the
    arms are the same Archimedean spiral turned by a ``1 / n_classes`` of a circle.  Gaussian
    noise of standard deviation ``noise`` is added to both coordinates.

    Parameters
    ----------
    n : int, default=400
        Number of rows.
    noise : float, default=0.1
        Standard deviation of the Gaussian noise (0 to 2).
    random_state : int or None, default=0
        Seed of the draw.
    n_classes : int, default=2
        Number of arms (classes), 2 to 6.

    Returns
    -------
    X : pandas.DataFrame
        Columns ``x1`` and ``x2``.
    y : pandas.Series
        The arm of each row, 0 to ``n_classes - 1`` (named ``label``).

    Examples
    --------
    >>> from slb.data.toy import spirals
    >>> X, y = spirals(n=90, noise=0.05, random_state=0, n_classes=3)
    >>> X.shape, sorted(y.value_counts().tolist())
    ((90, 2), [30, 30, 30])
    """
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)):
        raise ValueError(f"n_classes must be a whole number, got {n_classes!r}.")
    if not 2 <= int(n_classes) <= 6:
        raise ValueError(f"n_classes must be between 2 and 6, got {n_classes}.")
    k_all = int(n_classes)
    n, noise = _check(n, noise, k_all)
    rng = np.random.default_rng(random_state)
    parts, labels = [], []
    for k, m in enumerate(_sizes(n, k_all)):
        r = np.sqrt(rng.uniform(0.05, 1.0, size=m))
        angle = 2 * np.pi * (SPIRAL_TURNS * r + k / k_all)
        parts.append(np.column_stack([r * np.cos(angle), r * np.sin(angle)]))
        labels.append(np.full(m, k))
    X = np.vstack(parts)
    X = X + rng.normal(0.0, noise, size=X.shape) if noise > 0 else X
    return _frame(X, np.concatenate(labels), rng)


#: name -> (generator, one-line description); every generator takes ``n``, ``noise`` and
#: ``random_state``.
TOY_DATASETS = {
    "xor": (xor, "XOR: class 1 in the first and third quadrants"),
    "circles": (circles, "Circles: a ring around a disc"),
    "moons": (moons, "Moons: two interleaving half circles"),
    "spirals": (spirals, "Spirals: two interleaved spiral arms"),
    "spirals3": (
        lambda n=400, noise=0.1, random_state=0: spirals(n, noise, random_state, n_classes=3),
        "Spirals, three classes: three interleaved arms",
    ),
}


def make_toy(name: str, n: int = 400, noise: float = 0.1, random_state: int | None = 0):
    """The toy dataset ``name`` of :data:`TOY_DATASETS`.

    Parameters
    ----------
    name : str
        ``"xor"``, ``"circles"``, ``"moons"``, ``"spirals"`` or ``"spirals3"`` (three arms).
    n, noise, random_state
        As in the generators.

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series

    Examples
    --------
    >>> from slb.data.toy import make_toy
    >>> X, y = make_toy("moons", n=50, noise=0.2, random_state=3)
    >>> X2, y2 = make_toy("moons", n=50, noise=0.2, random_state=3)
    >>> bool(X.equals(X2) and y.equals(y2))
    True
    """
    if name not in TOY_DATASETS:
        raise ValueError(
            f"Unknown toy dataset {name!r}; choose one of {', '.join(map(repr, TOY_DATASETS))}."
        )
    return TOY_DATASETS[name][0](n=n, noise=noise, random_state=random_state)
