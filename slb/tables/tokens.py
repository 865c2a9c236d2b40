"""The cell texts the table readers and the cleaner read as missing or infinite.

A leaf module: the number parsing (:mod:`slb.tables.numbers`), the cleaning
(:mod:`slb.tables.scalars`, :mod:`slb.tables.labels`; :mod:`slb.tables.clean` re-exports
:data:`MISSING_TOKENS`), the readers and :mod:`slb.tables.distinct` all read these.
"""

from __future__ import annotations

import math

#: Cell texts read as "missing" (compared after stripping spaces, case-insensitively).
#: pandas' default missing-value strings plus a few common ones ("?" is the UCI convention).
MISSING_TOKENS = frozenset(
    {
        "",
        "na",
        "n/a",
        "nan",
        "-nan",
        "null",
        "none",
        "<na>",
        "nat",
        "#n/a",
        "#n/a n/a",
        "#na",
        "?",
        "-",
        "--",
        "missing",
        "-1.#ind",
        "1.#ind",
        "-1.#qnan",
        "1.#qnan",
        # error values of spreadsheet formulas
        "#div/0!",
        "#name?",
        "#null!",
        "#num!",
        "#ref!",
        "#value!",
        "#spill!",
        "#calc!",
        "#getting_data",
        "#field!",
        "#blocked!",
        "#connect!",
        "#busy!",
        "#unknown!",
    }
)

_INFINITIES = {
    "inf": math.inf,
    "+inf": math.inf,
    "-inf": -math.inf,
    "infinity": math.inf,
    "+infinity": math.inf,
    "-infinity": -math.inf,
}
