"""benchmarks/selection_protocol.py: the ``--settings`` option and the pooled ``--analyse``
used by Protocol 3's confirmation at the ends of the range (docs/defaults.md)."""

import importlib
import itertools
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest


def _protocol():
    bench = str(Path(__file__).resolve().parents[1] / "benchmarks")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    return importlib.import_module("selection_protocol")


def _runs(protocol, settings, seeds, families, rng, shift=0.0):
    """Raw-run rows of the script's CSV shape, every candidate and reference present."""
    rows = []
    for (n, d), seed, fam in ((s, seed, f) for s in settings for seed in seeds for f in families):
        for cand in list(protocol.CANDIDATES) + list(protocol.REFERENCES):
            rows.append(
                {
                    "design": fam,
                    "n": n,
                    "d": d,
                    "seed": seed,
                    "loss": "squared_hinge",
                    "candidate": cand,
                    "ber": 0.2 + shift + 0.05 * rng.random(),
                    "cpu_seconds": 1.0,
                    "selected_model": "slb" if cand in protocol.CANDIDATES else cand,
                }
            )
    return pd.DataFrame(rows)


def test_settings_option_parses_and_rejects():
    protocol = _protocol()
    assert protocol._settings("2000x100, 500X100") == [(2000, 100), (500, 100)]
    for bad in ("2000", "2000x", "ax5", "5x1"):
        with pytest.raises(ValueError, match="setting"):
            protocol._settings(bad)


def test_pooled_analysis_weights_settings_equally_and_keeps_complete_datasets(tmp_path):
    protocol = _protocol()
    rng = np.random.default_rng(0)
    fams = [f"fam{i}" for i in range(9)]
    old = _runs(protocol, [(100, 5), (300, 20)], [0, 1], fams, rng)
    new = _runs(protocol, [(2000, 100)], [0], fams, rng, shift=0.1)
    # an unfinished dataset of the new run (TAN missing) is dropped from the analysis
    extra = _runs(protocol, [(500, 100)], [0], fams[:1], rng)
    new = pd.concat([new, extra[extra.candidate != "TAN"]], ignore_index=True)
    p_old, p_new = tmp_path / "old.csv", tmp_path / "new.csv"
    old.to_csv(p_old, index=False)
    new.to_csv(p_new, index=False)

    df, complete = protocol.load_runs([p_old, p_new])
    assert complete == 9 * 4 + 9
    assert (500, 100) not in set(zip(df.n, df.d, strict=True))
    unit = protocol.family_means(df)
    # independent reference: per family, mean over seeds within a setting, then over settings
    both = pd.concat([old, new[new.n == 2000]])
    for fam in fams:
        for cand in ("min", "TAN"):
            sub = both[(both.design == fam) & (both.candidate == cand)]
            per_setting = [g.ber.mean() for _, g in sub.groupby(["n", "d"])]
            assert unit.loc[fam, cand] == pytest.approx(100 * np.mean(per_setting))
            # not the plain mean over datasets (the new setting has one seed, the old two)
            assert unit.loc[fam, cand] != pytest.approx(100 * sub.ber.mean())
    assert protocol.analyse([str(p_old), str(p_new)]) in protocol.CANDIDATES


def test_pooling_refuses_a_run_twice_or_two_losses(tmp_path):
    protocol = _protocol()
    rng = np.random.default_rng(1)
    a = _runs(protocol, [(100, 5)], [0], ["fam0"], rng)
    a.to_csv(tmp_path / "a.csv", index=False)
    with pytest.raises(ValueError, match="twice"):
        protocol.load_runs([tmp_path / "a.csv", tmp_path / "a.csv"])
    b = _runs(protocol, [(2000, 100)], [0], ["fam0"], rng).assign(loss="hinge")
    b.to_csv(tmp_path / "b.csv", index=False)
    with pytest.raises(ValueError, match="mix losses"):
        protocol.load_runs([tmp_path / "a.csv", tmp_path / "b.csv"])


def _grid_runs(protocol, fams, rng, wide_shift):
    """Raw-run rows of ``--grid-ends``'s CSV shape: both grids and both references."""
    rows = []
    for fam in fams:
        for cand in list(protocol.GRID_CANDIDATES) + list(protocol.REFERENCES):
            wide = cand == "wide grid"
            rows.append(
                {
                    "design": fam,
                    "n": 2000,
                    "d": 100,
                    "seed": 0,
                    "loss": "squared_hinge",
                    "candidate": cand,
                    "ber": 0.2 + 0.05 * rng.random() + (wide_shift if wide else 0.0),
                    "cpu_seconds": 1.0,
                    "selected_model": "slb" if cand in protocol.GRID_CANDIDATES else cand,
                    "C_": 0.001 if wide else 0.01,
                    "C_min": protocol.GRID_MIN.get(cand, np.nan),
                }
            )
    return pd.DataFrame(rows)


def test_grid_ends_rule_changes_the_grid_only_when_the_wide_one_is_significantly_better(
    tmp_path, capsys
):
    protocol = _protocol()
    fams = [f"fam{i}" for i in range(9)]
    rng = np.random.default_rng(2)
    path = tmp_path / "grid.csv"
    # better in all nine families: exact two-sided p = 2/512 < 0.05
    _grid_runs(protocol, fams, rng, wide_shift=-0.1).to_csv(path, index=False)
    assert protocol.analyse_grid_ends([str(path)]) == "wide grid"
    out = capsys.readouterr().out
    assert "p 0.0039" in out
    # every SLB fit at its grid's lower end, per candidate: 9 of 9
    ends = [line.split() for line in out.splitlines() if line.startswith("2000")]
    assert ends and all(row[-5:] == ["9", "9", "0", "0", "9"] for row in ends)
    # worse everywhere, or the same: the default grid stays
    _grid_runs(protocol, fams, rng, wide_shift=0.1).to_csv(path, index=False)
    assert protocol.analyse_grid_ends([str(path)]) == "default grid"
    _grid_runs(protocol, fams, rng, wide_shift=0.0).to_csv(path, index=False)
    assert protocol.analyse_grid_ends([str(path)]) == "default grid"


def test_grid_ends_run_equals_cold_fits_of_each_grid(tmp_path):
    """The warm refit with the wide grid equals a cold fit with ``Cs=WIDE_CS``."""
    import slb
    from slb.evaluation import balanced_error_rate

    protocol = _protocol()
    out = tmp_path / "runs.csv"
    protocol.run(
        out, [0], [(100, 5)], ("lab-values",), protocol.DEFAULT_LOSS, protocol.GRID_CANDIDATES
    )
    runs = pd.read_csv(out).set_index("candidate")
    assert set(runs.index) == {"default grid", "wide grid", "NB", "TAN"}
    Xtr, ytr, Xte, yte = protocol.design("lab-values", 100, 5, 0)
    for cand, Cs, lowest in (("default grid", None, 0.01), ("wide grid", protocol.WIDE_CS, 0.001)):
        cold = slb.SLBClassifier(Cs=Cs, random_state=0, probability=False).fit(Xtr, ytr)
        assert runs.loc[cand, "ber"] == pytest.approx(balanced_error_rate(yte, cold.predict(Xte)))
        assert runs.loc[cand, "selected_model"] == cold.selected_model_
        assert runs.loc[cand, "C_min"] == pytest.approx(lowest)
        if cold.selected_model_ == "slb":
            assert runs.loc[cand, "C_"] == pytest.approx(cold.C_)


def test_lattice_protocol_rule_step_4_keeps_floor_0_when_nb_is_significantly_worse():
    """Protocol 4's decide (benchmarks/lattice_protocol.py): SLB's lowest mean wins the tie,
    unless naive Bayes or TAN is significantly worse with it than with floor 0 (step 4)."""
    _protocol()  # puts benchmarks/ on the path
    lattice = importlib.import_module("lattice_protocol")
    names = list(lattice.CANDIDATES)
    fams = [f"f{i}" for i in range(9)]
    slb = pd.DataFrame({"floor 0": 20.2, "floor 0.5": 20.1, "floor 1": 20.0}, index=fams)
    safety = slb * 0.0  # item 7 met everywhere
    p_slb = dict.fromkeys(itertools.combinations(names, 2), 0.5)
    nb = pd.DataFrame({"floor 0": 20.0, "floor 0.5": 20.0, "floor 1": 23.0}, index=fams)
    calm = {k: 1.0 for k in p_slb}
    chosen, _ = lattice.decide(slb, safety, p_slb, {"NB": (nb, calm), "TAN": (nb, calm)})
    assert chosen == "floor 1"  # the tie-break: lowest mean
    worse = {**calm, ("floor 0", "floor 1"): 0.01}
    chosen, why = lattice.decide(slb, safety, p_slb, {"NB": (nb, worse), "TAN": (nb, calm)})
    assert chosen == "floor 0" and "NB significantly worse" in why


@pytest.mark.parametrize(
    ("csv", "mean", "p"),
    [("selection_runs_p6.csv", -0.26, 0.042)],  # docs/defaults.md, Protocol 6's result
)
def test_protocol_6_result_is_what_its_raw_runs_give(csv, mean, p, capsys):
    # The documented decision and numbers, recomputed from the committed raw runs.
    protocol = _protocol()
    path = Path(__file__).resolve().parents[1] / "docs" / "defaults" / csv
    chosen = protocol.analyse([path], protocol.CONFIRM_CANDIDATES, protocol.CONFIRM_TODAY)
    assert chosen == "corrected + generative"
    out = capsys.readouterr().out
    assert "264 complete datasets" in out
    line = next(x for x in out.splitlines() if "corrected + generative - min + generative" in x)
    assert f"mean {mean:+.2f}" in line and f"p {p:.3f}" in line
    df, n = protocol.load_runs([path], protocol.CONFIRM_CANDIDATES)
    unit = protocol.family_means(df)
    diff = unit["corrected + generative"] - unit["min + generative"]
    assert diff.mean() == pytest.approx(mean, abs=0.005)
