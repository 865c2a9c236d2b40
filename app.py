"""SLB Explorer: the Streamlit entry point (``streamlit run app.py``) and its home page, Data.

This script runs on every interaction, whatever the page: it builds the session's dataset from
its settings, works out the current λ, draws the sidebar and then runs the selected page
(``st.navigation``; the other pages are the files in ``pages/``).
"""

from __future__ import annotations

import logging

import streamlit as st

from dashboard import data, evaluation, shell, state, toy, warmup
from dashboard.safety import escape_markdown as esc
from slb import BUNDLED_DATASETS
from slb.data.synthetic import shared_node_count
from slb.viz import figures
from slb.viz import multiclass as mfigures

shell.page_config()  # the tab icon is a local file (a material name is fetched from a CDN)

SYN_FAMILIES = {"forest": "Forest Bayesian networks", "bn": "Bayesian networks, 3 parents"}
# short: in the Data page's narrow column "imbalanced 75/25" broke as "imbalanc / ed" (H49)
SYN_BALANCE = {0.5: "50/50", 0.75: "75/25"}
SYN_CPD = {"normal": "normal", "complex": "complex"}  # the radio's help says what complex is
NON_NUMERIC = {"drop": "drop them", "encode": "one-hot encode (≤ 10 categories)"}
AUTO = "\x00automatic"  # the "let the library decide" option of a selectbox
MISSING = {"drop": "drop the rows", "impute": "fill with the column median"}


def _upload_in_use(up: dict, build: data.BuildResult) -> None:
    """Which uploaded file is in use (the uploader itself shows nothing after a page change)."""
    raw = build.raw if build.raw is not None and build.raw.source == "upload" else None
    shape = f", {raw.frame.shape[0]} rows × {raw.frame.shape[1]} columns as read" if raw else ""
    if build.error:  # the file was rejected: the previous data stays in use (said beside)
        st.warning(
            f"Not in use: **{esc(up['name'])}** ({data.format_bytes(len(up['data']))}{shape}) "
            "could not be used (the reason is beside). Upload another file below, or change "
            "the table's settings if the reason names one.",
            icon=":material/description:",
        )
        return
    st.info(
        f"In use: **{esc(up['name'])}** ({data.format_bytes(len(up['data']))}{shape}). "
        "To replace it, upload another file below; it stays in use until you do.",
        icon=":material/description:",
    )


def _source_widgets(c: dict, build: data.BuildResult) -> None:
    state.bound(
        st.radio,
        "Data source",
        "source",
        key="data_source",
        options=list(data.SOURCES),
        format_func=data.SOURCES.get,
        horizontal=True,
    )
    if c["source"] == "bundled":
        state.bound(
            st.selectbox,
            "Dataset",
            "bundled_name",
            key="bundled_name",
            options=list(BUNDLED_DATASETS),
            # short: the whole description truncated in a 1024-px-wide window; it is shown
            # beside, under the dataset's name
            format_func=data.bundled_title,
            help="  \n".join(esc(BUNDLED_DATASETS[n][1]) for n in BUNDLED_DATASETS),
        )
    elif c["source"] == "synthetic":
        state.bound(
            st.radio,
            "Design",
            "syn_family",
            key="syn_family",
            options=list(SYN_FAMILIES),
            format_func=SYN_FAMILIES.get,
        )
        a, b = st.columns(2)
        with a:
            state.bound(
                st.slider, "Rows n", "syn_n", key="syn_n", min_value=100, max_value=2000, step=50
            )
            state.bound(
                st.radio,
                "Class balance",
                "syn_balance",
                key="syn_balance",
                options=list(SYN_BALANCE),
                format_func=SYN_BALANCE.get,
            )
        with b:
            state.bound(
                st.slider, "Features d", "syn_d", key="syn_d", min_value=5, max_value=40, step=1
            )
            state.bound(
                st.radio,
                "Marginals (CPDs)",
                "syn_cpd",
                key="syn_cpd",
                options=list(SYN_CPD),
                format_func=SYN_CPD.get,
                # short options: in the half column at 1024 px "complex (t₅ / Gaussian
                # mixture)" wrapped into the option above it (H50)
                help="normal: a node is Gaussian around its parents' values; complex: with "
                "probability ½ a Student t (5 degrees of freedom) around them, else a mixture "
                "of two Gaussians.",
            )
        if c["syn_family"] == "bn":
            state.bound(
                st.checkbox,
                "Classes share nodes",  # H50: the longer label was cut at 1024 px
                "syn_shared",
                key="syn_shared",
                help=f"About a third of the nodes ({shared_node_count(int(c['syn_d']))} of "
                f"{int(c['syn_d'])}) have the same parents, and so the same distribution, in "
                "both classes' networks.",
            )
        state.bound(
            st.number_input,
            "Data seed",
            "syn_seed",
            key="syn_seed",
            min_value=0,
            max_value=2**31 - 1,
            step=1,
        )
    elif c["source"] == "toy":
        toy.widgets(c)
    else:
        up = st.session_state.get("upload")
        if up is not None:
            _upload_in_use(up, build)
        st.file_uploader(
            "Upload a table (CSV, TSV, Excel, Parquet)",
            type=list(data.UPLOAD_TYPES),
            key="upload_file",
            on_change=data.on_upload,
            help="At most 50 MB. Text files: the separator and encoding are detected. "
            "Nothing in the file is ever executed. The file stays in this browser session "
            "only, and so do the settings that depend on it (its classes, feature columns, "
            "λ and per-feature bandwidths): the page's address (a shared link, a reload) "
            "keeps the others (folds, seed, screening, bandwidth rule, classifiers). After a "
            "reload, upload the file again; the HTML report on Compare lists what to set.",
        )
        sheets = data.excel_sheets(up)
        if len(sheets) > 1:
            if c["sheet"] is not None and c["sheet"] not in sheets:
                c["sheet"] = None
            state.bound_to(
                st.selectbox,
                "Worksheet",
                key="sheet",
                options=[AUTO, *sheets],
                get=lambda: AUTO if c["sheet"] is None else c["sheet"],
                put=lambda v: c.__setitem__("sheet", None if v == AUTO else v),
                format_func=lambda s: "first non-empty sheet" if s == AUTO else str(s),
            )


def _auto_text(build: data.BuildResult) -> str:
    """The "automatic" option of the positive-class box, naming the class it picked (short:
    a 1024-px window shows about 20 characters of it; :func:`_auto_why` says why)."""
    if build.auto_positive is None:
        return "automatic (the smaller class)"
    return f"automatic: {build.auto_positive[0]}"


def _auto_why(build: data.BuildResult) -> str:
    """Why "automatic" picked its class (the caption under the positive-class box)."""
    if build.auto_positive is None:
        return ""
    pos, n, n_other = build.auto_positive
    if n == n_other:
        return f"automatic: {pos} (both classes have {n} rows: the one listed last)"
    return f"automatic: {pos} (the smaller class, {n} rows in the table as read)"


def _classes_widgets(c: dict, build: data.BuildResult) -> None:
    """More than two classes: keep them all (the default) or, by choice, one vs the rest."""
    K = len(build.multi_classes)
    rows = build.class_rows

    def fmt(v):
        if v == AUTO:
            # short: "all 3 classes, kept apart (no merge)" was cut in its box at 1024 px (H45)
            return f"all {K} classes"
        if v == data.SMALLER_VS_REST:
            small = data.smaller_class(build.multi_classes, rows)
            # short (cut at 1024 px otherwise); counted in the file as read, before the cleaning
            return f"smaller class vs rest: {small} ({rows.get(small, 0)} rows as read)"
        return str(v)

    state.bound_to(
        st.selectbox,
        "Classes",
        key="positive_class",
        options=[AUTO, data.SMALLER_VS_REST, *build.multi_classes],
        get=lambda: AUTO if c["positive"] is None else c["positive"],
        put=lambda v: c.__setitem__("positive", None if v == AUTO else v),
        format_func=fmt,
        help="By default every class is kept and every model separates all of them. Choosing "
        "one class makes it SLB's '+' class and merges all the other classes into one "
        "negative class (one vs the rest).",
    )
    if c["positive"] is not None:
        st.caption(
            "One vs the rest: the other classes are merged into one negative class. Choose "
            f"“all {K} classes” to keep them apart."
        )


def _drop_widget(c: dict, build: data.BuildResult) -> None:
    """Leave classes out (never by default)."""
    options = list(build.class_rows)
    state.bound_to(
        st.multiselect,
        "Classes to drop",
        key="drop_classes",
        options=options,
        get=lambda: [v for v in c.get("drop_classes") or [] if v in options],
        put=lambda v: c.__setitem__("drop_classes", list(v)),
        format_func=lambda v: f"{v} ({build.class_rows.get(v, 0)} rows)",
        help="The rows of these classes are left out of the data. None by default.",
    )


def _table_widgets(c: dict, build: data.BuildResult) -> None:
    raw = build.raw
    if raw is None:
        return
    if not raw.label_fixed:
        state.bound(
            st.selectbox, "Label column", "label", key="label_column", options=build.label_options
        )
    if raw.positive is None and build.multi_classes:
        _classes_widgets(c, build)
    elif raw.positive is None and build.class_options:
        state.bound_to(
            st.selectbox,
            "Positive class (+)",
            key="positive_class",
            options=[AUTO, *build.class_options],
            get=lambda: AUTO if c["positive"] is None else c["positive"],
            put=lambda v: c.__setitem__("positive", None if v == AUTO else v),
            format_func=lambda v: _auto_text(build) if v == AUTO else str(v),
            help="SLB's '+' class. \"automatic\" picks the class with fewer rows (equal sizes: "
            "the one listed last, e.g. 1 of 0/1).",
        )
        if c["positive"] is None and build.auto_positive is not None:
            st.caption(esc(_auto_why(build)))
    if raw.positive is None and (build.multi_classes or c.get("drop_classes")):
        _drop_widget(c, build)
    opts = build.feature_options
    used = len(c["features"]) if c["features"] is not None else len(opts)
    title = f"Feature columns ({used} of {len(opts)} chosen"
    if build.dataset is not None:  # what the models get, after dropping and encoding
        title += f"; the models get d = {build.dataset.d}"
    # keyed: its title counts the columns, and an unkeyed expander whose title changes is a
    # new one, closed after every column removed (H50)
    with st.expander(title + ")", key="features_expander"):
        state.bound_to(
            st.multiselect,
            "Feature columns",
            key="features",
            options=opts,
            get=lambda: list(c["features"]) if c["features"] is not None else list(opts),
            put=lambda v: c.__setitem__("features", None if set(v) == set(opts) else list(v)),
        )
        if raw.source == "upload":
            state.bound(
                st.checkbox,
                data.IDENTIFIERS_LABEL,
                "keep_identifiers",
                key="keep_identifiers",
                help="All-different whole numbers that rise down the file, or columns named like "
                "id/index/key/number/no, are left out by default: they tell rows apart, not "
                "classes.",
            )
    if raw.source == "upload":
        with st.expander(data.CLEANING_EXPANDER):
            state.bound(
                st.radio,
                data.TEXT_COLUMNS_LABEL,
                "non_numeric",
                key="non_numeric",
                options=list(NON_NUMERIC),
                format_func=NON_NUMERIC.get,
            )
            state.bound(
                st.radio,
                data.MISSING_LABEL,
                "missing",
                key="missing",
                options=list(MISSING),
                format_func=MISSING.get,
            )
            state.bound(
                st.checkbox,
                data.DUPLICATES_LABEL,
                "drop_duplicates",
                key="drop_duplicates",
                help="Repeats are kept by default: a table may hold real repeats, and every "
                "cross-validation here keeps a row and its copies in the same fold. Copies with "
                "another class stay either way.",
            )
            state.bound(
                st.number_input,
                "Keep at most this many rows (stratified sample)",
                "max_rows",
                key="max_rows",
                min_value=50,
                max_value=20000,
                step=50,
            )
            state.bound(
                st.number_input,
                "Keep at most this many features",
                "max_features",
                key="max_features",
                min_value=2,
                max_value=500,
                step=1,
            )


#: SLB's four steps (Algorithm 1 of the paper), each with the page that shows it.
START_HERE = (
    (
        "1 · Screen pairs by HSIC",
        "pages/dependencies.py",
        "Dependencies",
        "Every feature pair gets a per-class dependence score; λ keeps the pairs above it.",
    ),
    (
        "2 · Per-class 1-d and 2-d KDEs",
        "pages/densities.py",
        "Densities",
        "Each feature, and each kept pair, gets a kernel density estimate in each class.",
    ),
    (
        "3 · Log-density features",
        "pages/explain.py",
        "Explain",
        "A sample becomes its log-density under each class (log p+(x) and log p−(x) for two "
        "classes): one term per density.",
    ),
    (
        "4 · A linear model",
        "pages/compare.py",
        "Compare",
        "A linear model weighs the terms (an SVM for two classes, multinomial for more); its "
        "cross-validated errors are compared with TAN, naive Bayes and others.",
    ),
)


def _start_here() -> None:
    """A short map from SLB's four steps to the pages (for a class watching a projector)."""
    with st.container(border=True):
        st.markdown(
            "**Start here.** SLB classifies in four steps; each page shows one. Choose the data "
            "below, then follow the steps."
        )
        for col, (step, page, title, text) in zip(
            st.columns(len(START_HERE)), START_HERE, strict=True
        ):
            with col:
                st.markdown(f"**{step}**")
                st.caption(text)
                st.page_link(page, label=f"{title} →")


def _class_summary(ds) -> None:
    """Two classes: n, d, each class's rows and their shares."""
    m = st.columns(4)
    m[0].metric("rows n", ds.n)
    m[1].metric("features d", ds.d)
    m[2].metric(esc(f"+ {ds.positive_label}"[:40]), ds.class_counts[ds.positive_label])
    m[3].metric(esc(f"− {ds.negative_label}"[:40]), ds.class_counts[ds.negative_label])
    # The page's one chart.  It also loads plotly in the browser (2-3 s on a slow machine,
    # once per page load) while the visitor reads this page, not on their first Compare.
    st.plotly_chart(
        figures.class_balance(
            ds.class_counts[ds.positive_label],
            ds.class_counts[ds.negative_label],
            ds.positive_label,
            ds.negative_label,
        ),
        key="data_class_balance",
        config={"displaylogo": False, "displayModeBar": False},
    )
    st.caption(
        "Class shares. Every classifier here is scored by the balanced error rate, the mean "
        "of the two classes' error rates, so the larger class does not dominate it."
    )


def _class_summary_k(ds) -> None:
    """K > 2 classes: n, d, K and every class's rows (the label and its classes)."""
    m = st.columns(3)
    m[0].metric("rows n", ds.n)
    m[1].metric("features d", ds.d)
    m[2].metric("classes K", ds.K)
    st.markdown(
        # "Label column" (H48: a column named "label" read "Label **label**")
        f"Label column **{esc(ds.label)}**, {ds.K} classes: "
        + ", ".join(f"**{esc(c)}** ({ds.class_counts[c]})" for c in ds.classes)
    )
    st.plotly_chart(
        mfigures.class_balance_k({c: ds.class_counts[c] for c in ds.classes}),
        key="data_class_balance",
        config={"displaylogo": False, "displayModeBar": False},
    )
    st.caption(
        f"Class shares. Every classifier separates all {ds.K} classes and is scored by the "
        f"macro-averaged error (BER), the mean of the {ds.K} classes' error rates, so the "
        "larger classes do not dominate it."
    )


def data_page() -> None:
    c = state.cfg()
    build: data.BuildResult = st.session_state["data_build"]
    ds = state.dataset()
    st.title("SLB Explorer")
    st.caption(
        "The Sparse Log-Bivariate density classifier (Tenzer et al., JMLR 2020) and its peers. "
        "Choose the data here; every page works on it."
    )
    _start_here()
    left, right = st.columns([2, 3], gap="large")
    with left:
        _source_widgets(c, build)
        _table_widgets(c, build)
        st.subheader("Evaluation")
        a, b = st.columns(2)
        with a:
            state.bound(
                st.number_input,
                "Cross-validation folds",
                "n_folds",
                key="n_folds",
                min_value=2,
                max_value=10,
                step=1,
            )
        with b:
            state.bound(
                st.number_input,
                "Seed (folds, SLB, RF)",
                "seed",
                key="seed",
                min_value=0,
                max_value=2**31 - 1,
                step=1,
            )
    with right:
        if build.error:
            st.error(esc(build.error))
            st.info(f"Still using the previous data: {esc(ds.name)}.")
        elif state.upload_lost():
            st.warning(f"{state.LOST_MESSAGE} Still using: {esc(ds.name)}.")
        elif c["source"] == "upload" and st.session_state.get("upload") is None:
            st.info(f"Upload a file to use it. Still using: {esc(ds.name)}.")
        st.subheader(esc(ds.name))
        if ds.description:
            st.caption(esc(ds.description))
        if ds.multiclass:
            _class_summary_k(ds)
        else:
            _class_summary(ds)
        if ds.n_folds != int(c["n_folds"]):
            st.warning(
                f"The smaller class is too small for {c['n_folds']} folds: using {ds.n_folds}."
            )
        st.markdown("**What was read, dropped or fixed, and why**")
        # the columns the user left out (H50: "Nothing was dropped or changed" under a table
        # without 2 of Pima's 8 columns, whose description still says 8)
        chosen = c["features"]
        left_out = [f for f in build.feature_options if chosen is not None and f not in chosen]
        mine = (
            [
                (
                    "info",
                    f"Left out under “Feature columns”: {', '.join(map(str, left_out))} "
                    f"({len(build.feature_options) - len(left_out)} of "
                    f"{len(build.feature_options)} columns used).",
                )
            ]
            if left_out
            else []
        )
        notes = data.report_frame(
            mine + [("info", n) for n in ds.notes] + list(ds.report.itertuples(index=False))
        )
        for msg in notes.loc[notes["severity"] == "warning", "change"]:
            st.warning(esc(msg), icon=":material/warning:")
        infos = notes.loc[notes["severity"] != "warning", "change"]
        if len(infos):
            st.markdown("\n".join(f"- {esc(m)}" for m in infos))
        elif not len(notes):
            st.caption("Nothing was dropped or changed.")
    # full width, below the two columns (H47: in the right column a 1024-px screen showed
    # 2.5 of 8 columns)
    st.markdown(
        "**Preview** (first 200 rows of the prepared data, numbered from 0 as on the other "
        "pages; the notes above number the file's rows from 1, as a spreadsheet does)"
    )
    shown = data.preview(ds)
    st.dataframe(
        shown,
        width="stretch",
        height=320,
        # four significant digits in every column (H43: the grid's fixed four decimals
        # wrote 0.00093 as "0.0009" and -0.00004 with one digit beside 1234.5678)
        column_config={
            col: st.column_config.NumberColumn(format="%.4g")
            for col in shown.columns[1:]
            if shown[col].dtype.kind == "f"
        },
    )
    if not build.error:  # new data: Compare's cross-validation starts now, in idle time
        try:
            evaluation.prefetch_compare(ds, c, state.density_key())
        except Exception:  # speculative: Compare computes it anyway
            logging.getLogger(__name__).exception("Starting Compare's prefetch failed")


with warmup.page_run():  # the server's warm-up starts nothing while a page is being built
    shell.setup()
    _page = st.navigation(
        [
            st.Page(data_page, title="Data", icon=":material/table_view:", default=True),
            st.Page("pages/dependencies.py", title="Dependencies", icon=":material/hub:"),
            st.Page("pages/densities.py", title="Densities", icon=":material/area_chart:"),
            st.Page("pages/compare.py", title="Compare", icon=":material/leaderboard:"),
            st.Page("pages/explain.py", title="Explain", icon=":material/psychology_alt:"),
            st.Page("pages/surface.py", title="Decision surface", icon=":material/texture:"),
            st.Page("pages/experiments.py", title="Experiments", icon=":material/science:"),
        ]
    )
    shell.run_routed(_page)
