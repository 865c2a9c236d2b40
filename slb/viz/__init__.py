"""Plotly figures for the dashboard and the experiment reports (needs the ``app`` extra).

:mod:`slb.viz.figures` gathers the dashboard's figures, built in modules of one concern each
(:mod:`~slb.viz.style`, :mod:`~slb.viz.layout`, :mod:`~slb.viz.dependence`,
:mod:`~slb.viz.graphs`, :mod:`~slb.viz.density`, :mod:`~slb.viz.curves`, :mod:`~slb.viz.model`,
:mod:`~slb.viz.experiments`, :mod:`~slb.viz.selection`); :mod:`slb.viz.evaluation` holds the
out-of-fold evaluation figures (ROC, precision-recall, confusion matrices).  Their public names
are re-exported here, as each module's ``__all__`` lists them.
"""

from . import evaluation, figures
from .evaluation import *  # noqa: F403 (re-export: evaluation.__all__)
from .figures import *  # noqa: F403 (re-export: figures.__all__)

__all__ = [*figures.__all__, *evaluation.__all__]
