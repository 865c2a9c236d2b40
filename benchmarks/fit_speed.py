"""Issue 27's library rows: the default fit against a fit at fixed (lambda, C), in CPU seconds.

Prints, with the load average, for the current default loss and for the previous one (libsvm's
hinge, the same-run baseline):

* one default ``SLBClassifier()`` fit on three 1,000 x 20 tables (the shapes of
  ``benchmarks/linear_model_protocol.py``: ``make_classification``, the integer-tied variant and
  skewed "lab values"; stand-ins for the issue's 1,000 x 20 credit table, which is not bundled)
  and on Pima (768 x 8), each beside a fit at the (lambda, C) the default chose (the issue's
  "fixed"), and the ratio;
* the nested estimate on Sonar (Compare's button: ``SLBClassifier()`` refitted on each of the
  5 x 5 folds of the page's default CV);
* 5-fold CV of the default and of a fixed fit on a 7,400 x 20 Ringnorm-like table.

``python benchmarks/fit_speed.py [--quick] [--losses squared_hinge hinge]``.  CPU time
(``time.process_time``) of this process, one BLAS thread (the library's own setting).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from linear_model_protocol import design  # noqa: E402

import slb  # noqa: E402
from slb.data.bundled import load_dataset  # noqa: E402
from slb.evaluation import stratified_folds  # noqa: E402


def cpu(f):
    t = time.process_time()
    out = f()
    return out, time.process_time() - t


def load():
    return f"load {os.getloadavg()[0]:.1f}"


class FoldWork:
    """CPU seconds spent in ``ThresholdPath.fit`` (the inner folds' screening and densities,
    refitted in every fold as the nesting requires) during a default fit."""

    def __init__(self):
        from slb.model.path import ThresholdPath

        self.cls, self.seconds = ThresholdPath, 0.0
        self.orig = ThresholdPath.fit

    def __enter__(self):
        orig, me = self.orig, self

        def timed(path, *args, **kwargs):
            t = time.process_time()
            try:
                return orig(path, *args, **kwargs)
            finally:
                me.seconds += time.process_time() - t

        self.cls.fit = timed
        return self

    def __exit__(self, *exc):
        self.cls.fit = self.orig


def default_vs_fixed(name, X, y, loss):
    with FoldWork() as folds:
        m, t_default = cpu(lambda: slb.SLBClassifier(random_state=0, loss=loss).fit(X, y))
    # "fixed": SLB at the chosen (lambda, C); when naive Bayes or TAN was selected (C_ NaN),
    # SLB at the chosen lambda (+inf: no pair) and C = 1.
    C = m.C_ if np.isfinite(m.C_) else 1.0
    fixed = slb.SLBClassifier(random_state=0, loss=loss, threshold=m.threshold_, C=C)
    _, t_fixed = cpu(lambda: fixed.fit(X, y))
    print(
        f"default fit {name:28s} {loss:13s} {t_default:6.2f} s  fixed {t_fixed:5.2f} s  "
        f"ratio {t_default / t_fixed:5.1f}x  ({m.selected_model_}, C={m.C_:.3g}, "
        f"{len(m.pairs_)} pairs)  {load()}",
        flush=True,
    )
    # The nesting's floor: the folds' screening and densities (no SVM, no candidate) plus the
    # final fit itself; no selection over (lambda, C) can cost less than this ratio.
    print(
        f"  of which the inner folds' screening + densities {folds.seconds:5.2f} s: nesting floor "
        f"{(folds.seconds + t_fixed) / t_fixed:4.1f}x fixed",
        flush=True,
    )


def nested_dashboard(processes):
    """Compare's button as the page runs it (``dashboard.evaluation.slb_nested_eval``, Sonar,
    the page's 5 x 5 folds), wall seconds with ``processes`` worker processes (the niced pool
    of a running server, started and warm before the clock starts)."""
    os.environ["SLB_CV_PROCESSES"] = str(processes)
    from dashboard import evaluation, warmup, workqueue

    for fut in workqueue.start_workers():
        fut.result()
    ds = warmup.default_dataset("sonar")
    x = warmup.defaults_for(ds)  # the page's settings (measure, rule, bandwidths, folds, seed)
    args = (f"bench-{processes}-{time.time()}", ds, x.measure, x.rule, x.dens, x.n_folds, x.seed)
    w, t = time.perf_counter(), time.process_time()
    ev = evaluation.slb_nested_eval(*args, True, n_repeats=x.reps)
    wall, own = time.perf_counter() - w, time.process_time() - t
    print(
        f"nested estimate, sonar, Compare's way   {processes} process(es) {wall:6.1f} s wall "
        f"(server CPU {own:4.1f} s; mean BER {100 * ev.ber.mean():.1f} %)  {load()}",
        flush=True,
    )


def ringnorm(n, d=20, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = rng.normal(size=(n, d))
    X[y == 0] *= 2.0
    X[y == 1] += 1.0 / np.sqrt(d)
    return X, y


def cv_cost(name, X, y, loss, folds, what=None, per_fold=None, **params):
    """CPU seconds of a CV (fit + predict per fold); returns each fold's chosen (lambda, C).

    ``per_fold``: parameters for each fold (the (lambda, C) a default chose there)."""
    chosen = []

    def run():
        for k, (tr, te) in enumerate(folds):
            kw = {**params, **(per_fold[k] if per_fold else {})}
            m = slb.SLBClassifier(random_state=0, loss=loss, **kw).fit(X[tr], y[tr])
            m.predict(X[te])
            chosen.append({"threshold": m.threshold_, "C": m.C_ if np.isfinite(m.C_) else 1.0})

    _, t = cpu(run)
    what = what or ("default" if not params else "fixed (lambda, C)")
    print(f"{len(folds)}-fold CV {name:24s} {what:34s} {loss:13s} {t:6.1f} s  {load()}", flush=True)
    return chosen


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--losses", nargs="+", default=["squared_hinge", "hinge"])
    p.add_argument("--quick", action="store_true", help="skip the 7,400-row CV and Sonar")
    a = p.parse_args()
    print(f"cpus {os.cpu_count()}, {load()}")
    tables = {
        f"{name} 1000x20": design(name, 1000, 20, 0)[:2]
        for name in ("make_classification", "integer-tied", "lab-values")
    }
    X, y = load_dataset("pima")
    tables["pima 768x8"] = (np.asarray(X, dtype=float), np.asarray(y))
    for loss in a.losses:
        for name, (X, y) in tables.items():
            default_vs_fixed(name, np.asarray(X, dtype=float), np.asarray(y), loss)
    if a.quick:
        return
    X, y = load_dataset("sonar")
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    folds = stratified_folds(y, 5, n_repeats=5, random_state=0)
    for loss in a.losses:
        cv_cost("nested estimate, sonar", X, y, loss, folds)
    for processes in (1, 2):
        nested_dashboard(processes)
    X, y = ringnorm(7400)
    folds = stratified_folds(y, 5, random_state=0)
    for loss in a.losses:
        chosen = cv_cost("ringnorm 7400x20", X, y, loss, folds)
        # "fixed (lambda, C)" two ways: at the (lambda, C) the default chose in each fold (as
        # the rows above define "fixed"), and at lambda = 0 with C = 1 (every one of the 190
        # pairs kept: the most a fixed fit can cost on this table)
        cv_cost("ringnorm 7400x20", X, y, loss, folds, "fixed at the default's choice", chosen)
        cv_cost(
            "ringnorm 7400x20",
            X,
            y,
            loss,
            folds,
            "fixed lambda=0 (all pairs), C=1",
            threshold=0.0,
            C=1.0,
        )


if __name__ == "__main__":
    main()
