"""Turn a raw table into clean classifier inputs ``X``, ``y`` and a readable report.

:func:`prepare_table` is the single validation layer between whatever a user uploads (read
with :func:`slb.tables.read.read_table`) and the estimators of :mod:`slb`.  It never guesses silently:
every change it makes to the data is recorded as a :class:`Change` whose ``message`` is a
self-contained plain-text sentence (no HTML, no Markdown) that a dashboard can show as is, and
every problem it cannot repair raises a :class:`ValueError` whose message says what is wrong
and what to do about it.

:class:`TableCleaner` is the same cleaning as a fitted scikit-learn transformer:
``prepare_table(frame, label, ...)`` is ``TableCleaner(label, ...).fit_prepare(frame)``.  The
fitted cleaner remembers every data-dependent choice (columns, category levels, comma readings,
medians, dropped columns, the label coding) and :meth:`TableCleaner.transform` applies them to
new raw rows, so it is saved with a model (``Pipeline(TableCleaner, model)``) and new files are
cleaned the way the training file was.

This module describes the cleaning and gathers its public names; the code lives in one module
per concern, in the order the steps run:

* :mod:`slb.tables.columns`: column names, the label and feature columns (step 1);
* :mod:`slb.tables.labels`: label rows, classes, stray classes, the positive class (step 2);
* :mod:`slb.tables.encode`: the features as numbers, with :mod:`slb.tables.numbers` (numbers
  stored as text) and :mod:`slb.tables.scalars` (what one cell is) (step 3);
* :mod:`slb.tables.prepare`: infinities, empty columns, missing values, constant and duplicate
  columns, duplicate rows, size checks (steps 3b-7);
* :mod:`slb.tables.selection`: the row and feature limits (steps 4 and 6);
* :mod:`slb.tables.records`: :class:`Change` and :class:`PreparedData`;
* :mod:`slb.tables.cleaner`: :class:`TableCleaner` and :func:`prepare_table`;
* :mod:`slb.tables.apply`: the fitted cleaning applied to new rows.

Choices made here (and why)
---------------------------
* **Label.**  Rows whose label is missing (empty, ``None``, ``NaN``, ``"NA"``, ``"?"``, ...)
  are dropped.  A label with two classes is kept as is; ``positive`` says which class is the
  positive one (default: ``1``/``True`` for 0/1 or boolean labels, otherwise the smaller class,
  as the rarer class is usually the one of interest, e.g. a disease or a fault; ties go to the
  class that sorts last).  A label with more than two classes needs ``positive``: that class
  keeps its name and all the others are merged into one negative class named
  ``"not <positive>"`` (then both labels are strings).
* **Numbers stored as text** (``" 3 "``, ``"1,5"``, ``"1.234,5"``, ``"1,234.5"``, ``"12%"``)
  are read as numbers; percentages become fractions (``"12%"`` -> 0.12).  A comma is a decimal
  comma only if that reading is the one consistent with every value of the column (``"1,5"``,
  ``"0,125"``); when every comma is followed by groups of exactly three digits (``"2,928"``,
  ``"1,517"``, beside ``"718"``) the commas are thousands separators, and a column where both
  readings fit gets a note.  A text column in which at least 90 % of the filled cells are numbers
  is numeric; its other cells (e.g. ``"n.a."``, ``"<0.1"``) become missing, with a note.
* **Other text columns** are dropped (``non_numeric="drop"``), or, with
  ``non_numeric="encode"``, one-hot encoded when they have at most :data:`MAX_CATEGORIES`
  categories: a two-category column becomes one 0/1 column, a column with k > 2 categories
  becomes k 0/1 columns.  One-hot rather than ordinal codes because ordinal codes invent an
  order and distances between categories that the data do not have.  Columns with more
  categories look like identifiers or free text and are dropped even then.  Date/time columns
  become numbers (days since 1970-01-01), with a note.  Boolean columns become 0/1.
* **Missing values and ±inf** (inf is treated as missing).  Feature columns that are more than
  half empty are dropped first (otherwise they would cost most of the rows, or be mostly
  invented by imputation).  Then ``missing="drop"`` drops the rows that still have a missing
  value and ``missing="impute"`` fills them with the column median, computed over all rows
  without looking at the label.
* **Constant columns** and **columns identical to an earlier column** carry no information and
  are dropped.  A numeric column equal to the row numbers 0..n-1 or 1..n (an exported index)
  is dropped too, and so are likely **identifiers** (``keep_identifiers=False``): integer
  columns whose values are all different and that increase (or decrease) down the file, at
  least 95 % of the steps, and integer columns named like an identifier (``id``,
  ``patient_id``, ``index``, ``key``, ``number``, ``no``, ``sample_code``) whose values are
  all different, shuffled or not.  Such a column tells the rows apart, not the classes; when
  the file is sorted by class it predicts the class perfectly and makes results meaningless.
* **Stray classes.**  When no positive class is given and the label has more than two classes,
  classes with fewer than ``max(3, 1 %)`` of the rows (a repeated header line, a "Total" row, a
  typo) are dropped with a warning if exactly two classes remain.
* **Size limits.**  ``max_rows`` keeps a stratified random sample (fixed seed
  ``random_state``).  ``max_features`` keeps the features with the largest *communality*: the
  share of each feature's variance explained by the principal components of the
  rank-transformed, standardised features that stand out from noise (eigenvalue of the rank
  correlation matrix above the Marchenko-Pastur edge ``(1 + sqrt(d/n))**2`` of independent
  features; at most ten, at least one).  This criterion is scale free (raw variances depend
  on the units), robust to outliers (ranks), and ignores the label, so it does not make
  cross-validated accuracies optimistic the way a label-based screening would; it favours
  features that take part in the main patterns of the data over isolated noise.  To choose
  the features yourself, pass ``features``.
* **Size checks.**  Each class needs at least :data:`MIN_ROWS_PER_CLASS` rows.  If a class has
  fewer rows than ``n_folds``, the number of folds is reduced (to at least 2).  More features
  than rows is allowed, with a warning that results will be noisy.

Everything is deterministic given ``random_state``.
"""

from __future__ import annotations

from .cleaner import TableCleaner, prepare_table
from .encode import MAX_CATEGORIES, NUMERIC_TEXT_FRACTION
from .labels import stray_classes
from .numbers import NumericParse, parse_numeric
from .prepare import MIN_ROWS_PER_CLASS, MOSTLY_MISSING_FRACTION
from .records import Change, PreparedData
from .selection import N_COMPONENTS_FOR_SELECTION, SELECTION_SAMPLE_ROWS
from .tokens import MISSING_TOKENS

__all__ = [
    "Change",
    "PreparedData",
    "TableCleaner",
    "prepare_table",
    "MIN_ROWS_PER_CLASS",
    "MAX_CATEGORIES",
    "MISSING_TOKENS",
    "stray_classes",
    # also importable from here, as before the split
    "NumericParse",
    "parse_numeric",
    "MOSTLY_MISSING_FRACTION",
    "NUMERIC_TEXT_FRACTION",
    "N_COMPONENTS_FOR_SELECTION",
    "SELECTION_SAMPLE_ROWS",
]
