"""The values a λ-by-value control steps through: one per distinct set of kept terms.

SLB keeps a pair's term of a class when its dependence reaches λ (``>=``), so the kept set
changes only where λ crosses a pair's score.  A slider over a uniform grid of λ therefore has
steps that change nothing (no score in the gap) and looks dead (issue 28 item 4).  Here the
values are the distinct scores themselves, ascending, followed by +inf (no pair kept): the
``i``-th value keeps exactly the terms whose score is at least that value, every step changes
the kept set, and every λ keeps the same set as the smallest value at or above it
(:func:`snap`).  Each value comes with its "pairs kept", shown next to λ.

The scores are those of :func:`slb.dependence.screening.kept_terms`: the pair score (the larger
class dependence, or the smaller for ``"both"``) for ``"either"``/``"both"``, and each class's
own dependence for ``"per_class"``.  Pure numpy: no Streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from slb.dependence import screening as screening_rules


@dataclass(frozen=True)
class LambdaSteps:
    """The λ values of a control, ascending (the last is +inf), and what each keeps."""

    values: np.ndarray  # (n + 1,) float, ascending, values[-1] == inf
    pairs: np.ndarray  # (n + 1,) int, pairs with at least one kept term, decreasing
    terms: np.ndarray  # (n + 1,) int, kept bivariate terms over the classes
    n_pairs: int

    def __len__(self) -> int:
        return int(self.values.size)

    def label(self, i: int) -> str:
        """What position ``i`` of the fallback slider shows: ``λ = 0.01234 · 45 pairs``.

        Short, because the slider also prints its two ends side by side under the track: at
        1024 px the long form ("λ = 0.00147 · 1770 of 1770 pairs kept" beside "λ = ∞ (no pairs)
        · 0 of 1770 pairs kept") ran the two together.  The live slider shows the long form
        (:func:`pairs_kept_text`) once, beside its value.
        """
        lam = self.values[i]
        k = int(self.pairs[i])
        if not np.isfinite(lam):  # as the sidebar writes it (H52 11: "λ = ∞ · 0 pairs")
            return f"λ = {format_value(lam)}"
        return f"λ = {format_value(lam)} · {k} pair{'s' * (k != 1)}"


def format_value(lam: float) -> str:
    """λ as the controls and the sidebar show it (4 significant digits; ∞ keeps no pair).

    Examples
    --------
    >>> format_value(0.012345), format_value(float("inf"))
    ('0.01235', '∞ (no pairs)')
    """
    return "∞ (no pairs)" if not np.isfinite(lam) else f"{lam:.4g}"


def pairs_kept_text(steps: LambdaSteps, i: int) -> str:
    return f"{int(steps.pairs[i])} of {steps.n_pairs} pairs kept"


def lambda_steps(pair_stat: np.ndarray, pair_rule: str) -> LambdaSteps:
    """The distinct λ breakpoints of ``pair_stat`` (K classes x P pairs) under ``pair_rule``.

    Examples
    --------
    >>> import numpy as np
    >>> stat = np.array([[0.1, 0.3, 0.3], [0.2, 0.1, 0.05]])  # 2 classes x 3 pairs
    >>> s = lambda_steps(stat, "either")  # pair scores 0.2, 0.3, 0.3
    >>> s.values.tolist(), s.pairs.tolist()
    ([0.2, 0.3, inf], [3, 2, 0])
    >>> s.label(1), s.label(2)
    ('λ = 0.3 · 2 pairs', 'λ = ∞ (no pairs)')
    >>> lambda_steps(stat, "per_class").terms.tolist()  # every class's own score
    [6, 5, 3, 2, 0]
    """
    stat = np.asarray(pair_stat, dtype=float)
    stat = stat if stat.ndim == 2 else stat.reshape(2, -1)
    n_pairs = int(stat.shape[1])
    if pair_rule not in screening_rules.PAIR_RULES:
        raise ValueError(f"pair_rule must be one of {sorted(screening_rules.PAIR_RULES)}.")
    pair_score = screening_rules.pair_scores(stat, pair_rule)
    cuts = stat.ravel() if pair_rule == "per_class" else pair_score
    cuts = np.unique(cuts[np.isfinite(cuts)])  # sorted, distinct
    values = np.append(cuts, np.inf)
    # counts at each value by sorted search: "score >= v" is n - (number below v)
    ps = np.sort(pair_score[np.isfinite(pair_score)])
    pairs = ps.size - np.searchsorted(ps, values, side="left")
    if pair_rule == "per_class":
        ts = np.sort(stat[np.isfinite(stat)])
        terms = ts.size - np.searchsorted(ts, values, side="left")
    else:
        terms = stat.shape[0] * pairs
    return LambdaSteps(values, pairs.astype(int), np.asarray(terms, dtype=int), n_pairs)


def snap(steps: LambdaSteps, lam: float) -> int:
    """Index of the smallest value at or above ``lam``: the one that keeps the same terms.

    Examples
    --------
    >>> import numpy as np
    >>> s = lambda_steps(np.array([[0.1, 0.3, 0.3], [0.2, 0.1, 0.05]]), "either")
    >>> snap(s, 0.0), snap(s, 0.25), snap(s, 0.3), snap(s, 0.31), snap(s, float("nan"))
    (0, 1, 1, 2, 2)
    """
    lam = float(lam)
    if np.isnan(lam):
        return len(steps) - 1
    return int(min(np.searchsorted(steps.values, lam, side="left"), len(steps) - 1))


def snapped(steps: LambdaSteps, lam: float) -> float:
    """The λ the by-value control uses for ``lam``: its position's value (∞ when there is no
    pair to keep), what :func:`dashboard.controls.sync_lambda_context`'s default becomes on
    the pages, so the warm-up caches the entries a fresh session asks for.

    Examples
    --------
    >>> import numpy as np
    >>> s = lambda_steps(np.array([[0.1, 0.3, 0.3], [0.2, 0.1, 0.05]]), "either")
    >>> snapped(s, 0.25), snapped(s, 0.31)
    (0.3, inf)
    """
    if len(steps) < 2:
        return float("inf")
    return float(steps.values[snap(steps, lam)])
