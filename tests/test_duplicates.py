"""Issue 26 item 3: identical rows stay in one fold of every split (outer comparison folds,
SLB's inner selection and calibration folds, the cross-fitted densities).

With labels independent of X and every row present twice, stratified folds put copies on both
sides and a random forest scored 6-11 % BER; folds that keep copies together give about 50 %.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier

from slb import LogDensityTransformer, SLBClassifier, compare_estimators
from slb._folds import duplicate_groups, stratified_splits
from slb.evaluation import stratified_folds


def _twice(seed=0, n=100, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.integers(0, 2, n)
    order = rng.permutation(2 * n)
    return np.vstack([X, X])[order], np.concatenate([y, y])[order]


def _apart(folds, groups):
    return all(not set(groups[tr]) & set(groups[te]) for tr, te in folds)


def test_duplicate_groups():
    X = pd.DataFrame({"a": [1.0, np.nan, 1.0, np.nan, -0.0, 0.0], "b": list("xyxyzz")})
    g = duplicate_groups(X)
    assert g[0] == g[2] and g[1] == g[3] and g[4] == g[5]
    assert len({g[0], g[1], g[4]}) == 3
    assert duplicate_groups(np.arange(12.0).reshape(6, 2)) is None


def test_copies_give_the_same_fit_in_any_units_or_column_order():
    """H53: the groups were numbered in the order of the rows' hashes, which depends on the
    values' bits, and StratifiedGroupKFold deals groups out by number: with two pairs of
    copies, SLB's probabilities moved by 0.195 when the table was given in other units (×100)
    and by 0.36 with its columns reordered (1e-11 without copies).  Now the groups, the folds
    and the fit are the same."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 60)
    a = rng.normal(size=120)
    X = np.column_stack(
        [a + y, a + 0.3 * rng.normal(size=120), rng.normal(size=120) + 0.5 * y,
         rng.exponential(size=120)]
    )  # fmt: skip
    X[1], X[70] = X[0], X[71]
    order = [2, 0, 3, 1]
    g = duplicate_groups(X)
    assert (duplicate_groups(X * 100) == g).all() and (duplicate_groups(X[:, order]) == g).all()
    assert g[0] == g[1] and g[70] == g[71] and g.tolist()[:3] == [0, 0, 1]
    Xt = rng.normal(size=(200, 4))
    p = SLBClassifier(random_state=0).fit(X, y).predict_proba(Xt)
    scaled = SLBClassifier(random_state=0).fit(X * 100, y).predict_proba(Xt * 100)
    moved = SLBClassifier(random_state=0).fit(X[:, order], y).predict_proba(Xt[:, order])
    assert np.abs(p - scaled).max() < 1e-6 and np.abs(p - moved).max() < 1e-6


def test_folds_keep_copies_together_and_are_unchanged_without_copies():
    X, y = _twice()
    g = duplicate_groups(X)
    assert _apart(stratified_folds(y, 5, 3, 0, groups=g), g)
    assert _apart(stratified_splits(y, 5, random_state=1, X=X), g)
    # no duplicates: exactly the folds of before
    Xu = np.random.default_rng(5).normal(size=(100, 3))
    yu = np.arange(100) % 2
    assert duplicate_groups(Xu) is None
    assert all(
        np.array_equal(a[1], b[1])
        for a, b in zip(
            stratified_splits(yu, 5, random_state=3, X=Xu),
            stratified_folds(yu, 5, 1, 3),
            strict=True,
        )
    )
    plain = stratified_folds(yu, 5, 2, 0)
    same = stratified_folds(yu, 5, 2, 0, groups=np.arange(yu.size))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(plain, same, strict=True))


@pytest.mark.slow  # >= 1.4 s in the development tier (stop 43, --durations)
def test_label_free_table_twice_is_at_chance():
    X, y = _twice()
    rf = {"RF": RandomForestClassifier(100, random_state=0)}
    honest = compare_estimators(rf, X, y).per_fold["RF"].mean()
    leaky = compare_estimators(rf, X, y, groups=None).per_fold["RF"].mean()
    assert honest >= 0.40
    assert leaky < 0.30  # the check can fail: copies on both sides flatter the forest


def test_slb_inner_folds_and_densities_keep_copies_together():
    X, y = _twice(1, n=60, d=3)
    g = duplicate_groups(X)
    est = SLBClassifier(random_state=0, warm_start=True).fit(X, y)
    path = est._cache[("path", est._cache["inner_folds"])]
    assert _apart([(f.train, f.test) for f in path.folds_], g)
    # cross-fitted densities: a row and its copy are in one fold, so they get the same values
    T = LogDensityTransformer(random_state=0).fit_transform(X, y)
    for grp in np.unique(g):
        rows = np.flatnonzero(g == grp)
        np.testing.assert_array_equal(T[rows[0]], T[rows[1]])


def test_prepare_table_names_the_duplicate_rows():
    from slb.tables import prepare_table

    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=np.arange(40) % 2)
    doubled = pd.concat([frame, frame.iloc[[1, 5]]], ignore_index=True)
    doubled.loc[41, "label"] = 1 - doubled.loc[5, "label"]  # a copy with the other label
    prep = prepare_table(doubled, "label")
    note = next(c for c in prep.report if c.kind == "duplicate_rows")
    assert note.rows == (40, 41) and note.count == 2
    assert "data rows 41 and 42" in note.message and "different label" in note.message
    assert note.severity == "warning"
    assert not any(c.kind == "duplicate_rows" for c in prepare_table(frame, "label").report)


def test_prepare_table_drops_the_copies_on_request():
    """``duplicate_rows="drop"`` removes each copy of an earlier row with the same features and
    label (the first kept); a copy with another label stays, as does the copy of that copy's
    label.  The result equals the table without those rows prepared as is."""
    from slb.tables import TableCleaner, prepare_table

    rng = np.random.default_rng(4)
    frame = pd.DataFrame(rng.normal(size=(40, 3)), columns=["a", "b", "c"])
    frame = frame.assign(label=np.where(np.arange(40) % 2, "yes", "no"))
    extra = frame.iloc[[1, 5, 5, 7]].copy()  # rows 40-43
    extra.iloc[2, 3] = "yes" if extra.iloc[2, 3] == "no" else "no"  # 42: row 5, other label
    extra = pd.concat([extra, extra.iloc[[2]]])  # 44: a copy of 42, label included
    table = pd.concat([frame, extra], ignore_index=True)
    kept = prepare_table(table, "label")
    dropped = prepare_table(table, "label", duplicate_rows="drop")
    assert len(kept.X) == 45 and len(dropped.X) == 41  # 40, 41, 43 and 44 (a copy of 42) gone
    expected = prepare_table(table.drop(index=[40, 41, 43, 44]), "label")
    pd.testing.assert_frame_equal(
        dropped.X.reset_index(drop=True), expected.X.reset_index(drop=True)
    )
    assert dropped.class_counts == expected.class_counts
    note = next(c for c in dropped.report if c.kind == "duplicate_rows")
    assert note.count == 5 and "4 copies with the label of the row repeated were dropped" in (
        note.message
    )
    assert "1 copy with a different label stays" in note.message
    with pytest.raises(ValueError, match="duplicate_rows must be 'keep' or 'drop'"):
        prepare_table(table, "label", duplicate_rows="first")
    # the fitted cleaner never drops rows of new data
    cleaner = TableCleaner("label", duplicate_rows="drop").fit(table)
    assert len(cleaner.transform(table)) == 45


def test_dropping_copies_compares_the_labels_as_read():
    """Two identical rows of two classes merged into "not yes" are not copies of each other:
    ``duplicate_rows="drop"`` keeps both (the K-class Data page prepares one class against the
    rest and must not lose a class's row to another's)."""
    from slb.tables import prepare_table

    rng = np.random.default_rng(5)
    frame = pd.DataFrame(rng.normal(size=(30, 2)), columns=["a", "b"])
    frame = frame.assign(label=np.array(["yes", "x", "z"])[np.arange(30) % 3])
    twin = frame.iloc[[1]].assign(label="z")  # row 1 is an "x": same features, class z
    table = pd.concat([frame, twin, frame.iloc[[2]]], ignore_index=True)  # 31: twin of 2 (z)
    prep = prepare_table(table, "label", positive="yes", duplicate_rows="drop")
    assert prep.class_counts == {"yes": 10, "not yes": 21}  # row 30 kept, row 31 dropped
    note = next(c for c in prep.report if c.kind == "duplicate_rows")
    assert note.rows == (30, 31) and "1 copy with a different label stays" in note.message


def test_groups_of_nullable_columns_and_of_a_hash_collision(monkeypatch):
    """H55: a repeated row holding pandas' NA in a nullable column beside a bool column raised
    "boolean value of NA is ambiguous" (compare_estimators groups copies by default); and
    under a hash collision true copies were split apart."""
    df = pd.DataFrame(
        {"x": pd.array([1, None, None, 2], dtype="Int64"), "b": [True, False, False, True]}
    )
    assert duplicate_groups(df).tolist() == [0, 1, 1, 2]
    monkeypatch.setattr(
        pd.util,
        "hash_pandas_object",
        lambda frame, index=False: pd.Series(np.zeros(len(frame), dtype=np.uint64)),
    )
    rows = np.array([[1, 2], [3, 4], [1, 2], [3, 4], [5, 6]], float)
    assert duplicate_groups(rows).tolist() == [0, 1, 0, 1, 2]
