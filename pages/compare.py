"""Compare: SLB against TAN, naive Bayes and others on identical folds, live in λ."""

import json

import numpy as np
import pandas as pd
import streamlit as st

import slb
from dashboard import compute, controls, curve_ui, models, shell, state
from dashboard.safety import escape_markdown as esc
from dashboard.safety import safe_csv_bytes
from slb.viz import figures

shell.ensure()

c = state.cfg()
ds = state.dataset()
neg, pos = ds.class_names
seed, k = int(c["seed"]), int(ds.n_folds)

st.title("Compare")

left, right = st.columns(2, gap="large")
with left:
    lam = controls.lambda_controls("cmp")
with right:
    controls.bandwidth_controls("cmp", overrides=False)
    state.bound(
        st.multiselect,
        "More classifiers",
        "extra_models",
        key="cmp_models",
        options=list(models.OPTIONAL_MODELS),
        help="SLB, TAN and NB are always compared; add others here (each is cross-validated "
        "once and cached).",
    )
    state.bound(
        st.number_input,
        "Repeats of the K-fold cross-validation",
        "cv_repeats",
        key="cmp_repeats",
        min_value=1,
        max_value=10,
        step=1,
        help="The K-fold CV is repeated on new random stratified splits; more repeats give a "
        "more stable estimate and a more powerful test. Large data sets get fewer repeats.",
    )
dens = state.density_key()
measure, rule = c["measure"], c["pair_rule"]
names = [*models.DEFAULT_MODELS, *(m for m in c["extra_models"] if m in models.CLASSIFIERS)]
wanted = int(c["cv_repeats"])
reps = compute.affordable_repeats(ds.n, ds.d, wanted)
cv_text = f"stratified {k}-fold CV" + (f" repeated {reps} times" if reps > 1 else "")

# --- cross-validation (cached; only SLB depends on λ) ----------------------------------------
per_fold, seconds = {}, {}
bar = st.progress(0.0, text="Cross-validating…")
slb_ber, slb_pairs, slb_how = compute.slb_ber_for(ds, c, lam, dens, k, reps)
per_fold["SLB"] = slb_ber
nested_key = ("nested", ds.key, measure, rule, dens, k, seed, reps)
if st.session_state.get("cmp_nested") == nested_key:
    per_fold["SLB (nested λ, C)"], _ = compute.slb_nested_ber(
        ds.key, ds, measure, rule, dens, k, seed, True, n_repeats=reps
    )
for n_done, name in enumerate(names[1:], start=1):
    bar.progress(n_done / len(names), text=f"Cross-validating {name}…")
    per_fold[name], seconds[name] = compute.classifier_fold_ber(
        ds, name, dens, k, seed, reps, measure, rule
    )
bar.empty()
per_fold = pd.DataFrame(per_fold)
per_fold.index = pd.RangeIndex(1, len(per_fold) + 1, name="fold")
table = compute.comparison(per_fold, compute.folds(ds.key, ds, k, seed, reps))
table["fit time (s)"] = pd.Series(seconds)

st.subheader("Balanced error rate")
st.caption(
    f"Balanced error rate (BER) by {cv_text}, seed {seed}; significance: "
    f"{table.attrs['test']} (α = 0.05). All {len(per_fold)} folds are the same for every "
    "classifier. Moving λ only refits SLB's SVMs."
)
if reps < wanted:
    st.caption(
        f"{reps} repeat{'s' if reps > 1 else ''} instead of the {wanted} asked for: with "
        f"{ds.n} rows and {ds.d} features each repeat costs about "
        f"{ds.n**2 * ds.d / 1e6:.0f} M rows² × features, and the page runs at most "
        f"{compute.CV_BUDGET / 1e6:.0f} M per visit so that it answers in about a minute."
    )
st.plotly_chart(
    figures.ber_bars(per_fold, table.rename(columns={"tied with best": "tied_with_best"})),
    key="cmp_ber_bars",
    config={"displaylogo": False},
)
st.dataframe(
    compute.comparison_display(table),
    width="stretch",
    key="cmp_table",
    column_config={
        "mean BER (%)": st.column_config.NumberColumn(format="%.1f"),
        "sd (%)": st.column_config.NumberColumn(format="%.1f"),
    },
)
st.caption(
    f"SLB at λ = {controls.format_lambda(lam.value)} keeps {slb_pairs.mean():.0f} pairs per "
    "fold on average. Each classifier is compared with the best (lowest mean BER) by a t-test "
    "on the per-fold differences whose variance is inflated by `1/J + n_test/n_train` (`J` folds), "
    "because overlapping training sets make the folds correlated; the p-values are "
    'Holm-adjusted over the comparisons. "tied with best" only where the test does not '
    'reject; darker bars: tied with the best. "—": does not apply (the best itself; no test '
    "possible; SLB's time, whose folds share one density fit across λ)."
)
st.caption(f"How SLB's BER was obtained: {slb_how}.")
if lam.mode == "value" and st.session_state.get("cmp_nested") != nested_key:
    if st.button(
        "Nested estimate of SLB (λ and C chosen again inside every fold)",
        key="cmp_nested_button",
        help="Runs SLBClassifier() with its automatic λ and C on the same folds: screening, "
        "densities and the inner cross-validation are refitted from each fold's training rows. "
        "Cached; about a minute on Sonar.",
    ):
        st.session_state["cmp_nested"] = nested_key
        st.rerun()
elif "SLB (nested λ, C)" in per_fold:
    st.caption(
        '"SLB (nested λ, C)": SLBClassifier() with λ and C chosen by inner cross-validation '
        "inside every outer fold, an honest estimate of SLB with automatic settings."
    )

st.subheader("SLB's BER along λ")
if st.toggle("Draw SLB's BER at every λ (exact steps, computed once)", key="cmp_curve_on"):
    curve_ui.ber_curve_section(ds, c, lam, dens, k, reps, per_fold)

st.subheader("SLB's learned coefficients")
clf = compute.fit_slb(ds.key, ds, lam.value, measure, rule, dens, seed)
oracle = None
if ds.oracle_coef is not None:
    if st.toggle(
        "Show the oracle weights of Lemma 1 (true forest structure)", value=True, key="cmp_oracle"
    ):
        oracle = ds.oracle_coef
n_terms = len(clf.coef_)
if n_terms > 10:
    state.bound(
        st.slider,
        "Terms in view (drag the axis to see the others)",
        "coef_visible",
        key="cmp_coef_visible",
        min_value=10,
        max_value=min(200, n_terms),
        step=5,
    )
coef_fig = figures.coefficient_figure(
    clf.coef_,
    feature_names=ds.feature_names,
    oracle=oracle,
    n_visible=min(int(c["coef_visible"]), n_terms),
    pos_name=pos,
    neg_name=neg,
)
st.plotly_chart(coef_fig, key="cmp_coef", config={"displaylogo": False})
n_uni = int((clf.terms_["kind"] == "univariate").sum())
msg = (
    f"SLB fitted on all {ds.n} rows at λ = {controls.format_lambda(lam.value)}: "
    f"{len(clf.coef_)} terms ({n_uni} univariate, {len(clf.coef_) - n_uni} bivariate, "
    f"{len(clf.pairs_)} pairs). Solid bars: univariate terms; hatched: bivariate."
)
if oracle is not None:
    msg += (
        f" Learned weights multiplied by the least-squares factor "
        f"{coef_fig.layout.meta['scale']:.3g} to compare with the integer oracle weights."
    )
st.caption(msg)

st.subheader("TAN's trees")
tan = compute.fit_tan(ds.key, ds, dens)
tree_pos = compute.tan_tree_positions(ds.key, ds, dens)
t1, t2 = st.columns(2)
for col, label, sym, cname in ((t1, 1, "+", pos), (t2, 0, "-", neg)):
    with col:
        st.plotly_chart(
            figures.tree_graph(
                ds.feature_names,
                tan.trees_[label],
                tan.mutual_info_[label],
                title=f"Chow-Liu tree of class {'+' if label else '−'} ({figures.escape_text(cname)})",
                color=figures.COLORS[sym],
                positions=tree_pos[label],
            ),
            key=f"cmp_tan_{sym}",
            config={"displaylogo": False},
        )

with st.expander("About the classifiers"):
    for name in models.CLASSIFIERS:
        st.markdown(f"**{name}**: {models.CLASSIFIERS[name].summary}")

st.subheader("Downloads")
coef_table = compute.coefficient_table(ds, clf, ds.oracle_coef)
settings = {
    "slb_version": slb.__version__,
    "dataset": {
        "name": ds.name,
        "source": ds.source,
        "n": ds.n,
        "d": ds.d,
        "label": ds.label,
        "positive_class": ds.positive_label,
        "negative_class": ds.negative_label,
        "features": ds.feature_names,
        "data_seed": ds.data_seed,
        "content_hash": ds.key,
    },
    "cross_validation": {
        "n_folds": k,
        "n_repeats": reps,
        "n_repeats_requested": wanted,
        "seed": seed,
        "stratified": True,
        "significance": table.attrs["test"],
        "alpha": 0.05,
    },
    "screening": {
        "measure": measure,
        "pair_rule": rule,
        "lambda_mode": lam.mode,
        "lambda": lam.value if np.isfinite(lam.value) else None,
        "lambda_quantile": c["lam_quantile"],
        "fdr_alpha": c["fdr_alpha"],
        "pairs_kept": lam.n_kept,
    },
    "densities": state.density_params(dens),
    "slb_params": {
        kk: v
        for kk, v in clf.get_params().items()
        if isinstance(v, (int, float, str, bool, type(None), dict))
    },
    "classifiers": names,
}
d1, d2, d3 = st.columns(3)
d1.download_button(
    "Comparison table (CSV)",
    safe_csv_bytes(table.join(per_fold.T.add_prefix("BER fold ")), index=True),
    file_name="slb_comparison.csv",
    mime="text/csv",
    key="dl_comparison",
    on_click="ignore",
)
d2.download_button(
    "Coefficients (CSV)",
    safe_csv_bytes(coef_table),
    file_name="slb_coefficients.csv",
    mime="text/csv",
    key="dl_coef",
    on_click="ignore",
)
d3.download_button(
    "Settings (JSON)",
    json.dumps(settings, indent=2, default=str),
    file_name="slb_settings.json",
    mime="application/json",
    key="dl_settings",
    on_click="ignore",
)
st.caption(f"Data: {esc(ds.name)}.")
