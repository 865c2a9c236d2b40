"""Explain: which log-density terms pushed SLB's decision for one sample, and which way."""

import numpy as np
import pandas as pd
import streamlit as st

from dashboard import compute, controls, models, multiclass, shell, state
from dashboard.safety import escape_markdown as esc
from slb.viz import figures

shell.ensure()


def binary_page(c: dict, ds) -> None:
    """Two classes: the waterfall of SLB's one decision value."""
    neg, pos = ds.class_names
    dens = state.density_key()
    lam = compute.current_lambda(ds, c, dens)

    st.title("Explain a decision")
    st.caption(
        f"SLB fitted on all the data at λ = {controls.format_lambda(lam.value)} (change λ on the "
        "Dependencies or Compare page). Each term contributes weight × (its value for this sample − "
        "its training mean); the contributions add up to the decision value."
    )

    contrib, baseline, decision = compute.slb_contributions(
        ds.key, ds, lam.value, c["measure"], c["pair_rule"], dens, int(c["seed"])
    )
    pred = (decision > 0).astype(int)
    wrong = np.flatnonzero(pred != ds.y)

    controls.explain_sample_controls(ds, c, wrong)

    i = int(c["explain_row"])
    truth = pos if ds.y[i] == 1 else neg
    guess = pos if pred[i] == 1 else neg
    m = st.columns(4)
    m[0].metric("true class", esc(f"{'+' if ds.y[i] else '−'} {truth}"[:40]))
    m[1].metric("SLB predicts", esc(f"{'+' if pred[i] else '−'} {guess}"[:40]))
    m[2].metric("decision value", f"{decision[i]:+.3f}")
    m[3].metric("baseline (at the training means)", f"{baseline:+.3f}")

    row = contrib.iloc[i]
    st.plotly_chart(
        figures.contributions_figure(
            row,
            baseline=baseline,
            top=int(c["explain_top"]),
            pos_name=pos,
            neg_name=neg,
            feature_names=ds.feature_names,
        ),
        key="explain_figure",
        config={"displaylogo": False},
    )
    st.caption(
        f"The waterfall starts at the baseline (the decision value of a sample at the training "
        f"means) and adds one term at a time until the decision value: > 0 predicts + ({esc(pos)}), "
        f"< 0 predicts − ({esc(neg)}). A step drawn in the + class's colour (blue, as on every page) "
        f"pushes toward + ({esc(pos)}); one in the − class's colour (orange) pushes toward − "
        f'({esc(neg)}). Choosing another sample redraws the steps; "Terms shown" moves terms '
        'into or out of the "other terms" step without changing the total.'
    )
    st.caption(
        "Reading a weight: a positive weight on log p−(x) means that the more likely the negative "
        "class's density finds this sample (compared with the training mean), the more the term "
        "pushes toward +; a negative weight on log p−(x), the usual case, pushes such a sample "
        "toward −. A positive weight on log p+(x) pushes toward + where the positive class's "
        "density is high. So a step's sign is the weight's sign times whether the density is above "
        "or below its mean here. The densities include this sample (the model was fitted on all rows)."
    )

    top = row.abs().sort_values(ascending=False).index[: int(c["explain_top"])]
    st.dataframe(
        pd.DataFrame({"term": top, "contribution": row[top].to_numpy()}),
        hide_index=True,
        width="stretch",
    )
    with st.expander("This sample's feature values"):
        st.dataframe(ds.X.iloc[[i]].T.rename(columns={ds.X.index[i]: "value"}), width="stretch")
    models.download_model(ds)


if state.dataset().multiclass:  # K > 2 classes: every class's score, the winner's margin
    multiclass.explain_page(state.cfg(), state.dataset())
else:
    binary_page(state.cfg(), state.dataset())
