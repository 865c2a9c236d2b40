"""Column names that can be told apart: :func:`tidy_names` and :func:`unique_names`.

An uploaded table may carry names that look alike but are different strings: a second
byte-order mark before the first name, a zero-width space inside a name, full-width letters
("ｌａｂｅｌ") or a Cyrillic "а" in place of the Latin "a".  On screen they all read "label",
so a user cannot tell which column is which.  :func:`tidy_names` removes the invisible
characters and applies Unicode NFKC normalisation (full-width and other compatibility forms
become ordinary letters); :func:`unique_names` then gives names that still *display* alike a
number suffix, comparing them through a "skeleton" in which common Cyrillic and Greek letters
that look like Latin ones count as those letters.  Each change is described in a note.
"""

from __future__ import annotations

import re
import unicodedata

from ._messages import _join, _q

__all__ = ["tidy_names", "unique_names", "name_skeleton"]

#: Invisible characters: byte-order marks, zero-width spaces and joiners, soft hyphens,
#: direction marks and the other format characters that change nothing on screen.
_INVISIBLE_RE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb]"
)

#: Cyrillic and Greek letters drawn like Latin ones (the usual homoglyphs).
_LOOKALIKES = str.maketrans(
    {
        # Cyrillic lower case
        "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
        "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ј": "j", "ԁ": "d",
        "ԛ": "q", "ԝ": "w", "ӏ": "l", "һ": "h",
        # Cyrillic upper case
        "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
        "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ԛ": "Q",
        "Ԝ": "W", "Ӏ": "I",
        # Greek
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
        "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o", "ν": "v",
        "ι": "i", "κ": "k", "ρ": "p", "τ": "t", "υ": "u", "χ": "x",
    }
)  # fmt: skip


def name_skeleton(name: str) -> str:
    """How a name looks: NFKC form, no invisible characters, lookalike letters as Latin.

    Parameters
    ----------
    name : str

    Returns
    -------
    str

    Examples
    --------
    >>> from slb.tables.names import name_skeleton
    >>> name_skeleton("l\\u0430bel") == name_skeleton("ｌａｂｅｌ") == "label"
    True
    """
    text = unicodedata.normalize("NFKC", _INVISIBLE_RE.sub("", str(name)))
    return text.translate(_LOOKALIKES).casefold()


def tidy_names(names: list[str], notes: list[str]) -> list[str]:
    """The names without invisible characters, in Unicode NFKC form, with a note if changed.

    Parameters
    ----------
    names : list of str
        Column names (already stripped of surrounding spaces).
    notes : list of str
        The note on the changed names is appended here.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from slb.tables.names import tidy_names
    >>> notes = []
    >>> tidy_names(["\\ufeffid", "ｌａｂｅｌ", "age"], notes)
    ['id', 'label', 'age']
    >>> len(notes)
    1
    """
    out = []
    changed = []
    for n in names:
        new = unicodedata.normalize("NFKC", _INVISIBLE_RE.sub("", n)).strip()
        if new != n:
            changed.append((n, new))
        out.append(new)
    if changed:
        shown = [
            f"{_q(_visible(old))} -> {_q(new) if new else 'no name'}" for old, new in changed[:6]
        ]
        if len(changed) > 6:
            shown.append(f"{len(changed) - 6:,} more")
        notes.append(
            f"{len(changed):,} column name{'s' if len(changed) > 1 else ''} held invisible "
            "characters (byte-order marks, zero-width spaces, ...) or full-width or other "
            "compatibility forms of letters, which were removed or replaced by ordinary "
            f"letters: {_join(shown)}."
        )
    return out


def unique_names(names: list[str], notes: list[str], changed: set[int] | None = None) -> list[str]:
    """Names that also *look* different: repeats and lookalikes get a number suffix.

    Two names are the same here when their :func:`name_skeleton` is: "label", "LABEL" stay
    apart (case is kept: they look different), but "label" and "lаbel" (Cyrillic "а") do
    not.  The name written plainly keeps it: names made only of the letters they look like
    come first, then those that :func:`tidy_names` changed (``changed``), each group in
    column order; so the real "label" column keeps its name beside a "lаbel" or a
    "la<zero-width space>bel" written before it.

    Parameters
    ----------
    names : list of str
    notes : list of str
        Notes on the renamed columns are appended here.
    changed : set of int, optional
        Positions of the names :func:`tidy_names` changed.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from slb.tables.names import unique_names
    >>> notes = []
    >>> unique_names(["age", "age", "label", "l\\u0430bel"], notes)
    ['age', 'age_2', 'label', 'l\\u0430bel_2']
    """
    names = list(names)

    def key(n: str) -> str:
        return unicodedata.normalize("NFKC", _INVISIBLE_RE.sub("", n)).translate(_LOOKALIKES)

    seen: set[str] = set()
    texts: set[str] = set()  # the names as written so far (a repeat, or only a lookalike?)
    taken = {key(n) for n in names}
    next_suffix: dict[str, int] = {}
    renamed = []
    lookalike = []
    changed = changed or set()
    order = sorted(range(len(names)), key=lambda j: (key(names[j]) != names[j], j in changed, j))
    for j in order:
        n = names[j]
        k = key(n)
        if k in seen:
            suffix = next_suffix.get(k, 2)  # not from 2 again: 3,000 repeats stay linear
            while f"{k}_{suffix}" in seen or f"{k}_{suffix}" in taken:
                suffix += 1
            next_suffix[k] = suffix + 1
            new = f"{n}_{suffix}"
            (renamed if n in texts else lookalike).append((n, new, k))
            names[j] = new
            k = key(new)
        texts.add(n)
        seen.add(k)
    if renamed:
        notes.append(
            "Several columns had the same name, so "
            f"{len(renamed)} {'was' if len(renamed) == 1 else 'were'} renamed with a number suffix: "
            + _join([f"{_q(new)} (a second {_q(old)})" for old, new, _ in renamed[:8]])
            + (f" and {len(renamed) - 8} more" if len(renamed) > 8 else "")
            + "."
        )
    if lookalike:
        notes.append(
            f"{len(lookalike)} column name{'s' if len(lookalike) > 1 else ''} "
            f"{'look' if len(lookalike) > 1 else 'looks'} exactly like another column's name "
            f"but {'use' if len(lookalike) > 1 else 'uses'} different letters (for example a "
            "Cyrillic or Greek letter that looks like a Latin one), so "
            f"{'they were' if len(lookalike) > 1 else 'it was'} given a number suffix to tell "
            "them apart: "
            + _join(
                [
                    f"{_q(new)} (looks like {_q(k)}: {_odd_letters(old)})"
                    for old, new, k in lookalike[:8]
                ]
            )
            + (f" and {len(lookalike) - 8} more" if len(lookalike) > 8 else "")
            + "."
        )
    return names


def _odd_letters(name: str) -> str:
    """The lookalike letters of a name, described ('the Cyrillic letter а, U+0430')."""
    odd = []
    for ch in dict.fromkeys(name):
        if ch.translate(_LOOKALIKES) != ch:
            odd.append(f"{unicodedata.name(ch, 'letter').lower()} U+{ord(ch):04X}")
    return _join(odd[:3]) if odd else "different characters"


def _visible(name: str) -> str:
    """The name with its invisible characters written as [U+200B] codes."""
    return _INVISIBLE_RE.sub(lambda m: f"[U+{ord(m.group()):04X}]", name)
