"""Significance tests of classifier comparisons, within one data set and across data sets.

Within one data set every classifier is compared with the best (lowest mean BER) on the same
folds.  The default test is the Nadeau–Bengio corrected resampled t-test (Nadeau & Bengio 2003,
Bouckaert & Frank 2004), valid on the overlapping training sets of repeated K-fold CV, with a
Holm correction across the comparisons.  The two-sided Wilcoxon signed-rank test with a
Bonferroni correction of the SLB paper (section 5.2) is kept for that protocol; note that with 5
folds its smallest two-sided p-value is 0.0625, so it can never reject at 0.05, and on repeated
(overlapping) folds it is anti-conservative.

Across data sets, :func:`friedman_nemenyi` gives the Friedman test on the ranks and the Nemenyi
critical difference (Demšar 2006).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy import integrate, optimize, stats

#: Keys of the tests of :func:`compare_estimators` and how the pages name them.
CORRECTED_T = "corrected_t"
WILCOXON = "wilcoxon"
TEST_NAMES = {
    CORRECTED_T: "Nadeau–Bengio corrected resampled t-test against the best, Holm-adjusted",
    WILCOXON: "two-sided Wilcoxon signed-rank test against the best, Bonferroni-adjusted",
}


def holm_adjust(p_values):
    """Holm's step-down adjusted p-values (family-wise error control).

    Hand-written because scipy has no Holm correction (``false_discovery_control`` is
    Benjamini–Hochberg) and statsmodels is not a dependency.

    Parameters
    ----------
    p_values : array-like of shape (m,)
        NaN entries (tests that could not be done) stay NaN and do not count in ``m``.

    Returns
    -------
    adjusted : ndarray of shape (m,)
        ``max_{j <= i} min(1, (m - j + 1) p_(j))`` for the ``i``-th smallest p-value.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.evaluation.significance import holm_adjust
    >>> holm_adjust([0.01, 0.04, np.nan, 0.03]).round(3).tolist()  # m = 3: 3 p, 2 p, 1 p
    [0.03, 0.06, nan, 0.06]
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = ok.size
    if m:
        order = ok[np.argsort(p[ok], kind="stable")]
        out[order] = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    return out


def corrected_resampled_ttest(diff, test_train_ratio):
    """Nadeau–Bengio corrected resampled t-test of a mean per-fold difference against 0.

    ``t = mean(d) / sqrt((1/J + n_test/n_train) * var(d))`` with ``var`` of ddof 1 over the
    ``J`` folds (all repeats), referred to Student's t with ``J - 1`` degrees of freedom,
    two-sided.  The ``n_test/n_train`` term accounts for the overlap of the training sets,
    which makes the plain paired t-test (and Wilcoxon) anti-conservative on K-fold CV.

    Parameters
    ----------
    diff : array-like of shape (J,)
        Per-fold differences (e.g. BER of a classifier minus BER of the best).
    test_train_ratio : float
        ``n_test / n_train`` of one fold (see :func:`holdout_ratio`).

    Returns
    -------
    t, p_value : float
        NaN when no test is possible: fewer than 2 folds, or every difference 0.  A constant
        non-zero difference gives ``t = ±inf``, ``p = 0``.

    Examples
    --------
    >>> from slb.evaluation.significance import corrected_resampled_ttest
    >>> t, p = corrected_resampled_ttest([0.05, 0.03, 0.04, 0.06, 0.02], 0.25)
    >>> round(t, 2), round(p, 3)
    (3.77, 0.02)
    """
    d = np.asarray(diff, dtype=float).ravel()
    if not np.all(np.isfinite(d)):
        raise ValueError("The per-fold differences contain NaN or infinite values.")
    if test_train_ratio < 0 or not np.isfinite(test_train_ratio):
        raise ValueError(f"test_train_ratio must be a finite number >= 0, got {test_train_ratio}.")
    J = d.size
    if J < 2:
        return np.nan, np.nan
    mean = d.mean()
    if np.ptp(d) <= 1e-12:  # no spread: rounding noise of identical results is not a variance
        if abs(mean) <= 1e-12:
            return np.nan, np.nan
        return float(np.copysign(np.inf, mean)), 0.0
    t = mean / np.sqrt((1.0 / J + test_train_ratio) * d.var(ddof=1))
    return float(t), float(2.0 * stats.t.sf(abs(t), J - 1))


def _t_test_power(nc, df, t_crit):
    """Power of the two-sided t-test with critical value ``t_crit`` when ``T`` is noncentral t
    with ``df`` degrees of freedom and noncentrality ``nc``.

    ``scipy.stats.nct`` where it gives a number; it returns NaN at the large noncentralities
    that few folds need (scipy 1.16: ``nct.sf(12.7, 1, 40)``), and there the same probability
    is one integral: ``T = (Z + nc) / sqrt(V / df)``, ``V`` chi-square, so the power is the
    normal tail beyond ``t_crit sqrt(V / df)`` averaged over ``V`` (agrees with ``nct`` to
    1e-10 where both give a number)."""
    power = stats.nct.sf(t_crit, df, nc) + stats.nct.cdf(-t_crit, df, nc)
    if np.isfinite(power):
        return float(power)

    def integrand(v):
        s = t_crit * np.sqrt(v / df)
        return (stats.norm.sf(s - nc) + stats.norm.cdf(-s - nc)) * stats.chi2.pdf(v, df)

    # over the central 1 - 2e-14 of V's mass: a finite interval with the peak inside (on
    # [0, inf) the adaptive rule misses the narrow peak of a large df)
    lo, hi = stats.chi2.ppf(1e-14, df), stats.chi2.isf(1e-14, df)
    return integrate.quad(integrand, lo, hi, points=[float(df)], limit=200, epsabs=1e-12)[0]


@lru_cache(maxsize=256)
def detectable_noncentrality(df, alpha=0.05, power=0.8):
    """The noncentrality at which the two-sided level-``alpha`` t-test on ``df`` degrees of
    freedom rejects with probability ``power`` (exact, by the noncentral t).

    Parameters
    ----------
    df : int
        Degrees of freedom (``J - 1`` for ``J`` folds).
    alpha : float, default=0.05
    power : float, default=0.8

    Returns
    -------
    nc : float
        The mean difference in standard errors.

    Examples
    --------
    >>> from slb.evaluation.significance import detectable_noncentrality
    >>> round(detectable_noncentrality(4), 3)  # 5 folds; t-quantiles would give 2.776 + 0.941
    3.761
    >>> round(detectable_noncentrality(1000), 2)  # many folds: the normal 1.96 + 0.84
    2.8
    """
    df, alpha, power = int(df), float(alpha), float(power)
    if df < 1 or not (0.0 < alpha < 1.0) or not (alpha < power < 1.0):
        raise ValueError(
            f"detectable_noncentrality needs df >= 1 and 0 < alpha < power < 1; got df={df}, "
            f"alpha={alpha}, power={power}."
        )
    t_crit = stats.t.ppf(1.0 - alpha / 2.0, df)
    gap = lambda nc: _t_test_power(nc, df, t_crit) - power  # noqa: E731
    hi = t_crit + stats.norm.ppf(power) + 1.0
    while gap(hi) < 0.0:  # the power grows with nc to 1: a bracket within a few doublings
        hi *= 2.0
    return float(optimize.brentq(gap, 0.0, hi, xtol=1e-10))


def minimum_detectable_difference(diff, test_train_ratio, alpha=0.05, power=0.8):
    """The mean BER difference the corrected resampled t-test detects with ``power``.

    ``nc * sqrt((1/J + n_test/n_train) * var(d))`` at the observed spread of the per-fold
    differences ``d``, where ``nc`` is the noncentrality at which the two-sided level-``alpha``
    t-test on ``J - 1`` degrees of freedom has that power (:func:`detectable_noncentrality`,
    exact).  The usual shortcut ``t_{1-alpha/2} + t_{power}`` is 1-6 % smaller at 5 folds
    and gave 75-79 % power there (H46).  What a "not significantly different" could have
    missed: on one 5-fold CV it is large (few folds, and the overlap term dominates).

    Parameters
    ----------
    diff : array-like of shape (J,)
        Per-fold differences (classifier minus best).
    test_train_ratio : float
        ``n_test / n_train`` of one fold.
    alpha : float, default=0.05
        Two-sided level (before any multiplicity correction).
    power : float, default=0.8

    Returns
    -------
    mdd : float
        In BER units; NaN with fewer than 2 folds.

    Examples
    --------
    >>> import numpy as np
    >>> from slb.evaluation.significance import minimum_detectable_difference
    >>> d = np.array([0.02, -0.01, 0.05, 0.00, 0.03])
    >>> round(minimum_detectable_difference(d, 0.25), 4)  # 6 points at this spread
    0.0602
    """
    d = np.asarray(diff, dtype=float).ravel()
    J = d.size
    if J < 2:
        return np.nan
    se = np.sqrt((1.0 / J + test_train_ratio) * d.var(ddof=1))
    return float(detectable_noncentrality(J - 1, alpha, power) * se)


def corrected_t_against_best(per_fold, test_train_ratio, alpha=0.05):
    """Compare every classifier with the one of lowest mean BER, corrected for CV overlap.

    :func:`corrected_resampled_ttest` on the per-fold differences (classifier minus best), Holm
    adjusted across the comparisons; a classifier is *tied* with the best unless the adjusted
    p-value is below ``alpha`` (so also when no test is possible).

    Parameters
    ----------
    per_fold : DataFrame
        One row per fold (all repeats), one column per classifier, BER values.
    test_train_ratio : float
        ``n_test / n_train`` of the folds (see :func:`holdout_ratio`).
    alpha : float

    Returns
    -------
    summary : DataFrame
        Index: classifiers, sorted by mean BER; columns ``mean``, ``sd`` (ddof 1, NaN for one
        fold), ``t`` (positive: worse than the best), ``p_value``, ``p_adjusted`` (Holm),
        ``best``, ``tied_with_best`` (the adjusted p-value is not below ``alpha``: read it as
        "not significantly different from the best", never as equal), ``mdd`` (the mean
        difference this test would detect with 80 % power at the observed fold variance,
        :func:`minimum_detectable_difference` at ``alpha / m`` for ``m`` tests: the level of
        Holm's strictest step, so the Holm-adjusted verdict, not only the unadjusted test,
        detects it with at least that power).  NaN where a test does not apply (the best;
        identical results; one fold).  ``summary.attrs["test"]`` names the test.

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.evaluation.significance import corrected_t_against_best
    >>> per_fold = pd.DataFrame({
    ...     "A": [0.10, 0.12, 0.11, 0.09, 0.13],
    ...     "B": [0.15, 0.18, 0.16, 0.14, 0.17],
    ...     "C": [0.11, 0.12, 0.12, 0.10, 0.12],
    ... })
    >>> s = corrected_t_against_best(per_fold, test_train_ratio=0.25)
    >>> s.index.tolist(), s["tied_with_best"].tolist()
    (['A', 'C', 'B'], [True, True, False])
    """
    per_fold = _check_per_fold(per_fold)
    mean = per_fold.mean(axis=0)
    sd = per_fold.std(axis=0, ddof=1)
    best = mean.idxmin()
    diffs = {name: per_fold[name] - per_fold[best] for name in per_fold.columns if name != best}
    t, p = {best: np.nan}, {best: np.nan}
    for name, diff in diffs.items():
        t[name], p[name] = corrected_resampled_ttest(diff, test_train_ratio)
    # the level of Holm's strictest step (alpha over the tests done): at this difference the
    # adjusted test rejects with at least 80 % power at whichever step it is tested
    level = alpha / max(int(np.isfinite(list(p.values())).sum()), 1)
    mdd = {
        name: minimum_detectable_difference(d, test_train_ratio, level) for name, d in diffs.items()
    }
    mdd[best] = np.nan
    names = list(per_fold.columns)
    p_adj = dict(zip(names, holm_adjust([p[n] for n in names]), strict=True))
    out = pd.DataFrame(
        {
            "mean": mean,
            "sd": sd,
            "t": pd.Series(t),
            "p_value": pd.Series(p),
            "p_adjusted": pd.Series(p_adj),
            "best": [n == best for n in names],
            "tied_with_best": [n == best or not p_adj[n] < alpha for n in names],
            "mdd": pd.Series(mdd),
        },
        index=pd.Index(names, name="classifier"),
    ).sort_values("mean", kind="stable")
    out.attrs.update(method=CORRECTED_T, test=TEST_NAMES[CORRECTED_T])
    return out


def _check_per_fold(per_fold):
    per_fold = pd.DataFrame(per_fold)
    if per_fold.shape[0] < 1 or per_fold.shape[1] < 1:
        raise ValueError("per_fold needs at least one fold (row) and one classifier (column).")
    if not np.all(np.isfinite(per_fold.to_numpy(dtype=float))):
        raise ValueError("per_fold contains NaN or infinite BERs; drop the failed folds first.")
    return per_fold.astype(float)


def wilcoxon_against_best(per_fold, alpha=0.05):
    """Compare every classifier with the one of lowest mean BER.

    Two-sided Wilcoxon signed-rank test on the paired per-fold BERs, Bonferroni-corrected for the
    number of comparisons; a classifier is *tied* with the best when the corrected p-value is at
    least ``alpha`` (the paper's bold entries).

    Parameters
    ----------
    per_fold : DataFrame
        One row per fold, one column per classifier, BER values.
    alpha : float

    Returns
    -------
    summary : DataFrame
        Index: classifiers, sorted by mean BER; columns ``mean``, ``sd`` (ddof=1), ``p_value``,
        ``p_bonferroni`` (also as ``p_adjusted``), ``best``, ``tied_with_best``.
        ``summary.attrs["test"]`` names the test.

    Notes
    -----
    With 5 folds the smallest two-sided p-value is 2 / 2**5 = 0.0625: nothing is ever significant
    at 0.05.  On repeated CV the folds overlap and the test is anti-conservative; use
    :func:`corrected_t_against_best` there.

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.evaluation.significance import wilcoxon_against_best
    >>> per_fold = pd.DataFrame({
    ...     "A": [0.10, 0.12, 0.11, 0.09, 0.13],
    ...     "B": [0.15, 0.18, 0.16, 0.14, 0.17],
    ... })
    >>> s = wilcoxon_against_best(per_fold)
    >>> float(s.loc["B", "p_value"]), bool(s.loc["B", "tied_with_best"])  # 5 folds: >= 0.0625
    (0.0625, True)
    """
    mean = per_fold.mean(axis=0)
    sd = per_fold.std(axis=0, ddof=1) if len(per_fold) > 1 else per_fold.std(axis=0, ddof=0)
    best = mean.idxmin()
    m = max(per_fold.shape[1] - 1, 1)
    rows = []
    for name in per_fold.columns:
        if name == best:
            p = np.nan
        else:
            diff = per_fold[name].to_numpy() - per_fold[best].to_numpy()
            if np.allclose(diff, 0):
                p = 1.0
            else:
                p = float(stats.wilcoxon(diff, alternative="two-sided").pvalue)
        p_b = min(1.0, p * m) if np.isfinite(p) else np.nan
        rows.append(
            {
                "classifier": name,
                "mean": mean[name],
                "sd": sd[name],
                "p_value": p,
                "p_bonferroni": p_b,
                "p_adjusted": p_b,
                "best": name == best,
                "tied_with_best": bool(name == best or p_b >= alpha),
            }
        )
    out = pd.DataFrame(rows).set_index("classifier").sort_values("mean")
    out.attrs.update(method=WILCOXON, test=TEST_NAMES[WILCOXON])
    return out


# ---------------------------------------------------------------------------------------------
# across data sets
# ---------------------------------------------------------------------------------------------
@dataclass
class FriedmanResult:
    """Result of :func:`friedman_nemenyi`.

    Attributes
    ----------
    ranks : Series
        Average rank per classifier over the data sets (1 = lowest BER, ties averaged), sorted.
    statistic, p_value : float
        Friedman's chi-square (``scipy.stats.friedmanchisquare``, tie-corrected) and its p-value.
    iman_davenport, iman_davenport_p : float
        Iman and Davenport's F statistic (less conservative; Demšar 2006, eq. 2) and p-value.
    q_alpha : float
        Studentized range quantile at ``1 - alpha`` for k groups, infinite df, over sqrt(2).
    cd : float
        Nemenyi critical difference ``q_alpha * sqrt(k (k + 1) / (6 N))``.
    groups : list of tuple of str
        Maximal runs of classifiers (in rank order) whose average ranks differ by less than
        ``cd``: not significantly different.  Every classifier is in at least one group.
    alpha : float
    n_datasets : int
    test : str

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.evaluation.significance import FriedmanResult, friedman_nemenyi
    >>> table = pd.DataFrame({"A": [0.1, 0.2, 0.3], "B": [0.2, 0.3, 0.4], "C": [0.3, 0.4, 0.5]})
    >>> r = friedman_nemenyi(table)
    >>> isinstance(r, FriedmanResult), r.ranks.tolist(), r.n_datasets
    (True, [1.0, 2.0, 3.0], 3)
    """

    ranks: pd.Series
    statistic: float
    p_value: float
    iman_davenport: float
    iman_davenport_p: float
    q_alpha: float
    cd: float
    groups: list
    alpha: float
    n_datasets: int
    test: str = "Friedman test on the average ranks; Nemenyi critical difference (Demšar 2006)"


def nemenyi_q(k, alpha=0.05):
    """Critical value ``q_alpha`` of the Nemenyi test for ``k`` classifiers (Demšar 2006, Table 5).

    Parameters
    ----------
    k : int
        Number of classifiers, at least 2.
    alpha : float

    Returns
    -------
    q : float
        ``studentized_range.ppf(1 - alpha, k, inf) / sqrt(2)``; 2.569 for k = 4, alpha = 0.05.

    Examples
    --------
    >>> from slb.evaluation.significance import nemenyi_q
    >>> round(nemenyi_q(4), 3)  # Demšar (2006), Table 5
    2.569
    """
    if int(k) < 2:
        raise ValueError(f"The Nemenyi test needs at least 2 classifiers, got {k}.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}.")
    return float(stats.studentized_range.ppf(1 - alpha, int(k), np.inf) / np.sqrt(2))


def friedman_nemenyi(table, alpha=0.05):
    """Friedman test and Nemenyi critical difference over a (data sets x classifiers) table.

    Parameters
    ----------
    table : DataFrame
        One row per data set, one column per classifier; mean BERs (lower is better).
    alpha : float

    Returns
    -------
    result : FriedmanResult

    Examples
    --------
    >>> import pandas as pd
    >>> from slb.evaluation.significance import friedman_nemenyi
    >>> table = pd.DataFrame(
    ...     {"SLB": [0.10, 0.20, 0.15, 0.30], "NB": [0.12, 0.25, 0.14, 0.35],
    ...      "RF": [0.20, 0.30, 0.25, 0.40]},
    ...     index=["a", "b", "c", "d"],
    ... )
    >>> r = friedman_nemenyi(table)
    >>> r.ranks.tolist(), round(r.p_value, 3), round(r.cd, 3)
    ([1.25, 1.75, 3.0], 0.039, 1.657)
    >>> r.groups  # ranks closer than the critical difference
    [('SLB', 'NB'), ('NB', 'RF')]
    """
    table = pd.DataFrame(table)
    n, k = table.shape
    if k < 3:
        raise ValueError(
            f"The Friedman test needs at least 3 classifiers (columns), got {k}; for two, use "
            "a paired test such as scipy.stats.wilcoxon over the data sets."
        )
    if n < 2:
        raise ValueError(f"The Friedman test needs at least 2 data sets (rows), got {n}.")
    values = table.to_numpy(dtype=float)
    if not np.all(np.isfinite(values)):
        raise ValueError("The table contains NaN or infinite values; drop those data sets first.")
    ranks = table.rank(axis=1, method="average").mean(axis=0).sort_values(kind="stable")
    stat, p = stats.friedmanchisquare(*values.T)
    denom = n * (k - 1) - stat
    ff = (n - 1) * stat / denom if denom > 0 else np.inf
    ff_p = float(stats.f.sf(ff, k - 1, (k - 1) * (n - 1))) if np.isfinite(ff) else 0.0
    q = nemenyi_q(k, alpha)
    cd = q * np.sqrt(k * (k + 1) / (6.0 * n))
    return FriedmanResult(
        ranks=ranks.rename("average rank"),
        statistic=float(stat),
        p_value=float(p),
        iman_davenport=float(ff),
        iman_davenport_p=ff_p,
        q_alpha=q,
        cd=float(cd),
        groups=_cd_groups(ranks, cd),
        alpha=alpha,
        n_datasets=n,
    )


def _cd_groups(ranks, cd):
    """Maximal runs of sorted average ranks spanning less than ``cd``."""
    names, r = list(ranks.index), ranks.to_numpy()
    groups, last_end = [], -1
    for i in range(r.size):
        end = int(np.searchsorted(r, r[i] + cd, side="left"))  # first rank >= r[i] + cd
        if end - 1 > last_end:
            groups.append(tuple(names[i:end]))
            last_end = end - 1
    return groups
