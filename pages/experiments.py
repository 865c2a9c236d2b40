"""Experiments: the paper's synthetic designs (structure recovery, oracle weights, learning
curves) and the label-noise protocol, run live through :mod:`slb.experiments`."""

import numpy as np
import streamlit as st

from dashboard import experiments as exp
from dashboard import shell, state
from dashboard.safety import escape_markdown as esc
from slb.experiments import (
    DEFAULT_NOISE_CLASSIFIERS,
    FLIP_PROBS,
    N_GRID,
    classifier_names,
    paper_synthetic,
)
from slb.viz import figures

shell.ensure()

FAMILIES = {"forest": "Forest Bayesian networks", "bn": "Bayesian networks, 3 parents"}
CPDS = {"normal": "normal", "complex": "complex (t₅ / Gaussian mixture)"}
BALANCES = {0.5: "balanced 50/50", 0.75: "imbalanced 75/25"}
VARIANTS = {
    "calibrated": "calibrated to the paper (default)",
    "uncalibrated": "uncalibrated (our first reading)",
}
CURVE_CLASSIFIERS = ("SLB", "TAN", "NB", "SLB-")
NOISE_SOURCES = {"data": "the current dataset (Data page)", "design": "the synthetic design above"}
CHART = {"displaylogo": False}


def _paper_at_200(cpd: str, classifier: str) -> float:
    """The paper's mean BER (%) of ``classifier`` on its balanced forests at n = 200 (Table 1)."""
    t = paper_synthetic(f"forest-{cpd}-balanced")
    return float(t.loc[(t["n"] == 200) & (t["classifier"] == classifier), "paper_mean"].iloc[0])


def _spread(reps: int, table: bool) -> str:
    """What the ± of a figure means (and of the table under it): the bars are one standard
    error, the table's ± one sd; with one replicate there is no spread (H30: the caption spoke
    of a standard error over 1 replicate and the table of an sd)."""
    if int(reps) <= 1:
        return "one replicate, so no error bars and no ± (run more replicates for a spread)"
    out = f"mean over {int(reps)} replicates, bars ± one standard error"
    return out + " (the table: mean ± sd)" if table else out


def _progress_callback(bar):
    def progress(done, total, message):
        bar.progress(min(done / max(total, 1), 1.0), text=f"{done}/{total}: {esc(message)}")

    return progress


def _choose(label: str, options, **kw) -> list:
    """A multi-choice as pills: every option in view, the chosen ones highlighted (a
    multiselect cut its chips at 1024 px and hid chosen items behind "…", H37, H39).  Nested
    in a container so the pills wrap onto rows: placed directly in a column, Streamlit keeps
    them on one row that scrolls, and chosen items were out of sight again.  The choice comes
    back in the pills' order, whatever the order of the clicks, so the "Will run" caption, the
    runs and the legends list them as the pills show them (H41)."""
    with st.container():
        chosen = st.pills(label, options, selection_mode="multi", **kw) or []
    return [o for o in options if o in chosen]


def _p_text(p) -> str:
    """A flip probability as the pills and the "Will run" caption write it (0, 0.1, …)."""
    return f"{p:g}"


def _pct(v) -> str:
    return "—" if v is None or not np.isfinite(v) else f"{100 * v:.0f}%"


st.title("Experiments")
st.caption(
    "The SLB paper's synthetic designs (section 5.1) and the DISCRETE paper's label-noise "
    "protocol, run live with slb.experiments. Runs are long: nothing starts until you press Run."
)

# --- settings of the synthetic design ----------------------------------------------------------
left, mid, right = st.columns(3, gap="large")
with left:
    family = st.radio(
        "Design", list(FAMILIES), format_func=FAMILIES.get, key="exp_family", horizontal=False
    )
    cpd = st.radio("Marginals (CPDs)", list(CPDS), format_func=CPDS.get, key="exp_cpd")
    balance = st.radio(
        "Training class balance", list(BALANCES), format_func=BALANCES.get, key="exp_balance"
    )
    shared = False
    if family == "bn":
        shared = st.checkbox(
            "Classes share about a third of their structure", key="exp_shared", value=False
        )
    variant = st.radio(
        "Choices the paper leaves unstated",
        list(VARIANTS),
        format_func=VARIANTS.get,
        key="exp_variant",
        help="Number of trees, coefficient on the parents, mixture spacing.",
    )
with mid:
    d = st.slider("Features d", min_value=5, max_value=20, value=20, step=1, key="exp_d")
    n_train = st.slider(
        # H41: "Training rows n" = 400 beside the curve's sizes 200, 400, 600 read as a conflict
        "Training rows of a single fit",
        min_value=200,
        max_value=1000,
        value=400,
        step=100,
        key="exp_n",
        help="One training set of this many rows gives the recovered structure and the "
        "coefficient figures, and the label-noise runs on the synthetic design. The learning "
        "curve instead fits at each of its own sizes, chosen below.",
    )
    n_grid = _choose(
        "Training sizes of the learning curve",
        list(N_GRID),
        default=[200, 400, 600],
        key="exp_grid",
    )
    n_test = st.select_slider(
        "Balanced test rows", options=[200, 500, 1000, 2000], value=1000, key="exp_test"
    )
with right:
    reps = st.slider("Replicates", min_value=1, max_value=5, value=1, key="exp_reps")
    seed = st.number_input(
        "Seed", min_value=0, max_value=2**31 - 1, value=0, step=1, key="exp_seed"
    )
    curve_models = _choose(
        "Classifiers of the learning curve",
        classifier_names(),
        default=list(CURVE_CLASSIFIERS),
        key="exp_models",
    )
    st.caption(esc(exp.will_run(curve_models, n_grid, "n")))
    bayes = st.checkbox(
        "Bayes error line",
        value=True,
        key="exp_bayes",
        help="The Bayes error of the design, by Monte Carlo with the exact densities "
        "(20 000 rows per replicate), drawn as a dotted line.",
    )

if variant == "calibrated" and not exp.has_calibration(family, cpd):
    st.info(
        f"No calibrated choices exist for {esc(FAMILIES[family].lower())} with {esc(cpd)} CPDs "
        "yet; showing the uncalibrated design."
    )
    variant = "uncalibrated"
dens = state.design_density_key()  # the design's features are not the data's columns
own_multipliers = bool(state.density_key()[2])
design_args = (family, cpd, float(balance), bool(shared), int(d), int(n_test), variant)
settings = {
    "design_args": design_args,
    "n_grid": tuple(sorted(int(n) for n in n_grid)),
    "reps": int(reps),
    "models": tuple(curve_models),
    "seed": int(seed),
    "bayes_mc": 20000,  # always: the Bayes error is shown beside the table
    "n_train": int(n_train),
    "dens": dens,
}
try:
    spec = exp.design(*design_args)
    st.caption(
        f"Design: **{esc(spec.label)}**, d = {int(d)}, seed {int(seed)}; test set of "
        f"{int(n_test)} balanced rows. Bandwidths follow the density settings of the "
        "Densities page"
        + (
            " (its rule and multiplier: the per-feature multipliers set there belong to the "
            "data's columns, not to the design's features)."
            if own_multipliers
            else "."
        )
    )
except ValueError as err:
    st.error(f"Invalid design: {esc(err)}")
    st.stop()
if spec.variant == "calibrated":
    trees = "" if spec.n_trees is None else f"{spec.n_trees} trees per class, "
    spacing = f", mixture spacing {spec.spacing:g}" if family == "forest" else ""
    st.caption(
        "Calibrated: the paper does not say how many trees its forests have nor how it scaled "
        "the CPDs, so these choices were fitted on a coarse grid (benchmarks/"
        "calibrate_designs.py) to make NB, RF, SVM(RBF) and 5NN match the paper's error at "
        "n = 600, weighting the squared errors by the paper's standard errors; SLB, TAN and LU "
        "never entered the fit, so their agreement with the paper is an out-of-sample test. "
        f"Here: {trees}coefficient {spec.coef:g} on the parents{spacing}."
        + (
            " For the general networks the fit is poor (one free choice cannot match both NB "
            "and RF: docs/results.md), so agreement with the paper there is weak evidence."
            if family != "forest"
            # H45: numbers far below the paper's, and the page said nothing; ours from
            # docs/results.md's runs (10 replicates), the paper's from its Table 1
            # H54: "SLB and TAN 4.6% against ... and ..." read as one number for both
            else " On the forests this out-of-sample test fails: SLB and TAN come out well "
            "below the paper's errors (normal CPDs, n = 200, 10 replicates: SLB 4.6% against "
            f"the paper's {_paper_at_200('normal', 'SLB'):.1f}%, TAN 4.6% against its "
            f"{_paper_at_200('normal', 'TAN'):.1f}%; complex CPDs: SLB 26.7% against "
            f"{_paper_at_200('complex', 'SLB'):.1f}%; docs/results.md), so these forests are "
            "easier for the pair models than the paper's were; compare the rankings, not the "
            "levels."
        )
    )
else:
    st.caption(
        "Uncalibrated: the paper's text with our own first choices where it is silent "
        "(forests of round(d / 5) trees, coefficient 1 on the parents, mixture spacing 1); "
        "its networks are far easier than the paper's (Bayes errors below 1%)."
    )

if st.button("Run", type="primary", key="exp_run", icon=":material/play_arrow:"):
    if not n_grid or not curve_models:
        st.error("Choose at least one training size and one classifier.")
    else:
        bar = st.progress(0.0, text="Running the replicates…")
        try:
            exp.synthetic_run(
                design_args,
                settings["n_grid"],
                settings["reps"],
                settings["models"],
                settings["seed"],
                settings["bayes_mc"],
                dens,
                progress=_progress_callback(bar),
            )
            st.session_state["exp_last"] = settings
        except Exception as err:  # noqa: BLE001 - shown to the user
            st.error(f"The run failed: {esc(err)}")
        bar.empty()

last = st.session_state.get("exp_last")
if last is None:
    st.info("Choose a design and press Run.")
else:
    if last != settings:
        st.caption("Showing the last run; the settings above changed since (press Run again).")
    try:
        res = exp.synthetic_run(
            last["design_args"],
            last["n_grid"],
            last["reps"],
            last["models"],
            last["seed"],
            last["bayes_mc"],
            last["dens"],
        )
        seed0 = int(res.long.loc[res.long["replicate"] == 0, "seed"].iloc[0])
        fit = exp.structure_fit(last["design_args"], last["n_train"], seed0, last["dens"])
    except Exception as err:  # noqa: BLE001
        st.error(f"The run failed: {esc(err)}")
        st.stop()

    names = fit.columns
    # SLB's inner CV may choose one of its special cases (naive Bayes or TAN, issue 26 item 7):
    # then the pairs are TAN's tree edges (or none), not HSIC-screened ones, and lambda is inf
    special = figures.FIXED_WEIGHTS.get(fit.selected_model)
    whose = special and figures.possessive(special)  # naive Bayes', TAN's
    st.subheader("True structure and SLB's kept pairs")
    if special is None:
        how = (
            "the pairs SLB kept (HSIC screening, λ chosen by SLB's cross-validation as in the "
            "experiments)"
        )
    else:
        how = (
            f"the pairs of the model SLB's cross-validation chose: its {special} special case "
            + ("(the union of the two classes' Chow–Liu tree edges, " if special == "TAN" else "(")
            + "no HSIC screening)"
        )
    st.caption(
        f"First replicate (data seed {seed0}, derived from the run's seed {int(last['seed'])}: each "
        f"replicate draws its data with its own seed from it), {fit.n_train} training rows: the two "
        f"classes' true networks, then {how} against the union of the true edges."
    )
    # one under the other, at the page's width: side by side (three or two columns) each graph
    # had a plot area 157 or about 250 px wide at a projector's 1024 px with the sidebar open,
    # the title of the third was cut (issue 28; tests/test_browser_experiments.py)
    for label, sign, shown, key in (
        (1, "+", "+", "exp_graph_pos"),
        (-1, "-", "−", "exp_graph_neg"),
    ):
        st.plotly_chart(
            figures.network_graph(
                names,
                fit.graphs[label],
                fit.positions,
                title=f"True network of class {shown}",
                color=figures.COLORS[sign],
            ),
            key=key,
            config=CHART,
        )
    st.plotly_chart(
        figures.recovery_graph(
            names,
            fit.kept_pairs,
            fit.recovery["true_edges"],
            fit.positions,
            title=(
                f"SLB's kept pairs (λ = {fit.threshold:.3g})"
                if special is None
                else f"SLB chose {special}: its pairs"
            ),
        ),
        key="exp_graph_kept",
        config=CHART,
    )
    rec = fit.recovery
    m = st.columns(4)
    m[0].metric("edge precision", _pct(rec["precision"]))
    m[1].metric("edge recall", _pct(rec["recall"]))
    m[2].metric("kept pairs", rec["n_kept"])
    m[3].metric("true edges", rec["n_true"])
    st.caption(
        f"{rec['n_true_positive']} of the {rec['n_kept']} kept pairs are true edges "
        f"(precision), and they cover {rec['n_true_positive']} of the {rec['n_true']} "
        "distinct true edges of the two classes (undirected union; recall); direction and "
        "class are ignored."
    )

    st.subheader("SLB's coefficients against the oracle")
    if special is not None:
        fixed = {
            "TAN": "on the log-density terms (on log p+ terms +1 for an edge of class +'s tree "
            "and 1 − degree for a feature, on log p− terms the same negated with class −'s "
            "tree), not weights an SVM learned",
            "naive Bayes": "(+1 on every feature's log p+, −1 on its log p−)",
        }[special]
        st.caption(
            f"SLB's cross-validation chose its {special} special case on this replicate, so "
            f"these are {whose} fixed weights {fixed}. They are in the oracle's units and "
            "drawn as they are, not rescaled."
        )
    if fit.oracle_coef is not None:
        coef_fig = figures.coefficient_figure(
            fit.coef,
            feature_names=names,
            oracle=fit.oracle_coef,
            n_visible=40,
            selected_model=fit.selected_model,
        )
        st.plotly_chart(coef_fig, key="exp_coef", config=CHART)
        lemma = (
            "Lemma 1: with forest-structured classes the log-likelihood ratio is a sum of "
            "log-density terms with integer weights (1 − degree for a feature, ±1 for an edge)."
        )
        if special is None:
            lemma += (
                " Learned weights multiplied by the least-squares factor "
                f"{coef_fig.layout.meta['scale']:.3g} to compare with them."
            )
        meta = coef_fig.layout.meta
        if meta["n_rows"] > meta["n_in_view"]:
            lemma += (
                f" In view: the {meta['n_in_view']} largest of {meta['n_rows']} terms (learned "
                "or oracle); drag the term axis to scroll to the others."
            )
        st.caption(lemma)
        if fit.ratio is not None:  # the same weights, identifiable (issue 26 item 8)
            ratio_fig = figures.ratio_figure(
                fit.ratio,
                oracle=figures.ratio_form(fit.oracle_coef, names),
                max_bars=30,
                selected_model=fit.selected_model,
            )
            st.plotly_chart(ratio_fig, key="exp_ratio", config=CHART)
            scaled = (
                f"Learned weights × {ratio_fig.layout.meta['scale']:.3g}."
                if special is None
                else f"{whose} fixed weights, not rescaled."
            )
            st.caption(
                "The same weights per term as the weight of its log-density ratio "
                "(log p+ − log p−, dark) and of its common part (log p+ + log p−, grey): a "
                "feature's two weights can cancel in the bars above, not here. Lemma 1 in this "
                "form (diamonds): ratio 1 − (deg+ + deg−)/2 for a feature, 1 for an edge of both "
                f"classes, ½ for an edge of one. {scaled}"
            )
            st.plotly_chart(
                figures.importance_figure(fit.importance, max_bars=30),
                key="exp_importance",
                config=CHART,
            )
            st.caption(
                "Each feature's importance: the standard deviation over "
                "the training rows of what its terms add to the decision."
            )
    else:
        st.info(
            "The oracle weights of Lemma 1 exist for forest designs only; choose "
            "'Forest Bayesian networks' to compare with them."
        )

    st.subheader("Learning curve")
    bayes_err = res.bayes["bayes_error"].mean() if len(res.bayes) else None
    curve = figures.learning_curve_figure(
        res.long, bayes=bayes_err if bayes else None, title="BER against n"
    )
    st.plotly_chart(curve, key="exp_curve", config=CHART)
    st.caption(
        f"Balanced error rate on the test set: {_spread(res.settings['n_replicates'], True)} "
        f"(seed {res.settings['random_state']})."
        + (
            f" Dotted grey line: the Bayes error ({100 * bayes_err:.2f}%)."
            if bayes and bayes_err is not None
            else ""
        )
        + esc(exp.coincide_note(curve.layout.meta))
    )
    one = int(res.settings["n_replicates"]) <= 1  # H43: "mean ± sd" over rows without a ±
    with st.expander("Table (BER %)" if one else "Table (BER %, mean ± sd)", expanded=True):
        # one decimal in every cell, ours and the paper's (H54: "4.40" above "15.4 ± 2.98")
        st.dataframe(res.table(paper=True, bold=False, digits=1, paper_digits=1), width="stretch")
        if bayes_err is not None:
            st.caption(
                f"Bayes error of these networks (column Bayes): {100 * bayes_err:.2f}% "
                f"(Monte Carlo with the exact densities, {res.settings['bayes_mc']} rows per "
                "replicate); the paper does not report its own."
            )

# --- label noise -------------------------------------------------------------------------------
st.divider()
st.subheader("Label noise")
st.caption(
    "Flip every training label with probability p, train, and score on clean test labels "
    "(the DISCRETE paper's Figure 1)."
)
ds = state.dataset()
available = classifier_names()
a, b = st.columns(2, gap="large")
with a:
    source = st.radio(
        "Data", list(NOISE_SOURCES), format_func=NOISE_SOURCES.get, key="noise_source"
    )
    noise_models = _choose(
        "Classifiers",
        available,
        default=[c for c in DEFAULT_NOISE_CLASSIFIERS if c in available],
        key="noise_models",
        help="The defaults are the DISCRETE paper's Figure 1: SLB, naive Bayes, a linear SVM "
        "and DISCRETE (that paper's classifier, learning as MAP inference); the caption under "
        "'Flip probabilities' lists everything that will run.",
    )
with b:
    probs = _choose(
        "Flip probabilities",
        list(FLIP_PROBS),
        default=list(FLIP_PROBS),
        format_func=_p_text,
        key="noise_probs",
    )
    # H50: "Will run: …" beside a disabled button on a K-class table
    blocked = source == "data" and ds.multiclass
    st.caption(
        f"Nothing will run on {esc(ds.name)}: label noise needs two classes (below)."
        if blocked
        else esc(exp.will_run(noise_models, probs, "p", fmt=_p_text))
        + (
            " DISCRETE is the DISCRETE paper's own classifier (a default, as in its Figure 1)."
            if "DISCRETE" in noise_models
            else ""
        )
    )
    noise_reps = st.slider("Replicates", min_value=1, max_value=5, value=1, key="noise_reps")
    metric = st.radio(
        "Score",
        ["ber", "accuracy"],
        format_func={"accuracy": "accuracy", "ber": "balanced error rate"}.get,
        horizontal=True,
        key="noise_metric",
        help="Balanced error rate by default, as everywhere here: on an imbalanced table "
        "accuracy rewards predicting the larger class (85% accuracy at 85:15 is chance). The "
        "DISCRETE paper's Figure 1 reports accuracy.",
    )
if source == "data":
    noise_key = f"data:{ds.key}"
    noise_data = (ds.name, ds.X, ds.y)
    if ds.multiclass:  # slb.experiments.noise flips a label to the other class: two classes
        st.info(
            f"Label noise flips each label to the other class, so it needs two classes; "
            f"{esc(ds.name)} has {ds.K}. Use a synthetic design, or choose one class vs the "
            "rest (or drop classes) on the Data page."
        )
    st.caption(
        f"On {esc(ds.name)} ({ds.n} rows): stratified 70/30 train/test splits, one per replicate."
    )
else:
    noise_key = f"design:{design_args}"
    noise_data = spec
    st.caption(f"On fresh draws of {esc(spec.label)} with n = {int(n_train)} training rows.")
noise_settings = {
    "key": noise_key,
    "models": tuple(noise_models),
    "probs": tuple(sorted(float(p) for p in probs)),
    "reps": int(noise_reps),
    "seed": int(seed),
    "n_train": int(n_train),
    "dens": state.density_key() if source == "data" else dens,
}
if st.button(
    "Run label noise",
    type="primary",
    key="noise_run",
    icon=":material/play_arrow:",
    disabled=blocked,  # said above: it needs two classes
):
    if not noise_models or not probs:
        st.error("Choose at least one classifier and one flip probability.")
    else:
        bar = st.progress(0.0, text="Training on noisy labels…")
        try:
            exp.noise_run(
                noise_key,
                noise_data,
                noise_settings["models"],
                noise_settings["probs"],
                noise_settings["reps"],
                noise_settings["seed"],
                noise_settings["n_train"],
                dens,
                progress=_progress_callback(bar),
            )
            st.session_state["noise_last"] = (noise_settings, noise_data)
        except Exception as err:  # noqa: BLE001
            st.error(f"The label-noise run failed: {esc(err)}")
        bar.empty()

noise_last = st.session_state.get("noise_last")
if noise_last is not None:
    ns, ndata = noise_last
    if ns != noise_settings:
        st.caption("Showing the last label-noise run; the settings changed since.")
    try:
        nres = exp.noise_run(
            ns["key"],
            ndata,
            ns["models"],
            ns["probs"],
            ns["reps"],
            ns["seed"],
            ns["n_train"],
            ns["dens"],
        )
        st.plotly_chart(figures.noise_figure(nres, metric=metric), key="noise_fig", config=CHART)
        st.caption(
            f"{esc(nres.settings['split'])}; {_spread(nres.settings['n_replicates'], False)}, "
            f"seed {nres.settings['random_state']}."
        )
        with st.expander("Table"):
            st.dataframe(nres.table(metric), width="stretch")
    except Exception as err:  # noqa: BLE001
        st.error(f"The label-noise run failed: {esc(err)}")
