"""Cached computations of the Experiments page (synthetic designs, structure recovery, noise).

Everything is computed by :mod:`slb.experiments` / :mod:`slb.data.synthetic`; these wrappers only
cache the results with ``st.cache_data`` keyed on the settings.  Runs are long, so the page
only starts them from a button and re-reads them from this cache afterwards.

A run draws a live ``st.progress`` bar, and Streamlit forbids a cached function to write to
an element created outside it; so the long runs are not computed *inside* a cached function:
:func:`_memo` is an ``st.cache_data`` store keyed on the settings (a miss raises, and
exceptions are never cached), the run happens outside it with the progress callback, and its
result is then put in the store.  A cache hit does not move the progress bar.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from slb.data.synthetic import edge_recovery
from slb.experiments import Design, make_estimator, run_label_noise, run_synthetic
from slb.experiments.designs import calibrated_parameters
from slb.viz.figures import structure_layout

_TTL = 2 * 3600


def design(
    family: str,
    cpd: str,
    balance: float,
    shared: bool,
    d: int,
    n_test: int,
    variant: str = "uncalibrated",
) -> Design:
    """The :class:`slb.experiments.Design` of the page's settings (``shared`` only for BNs),
    with the unstated choices of ``variant`` ("calibrated" needs fitted values for this family
    and CPD: a ValueError otherwise, see :func:`has_calibration`)."""
    return Design(
        family=family,
        cpd=cpd,
        balance=float(balance),
        shared=bool(shared) and family == "bn",
        d=int(d),
        n_test=int(n_test),
    ).with_variant(variant)


def has_calibration(family: str, cpd: str) -> bool:
    """Whether ``benchmarks/calibrate_designs.py`` fitted this family and CPD."""
    return calibrated_parameters(family, cpd) is not None


class _Miss(LookupError):
    """Not in the store."""


@st.cache_data(show_spinner=False, max_entries=32, ttl=_TTL)
def _memo(kind: str, key: tuple, _value=None):
    """The stored result of ``(kind, key)``; raises :class:`_Miss` unless ``_value`` is given,
    which is then stored (``_value`` itself is not part of the cache key)."""
    if _value is None:
        raise _Miss(kind)
    return _value


def _cached_run(kind: str, key: tuple, compute):
    try:
        return _memo(kind, key)
    except _Miss:
        value = compute()
        _memo(kind, key, _value=value)
        return value


def synthetic_run(
    design_args: tuple,
    n_grid: tuple,
    n_replicates: int,
    classifiers: tuple,
    seed: int,
    bayes_mc: int,
    dens: tuple,
    progress=None,
):
    """:func:`slb.experiments.run_synthetic` for ``design(*design_args)`` (a
    ``SyntheticResults``), cached on the settings; ``progress(done, total, message)`` is
    called during a run (not on a cache hit)."""
    from .state import density_params

    key = (tuple(design_args), tuple(n_grid), int(n_replicates), tuple(classifiers))
    key += (int(seed), int(bayes_mc), tuple(dens))
    return _cached_run(
        "synthetic",
        key,
        lambda: run_synthetic(
            design(*design_args),
            n_grid=list(n_grid),
            n_replicates=int(n_replicates),
            classifiers=list(classifiers),
            random_state=int(seed),
            progress=progress,
            bayes_mc=int(bayes_mc),
            density_params=density_params(dens),
        ),
    )


@dataclass(frozen=True)
class StructureFit:
    """One SLB fit on a draw of a synthetic design, and what it recovered."""

    design: str
    seed: int
    n_train: int
    columns: list
    graphs: dict  # {+1: [(i, j), ...], -1: [...]} directed edges, column indices
    kept_pairs: np.ndarray  # (k, 2) SLB's kept pairs
    threshold: float
    coef: pd.Series
    oracle_coef: pd.Series | None
    recovery: dict  # slb.data.synthetic.edge_recovery
    positions: np.ndarray  # (d, 2) shared node positions
    ratio: pd.DataFrame | None = None  # clf.ratio_coefficients(): the identifiable weights
    importance: pd.Series | None = None  # clf.feature_importances_, by column name
    selected_model: str = "slb"  # clf.selected_model_: "slb", or the special case CV chose


@st.cache_data(show_spinner="Fitting SLB on the first replicate…", max_entries=16, ttl=_TTL)
def structure_fit(design_args: tuple, n_train: int, seed: int, dens: tuple) -> StructureFit:
    """Draw the design with ``seed`` (the first replicate's), fit the experiments' SLB on its
    ``n_train`` training rows and compare its kept pairs with the true edges."""
    from .state import density_params

    spec = design(*design_args)
    ds = spec.make(int(n_train), int(seed))
    cols = ds.columns
    pos = {c: k for k, c in enumerate(cols)}
    clf = make_estimator("SLB", random_state=int(seed), density_params=density_params(dens))
    clf.fit(ds.X_train, ds.y_train)
    graphs = {int(lab): [(pos[u], pos[v]) for u, v in g.edges()] for lab, g in ds.graphs.items()}
    kept = np.asarray(clf.pairs_, dtype=int).reshape(-1, 2)
    rec = edge_recovery(kept, ds.graphs, cols)
    true = np.asarray(rec["true_edges"], dtype=int).reshape(-1, 2)
    positions = structure_layout(len(cols), true, seed=0)  # lone nodes in view (H28)
    return StructureFit(
        design=spec.name,
        seed=int(seed),
        n_train=int(n_train),
        columns=cols,
        graphs=graphs,
        kept_pairs=kept,
        threshold=float(clf.threshold_),
        coef=clf.coef_series_.copy(),
        oracle_coef=None if ds.oracle_coef is None else ds.oracle_coef.copy(),
        recovery=rec,
        positions=positions,
        ratio=clf.ratio_coefficients(),
        importance=pd.Series(clf.feature_importances_, index=cols),
        selected_model=str(clf.selected_model_),
    )


def noise_run(
    source_key: str,
    data,
    classifiers: tuple,
    flip_probs: tuple,
    n_replicates: int,
    seed: int,
    n_train: int,
    dens: tuple,
    progress=None,
):
    """:func:`slb.experiments.run_label_noise` on ``data`` (``(name, X, y)`` or a Design),
    cached on ``source_key`` (the dataset's content hash or the design's settings) and the
    other settings; ``progress`` as in :func:`synthetic_run`."""
    from .state import density_params

    key = (str(source_key), tuple(classifiers), tuple(float(p) for p in flip_probs))
    key += (int(n_replicates), int(seed), int(n_train), tuple(dens))
    return _cached_run(
        "noise",
        key,
        lambda: run_label_noise(
            data,
            classifiers=list(classifiers),
            flip_probs=list(flip_probs),
            n_replicates=int(n_replicates),
            random_state=int(seed),
            progress=progress,
            n_train=int(n_train),
            density_params=density_params(dens),
        ),
    )


def coincide_note(meta: dict) -> str:
    """The caption's sentence on learning curves that coincide (``layout.meta`` of
    :func:`slb.viz.experiments.learning_curve_figure`), e.g. SLB's when its selection chose
    TAN (H37: SLB's line was hidden under TAN's); empty when none do.

    Examples
    --------
    >>> coincide_note({"classifiers": ["SLB", "TAN", "NB"],
    ...                "coincide": {"SLB": ["TAN"], "TAN": ["SLB"]}})
    " SLB's line is TAN's (the same errors at every n: SLB's selection chose TAN); both are drawn, with different markers and dashes."
    """
    same, said, parts = meta.get("coincide") or {}, set(), []
    for c in meta.get("classifiers", []):
        if c in same and c not in said:
            said.update([c, *same[c]])
            why = (
                f": SLB's selection chose {same[c][0]}" if c == "SLB" and len(same[c]) == 1 else ""
            )
            parts.append(
                f" {c}'s line is {' and '.join(same[c])}'s (the same errors at every n{why}); "
                "both are drawn, with different markers and dashes."
            )
    return "".join(parts)


def will_run(models, values, what: str, fmt=str) -> str:
    """The full selection of a run in words, under its pills (multiselects cut their chips at
    1024 px, H37: "SLB × TA…", and the fourth classifier DISCRETE hidden behind "…").

    Examples
    --------
    >>> will_run(["SLB", "TAN"], [400, 200], "n")
    'Will run: SLB, TAN at n = 200, 400.'
    >>> will_run([], [0.1], "p")
    'Will run: nothing yet (choose at least one classifier).'
    """
    if not models:
        return "Will run: nothing yet (choose at least one classifier)."
    if not values:
        return f"Will run: nothing yet (choose at least one {what})."
    return (
        f"Will run: {', '.join(map(str, models))} at {what} = "
        + ", ".join(fmt(v) for v in sorted(values))
        + "."
    )
