"""The "Apply a saved model" block: a model file predicts the rows of the table in use.

A file of :mod:`slb.persistence` (the Explain page's "Download model", or one saved in Python)
is read by :func:`slb.persistence.load_model` (no pickle, no code from the file; sizes, work and
time bounded, every fitted number checked) and applied by
:func:`slb.evaluation.scoring.score_table` to the Data page's raw table: each row's class and
probabilities, and the balanced error where the table's labels are the model's classes.
Everything from the file (class names, messages quoting its columns) is shown as text.
"""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pandas as pd
import streamlit as st

from slb.evaluation.scoring import score_table
from slb.persistence import load_model

from . import state
from .safety import escape_markdown as esc
from .safety import safe_csv_bytes, safe_file_stem

#: Rows of the predictions shown on the page (all of them go in the download).
SHOWN_ROWS = 200


def _result(data: bytes, ds, raw):
    """(warnings, scores) or (warnings, error message) of the file ``data`` on the table."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome = score_table(load_model(data), raw.frame, ds.label)
        except ValueError as e:
            outcome = str(e)
    return list(dict.fromkeys(str(w.message) for w in caught)), outcome


def _kept(ds, raw, n: int):
    """Whether the Data page's table has each of the first ``n`` raw rows (None: unknown)."""
    if ds.source_rows is None:
        return None
    kept = np.zeros(len(raw.frame), dtype=bool)
    kept[ds.source_rows] = True
    return kept[:n]


#: How the predicted class follows from P(…), by the model file's rule
#: (:func:`slb.probabilities.decision_rule`; a model that does not say gets no sentence).
RULE_TEXT = {
    "balanced": "The predicted class is the classifier's own rule (predict), not the largest "
    "probability: for the balanced error rate each class's probability is divided by that "
    "class's share of the training rows, and the largest quotient wins, while P(…) is the "
    "probability at those shares (docs/probabilities.md). So a rarer class can be predicted at "
    "a probability under ½.",
    "prevalence": "The predicted class is the one of largest probability P(…) (this model "
    "was fitted to predict at the training rows' class shares, not for the balanced error "
    "rate; docs/probabilities.md).",
    "priors": "The predicted class is the classifier's own rule (predict) at the class "
    "priors it was fitted with: each class's probability is reweighted from the training "
    "rows' shares to those priors, and the largest wins, so it need not be the largest "
    "P(…) (docs/probabilities.md).",
}

#: The predictions' column saying whether the Data page's table kept the row.
ON_PAGE = "on the Data page"


def _table(scores, ds, kept) -> pd.DataFrame:
    """The predictions as the page and its CSV show them: the row's number in the file (from
    1, as the Data page's notes count), its label as the model reads it, whether the Data
    page's table kept it, then the predicted class and the probabilities."""
    out = pd.DataFrame({"file row": np.arange(1, scores.n_scored + 1)})
    if scores.truth is not None:  # the label as the model reads it ("not dog" for "cat")
        out[f"{ds.label} (as the model reads it)"] = scores.truth
    if kept is not None:
        # kept / dropped, not yes / no: a table whose classes are "yes" and "no" read
        # "no, yes, no" (H49)
        out[ON_PAGE] = np.where(kept, "kept", "dropped")
    for col in scores.predictions.columns:
        out[col] = scores.predictions[col].to_numpy()
    return out


def apply_model(ds, key: str = "apply_model") -> None:
    """Upload a model file; show its predictions of the table in use and their balanced error.

    Pages call it with one line, below :func:`dashboard.models.download_model`.  The result is
    kept in the session for the same file and data.
    """
    raw = state.raw_table()
    st.markdown("**Apply a saved model**")
    if raw is None:
        st.caption("Build a dataset on the Data page to apply a saved model to it.")
        return
    up = st.file_uploader(
        "A model file (.slbmodel) to predict the rows of the data in use",
        type=["slbmodel"],
        key=f"{key}_file",
    )
    if up is None:
        st.caption(
            'A file from "Download model" (for this table, or another with the same columns) '
            "predicts every row of the Data page's table; where a row's label is one of the "
            "model's classes, the page gives the balanced error rate. Loading runs no code "
            "from the file."
        )
        return
    data = up.getvalue()
    wanted = (hashlib.sha256(data).hexdigest(), ds.key)
    made = st.session_state.get(f"{key}_result")
    if made is None or made[0] != wanted:
        with st.spinner("Reading the model file and predicting…"):
            made = (wanted, *_result(data, ds, raw))
        st.session_state[f"{key}_result"] = made
    _, notes, scores = made
    for note in notes:
        st.warning(esc(note))
    if isinstance(scores, str):
        st.error(esc(scores))
        return
    counts = scores.predictions["predicted"].value_counts()
    shown = " · ".join(f"{esc(c)}: {int(counts.get(c, 0))}" for c in scores.classes)
    rows = f"{scores.n_scored:,} rows predicted"
    if scores.n_scored < scores.n_rows:
        rows += f" (the first {scores.n_scored:,} of {scores.n_rows:,})"
    st.markdown(f"{rows}: {shown}")
    kept = _kept(ds, raw, scores.n_scored)
    table = _table(scores, ds, kept)
    outside = 0 if kept is None else int((~kept).sum())
    n_page, page_ber = scores.ber_on(kept) if outside else (0, float("nan"))
    if outside:
        st.caption(
            f"{outside:,} of these rows are not in the Data page's table of {ds.n:,} rows "
            "(its cleaning dropped them: missing values, repeated rows, left-out classes or "
            "its row limit; see its notes). The model file predicts every row it can read: "
            "it fills a missing value with the training rows' median, as its cleaner's "
            f'"fill" does. Column "{ON_PAGE}" says which rows are which.'
        )
    if scores.n_labelled:
        line = (
            f"Balanced error rate **{100 * scores.ber:.1f}%** on the {scores.n_labelled:,} "
            "rows whose label is one of the model's classes"
        )
        if outside and n_page:
            line += (
                f"; **{100 * page_ber:.1f}%** on the {n_page:,} of them in the Data page's table"
            )
        st.markdown(line + ".")
        st.caption(
            "A test error only if the model never saw these rows. A file fitted on this table "
            '(as "Fit it for download" above does) gives its training error here: '
            "optimistic. Compare's cross-validated table is the honest estimate."
        )
    else:
        st.caption(
            f"No row's label ({esc(ds.label)}) is one of the model's classes: no error rate."
        )
    st.dataframe(
        table.head(SHOWN_ROWS),
        width="stretch",
        hide_index=True,
        column_config={
            c: st.column_config.NumberColumn(format="%.3f")
            for c in table.columns
            if c.startswith("P(")
        },
    )
    if any(col.startswith("P(") for col in table.columns) and scores.rule in RULE_TEXT:
        # H52: 123 of Pima's rows predicted diabetic at P(diabetic) 0.35-0.50, unexplained;
        # said for the file's own rule (a library model may predict at other priors)
        st.caption(RULE_TEXT[scores.rule])
    st.download_button(
        "Download the predictions (CSV)",
        safe_csv_bytes(table, index=False),
        file_name=f"{safe_file_stem(f'{ds.name}_predictions', 'predictions')}.csv",
        mime="text/csv",
        key=f"{key}_csv",
        on_click="ignore",
    )
