"""benchmarks/synthetic_chunks.py: slices of replicates and training sizes, run apart, combine
into exactly the table of one ``run_synthetic`` call (the command's code path)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pandas as pd
import pytest

from slb.experiments import Design, run_synthetic

DESIGN = "bn-normal-balanced-independent-calibrated"


def _chunks():
    bench = str(Path(__file__).resolve().parents[1] / "benchmarks")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    return importlib.import_module("synthetic_chunks")


def test_slices_combine_into_the_single_run(tmp_path):
    mod = _chunks()
    common = ["--classifiers", "NB", "5NN", "--chunks", str(tmp_path), "--seed", "2"]
    # replicates 0-1 at both sizes in two slices, replicate 2 in one slice
    mc = ["--bayes-mc", "2000"]
    mod.main(["run", DESIGN, "--first", "0", "--last", "1", "--n", "40", *mc, *common])
    mod.main(
        ["run", DESIGN, "--first", "0", "--last", "1", "--n", "80", "--bayes-mc", "0", *common]
    )
    mod.main(["run", DESIGN, "--first", "2", "--last", "2", "--n", "40", "80", *mc, *common])
    spec = Design.from_name(DESIGN)
    long, bayes = mod.combine(spec, ["NB", "5NN"], tmp_path)
    ref = run_synthetic(
        spec,
        n_grid=(40, 80),
        n_replicates=3,
        classifiers=["NB", "5NN"],
        random_state=2,
        bayes_mc=2000,
    )
    cols = ["design", "n", "replicate", "seed", "classifier", "ber"]
    pd.testing.assert_frame_equal(long[cols], ref.long[cols])
    pd.testing.assert_frame_equal(bayes, ref.bayes, check_dtype=False)
    # the summary file holds the table and ours - paper
    mod.main(["summarise", DESIGN, *common, "--out", str(tmp_path / "out")])
    text = (tmp_path / "out" / f"chunks_{spec.name}.md").read_text(encoding="utf-8")
    assert "3 replicates (seed 2)" in text and "Ours − paper" in text


def test_uneven_slices_are_refused(tmp_path):
    mod = _chunks()
    common = ["--classifiers", "NB", "--chunks", str(tmp_path), "--bayes-mc", "0"]
    mod.main(["run", DESIGN, "--first", "0", "--last", "1", "--n", "40", *common])
    mod.main(["run", DESIGN, "--first", "0", "--last", "0", "--n", "80", *common])
    with pytest.raises(SystemExit, match="uneven"):
        mod.combine(Design.from_name(DESIGN), ["NB"], tmp_path)
