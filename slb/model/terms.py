"""The term table and feature importances of a fitted SLB-family model (helpers of
:mod:`slb.model.classifier`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..density.features import class_order


def _feature_importances(contrib, table, n_features):
    """Per input feature: the standard deviation over the training rows of the summed
    contributions ``coef * T`` of the terms that involve it (a pair's terms count for both).

    The spread of what a feature adds to the decision, not the sum of ``|coef|``: the two
    classes' log-densities of a useless feature are nearly equal, so the SVM may give them
    large weights of opposite signs that cancel.
    """
    i, j = table["i"].to_numpy(), table["j"].to_numpy()
    return np.array([contrib[:, (i == f) | (j == f)].sum(axis=1).std() for f in range(n_features)])


def _term_table(names, pairs, classes):
    """One row per column of the feature map: class symbol and label, kind, feature indices."""
    d = len(names)
    rows = []
    order, symbols = class_order(classes)
    symbols = [s.strip("[]") if len(classes) > 2 else s for s in symbols]
    for kind, items in (("univariate", [(i, -1) for i in range(d)]), ("bivariate", pairs)):
        for sign, c in zip(symbols, order, strict=True):
            for i, j in items:
                rows.append(
                    {
                        "class": sign,
                        "label": classes[c],
                        "kind": kind,
                        "i": int(i),
                        "j": int(j),
                        "feature_i": names[i],
                        "feature_j": names[j] if j >= 0 else None,
                    }
                )
    return pd.DataFrame(rows)
