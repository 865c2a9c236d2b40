"""The experiments' command line: ``python -m slb.experiments real|synthetic|noise``."""

from __future__ import annotations

import argparse
import re
import shlex
import sys
import time
from pathlib import Path

from ..data.bundled import BUNDLED_DATASETS, PAPER_DATASETS
from .common import (
    DEFAULT_NOISE_CLASSIFIERS,
    DEFAULT_REAL_CLASSIFIERS,
    DEFAULT_SYNTHETIC_CLASSIFIERS,
    FLIP_PROBS,
    TerminalProgress,
    _check_classifiers,
    _resolve_name,
    classifier_names,
    markdown_table,
)
from .designs import VARIANTS, Design
from .noise import run_label_noise
from .paper import N_GRID
from .real import load_csv, run_real
from .synthetic import run_synthetic


def _write(path: Path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _slug(text) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", str(text)).strip("_") or "data"


def _command_line(argv) -> str:
    return "python -m slb.experiments " + " ".join(shlex.quote(a) for a in argv)


def _report_header(title, argv, seconds) -> str:
    return f"# {title}\n\nCommand: `{_command_line(argv)}`  \nWall time: {seconds:.0f} s\n\n"


def _save_figure(fig, path: Path, embed: bool):
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.write_html(str(path), include_plotlyjs=True if embed else "cdn", full_html=True)
    return path


def _cmd_real(args, argv, progress, out: Path):
    datasets = []
    if args.csv:
        if not args.label:
            raise SystemExit("--csv needs --label (the name of the label column)")
        for path in args.csv:
            X, y, notes = load_csv(
                path, args.label, args.positive, n_splits=args.folds, random_state=args.seed
            )
            for note in notes:
                print(f"[{Path(path).name}] {note}", file=sys.stderr)
            datasets.append((Path(path).stem, X, y))
    names = (
        args.datasets if args.datasets is not None else ([] if args.csv else list(PAPER_DATASETS))
    )
    datasets = list(names) + datasets
    t0 = time.perf_counter()
    res = run_real(
        datasets,
        args.classifiers,
        n_splits=args.folds,
        n_repeats=args.repeats,
        random_state=args.seed,
        progress=progress,
        test=args.test,
    )
    seconds = time.perf_counter() - t0
    md = res.to_markdown(paper=not args.no_paper)
    secs = res.summary.pivot(index="dataset", columns="classifier", values="seconds")
    secs = secs.reindex(
        index=list(dict.fromkeys(res.summary["dataset"])), columns=res.settings["classifiers"]
    ).map(lambda v: f"{v:.1f}")
    timing = "Fit + predict seconds, all folds:\n\n" + markdown_table(secs) + "\n"
    print(md)
    print(timing)
    res.per_fold.to_csv(out / "real_per_fold.csv", index=False)
    res.summary.to_csv(out / "real_summary.csv", index=False)
    _write(
        out / "real_table.md",
        _report_header("Real data: Table-4-style comparison", argv, seconds) + md + "\n" + timing,
    )
    print(
        f"wrote {out / 'real_table.md'}, real_summary.csv, real_per_fold.csv ({seconds:.0f} s)",
        file=sys.stderr,
    )
    return res


def _cmd_synthetic(args, argv, progress, out: Path):
    if args.design == "forest" and "shared" in args.structure:
        raise SystemExit("--structure shared exists for --design bn only")
    cells = [
        Design(args.design, cpd, bal, st == "shared", args.d, args.n_test).with_variant(
            args.variant
        )
        for cpd in args.cpd
        for bal in args.balance
        for st in (args.structure if args.design == "bn" else ["independent"])
    ]
    results = []
    for k, spec in enumerate(cells):
        if len(cells) > 1:
            print(f"== {spec.name} ({k + 1}/{len(cells)})", file=sys.stderr)
        t0 = time.perf_counter()
        res = run_synthetic(
            spec,
            n_grid=args.n,
            n_replicates=args.replicates,
            classifiers=args.classifiers,
            random_state=args.seed,
            progress=progress,
            bayes_mc=args.bayes_mc,
        )
        seconds = time.perf_counter() - t0
        md = res.to_markdown(paper=not args.no_paper)
        secs = res.summary.pivot(index="n", columns="classifier", values="seconds")
        secs = secs[res.settings["classifiers"]].map(lambda v: f"{v:.2f}")
        timing = "Mean fit + predict seconds per training set:\n\n" + markdown_table(secs) + "\n"
        print(md)
        print(timing)
        stem = f"synthetic_{spec.name}"
        res.long.to_csv(out / f"{stem}_long.csv", index=False)
        res.summary.to_csv(out / f"{stem}_summary.csv", index=False)
        if len(res.bayes):
            res.bayes.to_csv(out / f"{stem}_bayes.csv", index=False)
        _write(
            out / f"{stem}.md",
            _report_header(f"Synthetic design {spec.name}", argv, seconds) + md + "\n" + timing,
        )
        _save_figure(
            res.figure(paper=not args.no_paper), out / f"{stem}_curve.html", args.embed_plotlyjs
        )
        print(
            f"wrote {out / stem}.md, _long.csv, _summary.csv, _curve.html ({seconds:.0f} s)",
            file=sys.stderr,
        )
        results.append(res)
    return results


def _cmd_noise(args, argv, progress, out: Path):
    given = [x for x in (args.dataset, args.csv, args.design) if x]
    if len(given) != 1:
        raise SystemExit("noise: give exactly one of --dataset, --csv or --design")
    if args.csv:
        if not args.label:
            raise SystemExit("--csv needs --label")
        X, y, notes = load_csv(args.csv, args.label, args.positive, random_state=args.seed)
        for note in notes:
            print(f"[{Path(args.csv).name}] {note}", file=sys.stderr)
        data = (Path(args.csv).stem, X, y)
    elif args.design:
        data = Design.from_name(args.design, d=args.d, n_test=args.n_test)
    else:
        data = args.dataset
    t0 = time.perf_counter()
    res = run_label_noise(
        data,
        args.classifiers,
        flip_probs=args.flip,
        n_replicates=args.replicates,
        random_state=args.seed,
        progress=progress,
        test_size=args.test_size,
        n_train=args.n_train,
    )
    seconds = time.perf_counter() - t0
    md = res.to_markdown(args.metric)
    other = "ber" if args.metric == "accuracy" else "accuracy"
    md2 = res.to_markdown(other)
    print(md)
    stem = f"noise_{_slug(res.settings['source'])}"
    res.long.to_csv(out / f"{stem}_long.csv", index=False)
    res.summary.to_csv(out / f"{stem}_summary.csv", index=False)
    _write(
        out / f"{stem}.md",
        _report_header(f"Label noise: {res.settings['source']}", argv, seconds) + md + "\n" + md2,
    )
    _save_figure(res.figure(args.metric), out / f"{stem}.html", args.embed_plotlyjs)
    print(
        f"wrote {out / stem}.md, _long.csv, _summary.csv, .html ({seconds:.0f} s)", file=sys.stderr
    )
    return res


def _add_common(p, default_classifiers):
    """Options every experiment takes: classifiers, seed, output folder, quiet."""
    p.add_argument(
        "--classifiers",
        nargs="+",
        default=list(default_classifiers),
        metavar="NAME",
        help=f"any of: {', '.join(classifier_names())} (default: {' '.join(default_classifiers)})",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--out",
        type=Path,
        default=Path("experiment-output"),
        help="output folder (default experiment-output/)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _add_real(sub):
    """The ``real`` command: Table 4 on bundled datasets or tables."""
    p = sub.add_parser(
        "real", help="stratified K-fold CV on bundled datasets or a CSV (the paper's Table 4)"
    )
    p.add_argument(
        "--datasets",
        nargs="+",
        choices=list(BUNDLED_DATASETS),
        default=None,
        help="bundled datasets (default: the paper's four, unless --csv is given)",
    )
    p.add_argument(
        "--csv",
        action="append",
        type=Path,
        metavar="PATH",
        help="a table file (CSV, TSV, Excel, Parquet); repeatable",
    )
    p.add_argument("--label", help="label column of --csv")
    p.add_argument("--positive", help="positive class of --csv (the others are merged)")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--repeats", type=int, default=1, help="repeats of the K-fold CV")
    p.add_argument(
        "--test",
        choices=["corrected_t", "wilcoxon"],
        default="corrected_t",
        help="significance against the best: Nadeau-Bengio corrected resampled t-test, Holm "
        "(default), or the paper's Wilcoxon signed-rank test, Bonferroni",
    )
    p.add_argument("--no-paper", action="store_true", help="leave out the paper's values")
    _add_common(p, DEFAULT_REAL_CLASSIFIERS)


def _add_synthetic(sub):
    """The ``synthetic`` command: the paper's factorial designs."""
    p = sub.add_parser(
        "synthetic", help="the paper's synthetic factorial designs (Tables 1-3, learning curves)"
    )
    p.add_argument("--design", choices=["forest", "bn"], default="forest")
    p.add_argument("--cpd", nargs="+", choices=["normal", "complex"], default=["normal"])
    p.add_argument(
        "--balance",
        nargs="+",
        default=["balanced"],
        help="balanced, imbalanced (75/25) or a share of positives",
    )
    p.add_argument(
        "--structure",
        nargs="+",
        choices=["independent", "shared"],
        default=["independent"],
        help="--design bn only",
    )
    p.add_argument("--n", nargs="+", type=int, default=list(N_GRID), help="training sizes")
    p.add_argument(
        "--variant",
        choices=list(VARIANTS),
        default="calibrated",
        help="the paper's unstated design choices: 'calibrated' (default; fitted to its Tables "
        "1-2 with NB, RF, SVM(RBF) and 5NN only, benchmarks/calibrate_designs.py) or "
        "'uncalibrated' (our first reading of its text)",
    )
    p.add_argument("--replicates", type=int, default=10, help="(the paper: 100)")
    p.add_argument(
        "--bayes-mc",
        type=int,
        default=100_000,
        help="Monte Carlo rows for the Bayes error (0: skip)",
    )
    p.add_argument("--d", type=int, default=20, help=argparse.SUPPRESS)
    p.add_argument("--n-test", type=int, default=1000, help=argparse.SUPPRESS)
    p.add_argument("--no-paper", action="store_true", help="leave out the paper's values")
    p.add_argument(
        "--embed-plotlyjs",
        action="store_true",
        help="self-contained HTML figures (default: load plotly.js from its CDN)",
    )
    _add_common(p, DEFAULT_SYNTHETIC_CLASSIFIERS)


def _add_noise(sub):
    """The ``noise`` command: the label-noise experiment."""
    p = sub.add_parser("noise", help="label-noise robustness (the DISCRETE paper's Figure 1)")
    p.add_argument("--dataset", choices=list(BUNDLED_DATASETS))
    p.add_argument("--csv", type=Path, metavar="PATH")
    p.add_argument("--label")
    p.add_argument("--positive")
    p.add_argument(
        "--design",
        help="a synthetic design, e.g. forest-normal-balanced, bn-complex-balanced-shared",
    )
    p.add_argument(
        "--flip",
        nargs="+",
        type=float,
        default=list(FLIP_PROBS),
        help="label-flip probabilities (default 0 0.1 0.2 0.3 0.4)",
    )
    p.add_argument("--replicates", type=int, default=5)
    p.add_argument("--test-size", type=float, default=0.3, help="real data: held-out share")
    p.add_argument("--n-train", type=int, default=1000, help="synthetic: training rows")
    p.add_argument("--d", type=int, default=20, help=argparse.SUPPRESS)
    p.add_argument("--n-test", type=int, default=1000, help=argparse.SUPPRESS)
    p.add_argument("--metric", choices=["accuracy", "ber"], default="accuracy")
    p.add_argument(
        "--embed-plotlyjs",
        action="store_true",
        help="self-contained HTML figure (default: load plotly.js from its CDN)",
    )
    _add_common(p, DEFAULT_NOISE_CLASSIFIERS)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m slb.experiments",
        description="The SLB paper's experiments (real data, synthetic designs) and the "
        "DISCRETE paper's label-noise experiment. Results are identical for identical seeds.",
    )
    sub = ap.add_subparsers(dest="command", required=True)
    _add_real(sub)
    _add_synthetic(sub)
    _add_noise(sub)
    return ap


def main(argv=None):
    """Entry point of ``python -m slb.experiments``; returns the result object(s).

    Parameters
    ----------
    argv : list of str or None
        Arguments without the program name (default ``sys.argv[1:]``).

    Examples
    --------
    >>> try:
    ...     main(["real", "--classifiers", "XYZ"])
    ... except SystemExit as exc:
    ...     print(exc)
    Unknown classifier(s) 'XYZ'; choose from SLB, ...
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    args.classifiers = [_resolve_name(c) for c in args.classifiers]
    try:
        _check_classifiers(args.classifiers)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    progress = None if args.quiet else TerminalProgress()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    commands = {"real": _cmd_real, "synthetic": _cmd_synthetic, "noise": _cmd_noise}
    try:
        return commands[args.command](args, argv, progress, out)
    except ValueError as exc:  # plain-language errors from the library
        raise SystemExit(f"error: {exc}") from None
    except ModuleNotFoundError as exc:  # the figures need plotly, of the [app] extra
        if (exc.name or "").partition(".")[0] != "plotly":
            raise
        raise SystemExit(
            f"error: the tables and CSV files are in {out}/, but the figures need plotly: "
            "pip install 'slb-explorer[app]' (or pip install plotly)"
        ) from None
