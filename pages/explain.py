"""Explain: which log-density terms pushed SLB's decision for one sample, and which way."""

import numpy as np
import pandas as pd
import streamlit as st

from dashboard import apply_model, compute, controls, models, multiclass, shell, state
from dashboard.safety import escape_markdown as esc
from slb.evaluation.explain import explained_groups, group_contributions
from slb.viz import figures
from slb.viz.model import term_text
from slb.viz.style import shorten, signed

GROUPINGS = {"group": "by feature and by pair", "term": "one bar per term"}


def grouped_figure(
    row: pd.Series, clf_terms: pd.DataFrame, baseline: float, share: float, pos, neg
):
    """The waterfall by feature and pair: the fewest groups that account for ``share`` of the
    decision, the rest as one step; returns (figure, explanation)."""
    g = group_contributions(row, clf_terms)
    e = explained_groups(g, share=share)
    fig = figures.contributions_figure(
        g, baseline=baseline, top=len(e.shown), pos_name=pos, neg_name=neg
    )
    w = fig.data[0]  # relabel the steps: groups, not log-density terms
    labels, hover = list(w.y), list(w.customdata)
    for k, name in enumerate(e.shown.index, start=1):
        pair = " × " in name and name not in set(clf_terms["feature_i"].astype(str))
        hover[k] = "pair: its bivariate terms" if pair else "feature: its univariate terms"
        hover[k] += ", both classes, summed"
    if e.n_other:
        labels[-2] = f"{e.n_other} other features and pairs"
        hover[-2] = f"sum of the other {e.n_other} features and pairs"
    w.y, w.customdata = labels, hover
    fig.layout.meta = {**fig.layout.meta, "grouped": True, "share": e.share, "other": e.other}
    return fig, e


shell.ensure()


def binary_page(c: dict, ds) -> None:
    """Two classes: the waterfall of SLB's one decision value."""
    neg, pos = ds.class_names
    dens = state.density_key()
    lam = compute.current_lambda(ds, c, dens)

    st.title("Explain a decision")
    st.caption(
        f"SLB fitted on all the data at λ = {controls.format_lambda(lam.value)}, seed "
        f"{int(c['seed'])} (the folds of its cross-fitted densities; change λ on the "
        "Dependencies or Compare page). Each term contributes weight × (its value for this sample − "
        "its training mean); the contributions add up to the decision value."
    )

    contrib, baseline, decision = compute.slb_contributions(
        ds.key, ds, lam.value, c["measure"], c["pair_rule"], dens, int(c["seed"])
    )
    pred = (decision > 0).astype(int)
    wrong = np.flatnonzero(pred != ds.y)

    controls.explain_sample_controls(ds, c, wrong, n_terms=contrib.shape[1])

    i = int(c["explain_row"])
    truth = pos if ds.y[i] == 1 else neg
    guess = pos if pred[i] == 1 else neg
    # two per row: four in a row cut a class name ("+ diab…") at 1024 px with the sidebar open
    m = st.columns(2) + st.columns(2)
    m[0].metric("true class", esc(shorten(f"{'+' if ds.y[i] else '−'} {truth}", 40)))
    m[1].metric("SLB predicts", esc(shorten(f"{'+' if pred[i] else '−'} {guess}", 40)))
    m[2].metric("decision value", signed(decision[i]))
    m[3].metric(  # a short label: a 1024-px window cuts a long one
        "baseline",
        signed(baseline),
        help="The decision value of a sample at the training means: where the waterfall starts.",
    )

    row = contrib.iloc[i]
    grouping = st.radio(
        "Bars",
        list(GROUPINGS),
        format_func=GROUPINGS.get,
        horizontal=True,
        key=controls.EXPLAIN_GROUPING,
        help="By feature and by pair: each feature's univariate terms, and each pair's "
        "bivariate terms, of both classes summed into one bar.",
    )
    if grouping == "group":
        terms = compute.fit_slb(  # cached: the model slb_contributions explained
            ds.key, ds, lam.value, c["measure"], c["pair_rule"], dens, int(c["seed"])
        ).term_table_
        share = int(c["explain_share"])
        fig, e = grouped_figure(row, terms, baseline, share / 100, pos, neg)
        rest = (
            f"the other {e.n_other} features and pairs add {signed(e.other)}"
            if e.n_other
            else "every feature and pair is shown"
        )
        st.markdown(
            f"**{len(e.shown)} bar{' accounts' if len(e.shown) == 1 else 's account'} for "
            f"{e.share:.0%} of this decision's move from the "
            f"baseline** ({signed(e.total)}); {rest}. Shown: the fewest largest features and "
            f"pairs that account for at least {share}% of it (the slider 'Share of the "
            "decision shown'), and enough that the 'other' step is never the largest."
        )
    else:
        top = int(c["explain_top"])
        fig = figures.contributions_figure(
            row,
            baseline=baseline,
            top=top,
            pos_name=pos,
            neg_name=neg,
            feature_names=ds.feature_names,
        )
        meta = fig.layout.meta
        if meta["n_other"] and abs(meta["other"]) > meta["largest"]:
            # a fixed number of bars can leave an "other" step larger than any of them (H52 3:
            # Sonar row 100, 462 other terms, 60% of the move); the grouped view never does
            st.caption(
                f"The other {meta['n_other']} terms together move the decision by "
                f"{signed(meta['other'])}, more than any term shown: many small terms push "
                "the same way. The bars by feature and by pair group them."
            )
    st.plotly_chart(fig, key="explain_figure", config={"displaylogo": False})
    st.caption(
        f"The waterfall starts at the baseline (the decision value of a sample at the training "
        f"means) and adds one term at a time until the decision value: > 0 predicts + ({esc(pos)}), "
        f"< 0 predicts − ({esc(neg)}). A step drawn in the + class's colour (blue, as on every page) "
        f"pushes toward + ({esc(pos)}); one in the − class's colour (orange) pushes toward − "
        f"({esc(neg)}). Choosing another sample redraws the steps; the slider beside the sample "
        'moves bars into or out of the "other" step without changing the total.'
    )
    st.caption(
        "Reading a weight: a positive weight on log p−(x) means that the more likely the negative "
        "class's density finds this sample (compared with the training mean), the more the term "
        "pushes toward +; a negative weight on log p−(x), the usual case, pushes such a sample "
        "toward −. A positive weight on log p+(x) pushes toward + where the positive class's "
        "density is high. So a step's sign is the weight's sign times whether the density is above "
        "or below its mean here. The densities include this sample (the model was fitted on all rows)."
    )

    if grouping == "group":
        table = pd.DataFrame({"feature or pair": e.shown.index, "contribution": e.shown.values})
    else:
        best = list(fig.layout.meta["terms"])  # the figure's own terms, in its order
        table = pd.DataFrame(  # named as the figure names them (H52 11: "log p+(a, b)")
            {
                "term": [term_text(t, ds.feature_names) for t in best],
                "contribution": row[best].to_numpy(),
            }
        )
    st.dataframe(table, hide_index=True, width="stretch")
    with st.expander("This sample's feature values"):
        st.dataframe(ds.X.iloc[[i]].T.rename(columns={ds.X.index[i]: "value"}), width="stretch")
    models.download_model(ds)
    apply_model.apply_model(ds)


if state.dataset().multiclass:  # K > 2 classes: every class's score, the winner's margin
    multiclass.explain_page(state.cfg(), state.dataset())
else:
    binary_page(state.cfg(), state.dataset())
