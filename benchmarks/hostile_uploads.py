"""Time and peak memory of ``read_table`` + ``prepare_table`` on the hostile uploads of issue 15.

Run from the repository root: ``python benchmarks/hostile_uploads.py``.  Each file is made by
the generators of ``tests/data/make_malformed.py`` and read in a fresh process, so that the
peak resident memory (``ru_maxrss``) belongs to that file alone.  The target: every file ends
in a clean result or a clear ``ValueError`` within 10 s and 1 GB.
"""

from __future__ import annotations

import subprocess
import sys

CASES = {
    "xlsx declaring A1:T1000121 (the Excel bomb)": (
        "xlsx_with_dimension('A1:T1000121', rows_of(base_table(n=10)))",
        ".xlsx",
    ),
    "xlsx, 100k rows x 20 empty styled cells, lying dimension": (
        "xlsx_empty_styled_rows(100_000)",
        ".xlsx",
    ),
    "xlsx, 24k rows x 20 empty styled cells (under the cap)": (
        "xlsx_empty_styled_rows(24_000)",
        ".xlsx",
    ),
    "parquet, 20 kB text x 225k rows (4.5 GB expanded)": (
        "parquet_long_strings(225_000, 20_000)",
        ".parquet",
    ),
    "parquet, 9.9 M rows": ("parquet_many_rows(9_900_000)", ".parquet"),
    "csv, one 5 MB line": ("csv_wide_line(2_500_000)[:5_000_000]", ".csv"),
    "csv, 49.8 MB, 24.9 M cells": ("csv_many_cells(623_000, 40)", ".csv"),
    "csv, 44 MB, 400k x 21 real numbers (accepted)": (
        "pd.DataFrame(np.random.default_rng(0).normal(size=(400_000, 20)).round(2))"
        ".assign(label=np.where(np.arange(400_000) % 3, 'a', 'b')).to_csv(index=False).encode()",
        ".csv",
    ),
    "csv, 34 MB, 1M x 7 real numbers (accepted)": (
        "pd.DataFrame(np.random.default_rng(0).normal(size=(999_999, 6)).round(2))"
        ".assign(label=np.where(np.arange(999_999) % 3, 'a', 'b')).to_csv(index=False).encode()",
        ".csv",
    ),
}

CODE = r"""
import resource, sys, time
sys.path[:0] = ["tests/data", "."]
from make_malformed import *
data = eval(sys.argv[1])
from slb.tables.read import read_table
from slb.tables.clean import prepare_table
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
start = time.perf_counter()
try:
    read = read_table(data, "upload" + sys.argv[2])
    prep = prepare_table(read.frame, read.frame.columns[-1], max_rows=1000, max_features=60)
    out = f"ok: X {prep.X.shape}"
except ValueError as exc:
    out = "ValueError: " + str(exc)[:90]
took = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{len(data) / 1e6:7.2f} MB | {took:6.2f} s | peak {peak:5.0f} MB (file made: {before:.0f}) | {out}")
"""


def main() -> None:
    for name, (expr, ext) in CASES.items():
        res = subprocess.run(
            [sys.executable, "-c", CODE, expr, ext], capture_output=True, text=True, timeout=900
        )
        print(f"{name:58s} {res.stdout.strip() or res.stderr.strip()[-300:]}")


if __name__ == "__main__":
    main()
