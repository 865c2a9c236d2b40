"""Issue 28: a cell of Compare's K x K confusion matrix lists its rows.

:func:`dashboard.multiclass.cell_rows` against an independent loop over the out-of-fold
predictions of a real 3-class cross-validation (naive Bayes and a Gaussian naive Bayes on the
same repeated folds), and the matrix's click targets map back to the cell they sit on.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import confusion_matrix
from sklearn.naive_bayes import GaussianNB

from dashboard.multiclass import cell_rows, named
from slb import KDENaiveBayes
from slb.evaluation import compare_estimators, stratified_folds
from slb.evaluation.predictions import confusion_matrices
from slb.viz.cells import clickable_cells, clicked_cell
from slb.viz.multiclass import confusion_figure_k

NAMES = ["alpha", "beta", "gamma"]


@pytest.fixture(scope="module")
def predictions():
    """Out-of-fold predictions of two classifiers on three overlapping classes (class names
    as on the page: ``named``), 2 repeats of 3 folds, and the table."""
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1, 2], [40, 35, 30])
    X = pd.DataFrame(rng.normal(size=(y.size, 3)) + 0.9 * y[:, None], columns=["a", "b", "row"])
    folds = stratified_folds(y, n_splits=3, n_repeats=2, random_state=0)
    comp = compare_estimators(
        {"NB": KDENaiveBayes(), "GNB": GaussianNB()},
        X,
        y,
        folds=folds,
        record_predictions=True,
    )
    return named(comp.predictions, NAMES), X, y


def reference(pred: pd.DataFrame, chosen: str, truth: str, said: str) -> list[tuple]:
    """(row, repeat from 1, fold from 1) of every prediction in the cell, by a plain loop."""
    out = []
    for r in pred.itertuples(index=False):
        if r.classifier == chosen and r.y_true == truth and r.y_pred == said:
            out.append((int(r.row), int(r.repeat) + 1, int(r.fold) + 1))
    return out


@pytest.mark.parametrize("chosen", ["NB", "GNB"])
def test_every_cell_lists_the_rows_an_independent_loop_finds(predictions, chosen):
    pred, X, y = predictions
    mine = pred[pred["classifier"] == chosen]
    cm = confusion_matrix(mine["y_true"], mine["y_pred"], labels=NAMES)
    assert cm.sum() == 2 * y.size  # every row once per repeat
    assert (cm - np.diag(np.diag(cm))).sum() > 0  # some confusions to list
    for i, truth in enumerate(NAMES):
        for j, said in enumerate(NAMES):
            listing = cell_rows(pred, chosen, truth, said, X)
            got = list(listing[["row", "repeat", "fold"]].itertuples(index=False, name=None))
            want = reference(pred, chosen, truth, said)
            assert sorted(got) == sorted(want)
            assert len(listing) == cm[i, j]
            # each listed row's values are that row of the table; true classes agree
            np.testing.assert_array_equal(
                listing[["a", "b"]].to_numpy(), X[["a", "b"]].to_numpy()[listing["row"]]
            )
            np.testing.assert_array_equal(
                listing["row (feature)"].to_numpy(), X["row"].to_numpy()[listing["row"]]
            )
            assert (y[listing["row"].to_numpy()] == i).all()


def test_the_listing_carries_the_scores_it_has(predictions):
    pred, X, _ = predictions
    listing = cell_rows(pred, "NB", "alpha", "beta", X)
    probas = [c for c in listing.columns if c.startswith("proba[")]
    assert probas == [f"proba[{n}]" for n in NAMES]
    want = [
        [r[c] for c in probas]
        for r in pred.to_dict("records")
        if r["classifier"] == "NB" and r["y_true"] == "alpha" and r["y_pred"] == "beta"
    ]
    np.testing.assert_array_equal(listing[probas].to_numpy(), np.array(want))
    # a column the classifier leaves empty (NaN) is not listed
    empty = pred.assign(**{"score[beta]": np.nan})
    assert "score[beta]" not in cell_rows(empty, "NB", "alpha", "beta", X).columns
    assert "score[beta]" in listing.columns


def test_a_click_on_a_target_names_its_cell_and_count(predictions):
    pred, X, _ = predictions
    cm = confusion_matrices(pred, labels=NAMES)["GNB"]
    fig = clickable_cells(confusion_figure_k(cm))
    K = len(NAMES)
    for k, (i, j) in enumerate(fig.layout.meta["cells"]):
        sel = {"selection": {"points": [{"curve_number": 1, "point_index": k}]}}
        assert clicked_cell(sel, fig) == (i, j) == divmod(k, K)
        # the target sits on its cell and the cell's count is what the click lists
        assert fig.data[1].x[k] == fig.data[0].x[j] and fig.data[1].y[k] == fig.data[0].y[i]
        assert len(cell_rows(pred, "GNB", NAMES[i], NAMES[j], X)) == cm.iloc[i, j]
