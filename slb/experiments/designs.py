"""The synthetic designs of the SLB paper's section 5.1 (forest or general Bayesian networks)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources

from ..data.synthetic import make_forest_bn, make_general_bn

#: Variants of the designs: the paper's text with our defaults for what it leaves unstated
#: ("uncalibrated"), or those choices fitted to the paper's Table 1 with NB, RF, SVM(RBF) and
#: 5NN only ("calibrated", ``calibrated_designs.json``; see :mod:`slb.experiments.calibration`).
VARIANTS = ("uncalibrated", "calibrated")
#: The unstated choices and their "uncalibrated" values (``n_trees=None``: ``round(d / 5)``).
UNSTATED_DEFAULTS = {"n_trees": None, "coef": 1.0, "spacing": 1.0}
CALIBRATED_FILE = "calibrated_designs.json"
CALIBRATION_D = 20


@lru_cache(maxsize=1)
def _calibrated_file() -> dict:
    path = resources.files(__package__).joinpath(CALIBRATED_FILE)
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def calibrated_parameters(family: str, cpd: str) -> dict | None:
    """The fitted unstated choices of a design family and CPD, or None when not calibrated.

    Parameters
    ----------
    family : {"forest", "bn"}
    cpd : {"normal", "complex"}

    Returns
    -------
    dict or None
        ``{"n_trees": ..., "coef": ..., "spacing": ...}`` read from ``calibrated_designs.json``.

    Examples
    --------
    >>> p = calibrated_parameters("forest", "normal")
    >>> sorted(p) if p is not None else None
    ['coef', 'n_trees', 'spacing']
    """
    entry = _calibrated_file().get(f"{family}-{cpd}")
    if entry is None:
        return None
    return {k: entry["parameters"].get(k, v) for k, v in UNSTATED_DEFAULTS.items()}


def _balance_name(balance) -> str:
    share = _share(balance)
    if share == 0.5:
        return "balanced"
    if share == 0.75:
        return "imbalanced"
    return f"pos{share:g}"


def _share(balance) -> float:
    if isinstance(balance, str):
        key = balance.strip().lower()
        if key == "balanced":
            return 0.5
        if key in ("imbalanced", "unbalanced"):
            return 0.75
        try:
            balance = float(key)
        except ValueError:
            raise ValueError(
                f"balance must be 'balanced', 'imbalanced' or a share in (0, 1); got {balance!r}"
            ) from None
    share = float(balance)
    if not 0.0 < share < 1.0:
        raise ValueError(f"balance (the share of positives) must lie in (0, 1); got {balance!r}")
    return share


# ----------------------------------------------------------------------------------------------
# synthetic designs
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Design:
    """One cell of the paper's factorial synthetic designs.

    Parameters
    ----------
    family : {"forest", "bn"}
        Forest-structured (Table 1) or general Bayesian networks with three parents (Table 2).
    cpd : {"normal", "complex"}
    balance : float or {"balanced", "imbalanced"}
        Share of positives in the training sets (0.5 or the paper's 0.75).
    shared : bool
        General BNs only: about a third of the nodes share parents and CPDs across the classes.
    d : int
        Number of variables (the paper: 20).
    n_test : int
        Test rows, half per class (the paper: 1000).
    n_trees : int or None
        Forests only: trees per class forest (None: ``round(d / 5)``).
    coef : float
        Coefficient on the parents in every CPD (1: the paper's text).
    spacing : float
        Forests with complex CPDs: the mixture means are ``coef * z +/- spacing``.
    variant : {"uncalibrated", "calibrated"}
        A label: which values the three choices above have (see :meth:`with_variant`).

    Examples
    --------
    >>> design = Design("bn", "complex", "imbalanced")
    >>> design.family, design.balance, design.d
    ('bn', 0.75, 20)
    """

    family: str = "forest"
    cpd: str = "normal"
    balance: float = 0.5
    shared: bool = False
    d: int = 20
    n_test: int = 1000
    n_trees: int | None = None
    coef: float = 1.0
    spacing: float = 1.0
    variant: str = "uncalibrated"

    def __post_init__(self):
        family = {"general": "bn", "general bn": "bn"}.get(self.family, self.family)
        if family not in ("forest", "bn"):
            raise ValueError(f"design must be 'forest' or 'bn'; got {self.family!r}")
        if self.cpd not in ("normal", "complex"):
            raise ValueError(f"cpd must be 'normal' or 'complex'; got {self.cpd!r}")
        if family == "forest" and self.shared:
            raise ValueError("shared structure exists for general BNs (design='bn') only")
        object.__setattr__(self, "family", family)
        object.__setattr__(self, "balance", _share(self.balance))
        object.__setattr__(self, "shared", bool(self.shared))
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}; got {self.variant!r}")
        if family == "bn" and self.n_trees is not None:
            raise ValueError("n_trees exists for forest designs only")
        if family == "bn" and float(self.spacing) != 1.0:
            raise ValueError("spacing exists for forest designs only")
        for key in ("coef", "spacing"):
            value = float(getattr(self, key))
            if not value >= 0 or value == float("inf"):
                raise ValueError(f"{key} must be a finite non-negative number")
            object.__setattr__(self, key, value)

    def with_variant(self, variant: str) -> Design:
        """The same cell with the unstated choices of ``variant``.

        ``"uncalibrated"``: :data:`UNSTATED_DEFAULTS`; ``"calibrated"``: the fitted values of
        ``calibrated_designs.json`` (a ValueError when this family and CPD have none), fitted
        at the paper's ``d = 20``; for another ``d`` the number of trees keeps its share of the
        nodes (``round(n_trees * d / 20)``, at least 1).

        Examples
        --------
        >>> Design("forest", "normal").with_variant("uncalibrated") == Design("forest", "normal")
        True
        """
        if variant == "uncalibrated":
            return replace(self, variant=variant, **UNSTATED_DEFAULTS)
        if variant != "calibrated":
            raise ValueError(f"variant must be one of {VARIANTS}; got {variant!r}")
        params = calibrated_parameters(self.family, self.cpd)
        if params is None:
            raise ValueError(f"No calibrated parameters for {self.family}-{self.cpd} designs.")
        if self.family == "bn":
            params = {**params, "n_trees": None, "spacing": 1.0}
        elif params["n_trees"] is not None and self.d != CALIBRATION_D:
            # fitted at the paper's d = 20: keep the share of trees per node for another d
            share = int(params["n_trees"]) / CALIBRATION_D
            params["n_trees"] = min(self.d, max(1, int(round(share * self.d))))
        return replace(self, variant=variant, **params)

    @property
    def name(self) -> str:
        """``forest-normal-balanced``, ``bn-complex-imbalanced-shared``, ... (as
        :attr:`slb.data.synthetic.SyntheticDataset.name`)."""
        name = f"{self.family}-{self.cpd}-{_balance_name(self.balance)}"
        if self.family == "bn":
            name += "-shared" if self.shared else "-independent"
        if self.variant != "uncalibrated":
            name += f"-{self.variant}"
        return name

    @property
    def label(self) -> str:
        """The design in words, for a page or a figure (H54: a student met
        ``forest-normal-balanced-calibrated``).

        Examples
        --------
        >>> Design("forest", "normal").with_variant("calibrated").label
        'forest networks · normal CPDs · 50% positive · calibrated'
        >>> Design("bn", "complex", balance=0.75, shared=True).label
        'networks of 3 parents · complex CPDs · 75% positive · classes share nodes'
        """
        parts = [
            "forest networks" if self.family == "forest" else "networks of 3 parents",
            f"{self.cpd} CPDs",
            f"{100 * _share(self.balance):g}% positive",
        ]
        if self.family == "bn":
            parts.append("classes share nodes" if self.shared else "independent classes")
        if self.variant != "uncalibrated":
            parts.append(self.variant)
        return " · ".join(parts)

    @classmethod
    def from_name(cls, name: str, **kw) -> Design:
        """Parse a name such as ``"forest-complex-imbalanced"`` or ``"bn-normal-balanced"``
        (structure ``independent`` by default); omitted parts take the defaults."""
        parts = [p for p in str(name).strip().lower().split("-") if p]
        if not parts or parts[0] not in ("forest", "bn"):
            raise ValueError(
                f"A synthetic design name starts with 'forest' or 'bn' (e.g. "
                f"'forest-normal-balanced'); got {name!r}"
            )
        args, variant = {"family": parts[0]}, None
        for p in parts[1:]:
            if p in ("normal", "complex"):
                args["cpd"] = p
            elif p in ("balanced", "imbalanced", "unbalanced"):
                args["balance"] = p
            elif p in ("shared", "independent"):
                args["shared"] = p == "shared"
            elif p in VARIANTS:
                variant = p
            else:
                raise ValueError(f"Unknown part {p!r} in the design name {name!r}")
        args.update(kw)
        design = cls(**args)
        return design.with_variant(variant) if variant else design

    @classmethod
    def coerce(cls, design) -> Design:
        if isinstance(design, Design):
            return design
        if isinstance(design, str):
            return cls.from_name(design)
        if isinstance(design, Mapping):
            return cls(**design)
        raise TypeError(f"Expected a Design, a design name or a dict; got {type(design).__name__}")

    def make(self, n_train, random_state):
        """One draw: :class:`slb.data.synthetic.SyntheticDataset` with ``n_train`` training rows.

        The networks and the test set depend on ``random_state`` only, not on ``n_train``.
        """
        if self.family == "forest":
            return make_forest_bn(
                n_train=n_train,
                n_test=self.n_test,
                d=self.d,
                cpd=self.cpd,
                balance=self.balance,
                n_trees=self.n_trees,
                random_state=random_state,
                coef=self.coef,
                spacing=self.spacing,
            )
        return make_general_bn(
            n_train=n_train,
            n_test=self.n_test,
            d=self.d,
            cpd=self.cpd,
            shared=self.shared,
            balance=self.balance,
            random_state=random_state,
            coef=self.coef,
        )
