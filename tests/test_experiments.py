"""Tests of slb.experiments: the paper's experiments as library functions and a command line.

The two accuracy tests run the default SLB on the paper's synthetic designs and take most of
this file's time (about 30 s on one free core); everything else uses fast classifiers.
"""

import io

import numpy as np
import pandas as pd
import pytest

from slb.experiments import (
    PAPER_TABLE1,
    PAPER_TABLE2,
    PAPER_TABLE3,
    PAPER_TABLE4,
    Design,
    TerminalProgress,
    learning_curve_figure,
    load_csv,
    main,
    noise_figure,
    paper_synthetic,
    run_label_noise,
    run_real,
    run_synthetic,
)
from slb.experiments import common as ex

FAST = ("NB", "SVM(RBF)", "5NN")


def _no_time(frame):
    return frame.drop(columns=[c for c in frame.columns if c == "seconds"])


# ----------------------------------------------------------------------------------------------
# agreement with the paper (synthetic designs)
# ----------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_forest_normal_balanced_slb_matches_paper_at_n1000():
    # Paper, Table 1 (forest, normal CPDs, balanced, n = 1000): SLB 5.11 % and NB 20.7 %.
    # "Within 2 percentage points of 5.11 or below it" means BER <= 7.11 %.  Our forests have a
    # Bayes error of only ~0.5-0.8 % (see slb/data/synthetic.py), and SLB gets ~1.5-2 % here, far
    # below the paper's 5.11 %; a value above 7.11 % would mean SLB broke, not that our design
    # is harder.  NB cannot use the within-class dependence that separates the classes (both
    # are zero-mean): it stays near the paper's ~20 %, so SLB must beat it by a wide margin.
    res = run_synthetic(
        "forest",
        "normal",
        0.5,
        n_grid=(1000,),
        n_replicates=2,
        classifiers=("SLB", "NB"),
        random_state=0,
    )
    s = res.summary.set_index("classifier")
    assert s.loc["SLB", "mean"] <= 0.0511 + 0.02
    assert s.loc["NB", "mean"] - s.loc["SLB", "mean"] >= 0.08
    per_rep = res.long.pivot(index="replicate", columns="classifier", values="ber")
    assert (per_rep["SLB"] < per_rep["NB"]).all()
    assert s.loc["SLB", "paper_mean"] == pytest.approx(5.11)


@pytest.mark.slow
def test_bn_normal_balanced_independent_slb_beats_tan():
    # Paper, Table 2 (general BN, normal, balanced, independent structure): SLB beats TAN at
    # every n (n = 600: 5.24 % vs 12.9 %).  Our networks are far easier (Bayes error < 0.01 %,
    # see slb/data/synthetic.py), so every error is much smaller, and the ordering holds from n = 400
    # on: over the 20 replicates of docs/results.md SLB is below TAN on average at n = 400 to
    # 1000 (n = 600: 1.20 % vs 1.80 %, SLB lower in 15 of 20 replicates; n = 1000: 0.91 % vs
    # 1.68 %, Wilcoxon p = 0.002), while at n = 200 they tie (2.48 % vs 2.27 %).  Here: the
    # first 3 of those replicates (seed 0) at n = 600.
    res = run_synthetic(
        "bn",
        "normal",
        0.5,
        shared=False,
        n_grid=(600,),
        n_replicates=3,
        classifiers=("SLB", "TAN"),
        random_state=0,
    )
    s = res.summary.set_index("classifier")
    assert s.loc["SLB", "mean"] < s.loc["TAN", "mean"]
    assert s.loc["SLB", "paper_mean"] == pytest.approx(5.24)
    assert s.loc["TAN", "paper_mean"] == pytest.approx(12.9)


# ----------------------------------------------------------------------------------------------
# run_synthetic: shape, seeds, tables, figures
# ----------------------------------------------------------------------------------------------
def test_run_synthetic_shape_and_identical_for_identical_seeds():
    kw = dict(
        n_grid=(100, 150), n_replicates=2, classifiers=("NB", "5NN"), random_state=3, bayes_mc=2000
    )
    calls = []
    a = run_synthetic(
        "bn",
        "complex",
        "imbalanced",
        shared=True,
        progress=lambda d, t, m: calls.append((d, t, m)),
        **kw,
    )
    b = run_synthetic("bn", "complex", "imbalanced", shared=True, **kw)
    assert a.design.name == "bn-complex-imbalanced-shared"
    assert len(a.long) == 2 * 2 * 2
    assert list(a.long.columns) == [
        "design",
        "n",
        "replicate",
        "seed",
        "classifier",
        "ber",
        "seconds",
    ]
    pd.testing.assert_frame_equal(_no_time(a.long), _no_time(b.long))
    pd.testing.assert_frame_equal(_no_time(a.summary), _no_time(b.summary))
    pd.testing.assert_frame_equal(a.bayes, b.bayes)
    assert a.table().equals(b.table())
    # one pair of networks per replicate, whatever n (a paired learning curve)
    assert a.long.groupby("replicate")["seed"].nunique().eq(1).all()
    assert a.long["seed"].nunique() == 2
    # progress: one call per fit, ending at the total
    assert [c[0] for c in calls] == list(range(1, 9))
    assert all(c[1] == 8 for c in calls)
    # another seed, other networks
    c = run_synthetic("bn", "complex", "imbalanced", shared=True, **{**kw, "random_state": 4})
    assert set(c.long["seed"]).isdisjoint(a.long["seed"])


def test_synthetic_tables_and_figure():
    res = run_synthetic(
        "forest",
        "normal",
        "balanced",
        n_grid=(200,),
        n_replicates=2,
        classifiers=("NB", "SVM(RBF)"),
        random_state=0,
        bayes_mc=2000,
    )
    table = res.table()
    assert list(table.index) == ["200 (ours)", "200 (paper)"]
    assert list(table.columns) == ["NB", "SVM(RBF)", "Bayes"]
    assert table.loc["200 (paper)", "NB"] == "23 ± 3.75"
    assert table.loc["200 (paper)", "SVM(RBF)"] == "11.9 ± 2.36"
    md = res.to_markdown()
    assert md.startswith("| n | NB | SVM(RBF) | Bayes |")
    assert "**" in md  # the best is bold
    fig = res.figure()
    assert fig.layout.meta["kind"] == "learning_curve"
    names = [t.name for t in fig.data]
    assert names[:4] == ["NB", "NB (paper)", "SVM(RBF)", "SVM(RBF) (paper)"]
    assert names[4:] == [f"Bayes error {100 * fig.layout.meta['bayes']:.2f}%"]
    fig2 = learning_curve_figure(res.long)
    assert [t.name for t in fig2.data] == ["NB", "SVM(RBF)"]
    assert fig2.data[0].y[0] == pytest.approx(
        100 * res.long.query("classifier == 'NB'")["ber"].mean()
    )


def test_learning_curve_keeps_coinciding_curves_and_the_bayes_label_visible():
    """H37: when SLB's selection chose TAN its line was drawn exactly under TAN's (same colour
    width and markers style: invisible though in the legend), and "Bayes error x%" was
    written on the data points at the line's right end."""
    rows = [
        {"n": n, "replicate": 0, "classifier": c, "ber": b}
        for n, bers in ((200, (0.05, 0.05, 0.08)), (400, (0.03, 0.03, 0.06)))
        for c, b in zip(("SLB", "TAN", "NB"), bers, strict=True)
    ]
    fig = learning_curve_figure(pd.DataFrame(rows), bayes=0.0193)
    curves = {t.legendgroup: t for t in fig.data if t.mode == "lines+markers"}
    slb, tan, nb = curves["SLB"], curves["TAN"], curves["NB"]
    assert list(slb.y) == list(tan.y)  # the same curve ...
    assert slb.marker.symbol != tan.marker.symbol  # ... drawn so both show
    assert slb.line.dash != tan.line.dash
    assert tan.marker.symbol.endswith("-open") and tan.marker.size > slb.marker.size
    assert slb.marker.size >= 10  # SLB's filled mark is no dot beside the others (H52 10b)
    assert "TAN" in slb.name and "SLB" in tan.name  # the legend says they coincide
    assert nb.name == "NB"
    assert fig.layout.meta["coincide"] == {"SLB": ["TAN"], "TAN": ["SLB"]}
    # the Bayes error is a named line in the legend, not text on the plot
    assert not [a for a in fig.layout.annotations if "Bayes" in str(a.text)]
    bayes = [t for t in fig.data if t.name == "Bayes error 1.93%"]
    assert (
        len(bayes) == 1
        and list(bayes[0].y) == pytest.approx([1.93, 1.93])
        and bayes[0].showlegend is not False
    )
    assert list(bayes[0].x) == [200, 400]
    # one training size: the line still has a length around it (H49: from 200 to 200 it was
    # not drawn, though the legend and the caption named it)
    one = learning_curve_figure(pd.DataFrame([r for r in rows if r["n"] == 200]), bayes=0.0193)
    (line,) = [t for t in one.data if t.name.startswith("Bayes error")]
    assert line.x[0] < 200 < line.x[1]
    # ... and the classifiers' markers stand side by side around n, not on one another (H49:
    # SLB's sat under TAN's), inside the Bayes line; the hover still says n = 200
    marks = [t for t in one.data if t.mode == "lines+markers"]
    xs = [t.x[0] for t in marks]
    assert len(set(xs)) == 3 and min(xs) < 200 < max(xs)
    assert sum(xs) / 3 == pytest.approx(200)
    assert line.x[0] < min(xs) and max(xs) < line.x[1]
    assert all(list(t.customdata) == [200] and "customdata" in t.hovertemplate for t in marks)
    assert list(one.layout.xaxis.tickvals) == [200]
    # with several sizes the points sit at n itself
    assert list(slb.x) == [200, 400]
    # one replicate: no error bars (H52: zero-length ones drew a dash through open markers)
    assert not any(t.error_y.visible for t in marks)
    two = pd.DataFrame(rows + [{**r, "replicate": 1, "ber": r["ber"] + 0.01} for r in rows])
    assert all(t.error_y.visible for t in learning_curve_figure(two).data)


def test_design_names_and_paper_tables():
    assert Design.from_name("forest-complex-imbalanced") == Design("forest", "complex", 0.75)
    d = Design.from_name("bn-normal-balanced")
    assert d.name == "bn-normal-balanced-independent" and not d.shared
    assert Design.from_name("bn-complex-balanced-shared").shared
    with pytest.raises(ValueError, match="forest"):
        Design.from_name("tree-normal")
    with pytest.raises(ValueError, match="general BNs"):
        Design("forest", shared=True)
    # every transcribed cell has the five training sizes
    for table in (PAPER_TABLE1, PAPER_TABLE2, PAPER_TABLE3):
        for block in table.values():
            for values in block.values():
                assert len(values) == 5
    assert len(PAPER_TABLE1) == 4 and len(PAPER_TABLE2) == 8 and len(PAPER_TABLE3) == 4
    # the numbers SPEC.md quotes (n = 1000); SLB- has the larger errors (the preprint's header)
    p = paper_synthetic("bn-normal-balanced-independent").set_index(["n", "classifier"])
    assert p.loc[(1000, "SLB"), "paper_mean"] == 3.67
    assert p.loc[(1000, "SLB-"), "paper_mean"] == 3.73
    assert p.loc[(1000, "TAN"), "paper_mean"] == 10.8
    assert p.loc[(1000, "NB"), "paper_mean"] == 24.8
    assert p.loc[(1000, "RF"), "paper_mean"] == 6.5
    assert p.loc[(1000, "SLB(Pearson)"), "table"] == 3
    f = paper_synthetic(Design("forest")).set_index(["n", "classifier"])
    assert f.loc[(1000, "TAN"), "paper_mean"] == 4.66
    assert f.loc[(1000, "RF"), "paper_mean"] == 8.23
    assert paper_synthetic(Design("forest", balance=0.6)).empty
    assert PAPER_TABLE4["wdbc"]["SVM(RBF)"] == (2.9, 2.4)


def test_classifier_names_and_errors():
    assert ex._resolve_name("svm-rbf") == "SVM(RBF)"
    assert ex._resolve_name("slb_pearson") == "SLB(Pearson)"
    assert ex._resolve_name("SLB-") == "SLB-"
    assert ex._resolve_name("slb") == "SLB"
    assert ex._resolve_name("5nn") == "5NN"
    assert ex._resolve_name("svm(linear)") == "SVM(linear)"
    with pytest.raises(ValueError, match="Unknown classifier"):
        run_real("pima", ["NB", "XGBoost"])
    with pytest.raises(ValueError, match="Unknown dataset"):
        run_real("iris", ["NB"])
    with pytest.raises(ValueError, match="reproducible"):
        run_synthetic(
            "forest", n_grid=(100,), n_replicates=1, classifiers=("NB",), random_state=None
        )
    with pytest.raises(ValueError, match=r"\[0, 0.5\)"):
        run_label_noise("pima", ["NB"], flip_probs=(0.5,))


# ----------------------------------------------------------------------------------------------
# real data
# ----------------------------------------------------------------------------------------------
def _read_outputs(folder):
    per_fold = pd.read_csv(folder / "real_per_fold.csv")
    summary = pd.read_csv(folder / "real_summary.csv")
    md = (folder / "real_table.md").read_text()
    # after the "Wall time: N s" line (a clock reading, which may differ between two runs)
    table = md.split("Wall time:")[1].split("\n", 1)[1].split("Fit + predict seconds")[0]
    return per_fold, summary, table


def test_real_command_shape_and_identical_for_identical_seeds(tmp_path, capsys):
    args = ["real", "--datasets", "pima", "--classifiers", *FAST, "--repeats", "1", "--quiet"]
    main([*args, "--out", str(tmp_path / "a")])
    main([*args, "--out", str(tmp_path / "b")])
    out = capsys.readouterr().out
    assert "pima (paper)" in out
    pf_a, s_a, t_a = _read_outputs(tmp_path / "a")
    pf_b, s_b, t_b = _read_outputs(tmp_path / "b")
    assert pf_a.shape == (5 * 3, 5)
    assert list(pf_a.columns) == ["dataset", "repeat", "fold", "classifier", "ber"]
    assert list(pf_a["classifier"][:3]) == list(FAST)
    assert s_a.shape[0] == 3 and set(s_a["classifier"]) == set(FAST)
    pd.testing.assert_frame_equal(pf_a, pf_b)
    pd.testing.assert_frame_equal(_no_time(s_a), _no_time(s_b))
    assert t_a == t_b
    # the Table-4 layout: our row, the paper's row, one column per classifier
    lines = [ln for ln in t_a.splitlines() if ln.startswith("|")]
    assert lines[0] == "| dataset | NB | SVM(RBF) | 5NN |"
    assert lines[2].startswith("| pima (ours) |")
    assert lines[3] == "| pima (paper) | 27.4 ± 4.9 | 29 ± 1.4 | 31.2 ± 2.6 |"
    # summary numbers match the per-fold table
    m = pf_a.groupby("classifier")["ber"].mean()
    assert s_a.set_index("classifier")["mean"].to_dict() == pytest.approx(m.to_dict())
    # one best classifier, tied with itself
    assert s_a["best"].sum() == 1
    assert s_a.loc[s_a["best"], "tied_with_best"].all()


def test_run_real_frames_repeats_and_bold(two_class_frame):
    X, y = two_class_frame
    res = run_real([("toy", X, y)], ["NB", "5NN"], n_splits=4, n_repeats=2, random_state=0)
    assert res.per_fold.shape == (2 * 4 * 2, 5)
    assert sorted(res.per_fold["repeat"].unique()) == [0, 1]
    assert sorted(res.per_fold["fold"].unique()) == [0, 1, 2, 3]
    assert res.summary["paper_mean"].isna().all()
    table = res.table()
    assert list(table.index) == ["toy (ours)"]  # no paper row for an unknown dataset
    best = res.summary.loc[res.summary["best"], "classifier"].item()
    assert table.loc["toy (ours)", best].startswith("**")
    assert res.settings["datasets"]["toy"]["rows"] == len(y)


def test_load_csv_multiclass_with_positive(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(60, 3)), columns=["a", "b", "c"])
    frame["kind"] = np.repeat(["x", "y", "z"], 20)
    frame["note"] = "text"
    path = tmp_path / "three.csv"
    frame.to_csv(path, index=False)
    X, y, notes = load_csv(path, "kind", positive="y")
    assert list(X.columns) == ["a", "b", "c"]
    assert set(y) == {"y", "not y"}
    assert any("note" in n for n in notes)
    res = run_real([("three", X, y)], ["NB"], n_splits=3)
    assert res.per_fold.shape == (3, 5)
    with pytest.raises(ValueError):
        load_csv(path, "kind")  # three classes and no positive class


# ----------------------------------------------------------------------------------------------
# label noise
# ----------------------------------------------------------------------------------------------
def test_label_noise_shape_and_identical_for_identical_seeds():
    kw = dict(flip_probs=(0.0, 0.2, 0.4), n_replicates=2, random_state=0)
    a = run_label_noise("pima", ["NB", "SVM(linear)"], **kw)
    b = run_label_noise("pima", ["NB", "SVM(linear)"], **kw)
    assert a.long.shape == (2 * 3 * 2, 8)
    assert a.summary.shape == (3 * 2, 7)
    pd.testing.assert_frame_equal(_no_time(a.long), _no_time(b.long))
    pd.testing.assert_frame_equal(a.summary, b.summary)
    # nested flips: the share flipped grows with p and is about p
    flipped = a.long.groupby("p")["flipped"].mean()
    assert flipped[0.0] == 0 and flipped[0.2] < flipped[0.4]
    assert flipped[0.2] == pytest.approx(0.2, abs=0.05)
    # p = 0 is an ordinary train/test split
    assert (a.long.query("p == 0")["accuracy"] > 0.6).all()
    table = a.table()
    assert list(table.index) == ["0", "0.2", "0.4"]
    assert list(table.columns) == ["NB", "SVM(linear)"]
    fig = noise_figure(a)
    assert fig.layout.meta["kind"] == "label_noise"
    assert list(fig.data[0].x) == [0.0, 0.2, 0.4]
    c = run_label_noise("pima", ["NB", "SVM(linear)"], **{**kw, "random_state": 1})
    assert not c.long["accuracy"].equals(a.long["accuracy"])


def test_label_noise_on_a_synthetic_design():
    res = run_label_noise(
        "forest-normal-balanced", ["NB"], flip_probs=(0.0, 0.3), n_replicates=2, n_train=200
    )
    assert res.settings["kind"] == "synthetic"
    assert res.long.shape == (4, 8)
    assert res.long["source"].eq("forest-normal-balanced").all()
    # balanced test set: accuracy = 1 - BER
    np.testing.assert_allclose(res.long["accuracy"], 1 - res.long["ber"])


def test_noise_command_writes_files(tmp_path):
    res = main(
        [
            "noise",
            "--dataset",
            "pima",
            "--classifiers",
            "NB",
            "--flip",
            "0",
            "0.3",
            "--replicates",
            "2",
            "--quiet",
            "--out",
            str(tmp_path),
        ]
    )
    assert res.long.shape == (4, 8)
    for name in (
        "noise_pima.md",
        "noise_pima_long.csv",
        "noise_pima_summary.csv",
        "noise_pima.html",
    ):
        assert (tmp_path / name).exists()


def test_synthetic_command_writes_files(tmp_path):
    [res] = main(
        [
            "synthetic",
            "--design",
            "forest",
            "--n",
            "100",
            "--replicates",
            "2",
            "--classifiers",
            "NB",
            "--bayes-mc",
            "0",
            "--quiet",
            "--out",
            str(tmp_path),
        ]
    )
    assert res.long.shape == (2, 7)
    stem = tmp_path / "synthetic_forest-normal-balanced-calibrated"  # the default variant
    assert (tmp_path / f"{stem.name}.md").exists()
    assert (tmp_path / f"{stem.name}_curve.html").exists()
    assert not (tmp_path / f"{stem.name}_bayes.csv").exists()
    with pytest.raises(SystemExit):
        main(
            [
                "synthetic",
                "--design",
                "forest",
                "--structure",
                "shared",
                "--quiet",
                "--out",
                str(tmp_path),
            ]
        )


def test_terminal_progress_lines():
    buf = io.StringIO()
    bar = TerminalProgress(stream=buf, log_interval=0)
    for k in range(1, 5):
        bar(k, 4, f"step {k}")
    assert bar.bar.n == 4 and bar.bar.total == 4
    assert "4/4" in buf.getvalue() and "step 4" in buf.getvalue()
    bar(1, 2, "next run")  # a new run starts a new bar
    assert bar.bar.n == 1 and bar.bar.total == 2
    assert "1/2" in buf.getvalue().splitlines()[-1] or "1/2" in buf.getvalue()[-200:]


def test_every_catalogued_classifier_has_its_own_colour_in_the_experiment_figures():
    """H30: SLB and DISCRETE were drawn in the same dark blue (13 colours for 14 classifiers)."""
    from slb.evaluation.registry import CLASSIFIERS
    from slb.viz.experiments import _classifier_colour

    names = [*CLASSIFIERS, "SVM(linear)"]
    colours = {n: _classifier_colour(n) for n in names}
    assert len(set(colours.values())) == len(set(names)), colours
    assert _classifier_colour("SLB") == _classifier_colour("SLB")  # fixed, figure to figure


def _cielab(colour: str) -> np.ndarray:
    """CIELAB (D65) of a "#RRGGBB" colour, from the sRGB formulas (independent of the code)."""
    c = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)]) / 255
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    t = xyz @ c / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > 0.008856, np.cbrt(t), 7.787 * t + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_the_experiment_figures_default_classifiers_are_far_apart_in_colour():
    """H41: on the label-noise figure SLB and NB were two blues (#0072B2, #56B4E9: 26 CIELAB
    units apart, the closest pair of the palette).  The defaults of both figures now differ by
    at least 40 units pairwise (a noticeable difference is about 2)."""
    from itertools import combinations

    from slb.experiments.common import DEFAULT_NOISE_CLASSIFIERS
    from slb.viz.experiments import _classifier_colour

    assert np.linalg.norm(_cielab("#0072B2") - _cielab("#56B4E9")) < 30  # the old pair fails
    for defaults in (("SLB", "TAN", "NB", "SLB-"), DEFAULT_NOISE_CLASSIFIERS):
        for a, b in combinations(defaults, 2):
            gap = np.linalg.norm(_cielab(_classifier_colour(a)) - _cielab(_classifier_colour(b)))
            assert gap >= 40, (a, b, gap)


def test_a_classifier_has_one_colour_on_every_figure():
    """H54: SLB was black on Compare's ROC curves, blue on the learning curve and the
    label-noise figure; TAN pink on one, orange on the other (blue and orange are the classes'
    colours elsewhere).  Now each catalogued classifier has one colour on the ROC curves, the
    learning curve and the label-noise figure, and none is a class colour or reads as one."""
    import pandas as pd

    from slb.evaluation.registry import CLASSIFIERS
    from slb.viz.evaluation import roc_figure
    from slb.viz.experiments import learning_curve_figure, noise_figure
    from slb.viz.style import CLASSIFIER_COLORS, COLORS, LOOKALIKES

    names = ["SLB", "TAN", "NB", "SLB-"]
    line = {"fpr": [0.0, 0.5, 1.0], "tpr": [0.0, 0.7, 1.0]}
    roc = roc_figure({n: pd.DataFrame(line) for n in names}, pd.Series(0.7, index=names))
    rows = [
        {"n": n, "replicate": r, "classifier": c, "ber": 0.1 + 0.01 * r}
        for n in (100, 200)
        for r in range(2)
        for c in names
    ]
    curve = learning_curve_figure(pd.DataFrame(rows))
    noise = pd.DataFrame(
        [
            {"p": p, "classifier": c, "accuracy": 0.9 - p, "accuracy_se": 0.01}
            for p in (0.0, 0.1)
            for c in names
        ]
    )
    drawn = {"roc": roc, "curve": curve, "noise": noise_figure(noise)}
    checked = set()
    for what, fig in drawn.items():
        for t in fig.data:
            n = str(t.name).split(" (")[0]
            if n in names and t.line.color is not None:
                assert t.line.color == CLASSIFIER_COLORS[n], (what, n, t.line.color)
                checked.add((what, n))
    assert len(checked) == 3 * len(names)
    assert set(CLASSIFIER_COLORS) >= set(CLASSIFIERS)
    classes = {COLORS["+"], COLORS["-"], COLORS["both"], "#56B4E9", "#E69F00"}
    for c in list(classes):  # and what the project's own table says reads as them (H55)
        classes |= set(LOOKALIKES.get(c, ()))
    assert not classes & set(CLASSIFIER_COLORS.values())
    assert len(set(CLASSIFIER_COLORS.values())) == len(CLASSIFIER_COLORS)
    # K classes, every classifier chosen (and the nested SLB): one colour per line, none a
    # class's or its look-alike (H55: three black lines at K = 4)
    from slb.viz.multiclass import class_color
    from slb.viz.style import classifier_colors

    many = [n for n, i in CLASSIFIERS.items() if i.binary_only is None] + ["SLB (nested λ, C)"]
    for k in (3, 4, 8):
        avoid = {class_color(j) for j in range(k)}
        for c in list(avoid):
            avoid |= set(LOOKALIKES.get(c, ()))
        got = classifier_colors(many, [class_color(j) for j in range(k)])
        assert len(set(got.values())) == len(many), (k, got)
        assert not {c.upper() for c in avoid} & {c.upper() for c in got.values()}, (k, got)


def test_the_recovery_graph_uses_no_class_colour():
    """H54: "kept, not an edge" was the − class's orange and "kept, true edge" the purple that
    means "both classes" on the Dependencies page."""
    import numpy as np

    from slb.viz import figures
    from slb.viz.style import COLORS

    pos = np.random.default_rng(0).random((4, 2))
    rec = figures.recovery_graph(list("abcd"), [(1, 0), (0, 3)], [(0, 1), (2, 1)], pos)
    lines = {t.name.split(" (")[0]: t.line.color for t in rec.data if t.mode == "lines"}
    assert set(lines) == {"kept, true edge", "kept, not an edge", "missed true edge"}
    classes = {COLORS["+"], COLORS["-"], COLORS["both"], "#56B4E9", "#E69F00"}
    assert not classes & set(lines.values()) and len(set(lines.values())) == 3
