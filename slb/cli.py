"""Console script of the library: ``slb-experiments`` (= ``python -m slb.experiments``).

The dashboard's launcher, ``slb-explorer``, lives with the app in the ``slb_explorer``
package (:func:`slb_explorer.main`): the library neither ships nor starts the app.
"""

from __future__ import annotations

__all__ = ["experiments"]


def experiments(argv=None) -> int:
    """Entry point of ``slb-experiments`` (= ``python -m slb.experiments``).

    Parameters
    ----------
    argv : list of str or None
        Arguments without the program name (default ``sys.argv[1:]``).

    Returns
    -------
    status : int
        0 when the experiment ran.

    Examples
    --------
    >>> from slb.cli import experiments
    >>> try:  # doctest: +ELLIPSIS
    ...     experiments(["--help"])
    ... except SystemExit as stop:  # argparse exits after the help
    ...     print("exit code", stop.code)
    usage: python -m slb.experiments [-h] {real,synthetic,noise} ...
    exit code 0
    """
    from .experiments.cli import main

    main(argv)
    return 0
