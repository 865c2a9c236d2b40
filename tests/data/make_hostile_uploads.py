"""Uploads for issue 15 (findings 1 and 6), written to ``tests/data/hostile_uploads/``.

Run ``python tests/data/make_hostile_uploads.py``; deterministic (fixed seed).

* ``markdown_labels.csv``: class labels that are a Markdown image and a Markdown link, column
  names with HTML and Markdown; the dashboard must show them as text.
* ``huge_values.csv``: a column ``income [$]`` with one value 1e120 (beyond the library's
  |x| <= 1e100); the Data page must say so, naming the column.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parent / "hostile_uploads"
IMG_LABEL = "![p](http://127.0.0.1:9/x.png)"
LINK_LABEL = "[neg](http://127.0.0.1:9/)"
EVIL_COLUMN = "<img src=x onerror=alert(1)>**b**"
HUGE_COLUMN = "income [$]"


def markdown_labels(n: int = 80, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, IMG_LABEL, LINK_LABEL)
    a = rng.normal(size=n)
    return pd.DataFrame(
        {
            EVIL_COLUMN: (a + (y == IMG_LABEL)).round(4),
            "[c](http://127.0.0.1:9/c)": (a + rng.normal(scale=0.5, size=n)).round(4),
            "plain": rng.normal(size=n).round(4),
            "label": y,
        }
    )


def huge_values(n: int = 60, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.normal(50, 10, n).round(1),
            HUGE_COLUMN: rng.normal(3e4, 1e4, n).round(0),
            "label": np.where(np.arange(n) % 2 == 0, "yes", "no"),
        }
    )
    df.loc[7, HUGE_COLUMN] = 1e120
    return df


def main() -> None:
    OUT.mkdir(exist_ok=True)
    markdown_labels().to_csv(OUT / "markdown_labels.csv", index=False)
    huge_values().to_csv(OUT / "huge_values.csv", index=False)


if __name__ == "__main__":
    main()
