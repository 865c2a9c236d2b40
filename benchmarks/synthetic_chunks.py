"""Run a synthetic cell replicate by replicate, then summarise the pieces as one table.

``python -m slb.experiments synthetic`` runs replicates 0 .. R-1 of ``--seed`` in one process.
On a shared machine that can take longer than one job may; this script runs any slice of those
replicates (``--first``, ``--last``) and training sizes (``--n``) through the command's own code
path (:func:`slb.experiments.synthetic._synthetic_runs` with the seeds of
:func:`slb.experiments.common._seeds`), saving each slice as CSV.  The replicate networks depend
on the seed only and the seeds of ``--replicates R`` are the first R of any longer list, so the
slices of one cell combine into exactly the table the single command would give, and more
replicates can be added later without re-running the first ones.

    nice -n 15 python benchmarks/synthetic_chunks.py run bn-normal-balanced-independent-calibrated \\
        --first 0 --last 4 --n 200 1000 --classifiers SLB TAN NB
    python benchmarks/synthetic_chunks.py summarise bn-normal-balanced-independent-calibrated \\
        --classifiers SLB TAN NB --out docs/results

``summarise`` writes ``<out>/chunks_<design>.md``: the table (ours beside the paper, Wilcoxon
bold as in the command), the Bayes error, and ours − paper per cell
(:func:`slb.experiments.calibration.compare_with_paper`).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from slb.experiments.calibration import compare_with_paper  # noqa: E402
from slb.experiments.common import _check_classifiers, _seeds, markdown_table  # noqa: E402
from slb.experiments.designs import Design  # noqa: E402
from slb.experiments.synthetic import (  # noqa: E402
    SyntheticResults,
    _synthetic_runs,
    _synthetic_summary,
)

CHUNKS = ROOT / "experiment-output" / "chunks"


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def run(args) -> None:
    spec = Design.from_name(args.design)
    names = _check_classifiers(args.classifiers)
    seeds = _seeds(args.seed, args.last + 1)
    t0 = time.perf_counter()
    long, bayes = _synthetic_runs(
        spec, names, list(args.n), seeds[args.first :], args.bayes_mc, None, None
    )
    # _synthetic_runs numbers the replicates from 0 within the slice: shift to the global index
    long["replicate"] += args.first
    bayes = pd.DataFrame(bayes, columns=["replicate", "seed", "bayes_error"])
    bayes["replicate"] += args.first
    tag = f"{spec.name}_r{args.first}-{args.last}_n{'-'.join(map(str, args.n))}"
    args.chunks.mkdir(parents=True, exist_ok=True)
    long.to_csv(args.chunks / f"{tag}_long.csv", index=False)
    if len(bayes):
        bayes.to_csv(args.chunks / f"{tag}_bayes.csv", index=False)
    seconds = time.perf_counter() - t0
    with open(args.chunks / "log.txt", "a", encoding="utf-8") as log:
        log.write(f"{tag}: {seconds:.0f} s, commit {_commit()}, seed {args.seed}\n")
    print(f"{tag}: {seconds:.0f} s")


def combine(spec: Design, names, chunks: Path):
    """The saved slices of one design as one ``long`` table (sorted as the command's) and
    its Bayes errors; a SystemExit when the cells hold different numbers of replicates."""
    longs = [pd.read_csv(p) for p in sorted(chunks.glob(f"{spec.name}_r*_long.csv"))]
    if not longs:
        raise SystemExit(f"no slices of {spec.name} in {chunks}")
    long = pd.concat(longs, ignore_index=True)
    long = long[long["classifier"].isin(names)].drop_duplicates(
        ["n", "replicate", "classifier"], keep="last"
    )
    counts = long.groupby(["n", "classifier"])["replicate"].nunique()
    if counts.nunique() != 1 or counts.size != long["n"].nunique() * len(names):
        raise SystemExit(f"uneven replicates per cell:\n{counts.to_string()}")
    order = {c: k for k, c in enumerate(names)}
    long = long.sort_values(
        ["replicate", "n", "classifier"],
        key=lambda col: col.map(order) if col.name == "classifier" else col,
    ).reset_index(drop=True)
    bayes_files = sorted(chunks.glob(f"{spec.name}_r*_bayes.csv"))
    bayes = (
        pd.concat([pd.read_csv(p) for p in bayes_files]).drop_duplicates("replicate")
        if bayes_files
        else pd.DataFrame(columns=["replicate", "seed", "bayes_error"])
    )
    return long, bayes.sort_values("replicate").reset_index(drop=True)


def summarise(args) -> None:
    spec = Design.from_name(args.design)
    names = _check_classifiers(args.classifiers)
    long, bayes = combine(spec, names, args.chunks)
    counts = long.groupby(["n", "classifier"])["replicate"].nunique()
    summary = _synthetic_summary(long, names, spec, 0.05)
    res = SyntheticResults(
        design=spec,
        long=long,
        summary=summary,
        bayes=bayes,
        settings={
            "design": spec.name,
            "classifiers": names,
            "n_replicates": int(counts.iloc[0]),
            "random_state": args.seed,
            "bayes_mc": args.bayes_mc,
        },
    )
    diff = compare_with_paper(summary)
    cells = diff.assign(
        text=[
            f"{d:+.2f} (z {z:+.1f}){'' if ok else ' ✗'}"
            for d, z, ok in zip(diff["diff"], diff["z"], diff["in_spread"], strict=True)
        ]
    ).pivot(index="n", columns="classifier", values="text")
    cells = cells[[c for c in names if c in cells.columns]]
    reps = int(counts.iloc[0])
    bayes_line = (
        f"Bayes error (Monte Carlo, mean ± sd over {len(bayes)} replicate networks): "
        f"{100 * bayes['bayes_error'].mean():.2f} ± {100 * bayes['bayes_error'].std():.2f} %\n\n"
        if len(bayes)
        else ""
    )
    text = (
        f"# {spec.name}: {reps} replicates (seed {args.seed}), slices run by "
        "benchmarks/synthetic_chunks.py\n\n"
        + res.to_markdown(paper=True)
        + "\n"
        + bayes_line
        + "Ours − paper, BER points (z over the standard error of the difference; ✗: outside "
        "the paper's replicate sd):\n\n"
        + markdown_table(cells)
        + "\n\nMean fit + predict seconds:\n\n"
        + markdown_table(
            summary.pivot(index="n", columns="classifier", values="seconds")[names].map(
                lambda v: f"{v:.2f}"
            )
        )
        + "\n"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"chunks_{spec.name}.md"
    path.write_text(text, encoding="utf-8")
    print(text)
    print(f"wrote {path}", file=sys.stderr)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    for name in ("run", "summarise"):
        p = sub.add_parser(name)
        p.add_argument("design", help="e.g. bn-normal-balanced-independent-calibrated")
        p.add_argument("--classifiers", nargs="+", required=True)
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--chunks", type=Path, default=CHUNKS)
        p.add_argument("--bayes-mc", type=int, default=100_000, help="Monte Carlo rows (run)")
        if name == "run":
            p.add_argument("--first", type=int, default=0, help="first replicate (0-based)")
            p.add_argument("--last", type=int, required=True, help="last replicate, included")
            p.add_argument("--n", nargs="+", type=int, default=[200, 400, 600, 800, 1000])
        else:
            p.add_argument("--out", type=Path, default=ROOT / "docs" / "results")
    args = ap.parse_args(argv)
    run(args) if args.command == "run" else summarise(args)


if __name__ == "__main__":
    main()
