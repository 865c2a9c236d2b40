"""Per-session settings of the dashboard, kept in ``st.session_state`` (never at module level).

All settings that outlive one page live in one dict, ``st.session_state["cfg"]`` (see
:data:`DEFAULTS`).  Widgets are *bound* to an entry with :func:`bound`: before the widget is
drawn its session-state key is set from the entry, and its ``on_change`` callback writes the new
value back.  Callbacks run before the script reruns, so the sidebar (drawn before the page)
always shows the current values, and a value set on one page (say λ on Dependencies) is the one
every other page sees, even though Streamlit forgets the widgets of pages that are not shown.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import streamlit as st

CFG = "cfg"

#: Every persistent setting and its default.
DEFAULTS: dict[str, Any] = {
    # --- data --------------------------------------------------------------------------------
    "source": "bundled",  # "bundled" | "synthetic" | "toy" | "upload"
    "bundled_name": "sonar",
    "syn_family": "forest",  # "forest" | "bn"
    "syn_n": 400,
    "syn_d": 20,
    "syn_balance": 0.5,
    "syn_cpd": "normal",
    "syn_shared": False,
    "syn_seed": 0,
    "toy_kind": "xor",  # toy 2-D data (dashboard/toy.py): a name of slb.data.toy.TOY_DATASETS
    "toy_n": 400,
    "toy_noise": 0.1,
    "toy_seed": 0,
    "label": None,  # upload: label column (None: guess)
    # positive class as text; None: two classes, the smaller one; more than two, every class
    # kept (no merge); dashboard.data.SMALLER_VS_REST: the smaller class vs the rest
    "positive": None,
    "drop_classes": [],  # classes (as text) left out of the data (Data page; none by default)
    "features": None,  # list of feature columns (None: all)
    "non_numeric": "drop",
    "keep_identifiers": False,  # keep id-like columns as features (prepare_table's option)
    "missing": "drop",
    "drop_duplicates": False,  # drop rows repeating an earlier row and its class (duplicate_rows)
    "max_rows": 1000,
    "max_features": 60,
    "sheet": None,
    "n_folds": 5,
    "cv_repeats": 5,  # Compare page: repeats of the K-fold CV (fewer when too costly)
    "seed": 0,  # folds, SLB's internal CV / cross-fitting, RF
    # --- dependence and λ --------------------------------------------------------------------
    "measure": "hsic",
    "pair_rule": "either",
    "lam_mode": "value",  # "value" | "quantile" | "fdr" | "cv"
    "lam_value": 0.0,
    "lam_quantile": 0.9,
    "fdr_alpha": 0.05,
    "lam_context": None,  # (data key, measure, pair rule) the λ value was set for
    "lam_default": None,  # the default λ of that context (a different lam_value: set by hand)
    "lam_table": None,  # (raw table key, label) of that context (controls.table_identity)
    "cluster": True,
    # --- densities ---------------------------------------------------------------------------
    "bw_rule": "scott",
    "bw_mult": 1.0,
    "bw_overrides": {},  # feature name -> multiplier
    "density_view": "feature",
    "density_feature": None,
    "density_pair": None,
    # --- compare / explain -------------------------------------------------------------------
    "extra_models": [],
    "coef_visible": 40,
    "explain_row": 0,
    "explain_top": 12,
    "explain_share": 80,  # % of the decision the grouped waterfall accounts for
}


#: Query parameter marking a browser tab whose session used an uploaded file.  Uploads live in
#: the session only; after a reload or a server restart the new session finds the mark in the
#: URL and says the upload is gone, instead of silently showing the bundled dataset.
URL_MARK = "data"
UPLOAD_LOST = "_upload_lost"
LOST_MESSAGE = (
    "Your uploaded data is gone after a reload or a restart of the server (uploads are kept "
    "only for the browser session, never stored). Upload it again on the Data page; until "
    "then every page shows the bundled dataset."
)


def init() -> dict:
    """Create the session's settings on its first run; return them."""
    if CFG not in st.session_state:
        st.session_state[CFG] = copy.deepcopy(DEFAULTS)
        if st.query_params.get(URL_MARK) == "upload":  # a reload or restart lost the upload
            st.session_state[CFG]["source"] = "upload"
            st.session_state[UPLOAD_LOST] = True
    cfg = st.session_state[CFG]
    for k, v in DEFAULTS.items():  # settings added by a newer version of the app
        cfg.setdefault(k, copy.deepcopy(v))
    return cfg


def cfg() -> dict:
    """The session's settings (created if needed)."""
    return init()


def bound_to(
    widget: Callable,
    label: str,
    *,
    key: str,
    get: Callable[[], Any],
    put: Callable[[Any], None],
    **kwargs,
):
    """Draw ``widget(label, key=key, **kwargs)`` showing ``get()``; changes call ``put(value)``.

    Before the widget is drawn its session-state key is set to ``get()`` (so a value changed on
    another page shows up here); the ``on_change`` callback passes the new value to ``put``.
    Do not pass ``value``/``index``/``default``.
    """
    value = get()
    lo, hi = kwargs.get("min_value"), kwargs.get("max_value")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        # A range that shrank (another dataset): show the nearest allowed value.
        if lo is not None and value < lo:
            value = lo
        if hi is not None and value > hi:
            value = hi
    # Set on every run, not only when it differs: a session whose widgets are still being
    # drawn under load otherwise reports the widget's minimum back as a user change.
    st.session_state[key] = value

    def _sync():
        put(st.session_state[key])

    return widget(label, key=key, on_change=_sync, **kwargs)


def bound(
    widget: Callable,
    label: str,
    name: str,
    *,
    key: str,
    on_change: Callable[[], None] | None = None,
    **kwargs,
):
    """Draw ``widget(label, key=key, **kwargs)`` bound to the setting ``cfg[name]``.

    Parameters
    ----------
    widget : callable
        A Streamlit widget function (``st.slider``, ``st.selectbox``, ...; also ``st.sidebar.*``
        or a column's method).  Do not pass ``value``/``index``/``default``: the value comes
        from the setting.
    label : str
    name : str
        Key of the setting in ``cfg``.
    key : str
        The widget's key (unique per page; browser tests and AppTest find widgets by it).
    on_change : callable or None
        Extra callback run after the setting is updated.

    Returns
    -------
    The widget's return value.
    """

    def put(v):
        cfg()[name] = v
        if on_change is not None:
            on_change()

    return bound_to(widget, label, key=key, get=lambda: cfg()[name], put=put, **kwargs)


def density_key() -> tuple:
    """Hashable density settings ``(rule, multiplier, ((feature, multiplier), ...))``."""
    c = cfg()
    ds = st.session_state.get("dataset")
    names = set(ds.feature_names) if ds is not None else set()
    ov = tuple(sorted((str(k), float(v)) for k, v in c["bw_overrides"].items() if k in names))
    return (str(c["bw_rule"]), float(c["bw_mult"]), ov)


def design_density_key() -> tuple:
    """:func:`density_key` for a synthetic design: the rule and the multiplier, without the
    per-feature multipliers, which name the session's own columns (a design's features are
    others: passed to it they were refused as unknown features)."""
    rule, mult, _ = density_key()
    return (rule, mult, ())


def density_params(key: tuple) -> dict:
    """Keyword arguments of the density estimators for a :func:`density_key`."""
    rule, mult, ov = key
    return {
        "bandwidth": rule,
        "bandwidth_multiplier": mult,
        "bandwidth_overrides": dict(ov) or None,
    }


def dataset():
    """The session's current :class:`dashboard.data.Dataset`."""
    return st.session_state["dataset"]


def raw_table():
    """The :class:`dashboard.data.RawTable` the session's dataset was built from (None before
    the Data page built one)."""
    return getattr(st.session_state.get("data_build"), "raw", None)


def sync_url() -> None:
    """Keep the upload's state in step with the data source; the tab's upload mark in the
    address (``data=upload``) follows :func:`upload_marked`, written by
    :func:`dashboard.urlstate.write` with the other settings (one address change per run)."""
    if st.session_state.get("upload") is not None:
        st.session_state.pop(UPLOAD_LOST, None)


def upload_marked() -> bool:
    """Whether the address carries the upload mark: marked only once there is something to
    lose (or it was lost and not yet replaced)."""
    return cfg()["source"] == "upload" and (
        st.session_state.get("upload") is not None or bool(st.session_state.get(UPLOAD_LOST))
    )


def upload_lost() -> bool:
    """True while a reloaded or restarted session waits for its upload to come back."""
    return (
        bool(st.session_state.get(UPLOAD_LOST))
        and cfg()["source"] == "upload"
        and st.session_state.get("upload") is None
    )
