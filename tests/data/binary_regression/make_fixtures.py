"""Record today's binary outputs of every catalogued classifier (issue 25's K = 2 regression).

Run from the repository root BEFORE a change that must keep two-class results unchanged:

    python tests/data/binary_regression/make_fixtures.py

It writes ``outputs.npz`` beside this file: for each case (four bundled datasets, two synthetic
designs) and each classifier, ``predict``, ``decision_function`` (where there is one) and
``predict_proba`` of held-out rows.  ``tests/test_binary_regression.py`` refits the same
classifiers on the same rows and asserts the same numbers.  The rows are small subsamples so
that the check runs in about a minute.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))  # the checkout (run as a script)
OUT = HERE / "outputs.npz"

#: (case, classifier) pairs: the density classifiers at their defaults and at fixed settings,
#: and the registry's other peers.
CLASSIFIERS = {
    "SLB": {},
    "SLB_fixed": {"threshold": 0.01, "C": 1.0},
    "SLB_fdr_perclass": {"threshold": "fdr", "C": 0.3, "pair_rule": "per_class"},
    "SLB(Pearson)": {},
    "SLB-": {},
    "LU": {},
    "TAN": {},
    "NB": {},
    "NB_empirical": {"priors": "empirical"},
    "RF": {},
    "5NN": {},
    "SVM(RBF)": {},
    "Rényi": {},
    "DISCRETE": {},
}

N_TRAIN, N_TEST = 120, 80


def cases():
    """(name, X_train, y_train, X_test) of every case, deterministic."""
    from sklearn.model_selection import train_test_split

    from slb import load_dataset, make_forest_bn, make_general_bn

    out = []
    for name in ("sonar", "pima", "ionosphere", "wdbc"):
        X, y = load_dataset(name)
        X = X.to_numpy(dtype=float)
        y = np.asarray(y)
        Xtr, Xte, ytr, _ = train_test_split(
            X, y, train_size=N_TRAIN, test_size=N_TEST, stratify=y, random_state=0
        )
        if name in ("sonar", "ionosphere"):  # keep the fits quick: 12 features
            Xtr, Xte = Xtr[:, :12], Xte[:, :12]
        out.append((name, Xtr, ytr, Xte))
    ds = make_forest_bn(n_train=N_TRAIN, n_test=N_TEST, d=8, random_state=1)
    out.append(("forest", ds.X_train.to_numpy(), ds.y_train, ds.X_test.to_numpy()))
    ds = make_general_bn(n_train=N_TRAIN, n_test=N_TEST, d=8, random_state=2)
    out.append(("bn", ds.X_train.to_numpy(), ds.y_train, ds.X_test.to_numpy()))
    return out


def build(key):
    from slb.evaluation.registry import make_classifier

    name = key.split("_")[0]
    est = make_classifier(name, random_state=0)
    params = CLASSIFIERS[key]
    if params:
        est.set_params(**params)
    # The outputs were recorded with the SLB family's defaults of their day (libsvm's hinge, no
    # generative candidates; densities without a lattice floor); the defaults changed on
    # purpose on 2026-11-27 and 11-28 (docs/defaults.md, Protocols 2-4), so the regression pins
    # the recorded settings.
    names = est.get_params()
    if "lattice_floor" in names:
        est.set_params(lattice_floor=0.0)
    if "loss" in names:
        est.set_params(loss="hinge")
    if "generative_candidates" in names:
        est.set_params(generative_candidates=False)
    return est


def outputs(est, X_test):
    """predict, decision_function and predict_proba of the held-out rows."""
    out = {"predict": np.asarray(est.predict(X_test)).astype(str)}
    if hasattr(est, "decision_function"):
        out["decision"] = np.asarray(est.decision_function(X_test), dtype=float)
    if hasattr(est, "predict_proba"):
        out["proba"] = np.asarray(est.predict_proba(X_test), dtype=float)
    return out


def main():
    arrays = {}
    for case, Xtr, ytr, Xte in cases():
        for key in CLASSIFIERS:
            est = build(key).fit(Xtr, ytr)
            for what, arr in outputs(est, Xte).items():
                arrays[f"{case}|{key}|{what}"] = arr
            print(case, key, flush=True)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({len(arrays)} arrays)")


if __name__ == "__main__":
    main()
