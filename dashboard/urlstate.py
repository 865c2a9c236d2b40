"""Shareable settings: the browser's address carries the data (with the Data page's classes left
out and feature columns), λ, the bandwidths and the models.

A teacher copies the address and hands it out; a reload keeps the settings.  Streamlit's
documented ``st.query_params`` is the only interface: :func:`restore` reads it on a session's
first run (a new tab, a reload, a reconnection after a server restart), and :func:`write` puts
the settings in use back at the end of every run's setup, in one change (``from_dict``), only
when they changed.  Streamlit's browser client adds a history entry for every change of the
address (``pushState``; measured in Chromium: one ``st.query_params`` assignment per entry), so
one change per run gives one entry per change of settings or page, and the browser's Back and
Forward step through them: an address that differs from the one this session last wrote came
from the browser's history, and :func:`restore` applies it as the settings (a setting the
address leaves out goes back to its default, as a new session reading it would).  Where
Streamlit says which runs Back or Forward started (:mod:`dashboard._streamlit_compat`), only
those apply it: an address still on its way to the browser when a widget reran the script is
not mistaken for a step back.

Every value in the address is untrusted text: each one goes through its field's parser
(a fixed set of choices, or a number in the widget's range), and one that fails is ignored
with a warning that shows it escaped, never as Markdown.  An uploaded file cannot travel in an
address: the tab is marked ``data=upload`` (:data:`dashboard.state.URL_MARK`) and a new session
says the upload is gone (:data:`dashboard.state.LOST_MESSAGE`).

The address also carries the server process's start id (``srv``): a session that starts with
another process's id in its address was opened before a restart of the server, and says so
(:data:`RESTART_MESSAGE`) instead of silently recomputing everything.

A new data source adds its settings with :func:`register`, as the toy 2-D source does in
:mod:`dashboard.toy` (the source itself is accepted once it is a key of
:data:`dashboard.data.SOURCES`).
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from slb import BUNDLED_DATASETS
from slb.density.bandwidth import BANDWIDTH_RULES

from . import _streamlit_compat, compute, data, models, state
from .controls import FDR_LEVELS, lambda_context, table_identity
from .safety import escape_markdown as esc

#: The id of this server process: a fresh one after every start of the server.
SERVER_ID = uuid.uuid4().hex[:10]
SERVER_PARAM = "srv"

_RESTORED = "_url_restored"  # the session has read its address (once)
_WRITTEN = "_url_written"  # the settings' parameters this session last put in its address
_WARNINGS = "_url_warnings"  # the values of the address that were ignored, for this run
_LAM_FROM_URL = "_url_lambda"  # λ came from the address: keep it for the dataset it names
_LAM_NOTE = "_url_lambda_note"  # the address's λ keeps no pair: said once
_POS_FROM_URL = "_url_positive"  # the positive class the address asked for (checked once built)
_DATA_FROM_URL = "_url_names"  # the classes, columns and multipliers it named (checked once built)
#: The settings whose values name the data's classes or columns.
_NAMED = ("drop_classes", "features", "bw_overrides")
RESTARTED = "_server_restarted"

RESTART_MESSAGE = (
    "The server restarted since this page was opened (a tab left open, or a link copied "
    "before the restart): every figure was computed again from the settings in the address."
)

#: The synthetic designs' choices (the Data page's radios in app.py use the same keys).
SYN_FAMILIES = ("forest", "bn")
SYN_BALANCE = (0.5, 0.75)
SYN_CPD = ("normal", "complex")
MAX_VALUE_SHOWN = 60  # characters of an ignored value quoted in its warning
MAX_CLASS_TEXT = 200  # characters of a class label in the address
SMALLER_TEXT = "smaller-vs-rest*"  # the address's text for data.SMALLER_VS_REST


@dataclass(frozen=True)
class Field:
    """One query parameter: the setting it holds, how to read it, when it is written.

    ``parse`` turns the parameter's text into the setting's value (with ``many``: each of the
    parameter's repeated texts into one item of the setting's list) or raises ``ValueError``
    with the reason; ``show`` turns the setting back into text;
    ``when`` says whether the parameter applies to the current settings (e.g. the bundled
    dataset's name only with the bundled source).
    """

    key: str
    parse: Callable[[Any], Any]
    show: Callable[[Any], Any] = str
    when: Callable[[dict], bool] = lambda c: True
    many: bool = False
    always: bool = False  # written even when equal to the default (λ's default depends on data)
    default: Any = None  # None: the setting's default in dashboard.state.DEFAULTS
    #: ``many``: the parsed items -> the setting's value (default: a list without repeats)
    collect: Callable[[list], Any] = lambda items: list(dict.fromkeys(items))


def choice(options) -> Callable[[str], Any]:
    """A parser accepting exactly one of ``options`` (compared as text)."""
    by_text = {str(o): o for o in options}

    def parse(text: str):
        if text not in by_text:
            raise ValueError("not one of " + ", ".join(by_text))
        return by_text[text]

    return parse


def integer(lo: int, hi: int, step: int = 1) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise ValueError("not a whole number") from None
        if not lo <= v <= hi or (v - lo) % step:
            raise ValueError(f"not a whole number from {lo} to {hi} in steps of {step}")
        return v

    return parse


def number(lo: float, hi: float, *, inf: bool = False) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise ValueError("not a number") from None
        if inf and v == math.inf:
            return v
        if not math.isfinite(v) or not lo <= v <= hi:
            raise ValueError(f"not a number from {lo:g} to {hi:g}")
        return v

    return parse


def class_label(text: str) -> str:
    """A class label as the address gives it (checked against the data once it is built);
    :data:`SMALLER_TEXT` is "the smaller class against the rest"."""
    text = column_name(text, "class name")
    return data.SMALLER_VS_REST if text == SMALLER_TEXT else text


def _class_text(value) -> str:
    return SMALLER_TEXT if value == data.SMALLER_VS_REST else str(value)


def column_name(text: str, what: str = "name") -> str:
    """A class or column name as the address gives it (checked against the data once built)."""
    text = str(text).strip()
    if not text or len(text) > MAX_CLASS_TEXT:
        raise ValueError(f"not a {what} (1 to {MAX_CLASS_TEXT} characters)")
    return text


def feature_multiplier(text: str) -> tuple[str, float]:
    """One per-feature bandwidth multiplier, ``name:multiplier`` (the name may contain ``:``;
    the multiplier in the Densities slider's range)."""
    name, sep, mult = str(text).rpartition(":")
    if not sep:
        raise ValueError("not a feature:multiplier pair")
    return column_name(name), number(0.2, 3.0)(mult)


def _multipliers_text(overrides: dict) -> list[str]:
    return [f"{k}:{float(v):g}" for k, v in overrides.items()]


def boolean(text: str) -> bool:
    if text not in ("0", "1"):
        raise ValueError("not 0 or 1")
    return text == "1"


def _source_options() -> list[str]:
    return [s for s in data.SOURCES if s != "upload"]  # an upload cannot travel in an address


def _is(source: str) -> Callable[[dict], bool]:
    return lambda c: c["source"] == source


def _lam_mode(mode: str) -> Callable[[dict], bool]:
    return lambda c: c["lam_mode"] == mode and _shareable(c)


def _shareable(c: dict) -> bool:
    """An upload's settings stay out of the address (the data cannot follow them)."""
    return c["source"] != "upload"


#: Query parameter -> field.  Short names: the address is read aloud and typed in by students.
FIELDS: dict[str, Field] = {
    # the data is always written: a shared link names it even if the default changes
    "source": Field("source", lambda t: choice(_source_options())(t), when=_shareable, always=True),
    "dataset": Field("bundled_name", choice(BUNDLED_DATASETS), when=_is("bundled"), always=True),
    "design": Field("syn_family", choice(SYN_FAMILIES), when=_is("synthetic")),
    "n": Field("syn_n", integer(100, 2000, 50), when=_is("synthetic")),
    "d": Field("syn_d", integer(5, 40), when=_is("synthetic")),
    "balance": Field("syn_balance", choice(SYN_BALANCE), when=_is("synthetic")),
    "cpd": Field("syn_cpd", choice(SYN_CPD), when=_is("synthetic")),
    "shared": Field(
        "syn_shared",
        boolean,
        show=lambda v: "1" if v else "0",
        when=lambda c: c["source"] == "synthetic" and c["syn_family"] == "bn",
    ),
    "dseed": Field("syn_seed", integer(0, 2**31 - 1), when=_is("synthetic")),
    # the positive class (or one class against the rest): a class label, so it is checked
    # against the data once built (:func:`check_url_positive`); "automatic" is left out
    "pos": Field("positive", class_label, show=_class_text, when=_shareable),
    # the Data page's classes left out and feature columns, the Densities page's per-feature
    # multipliers: names of the data's classes and columns, checked once it is built
    # (:func:`check_url_data`; H48: a pasted link gave 3 classes for 2, and other BERs)
    "drop": Field("drop_classes", column_name, show=list, when=_shareable, many=True),
    "cols": Field("features", column_name, show=list, when=_shareable, many=True),
    "folds": Field("n_folds", integer(2, 10)),
    "seed": Field("seed", integer(0, 2**31 - 1)),
    "repeats": Field("cv_repeats", integer(1, 10)),
    "measure": Field("measure", choice(compute.MEASURES)),
    "pairs": Field("pair_rule", choice(compute.PAIR_RULES)),
    "lmode": Field("lam_mode", choice(compute.LAMBDA_MODES)),
    # repr: the float reads back exactly (a slider's value, not a rounded one)
    "lam": Field(
        "lam_value", number(0.0, 1e12, inf=True), show=repr, when=_lam_mode("value"), always=True
    ),
    "q": Field("lam_quantile", number(0.0, 1.0), show=repr, when=_lam_mode("quantile")),
    "alpha": Field("fdr_alpha", choice(FDR_LEVELS), when=_lam_mode("fdr")),
    "bw": Field("bw_rule", choice(BANDWIDTH_RULES)),
    "bwx": Field("bw_mult", number(0.2, 3.0), show=lambda v: f"{float(v):g}"),
    "bwf": Field(
        "bw_overrides",
        feature_multiplier,
        show=_multipliers_text,
        when=_shareable,
        many=True,
        collect=dict,
    ),
    "model": Field("extra_models", choice(models.OPTIONAL_MODELS), show=list, many=True),
}


def register(param: str, f: Field) -> None:
    """Add a query parameter (a new data source's settings, say ``toy``'s name and noise).

    Its setting must be a key of :data:`dashboard.state.DEFAULTS`, or ``f.default`` given.
    """
    if f.key not in state.DEFAULTS and f.default is None:
        raise ValueError(f"{f.key!r} is not a setting of dashboard.state.DEFAULTS")
    FIELDS[param] = f


def _quoted(text) -> str:
    text = str(text)
    short = text[:MAX_VALUE_SHOWN] + ("…" if len(text) > MAX_VALUE_SHOWN else "")
    return "“" + short + "”"


def parse_params(params: dict[str, list[str]]) -> tuple[dict, list[str]]:
    """Settings from query parameters (name -> list of values); returns (settings, problems).

    Unknown parameters are left alone (they may belong to someone else); a known one whose
    value fails its parser is ignored and named in ``problems`` (plain text, not escaped).

    Examples
    --------
    >>> values, problems = parse_params({"dataset": ["pima"], "bwx": ["9"]})
    >>> values
    {'bundled_name': 'pima'}
    >>> problems
    ['bwx = “9”: not a number from 0.2 to 3, ignored']
    """
    values, problems = {}, []
    for param, f in FIELDS.items():
        texts = params.get(param)
        if not texts:
            continue
        if f.many:  # each item on its own: the good ones are kept
            items = []
            for t in texts:
                try:
                    items.append(f.parse(t))
                except ValueError as e:
                    problems.append(f"{param} = {_quoted(t)}: {e}, ignored")
            values[f.key] = f.collect(items)
            continue
        try:
            values[f.key] = f.parse(texts[-1])
        except ValueError as e:
            problems.append(f"{param} = {_quoted(texts[-1])}: {e}, ignored")
    return values, problems


def _default(f: Field) -> Any:
    """The setting's value when the address leaves its parameter out."""
    return state.DEFAULTS.get(f.key) if f.default is None else f.default


def _read_params() -> dict[str, list[str]]:
    params = {k: st.query_params.get_all(k) for k in st.query_params}
    return {k: v for k, v in params.items() if v}  # (embedding options read as empty)


def _ours(params: dict[str, list[str]]) -> dict[str, list[str]]:
    """The parameters that describe settings (not the server id, not anybody else's)."""
    return {k: v for k, v in params.items() if k in FIELDS or k == state.URL_MARK}


def restore() -> None:
    """Apply the address's settings on a session's first run (and note a server restart), or
    on a later run whose address is not the one this session wrote (Back or Forward)."""
    if st.session_state.get(_RESTORED):
        st.session_state.pop(_WARNINGS, None)  # shown on the run that read them only
        params = _read_params()
        written = st.session_state.get(_WRITTEN)
        back = _streamlit_compat.history_navigation()  # None: this Streamlit does not say
        if written is not None and _ours(params) != written and back is not False:
            _apply(params, history=True)
        return
    st.session_state[_RESTORED] = True
    params = _read_params()
    _apply(params, history=False)
    srv = params.get(SERVER_PARAM)
    if srv and srv[-1] != SERVER_ID:
        st.session_state[RESTARTED] = True


def _apply(params: dict[str, list[str]], *, history: bool) -> None:
    values, problems = parse_params(params)
    c = state.cfg()
    if history:  # a setting the address leaves out is at its default there
        target = {**c, **values}
        for param, f in FIELDS.items():
            if param not in params and not f.always and f.when(target):
                values.setdefault(f.key, _default(f))
    if history and values.get("positive") is not None and _other_data(c, values):
        # the data changes with the step back: its positive class is the address's, not
        # reset as for a new table (dashboard.data.build keeps the first table's choice)
        c.pop("raw_key", None)
    c.update(values)
    asked = {k: values[k] for k in _NAMED if values.get(k)}
    if asked:
        st.session_state[_DATA_FROM_URL] = asked
    if "lam_value" in values:
        st.session_state[_LAM_FROM_URL] = True
    if values.get("positive") is not None:
        st.session_state[_POS_FROM_URL] = values["positive"]
    if problems:
        st.session_state[_WARNINGS] = problems


#: The settings that name the data (another value: another table).
_DATA_KEYS = ("source", "bundled_name", "syn_family", "syn_n", "syn_d", "syn_balance", "syn_cpd")
_DATA_KEYS += ("syn_shared", "syn_seed")


def _other_data(c: dict, values: dict) -> bool:
    """Whether the settings ``values`` name other data than ``c`` does."""
    return any(k in values and values[k] != c.get(k) for k in _DATA_KEYS)


def check_url_positive() -> None:
    """After the dataset is built: a positive class from the address that the data does not
    have is named among the ignored values (the data went back to "automatic")."""
    asked = st.session_state.pop(_POS_FROM_URL, None)
    if asked is not None and state.cfg().get("positive") != asked:
        problems = st.session_state.get(_WARNINGS) or []
        st.session_state[_WARNINGS] = [
            *problems,
            f"pos = {_quoted(_class_text(asked))}: not a class of this data, ignored",
        ]


def check_url_data() -> None:
    """After the dataset is built: the classes, columns and per-feature multipliers the
    address named that this data does not have are named among the ignored values (and the
    multipliers dropped, so the sidebar counts the ones in use)."""
    asked = st.session_state.pop(_DATA_FROM_URL, None)
    build = st.session_state.get("data_build")
    if not asked or build is None or build.dataset is None:
        return
    c = state.cfg()
    problems = []
    classes = {str(v) for v in (getattr(build, "class_rows", None) or {})}
    for v in asked.get("drop_classes", []):
        if v not in classes:
            problems.append(f"drop = {_quoted(v)}: not a class of this data, ignored")
    columns = {str(v) for v in (build.feature_options or [])}
    for v in asked.get("features") or []:
        if v not in columns:
            problems.append(f"cols = {_quoted(v)}: not a feature column of this data, ignored")
    names = set(map(str, build.dataset.feature_names))
    for v in list(asked.get("bw_overrides", {})):
        if v not in names:
            problems.append(f"bwf = {_quoted(v)}: not a feature of this data, ignored")
            c["bw_overrides"].pop(v, None)
    if problems:
        st.session_state[_WARNINGS] = [*(st.session_state.get(_WARNINGS) or []), *problems]


def keep_url_lambda() -> None:
    """After the dataset is built: the address's λ is for that dataset, not a new default.

    (:func:`dashboard.controls.sync_lambda_context` resets λ when the dataset it was set for
    changes; a session that starts from an address has no such dataset yet.)
    """
    if st.session_state.pop(_LAM_FROM_URL, False):
        c = state.cfg()
        ds = state.dataset()
        c["lam_context"] = lambda_context(ds, c)
        c["lam_default"], c["lam_table"] = None, table_identity(ds)  # the address's: by hand
        lam = float(c["lam_value"])
        if c["lam_mode"] == "value" and math.isfinite(lam):
            s = compute.screening(ds.key, ds, c["measure"]).scores(c["pair_rule"])
            if s.size and lam > float(s.max()):  # H45: it became ∞ without a word
                st.session_state[_LAM_NOTE] = (
                    f"λ = {lam:g} from the address is above every pair's score on this data "
                    f"(the largest is {float(s.max()):.4g}): no pair is kept, so λ is ∞."
                )


def wanted(c: dict) -> dict[str, Any]:
    """The query parameters that describe the settings ``c`` (text, or a list for ``many``)."""
    out = {}
    for param, f in FIELDS.items():
        if not f.when(c):
            continue
        default = _default(f)
        v = c.get(f.key, default)
        if not f.always and v == default:
            continue
        shown = f.show(v)
        if f.many and not shown:
            continue
        out[param] = [str(s) for s in shown] if f.many else str(shown)
    return out


def write() -> None:
    """Put the settings in use into the address: one change (one history entry), if any."""
    want = wanted(state.cfg())
    if state.upload_marked():
        want[state.URL_MARK] = "upload"
    want = {k: v if isinstance(v, list) else [v] for k, v in want.items()}
    have = _read_params()
    mine = {*FIELDS, state.URL_MARK, SERVER_PARAM}
    others = {k: v for k, v in have.items() if k not in mine}
    # one order (the fields', then the server id): the browser compares the address's text,
    # and another order of the same settings would be another history entry
    new = {**want, SERVER_PARAM: [SERVER_ID], **others}
    if list(new.items()) != list(have.items()):
        st.query_params.from_dict(new)
    st.session_state[_WRITTEN] = _ours(new)


def notices() -> None:
    """The warnings of this run: ignored address values, a server restart."""
    problems = st.session_state.get(_WARNINGS)
    if problems:
        st.warning(
            "Some settings in the address were not understood and are ignored:  \n"
            + "  \n".join(esc(p) for p in problems),
            icon=":material/link_off:",
        )
    note = st.session_state.pop(_LAM_NOTE, None)
    if note:
        st.info(note, icon=":material/link:")
    if st.session_state.get(RESTARTED):
        with st.sidebar:
            st.warning(RESTART_MESSAGE, icon=":material/restart_alt:")
            st.button("OK", key="restart_notice_ok", on_click=_dismiss_restart)


def _dismiss_restart() -> None:
    st.session_state.pop(RESTARTED, None)
