"""Plotly figures for the dashboard and the experiment reports (needs the ``app`` extra).

:mod:`slb.viz.figures` holds the dashboard's figures, :mod:`slb.viz.evaluation` the
out-of-fold evaluation figures (ROC, precision-recall, confusion matrices); their public names
are re-exported here, as each module's ``__all__`` lists them.
"""

from . import evaluation, figures
from .evaluation import *  # noqa: F403 (re-export: evaluation.__all__)
from .figures import *  # noqa: F403 (re-export: figures.__all__)

__all__ = [*figures.__all__, *evaluation.__all__]
