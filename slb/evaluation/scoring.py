"""A saved model applied to a raw table: each row's class and probabilities, and the balanced
error on the rows whose label the model knows.

:func:`score_table` is what the dashboard's "Apply a saved model" block shows: a model file of
:mod:`slb.persistence` (a classifier and its :class:`~slb.tables.TableCleaner`, or a bare
classifier) predicts every row of a table read by :func:`slb.tables.read_table`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..probabilities import decision_rule
from .metrics import balanced_error_rate

#: Rows scored at most (the first ones); a model's prediction cost grows with the rows.
MAX_SCORED_ROWS = 20_000


@dataclass(frozen=True)
class TableScores:
    """What :func:`score_table` found.

    Attributes
    ----------
    predictions : DataFrame
        One row per scored row (the table's index): ``"predicted"`` (the class name), then
        ``"P(<class>)"`` for each of the model's classes (when it has ``predict_proba``).
    classes : list of str
        The model's classes, as text.
    n_rows, n_scored : int
        Rows of the table, and rows scored (the first :data:`MAX_SCORED_ROWS`).
    n_labelled : int
        Scored rows whose label (as text) is one of the model's classes.
    ber : float
        Balanced error rate of the predictions on those rows (macro average of the per-class
        error rates over the classes present); NaN when no row is labelled.
    truth : ndarray of str or None
        Each scored row's label as the model reads it (stripped text; the merged class for
        a merged one; ``""`` when missing); None without a label column.
    rule : str or None
        How ``"predicted"`` follows from the probabilities
        (:func:`slb.probabilities.decision_rule`: ``"balanced"``, ``"prevalence"``,
        ``"priors"``; None: the model does not say).
    """

    predictions: pd.DataFrame
    classes: list
    n_rows: int
    n_scored: int
    n_labelled: int
    ber: float
    truth: np.ndarray | None = None
    rule: str | None = None

    def ber_on(self, rows) -> tuple[int, float]:
        """Labelled rows among ``rows`` and the balanced error rate there.

        Parameters
        ----------
        rows : array-like of bool, shape (n_scored,)
            The scored rows to count (e.g. those another cleaning kept).

        Returns
        -------
        n : int
            Rows in ``rows`` whose label is one of the model's classes.
        ber : float
            Their balanced error rate; NaN when ``n`` is 0.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> from slb.evaluation.scoring import TableScores
        >>> pred = pd.DataFrame({"predicted": ["a", "b", "b", "a"]})
        >>> s = TableScores(pred, ["a", "b"], 4, 4, 4, 0.25, np.array(["a", "b", "a", ""]))
        >>> s.ber_on([True, True, True, False])  # the unlabelled last row never counts
        (3, 0.25)
        """
        if self.truth is None:
            return 0, float("nan")
        on = np.asarray(rows, dtype=bool) & np.isin(self.truth, self.classes)
        if not on.any():
            return 0, float("nan")
        pred = self.predictions["predicted"].to_numpy()
        return int(on.sum()), float(balanced_error_rate(self.truth[on], pred[on]))


def _merged_classes(model, classes):
    """``(positive, "not positive")`` as text when ``model`` is a pipeline whose table cleaner
    merged the other classes into one and whose classifier has exactly those two classes;
    else None (a K-class file's cleaner codes one class against the rest only to read the
    table: its classifier has the K classes)."""
    steps = getattr(model, "steps", None)
    cleaner = steps[0][1] if steps else None
    if not getattr(cleaner, "merged_", False):
        return None
    pos, neg = str(cleaner.positive_label_), str(cleaner.negative_label_)
    return (pos, neg) if sorted(classes) == sorted([pos, neg]) else None


def score_table(model, frame, label=None, *, max_rows=MAX_SCORED_ROWS) -> TableScores:
    """Predict every row of ``frame`` with a fitted ``model``; score it where labels are known.

    Parameters
    ----------
    model : fitted classifier
        E.g. :func:`slb.persistence.load_model`'s result: a ``Pipeline`` of a
        :class:`~slb.tables.TableCleaner` and a classifier takes the raw table as it was read.
    frame : DataFrame
        The raw rows (the label column may be present: the cleaner reads its own columns).
    label : str or None
        The label column of ``frame``; None: no error rate.  A row counts as labelled when its
        label, as stripped text, is one of the model's classes (as text); for a model whose
        cleaner merged the other classes (``positive="dog"``: "dog" against "not dog"), every
        row with a label counts, the other classes as the merged one.
    max_rows : int
        Rows scored at most (the first ones).

    Returns
    -------
    TableScores

    Raises
    ------
    ValueError
        The model cannot read the table (a column missing, an unknown category, ...): the
        cleaner's message, which names what is wrong.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from sklearn.pipeline import Pipeline
    >>> from slb import TableCleaner
    >>> from slb.evaluation.scoring import score_table
    >>> from slb.peers import KDENaiveBayes
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat(["ham", "spam"], 40)
    >>> table = pd.DataFrame({"a": rng.normal(size=80) + 2 * (y == "spam"), "kind": y})
    >>> cleaner = TableCleaner("kind")
    >>> prep = cleaner.fit_prepare(table)
    >>> model = Pipeline([("clean", cleaner), ("nb", KDENaiveBayes().fit(prep.X, prep.y))])
    >>> s = score_table(model, table, "kind")
    >>> list(s.predictions.columns), s.n_labelled, round(s.ber, 3)
    (['predicted', 'P(ham)', 'P(spam)'], 80, 0.125)
    >>> score_table(model, table.drop(columns="a"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: The new rows lack 1 column the model was trained with: 'a'. ...
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValueError("score_table needs the table as a pandas DataFrame.")
    n_rows = len(frame)
    rows = frame.iloc[: int(max_rows)]
    if not len(rows):
        raise ValueError("The table has no row to predict.")
    pred = np.asarray(model.predict(rows))
    classes = [str(c) for c in model.classes_]
    out = pd.DataFrame({"predicted": pred.astype(str)}, index=rows.index)
    if hasattr(model, "predict_proba"):
        proba = np.asarray(model.predict_proba(rows), dtype=float)
        for k, c in enumerate(classes):
            out[f"P({c})"] = proba[:, k]
    ber, n_labelled, truth = float("nan"), 0, None
    if label is not None and label in rows.columns:
        raw = rows[label]
        text = raw.astype(str).str.strip().to_numpy()
        truth = np.where(raw.isna().to_numpy(), "", text).astype(str)  # "": no label
        merged = _merged_classes(model, classes)
        if merged is not None:  # "dog" against "not dog": every other class is the second
            truth = np.where(truth == merged[0], merged[0], np.where(truth != "", merged[1], ""))
    rule = decision_rule(model)
    scores = TableScores(out, classes, n_rows, len(rows), n_labelled, ber, truth, rule)
    if truth is None:
        return scores
    n_labelled, ber = scores.ber_on(np.ones(len(rows), dtype=bool))
    return dataclasses.replace(scores, n_labelled=n_labelled, ber=ber)
