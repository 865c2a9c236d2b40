"""Where the data comes from: bundled datasets, synthetic Bayesian networks, uploaded files.

Every source goes through the same two library steps, so they behave alike:

1. a raw table (:class:`RawTable`): ``slb.load_dataset`` + its label column, a synthetic draw
   (``slb.make_forest_bn`` / ``slb.make_general_bn``), or ``slb.tables.read.read_table`` on the uploaded
   bytes;
2. ``slb.tables.clean.prepare_table`` chooses the label, the positive class and the features, and
   reports everything it dropped or fixed.

The result is a :class:`Dataset`: with two classes ``y`` is coded 1 for the positive class, 0
for the negative class, so SLB's ``+`` is always the positive class; with K > 2 classes (kept
as they are unless the user merges or drops classes on the Data page, issue 25) ``y`` is the
index of each row's class in ``Dataset.classes``.  :func:`build` runs both steps from the
session's settings; it never raises for bad input: it returns the reason instead.

Uploads: the file uploader's callback stores ``{"name", "data", "key"}`` under
``st.session_state["upload"]`` (:func:`make_upload`); everything downstream reads that entry.
Tests put the same entry into the session state, so they exercise exactly the code path a real
upload takes (AppTest cannot drive ``st.file_uploader``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import streamlit as st

from slb import BUNDLED_DATASETS, load_dataset, make_forest_bn, make_general_bn
from slb._utils import check_magnitude
from slb.data.toy import TOY_DATASETS, make_toy
from slb.tables import MIN_ROWS_PER_CLASS
from slb.tables.clean import prepare_table, stray_classes
from slb.tables.read import DEFAULT_MAX_BYTES, SUPPORTED_EXTENSIONS, list_excel_sheets, read_table

from . import state
from .workqueue import queued

_LOG = logging.getLogger(__name__)

SOURCES = {
    "bundled": "Bundled dataset",
    "synthetic": "Synthetic",
    "toy": "Toy 2-D",
    "upload": "Upload a file",
}
UPLOAD_TYPES = tuple(e.lstrip(".") for e in SUPPORTED_EXTENSIONS)
LABEL_GUESSES = ("label", "class", "target", "y", "outcome", "diagnosis", "response")
MAX_CLASS_OPTIONS = 200
_CACHE = {"max_entries": 32, "ttl": 4 * 3600}
UPLOAD_MEMO = "_upload_memo"  # session-state entry of :func:`_session_memo`


@dataclass(frozen=True)
class RawTable:
    """A table before preparation."""

    frame: pd.DataFrame
    name: str
    source: str
    key: str
    default_label: str
    label_fixed: bool
    notes: tuple = ()
    sheets: tuple | None = None
    positive: object = None
    description: str = ""
    data_seed: int | None = None
    oracle_coef: pd.Series | None = None
    read_seconds: float = 0.0  # time the upload's reading took (the rest of its budget cleans)


@dataclass(frozen=True)
class Dataset:
    """The prepared data every page works on.

    Two classes: ``y`` is 1 for the positive class, 0 for the negative one (``classes`` is
    empty or ``(negative, positive)``).  K > 2 classes: ``classes`` holds the K class labels in
    order and ``y`` the index of each row's class; ``positive_label``/``negative_label`` are
    then the last and first class (the pages use ``classes``).
    """

    name: str
    source: str
    X: pd.DataFrame
    y: np.ndarray  # two classes: 1 = positive, 0 = negative; K classes: index into classes
    positive_label: str
    negative_label: str
    key: str
    label: str
    report: pd.DataFrame  # columns: severity, change
    class_counts: dict
    n_folds: int
    description: str = ""
    data_seed: int | None = None
    oracle_coef: pd.Series | None = None
    read_seconds: float = 0.0  # time the upload's reading took (the rest of its budget cleans)
    notes: tuple = field(default=())
    classes: tuple = ()  # K > 2: the class labels, in the order of y's codes
    #: the rows, the features and which rows share a class, whatever the classes' order and
    #: names (swapping the positive class keeps it: the per-class dependence is the same)
    partition_key: str = ""
    #: each prepared row's position in the raw table (0-based; rows the cleaning dropped are
    #: absent): what "Apply a saved model" compares its predicted rows with
    source_rows: np.ndarray | None = None

    @property
    def K(self) -> int:
        """Number of classes (2 unless the data keep more than two classes)."""
        return len(self.classes) if len(self.classes) > 2 else 2

    @property
    def multiclass(self) -> bool:
        return self.K > 2

    @property
    def class_labels(self) -> tuple:
        """Every class label in the order of ``y``'s codes ((negative, positive) for two)."""
        return tuple(self.classes) if self.multiclass else self.class_names

    @property
    def class_texts(self) -> tuple:
        """Every class as the pages write it, in the order of ``y``'s codes: ``("− mine",
        "+ rock")`` for two classes (the sidebar's and Compare's signs), the labels for more
        (H37: the Decision surface's legend read "mine / rock")."""
        if self.multiclass:
            return tuple(str(c) for c in self.classes)
        return f"− {self.negative_label}", f"+ {self.positive_label}"

    @property
    def feature_names(self) -> list[str]:
        return [str(c) for c in self.X.columns]

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    @property
    def class_names(self) -> tuple[str, str]:
        """(negative, positive) names, in the order of ``y`` = 0, 1."""
        return self.negative_label, self.positive_label


@dataclass
class BuildResult:
    """What :func:`build` found: a dataset, or the reason there is none, plus the raw table."""

    dataset: Dataset | None
    error: str | None
    raw: RawTable | None
    label_options: list = field(default_factory=list)
    class_options: list = field(default_factory=list)
    feature_options: list = field(default_factory=list)
    #: (class, its rows, the other class's rows) that "automatic" picked, see smaller_class
    auto_positive: tuple | None = None
    #: every class of the label (after the classes the user dropped) when there are more than
    #: two: the Data page then offers "all K classes" (the default), or one class vs the rest
    multi_classes: list = field(default_factory=list)
    #: {class: rows} of the label's classes (before any merge or drop)
    class_rows: dict = field(default_factory=dict)


#: ``cfg["positive"]`` value of "one class vs the rest, the smaller class" (K > 2 classes; the
#: default None keeps every class).
SMALLER_VS_REST = "\x00smaller-vs-rest"
#: Above this many classes the label must be merged (one vs the rest) or classes dropped.
MAX_CLASSES = 20


#: Labels of the Data page's cleaning controls, so the notes can name what the user sees.
TEXT_COLUMNS_LABEL = "Text columns that are not numbers"
MISSING_LABEL = "Rows with missing values"
IDENTIFIERS_LABEL = "Keep columns that look like identifiers"
DUPLICATES_LABEL = "Drop repeated rows (same values and class as an earlier row)"
CLEANING_EXPANDER = "Cleaning and size limits"
#: ``prepare_table`` names its own parameters in its notes; the Data page names the controls.
_API_TO_CONTROL = {
    "non_numeric='encode'": f"“{CLEANING_EXPANDER}” → “{TEXT_COLUMNS_LABEL}”: one-hot encode",
    "missing='impute'": f"“{CLEANING_EXPANDER}” → “{MISSING_LABEL}”: fill with the column median",
    "keep_identifiers=True": f"tick “{IDENTIFIERS_LABEL}” under the feature columns",
    "(duplicate_rows='drop')": f"(“{CLEANING_EXPANDER}” → “{DUPLICATES_LABEL}”)",
}


def control_words(message: str) -> str:
    """``message`` with the library's parameter names replaced by the dashboard's controls."""
    for api, control in _API_TO_CONTROL.items():
        message = message.replace(api, control)
    return message


def smaller_class(options: list, counts) -> str:
    """The class "automatic" makes positive: the one with fewer rows.

    Ties go to the class listed last in ``options`` (sorted by value: with 0/1 labels of equal
    size that is 1, as ``prepare_table`` does).  ``counts`` maps each option to its rows.
    """
    return min(reversed(options), key=lambda v: int(counts.get(v, 0)))


def format_bytes(n: int) -> str:
    """A file size for people: ``"812 bytes"``, ``"3.4 kB"``, ``"12.0 MB"``."""
    if n < 1000:
        return f"{n} bytes"
    if n < 1000**2:
        return f"{n / 1000:.1f} kB"
    return f"{n / 1000**2:.1f} MB"


# --------------------------------------------------------------------------------------------
# Uploads
# --------------------------------------------------------------------------------------------
def make_upload(name: str, data: bytes) -> dict:
    """The session entry describing an uploaded file (what the uploader callback stores)."""
    data = bytes(data)
    return {
        "name": str(name),
        "data": data,
        "key": hashlib.blake2b(data + str(name).encode(), digest_size=16).hexdigest(),
    }


def on_upload() -> None:
    """``st.file_uploader`` callback: store the new file (or forget it) and switch to it."""
    f = st.session_state.get("upload_file")
    if f is None:
        return  # keep using the last upload; the user can pick another source
    st.session_state["upload"] = make_upload(f.name, f.getvalue())
    state.cfg()["source"] = "upload"


# --------------------------------------------------------------------------------------------
# Raw tables (cached: global, keyed on content)
# --------------------------------------------------------------------------------------------
#: Short titles of the bundled datasets where their description's is long (the others: the
#: description's first words, "Sonar", ...).
DATASET_LABELS = {"wdbc": "Breast cancer (WDBC)", "pima": "Pima diabetes"}


def bundled_title(name: str) -> str:
    """The bundled dataset's title, as the Data page's box, its heading and the sidebar write it
    (H54: the box said "Sonar", the heading and the sidebar "sonar").

    Examples
    --------
    >>> bundled_title("sonar"), bundled_title("pima")
    ('Sonar', 'Pima diabetes')
    """
    return DATASET_LABELS.get(name, BUNDLED_DATASETS[name][1].split(":")[0])


@st.cache_data(show_spinner=False, **_CACHE)
def _bundled(name: str) -> RawTable:
    X, y = load_dataset(name)
    frame = X.assign(label=y.to_numpy())
    return RawTable(
        frame=frame,
        name=bundled_title(name),
        source="bundled",
        key=f"bundled:{name}",
        default_label="label",
        label_fixed=True,
        description=BUNDLED_DATASETS[name][1],
    )


@st.cache_data(show_spinner="Drawing the synthetic data…", **_CACHE)
def _synthetic(
    family: str, n: int, d: int, balance: float, cpd: str, shared: bool, seed: int
) -> RawTable:
    kw = dict(
        n_train=int(n), n_test=0, d=int(d), cpd=cpd, balance=float(balance), random_state=int(seed)
    )
    if family == "forest":
        syn = make_forest_bn(**kw)
        what = f"forest Bayesian networks ({syn.design['n_trees']} trees per class)"
    else:
        syn = make_general_bn(shared=bool(shared), **kw)
        what = "Bayesian networks with 3 parents per node" + (
            f", {len(syn.design['shared_nodes'])} of its {d} nodes shared by the classes"
            if shared
            else ", independent classes"
        )
    # The generators label the classes +1 / -1 (the paper's convention); the pages write the
    # negative class as "− <label>", which read "− -1" (H49), so the table says 1 / 0.
    frame = syn.X_train.assign(y=np.where(np.asarray(syn.y_train) == 1, 1, 0))
    name = f"synthetic {syn.name}"
    desc = (
        f"Synthetic {what}, {cpd} marginals, n = {n}, d = {d}, "
        f"{round(100 * balance)}% positive, data seed {seed}. The uncalibrated design (the "
        "paper's text, with our own choices where it is silent); the Experiments page's "
        "default of the same name is calibrated to the paper's error rates, so its numbers "
        "differ."
    )
    return RawTable(
        frame=frame,
        name=name,
        source="synthetic",
        key=f"synthetic:{family}:{n}:{d}:{balance}:{cpd}:{shared}:{seed}",
        default_label="y",
        label_fixed=True,
        positive=1,
        description=desc,
        data_seed=int(seed),
        oracle_coef=syn.oracle_coef,
    )


@st.cache_data(show_spinner=False, **_CACHE)
def _toy(kind: str, n: int, noise: float, seed: int) -> RawTable:
    """A toy 2-D table (:mod:`slb.data.toy`); two classes: 1 is the positive class."""
    X, y = make_toy(kind, n=int(n), noise=float(noise), random_state=int(seed))
    desc = f"{TOY_DATASETS[kind][1]}; n = {n}, noise {noise:g}, data seed {seed}."
    return RawTable(
        frame=X.assign(label=y.to_numpy()),
        name=f"toy {kind}",
        source="toy",
        key=f"toy:{kind}:{n}:{noise}:{seed}",
        default_label="label",
        label_fixed=True,
        positive=1 if y.nunique() == 2 else None,
        description=desc,
        data_seed=int(seed),
    )


def _session_memo(name: str, key, compute):
    """``compute()``, remembered for this session only while ``key`` stays the same.

    Uploads and everything made from them live in ``st.session_state`` (freed when the
    session ends), never in the process-wide ``st.cache_data``: a 50 MB upload used to leave
    hundreds of MB on the server for an hour after its session closed.  Only the latest
    result per ``name`` is kept; a failure is remembered too, so a bad file is not re-parsed
    on every interaction.
    """
    memo = st.session_state.setdefault(UPLOAD_MEMO, {})
    hit = memo.get(name)
    if hit is None or hit[0] != key:
        try:
            hit = (key, queued(compute)(), None)  # a big upload waits in the server's line
        except Exception as exc:  # noqa: BLE001 - re-raised below, and on every rerun
            hit = (key, None, exc)
        memo[name] = hit
    if hit[2] is not None:
        raise hit[2].with_traceback(None)
    return hit[1]


#: Seconds an upload may take from its bytes to the prepared data (issue 29: every file ends in a
#: result or a clear error within 10 s); reading gets 8 of them at most, cleaning the rest.
UPLOAD_SECONDS = 10.0


def _uploaded(key: str, _data: bytes, filename: str, sheet) -> RawTable:
    start = time.perf_counter()
    tr = read_table(
        _data, filename, sheet=sheet, max_bytes=DEFAULT_MAX_BYTES, time_limit=UPLOAD_SECONDS - 2
    )
    read_seconds = time.perf_counter() - start
    frame = tr.frame
    guess = next(
        (c for c in frame.columns if str(c).strip().lower() in LABEL_GUESSES), frame.columns[-1]
    )
    return RawTable(
        frame=frame,
        name=filename,
        source="upload",
        key=f"upload:{key}:{sheet}",
        default_label=str(guess),
        label_fixed=False,
        notes=tuple(tr.notes),
        sheets=tuple(tr.sheets) if tr.sheets else None,
        description=f"Uploaded file ({frame.shape[0]} rows × {frame.shape[1]} columns as read).",
        read_seconds=read_seconds,
    )


@st.cache_data(show_spinner=False, max_entries=8, ttl=3600)
def _sheets(key: str, _data: bytes) -> list[str]:
    if not _data.startswith(b"PK"):
        return []
    try:
        return list_excel_sheets(_data)
    except Exception:  # not a workbook: read_table will explain
        return []


def excel_sheets(upload: dict | None) -> list[str]:
    """Worksheet names of an uploaded Excel workbook (empty for other files)."""
    if upload is None:
        return []
    return _sheets(upload["key"], upload["data"])


def _class_advice(counts: dict) -> str:
    """What the Data page's class controls can do about classes too small to keep apart: leave
    classes out when two of them are large enough, or one class against the rest when one is
    and the others together are; nothing when neither works (a tiny table: H30 was advised to
    do both with every class under the minimum)."""
    sizes = sorted((int(v) for v in counts.values()), reverse=True)
    big = [v for v in sizes if v >= MIN_ROWS_PER_CLASS]
    out = []
    if len(big) >= 2:
        out.append("leave the small classes out (“Classes to drop”)")
    if big and sum(sizes) - big[-1] >= MIN_ROWS_PER_CLASS:
        out.append("separate one large class from the rest (“Classes”)")
    if not out:
        return (
            f" No choice of classes helps: the table needs at least {MIN_ROWS_PER_CLASS} rows "
            "in each of two groups of classes."
        )
    return " With several classes, you can also " + " or ".join(out) + "."


def _prepare_table(
    raw_key: str,
    _raw: RawTable,
    label: str,
    positive,
    features,
    non_numeric: str,
    missing: str,
    max_rows,
    max_features,
    n_folds: int,
    seed: int,
    keep_identifiers: bool = False,
    multiclass: bool = False,
    dropped: tuple = (),
    duplicate_rows: str = "keep",
) -> Dataset:
    """Prepare ``_raw`` (``prepare_table``) as the dataset of the pages.

    ``dropped``: classes (as text) left out first.  ``duplicate_rows``: ``prepare_table``'s
    (copies compared with their classes as read, so also right when ``multiclass``).
    ``multiclass``: keep every class (K > 2):
    ``prepare_table`` makes two classes, so it is run one-vs-rest with the smallest class
    positive (its class-size checks and the folds it allows are then those of the smallest
    class) and each kept row's own class comes back through ``source_rows``.
    """
    frame = _raw.frame
    texts = None  # the label as text: only when classes are dropped or kept (a big upload's
    if dropped or multiclass:  # two-class label is never converted)
        texts = frame.iloc[:, [str(c) for c in frame.columns].index(label)]
        texts = texts.astype(str).str.strip()
    positions = np.arange(len(frame))  # each row's position in the raw table
    if dropped:  # classes the user chose to leave out (Data page)
        keep = ~texts.isin(set(dropped)).to_numpy()
        frame, texts, positions = frame.loc[keep], texts.loc[keep], positions[keep]
    if multiclass:
        counts = texts[texts != ""].value_counts().to_dict()
        order = _class_options(frame, label)
        positive = smaller_class(order, counts)
    try:
        prep = prepare_table(
            frame,
            label,
            positive=positive,
            features=list(features) if features is not None else None,
            non_numeric=non_numeric,
            missing=missing,
            max_rows=max_rows,
            max_features=max_features,
            n_folds=n_folds,
            random_state=seed,
            keep_identifiers=keep_identifiers,
            duplicate_rows=duplicate_rows,
            # an upload's cleaning gets what its reading left of the file's budget
            time_limit=max(2.0, UPLOAD_SECONDS - _raw.read_seconds)
            if _raw.source == "upload"
            else None,
        )
    except ValueError as e:
        if not multiclass:
            raise
        raise ValueError(f"{e}{_class_advice(counts)}") from None
    X = prep.X.astype(float)
    # The library's one magnitude rule, here so the Data page names the column (st.error)
    # instead of Densities, Compare and Explain failing later.
    check_magnitude(X.to_numpy(), [str(c) for c in X.columns])
    changes = list(prep.report)
    classes: tuple = ()
    if multiclass:
        row_class = texts.to_numpy(dtype=object)[np.asarray(prep.source_rows, dtype=np.int64)]
        classes = tuple(c for c in order if np.any(row_class == c))
        y = np.array([classes.index(v) for v in row_class], dtype=np.int64)
        changes = [ch for ch in changes if ch.kind not in ("merged_classes",)]
        pos, neg = classes[-1], classes[0]
        class_counts = {c: int(np.sum(y == k)) for k, c in enumerate(classes)}
    else:
        y = prep.y01.astype(np.int64)
        pos, neg = str(prep.positive_label), str(prep.negative_label)
        class_counts = {pos: int(y.sum()), neg: int((1 - y).sum())}
    folds_allowed = int(prep.n_folds or n_folds)
    if multiclass:
        smallest = min(class_counts.values())
        if smallest < 2:
            small = min(class_counts, key=class_counts.get)
            raise ValueError(
                f"The class '{small}' keeps {smallest} row after cleaning: too few to "
                "cross-validate. Leave it out under “Classes to drop”, or merge the classes."
            )
        folds_allowed = min(folds_allowed, smallest)
    h = hashlib.blake2b(digest_size=16)
    h.update(np.ascontiguousarray(X.to_numpy()).tobytes())
    h.update("\x1f".join(X.columns).encode())
    part = h.copy()  # the same rows and features (hashed once), then the grouping alone
    part.update(_first_seen_codes(y).tobytes())
    h.update(y.tobytes())
    h.update("\x1f".join(classes).encode() if classes else f"{pos}\x1f{neg}".encode())
    report = pd.DataFrame(
        {
            "severity": [c.severity for c in changes],
            "change": [control_words(c.message) for c in changes],
        }
    )
    if multiclass:
        note = (
            f"The label column '{prep.label}' has {len(classes)} classes, all kept as they are "
            f"({', '.join(f'{c}: {class_counts[c]} rows' for c in classes)}). To separate one "
            "class from the rest or to leave classes out, use “Classes” above."
        )
        report = pd.concat(
            [pd.DataFrame({"severity": ["info"], "change": [note]}), report], ignore_index=True
        )
    oracle = None
    all_cols = [c for c in _raw.frame.columns if str(c) != label]
    if (
        _raw.oracle_coef is not None
        and list(X.columns) == [str(c) for c in all_cols]
        and len(X) == len(_raw.frame)
    ):
        oracle = _raw.oracle_coef
    return Dataset(
        name=_raw.name,
        source=_raw.source,
        X=X,
        y=y,
        positive_label=pos,
        negative_label=neg,
        key=h.hexdigest(),
        label=str(prep.label),
        report=report,
        class_counts=class_counts,
        n_folds=folds_allowed,
        description=_raw.description,
        data_seed=_raw.data_seed,
        oracle_coef=oracle,
        notes=_raw.notes,
        classes=classes,
        partition_key=part.hexdigest(),
        source_rows=positions[np.asarray(prep.source_rows, dtype=np.int64)],
    )


def _first_seen_codes(y) -> np.ndarray:
    """``y`` recoded by the order in which its classes first appear: the same array for the
    same grouping of the rows, whatever the classes' codes.

    Examples
    --------
    >>> _first_seen_codes(np.array([1, 1, 0, 1])).tolist()
    [0, 0, 1, 0]
    >>> _first_seen_codes(np.array([2, 0, 2, 1])).tolist()
    [0, 1, 0, 2]
    """
    _, first, inverse = np.unique(y, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inverse.ravel()]


#: Bundled and synthetic tables: shared by every session, so cached process-wide.
_prepare = st.cache_data(show_spinner="Preparing the table…", **_CACHE)(_prepare_table)


def _prepare_upload(*args) -> Dataset:
    """:func:`_prepare_table` of an uploaded table, remembered in the session only."""

    def run():
        with st.spinner("Preparing the table…"):
            return _prepare_table(*args)

    return _session_memo("prepared", args[:1] + args[2:], run)


# --------------------------------------------------------------------------------------------
# Building the session's dataset
# --------------------------------------------------------------------------------------------
def _raw_from_settings(cfg: dict, upload: dict | None) -> RawTable | None:
    src = cfg["source"]
    if src == "bundled":
        return _bundled(cfg["bundled_name"])
    if src == "synthetic":
        return _synthetic(
            cfg["syn_family"],
            cfg["syn_n"],
            cfg["syn_d"],
            cfg["syn_balance"],
            cfg["syn_cpd"],
            cfg["syn_shared"],
            cfg["syn_seed"],
        )
    if src == "toy":
        return _toy(
            str(cfg["toy_kind"]),
            int(cfg["toy_n"]),
            round(float(cfg["toy_noise"]), 4),
            int(cfg["toy_seed"]),
        )
    if upload is None:
        return None

    def read():
        with st.spinner("Reading the file…"):
            return _uploaded(upload["key"], upload["data"], upload["name"], cfg["sheet"])

    return _session_memo("raw", (upload["key"], cfg["sheet"]), read)


def _class_options(frame: pd.DataFrame, label: str) -> list[str]:
    s = frame[label].dropna()
    vals = pd.unique(s.astype(str).str.strip())
    vals = [v for v in vals if v != ""]
    try:
        vals = sorted(vals, key=lambda v: (0, float(v)))
    except ValueError:
        vals = sorted(vals)
    return vals[:MAX_CLASS_OPTIONS]


def _auto_note(ds: Dataset, auto: tuple, counts: dict) -> Dataset:
    """``ds`` with a note saying which class "automatic" made positive, and why."""
    pos, n_pos, _ = auto
    neg = next(k for k in counts if k != pos)
    # the prepared rows' counts (rows dropped for missing values are gone), and the counts the
    # choice was made on, the table's as read, where they differ (H28 found them mixed up)
    kept_pos, kept_neg = int(np.sum(ds.y == 1)), int(np.sum(ds.y == 0))
    as_read = ""
    if (kept_pos, kept_neg) != (int(n_pos), int(counts[neg])):
        as_read = f" ({n_pos} and {int(counts[neg])} in the table as read)"
    msg = (
        f"'{pos}' ({kept_pos} rows) is treated as the positive class and '{neg}' "
        f'({kept_neg} rows) as the negative class, because "automatic" picks the smaller '
        f"class{as_read}. Choose the positive class to change this."
    )
    note = pd.DataFrame({"severity": ["info"], "change": [msg]})
    return dataclasses.replace(ds, report=pd.concat([note, ds.report], ignore_index=True))


def build(cfg: dict, upload: dict | None) -> BuildResult:
    """Raw table + preparation from the settings; errors become a message, never a traceback."""
    try:
        raw = _raw_from_settings(cfg, upload)
    except ValueError as e:
        return BuildResult(None, str(e), None)
    except Exception as e:  # a reader bug must not take the app down
        _LOG.exception("Reading the data failed")
        return BuildResult(None, f"The file could not be read ({type(e).__name__}: {e}).", None)
    if raw is None:
        return BuildResult(None, None, None)

    # A new raw table: forget the choices made for the previous one.  The session's first
    # table keeps its positive class: it is the default or a shared address's (H45: a link
    # lost the class the teacher had chosen).
    # Its classes left out and its feature columns too (H48: a link that left a class out
    # gave the three classes).
    if cfg.get("raw_key") != raw.key:
        first = cfg.get("raw_key") is None
        if not first and cfg["raw_key"].split(":", 2)[:2] != raw.key.split(":", 2)[:2]:
            cfg["features"] = None
        cfg["raw_key"] = raw.key
        cfg["label"] = None if not raw.label_fixed else raw.default_label
        if not first:
            cfg["positive"] = None
            cfg["drop_classes"] = []
        if cfg["features"] is not None:
            cfg["features"] = [f for f in cfg["features"] if f in map(str, raw.frame.columns)]
            cfg["features"] = cfg["features"] or None
    columns = [str(c) for c in raw.frame.columns]
    label = cfg["label"] if cfg["label"] in columns else raw.default_label
    cfg["label"] = label
    all_options = _class_options(raw.frame, label)
    labels = raw.frame[label].dropna().astype(str).str.strip()
    labels = labels[labels != ""]
    class_rows = labels.value_counts().to_dict()
    dropped: list = []
    if raw.positive is None:  # classes the user left out (Data page; never by default)
        dropped = [v for v in (cfg.get("drop_classes") or []) if v in all_options]
        if len(dropped) != len(cfg.get("drop_classes") or []):
            cfg["drop_classes"] = dropped
    class_options = [v for v in all_options if v not in dropped]
    counts = {k: v for k, v in class_rows.items() if k not in dropped}
    # more than two classes (not two plus a stray one, which prepare_table drops)
    many = raw.positive is None and len(class_options) > 2 and not stray_classes(counts)
    positive = raw.positive if raw.positive is not None else cfg["positive"]
    if positive == SMALLER_VS_REST and not many:
        positive = cfg["positive"] = None
    if (
        positive is not None
        and raw.positive is None
        and positive != SMALLER_VS_REST
        and str(positive) not in class_options
    ):
        positive = cfg["positive"] = None
    auto = None
    multiclass = False
    if many and positive is None:
        # issue 25: the classes are kept as they are; merging is the user's explicit choice
        multiclass = len(class_options) <= MAX_CLASSES  # above: prepare_table says to choose
    elif many and positive == SMALLER_VS_REST:  # one vs the rest, "the smaller class"
        positive = smaller_class(class_options, counts)
        auto = (
            positive,
            int(counts.get(positive, 0)),
            int(sum(counts.values())) - int(counts.get(positive, 0)),
        )
    if raw.positive is None and positive is None and len(class_options) == 2:
        smaller = smaller_class(class_options, counts)
        other = next(v for v in class_options if v != smaller)
        auto = (smaller, int(counts.get(smaller, 0)), int(counts.get(other, 0)))
    feature_options = [c for c in columns if c != label]
    features = cfg["features"]
    if features is not None:
        features = [f for f in features if f in feature_options]
    upload_src = raw.source == "upload"
    result = BuildResult(None, None, raw, columns, class_options, feature_options, auto)
    result.multi_classes = list(class_options) if many else []
    result.class_rows = {v: int(class_rows.get(v, 0)) for v in all_options}

    def prepare(pos):
        return (_prepare_upload if upload_src else _prepare)(
            raw.key,
            raw,
            label,
            pos,
            tuple(features) if features is not None else None,
            cfg["non_numeric"] if upload_src else "drop",
            cfg["missing"] if upload_src else "drop",
            int(cfg["max_rows"]) if upload_src and cfg["max_rows"] else None,
            int(cfg["max_features"]) if upload_src and cfg["max_features"] else None,
            int(cfg["n_folds"]),
            int(cfg["seed"]),
            bool(cfg.get("keep_identifiers")) if upload_src else False,
            multiclass,
            tuple(dropped),
            "drop" if upload_src and cfg.get("drop_duplicates") else "keep",
        )

    try:
        if auto is not None and not many:
            # "automatic" means the smaller class, also for 0/1 labels, where prepare_table's
            # own default is 1; cfg["positive"] stays None, so the box still says "automatic".
            # Prepared with it, so that the note is the page's, with the prepared rows' counts
            # (prepare_table's own note counts the file's rows: H47 read "'fault' (22 rows)"
            # above "+ fault: 21" once a row was dropped for a missing value).
            ds = _auto_note(prepare(auto[0]), auto, counts)
        else:
            ds = prepare(positive)
    except ValueError as e:
        result.error = control_words(str(e))
        return result
    except Exception as e:
        _LOG.exception("Preparing the data failed")
        result.error = f"The table could not be prepared ({type(e).__name__}: {e})."
        return result
    result.dataset = ds
    return result


def report_frame(notes) -> pd.DataFrame:
    """(severity, message) pairs as the table the Data page shows."""
    rows = [tuple(n) for n in notes]
    return pd.DataFrame(rows, columns=["severity", "change"])


def preview(ds: Dataset, n: int = 200) -> pd.DataFrame:
    """The first ``n`` prepared rows, with the class as the first column."""
    X = ds.X.head(n)
    if ds.multiclass:
        cls = np.asarray(ds.classes, dtype=object)[ds.y[: len(X)]]
    else:
        cls = np.asarray(ds.class_texts, dtype=object)[ds.y[: len(X)]]
    out = X.copy()
    out.insert(0, "class (prepared)", cls)
    return out


def refresh() -> BuildResult:
    """Build the dataset from the session's settings and make it the current one if valid.

    On failure the previous dataset stays in use (the Data page shows the reason).  On the
    very first run of a session, a failure falls back to the bundled default.
    """
    cfg = state.cfg()
    result = build(cfg, st.session_state.get("upload"))
    if result.dataset is not None:
        old = st.session_state.get("dataset")
        # The content hash names the data; settings outside it (the number of folds, the
        # report) still replace the dataset, but only new data resets the bandwidth overrides.
        new = result.dataset
        if old is None or (old.key, old.n_folds, old.name) != (new.key, new.n_folds, new.name):
            st.session_state["dataset"] = result.dataset
            if old is not None and old.key != result.dataset.key:
                cfg["bw_overrides"] = {}
    elif "dataset" not in st.session_state:
        fallback = state.DEFAULTS
        st.session_state["dataset"] = build(dict(fallback), None).dataset
    st.session_state["data_build"] = result
    return result
