"""The classifiers the Compare page offers, built from :data:`slb.evaluation.registry.CLASSIFIERS`.

The registry is ``slb.evaluation.registry`` (shared with the experiments and the benchmarks): a name here
builds exactly the estimator ``slb.evaluation.registry.make_classifier`` builds under that name.  This
module only chooses which catalogue entries the page shows and which are compared from the
start, and wraps each as a :class:`ModelSpec`: ``make(density_params, seed)`` returns an
unfitted estimator; ``uses_density`` says whether it uses the shared KDE settings (then its
cached BER is keyed on them); ``default`` puts it in the comparison from the start.  The page
evaluates SLB itself through :class:`slb.ThresholdPath` (so λ moves fast), not through ``make``.
To add a classifier, add it to ``slb.evaluation.registry``.

:func:`download_model` is the "Download model" block pages call with one line: the chosen
classifier fitted with its :class:`slb.tables.TableCleaner` (the Data page's cleaning) as one
model file of :mod:`slb.persistence`.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import streamlit as st
from sklearn.pipeline import Pipeline

from slb.evaluation.registry import CLASSIFIERS as CATALOG
from slb.evaluation.registry import make_classifier
from slb.persistence import save_model
from slb.tables.clean import TableCleaner

from . import state
from .safety import safe_file_stem

#: Compared from the start, in this order (SLB first: the page reads it from the λ path).
DEFAULT_MODELS = ("SLB", "TAN", "NB")
#: Catalogue entries the page leaves out: SLB's dependence measure is a page control already.
HIDDEN = ("SLB(Pearson)",)


@dataclass(frozen=True)
class ModelSpec:
    """How to build and describe one classifier of the comparison."""

    make: Callable[[dict, int], object]
    uses_density: bool
    default: bool
    summary: str


def _spec(name: str) -> ModelSpec:
    info = CATALOG[name]

    def make(density_params, seed, _name=name):
        return make_classifier(_name, random_state=seed, **dict(density_params or {}))

    return ModelSpec(make, info.uses_densities, name in DEFAULT_MODELS, info.summary)


_ORDER = [*DEFAULT_MODELS, *(n for n in CATALOG if n not in DEFAULT_MODELS and n not in HIDDEN)]

#: name -> ModelSpec, built once at import time; read-only.
CLASSIFIERS: Mapping[str, ModelSpec] = MappingProxyType({n: _spec(n) for n in _ORDER})
OPTIONAL_MODELS = tuple(n for n, s in CLASSIFIERS.items() if not s.default)


def compared(cfg: dict) -> list[str]:
    """The classifiers the Compare page cross-validates: the default ones, then those the
    session added (the page and its prefetch on the Data page ask for the same runs)."""
    return [*DEFAULT_MODELS, *(m for m in cfg["extra_models"] if m in CLASSIFIERS)]


# --------------------------------------------------------------------------------------------
# "Download model": a classifier plus its TableCleaner for the current data and settings
# --------------------------------------------------------------------------------------------
def _cleaners(ds, raw, cfg: dict):
    """TableCleaners with the Data page's settings, for each positive class it may have used.

    :func:`dashboard.data.build` passes the positive class the user chose, or none (then
    ``prepare_table``'s own default), or the smaller class; the caller keeps the first whose
    cleaned table is the session's dataset.
    """
    upload = raw.source == "upload"
    columns = [str(c) for c in raw.frame.columns]
    features = cfg["features"]
    if features is not None:
        features = [f for f in features if f in columns and f != ds.label] or None
    common = dict(
        features=features,
        non_numeric=cfg["non_numeric"] if upload else "drop",
        missing=cfg["missing"] if upload else "drop",
        max_rows=int(cfg["max_rows"]) if upload and cfg["max_rows"] else None,
        max_features=int(cfg["max_features"]) if upload and cfg["max_features"] else None,
        n_folds=int(cfg["n_folds"]),
        random_state=int(cfg["seed"]),
        keep_identifiers=bool(cfg.get("keep_identifiers")) if upload else False,
        duplicate_rows="drop" if upload and cfg.get("drop_duplicates") else "keep",
    )
    chosen = raw.positive if raw.positive is not None else cfg["positive"]
    for positive in dict.fromkeys([chosen, None, ds.positive_label]):
        yield TableCleaner(ds.label, positive=positive, **common)


def model_file(ds, raw, cfg: dict, name: str, density_key: tuple) -> bytes:
    """The bytes of a model file: ``Pipeline(TableCleaner, classifier)`` fitted on ``raw``.

    The cleaner repeats the Data page's cleaning (its cleaned table must be the session's
    dataset, value for value); the classifier is the catalogue's ``name`` with the shared
    density settings and seed, fitted on the cleaned rows with the original class names, so
    the file predicts those names for new raw rows.

    Raises
    ------
    ValueError
        The cleaning cannot be repeated (the data settings changed since the dataset was built).
    """
    if getattr(ds, "multiclass", False):
        return _model_file_k(ds, raw, cfg, name, density_key)
    for cleaner in _cleaners(ds, raw, cfg):
        try:
            prep = cleaner.fit_prepare(raw.frame)
        except ValueError:
            continue
        same = list(prep.X.columns) == ds.feature_names and np.array_equal(
            prep.X.to_numpy(), ds.X.to_numpy()
        )
        if same and str(prep.positive_label) == ds.positive_label:
            break
    else:
        raise ValueError(
            "The cleaning of the current data could not be repeated (the data settings changed "
            "since the dataset was built); open the Data page and try again."
        )
    dens = state.density_params(density_key)
    model = CLASSIFIERS[name].make(dens, int(cfg["seed"])).fit(prep.X, prep.y)
    buf = io.BytesIO()
    save_model(Pipeline([("clean", cleaner), ("model", model)]), buf)
    return buf.getvalue()


def _model_file_k(ds, raw, cfg: dict, name: str, density_key: tuple) -> bytes:
    """:func:`model_file` for K > 2 classes: the cleaner is fitted one-vs-rest on the kept
    classes' rows, as the Data page prepared them (:func:`dashboard.data._prepare_table`: its
    cleaning of the features does not depend on the positive class), and the classifier on
    the cleaned rows with each row's own class name, so the file predicts the K classes."""
    if CATALOG[name].binary_only is not None:
        raise ValueError(f"{name} takes two classes only: {CATALOG[name].binary_only}")
    frame = raw.frame
    columns = [str(c) for c in frame.columns]
    texts = frame.iloc[:, columns.index(cfg["label"])].astype(str).str.strip()
    dropped = set(cfg.get("drop_classes") or [])
    if dropped:
        keep = ~texts.isin(dropped).to_numpy()
        frame, texts = frame.loc[keep], texts.loc[keep]
    counts = texts[texts != ""].value_counts().to_dict()
    smallest = min(reversed(list(ds.classes)), key=lambda v: int(counts.get(v, 0)))
    cleaner = next(_cleaners(ds, raw, {**cfg, "positive": smallest}))
    try:
        prep = cleaner.fit_prepare(frame)
    except ValueError as e:
        raise ValueError(f"The cleaning of the current data could not be repeated: {e}") from e
    same = list(prep.X.columns) == ds.feature_names and np.array_equal(
        prep.X.to_numpy(), ds.X.to_numpy()
    )
    if not same:
        raise ValueError(
            "The cleaning of the current data could not be repeated (the data settings changed "
            "since the dataset was built); open the Data page and try again."
        )
    y = texts.to_numpy(dtype=object)[np.asarray(prep.source_rows, dtype=np.int64)]
    dens = state.density_params(density_key)
    model = CLASSIFIERS[name].make(dens, int(cfg["seed"])).fit(prep.X, y.astype(str))
    buf = io.BytesIO()
    save_model(Pipeline([("clean", cleaner), ("model", model)]), buf)
    return buf.getvalue()


def download_model(ds, key: str = "dl_model") -> None:
    """A "Download model" block: pick a classifier, fit it with its cleaner, download the file.

    Pages call it with one line.  The file is made on demand (fitting SLB can take a while) and
    kept in the session for the same data, classifier and settings.
    """
    raw = state.raw_table()
    st.markdown("**Download model**")
    if raw is None:
        st.caption("Build a dataset on the Data page to download a model for it.")
        return
    cfg, dens = state.cfg(), state.density_key()
    left, right = st.columns([2, 1])
    offered = [
        n
        for n in CLASSIFIERS
        if not getattr(ds, "multiclass", False) or CATALOG[n].binary_only is None
    ]
    name = left.selectbox("Classifier to download", offered, key=f"{key}_name")
    wanted = (ds.key, name, dens, int(cfg["seed"]))
    if right.button("Fit it for download", key=f"{key}_fit"):
        try:
            with st.spinner(f"Fitting {name} on all {ds.n} rows…"):
                st.session_state[f"{key}_file"] = (wanted, model_file(ds, raw, cfg, name, dens))
        except ValueError as e:
            st.error(str(e))
    made = st.session_state.get(f"{key}_file")
    if made is not None and made[0] == wanted:
        st.download_button(
            f"Download model ({name} + its table cleaner)",
            made[1],
            file_name=f"{safe_file_stem(f'{ds.name}_{name}', 'model')}.slbmodel",
            mime="application/zip",
            key=f"{key}_button",
            on_click="ignore",
        )
    st.caption(
        "The file holds the classifier (the catalogue's default settings, the density settings "
        "in use, shown in the sidebar and set on the Densities page (Compare, Dependencies "
        "and Decision surface have the same bandwidth controls), fitted on all rows: SLB's file chooses its own λ and C by cross-validation, "
        "so it is not the model at the λ explained above) and the cleaning of the Data page, "
        "so new rows of a table "
        "with the same columns are cleaned the same way: "
        "`slb.persistence.load_model(path).predict(new_table)` (see the README), or "
        '"Apply a saved model" below. '
        "It is JSON plus numeric arrays: loading it runs no code from the file."
    )
