"""Issue 26 items 6-7: Protocol 3, the selection rule and SLB's own special cases as candidates.

Written (with its rule, ``docs/defaults.md`` "Protocol 3") before it was run.  Candidates, all
with lambda and C chosen by the nested inner 5-fold CV of ``SLBClassifier`` and one ``--loss``:

* ``min``: the cell of lowest mean inner BER (today's rule);
* ``one_se``: the least complex cell within one standard error of that minimum;
* ``min + generative`` and ``one_se + generative``: the same with KDE naive Bayes and TAN as two
  more nested candidates (``generative_candidates=True``).

One inner CV per dataset: one warm-started estimator is refitted with the four settings, so the
inner folds' densities, SVM grid and generative fits are computed once (each refit equals its
cold fit: ``tests/test_selection_options.py``).  The designs, settings and test size are
Protocol 2's (``benchmarks/linear_model_protocol.py``); KDE naive Bayes and TAN are fitted on the
same rows for item 7's safety table.  Units: the design families.

Usage::

    python benchmarks/selection_protocol.py --loss squared_hinge --out docs/defaults/selection_runs.csv
    python benchmarks/selection_protocol.py --analyse docs/defaults/selection_runs.csv
    # the confirmation at the ends of the range (docs/defaults.md), then all runs pooled
    python benchmarks/selection_protocol.py --loss squared_hinge --seeds 2 \\
        --settings 2000x100,2000x20,500x100,100x100,2000x5 \\
        --out docs/defaults/selection_runs_ends.csv
    python benchmarks/selection_protocol.py --analyse docs/defaults/selection_runs.csv \\
        docs/defaults/selection_runs_ends.csv
    # a smoke run: two tiny datasets
    python benchmarks/selection_protocol.py --settings 100x5 --designs lab-values,bn-normal \\
        --seeds 1 --out /tmp/smoke.csv
    # the C grid's ends at d = 100 with today's default estimator (docs/defaults.md, Protocol 2)
    python benchmarks/selection_protocol.py --grid-ends --seeds 1 \\
        --settings 2000x100,500x100,100x100 --out docs/defaults/grid_ends_d100_runs.csv
    python benchmarks/selection_protocol.py --grid-ends --analyse \\
        docs/defaults/grid_ends_d100_runs.csv

Protocol 6 (docs/defaults.md), Protocol 5's two tied rules on fresh seeds::

    python benchmarks/selection_protocol.py --protocol6 --loss squared_hinge --first-seed 3 \\
        --seeds 4 --out docs/defaults/selection_runs_p6.csv
    python benchmarks/selection_protocol.py --protocol6 --analyse \\
        docs/defaults/selection_runs_p6.csv

``--grid-ends`` swaps the four selection candidates for two C grids, everything else the
estimator's defaults: ``default grid`` (``DEFAULT_CS``, 0.01 ... 10, 7 values) and ``wide
grid`` (Protocol 2's ``WIDE_CS``, 0.001 ... 100, 11 values), fitted in that order by one
warm-started estimator per dataset (the wide grid's refit reuses the inner folds' densities
and generative fits, so its CPU is the extra grid only).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from linear_model_protocol import (  # noqa: E402, F401
    DESIGNS,
    NB_TRUE_DESIGNS,
    SETTINGS,
    WIDE_CS,
    design,
    holm,
    paired_tests,
)

import slb  # noqa: E402
from slb.evaluation import balanced_error_rate  # noqa: E402
from slb.evaluation.registry import make_classifier  # noqa: E402
from slb.model import DEFAULT_CS  # noqa: E402
from slb.model.svm import DEFAULT_LOSS  # noqa: E402

#: The four candidates, in the order the warm estimator fits them (the first fit runs the
#: inner CV; the "+ generative" ones add the naive Bayes and TAN inner fits once).
CANDIDATES = {
    "min": {"selection": "min", "generative_candidates": False},
    "one_se": {"selection": "one_se", "generative_candidates": False},
    "min + generative": {"selection": "min", "generative_candidates": True},
    "one_se + generative": {"selection": "one_se", "generative_candidates": True},
}
#: ``--protocol5`` (docs/defaults.md, Protocol 5): three rules, all with naive Bayes and TAN
#: among the candidates; the first is today's default.
RULE_CANDIDATES = {
    "min + generative": {"selection": "min", "generative_candidates": True},
    "one_se + generative": {"selection": "one_se", "generative_candidates": True},
    "corrected + generative": {"selection": "corrected", "generative_candidates": True},
}
RULE_TODAY = "min + generative"
#: ``--protocol6`` (docs/defaults.md, Protocol 6): a confirmation of Protocol 5's choice on
#: fresh seeds, the two rules it left tied; the first is today's default.
CONFIRM_CANDIDATES = {
    "corrected + generative": {"selection": "corrected", "generative_candidates": True},
    "min + generative": {"selection": "min", "generative_candidates": True},
}
CONFIRM_TODAY = "corrected + generative"
REFERENCES = ("NB", "TAN")
#: Item 7's target: at most this many points above the better of naive Bayes and TAN.
SAFETY_POINTS = 1.0
#: The last tie-break of the rule: today's estimator.
TODAY = "min"
#: ``--grid-ends``: the C grid's two candidates, everything else the estimator's defaults
#: (``Cs=None`` is ``DEFAULT_CS``).  The default grid is fitted first (a cold fit).
GRID_CANDIDATES = {
    "default grid": {"Cs": None},
    "wide grid": {"Cs": WIDE_CS},
}
GRID_MIN = {"default grid": float(np.min(DEFAULT_CS)), "wide grid": float(np.min(WIDE_CS))}


def resume(out, key):
    """The rows already in the CSV ``out`` (none if absent) and the set of their ``key``
    tuples (the columns ``key``, in order): what a resumed run skips."""
    if not os.path.exists(out):
        return [], set()
    prev = pd.read_csv(out)
    return prev.to_dict("records"), set(prev[key].itertuples(index=False, name=None))


def run(out, seeds, settings, designs, loss, candidates=None):
    """Fit every candidate and reference on every dataset, appending to ``out`` (resumes).

    ``candidates``: {name: parameters set on one warm estimator per dataset}, in fitting
    order; None: Protocol 3's four."""
    candidates = CANDIDATES if candidates is None else candidates
    rows, done = resume(out, ["design", "n", "d", "seed", "candidate", "loss"])
    for (n, d), seed, name in itertools.product(settings, seeds, designs):
        cands = list(candidates) + list(REFERENCES)
        todo = [c for c in cands if (name, n, d, seed, c, loss) not in done]
        if not todo:
            continue
        Xtr, ytr, Xte, yte = design(name, n, d, seed)
        est = slb.SLBClassifier(loss=loss, warm_start=True, random_state=seed, probability=False)
        for cand in todo:
            t = time.process_time()
            if cand in candidates:
                m = est.set_params(**candidates[cand]).fit(Xtr, ytr)
                res = m.cv_results_
                extra = {
                    "selected_model": m.selected_model_,
                    "C_": m.C_,
                    "n_pairs": len(m.pairs_),
                    "inner_ber": float(res["mean_ber"][m.best_index_]),
                    "inner_min": float(np.min(res["mean_ber"])),
                    "C_min": float(np.min(DEFAULT_CS if m.Cs is None else m.Cs)),
                }
            else:
                m = make_classifier(cand, random_state=seed).fit(Xtr, ytr)
                extra = {"selected_model": cand, "C_": np.nan, "n_pairs": np.nan, "C_min": np.nan}
            ber = balanced_error_rate(yte, m.predict(Xte))
            rows.append(
                {
                    "design": name,
                    "n": n,
                    "d": d,  # the setting's nominal d (the one-hot mix has more columns)
                    "seed": seed,
                    "loss": loss,
                    "candidate": cand,
                    "ber": ber,
                    "cpu_seconds": time.process_time() - t,
                    **extra,
                }
            )
            print(
                f"n={n:4d} d={d:3d} seed={seed} {name:20s} {cand:20s} BER {100 * ber:5.1f} "
                f"{extra['selected_model']:12s} C={extra['C_']:.3g} "
                f"{rows[-1]['cpu_seconds']:.1f}s load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
            pd.DataFrame(rows).to_csv(out, index=False)


def tied_pool(names, mean, safety, pvals, safety_points):
    """The shared steps of Protocols 3 and 4's rules (``docs/defaults.md``).

    ``mean``: mean BER per candidate; ``safety``: families x candidates, the candidate minus the
    better reference (points); ``pvals``: {(a, b): Holm-adjusted p}.  Returns ``(winner, tied,
    safe, pool, worst)``: ``winner`` is the candidate significantly better than every other (or
    None); ``tied`` the lowest mean and every candidate not significantly worse than it;
    ``safe`` those of ``tied`` at most ``safety_points`` behind on every family; ``pool`` is
    ``safe``, or when empty the tied candidate with the smallest worst-family excess;
    ``worst`` the worst-family excess of each tied candidate."""

    def sig_better(a, b):  # a significantly better than b
        p = pvals.get((a, b), pvals.get((b, a)))
        return p < 0.05 and mean[a] < mean[b]

    for a in names:
        if all(sig_better(a, b) for b in names if b != a):
            return a, None, None, None, None
    best = mean.idxmin()
    tied = [a for a in names if a == best or not sig_better(best, a)]
    worst = safety[tied].max()
    safe = [a for a in tied if worst[a] <= safety_points]
    pool = safe if safe else [min(tied, key=lambda a: worst[a])]
    return None, tied, safe, pool, worst


def decide(unit, safety, pvals, candidates=None, today=TODAY):
    """The rule of docs/defaults.md, Protocol 3 (and 5, ``candidates=RULE_CANDIDATES``), on
    per-family BERs (points).

    ``unit``: families x candidates; ``safety``: the same minus the better reference;
    ``pvals``: {(a, b): Holm-adjusted p}.  Returns (chosen, explanation)."""
    candidates = CANDIDATES if candidates is None else candidates
    names = list(candidates)
    mean = unit[names].mean()
    winner, tied, safe, pool, worst = tied_pool(names, mean, safety, pvals, SAFETY_POINTS)
    if winner is not None:
        return winner, f"{winner} is significantly better than every other candidate"
    why = f"tied set {tied}; meeting item 7's target: {safe or 'none'}"
    if not safe:
        why += f"; the smallest worst-family excess: {pool[0]} ({worst[pool[0]]:+.2f})"
    cheap = [a for a in pool if not candidates[a]["generative_candidates"]] or pool
    if len(cheap) < len(pool):
        why += "; cost: without generative candidates first"
    cheap = sorted(cheap, key=lambda a: (round(mean[a], 10), a != today))
    return cheap[0], why + f"; then the lowest mean BER: {cheap[0]}"


def describe(df, n_complete: int, cost_note: str):
    """Print what was run and the mean BER per family; returns (family means, median CPU)."""
    losses = sorted(df["loss"].dropna().unique()) if "loss" in df else []
    unit = family_means(df)
    settings = sorted(set(zip(df.n, df.d, strict=True)))
    print(
        f"loss {losses}; {n_complete} complete datasets; settings (n, d) {settings}; "
        f"seeds {sorted(int(s) for s in df.seed.unique())}; units = {unit.shape[0]} families\n"
    )
    print("mean BER per design family (%):\n" + unit.round(2).to_string() + "\n")
    print("mean over families:\n" + unit.mean().sort_values().round(2).to_string() + "\n")
    cost = df.groupby("candidate").cpu_seconds.median()
    print(f"median CPU seconds per fit ({cost_note}):")
    print(cost.round(2).to_string() + "\n")
    return unit, cost


def load_runs(paths, candidates=None):
    """The raw runs of one or more CSVs, pooled, complete datasets only.

    A dataset (design, n, d, seed) is kept when all the candidates (``candidates``; None:
    Protocol 3's four) and both references finished on it.  The CSVs must not share a run (the same dataset and candidate twice) and
    must use one loss: pooling is for adding settings, never for mixing estimators.
    Returns (runs, number of complete datasets)."""
    paths = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    df = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    key = ["design", "n", "d", "seed"]
    dup = df.duplicated(key + ["candidate"])
    if dup.any():
        first = df.loc[dup, key + ["candidate"]].iloc[0].tolist()
        raise ValueError(f"{int(dup.sum())} runs appear twice in {paths}, e.g. {first}")
    losses = sorted(df["loss"].dropna().unique()) if "loss" in df else []
    if len(losses) > 1:
        raise ValueError(f"the CSVs mix losses {losses}; pool runs of one loss only")
    wanted = set(CANDIDATES if candidates is None else candidates) | set(REFERENCES)
    full = df.groupby(key).candidate.apply(lambda s: wanted <= set(s))
    df = df.set_index(key).loc[full[full].index].reset_index()
    return df, int(full.sum())


def family_means(df):
    """Per-family mean BER (%), families x candidates: the seeds are averaged inside each
    (n, d) setting first, then the settings with equal weight (on a run where every setting
    has the same seeds this is the plain mean over the family's datasets)."""
    per_setting = df.groupby(["design", "n", "d", "candidate"]).ber.mean()
    return per_setting.groupby(["design", "candidate"]).mean().unstack() * 100


def analyse(paths, candidates=None, today=TODAY):
    candidates = CANDIDATES if candidates is None else candidates
    df, n_complete = load_runs(paths, candidates)
    unit, cost = describe(df, n_complete, "the first candidate's fit holds the inner CV")
    pairs = list(itertools.combinations(candidates, 2))
    adj = paired_tests(unit, pairs, "points", f"Holm over the {len(pairs)}", width=22)
    better = unit[list(REFERENCES)].min(axis=1)
    safety = unit[list(candidates)].sub(better, axis=0)
    print("\nitem 7: candidate - better of NB and TAN, per family (points):")
    print(safety.round(2).to_string())
    print("worst family: " + "; ".join(f"{k} {v:+.2f}" for k, v in safety.max().items()))
    gen = df[df.candidate.isin(list(candidates))]
    with_gen = [c for c in candidates if candidates[c]["generative_candidates"]]
    share = (
        gen.assign(generative=gen.selected_model != "slb")
        .groupby(["design", "candidate"])
        .generative.mean()
        .unstack()[with_gen]
    )
    print(
        "\nshare of datasets where naive Bayes or TAN was selected:\n" + share.round(2).to_string()
    )
    by_nd = df.groupby(["n", "d", "candidate"]).ber.mean().unstack() * 100
    print("\nmean BER by (n, d) (descriptive, %):\n" + by_nd.round(2).to_string())
    chosen, why = decide(unit, safety, dict(zip(pairs, adj, strict=True)), candidates, today)
    print(f"\nBy the rule: {chosen} ({why}).")
    return chosen


def analyse_grid_ends(paths):
    """``--grid-ends``: the rule of docs/defaults.md, Protocol 2, "The grid's ends at d = 100".

    One two-sided Wilcoxon signed-rank test over the families, wide grid against default grid,
    at 0.05 (one comparison: no correction).  The wide grid replaces the default only if it is
    significantly better; otherwise the cheaper default grid (7 values) stays.  Returns
    ``"wide grid"`` or ``"default grid"``."""
    names = list(GRID_CANDIDATES)
    df, n_complete = load_runs(paths, GRID_CANDIDATES)
    unit, cost = describe(df, n_complete, "the wide grid is a warm refit: its extra grid only")
    (p,) = paired_tests(unit, [(names[1], names[0])], "points", "one test, no correction", 12)
    better = unit[list(REFERENCES)].min(axis=1)
    safety = unit[names].sub(better, axis=0)
    print("\nitem 7: candidate - better of NB and TAN, per family (points):")
    print(safety.round(2).to_string())
    print("worst family: " + "; ".join(f"{k} {v:+.2f}" for k, v in safety.max().items()))
    fits = df[df.candidate.isin(names)].assign(
        slb=lambda t: t.selected_model == "slb",
        lower=lambda t: (t.selected_model == "slb") & np.isclose(t.C_, t.C_min),
        # the wide grid's choices outside the default grid's range (descriptive)
        below_default=lambda t: t.C_ < GRID_MIN["default grid"] * (1 - 1e-9),
        above_default=lambda t: t.C_ > float(np.max(DEFAULT_CS)) * (1 + 1e-9),
    )
    cols = ["lower", "slb", "below_default", "above_default"]
    ends = fits.groupby(["n", "d", "candidate"])[cols].sum().astype(int)
    ends["datasets"] = fits.groupby(["n", "d", "candidate"]).size()
    print("\nC at the grid's lower end (SLB fits; the rest chose naive Bayes or TAN):")
    print(ends.to_string())
    print("by family (lower end / SLB fits, all settings):")
    fam = fits.groupby(["design", "candidate"])[["lower", "slb"]].sum().astype(int)
    print(fam.unstack().to_string())
    diff = unit[names[1]] - unit[names[0]]
    wide_better = p < 0.05 and diff.mean() < 0
    chosen = names[1] if wide_better else names[0]
    why = "significantly better" if wide_better else "not significantly better (p >= 0.05 or worse)"
    print(f"\nBy the rule: the wide grid is {why} (p {p:.4f}): {chosen}.")
    return chosen


def _settings(text):
    """``"2000x100,500x100"`` -> ``[(2000, 100), (500, 100)]``."""
    out = []
    for item in text.split(","):
        try:
            n, d = (int(v) for v in item.strip().lower().split("x"))
        except ValueError:
            raise ValueError(f"setting {item!r} is not NxD, e.g. 2000x100") from None
        if n < 10 or d < 2:
            raise ValueError(f"setting {item!r}: need n >= 10 and d >= 2")
        out.append((n, d))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="selection_runs.csv")
    p.add_argument("--loss", default="hinge", choices=("hinge", "squared_hinge"))
    p.add_argument("--seeds", type=int, default=2, help="seeds F .. F+N-1 (F: --first-seed)")
    p.add_argument("--first-seed", type=int, default=0, help="the first seed (default 0)")
    p.add_argument("--settings", default=None, help="e.g. 100x5,300x20 (default: Protocol 2's)")
    p.add_argument("--designs", default=None, help="comma-separated families (default: all 9)")
    p.add_argument(
        "--analyse",
        nargs="+",
        default=None,
        metavar="CSV",
        help="analyse these raw-run CSVs, pooled (e.g. Protocol 3's and the ends' runs)",
    )
    p.add_argument(
        "--grid-ends",
        action="store_true",
        help="candidates: the default C grid and Protocol 2's wide grid, with the estimator's "
        "defaults (docs/defaults.md, Protocol 2, the grid's ends at d = 100); --loss is ignored",
    )
    p.add_argument(
        "--protocol5",
        action="store_true",
        help="candidates: the three selection rules with naive Bayes and TAN (min, one_se, "
        "corrected); designs: Protocol 3's nine and the two naive-Bayes-true families "
        "(docs/defaults.md, Protocol 5)",
    )
    p.add_argument(
        "--protocol6",
        action="store_true",
        help="candidates: the corrected and min rules with naive Bayes and TAN; designs: "
        "Protocol 5's eleven (docs/defaults.md, Protocol 6: a confirmation on fresh seeds)",
    )
    a = p.parse_args()
    if a.analyse:
        if a.grid_ends:
            analyse_grid_ends(a.analyse)
        elif a.protocol5:
            analyse(a.analyse, RULE_CANDIDATES, RULE_TODAY)
        elif a.protocol6:
            analyse(a.analyse, CONFIRM_CANDIDATES, CONFIRM_TODAY)
        else:
            analyse(a.analyse)
        return
    try:
        settings = SETTINGS if a.settings is None else _settings(a.settings)
    except ValueError as e:
        p.error(str(e))
    known = DESIGNS + NB_TRUE_DESIGNS
    default = known if a.protocol5 or a.protocol6 else DESIGNS
    designs = default if a.designs is None else tuple(a.designs.split(","))
    unknown = set(designs) - set(known)
    if unknown:
        p.error(f"unknown designs {sorted(unknown)}; choose from {', '.join(known)}")
    seeds = range(a.first_seed, a.first_seed + a.seeds)
    if a.protocol5:
        run(a.out, seeds, settings, designs, a.loss, RULE_CANDIDATES)
    elif a.protocol6:
        run(a.out, seeds, settings, designs, a.loss, CONFIRM_CANDIDATES)
    elif a.grid_ends:
        run(a.out, seeds, settings, designs, DEFAULT_LOSS, GRID_CANDIDATES)
    else:
        run(a.out, seeds, settings, designs, a.loss)


if __name__ == "__main__":
    main()
