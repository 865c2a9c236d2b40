"""A comparison as one self-contained HTML file: figures, numbers, settings, how each number
was obtained (Compare's "Report (HTML)" download).

:func:`build_report` writes the page from plain parts (tables, figures, texts) and is all a
test needs; :func:`comparison_report` gathers those parts from the Compare page's results, so
the file shows the numbers the page shows, computed once.  plotly.js is inlined once (the file
opens offline, in any browser, years later); every text that comes from the data or the user
(the file name, column names, class labels) is HTML-escaped; plotly writes each figure's data
as JSON with ``<`` escaped.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import urlencode

import numpy as np
import pandas as pd

CSS = """
body { font-family: system-ui, sans-serif; color: #1F2937; max-width: 1100px;
       margin: 2em auto; padding: 0 1em; line-height: 1.5; }
h1, h2, h3 { color: #111827; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.95em; }
th, td { border: 1px solid #D1D5DB; padding: 0.25em 0.6em; text-align: right; }
th { background: #F3F6FA; }
td:first-child, th:first-child { text-align: left; }
.note { color: #374151; }
code { background: #F3F6FA; padding: 0 0.2em; word-break: break-all; }
figure { margin: 1em 0 2em; }
figcaption { color: #374151; }
"""


def settings_record(
    ds, c: dict, lam, densities: dict, clf, *, reps: int, wanted: int, test: str, classifiers
) -> dict:
    """Everything that produced a Compare page's numbers (its "Settings (JSON)" download), for
    two classes (the positive and negative class) or K (the classes).

    ``c``: the session's settings; ``lam``: the page's ``LambdaInfo``; ``densities``: the
    density estimators' keyword arguments; ``clf``: SLB fitted on all rows (None: no
    parameters); ``reps`` / ``wanted``: the repeats run / asked for; ``test``: the
    significance test's description.
    """
    from slb import __version__

    classes = (
        {"classes": [str(k) for k in ds.classes]}
        if getattr(ds, "multiclass", False)
        else {"positive_class": ds.positive_label, "negative_class": ds.negative_label}
    )
    params = {} if clf is None else clf.get_params()
    return {
        "slb_version": __version__,
        "dataset": {
            "name": ds.name,
            "source": ds.source,
            "n": ds.n,
            "d": ds.d,
            "label": ds.label,
            **classes,
            "features": ds.feature_names,
            "data_seed": ds.data_seed,
            "content_hash": ds.key,
        },
        "cross_validation": {
            "n_folds": int(ds.n_folds),
            "n_repeats": int(reps),
            "n_repeats_requested": int(wanted),
            "seed": int(c["seed"]),
            "stratified": True,
            "significance": test,
            "alpha": 0.05,
        },
        "screening": {
            "measure": c["measure"],
            "pair_rule": c["pair_rule"],
            "lambda_mode": lam.mode,
            "lambda": lam.value if np.isfinite(lam.value) else None,
            "lambda_quantile": c["lam_quantile"],
            "fdr_alpha": c["fdr_alpha"],
            "pairs_kept": lam.n_kept,
        },
        "densities": densities,
        "slb_params": {
            k: v
            for k, v in params.items()
            if isinstance(v, (int, float, str, bool, type(None), dict))
        },
        "classifiers": list(classifiers),
    }


@dataclass
class Section:
    """A heading, paragraphs of plain text, and optional tables and figures (in that order)."""

    heading: str
    paragraphs: Sequence[str] = ()
    tables: Sequence[tuple[str, pd.DataFrame]] = ()  # (caption, table)
    figures: Sequence[tuple[object, str]] = ()  # (plotly figure, caption)
    extra_html: str = field(default="", repr=False)  # built here only, never from user text


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _table(caption: str, frame: pd.DataFrame) -> str:
    """An HTML table whose every cell, header and index label is escaped."""
    shown = frame.copy()
    shown.columns = [str(c) for c in shown.columns]
    body = shown.to_html(escape=True, na_rep="—", float_format=lambda x: f"{x:.4g}", border=0)
    return f"<p class='note'>{_e(caption)}</p>\n{body}" if caption else body


def fixed_decimals(frame: pd.DataFrame, decimals: int = 1) -> pd.DataFrame:
    """``frame`` with its float columns written with ``decimals`` decimals, as the page shows
    them (the report's tables otherwise write 4 significant digits, so one column read
    "23.21" above "8.524", H48).

    Examples
    --------
    >>> fixed_decimals(pd.DataFrame({"BER": [23.2145, 8.5239, 10.0], "n": [1, 2, 3]}))
        BER  n
    0  23.2  1
    1   8.5  2
    2  10.0  3
    """
    out = frame.copy()
    for col in out.columns:
        if pd.api.types.is_float_dtype(out[col]):
            out[col] = [f"{v:.{decimals}f}" if np.isfinite(v) else "—" for v in out[col]]
    return out


def _settings_rows(settings: dict, prefix: str = "") -> list[tuple[str, str]]:
    rows = []
    for k, v in settings.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            rows += _settings_rows(v, name + ".")
        elif isinstance(v, (list, tuple)):
            rows.append((name, ", ".join(map(str, v))))
        else:
            rows.append((name, json.dumps(v, default=str) if not isinstance(v, str) else v))
    return rows


def build_report(*, title: str, subtitle: str, sections: Sequence[Section], settings: dict) -> str:
    """The whole report as one HTML document (plotly.js inlined once, before the first figure).

    Every text argument is plain text: it is escaped here.
    """
    parts = [
        "<!DOCTYPE html>",
        "<html lang='en'><head><meta charset='utf-8'>",
        f"<title>{_e(title)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p class='note'>{_e(subtitle)}</p>",
    ]
    plotlyjs = True  # only the first figure carries plotly.js
    for s in sections:
        parts.append(f"<h2>{_e(s.heading)}</h2>")
        parts += [f"<p>{_e(p)}</p>" for p in s.paragraphs]
        parts += [_table(cap, t) for cap, t in s.tables]
        for fig, cap in s.figures:
            div = fig.to_html(
                full_html=False, include_plotlyjs=plotlyjs, config={"displaylogo": False}
            )
            plotlyjs = False
            parts.append(f"<figure>{div}<figcaption>{_e(cap)}</figcaption></figure>")
        if s.extra_html:
            parts.append(s.extra_html)
    rows = _settings_rows(settings)
    parts.append("<h2>Settings</h2>")
    parts.append(
        _table(
            "Everything that produced the numbers above.",
            pd.DataFrame(
                {"setting": [r[0] for r in rows], "value": [r[1] for r in rows]}
            ).set_index("setting"),
        )
    )
    parts.append("</body></html>")
    return "\n".join(parts)


def curves_section(evals: dict, cv_text: str, seed: int, pos: str, neg: str) -> Section:
    """The ROC, precision-recall and confusion figures of the out-of-fold predictions
    (``evals``: classifier name -> ``dashboard.evaluation.FoldEval``, Compare's own), each
    with how it was obtained: the same figures as the page, from the same predictions."""
    from . import evaluation

    n_rows = {n: int(ev.confusion.to_numpy().sum()) for n, ev in evals.items()}
    oof = (
        f"out-of-fold predictions of {cv_text}, seed {seed}: each fold's model scored only its "
        "own test rows, and the rows of every fold and repeat are pooled"
    )
    figs = [
        (
            evaluation.roc_chart(evals),
            f"ROC curves from the {oof}. Each point is a cut-off on the pooled scores (the "
            "probability of + where the classifier gives one, else its decision score); up and "
            "left is better, the dotted diagonal is guessing; AUC: area under the pooled curve.",
        ),
        (
            evaluation.pr_chart(evals),
            f"Precision-recall curves from the {oof}; the dotted line is the share of + rows "
            "(the precision of a random ranking); AP: average precision of the pooled scores.",
        ),
    ]
    figs += [
        (
            evaluation.confusion_chart(ev, name, pos, neg),
            f"Confusion matrix of {name} from the {oof} ({n_rows[name]} predictions: every row "
            "once per repeat), at the classifier's own decision rule (predict); percentages "
            "are of the true class.",
        )
        for name, ev in evals.items()
    ]
    return Section(
        "Out-of-fold curves and confusion matrices",
        [f"Positive class (+): {pos}; negative (−): {neg}."],
        figures=figs,
    )


def _reproduce(ds, lam, lam_text: str, query: dict, overrides: dict | None = None) -> Section:
    """How to get the same settings again: the page's address ending; an uploaded table cannot
    travel in it, nor what depends on it (its classes, columns, λ and per-feature bandwidth
    multipliers ``overrides``), so those are named (H50: an upload's report had no such
    section, and the address help promised every setting)."""
    lines = []
    if ds.source == "upload":
        lines.append(
            "This table was uploaded, and an address cannot carry a file or what depends on "
            "it: upload the same file again on the Data page and choose the same label column, "
            "classes and feature columns (listed under Settings below)"
            + (
                "; then open the SLB Explorer with the address ending below for the other settings."
                if query
                else "; every other setting of this comparison is the dashboard's default."
            )
        )
        if lam.mode == "value" and "lam" not in query:
            lines.append(f"Then set λ = {lam_text} by value.")
        if overrides and "bwf" not in query:
            shown = ", ".join(f"{k} × {float(v):g}" for k, v in overrides.items())
            lines.append(
                "Then give these features their own bandwidth multiplier (Densities page): "
                f"{shown}."
            )
    else:
        lines.append("Open the SLB Explorer with this address ending to get the same settings:")
    link = "?" + urlencode(query, doseq=True)
    return Section(
        "Reproduce", lines, extra_html=f"<p><code>{_e(link)}</code></p>" if query else ""
    )


def comparison_report(
    v, res, clf, settings: dict, *, query: dict | None = None, evals: dict | None = None
) -> str:
    """The Compare page's comparison (``View``, ``Results``, the full-data SLB and the settings
    record of pages/compare.py) as one HTML document; ``evals`` (the page's out-of-fold
    evaluations, ``pages/compare.py::fold_evaluations``) adds the ROC, precision-recall and
    confusion figures (:func:`curves_section`)."""
    from slb.viz import figures  # the page's own figures, built again from the same results

    from . import compute, controls

    ds, lam = v.ds, v.lam
    neg, pos = ds.class_names
    table = compute.comparison_display(res.table)
    ber = figures.ber_bars(
        res.per_fold, res.table.rename(columns={"tied with best": "tied_with_best"})
    )
    n_drawn = min(40, clf.n_terms_)
    coef = figures.coefficient_figure(
        clf.coef_series_,
        feature_names=ds.feature_names,
        n_visible=n_drawn,
        max_bars=n_drawn,
        pos_name=pos,
        neg_name=neg,
    )
    lam_text = controls.format_lambda(lam.value)
    how = Section(
        "How each number was obtained",
        [
            f"Balanced error rate (BER: the mean of the two classes' error rates) by {v.cv_text}, "
            f"seed {v.seed}; every classifier is fitted and tested on the same "
            f"{len(res.per_fold)} folds (each fold's model predicts only its own test rows).",
            f"Significance: {res.table.attrs.get('test', '')} (α = 0.05), each classifier "
            "against the best (lowest mean BER); the p-values are Holm-adjusted. "
            '"not significantly different" means the test does not reject, not "equal".',
            f"How SLB's BER was obtained: {res.slb_how}.",
            f"SLB at λ = {lam_text} ({compute.LAMBDA_MODES[lam.mode]}): {lam.n_kept} of "
            f"{lam.n_pairs} pairs kept on all the data, "
            f"{float(np.mean(res.runs['SLB'].n_pairs)):.1f} per fold on average.",
            f"SLB's coefficients: fitted on all {ds.n} rows at that λ ({clf.n_terms_} terms; the "
            f"{n_drawn} largest weights drawn).",
        ],
    )
    results = Section(
        "Results",
        tables=[
            (
                "Mean BER over the folds, its spread and the test against the best.",
                fixed_decimals(table),
            ),
            ("BER (%) of every classifier in every fold.", fixed_decimals(100 * res.per_fold)),
        ],
        figures=[
            (
                ber,
                "BER by classifier (mean over the folds; darker: not significantly "
                "different from the best).",
            ),
            (coef, f"SLB's weights on its log-density terms (+: {pos}, −: {neg})."),
        ],
    )
    data = Section(
        "Data",
        [
            f"{ds.name}: n = {ds.n} rows, d = {ds.d} features; + {pos}: "
            f"{ds.class_counts[ds.positive_label]} rows, − {neg}: "
            f"{ds.class_counts[ds.negative_label]} rows.",
        ]
        + ([f"Data seed {ds.data_seed}."] if ds.data_seed is not None else []),
    )
    sections = [data, results, how]
    if evals:
        sections.insert(2, curves_section(evals, v.cv_text, v.seed, pos, neg))
    if query or ds.source == "upload":
        overrides = (settings.get("densities") or {}).get("bandwidth_overrides")
        sections.append(_reproduce(ds, lam, lam_text, query or {}, overrides))
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return build_report(
        title=f"SLB Explorer: comparison on {ds.name}",
        subtitle=f"Generated {now} by slb {settings.get('slb_version', '')}; seed {v.seed}.",
        sections=sections,
        settings=settings,
    )
