"""Compare: SLB against TAN, naive Bayes and others on identical folds, live in λ.

The page is one fragment (:func:`compare_page`): moving λ, or any other control of the page,
reruns the page only, not the app's setup and sidebar (the fragment redraws the sidebar's λ
and density lines).  Each section is a function of the settings of the run (:class:`View`).
"""

import json
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from dashboard import (
    compute,
    controls,
    curve_ui,
    evaluation,
    models,
    multiclass,
    report,
    shell,
    sidebar,
    state,
    urlstate,
)
from dashboard.safety import escape_markdown as esc
from dashboard.safety import safe_csv_bytes
from slb.viz import figures

shell.ensure()


@dataclass(frozen=True)
class View:
    """What the sections read, fixed for one run of the page."""

    c: dict  # the session's settings
    ds: object  # dashboard.data.Dataset
    lam: compute.LambdaInfo
    dens: tuple  # state.density_key()
    names: list  # the classifiers compared: SLB, TAN, NB and the extra ones
    wanted: int  # repeats of the K-fold CV asked for
    reps: int  # repeats run (fewer on large data)

    @property
    def seed(self) -> int:
        return int(self.c["seed"])

    @property
    def k(self) -> int:
        return int(self.ds.n_folds)

    @property
    def measure(self) -> str:
        return self.c["measure"]

    @property
    def rule(self) -> str:
        return self.c["pair_rule"]

    @property
    def cv_text(self) -> str:
        more = f" repeated {self.reps} times" if self.reps > 1 else ""
        return f"stratified {self.k}-fold CV{more}"

    @property
    def nested_key(self) -> tuple:
        """Names the nested estimate the button computes for these settings."""
        ds, r = self.ds, (self.measure, self.rule, self.dens, self.k, self.seed, self.reps)
        return ("nested", ds.key, *r)

    def cv_args(self) -> tuple:
        """``(ds, dens, k, seed, reps, measure, rule)`` of :func:`evaluation.classifier_run`."""
        return self.ds, self.dens, self.k, self.seed, self.reps, self.measure, self.rule


@dataclass
class Results:
    """The cross-validation of every classifier at this λ: fits, per-fold BER, test table."""

    runs: dict  # name -> FoldRun / SLBPass / FoldEval
    slb_how: str  # how SLB's BER was obtained
    per_fold: pd.DataFrame  # BER per fold (rows) and classifier (columns)
    table: pd.DataFrame  # compute.comparison + fit times


def controls_row() -> compute.LambdaInfo:
    """λ (left), bandwidths and repeats (right), the extra classifiers below; returns λ."""
    left, right = st.columns(2, gap="large")
    with left:
        lam = controls.lambda_controls("cmp")
        if lam.mode in ("fdr", "cv") and lam.note:  # no slider shows λ in these modes (H49)
            st.caption(lam.note + ".")
    with right:
        controls.bandwidth_controls("cmp", overrides=False)
        controls.repeats_control("cmp")
    # Full width, below the two columns: with every classifier chosen all chips stay visible.
    state.bound(
        st.multiselect,
        "More classifiers (SLB, TAN and NB are always compared)",
        "extra_models",
        key="cmp_models",
        options=list(models.OPTIONAL_MODELS),
        help="Each added classifier is cross-validated once on the same folds and cached.",
    )
    sidebar.refresh_settings(lam)  # the bandwidth line, after a move of the multiplier
    return lam


def cross_validate(v: View) -> Results:
    """Every classifier on the same folds (cached; only SLB depends on λ).

    One fit per classifier and fold gives its per-fold BER (the test) and its out-of-fold
    predictions; the metrics, curves and confusion matrices are computed from those
    predictions only when their section is opened.
    """
    ds, dens, k, seed, reps, measure, rule = v.cv_args()
    runs = {}
    # beside SLB's densities: the other classifiers, then the coefficient plot's full-data SLB
    evaluation.prefetch_runs(ds, v.names, *v.cv_args()[1:], lam=v.lam.value)
    bar = st.progress(0.0, text="Cross-validating…")
    runs["SLB"], slb_how = evaluation.slb_run_for(ds, v.c, v.lam, dens, k, reps)
    if st.session_state.get("cmp_nested") == v.nested_key:
        runs[evaluation.NESTED_NAMES[True]] = evaluation.nested_for(ds, v.c, dens, reps)
    for n_done, name in enumerate(v.names[1:], start=1):
        bar.progress(n_done / len(v.names), text=f"Cross-validating {name}…")
        runs[name] = evaluation.classifier_run(ds, name, *v.cv_args()[1:])
    bar.empty()
    per_fold = pd.DataFrame({name: r.ber for name, r in runs.items()})
    per_fold.index = pd.RangeIndex(1, len(per_fold) + 1, name="fold")
    table = compute.comparison(per_fold, compute.folds(ds.key, ds, k, seed, reps))
    table["fit time (s)"] = pd.Series(
        {name: r.seconds for name, r in runs.items() if name in v.names[1:]}
    )
    return Results(runs, slb_how, per_fold, table)


def ber_section(v: View, res: Results) -> None:
    """The BER bars and table, the test, how SLB's BER was obtained, the nested button."""
    per_fold, table = res.per_fold, res.table
    st.subheader("Balanced error rate")
    # "Moving λ …" by value only: by quantile or FDR the rule sets λ again in every fold, by
    # CV there is no λ to move (H49)
    st.caption(
        f"Balanced error rate (BER) by {v.cv_text}, seed {v.seed}; significance: "
        f"{table.attrs['test']} (α = 0.05). All {len(per_fold)} folds are the same for every "
        "classifier." + (" Moving λ only refits SLB's SVMs." if v.lam.mode == "value" else "")
    )
    if v.reps < v.wanted:
        st.caption(
            f"{v.reps} repeat{'s' if v.reps > 1 else ''} instead of the {v.wanted} asked for: "
            f"with {v.ds.n} rows and {v.ds.d} features each repeat costs about "
            f"{v.ds.n**2 * v.ds.d / 1e6:.0f} M rows² × features, and the page runs at most "
            f"{compute.CV_BUDGET / 1e6:.0f} M per visit so that it answers in about a minute."
        )
    evaluation.chance_warning(per_fold, 2, v.ds.n)
    st.plotly_chart(
        figures.ber_bars(per_fold, table.rename(columns={"tied with best": "tied_with_best"})),
        key="cmp_ber_bars",
        config={"displaylogo": False},
    )
    shown = compute.comparison_display(table)
    st.dataframe(
        shown,
        width="stretch",
        height=evaluation.table_height(len(table)),
        key="cmp_table",
        column_config={
            "mean BER (%)": st.column_config.NumberColumn(format="%.1f"),
            "sd (%)": st.column_config.NumberColumn(format="%.1f"),
            # wide enough for "SLB (nested λ, C)" and "not significantly different" at
            # 1024 px (they were cut to "SLB (neste" and "not si…": H28); the table scrolls
            **evaluation.VERDICT_COLUMNS,
        },
    )
    evaluation.more_columns_caption(shown)
    kept = res.runs["SLB"].n_pairs.mean()
    lam = controls.format_lambda(v.lam.value)
    if v.lam.mode != "value":  # each fold set its own lambda: the sidebar's is the all-rows one
        how = "chosen again by cross-validation" if v.lam.mode == "cv" else "set again by its rule"
        slb_line = (
            f"SLB's λ was {how} inside every fold (the sidebar's λ = {lam} is the one on all "
            f"rows, not the folds'); its folds keep {evaluation.mean_count(kept)} pairs on average."
        )
    else:
        slb_line = evaluation.fold_pairs_text(lam, kept, v.lam.n_kept, v.ds.n, v.measure)
    st.caption(
        f"{slb_line} Each classifier is "
        "compared with the best (lowest mean BER) by a t-test on the per-fold differences whose "
        # plain text, not Markdown code: inline code drew at 10.5 px inside 14 px (H49)
        "variance is inflated by 1/J + n_test/n_train (J folds), because overlapping "
        "training sets make the folds correlated; the p-values are Holm-adjusted over the "
        'comparisons. "not significantly different" only where the test does not reject (never '
        'read it as "equal": "detectable (pp)" is the difference the Holm-adjusted test finds '
        "with 80% power at these folds' spread, larger with fewer repeats and more "
        "classifiers); darker bars: not significantly "
        'different from the best. "—": does not apply (the best itself; no test possible; '
        "SLB's time, whose folds share one density fit across λ)."
    )
    st.caption(f"How SLB's BER was obtained: {res.slb_how}.")
    if v.lam.mode == "value" and st.session_state.get("cmp_nested") != v.nested_key:
        if st.button(
            "Nested estimate of SLB (λ and C chosen again inside every fold)",
            key="cmp_nested_button",
            help="Runs SLBClassifier() with its automatic λ and C on the same folds: screening, "
            "densities and the inner cross-validation are refitted from each fold's training "
            "rows (naive Bayes and TAN compete in that inner selection, as in "
            "SLBClassifier's default). Cached; on Sonar (208 rows, 60 features) about 7 s with two "
            "free cores, 12 s with one; the time grows with rows² × features: "
            + evaluation.nested_time_text(v.ds.n, v.ds.d, v.k * v.reps)
            + ".",
        ):
            # computed here, so that its spinner is beside the button the user pressed (H47:
            # at the top of the page it was 800 px above the screen); the rerun reads it cached
            evaluation.nested_for(v.ds, v.c, v.dens, v.reps)
            st.session_state["cmp_nested"] = v.nested_key
            st.rerun()  # the whole app: the sidebar and every section see the new run
    elif "SLB (nested λ, C)" in per_fold:
        st.caption(
            '"SLB (nested λ, C)": SLBClassifier() with λ and C chosen by inner cross-validation '
            "inside every outer fold (where the inner folds prefer them, SLB's special cases "
            "naive Bayes or TAN), an honest estimate of SLB with automatic settings."
        )


def fold_evaluations(v: View, runs: dict) -> dict:
    """Every classifier's out-of-fold evaluation, from the fits of the BER table."""
    evals = {"SLB": evaluation.slb_eval_for(v.ds, v.c, v.lam, v.dens, v.k, v.reps)[0]}
    for name, run in runs.items():
        if name != "SLB":
            nested = isinstance(run, evaluation.FoldEval)  # the nested estimate
            evals[name] = (
                run if nested else evaluation.classifier_eval(v.ds, name, *v.cv_args()[1:])
            )
    return evals


def evaluation_section(v: View, res: Results) -> None:
    """Metrics, ROC/PR curves, confusion matrix and predictions of every classifier of the
    table, from the same fits (scored here, only while the section is open)."""
    evals = fold_evaluations(v, res.runs)
    n_folds = len(res.per_fold)
    pos, neg = v.ds.class_names[1], v.ds.class_names[0]
    metrics = evaluation.metrics_display(evals)
    st.dataframe(
        metrics, width="stretch", height=evaluation.table_height(len(metrics)), key="cmp_metrics"
    )
    slb_proba = (
        "SLBClassifier's own calibrated predict_proba (Platt, cross-fitted inside each training "
        "set)"
        if v.lam.mode == "cv"
        else "a sigmoid of its SVM score fitted on the out-of-fold scores of the other "
        "folds of the same repeat (never on the rows it scores; no extra fit), one slope with "
        "the offset pinned at the class balance of those rows, so that its prediction is "
        "the balanced rule of the probability at that fold's own class share "
        "(docs/probabilities.md): the operating point's single threshold below can differ "
        "from it on a few rows"
    )
    st.caption(
        f"Every number comes from the predictions each fold's model made for its own test rows "
        f"({v.cv_text}, seed {v.seed}: the same {n_folds} folds and fits as the BER above). "
        f"Positive class: + {esc(pos)}. Accuracy, BER, F1, precision, recall (in %), AUC and "
        f"log-loss: mean ± sd over the {n_folds} folds. AUC (pooled): area under the ROC "
        "curve below, of all out-of-fold scores pooled over folds and repeats. Curves rank by "
        'the probability of + where the classifier gives one, else by its decision score ("ranked '
        'by"). Log-loss needs probabilities: "—" for classifiers without them. SLB\'s '
        f"probability of +: {slb_proba}."
    )
    roc_col = pr_col = st.container()  # one under the other: readable at 1024 px (issue 28)
    with roc_col:
        st.plotly_chart(evaluation.roc_chart(evals), key="cmp_roc", config={"displaylogo": False})
    with pr_col:
        st.plotly_chart(evaluation.pr_chart(evals), key="cmp_pr", config={"displaylogo": False})
    st.caption(
        "ROC: each point is a cut-off on the pooled out-of-fold scores; up and left is better, "
        "the dotted diagonal is guessing. Precision-recall: the dotted line is the share of + "
        "rows (precision of a random ranking). Scores of different folds come from different "
        "models, so a pooled curve also reflects how comparable their scales are (best with "
        "probabilities)."
    )
    st.markdown("**Are the probabilities honest?**")
    curve_ui.reliability_section(evals)
    cm_col = pred_col = st.container()  # one under the other: readable at 1024 px
    with cm_col:
        chosen = st.selectbox("Classifier", list(evals), key="cmp_eval_model")
        st.plotly_chart(
            evaluation.confusion_chart(evals[chosen], chosen, pos, neg),
            key="cmp_confusion",
            config={"displaylogo": False},
        )
        st.caption(
            f"Counts pooled over all {n_folds} folds: every row is predicted once per repeat, so "
            f"the four cells sum to {v.ds.n} rows × {v.reps} = {v.ds.n * v.reps}. Percentages "
            "are of the true class (each row of the matrix)."
        )
    with pred_col:
        predictions_panel(v, evals, chosen)
    curve_ui.operating_point_section(v.ds, evals, chosen)


def predictions_panel(v: View, evals: dict, chosen: str) -> None:
    """One classifier's out-of-fold predictions, and every classifier's as a download."""
    ds, c, lam = v.ds, v.c, v.lam
    st.markdown(f"**Out-of-fold predictions of {esc(chosen)}** (one line per row and repeat)")
    st.dataframe(
        evaluation.predictions_table(
            (chosen, ds.key, ds.positive_label, v.measure, v.rule, v.dens, v.k, v.seed, v.reps)
            + (lam.mode, lam.value, c["lam_quantile"], c["fdr_alpha"]),
            evals[chosen],
            ds,
        ),
        hide_index=True,
        width="stretch",
        key="cmp_predictions",
        column_config={
            "P(+)": st.column_config.NumberColumn(format="%.3f"),
            "decision score": st.column_config.NumberColumn(format="%.3f"),
        },
    )
    st.download_button(
        "All out-of-fold predictions, every classifier (CSV)",
        lambda: safe_csv_bytes(evaluation.predictions_display(evals, ds, csv=True)),  # on click
        file_name="slb_oof_predictions.csv",
        mime="text/csv",
        key="dl_predictions",
        on_click="ignore",
    )


def coefficients_section(v: View):
    """SLB fitted on all the rows at this λ: its weights (and Lemma 1's oracle); returns it."""
    ds, c, lam = v.ds, v.c, v.lam
    neg, pos = ds.class_names
    st.subheader("SLB's learned coefficients")
    clf = compute.fit_slb(ds.key, ds, lam.value, v.measure, v.rule, v.dens, v.seed)
    oracle = None
    if ds.oracle_coef is not None:
        if st.toggle(
            "Show the oracle weights of Lemma 1 (true forest structure)",
            value=True,
            key="cmp_oracle",
        ):
            oracle = ds.oracle_coef
    n_terms = clf.n_terms_
    if n_terms > 10:
        state.bound(
            st.slider,
            "Terms drawn (the largest weights; every term is in the coefficients CSV below)",
            "coef_visible",
            key="cmp_coef_visible",
            min_value=10,
            max_value=n_terms,
            step=5,
            help="Hundreds of bars cannot be told apart on a screen and take longer to draw: "
            "the figure draws the largest ones.",
        )
    n_drawn = min(int(c["coef_visible"]), n_terms)
    coef_fig = figures.coefficient_figure(
        clf.coef_series_,
        feature_names=ds.feature_names,
        oracle=oracle,
        n_visible=n_drawn,
        max_bars=n_drawn,
        pos_name=pos,
        neg_name=neg,
    )
    st.plotly_chart(coef_fig, key="cmp_coef", config={"displaylogo": False})
    st.plotly_chart(  # the same weights, identifiable (issue 26 item 8)
        figures.ratio_figure(
            clf.ratio_coefficients(),
            oracle=None if oracle is None else figures.ratio_form(oracle, ds.feature_names),
            max_bars=min(n_drawn, 30),
        ),
        key="cmp_ratio",
        config={"displaylogo": False},
    )
    st.caption(
        "The same weights per term, as the weight of its log-density ratio (log p+ − log p−) "
        "and of its common part (log p+ + log p−). Where a feature's two densities nearly "
        "agree (it hardly separates the classes), its ratio barely varies, so its ratio weight "
        "can be large and still add little to the decision: the bars above show such a "
        "feature as two large weights of opposite sign, this chart as one large ratio weight. "
        "What each feature adds is the importance chart below."
        + (
            # as the Experiments page writes it (H50: "ratio 1 on every forest edge" under
            # diamonds at ½, and shown where no oracle is drawn)
            " Lemma 1's oracle in this form (diamonds): ratio 1 − (deg+ + deg−)/2 for a "
            "feature, 1 for an edge of both classes, ½ for an edge of one."
            if oracle is not None
            else ""
        )
    )
    st.plotly_chart(
        figures.importance_figure(
            pd.Series(clf.feature_importances_, index=ds.feature_names), max_bars=30
        ),
        key="cmp_importance",
        config={"displaylogo": False},
    )
    st.caption(
        "Each feature's importance: the standard deviation over the "
        "training rows of what its terms, univariate and in pairs, add to the decision."
    )
    n_uni = int((clf.term_table_["kind"] == "univariate").sum())
    msg = (
        f"SLB fitted on all {ds.n} rows at λ = {controls.format_lambda(lam.value)}: "
        f"{n_terms} terms ({n_uni} univariate, {n_terms - n_uni} bivariate, "
        f"{len(clf.pairs_)} pair{'' if len(clf.pairs_) == 1 else 's'}). Solid bars: univariate "
        "terms; hatched: bivariate."
    )
    if n_drawn < n_terms:
        msg += f" Drawn: the {n_drawn} largest weights (the slider above)."
    if oracle is not None:
        msg += (
            f" Learned weights multiplied by the least-squares factor "
            f"{coef_fig.layout.meta['scale']:.3g} to compare with the integer oracle weights."
        )
    st.caption(msg)
    st.caption(
        f"Reading a weight: a positive weight on a log p+(x) term moves the decision toward + "
        f"({esc(pos)}) wherever the + class's density finds the sample more typical than usual; a "
        f"positive weight on a log p−(x) term moves it toward + where the − class's density is "
        f"high, so the usual sign there is negative (high p− pushes toward − ({esc(neg)}))."
    )
    return clf


def tan_section(v: View) -> None:
    """TAN's two Chow-Liu trees (drawn on demand: its full-data fit and tree layouts)."""
    ds = v.ds
    neg, pos = ds.class_names
    tan = compute.fit_tan(ds.key, ds, v.dens)
    tree_pos = compute.tan_tree_positions(ds.key, ds, v.dens)
    t1 = t2 = st.container()  # one under the other: each >= 260 px wide at 1024 px (issue 28)
    for col, label, sym, cname in ((t1, 1, "+", pos), (t2, 0, "-", neg)):
        with col:
            st.plotly_chart(
                figures.tree_graph(
                    ds.feature_names,
                    tan.trees_[label],
                    tan.mutual_info_[label],
                    title=f"Chow-Liu tree of class {'+' if label else '−'} "
                    f"({figures.escape_text(cname)})",
                    color=figures.COLORS[sym],
                    positions=tree_pos[label],
                    width_px=controls.FULL_WIDTH_PX,
                ),
                key=f"cmp_tan_{sym}",
                config={"displaylogo": False},
            )
    st.caption(
        "What it shows: TAN's tree of each class, the spanning tree of the most informative "
        "pairs (mutual information on hover; a name that does not fit beside its node is on "
        "the node's hover), drawn top-down from the tree's centre. TAN does "
        "not use λ; moving the bandwidth multiplier re-estimates the densities and can change "
        "the trees."
    )


def settings_record(v: View, res: Results, clf) -> dict:
    """Everything that produced the page's numbers, for the settings download."""
    return report.settings_record(
        v.ds,
        v.c,
        v.lam,
        state.density_params(v.dens),
        clf,
        reps=v.reps,
        wanted=v.wanted,
        test=res.table.attrs["test"],
        classifiers=v.names,
    )


def downloads_section(v: View, res: Results, clf) -> None:
    """The comparison table, SLB's coefficients and the settings (each built on click)."""
    st.subheader("Downloads")
    settings = settings_record(v, res, clf)
    d1, d2, d3 = st.columns(3)
    d1.download_button(
        "Comparison table (CSV)",
        lambda: safe_csv_bytes(compute.comparison_export(res.table, res.per_fold), index=True),
        file_name="slb_comparison.csv",
        mime="text/csv",
        key="dl_comparison",
        on_click="ignore",
    )
    d2.download_button(
        "Coefficients (CSV)",
        lambda: safe_csv_bytes(compute.coefficient_table(v.ds, clf, v.ds.oracle_coef, csv=True)),
        file_name="slb_coefficients.csv",
        mime="text/csv",
        key="dl_coef",
        on_click="ignore",
    )
    d3.download_button(
        "Settings (JSON)",
        lambda: json.dumps(settings, indent=2, default=str),
        file_name="slb_settings.json",
        mime="application/json",
        key="dl_settings",
        on_click="ignore",
    )
    st.download_button(  # one HTML file: figures, numbers, settings, how each was obtained
        "Report of this comparison (HTML, opens offline)",
        lambda: report.comparison_report(
            v, res, clf, settings, query=urlstate.wanted(v.c), evals=fold_evaluations(v, res.runs)
        ),
        file_name="slb_report.html",
        mime="text/html",
        key="dl_report",
        on_click="ignore",
    )


@st.fragment
def compare_page() -> None:
    """The page, as one fragment (see the module docstring)."""
    st.title("Compare")
    lam = controls_row()
    c, ds = state.cfg(), state.dataset()
    names = models.compared(c)
    wanted = int(c["cv_repeats"])
    reps = compute.affordable_repeats(ds.n, ds.d, wanted)
    v = View(c, ds, lam, state.density_key(), names, wanted, reps)

    res = cross_validate(v)
    ber_section(v, res)
    oof = st.expander(  # the same fits, more than the BER (computed when opened)
        "Accuracy, AUC, F1, ROC and precision-recall curves, confusion matrices, per-sample "
        "predictions (out of fold)",
        key="cmp_eval_open",
        on_change="rerun",
    )
    if oof.open:
        with oof:
            evaluation_section(v, res)

    st.subheader("SLB's BER along λ")
    if st.toggle(curve_ui.CURVE_TOGGLE, key="cmp_curve_on"):
        curve_ui.ber_curve_section(ds, c, lam, v.dens, v.k, reps, res.per_fold)

    clf = coefficients_section(v)
    tan_box = st.expander(
        "TAN's trees (the Chow-Liu tree of each class)", key="cmp_tan_open", on_change="rerun"
    )
    if tan_box.open:
        with tan_box:
            tan_section(v)
    with st.expander("About the classifiers"):
        for name in models.CLASSIFIERS:
            st.markdown(f"**{name}**: {models.CLASSIFIERS[name].summary}")
    downloads_section(v, res, clf)
    st.caption(f"Data: {esc(ds.name)}.")


if state.dataset().multiclass:  # K > 2 classes: macro BER, K x K confusion (issue 25)
    multiclass.compare_page(state.cfg(), state.dataset())
else:
    compare_page()
