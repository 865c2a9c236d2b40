"""Speed benchmark of slb's fast paths against plain references, in one run on this machine.

Every speed claim is a ratio against a reference implemented plainly in this file and timed in
the same run (the machine is shared, so absolute times are noisy; each timing is the best of a
few repeats unless said otherwise).

Sections
--------
1. machine: cores, load, BLAS, numpy matmul GFLOP/s (1 thread and the default);
2. exact all-pairs HSIC vs a per-pair loop of ``(1/n^2) tr(K H L H)`` with an explicit ``H``:
   Sonar (d=60, n=208, every pair) and d=20, n=3700 (a few pairs timed, extrapolated);
3. approximate (incomplete-Cholesky) HSIC at d=20, n=20000: time, and Spearman correlation of
   its pair ranking with the exact ranking of a 3000-row subsample;
4. KDE log-density features (20 univariate + 190 pair densities of one class, n=3700) vs
   ``scipy.stats.gaussian_kde`` (a subset of pairs timed, extrapolated), with the log-density
   error where the density is above 1e-3 of its maximum, and leave-one-out against the exact one;
5. end to end, each case in a fresh subprocess (wall time and peak RSS): 5-fold CV of
   ``SLBClassifier()`` on a Ringnorm-sized (d=20, n=7400) and a Hill-valley-sized (d=100,
   n=606) synthetic set, and a threshold change on Sonar with a warm cache;
6. the linear SVM of one Ringnorm-sized fold (5920 rows, 420 columns): slb's working-set libsvm
   vs liblinear (``LinearSVC``) and libsvm on the full kernel, one fit and the threshold CV;
7. exact HSIC against a previous revision of ``slb/dependence/hsic.py`` (``--previous REV``,
   default HEAD, loaded from git into a temporary module) in the same run: CPU time of
   ``hsic_all_pairs(method="exact", n_jobs=1)`` at d=1000, n=200 and d=20, n=1600, with and
   without p-values, and the largest relative difference of the statistics.

Run from the project root::

    python benchmarks/speed.py            # everything (about 5-10 minutes on 2 busy cores)
    python benchmarks/speed.py --quick    # smaller reference samples
    python benchmarks/speed.py --only 7 --previous HEAD~1   # exact HSIC, this tree vs HEAD~1
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import scipy  # noqa: E402
import sklearn  # noqa: E402
from scipy import stats  # noqa: E402
from threadpoolctl import threadpool_info, threadpool_limits  # noqa: E402

import slb  # noqa: E402
from slb.density.bandwidth import class_bandwidths  # noqa: E402
from slb.density.kde import ClassConditionalKDE  # noqa: E402
from slb.dependence.hsic import _median_sigma2_all, hsic_all_pairs  # noqa: E402


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def timed(f, repeat=3):
    """(best, median) wall time of ``f()`` over ``repeat`` runs, and its last result."""
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), float(np.median(times)), out


def ringnorm(n, d=20, seed=0):
    """Breiman's Ringnorm: class 0 ~ N(0, 4 I), class 1 ~ N(a 1, I) with a = 2 / sqrt(d)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.normal(size=(n, d))
    X[y == 0] *= 2.0
    X[y == 1] += 2.0 / np.sqrt(d)
    return X, y


def hill_valley(n=606, d=100, seed=0):
    """Hill-valley-like rows: a noisy series of d points with one bump, up (1) or down (0)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    t = np.arange(d)
    c = rng.uniform(20, 80, size=n)[:, None]
    w = rng.uniform(5, 15, size=n)[:, None]
    amp = rng.lognormal(0, 0.5, size=n)[:, None] * np.where(y == 1, 1.0, -1.0)[:, None]
    base = rng.lognormal(3, 1, size=n)[:, None]
    bump = np.exp(-0.5 * ((t - c) / w) ** 2)
    return base * (1 + 0.3 * amp * bump) + rng.normal(size=(n, d)) * 0.05 * base, y


def forest_class_sample(n, d=20, seed=0, n_trees=None):
    """Rows of one class of a complex-CPD forest Bayesian network (t5 and mixtures)."""
    ds = slb.make_forest_bn(
        n_train=200, n_test=2, d=d, cpd="complex", n_trees=n_trees, random_state=seed
    )
    return ds.models[1].sample(n, np.random.default_rng(seed + 1))


def ref_sigma2(a):
    """Median heuristic written plainly: median of the positive squared differences / 2."""
    if a.size > 1000:
        a = a[np.linspace(0, a.size - 1, 1000).round().astype(int)]
    d2 = ((a[:, None] - a[None, :]) ** 2)[np.triu_indices(a.size, 1)]
    d2 = d2[d2 > 0]
    return float(np.median(d2)) / 2.0 if d2.size else 1.0


def ref_gram(a):
    return np.exp(-((a[:, None] - a[None, :]) ** 2) / (2.0 * ref_sigma2(a)))


def ref_hsic_pairs(X, pairs):
    """Per-pair loop of (1/n^2) tr(K H L H) with the explicit centring matrix H; the Gram
    matrices are computed once per feature (favourable to the reference)."""
    n = X.shape[0]
    H = np.eye(n) - np.ones((n, n)) / n
    grams = {i: ref_gram(X[:, i]) for i in np.unique(pairs)}
    return np.array([np.trace(grams[i] @ H @ grams[j] @ H) / n**2 for i, j in pairs])


def ref_hsic_function(a, b):
    """A plain HSIC function, as one would call it pair by pair (cf. tests/test_dependence.py):
    both Gram matrices with their median heuristic, explicit H, (1/n^2) tr(K H L H)."""
    n = a.size
    H = np.eye(n) - np.ones((n, n)) / n
    return np.trace(ref_gram(a) @ H @ ref_gram(b) @ H) / n**2


def line(text=""):
    print(text, flush=True)


# ---------------------------------------------------------------------------------------------
# 1. machine
# ---------------------------------------------------------------------------------------------
def machine():
    line("## 1. Machine")
    blas = [b for b in threadpool_info() if b.get("user_api") == "blas"]
    b = blas[0] if blas else {}
    if len(blas) > 1:
        line(
            "BLAS libraries loaded: "
            + ", ".join(f"{x.get('internal_api')} {x.get('version')}" for x in blas)
        )
    line(
        f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"scikit-learn {sklearn.__version__}; {os.cpu_count()} CPUs; load average "
        f"{' '.join(f'{v:.1f}' for v in os.getloadavg())}"
    )
    line(
        f"BLAS: {b.get('internal_api')} {b.get('version')} ({b.get('architecture')}), "
        f"{b.get('num_threads')} threads by default"
    )
    a = np.random.default_rng(0).normal(size=(2000, 2000))
    rates = {}
    for label, lim in (("1 thread", 1), ("default threads", None)):
        with threadpool_limits(lim):
            best, _, _ = timed(lambda: a @ a, 3)
        rates[label] = 2 * 2000**3 / best / 1e9
        line(f"numpy matmul 2000x2000 ({label}): {rates[label]:.1f} GFLOP/s")
    return rates


# ---------------------------------------------------------------------------------------------
# 2. exact HSIC
# ---------------------------------------------------------------------------------------------
def hsic_exact(rates, quick):
    line()
    line("## 2. Exact all-pairs HSIC vs per-pair tr(K H L H) with explicit H")
    X = slb.load_dataset("sonar", as_frame=False)[0]
    n, d = X.shape
    pairs = np.column_stack(np.triu_indices(d, 1))
    t_ref, _, ref = timed(lambda: ref_hsic_pairs(X, pairs), 1)
    t_fun, _, ref_f = timed(
        lambda: np.array([ref_hsic_function(X[:, i], X[:, j]) for i, j in pairs]), 1
    )
    best, med, res = timed(lambda: hsic_all_pairs(X, method="exact", pvalues=False), 5)
    best_p, _, _ = timed(lambda: hsic_all_pairs(X, method="exact"), 5)
    got = res.statistic[pairs[:, 0], pairs[:, 1]]
    err = max(np.max(np.abs(got - ref)), np.max(np.abs(got - ref_f)))
    line(
        f"Sonar d={d} n={n}, all {len(pairs)} pairs: slb exact {best * 1e3:.1f} ms (median "
        f"{med * 1e3:.1f}; with gamma p-values {best_p * 1e3:.1f} ms); max |diff| {err:.1e}"
    )
    line(
        f"  reference with Gram matrices cached per feature: {t_ref:.2f} s -> "
        f"{t_ref / best:.0f}x faster ({t_ref / best_p:.0f}x with p-values)"
    )
    line(
        f"  reference HSIC function called per pair (Gram matrices per call): {t_fun:.2f} s -> "
        f"{t_fun / best:.0f}x faster ({t_fun / best_p:.0f}x with p-values)"
    )
    out = {"sonar_ratio": t_ref / best, "sonar_err": err}

    X2, _ = ringnorm(3700 * 2, 20, seed=1)
    X2 = X2[1::2]  # one class: 3700 rows of N(a, I)
    X2[:, 1] += 0.5 * X2[:, 0] ** 2  # some dependence
    n2, d2 = X2.shape
    pairs2 = np.column_stack(np.triu_indices(d2, 1))
    few = pairs2[[0, 50, 120][: 1 if quick else 2]]
    t_few, _, ref2 = timed(lambda: ref_hsic_pairs(X2, few), 1)
    t_ref2 = t_few / len(few) * len(pairs2)
    best2, med2, res2 = timed(lambda: hsic_all_pairs(X2, method="exact", pvalues=False), 3)
    best2p, _, _ = timed(lambda: hsic_all_pairs(X2, method="exact"), 2)
    err2 = np.max(np.abs(res2.statistic[few[:, 0], few[:, 1]] - ref2))
    line(
        f"d={d2} n={n2}: reference timed on {len(few)} pair(s) ({t_few:.1f} s), extrapolated "
        f"to all {len(pairs2)}: {t_ref2:.0f} s; slb exact {best2:.2f} s (median {med2:.2f}) -> "
        f"{t_ref2 / best2:.0f}x faster; with gamma p-values {best2p:.2f} s "
        f"({t_ref2 / best2p:.0f}x); max |diff| on the timed pairs {err2:.1e}"
    )
    # Achieved rate: the flops of the one-product formulation F F^T (F: d x n^2) per second.
    for label, (dd, nn, tt) in (("Sonar", (d, n, best)), ("n=3700", (d2, n2, best2))):
        gf = 2 * dd**2 * nn**2 / tt / 1e9
        line(
            f"  {label}: {gf:.1f} GFLOP/s effective (2 d^2 n^2 flops of F F^T per second; the "
            f"panels do half of them, by symmetry, plus the kernel evaluations) vs numpy matmul "
            f"{rates['1 thread']:.1f} (1 thread) / {rates['default threads']:.1f} (default)"
        )
    out.update(big_ratio=t_ref2 / best2, big_err=err2)
    # Threads: the n_jobs parameter on this machine.
    for nj in (1, 2):
        b, _, _ = timed(lambda nj=nj: hsic_all_pairs(X2, method="exact", n_jobs=nj), 2)
        line(f"  n=3700 with p-values, n_jobs={nj}: {b:.2f} s")
    return out


# ---------------------------------------------------------------------------------------------
# 7. exact HSIC against a previous revision
# ---------------------------------------------------------------------------------------------
def previous_hsic(rev):
    """``slb/dependence/hsic.py`` as of git revision ``rev`` (its relative imports resolve to
    this tree's helpers)."""
    from previous_code import module_at

    return module_at(rev, "slb/dependence/hsic.py")


def cpu_best(f, repeat):
    """Best CPU time (this process) of ``f()`` over ``repeat`` runs, and its last result."""
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.process_time()
        out = f()
        best = min(best, time.process_time() - t)
    return best, out


def hsic_vs_previous(rev, quick):
    line()
    line(f"## 7. Exact HSIC: this tree vs {rev} (CPU s, best of a few, n_jobs=1)")
    old = previous_hsic(rev).hsic_all_pairs
    rng = np.random.default_rng(7)
    for d, n in ((1000, 200), (20, 1600)):
        X = rng.normal(size=(n, d))
        X[:, 1] += 0.5 * X[:, 0] ** 2  # some dependence
        for pv in (False, True):
            times, results = {"new": np.inf, "old": np.inf}, {}
            for _ in range(2 if quick else 3):  # alternate, so that load drifts hit both
                for label, f in (("new", hsic_all_pairs), ("old", old)):
                    t, results[label] = cpu_best(
                        lambda f=f, X=X, pv=pv: f(X, method="exact", pvalues=pv, n_jobs=1), 1
                    )
                    times[label] = min(times[label], t)
            out, ref = results["new"], results["old"]
            with threadpool_limits(1):  # the median heuristic, unchanged, is in both times
                t_med, _ = cpu_best(lambda X=X: _median_sigma2_all(np.ascontiguousarray(X.T)), 2)
            off = ~np.eye(d, dtype=bool)
            rel = np.max(np.abs(out.statistic[off] - ref.statistic[off]) / ref.statistic[off])
            prel = 0.0
            if pv:
                ok = off & (ref.pvalue > 1e-300)
                prel = np.max(np.abs(out.pvalue[ok] - ref.pvalue[ok]) / ref.pvalue[ok])
            line(
                f"d={d} n={n} p-values={'yes' if pv else 'no '}: new {times['new']:.2f} s, "
                f"{rev} {times['old']:.2f} s -> ratio new/old {times['new'] / times['old']:.2f} "
                f"({(times['new'] - t_med) / (times['old'] - t_med):.2f} without the "
                f"{t_med:.2f} s of the median heuristic); "
                f"max rel. diff statistic {rel:.1e}, p-values {prel:.1e}; load average "
                f"{' '.join(f'{v:.1f}' for v in os.getloadavg())}"
            )


# ---------------------------------------------------------------------------------------------
# 3. approximate HSIC
# ---------------------------------------------------------------------------------------------
def hsic_approx(quick):
    line()
    line("## 3. Approximate (incomplete Cholesky) HSIC, d=20, n=20000")
    # One tree: every pair is dependent (through its path), so the ranking is well defined.
    X = forest_class_sample(20000, 20, seed=3, n_trees=1)
    d = X.shape[1]
    pairs = np.column_stack(np.triu_indices(d, 1))
    best, med, (res, info) = timed(
        lambda: hsic_all_pairs(X, method="approx", pvalues=False, return_info=True), 3
    )
    best_p, _, _ = timed(lambda: hsic_all_pairs(X, method="approx"), 2)
    sub = np.random.default_rng(0).choice(X.shape[0], 3000, replace=False)
    t_ex, _, ex = timed(lambda: hsic_all_pairs(X[sub], method="exact", pvalues=False), 1)
    a = res.statistic[pairs[:, 0], pairs[:, 1]]
    e = ex.statistic[pairs[:, 0], pairs[:, 1]]
    rho = stats.spearmanr(a, e).statistic
    line(
        f"approximate, all 20000 rows: {best:.2f} s (median {med:.2f}); with p-values "
        f"{best_p:.2f} s; ranks per feature {info['ranks'].min()}-{info['ranks'].max()} "
        f"(sum {info['ranks'].sum()}); guaranteed max |error| {res.max_error:.1e}"
    )
    line(
        f"exact on a 3000-row subsample: {t_ex:.2f} s; Spearman rank correlation of the "
        f"{len(pairs)} pair values (approximate n=20000 vs exact n=3000): {rho:.4f}"
    )
    other = np.setdiff1d(np.arange(X.shape[0]), sub)[:3000]
    e2 = hsic_all_pairs(X[other], method="exact", pvalues=False).statistic[pairs[:, 0], pairs[:, 1]]
    line(
        f"sampling baseline: exact on two disjoint 3000-row subsamples, Spearman "
        f"{stats.spearmanr(e2, e).statistic:.4f}"
    )
    ap3 = hsic_all_pairs(X[sub], method="approx", pvalues=False)
    a3 = ap3.statistic[pairs[:, 0], pairs[:, 1]]
    line(
        f"same 3000 rows, approximate vs exact: Spearman {stats.spearmanr(a3, e).statistic:.6f}, "
        f"max |error| {np.max(np.abs(a3 - e)):.1e} (bound {ap3.max_error:.1e})"
    )
    return {"approx_time": best, "spearman": rho}


# ---------------------------------------------------------------------------------------------
# 4. KDE features
# ---------------------------------------------------------------------------------------------
def scipy_kde_2d(x2, h):
    """gaussian_kde with the diagonal bandwidth diag(h^2) (its covariance replaced)."""
    k = stats.gaussian_kde(x2.T)
    h = np.asarray(h, float)
    k.covariance = np.diag(h**2)
    k.cho_cov = np.diag(h)  # what evaluate/logpdf use (scipy 1.17: with log_det below)
    k.log_det = 2.0 * np.log(h * np.sqrt(2.0 * np.pi)).sum()
    return k


def log_err(a, b, tau=1e-3):
    """max |log a - log b| where b >= tau * max b."""
    ok = b >= tau * b.max()
    return float(np.max(np.abs(np.log(np.maximum(a[ok], 1e-300)) - np.log(b[ok]))))


def kde_features(quick):
    line()
    line("## 4. KDE log-density features vs scipy.stats.gaussian_kde, one class, n=3700, d=20")
    X = forest_class_sample(3700, 20, seed=4)
    n, d = X.shape
    y = np.zeros(n, int)
    h1 = class_bandwidths(X, y, dim=1)
    h2 = class_bandwidths(X, y, dim=2)
    pairs = np.column_stack(np.triu_indices(d, 1))
    tiny = (np.full(d, 1e-300), np.full((d, d), 1e-300))
    fast = ClassConditionalKDE(X, y, h1, h2, *tiny)  # auto: binned (class >= 1000 rows)
    exact = ClassConditionalKDE(X, y, h1, h2, *tiny, method="exact")
    assert fast.binned(0)

    def ours(kde, loo=None):
        return kde.log_univariate(X, loo)[0], kde.log_bivariate(X, pairs, loo)[0]

    best, med, (lu, lb) = timed(lambda: ours(fast), 3)
    best_ex, _, (lu_ex, lb_ex) = timed(lambda: ours(exact), 1)
    sub = np.arange(len(pairs))[:: 19 if quick else 6]  # pairs timed with scipy

    def uni_ref():
        return np.column_stack(
            [
                stats.gaussian_kde(X[:, i], bw_method=h1[0, i] / np.std(X[:, i], ddof=1)).logpdf(
                    X[:, i]
                )
                for i in range(d)
            ]
        )

    def pair_ref():
        return np.column_stack(
            [
                scipy_kde_2d(X[:, [i, j]], h2[0, [i, j]]).logpdf(X[:, [i, j]].T)
                for i, j in pairs[sub]
            ]
        )

    t_ru, _, ru = timed(uni_ref, 1)
    t_rb, _, rb = timed(pair_ref, 1)
    t_ref = t_ru + t_rb
    t_ref_all = t_ru + t_rb / len(sub) * len(pairs)
    err_u = max(log_err(np.exp(lu[:, i]), np.exp(ru[:, i])) for i in range(d))
    err_b = max(log_err(np.exp(lb[:, k]), np.exp(rb[:, s])) for s, k in enumerate(sub))
    line(
        f"slb (binned, automatic at n >= 1000): {best:.2f} s (median {med:.2f}) for "
        f"{d} + {len(pairs)} densities at {n} points; slb exact path {best_ex:.2f} s"
    )
    line(
        f"scipy gaussian_kde: {d} univariate + {len(sub)} pairs timed ({t_ref:.1f} s), "
        f"extrapolated to all {len(pairs)} pairs: {t_ref_all:.1f} s -> {t_ref_all / best:.0f}x "
        f"faster (exact path: {t_ref_all / best_ex:.1f}x)"
    )
    line(
        f"max |log p_slb - log p_scipy| where p >= 1e-3 max: univariate {err_u:.1e}, "
        f"pairs {err_b:.1e}"
    )
    # leave-one-out: binned vs exact
    _, _, (lu_l, lb_l) = timed(lambda: ours(fast, y), 1)
    _, _, (lu_le, lb_le) = timed(lambda: ours(exact, y), 1)
    e_loo = max(
        max(log_err(np.exp(lu_l[:, i]), np.exp(lu_le[:, i])) for i in range(d)),
        max(log_err(np.exp(lb_l[:, k]), np.exp(lb_le[:, k])) for k in range(len(pairs))),
    )
    e_all = max(
        max(log_err(np.exp(lu[:, i]), np.exp(lu_ex[:, i])) for i in range(d)),
        max(log_err(np.exp(lb[:, k]), np.exp(lb_ex[:, k])) for k in range(len(pairs))),
    )
    line(
        f"binned vs exact slb, all {d + len(pairs)} densities: in-sample {e_all:.1e}, "
        f"leave-one-out {e_loo:.1e} (max |delta log p| where p >= 1e-3 max)"
    )
    return {"kde_ratio": t_ref_all / best, "kde_err": max(err_u, err_b), "kde_loo_err": e_loo}


# ---------------------------------------------------------------------------------------------
# 5. end to end (subprocesses)
# ---------------------------------------------------------------------------------------------
def peak_rss_mb():
    """Peak resident set size of this process (VmHWM: unlike ru_maxrss, not inherited from the
    parent across fork + exec)."""
    try:
        with open("/proc/self/status") as f:
            for row in f:
                if row.startswith("VmHWM:"):
                    return int(row.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _fold(X, y, tr, te):
    """Fit SLBClassifier() on one fold: (BER, CPU seconds, peak RSS of this process in MB)."""
    from slb import SLBClassifier
    from slb.evaluation import balanced_error_rate

    c0 = time.process_time()
    clf = SLBClassifier().fit(X[tr], y[tr])
    ber = balanced_error_rate(y[te], clf.predict(X[te]))
    return ber, time.process_time() - c0, peak_rss_mb()


def _cv(X, y, n_jobs=1):
    from joblib import Parallel, delayed

    from slb.evaluation import stratified_folds

    folds = stratified_folds(y, 5, random_state=0)
    if n_jobs == 1:
        return [_fold(X, y, tr, te) for tr, te in folds]
    return Parallel(n_jobs=n_jobs)(delayed(_fold)(X, y, tr, te) for tr, te in folds)


def case(name, n_jobs):
    """One end-to-end case, run in a fresh process; prints a JSON line."""
    rss0 = peak_rss_mb()
    out = {"case": name}
    if name in ("ringnorm", "hillvalley"):
        X, y = ringnorm(7400, 20) if name == "ringnorm" else hill_valley(606, 100)
        t = time.perf_counter()
        res = _cv(X, y, n_jobs)
        out.update(
            seconds=time.perf_counter() - t,
            ber=float(np.mean([r[0] for r in res])),
            cpu=float(sum(r[1] for r in res)),
            peak_rss_fold_mb=float(max(r[2] for r in res)),
        )
    elif name == "sonar_warm":
        from slb import SLBClassifier, ThresholdPath
        from slb.evaluation import stratified_folds

        X, y = slb.load_dataset("sonar", as_frame=False)
        clf = SLBClassifier(threshold=0.0, warm_start=True)
        t = time.perf_counter()
        clf.fit(X, y)
        out["cold_fit"] = time.perf_counter() - t
        grid = np.quantile(clf.pair_scores_, [0.2, 0.5, 0.8, 0.9, 0.95, 0.99])
        times = []
        for lam in grid:
            t = time.perf_counter()
            clf.set_params(threshold=float(lam)).fit(X, y)
            times.append(time.perf_counter() - t)
        out["warm_refit"] = float(np.median(times))
        out["warm_refit_max"] = float(np.max(times))
        path = ThresholdPath()
        t = time.perf_counter()
        path.fit(X, y, stratified_folds(y, 5, random_state=0))
        out["path_fit"] = time.perf_counter() - t
        times = []
        for lam in grid:
            t = time.perf_counter()
            path.fold_ber(float(lam))
            times.append(time.perf_counter() - t)
        out["path_lambda"] = float(np.median(times))
    out["rss_start_mb"] = rss0
    out["peak_rss_mb"] = peak_rss_mb()
    print(json.dumps(out), flush=True)


def end_to_end(cv_jobs):
    line()
    line("## 5. End to end (each case in a fresh subprocess; peak RSS = VmHWM)")

    def run(name, jobs=1):
        cmd = [sys.executable, __file__, "--case", name, "--cv-jobs", str(jobs)]
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=True)
        return json.loads(res.stdout.strip().splitlines()[-1])

    results = {}
    for name, label, target in (
        ("ringnorm", "Ringnorm-sized (d=20, n=7400)", 15.0),
        ("hillvalley", "Hill-valley-sized (d=100, n=606)", 20.0),
    ):
        for jobs in sorted({1, cv_jobs}):
            r = run(name, jobs)
            line(
                f"5-fold CV of SLBClassifier(), {label}, outer folds in {jobs} process(es): "
                f"{r['seconds']:.1f} s wall (target {target:.0f} s: "
                f"{'met' if r['seconds'] <= target else 'MISSED'}), {r['cpu']:.1f} s CPU in the "
                f"folds; mean BER {100 * r['ber']:.1f} %; peak RSS {r['peak_rss_fold_mb']:.0f} MB "
                f"(after imports {r['rss_start_mb']:.0f} MB)"
            )
            results[f"{name}_{jobs}"] = r
    r = run("sonar_warm")
    line(
        f"Sonar, warm cache: threshold change + refit of SLBClassifier(warm_start=True) "
        f"{1e3 * r['warm_refit']:.0f} ms median, {1e3 * r['warm_refit_max']:.0f} ms max over 6 "
        f"thresholds (target 300 ms: {'met' if r['warm_refit_max'] <= 0.3 else 'MISSED'}; cold "
        f"fit {r['cold_fit']:.2f} s); ThresholdPath 5-fold CV BER at a new threshold "
        f"{1e3 * r['path_lambda']:.0f} ms (path fit {r['path_fit']:.2f} s); peak RSS "
        f"{r['peak_rss_mb']:.0f} MB (after imports {r['rss_start_mb']:.0f} MB)"
    )
    results["sonar_warm"] = r
    return results


# ---------------------------------------------------------------------------------------------
# 6. linear SVM solvers
# ---------------------------------------------------------------------------------------------
def _primal(Z, y, w, b, C, weights):
    s = np.where(y == 1, 1.0, -1.0)
    return 0.5 * w @ w + C * np.sum(weights[y] * np.maximum(0.0, 1.0 - s * (Z @ w + b)))


def svm_solvers(quick):
    """The SVM of one Ringnorm-sized outer fold: slb.model.svm vs liblinear and full-kernel libsvm."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import StratifiedKFold
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC, LinearSVC

    from slb.density.features import LogDensityTransformer
    from slb.evaluation import balanced_error_rate, stratified_folds
    from slb.model.classifier import SLBClassifier
    from slb.model.svm import class_weights, fit_linear_svm, nested_mask_predictions

    warnings.simplefilter("ignore", ConvergenceWarning)
    line()
    line("## 6. Linear SVM on the log-density map of one Ringnorm-sized fold (n=5920, 420 columns)")
    X, y = ringnorm(7400, 20)
    tr, _ = stratified_folds(y, 5, random_state=0)[0]
    X, y = X[tr], y[tr]
    T = LogDensityTransformer().fit_transform(X, y)  # all 190 pairs, leave-one-out
    C = 0.03
    Z = StandardScaler().fit_transform(T)
    wts = class_weights("balanced", y)

    def liblinear(A, yy):
        svm = LinearSVC(
            C=C,
            loss="hinge",
            class_weight="balanced",
            intercept_scaling=10.0,
            max_iter=20000,
            random_state=0,
        ).fit(A, yy)
        return svm.coef_.ravel(), float(svm.intercept_[0])

    with threadpool_limits(1, "blas"):
        t_ws, _, (w, b) = timed(lambda: fit_linear_svm(T, y, C=C), 3)
        t_ll, _, (wl, bl) = timed(lambda: liblinear(Z, y), 3)

        def full():
            svm = SVC(kernel="precomputed", C=C, class_weight="balanced").fit(Z @ Z.T, y)
            return (svm.dual_coef_ @ Z[svm.support_]).ravel(), float(svm.intercept_[0])

        t_full, _, (wf, bf) = timed(full, 1)
    # fit_linear_svm returns weights in T's units: back to standardised units
    scaler = StandardScaler().fit(T)
    w_std, b_std = w * scaler.scale_, b + w @ scaler.mean_
    f_ws, f_ll, f_full = (
        _primal(Z, y, a, c, C, wts) for a, c in ((w_std, b_std), (wl, bl), (wf, bf))
    )
    line(
        f"one fit, all columns (1 BLAS thread): slb (working set, libsvm) {t_ws:.3f} s; "
        f"liblinear (LinearSVC, the previous solver) {t_ll:.3f} s -> {t_ll / t_ws:.1f}x; "
        f"libsvm on the full 5920 x 5920 kernel {t_full:.2f} s -> {t_full / t_ws:.1f}x"
    )
    line(
        f"  primal objective relative to the full-kernel libsvm: slb {f_ws / f_full - 1:+.1e}, "
        f"liblinear {f_ll / f_full - 1:+.1e} (it penalises the intercept); max |w - w_full| / "
        f"max |w_full|: slb {np.abs(w_std - wf).max() / np.abs(wf).max():.1e}"
    )

    # the threshold CV of SLBClassifier(): 10 nested column sets x 5 internal folds
    from slb.dependence.screening import kept_terms, top_fraction_threshold
    from slb.model.classifier import DEFAULT_FRACTIONS
    from slb.model.path import column_mask

    clf = SLBClassifier(threshold=0.0, C=C, random_state=0).fit(X, y)  # for its dependence_
    iu = np.triu_indices(20, 1)
    stat = clf.dependence_[:, iu[0], iu[1]]
    masks = [
        column_mask(kept_terms(stat, top_fraction_threshold(stat, q), "either"), 20)
        for q in DEFAULT_FRACTIONS
    ]
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(T, y))

    def slb_cv():
        return [
            [
                balanced_error_rate(y[te], p)
                for p in nested_mask_predictions(T, y, tr_, te, masks, C, "balanced")
            ]
            for tr_, te in folds
        ]

    def liblinear_cv():
        out = []
        for tr_, te in folds:
            sc = StandardScaler().fit(T[tr_])
            Ztr, Zte = sc.transform(T[tr_]), sc.transform(T[te])
            row = []
            for m in masks:
                wm, bm = liblinear(Ztr[:, m], y[tr_])
                row.append(balanced_error_rate(y[te], (Zte[:, m] @ wm + bm > 0).astype(int)))
            out.append(row)
        return out

    with threadpool_limits(1, "blas"):
        t_cv, _, ber_ws = timed(slb_cv, 1 if quick else 2)
        t_cvl, _, ber_ll = timed(liblinear_cv, 1)
    # other regimes: noisy classes (many support vectors) and a wide map
    rng = np.random.default_rng(3)
    for n, p, sep in ((8000, 72, 0.6), (8000, 72, 1.5), (5000, 1000, 1.0)):
        yy = np.arange(n) % 2
        XX = rng.normal(size=(n, p))
        XX[:, :5] += sep * (yy[:, None] - 0.5)
        XX[:, 5:] += 0.8 * XX[:, :1]
        ZZ = StandardScaler().fit_transform(XX)
        with threadpool_limits(1, "blas"):
            t_a, _, (wa, ba) = timed(lambda ZZ=ZZ, yy=yy: fit_linear_svm(ZZ, yy, C=C), 1)
            t_b, _, (wb, bb) = timed(lambda ZZ=ZZ, yy=yy: liblinear(ZZ, yy), 1)
        # ZZ is standardised already: fit_linear_svm's weights are (nearly) in its units
        wz = class_weights("balanced", yy)
        fa, fb = _primal(ZZ, yy, wa, ba, C, wz), _primal(ZZ, yy, wb, bb, C, wz)
        line(
            f"  {n} rows x {p} columns, class shift {sep}: slb {t_a:.2f} s, liblinear "
            f"{t_b:.2f} s -> {t_b / t_a:.1f}x; primal objective slb / liblinear {fa / fb:.5f}"
        )
    mean_ws, mean_ll = np.mean(ber_ws, axis=0), np.mean(ber_ll, axis=0)
    diff = np.abs(mean_ws - mean_ll).max()

    def chosen(mean):  # the classifier's rule: ties go to the sparsest set
        return int(np.flatnonzero(mean <= mean.min() + 1e-9).max())

    line(
        f"threshold CV, {len(masks)} nested column sets x 5 internal folds (one thread): slb "
        f"(working set carried from set to set) {t_cv:.2f} s; one liblinear fit per set and fold "
        f"{t_cvl:.2f} s -> {t_cvl / t_cv:.1f}x; max |mean BER difference| {diff:.4f} (one test "
        f"row moves a mean BER by 0.0002); chosen threshold index {chosen(mean_ws)} vs {chosen(mean_ll)} "
        f"(mean BER {mean_ws[chosen(mean_ws)]:.4f} vs {mean_ll[chosen(mean_ll)]:.4f})"
    )


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--quick", action="store_true", help="smaller reference samples")
    p.add_argument(
        "--cv-jobs",
        type=int,
        default=1,
        help="also run the end-to-end CV with this many processes over the outer folds",
    )
    p.add_argument("--only", nargs="*", default=None, help="sections to run: 2 3 4 5 6 7")
    p.add_argument(
        "--previous", default="HEAD", help="git revision section 7 compares with (default HEAD)"
    )
    p.add_argument("--case", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.case:
        case(args.case, args.cv_jobs)
        return
    t0 = time.perf_counter()
    line(f"# slb speed benchmark ({time.strftime('%Y-%m-%d %H:%M')})")
    line(f"command: python benchmarks/speed.py {' '.join(sys.argv[1:])}".rstrip())
    line()
    rates = machine()
    only = set(args.only) if args.only else {"2", "3", "4", "5", "6", "7"}
    if "2" in only:
        hsic_exact(rates, args.quick)
    if "3" in only:
        hsic_approx(args.quick)
    if "4" in only:
        kde_features(args.quick)
    if "5" in only:
        end_to_end(args.cv_jobs)
    if "6" in only:
        svm_solvers(args.quick)
    if "7" in only:
        hsic_vs_previous(args.previous, args.quick)
    line()
    line(f"total benchmark time {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
