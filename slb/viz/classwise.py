"""The reliability diagram of more than two classes (issue 28): one class against the rest.

:func:`classwise_reliability_figure` draws, for one class ``c`` and every classifier with
probabilities, the bins of :func:`slb.probabilities.one_vs_rest_reliability` (mean predicted
probability of ``c`` against the share of rows of class ``c``), in the style of the two-class
diagram (:func:`slb.viz.calibration.reliability_figure`: markers sized by their rows, the count in
the hover and in :func:`slb.viz.calibration.reliability_counts`, 14 px text, the diagonal of perfect calibration).  Why one-vs-rest rather than the
top-label diagram is said in :func:`slb.probabilities.one_vs_rest_reliability`.  Every user
string is escaped; ``fig.layout.meta`` holds the numbers drawn.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..evaluation.predictions import class_column
from ..probabilities import one_vs_rest_reliability
from .calibration import _reliability_diagram
from .multiclass import class_color
from .style import classifier_order, escape_text

__all__ = ["classwise_reliability_figure", "classwise_reliability_table"]

_COLUMNS = ["classifier", "class", "bin", "lower", "upper", "mean_predicted", "observed", "count"]


def classwise_reliability_table(pred: pd.DataFrame, classes, *, n_bins: int = 10) -> pd.DataFrame:
    """One-vs-rest reliability bins of every classifier with probabilities, every class.

    Parameters
    ----------
    pred : DataFrame
        A K-class prediction table (:mod:`slb.evaluation.predictions`): ``classifier``,
        ``y_true`` (a label of ``classes``) and one ``proba[c]`` column per class.  A
        classifier whose probabilities are not all finite (none given) is left out.
    classes : sequence
        The class labels, in the order of the probability columns.
    n_bins : int, default=10
        Equal-width bins of ``[0, 1]``.

    Returns
    -------
    table : DataFrame
        One row per non-empty (classifier, class, bin): ``classifier``, ``class``, ``bin``,
        ``lower``, ``upper``, ``mean_predicted``, ``observed``, ``count``.

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.viz.classwise import classwise_reliability_table
    >>> pred = pd.DataFrame({"classifier": "A", "y_true": ["a", "b", "c"],
    ...                      "proba[a]": [0.8, 0.1, 0.1], "proba[b]": [0.1, 0.8, 0.1],
    ...                      "proba[c]": [0.1, 0.1, 0.8]})
    >>> t = classwise_reliability_table(pred, ["a", "b", "c"], n_bins=2)
    >>> t[t["class"] == "a"][["count", "observed"]].values.tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    classes = list(classes)
    cols = [class_column("proba", c) for c in classes]
    missing = [c for c in cols if c not in pred.columns]
    if missing:
        raise ValueError(f"The prediction table has no column {missing[0]!r}.")
    index = {str(c): k for k, c in enumerate(classes)}
    frames = []
    for name in classifier_order(pred["classifier"].unique()):
        mine = pred[pred["classifier"] == name]
        proba = mine[cols].to_numpy(dtype=float)
        if mine.empty or not np.isfinite(proba).all():
            continue
        y = np.array([index.get(str(v), -1) for v in mine["y_true"]])
        r = one_vs_rest_reliability(proba, y, n_bins=n_bins)
        frame = pd.DataFrame({k: v for k, v in r.items() if k != "class_index"})
        frame.insert(0, "class", [classes[k] for k in r["class_index"]])
        frame.insert(0, "classifier", name)
        frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=_COLUMNS)
    return pd.concat(frames, ignore_index=True)[_COLUMNS]


def classwise_reliability_figure(
    pred: pd.DataFrame, classes, class_label, *, n_bins: int = 10, height: int = 420
) -> go.Figure:
    """Reliability diagram of one class against the rest, one line per classifier.

    Parameters
    ----------
    pred : DataFrame
        The K-class prediction table (:func:`classwise_reliability_table`).
    classes : sequence
        The class labels, in the order of the probability columns.
    class_label
        The class drawn (one of ``classes``).
    n_bins : int, default=10
        Equal-width bins of ``[0, 1]``.
    height : int
        Height without the legend (one legend row per line is added below the plot).

    Returns
    -------
    Figure
        The diagram of :func:`slb.viz.calibration.reliability_figure` drawn for the class
        ``class_label`` against the rest; ``layout.meta``: ``kind="classwise_reliability"``,
        ``class``, and as there ``classifiers`` and ``bins`` (shares rounded to 12 decimals).

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.viz.classwise import classwise_reliability_figure
    >>> pred = pd.DataFrame({"classifier": "A", "y_true": ["a", "b", "c"],
    ...                      "proba[a]": [0.8, 0.1, 0.1], "proba[b]": [0.1, 0.8, 0.1],
    ...                      "proba[c]": [0.1, 0.1, 0.8]})
    >>> fig = classwise_reliability_figure(pred, ["a", "b", "c"], "b", n_bins=2)
    >>> fig.layout.meta["bins"]["A"]
    [[0.1, 0.0, 2], [0.8, 1.0, 1]]
    """
    if str(class_label) not in {str(c) for c in classes}:
        raise ValueError(f"class_label {class_label!r} is not one of the classes.")
    table = classwise_reliability_table(pred, classes, n_bins=n_bins)
    table = table[table["class"].astype(str) == str(class_label)]
    safe_class = escape_text(class_label)
    return _reliability_diagram(
        table,
        classifier_order(pred["classifier"].unique()),
        title=f"Reliability of class {safe_class} against the rest (marker area: rows per bin)",
        x_title=f"predicted probability of {safe_class} (bin mean)",
        y_title=f"observed share of {safe_class}",
        height=height,
        meta={"kind": "classwise_reliability", "class": str(class_label)},
        digits=12,
        # colours no class has in the K-class figures (H48: TAN's orange read as a class)
        avoid=[class_color(k) for k in range(len(classes))],
    )
