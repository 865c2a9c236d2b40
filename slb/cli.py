"""Console script of the library: ``slb-experiments`` (= ``python -m slb.experiments``).

The dashboard's launcher, ``slb-explorer``, lives with the app in the ``slb_explorer``
package (:func:`slb_explorer.main`): the library neither ships nor starts the app.
"""

from __future__ import annotations

__all__ = ["experiments"]


def experiments(argv=None) -> int:
    """Entry point of ``slb-experiments`` (= ``python -m slb.experiments``)."""
    from .experiments.cli import main

    main(argv)
    return 0
