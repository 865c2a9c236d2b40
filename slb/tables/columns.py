"""Column names in the cleaning: unique names, and finding the label and feature columns.

Step 1 of the cleaning (:func:`_column_positions`): every column gets a unique, non-blank text
name (blank ones are named after their position, repeats get a number suffix, with a note),
then the label and the features are found by name (the cleaned name, the original name, then
up to upper/lower case).  :class:`slb.tables.cleaner.TableCleaner` matches the columns of new
rows by the same names.  (The Unicode tidying of the names a file carries is done earlier, when
it is read: :mod:`slb.tables.names`.)
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import pandas as pd

from ._messages import _join, _n, _names, _q
from .records import Change
from .scalars import _is_missing_scalar, _native


def _name_text(name: Any) -> str:
    if _is_missing_scalar(name):
        return ""
    if isinstance(name, tuple):
        return " / ".join(t for t in (_name_text(p) for p in name) if t)
    return str(_native(name)).strip()


def _unique_names(
    names: list[str], reserved: Iterable[str] = ()
) -> tuple[list[str], list[tuple[str, str]]]:
    """Make names unique with suffixes _2, _3, ...; returns (names, [(old, new), ...])."""
    taken = set(reserved)
    all_names = set(names)
    out: list[str] = []
    renamed: list[tuple[str, str]] = []
    for name in names:
        if name not in taken:
            out.append(name)
            taken.add(name)
            continue
        k = 2
        while f"{name}_{k}" in taken or f"{name}_{k}" in all_names:
            k += 1
        new = f"{name}_{k}"
        out.append(new)
        taken.add(new)
        renamed.append((name, new))
    return out, renamed


def _normalise_columns(columns: pd.Index, report: list[Change]) -> list[str]:
    texts = [_name_text(c) for c in columns]
    blank = [j for j, t in enumerate(texts) if not t]
    for j in blank:
        texts[j] = f"column_{j + 1}"
    if blank:
        report.append(
            Change(
                "named_blank_columns",
                f"{_n(len(blank), 'column')} had no name and "
                f"{'was' if len(blank) == 1 else 'were'} named after {'its' if len(blank) == 1 else 'their'} "
                f"position: {_names([texts[j] for j in blank])}.",
                columns=tuple(texts[j] for j in blank),
                count=len(blank),
            )
        )
    names, renamed = _unique_names(texts)
    if renamed:
        pairs = [f"{_q(new)} (a second {_q(old)})" for old, new in renamed[:8]]
        if len(renamed) > 8:
            pairs.append(f"{len(renamed) - 8:,} more")
        report.append(
            Change(
                "renamed_duplicate_names",
                f"Several columns had the same name, so {_n(len(renamed), 'column')} "
                f"{'was' if len(renamed) == 1 else 'were'} renamed with a number suffix to tell "
                f"them apart: {_join(pairs)}.",
                columns=tuple(new for _, new in renamed),
                count=len(renamed),
            )
        )
    return names


def _find_column(
    wanted: Any, names: list[str], originals: pd.Index, what: str, report: list[Change]
) -> int:
    """Position of the column called ``wanted`` (new name, original name, then case-insensitive)."""
    text = _name_text(wanted)
    for j, name in enumerate(names):
        if name == text:
            hits = [k for k, o in enumerate(originals) if _name_text(o) == text]
            if len(hits) > 1 and j == hits[0]:
                report.append(
                    Change(
                        f"ambiguous_{what}_name",
                        f"{_n(len(hits), 'column')} are named {_q(text)}; the first one is used as "
                        f"the {what} column.",
                        columns=(name,),
                        count=len(hits),
                        severity="warning",
                    )
                )
            return j
    for j, original in enumerate(originals):
        try:
            if original == wanted:
                return j
        except Exception:  # noqa: BLE001 - odd objects as column names
            continue
    folded = [j for j, name in enumerate(names) if name.casefold() == text.casefold()]
    if len(folded) == 1:
        report.append(
            Change(
                f"{what}_name_case",
                f"There is no column named exactly {_q(text)}; the column {_q(names[folded[0]])} "
                f"(same name up to upper/lower case and spaces) is used as the {what} column.",
                columns=(names[folded[0]],),
            )
        )
        return folded[0]
    raise ValueError(
        f"The {what} column {_q(text)} is not in the table. "
        f"The table has {_n(len(names), 'column')}: {_names(names, limit=15)}."
    )


def _column_positions(
    frame: pd.DataFrame, label: Hashable, features: Sequence[Hashable] | None, report: list
) -> tuple[list[str], int, list[int]]:
    """Step 1: the cleaned column names, the label's position and the features' positions."""
    names = _normalise_columns(frame.columns, report)
    label_pos = _find_column(label, names, frame.columns, "label", report)
    label_name = names[label_pos]
    if features is None:
        feature_pos = [j for j in range(len(names)) if j != label_pos]
    else:
        if isinstance(features, (str, bytes)) or not isinstance(features, Iterable):
            raise ValueError("features must be a list of column names.")
        feature_pos = []
        for f in features:
            j = _find_column(f, names, frame.columns, "feature", report)
            if j not in feature_pos:
                feature_pos.append(j)
        if label_pos in feature_pos:
            feature_pos.remove(label_pos)
            report.append(
                Change(
                    "label_not_a_feature",
                    f"The label column {_q(label_name)} was also listed as a feature; it is "
                    "used only as the label, since a feature must not reveal the answer.",
                    columns=(label_name,),
                )
            )
    if not feature_pos:
        raise ValueError(
            "No feature columns: besides the label, the table needs at least one column of "
            "numbers to learn from."
        )
    return names, label_pos, feature_pos
