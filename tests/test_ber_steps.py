"""The exact BER-vs-λ steps (slb.model.steps): the fast nested-kernel fits give the same
decisions as fitting every breakpoint's model from scratch."""

import numpy as np
import pytest
from conftest import make_two_class

from slb import SLBClassifier, ThresholdPath
from slb.evaluation import compare_estimators, stratified_folds
from slb.model.steps import _nested_predictions, ber_steps
from slb.model.svm import fit_linear_svm


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_nested_predictions_match_fit_linear_svm_on_every_mask(loss):
    rng = np.random.default_rng(5)
    T = rng.normal(size=(90, 12)) * rng.uniform(0.5, 3, size=12) + rng.normal(size=12)
    y = (T[:, 0] - T[:, 3] + rng.normal(size=90) > 0).astype(int)
    tr, te = np.arange(60), np.arange(60, 90)
    order = rng.permutation(12)
    nested = [np.isin(np.arange(12), order[:k]) for k in range(0, 13, 2)]
    masks = [*nested, np.isin(np.arange(12), [1, 7])]  # the last one is not nested: a restart
    preds = _nested_predictions(T[tr], y[tr], T[te], masks, 0.7, "balanced", loss=loss)
    for m, p in zip(masks, preds, strict=True):
        if not m.any():
            assert not p.any()  # no feature: the first class
            continue
        coef, b = fit_linear_svm(T[tr][:, m], y[tr], C=0.7, class_weight="balanced", loss=loss)
        assert np.array_equal(p, (T[te][:, m] @ coef + b > 0).astype(int))


@pytest.mark.parametrize("pair_rule", ["either", "per_class"])
@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_every_step_equals_slb_refitted_from_scratch(pair_rule):
    X, y = make_two_class(n_per_class=30, d=4, seed=8)
    folds = stratified_folds(y, n_splits=3, random_state=1)
    path = ThresholdPath(C=0.5, pair_rule=pair_rule, random_state=3).fit(X, y, folds)
    steps = ber_steps(path, 0.0, None)
    assert len(steps) > 10
    for k in range(len(steps)):
        a, b = steps["lower"].iloc[k], steps["threshold"].iloc[k]
        lam = float(b if k == 0 else (a + b) / 2)  # inside the step (row 0: its one λ)
        slb = SLBClassifier(threshold=lam, C=0.5, pair_rule=pair_rule, random_state=3)
        per_fold = compare_estimators({"slb": slb}, X, y, folds=folds).per_fold["slb"]
        assert steps["mean_ber"].iloc[k] == pytest.approx(per_fold.mean(), abs=1e-12), k
        assert steps["sd_ber"].iloc[k] == pytest.approx(per_fold.std(ddof=1), abs=1e-12), k


def test_pieces_with_gaps_join_and_read_as_the_whole():
    from slb.model.steps import chunk_bounds, join_steps, step_at
    from slb.viz import figures

    X, y = make_two_class(n_per_class=40, d=5, seed=21)
    folds = stratified_folds(y, n_splits=3, random_state=4)
    path = ThresholdPath(C=0.5, random_state=3).fit(X, y, folds)
    full = ber_steps(path, 0.0, 0.5)
    b = chunk_bounds(path, 0.0, 0.5, 6)
    assert len(b) >= 6
    pieces = [ber_steps(path, lo, hi) for hi, lo in zip(b, b[1:], strict=False)]
    with pytest.raises(ValueError, match="adjacent"):
        join_steps([pieces[0], pieces[2]])
    kept = [pieces[0], pieces[2], pieces[3]]  # pieces[1] and everything below pieces[3] missing
    joined = join_steps(kept, 0.0, allow_gaps=True)
    assert joined.attrs["gaps"] == [(b[2], b[1])]
    assert joined.attrs["lo"] == b[4] and joined.attrs["hi"] == 0.5
    for lam in np.linspace(0.0, 0.5, 400):
        row, ref = step_at(joined, lam), step_at(full, lam)
        if b[2] < lam < b[1] or lam < b[4]:
            assert row is None  # nothing computed there
        else:
            assert row.mean_ber == ref.mean_ber and row.mean_pairs == ref.mean_pairs
    fig = figures.ber_curve(joined, b[3], None, lam_range=(0.0, 0.5))
    assert fig.layout.meta["uncomputed"] == [[0.0, b[4]], [b[2], b[1]]]
    assert sum(s.type == "rect" for s in fig.layout.shapes) == 2
    line = next(t for t in fig.data if t.name == "SLB CV BER (exact steps)")
    assert np.isnan(np.asarray(line.y, dtype=float)).sum() == 1  # the line stops at the gap
    bands = [t for t in fig.data if t.name in ("+1 sd", "± 1 sd over folds")]
    assert len(bands) == 4  # the sd band: one pair of traces each side of the gap
    for t in bands:  # no band bridges the gap
        x = np.asarray(t.x, dtype=float)
        assert x.max() <= b[2] or x.min() >= b[1]
    mid = (b[2] + b[1]) / 2
    assert figures.ber_curve(joined, mid, None).layout.meta["current"]["curve_ber"] is None


def test_curve_pieces_around_lambda_come_first():
    from dashboard.curve_ui import _pieces_first

    pieces = [(0.3, 0.5), (0.2, 0.3), (0.1, 0.2), (0.0, 0.1)]  # from the top, as drawn
    assert _pieces_first(pieces, 0.25) == [1, 0, 2]
    assert _pieces_first(pieces, 0.2) == [2, 1, 3]  # a boundary belongs to the piece below it
    assert _pieces_first(pieces, 0.5) == [0, 1]
    assert _pieces_first(pieces, 0.0) == [3, 2]
    assert _pieces_first(pieces, 0.6) == []


def test_curve_plan_around_lambda_then_top_then_everything(monkeypatch):
    from dashboard import curve_ui
    from slb.model.steps import chunk_bounds, step_at

    X, y = make_two_class(n_per_class=40, d=6, seed=2)
    folds = stratified_folds(y, n_splits=3, random_state=0)
    path = ThresholdPath(C=0.5, random_state=3).fit(X, y, folds)
    calls = []

    def fake(*args, max_fits=None):  # compute.slb_ber_steps without the cache
        calls.append(args[7])
        return ber_steps(path, *args[7], max_fits=max_fits)

    monkeypatch.setattr(curve_ui.compute, "slb_ber_steps", fake)
    monkeypatch.setattr(curve_ui, "FIRST_FITS", 1)
    b = chunk_bounds(path, 0.0, 0.5, 4)
    pieces = list(zip(b[1:], b, strict=False))
    assert len(pieces) >= 6
    args = ("key", None, "hsic", "either", (), 3, 0)
    lam = (pieces[3][0] + pieces[3][1]) / 2
    steps, missing = curve_ui._steps(args, 1, pieces, lam, fill=False)
    assert calls == [pieces[3], pieces[2], pieces[4]]  # around λ (the budget is spent)
    assert missing == [p for i, p in enumerate(pieces) if i not in (2, 3, 4)]
    assert steps.attrs["gaps"] == [] and steps.attrs["hi"] == pieces[2][1]
    full = ber_steps(path, 0.0, 0.5)
    assert step_at(steps, lam).mean_ber == step_at(full, lam).mean_ber
    # a budget for one more piece: the top of the range, with a gap below it
    monkeypatch.setattr(curve_ui, "FIRST_FITS", steps.attrs["n_fits"] + 1)
    calls.clear()
    steps, missing = curve_ui._steps(args, 1, pieces, lam, fill=False)
    assert calls == [pieces[3], pieces[2], pieces[4], pieces[0]]
    assert steps.attrs["gaps"] == [(pieces[2][1], pieces[0][0])]
    assert steps.attrs["lo"] == pieces[4][0] and steps.attrs["hi"] == 0.5
    assert step_at(steps, lam).mean_ber == step_at(full, lam).mean_ber
    calls.clear()
    steps, missing = curve_ui._steps(args, 1, pieces, lam, fill=True)
    assert calls == [(0.0, 0.5)] and missing == [] and "gaps" not in steps.attrs
    for col in ("threshold", "lower", "mean_ber", "mean_pairs"):
        np.testing.assert_array_equal(steps[col], full[col])
