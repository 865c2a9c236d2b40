"""The classifiers the Compare page offers, built from :data:`slb.evaluation.registry.CLASSIFIERS`.

The registry is ``slb.evaluation.registry`` (shared with the experiments and the benchmarks): a name here
builds exactly the estimator ``slb.evaluation.registry.make_classifier`` builds under that name.  This
module only chooses which catalogue entries the page shows and which are compared from the
start, and wraps each as a :class:`ModelSpec`: ``make(density_params, seed)`` returns an
unfitted estimator; ``uses_density`` says whether it uses the shared KDE settings (then its
cached BER is keyed on them); ``default`` puts it in the comparison from the start.  The page
evaluates SLB itself through :class:`slb.ThresholdPath` (so λ moves fast), not through ``make``.
To add a classifier, add it to ``slb.evaluation.registry``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from slb.evaluation.registry import CLASSIFIERS as CATALOG
from slb.evaluation.registry import make_classifier

#: Compared from the start, in this order (SLB first: the page reads it from the λ path).
DEFAULT_MODELS = ("SLB", "TAN", "NB")
#: Catalogue entries the page leaves out: SLB's dependence measure is a page control already.
HIDDEN = ("SLB(Pearson)",)


@dataclass(frozen=True)
class ModelSpec:
    """How to build and describe one classifier of the comparison."""

    make: Callable[[dict, int], object]
    uses_density: bool
    default: bool
    summary: str


def _spec(name: str) -> ModelSpec:
    info = CATALOG[name]

    def make(density_params, seed, _name=name):
        return make_classifier(_name, random_state=seed, **dict(density_params or {}))

    return ModelSpec(make, info.uses_densities, name in DEFAULT_MODELS, info.summary)


_ORDER = [*DEFAULT_MODELS, *(n for n in CATALOG if n not in DEFAULT_MODELS and n not in HIDDEN)]

#: name -> ModelSpec, built once at import time; read-only.
CLASSIFIERS: Mapping[str, ModelSpec] = MappingProxyType({n: _spec(n) for n in _ORDER})
OPTIONAL_MODELS = tuple(n for n, s in CLASSIFIERS.items() if not s.default)
