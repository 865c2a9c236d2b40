"""The general-BN (Tables 2-3) calibration: reproducible, and blind to SLB, SLB-, SLB(Pearson),
TAN and LU, like the forests' (tests/test_design_calibration.py)."""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pandas as pd
import pytest

from slb.experiments import paper_synthetic
from slb.experiments.calibration import (
    CALIBRATION_CLASSIFIERS,
    HELD_OUT_CLASSIFIERS,
    calibrate_design,
    calibration_targets,
)
from slb.experiments.designs import CALIBRATED_FILE, Design, calibrated_parameters

BN_CELLS = ("bn-normal-balanced-independent", "bn-complex-balanced-independent")


def _poisoned(paper: pd.DataFrame, value) -> pd.DataFrame:
    out = paper.copy()
    held = out["classifier"].isin(HELD_OUT_CLASSIFIERS)
    out.loc[held, ["paper_mean", "paper_sd"]] = value
    return out


def test_bn_tables_hold_the_classifiers_under_test():
    # the poisoning below must hit real columns: Table 2's SLB, SLB-, TAN, LU and Table 3's
    # SLB(Pearson) are all in the paper's table of these cells
    for cell in BN_CELLS:
        paper = paper_synthetic(cell)
        assert {"SLB", "SLB-", "SLB(Pearson)", "TAN", "LU"} <= set(paper["classifier"])
        t = calibration_targets(paper, 600)
        assert list(t.index) == list(CALIBRATION_CLASSIFIERS)
    t = calibration_targets(paper_synthetic(BN_CELLS[0]), 600)
    assert t.loc["NB", "paper_mean"] == 26.7 and t.loc["RF", "paper_sd"] == 2.17  # Table 2


@pytest.mark.slow
@pytest.mark.parametrize("cell", BN_CELLS)
def test_bn_calibration_is_reproducible_and_blind_to_held_out_columns(cell):
    grid = {"coef": [0.45, 0.55, 0.7]}
    kw = dict(n=200, n_replicates=2, random_state=3, classifiers=["NB", "5NN"])
    paper = paper_synthetic(cell)
    first = calibrate_design(cell, grid, paper=paper, **kw)
    again = calibrate_design(cell, grid, paper=paper, **kw)
    assert first.parameters == again.parameters and first.loss == again.loss
    pd.testing.assert_frame_equal(first.grid, again.grid)
    assert first.grid["loss"].nunique() == 3 and first.loss == first.grid["loss"].min()
    spec = Design.from_name(cell)
    assert first.design == Design(
        "bn", spec.cpd, coef=first.parameters["coef"], variant="calibrated"
    )
    for value in (np.nan, -1e9):
        blind = calibrate_design(cell, grid, paper=_poisoned(paper, value), **kw)
        pd.testing.assert_frame_equal(first.grid, blind.grid)
        assert blind.parameters == first.parameters
    moved = paper.copy()
    moved.loc[moved["classifier"].eq("5NN"), "paper_mean"] += 5.0
    other = calibrate_design(cell, grid, paper=moved, **kw)
    assert not np.allclose(other.grid["loss"], first.grid["loss"])


def test_committed_calibrations_used_only_the_calibration_classifiers():
    path = resources.files("slb.experiments").joinpath(CALIBRATED_FILE)
    entries = json.loads(path.read_text(encoding="utf-8"))
    assert {"forest-normal", "forest-complex", "bn-normal", "bn-complex"} <= set(entries)
    for key, entry in entries.items():
        assert entry["classifiers"] == list(CALIBRATION_CLASSIFIERS), key
        assert set(entry["fitted_ber"]) == set(entry["paper_ber"]) == set(CALIBRATION_CLASSIFIERS)
        # the targets recorded are the paper's values of the calibration classifiers at n
        paper = paper_synthetic(entry["calibrated_on"])
        t = calibration_targets(paper, entry["n"])
        assert entry["paper_ber"] == {c: float(t.loc[c, "paper_mean"]) for c in t.index}
        # the fitted value is a grid point, and the design reads it back
        family, cpd = key.split("-")
        for name, values in entry["grid"].items():
            assert entry["parameters"][name] in values
        assert calibrated_parameters(family, cpd)["coef"] == entry["parameters"]["coef"]
