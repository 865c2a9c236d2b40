"""The parameter and attribute sections SLB's and LU's docstrings share (numpydoc text only).

Kept out of :mod:`slb.model.classifier` so that the estimators' module holds code (the
project's modules stay under about 1,000 lines).
"""

from ..density.features import FEATURE_MAP_PARAMS_DOC, fill_doc

_COMMON_PARAMS_DOC = """C : float or "cv", default="cv"
        SVM cost (larger: less regularised).  ``"cv"``: chosen from ``Cs`` by the nested inner
        cross-validation (jointly with ``lambda`` for SLB).  No fixed default value was found
        that is safe on unknown data: the best cost ranged over 0.01 ... 10 across the
        synthetic designs of ``docs/defaults.md``.
    Cs : array-like or None, default=None
        Costs searched by ``C="cv"``; None: ``DEFAULT_CS`` = 0.01 ... 10, 7 log-spaced values.
    cv : int, default=5
        Inner stratified folds of the selection (at most as many as the smallest class's rows
        allow, with 2 of its rows in every inner training set).
    class_weight : "balanced", dict or None, default="balanced"
        Class costs of the linear model's loss, and so the priors of ``predict``'s rule
        (``decision_prior_``): ``"balanced"`` weighs every class equally (the rule of the
        balanced error rate), None by its frequency (the plain error rate), a dict ``{label:
        weight}`` by ``weight x frequency``.
    %(feature_map)s
    random_state : int, RandomState instance or None, default=None
        Seeds the inner folds and the cross-fitting folds.
    warm_start : bool, default=False
        Reuse the previous fit's inner-fold densities, dependence and feature map when the data
        and density settings are unchanged, so that changing ``threshold``, ``C`` or the grids
        refits only SVMs (and changing only ``selection`` or ``generative_candidates`` only
        the final model).
    n_jobs : int or None, default=None
        Threads for the dependence matrices, the binned densities and big inner folds.
        None: one, as in scikit-learn (:func:`slb._parallel.resolve_n_jobs`); -1: all CPUs.
        Results do not depend on it.
    probability : bool, default=True
        Calibrate :meth:`predict_proba` (on cross-fitted decision values: the inner folds'
        SVMs, or ``cv`` more SVM fits when nothing is selected) by the convention of
        ``docs/probabilities.md``: ``P(y | x)`` at the training class frequencies, one
        positive factor on the decision values with the offset pinned so that ``predict``
        equals ``argmax(predict_proba * decision_prior_ / training_prevalence_)``.  False: no
        ``predict_proba`` / ``platt_`` and a cheaper fit, as ``SVC(probability=False)``; the
        decision function and predictions are the same.
    max_search_rows : int or None, default=2000
        Rows of the nested selection's inner CV: on larger tables it runs on a stratified
        subsample of this many rows (the final fit always uses every row), which bounds its
        cost whatever the number of rows; None: every row.  The subsample keeps at least 10
        rows of every class (all of a smaller one), so it may hold a few more.  What the
        subsample changes is measured in ``docs/defaults.md``.
    loss : {"hinge", "squared_hinge"}, default="squared_hinge"
        The two-class SVM's loss, passed to every SVM fit (inner folds, calibration, final
        model); K > 2 classes: multinomial either way.  ``"hinge"``: e1071's (the paper's).
        The squared hinge is the default by Protocol 2 of ``docs/defaults.md`` (same BER, cheaper).
    selection : {"min", "one_se", "corrected"}, default="corrected" for SLB, "min" for SLB- and LU
        How the nested selection picks from ``cv_results_`` (:mod:`slb.model.selection`):
        the lowest mean BER; or the least complex candidate (fewest pairs, then naive Bayes
        or TAN before an SVM, then the sparser grid value and the smaller C) whose mean BER is
        within one standard error (over the inner folds) of that minimum's; or
        (``"corrected"``) the SVM grid's minimum, naive Bayes or TAN, whichever has the lowest
        BER after Tibshirani and Tibshirani's (2009) bias correction of the grid's minimum.
    generative_candidates : bool, default=True for SLB, False for SLB- and LU
        Add KDE naive Bayes and TAN (:mod:`slb.peers`) to the nested selection, fitted inside
        every inner fold from its training rows only and scored by the same inner BER.  When
        one is selected (``selected_model_``) the model is that classifier fitted on all rows,
        as the linear model on its own log-density map.  SLB's default (Protocol 3); SLB
        uses them only with ``threshold="cv"`` (a hand-set lambda asks for SLB at it)."""

_COMMON_ATTRS_DOC = """classes_ : ndarray of shape (n_classes,)
        Sorted labels; with two classes ``classes_[1]`` is ``+``.
    C_ : float
        The SVM cost used (selected one for ``C="cv"``).
    n_search_rows_ : int
        Rows of the nested selection's inner CV (present when it ran): all the rows, or a
        stratified subsample of ``max_search_rows`` on tall tables (the final fit always uses
        every row).
    n_candidate_pairs_ : int
        Pairs the selection chose from: every pair (0 for LU), or on wide tables the top
        ``K`` by screening score, ``K`` from SLB's memory budget ``search_memory_mb`` of the
        inner folds' feature maps.
    cv_results_ : dict or None
        When anything is selected: one entry per candidate (``param_*`` grid values,
        ``param_C``, ``mean_n_pairs``, ``mean_ber``, ``std_ber``, ``split<k>_ber``,
        ``rank_ber``), from the nested inner CV (screening and densities refitted in every
        inner split, so ``mean_ber`` of a fixed candidate is an honest CV estimate; its
        minimum over the grid is optimistic, as any minimum).  None when nothing is selected
        (also when a class has too few rows for two inner folds: a warning says so).
        With ``generative_candidates=True``: two more rows (naive Bayes, TAN; their grid
        ``param_*`` values NaN) and ``param_model`` ("slb", "naive_bayes" or "tan").  With
        ``selection="corrected"``: ``corrected_ber``, each group's minimum after the correction.
    best_index_ : int
        Row of ``cv_results_`` picked by ``selection`` (:mod:`slb.model.selection`): with
        ``"corrected"``, the lowest ``corrected_ber`` (its ``rank_ber`` can be above 1).
    selected_model_ : {"slb", "naive_bayes", "tan"}
        The selected model.  For "naive_bayes" or "tan" (``generative_candidates=True``):
        ``transformer_``, ``pairs_`` (none, or the union of TAN's trees), ``terms_`` and
        ``coef_`` are that classifier's (its fixed weights: +-1, and TAN's ``1 - degree``),
        ``intercept_`` the log odds of ``decision_prior_``, ``C_`` NaN, ``threshold_`` +inf
        (no pair kept by screening), ``fraction_`` None; ``platt_`` is fitted on its inner
        folds' decision values, by the same convention.
    coef_ : ndarray of shape (1, n_terms) for two classes, else (n_classes, n_terms)
        Weights in log-density units, one per term of ``terms_``: ``decision_function(X)
        [:, k] = log_density_features(X) @ coef_[k] + intercept_[k]`` (two classes: one
        column, ``k = 0``; ``docs/multiclass.md``).  ``coef_series_``: the same by term name
        (a DataFrame, a column per class, for more than two).
    intercept_ : ndarray of shape (1,) for two classes, else (n_classes,)
    terms_ : ndarray of str of shape (n_terms,)
        Term names: ``log p+(a)``, ``log p-(a, b)``, ... (K classes: ``log p[c](a, b)``).
    term_table_ : DataFrame
        What each term is, indexed by ``terms_``: ``class`` ("+"/"-", or the class's name
        with more than two), ``label``, ``kind``
        ("univariate" / "bivariate"), indices ``i``, ``j`` (-1 for univariate), ``feature_i``,
        ``feature_j``.
    n_terms_ : int
    feature_importances_ : ndarray of shape (n_features_in_,)
        Per input feature, the standard deviation over the training rows of the summed
        contributions ``coef * T`` of its terms (for
        ``SelectFromModel(..., importance_getter="feature_importances_")``: ``coef_`` has one
        entry per term, not per input feature).
    training_prevalence_ : ndarray of shape (n_classes,)
        Class frequencies of the training rows: ``predict_proba`` estimates ``P(y | x)`` at
        them (``docs/probabilities.md``).
    decision_prior_ : ndarray of shape (n_classes,)
        The priors whose Bayes rule ``predict`` is: equal for ``class_weight="balanced"`` (the
        balanced-error rule, :func:`slb.probabilities.balanced_predict`), the training
        frequencies for ``class_weight=None``, ``weight x frequency`` for a dict.
    platt_ : ndarray of shape (2,) or (n_classes, n_classes + 1)
        Only with ``probability=True``.  Two classes, Platt's ``(a, b)``: ``predict_proba = 1 /
        (1 + exp(a * decision_function + b))`` with ``a < 0`` fitted on cross-fitted decision
        values (the inner folds of the nested selection, or the SVM cross-fitted on the
        training feature map when nothing is selected) and ``b`` pinned at ``-log(odds of
        training_prevalence_ / odds of decision_prior_)``, so that ``predict`` and
        ``predict_proba`` follow the convention of ``docs/probabilities.md``; more classes,
        ``[A | b]`` of ``softmax(decision_function @ A.T + b)`` with ``A = scale * I``.
        Clipped to ``[1e-6, 1 - 1e-6]``.
    pairs_ : ndarray of shape (n_kept_pairs, 2)
    term_means_ : ndarray
        Training means of the terms (baseline of :meth:`contributions`).
    transformer_ : LogDensityTransformer
    n_features_in_ : int
    feature_names_in_ : ndarray"""


def _doc(text):
    params = fill_doc(_COMMON_PARAMS_DOC, feature_map=FEATURE_MAP_PARAMS_DOC)
    return fill_doc(text, params=params, attrs=_COMMON_ATTRS_DOC)
