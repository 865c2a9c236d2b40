"""The experiments command line's design variant: calibrated by default, uncalibrated by name."""

from __future__ import annotations

import pandas as pd
import pytest

from slb.cli import experiments
from slb.experiments import Design, main, run_synthetic
from slb.experiments.designs import VARIANTS, calibrated_parameters

# Small cells keep this fast: d = 8 variables, 100 test rows, NB only.
SMALL = ["--n", "60", "--replicates", "2", "--classifiers", "NB", "--bayes-mc", "0", "--quiet"]
SMALL += ["--d", "8", "--n-test", "100"]


def _run(tmp_path, *extra):
    [res] = main(["synthetic", *extra, *SMALL, "--out", str(tmp_path)])
    return res


def _library(design: Design):
    return run_synthetic(design, n_grid=(60,), n_replicates=2, classifiers=["NB"], random_state=0)


def test_every_design_family_has_calibrated_choices():
    # the command's default must exist for every --design / --cpd it offers
    for family in ("forest", "bn"):
        for cpd in ("normal", "complex"):
            assert calibrated_parameters(family, cpd) is not None, (family, cpd)
    assert VARIANTS == ("uncalibrated", "calibrated")


@pytest.mark.parametrize(("family", "cpd"), [("forest", "normal"), ("bn", "complex")])
def test_synthetic_command_defaults_to_the_calibrated_designs(tmp_path, family, cpd):
    res = _run(tmp_path, "--design", family, "--cpd", cpd)
    expected = Design(family, cpd, d=8, n_test=100).with_variant("calibrated")
    assert res.design == expected and res.design.variant == "calibrated"
    params = calibrated_parameters(family, cpd)
    assert res.settings["coef"] == params["coef"] != 1.0
    assert res.settings["variant"] == "calibrated"
    stem = f"synthetic_{expected.name}"
    assert stem.endswith("-calibrated") and (tmp_path / f"{stem}.md").exists()
    # the same numbers as the library on the calibrated design (the CLI adds nothing)
    ref = _library(expected)
    pd.testing.assert_frame_equal(
        res.long.drop(columns="seconds"), ref.long.drop(columns="seconds")
    )


def test_uncalibrated_variant_stays_selectable_by_name(tmp_path):
    cal = _run(tmp_path / "cal")
    unc = _run(tmp_path / "unc", "--variant", "uncalibrated")
    assert unc.design == Design("forest", "normal", d=8, n_test=100)
    assert unc.design.variant == "uncalibrated" and unc.settings["coef"] == 1.0
    assert (tmp_path / "unc" / "synthetic_forest-normal-balanced.md").exists()
    # different networks, hence different errors, from the same seed
    assert not cal.long["ber"].equals(unc.long["ber"])
    ref = _library(Design("forest", "normal", d=8, n_test=100))
    pd.testing.assert_frame_equal(
        unc.long.drop(columns="seconds"), ref.long.drop(columns="seconds")
    )


def test_unknown_variant_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        _run(tmp_path, "--variant", "tuned")
    assert stop.value.code == 2
    assert "invalid choice: 'tuned'" in capsys.readouterr().err


def test_console_script_entry_point_runs_the_calibrated_default(tmp_path):
    assert experiments(["synthetic", *SMALL, "--out", str(tmp_path)]) == 0
    assert (tmp_path / "synthetic_forest-normal-balanced-calibrated.md").exists()
