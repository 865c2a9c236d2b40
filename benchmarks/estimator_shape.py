"""Cost of SLB's nested selection against GridSearchCV over the same candidates (Sonar).

The numbers of ``docs/estimator-shape.md``: ``SLBClassifier()`` (nested inner CV over the
default 10 pair fractions x 7 costs, 5 inner folds), one fixed-parameter fit at the chosen
``lambda`` and ``C``, and ``GridSearchCV`` over the ``lambda`` values that keep the default
fractions on all rows x the default costs (5 stratified folds, balanced accuracy).  CPU seconds
of this process (``time.process_time``) and wall seconds.

Usage::

    nice -n 10 python benchmarks/estimator_shape.py
"""

import time

from sklearn.model_selection import GridSearchCV, StratifiedKFold

from slb import SLBClassifier, load_dataset
from slb.dependence.screening import top_fraction_threshold
from slb.model.classifier import DEFAULT_CS, DEFAULT_FRACTIONS

X, y = load_dataset("sonar")
y = (y == "rock").astype(int).to_numpy()


def cpu(f):
    t = time.process_time()
    w = time.perf_counter()
    r = f()
    return r, time.process_time() - t, time.perf_counter() - w


nested, c1, w1 = cpu(lambda: SLBClassifier(random_state=0, probability=False).fit(X, y))
fixed, c2, w2 = cpu(
    lambda: SLBClassifier(
        threshold=nested.threshold_, C=nested.C_, random_state=0, probability=False
    ).fit(X, y)
)
print(
    f"nested SLBClassifier() on Sonar: {c1:.1f} s CPU ({w1:.1f} s wall); 10 x 7 candidates, 5 inner folds; chose threshold {nested.threshold_:.4g} C {nested.C_}"
)
print(f"fixed SLBClassifier(threshold, C): {c2:.2f} s CPU ({w2:.2f} s wall)")
# GridSearchCV over the same candidates (lambda values that keep the default fractions on all rows)
scores = nested.pair_scores_
lams = sorted(
    {
        float(
            top_fraction_threshold(scores[None, :].repeat(2, 0), q, "either", n_total=scores.size)
        )
        for q in DEFAULT_FRACTIONS
    }
)
gs = GridSearchCV(
    SLBClassifier(random_state=0, probability=False),
    {"threshold": lams, "C": list(DEFAULT_CS)},
    cv=StratifiedKFold(5, shuffle=True, random_state=0),
    scoring="balanced_accuracy",
    n_jobs=1,
)
_, c3, w3 = cpu(lambda: gs.fit(X, y))
print(
    f"GridSearchCV(SLBClassifier(threshold, C)) over {len(lams)} x {len(DEFAULT_CS)}: {c3:.1f} s CPU ({w3:.1f} s wall); best {gs.best_params_}"
)
