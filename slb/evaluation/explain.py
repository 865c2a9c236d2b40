"""One decision of SLB explained by feature and by pair instead of by log-density term.

SLB's decision is ``baseline + Σ contributions`` over its terms (``log p+(a)``, ``log p−(a)``,
``log p+(a, b)``, …; :meth:`slb.SLBClassifier.contributions`).  A reader asks which *features*
and which *pairs* drove it: :func:`group_contributions` sums the univariate terms of each
feature and the bivariate terms of each pair across the classes, and :func:`explained_groups`
picks the fewest groups, largest first, that account for a given share of the decision, the
rest summed into one "other" step that is never the largest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["GroupedExplanation", "explained_groups", "group_contributions"]

PAIR_SEP = " × "


def group_contributions(contributions, term_table: pd.DataFrame) -> pd.Series:
    """Sum one sample's term contributions by feature (univariate terms) and by pair.

    Parameters
    ----------
    contributions : Series
        One row of ``SLBClassifier.contributions(X)[0]`` (term -> contribution).
    term_table : DataFrame
        ``SLBClassifier.term_table_``: indexed by term, with columns ``kind``
        ("univariate"/"bivariate"), ``feature_i`` and ``feature_j``.

    Returns
    -------
    Series
        Group label -> summed contribution, in the order the groups first appear: a feature's
        name for its univariate terms, ``"a × b"`` for the pair (a, b).  Its sum is the sum of
        ``contributions`` (each term is in exactly one group).

    Raises
    ------
    ValueError
        When a term of ``contributions`` is not in ``term_table``.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame(
    ...     {"kind": ["univariate", "univariate", "bivariate", "univariate"],
    ...      "feature_i": ["a", "a", "a", "b"], "feature_j": [None, None, "b", None]},
    ...     index=["log p+(a)", "log p-(a)", "log p+(a, b)", "log p+(b)"])
    >>> c = pd.Series({"log p+(a)": 0.5, "log p-(a)": -0.25, "log p+(a, b)": 1.0,
    ...                "log p+(b)": 0.125})
    >>> group_contributions(c, table).to_dict()
    {'a': 0.25, 'a × b': 1.0, 'b': 0.125}
    """
    c = pd.Series(contributions, dtype=float)
    missing = c.index.difference(term_table.index)
    if len(missing):
        raise ValueError(f"terms not in the term table: {list(missing[:5])!r}")
    t = term_table.loc[c.index]
    labels = [
        str(a) if kind == "univariate" else f"{a}{PAIR_SEP}{b}"
        for kind, a, b in zip(t["kind"], t["feature_i"], t["feature_j"], strict=True)
    ]
    sums: dict[str, list[float]] = {}
    for label, v in zip(labels, c.to_numpy().tolist(), strict=True):
        sums.setdefault(label, []).append(v)
    # fsum: each group's sum is the correctly rounded sum of its terms
    return pd.Series({k: math.fsum(v) for k, v in sums.items()}, dtype=float, name=c.name)


@dataclass(frozen=True)
class GroupedExplanation:
    """The groups shown one by one, the rest as one step, and the share they account for.

    Attributes
    ----------
    shown : Series
        Group -> contribution, largest ``|contribution|`` first.
    other : float
        The sum of the groups not shown (0.0 when every group is shown).
    n_other : int
        How many groups ``other`` sums.
    total : float
        The sum of every group: the decision value minus the baseline.
    share : float
        The share of ``total`` that the shown groups account for, their sum over ``total``:
        ``1 − other / total`` (1.0 when every group is shown; above 1 when the rest pushes the
        other way: H52 read "99%" where the shown bars summed to 101% of the move).

    Examples
    --------
    >>> import pandas as pd
    >>> g = pd.Series({"a": 3.0, "b": -2.0, "c": 0.5, "d": 0.25, "e": -0.5})
    >>> e = explained_groups(g, share=0.8)
    >>> isinstance(e, GroupedExplanation), e.shown.to_dict()
    (True, {'a': 3.0, 'b': -2.0})
    >>> e.other, e.n_other, e.total, e.share  # 1 - |0.25| / |1.25| = 0.8
    (0.25, 3, 1.25, 0.8)
    """

    shown: pd.Series
    other: float
    n_other: int
    total: float
    share: float


def _share(other: float, total: float, *, signed: bool = False) -> float:
    """The shown groups' share of ``total`` when the rest sums to ``other``: ``1 − |other| /
    |total|`` (the selection's bound), or with ``signed`` their sum over ``total``."""
    if other == 0.0:
        return 1.0
    if total == 0.0:
        return -math.inf
    return 1.0 - (other / total if signed else abs(other) / abs(total))


def explained_groups(grouped: pd.Series, *, share: float = 0.8, min_shown: int = 1):
    """The fewest largest groups that account for ``share`` of the decision.

    The decision value is ``baseline + total`` with ``total`` the sum of the groups.  Groups
    are taken largest ``|contribution|`` first until (i) the rest sums to at most
    ``1 − share`` of ``|total|`` (the shown groups account for ``share`` of it), (ii) the
    rest's sum is smaller in size than the largest group (the "other" step is never the
    largest bar) and (iii) at least ``min_shown`` are taken.  Every group shown meets all
    three, so there is always an answer.

    Parameters
    ----------
    grouped : Series
        Group -> contribution, e.g. from :func:`group_contributions`.
    share : float, default=0.8
        In [0, 1].
    min_shown : int, default=1

    Returns
    -------
    GroupedExplanation

    Raises
    ------
    ValueError
        When ``share`` is outside [0, 1] or ``grouped`` holds a value that is not finite.

    Examples
    --------
    >>> import pandas as pd
    >>> g = pd.Series({"a": 3.0, "b": -2.0, "c": 0.5, "d": 0.25, "e": -0.5})
    >>> e = explained_groups(g, share=0.8)
    >>> list(e.shown.index), e.other, e.n_other, e.total, e.share
    (['a', 'b'], 0.25, 3, 1.25, 0.8)
    """
    if not 0.0 <= float(share) <= 1.0:
        raise ValueError(f"share must be in [0, 1], got {share!r}")
    g = pd.Series(grouped, dtype=float)
    if not np.isfinite(g.to_numpy()).all():
        raise ValueError("every grouped contribution must be finite")
    g = g.loc[g.abs().sort_values(ascending=False, kind="stable").index]
    vals = g.to_numpy()
    total = math.fsum(vals)
    largest = float(abs(vals[0])) if len(vals) else 0.0
    k = len(g)
    for k in range(min(max(int(min_shown), 0), len(g)), len(g) + 1):
        rest = math.fsum(vals[k:])
        if k == len(g) or (_share(rest, total) >= share and abs(rest) < largest):
            break
    other = math.fsum(vals[k:])
    return GroupedExplanation(
        shown=g.iloc[:k],
        other=other,
        n_other=len(g) - k,
        total=total,
        share=_share(other, total, signed=True),
    )
