"""Protocol 4 (``docs/defaults.md``): a bandwidth floor for features on a lattice.

Written (with its rule, ``docs/defaults.md`` "Protocol 4") before it was run.  Candidates: the
density setting ``lattice_floor`` (every bandwidth at least this multiple of the feature's
lattice step, :func:`slb.density.bandwidth.lattice_spacing`) at 0 (today), 0.5 and 1.  For each
candidate the default ``SLBClassifier`` (its nested selection, naive Bayes and TAN among its
candidates, all with that floor) and the catalogue's KDE naive Bayes and TAN with that floor
are fitted on the same training rows and scored by BER on 2,000 independent test rows.

Designs: only families whose features lie on a lattice (on continuous values the floor changes
nothing: ``tests/test_bandwidth.py`` checks that), nine in all:

* Protocol 2's three lattice families (``benchmarks/linear_model_protocol.py``): integers
  (``integer-tied``), skewed small-integer lab values (``lab-values``) and the one-hot mix
  (binary codes beside continuous columns: only the codes are on a lattice);
* its five Bayesian-network families rounded to half a standard deviation of each training
  column (``<family> rounded``: about 8-12 values per feature, the shape of ages, scores,
  instrument readings recorded coarsely);
* ``sparse counts``: Poisson counts with small rates (most values 0-2, the shape of word or
  event counts and of pixel intensities), dependent through a shared factor, the label from an
  interaction as in ``lab-values``.

Usage::

    python benchmarks/lattice_protocol.py --seeds 2 --out docs/defaults/lattice_runs.csv
    python benchmarks/lattice_protocol.py --analyse docs/defaults/lattice_runs.csv
    # a smoke run
    python benchmarks/lattice_protocol.py --settings 100x5 --seeds 1 --first-seed 0 --out /tmp/smoke.csv

The run's seeds start at 1: seed 0 at (100, 5) and (1000, 20) was the smoke run that checked
the script, before the rule was written (not analysed, not used).
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

from linear_model_protocol import N_TEST, SETTINGS, design, paired_tests  # noqa: E402
from selection_protocol import resume, tied_pool  # noqa: E402

import slb  # noqa: E402
from slb.evaluation import balanced_error_rate  # noqa: E402
from slb.evaluation.registry import make_classifier  # noqa: E402

#: The candidates: ``lattice_floor`` values (0: today's densities).
CANDIDATES = {"floor 0": 0.0, "floor 0.5": 0.5, "floor 1": 1.0}
MODELS = ("SLB", "NB", "TAN")
#: Item 7's target: SLB at most this many points above the better of naive Bayes and TAN.
SAFETY_POINTS = 1.0
_BN = ("forest-normal-bal", "forest-complex-bal", "forest-normal-imb", "bn-normal", "bn-complex")
DESIGNS = ("integer-tied", "lab-values", "one-hot mix", *(f"{b} rounded" for b in _BN))
DESIGNS = (*DESIGNS, "sparse counts")


def lattice_design(name, n, d, seed):
    """(X_train, y_train, X_test, y_test) of one lattice family at (n, d)."""
    if name.endswith(" rounded"):
        Xtr, ytr, Xte, yte = design(name[: -len(" rounded")], n, d, seed)
        step = 0.5 * np.std(Xtr, axis=0, ddof=1)
        step = np.where(step > 0, step, 1.0)
        return np.round(Xtr / step), ytr, np.round(Xte / step), yte
    if name == "sparse counts":
        rng = np.random.default_rng(seed)
        m = n + N_TEST
        z = rng.normal(size=(m, d))
        z[:, 1:] += 0.5 * z[:, [0]]  # a shared factor: every pair dependent
        logit = 0.6 * z[:, 0] - 0.5 * z[:, 2 % d] + 0.4 * z[:, 3 % d] * z[:, 4 % d]
        y = (logit + rng.logistic(size=m) > 0).astype(int)
        X = rng.poisson(np.exp(0.7 * z - 1.0)).astype(float)
        return X[:n], y[:n], X[n:], y[n:]
    return design(name, n, d, seed)


def run(out, seeds, settings, designs):
    """Fit every candidate's SLB, NB and TAN on every dataset, appending to ``out`` (resumes)."""
    rows, done = resume(out, ["design", "n", "d", "seed", "candidate", "model"])
    for (n, d), seed, name in itertools.product(settings, seeds, designs):
        todo = [(c, m) for c in CANDIDATES for m in MODELS if (name, n, d, seed, c, m) not in done]
        if not todo:
            continue
        Xtr, ytr, Xte, yte = lattice_design(name, n, d, seed)
        for cand, model in todo:
            floor = CANDIDATES[cand]
            t = time.process_time()
            if model == "SLB":
                est = slb.SLBClassifier(random_state=seed, probability=False, lattice_floor=floor)
            else:
                est = make_classifier(model, random_state=seed).set_params(lattice_floor=floor)
            est.fit(Xtr, ytr)
            ber = balanced_error_rate(yte, est.predict(Xte))
            chosen = getattr(est, "selected_model_", model)
            rows.append(
                {
                    "design": name,
                    "n": n,
                    "d": d,
                    "seed": seed,
                    "candidate": cand,
                    "model": model,
                    "ber": ber,
                    "selected_model": chosen,
                    "cpu_seconds": time.process_time() - t,
                }
            )
            print(
                f"n={n:4d} d={d:3d} seed={seed} {name:28s} {cand:10s} {model:4s} "
                f"BER {100 * ber:5.1f} {chosen:12s} {rows[-1]['cpu_seconds']:.1f}s "
                f"load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
            pd.DataFrame(rows).to_csv(out, index=False)


def family_means(df, model):
    """Per-family mean BER (%) of ``model``, families x candidates: seeds averaged inside
    each (n, d) setting, then the settings with equal weight."""
    sub = df[df.model == model]
    per_setting = sub.groupby(["design", "n", "d", "candidate"]).ber.mean()
    return per_setting.groupby(["design", "candidate"]).mean().unstack()[list(CANDIDATES)] * 100


def decide(unit, safety, pvals, guards=None):
    """The rule of docs/defaults.md, Protocol 4, on SLB's per-family BERs (points).

    Steps 1-3 on SLB (with the fallback of Protocol 3's rule when no tied candidate meets
    item 7's target: the smallest worst-family excess); step 4: ``guards`` is {model: (its
    family means, its Holm-adjusted {(a, b): p})} for naive Bayes and TAN, and a chosen
    non-zero floor that makes either significantly worse than floor 0 leaves the default at
    0.  Returns (chosen, explanation)."""
    names = list(CANDIDATES)
    mean = unit[names].mean()
    winner, tied, safe, pool, _ = tied_pool(names, mean, safety, pvals, SAFETY_POINTS)
    if winner is not None:
        chosen, why = winner, f"{winner} is significantly better than both others"
    else:
        chosen = min(pool, key=lambda a: (round(mean[a], 10), names.index(a)))
        why = f"tied set {tied}; meeting item 7's target: {safe or 'none'}; lowest mean: {chosen}"
    today = names[0]
    for model, (m_unit, m_p) in (guards or {}).items():
        if chosen == today:
            break
        p = m_p.get((today, chosen), m_p.get((chosen, today)))
        if p < 0.05 and m_unit[chosen].mean() > m_unit[today].mean():
            return today, why + f"; step 4: {model} significantly worse with it (Holm {p:.3g})"
    if guards and chosen != today:
        why += "; step 4: " + ", ".join(
            f"{m} not significantly worse (Holm {mp.get((today, chosen), 1.0):.3g})"
            for m, (_, mp) in guards.items()
        )
    return chosen, why


def analyse(paths):
    df = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    key = ["design", "n", "d", "seed"]
    wanted = {(c, m) for c in CANDIDATES for m in MODELS}
    full = df.groupby(key).apply(
        lambda t: wanted <= set(zip(t.candidate, t.model, strict=True)), include_groups=False
    )
    df = df.set_index(key).loc[full[full].index].reset_index()
    print(
        f"{int(full.sum())} complete datasets; settings {sorted(set(zip(df.n, df.d, strict=True)))}; "
        f"seeds {sorted(int(s) for s in df.seed.unique())}\n"
    )
    units = {m: family_means(df, m) for m in MODELS}
    for m in MODELS:
        print(f"{m}: mean BER per family (%):\n{units[m].round(2).to_string()}")
        print(
            f"{m}: mean over families: " + units[m].mean().round(2).to_string().replace("\n", "; ")
        )
        print()
    pairs = list(itertools.combinations(CANDIDATES, 2))
    adj = paired_tests(units["SLB"], pairs, "points", "Holm over the three", width=10)
    guard_p = {}
    for m in ("NB", "TAN"):
        print(f"\n{m} (the same tests; rule step 4 reads floor 0 against the chosen floor):")
        guard_p[m] = dict(
            zip(pairs, paired_tests(units[m], pairs, "points", "Holm", width=10), strict=True)
        )
    better = pd.concat({c: np.minimum(units["NB"][c], units["TAN"][c]) for c in CANDIDATES}, axis=1)
    safety = units["SLB"] - better
    print("\nitem 7: SLB - better of NB and TAN at the same floor, per family (points):")
    print(safety.round(2).to_string())
    cost = df.groupby(["model", "candidate"]).cpu_seconds.median().unstack()
    print("\nmedian CPU seconds per fit:\n" + cost.round(2).to_string())
    by_n = df[df.model == "SLB"].groupby(["n", "candidate"]).ber.mean().unstack() * 100
    print("\nSLB mean BER by n (descriptive, %):\n" + by_n.round(2).to_string())
    guards = {m: (units[m], guard_p[m]) for m in ("NB", "TAN")}
    chosen, why = decide(units["SLB"], safety, dict(zip(pairs, adj, strict=True)), guards)
    print(f"\nBy the rule: {chosen} ({why}).")
    return chosen


def _settings(text):
    out = []
    for item in text.split(","):
        n, d = (int(v) for v in item.strip().lower().split("x"))
        out.append((n, d))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="lattice_runs.csv")
    p.add_argument("--seeds", type=int, default=2, help="how many seeds")
    p.add_argument("--first-seed", type=int, default=1, help="the first seed (default 1)")
    p.add_argument("--settings", default=None, help="e.g. 100x5,300x20 (default: Protocol 2's)")
    p.add_argument("--designs", default=None, help="comma-separated families (default: all 9)")
    p.add_argument("--analyse", nargs="+", default=None, metavar="CSV")
    a = p.parse_args()
    if a.analyse:
        analyse(a.analyse)
        return
    settings = SETTINGS if a.settings is None else _settings(a.settings)
    designs = DESIGNS if a.designs is None else tuple(a.designs.split(","))
    unknown = set(designs) - set(DESIGNS)
    if unknown:
        p.error(f"unknown designs {sorted(unknown)}; choose from {', '.join(DESIGNS)}")
    run(a.out, range(a.first_seed, a.first_seed + a.seeds), settings, designs)


if __name__ == "__main__":
    main()
