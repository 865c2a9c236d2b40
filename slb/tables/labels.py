"""The label column: missing labels, the classes, stray classes and the positive class.

Step 2 of the cleaning: rows without a label are dropped (:func:`_clean_labels`), tiny stray
classes are set aside when exactly two classes remain (:func:`stray_classes`), and the positive
class is chosen, or given and the other classes merged into ``"not <positive>"``
(:func:`_positive_class`).  :meth:`slb.tables.cleaner.TableCleaner.encode_labels` codes new
labels with :func:`_match_class` and :func:`_final_y`.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np
import pandas as pd

from ._messages import _join, _n, _names, _q, _row_list
from .records import Change
from .scalars import _is_missing_scalar, _is_number, _label_text, _native
from .tokens import MISSING_TOKENS

__all__ = ["stray_classes"]


def _class_list(counts: dict, limit: int = 20) -> str:
    parts = [f"{_q(_label_text(k))} ({_n(v, 'row')})" for k, v in list(counts.items())[:limit]]
    if len(counts) > limit:
        parts.append(f"{len(counts) - limit:,} more")
    return _join(parts)


def _clean_labels(
    raw: np.ndarray, name: str, report: list[Change]
) -> tuple[np.ndarray, np.ndarray]:
    """Return (kept mask, label values of the kept rows as a numpy array)."""
    n = len(raw)
    if n >= 2000 and pd.api.types.infer_dtype(raw, skipna=False) == "string":
        return _clean_text_labels(raw, name, report)
    keep = np.ones(n, dtype=bool)
    kinds: set[str] = set()
    for i, v in enumerate(raw):
        if _is_missing_scalar(v):
            keep[i] = False
        elif isinstance(v, str):
            if v.strip().lower() in MISSING_TOKENS:
                keep[i] = False
            else:
                kinds.add("str")
        elif isinstance(v, (bool, np.bool_)):
            kinds.add("bool")
        elif _is_number(v):
            if isinstance(v, (float, np.floating)) and not math.isfinite(v):
                keep[i] = False
            else:
                kinds.add("num")
        else:
            kinds.add("other")
    dropped = np.flatnonzero(~keep)
    _report_missing_labels(dropped, name, report)
    present = raw[keep]
    if kinds == {"bool"}:
        return keep, np.array([bool(v) for v in present], dtype=bool)
    if kinds == {"num"}:
        floats = np.array([float(v) for v in present], dtype=np.float64)
        if np.all(np.mod(floats, 1) == 0) and np.all(np.abs(floats) < 2**53):
            return keep, floats.astype(np.int64)
        return keep, floats
    texts = np.empty(len(present), dtype=object)
    changed = 0
    for i, v in enumerate(present):
        t = _label_text(v)
        texts[i] = t
        if isinstance(v, str) and t != v:
            changed += 1
    if len(kinds) > 1 or "other" in kinds:
        report.append(
            Change(
                "label_as_text",
                f"The label column {_q(name)} mixes numbers, text or other kinds of values; all "
                "labels were compared as text (for example 1 and '1' are the same class).",
                columns=(name,),
            )
        )
    else:
        _report_stripped_labels(changed, name, report)
    return keep, texts


def _report_missing_labels(dropped: np.ndarray, name: str, report: list[Change]) -> None:
    """Note the rows dropped for having no label (nothing when there are none)."""
    if len(dropped):
        report.append(
            Change(
                "dropped_missing_label",
                f"{_n(len(dropped), 'row')} ({_row_list(dropped)}) had no value in the label "
                f"column {_q(name)} and {'was' if len(dropped) == 1 else 'were'} removed, "
                "because a row without a class cannot be used to train or test a classifier.",
                columns=(name,),
                rows=tuple(int(i) for i in dropped),
                count=len(dropped),
            )
        )


def _report_stripped_labels(changed: int, name: str, report: list[Change]) -> None:
    """Note the labels whose surrounding spaces were removed (nothing when there are none)."""
    if changed:
        report.append(
            Change(
                "label_spaces_stripped",
                f"{_n(changed, 'label')} in {_q(name)} had spaces around the text, which were "
                "removed so that, for example, 'yes ' and 'yes' are the same class.",
                columns=(name,),
                count=changed,
            )
        )


def _clean_text_labels(
    raw: np.ndarray, name: str, report: list[Change]
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_clean_labels` for a long column of texts only, vectorised (same result)."""
    series = pd.Series(raw, dtype=object)
    stripped = series.str.strip()
    keep = ~stripped.str.lower().isin(MISSING_TOKENS).to_numpy()
    dropped = np.flatnonzero(~keep)
    _report_missing_labels(dropped, name, report)
    changed = int(((stripped != series).to_numpy() & keep).sum())
    _report_stripped_labels(changed, name, report)
    return keep, stripped.to_numpy(dtype=object)[keep]


def _match_class(wanted: Any, classes: list[Any]) -> Any | None:
    for c in classes:
        try:
            same = bool(c == wanted) and type(_native(c)) is type(_native(wanted))
        except Exception:  # noqa: BLE001
            same = False
        if same:
            return c
    text = _label_text(wanted)
    for c in classes:
        if _label_text(c) == text:
            return c
    return None


def _label_rows(
    frame: pd.DataFrame, label_pos: int, label_name: str, positive: Any, report: list
) -> tuple[np.ndarray, np.ndarray, Counter, list, dict]:
    """Step 2a: rows with a label, their labels, and the classes (stray classes dropped)."""
    keep, labels = _clean_labels(
        frame.iloc[:, label_pos].to_numpy(dtype=object), label_name, report
    )
    rows = np.flatnonzero(keep)
    if len(rows) == 0:
        raise ValueError(f"The label column {_q(label_name)} is empty: no row has a class.")
    counter = Counter(_native(v) for v in labels)
    classes = sorted(counter, key=lambda c: (str(type(c)), c))
    original_counts = {c: counter[c] for c in classes}
    strays = stray_classes(original_counts) if positive is None else []
    if strays:
        is_stray = np.array([_native(v) in set(strays) for v in labels], dtype=bool)
        lost = rows[is_stray]
        report.append(
            Change(
                "dropped_stray_classes",
                f"The label column {_q(label_name)} has {len(classes)} classes, but "
                f"{_class_list({c: counter[c] for c in strays})} "
                f"{'has' if len(strays) == 1 else 'have'} fewer than "
                f"{_stray_threshold(len(labels)):,} rows (max(3, 1% of the rows)), which looks "
                "like a stray value (a repeated header, a total row or a typo) rather than a "
                f"class; {_n(len(lost), 'row')} ({_row_list(lost)}) "
                f"{'was' if len(lost) == 1 else 'were'} removed and the two remaining classes "
                "are used. Choose a positive class to keep every class (one against the rest).",
                columns=(label_name,),
                rows=tuple(int(r) for r in lost),
                count=len(lost),
                severity="warning",
            )
        )
        keep[lost] = False
        rows, labels = rows[~is_stray], labels[~is_stray]
        counter = Counter(_native(v) for v in labels)
        classes = [c for c in classes if c not in set(strays)]
    if len(classes) == 1:
        raise ValueError(
            f"The label column {_q(label_name)} has only one class, {_q(_label_text(classes[0]))} "
            f"({_n(counter[classes[0]], 'row')}); a classifier needs rows of two classes. "
            "Check that the right column is chosen as the label."
        )
    if positive is None and len(classes) > 2:
        # many distinct values (most rows their own): a measurement, not a class
        looks_numeric = len(classes) > 20 and len(classes) > 0.2 * len(labels)
        hint = (
            f"With {len(classes)} different values in {_n(len(labels), 'row')} it looks like a "
            "measurement rather than a class: check that the right column is chosen as the "
            "label. If it is the label, choose"
            if looks_numeric
            else "Two classes are made here: choose"
        )
        raise ValueError(
            f"The label column {_q(label_name)} has {len(classes)} classes: "
            f"{_class_list(original_counts)}. {hint} the positive class, and all the other "
            "classes will be merged into one negative class."
        )
    return rows, labels, counter, classes, original_counts


def _positive_class(
    labels: np.ndarray,
    counter: Counter,
    classes: list,
    original_counts: dict,
    positive: Any,
    label_name: str,
    report: list,
) -> tuple[np.ndarray, Any, Any, bool]:
    """Step 2b: ``(y, positive, negative, merged)``; with more than two classes, one against
    the rest (``merged``)."""
    merged = False
    if positive is None:
        if set(classes) == {0, 1}:
            pos = classes[1]
            why = "1/True conventionally marks the positive class"
        else:
            pos = min(reversed(classes), key=lambda c: counter[c])
            why = (
                "it is the smaller class, which is usually the one of interest"
                if counter[classes[0]] != counter[classes[1]]
                else "both classes are the same size and it comes last in sorted order"
            )
        neg = next(c for c in classes if c is not pos)
        report.append(
            Change(
                "chose_positive_class",
                # counted in the file: later steps (missing values, repeated rows) may drop
                # some, and the final counts are the Data page's (H47 read 22 here beside 21)
                f"{_q(_label_text(pos))} ({_n(counter[pos], 'row')} in the file) is treated as "
                f"the positive class and {_q(_label_text(neg))} ({_n(counter[neg], 'row')} in "
                f"the file) as the negative class, because {why}. Choose the positive class to "
                "change this.",
                columns=(label_name,),
            )
        )
        y_values = labels
    else:
        pos = _match_class(positive, classes)
        if pos is None:
            raise ValueError(
                f"The positive class {_q(_label_text(positive))} does not occur in the label "
                f"column {_q(label_name)}. Its classes are: {_class_list(original_counts)}."
            )
        if len(classes) == 2:
            neg = classes[0] if classes[1] is pos else classes[1]
            y_values = labels
        else:
            pos_text = _label_text(pos)
            neg_text = f"not {pos_text}"
            texts = {_label_text(c) for c in classes}
            if neg_text in texts:
                neg_text = f"not {pos_text} (all other classes)"
            is_pos = np.array([_native(v) == pos for v in labels], dtype=bool)
            y_values = np.where(is_pos, pos_text, neg_text).astype(object)
            y_values = np.array([str(v) for v in y_values], dtype=object)
            others = [c for c in classes if c is not pos]
            report.append(
                Change(
                    "merged_classes",
                    f"The label column {_q(label_name)} has {len(classes)} classes. "
                    f"{_q(pos_text)} ({_n(counter[pos], 'row')} in the file) is the positive "
                    "class; the "
                    f"other {len(others)} classes ({_names([_label_text(c) for c in others], limit=6)}) "
                    f"were merged into one negative class named {_q(neg_text)} "
                    f"({_n(int(np.sum(~is_pos)), 'row')} in the file).",
                    columns=(label_name,),
                    count=len(others),
                )
            )
            pos, neg, merged = pos_text, neg_text, True
    pos, neg = _native(pos), _native(neg)
    return y_values, pos, neg, merged


def _stray_threshold(n_rows: int) -> int:
    return max(3, math.ceil(0.01 * n_rows))


def stray_classes(counts: dict) -> list:
    """Classes too small to be real when a two-class label is expected.

    Parameters
    ----------
    counts : dict
        ``{class: number of rows}`` of a label column (rows without a label left out).

    Returns
    -------
    list
        The classes with fewer than ``max(3, 1 % of the rows)`` rows, if the label has more
        than two classes and removing them leaves exactly two; otherwise an empty list.

    Examples
    --------
    >>> stray_classes({"healthy": 50, "ill": 48, "Total": 1})
    ['Total']
    >>> stray_classes({"a": 50, "b": 48, "c": 40})
    []
    """
    if len(counts) <= 2:
        return []
    limit = _stray_threshold(sum(counts.values()))
    small = [c for c, k in counts.items() if k < limit]
    return small if len(counts) - len(small) == 2 else []


def _final_y(values: np.ndarray) -> np.ndarray:
    if values.dtype == object:
        return np.array([_native(v) for v in values], dtype=object)
    return np.asarray(values).copy()
