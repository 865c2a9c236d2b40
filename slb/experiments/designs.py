"""The synthetic designs of the SLB paper's section 5.1 (forest or general Bayesian networks)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..data.synthetic import make_forest_bn, make_general_bn


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
    """

    family: str = "forest"
    cpd: str = "normal"
    balance: float = 0.5
    shared: bool = False
    d: int = 20
    n_test: int = 1000

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

    @property
    def name(self) -> str:
        """``forest-normal-balanced``, ``bn-complex-imbalanced-shared``, ... (as
        :attr:`slb.data.synthetic.SyntheticDataset.name`)."""
        name = f"{self.family}-{self.cpd}-{_balance_name(self.balance)}"
        if self.family == "bn":
            name += "-shared" if self.shared else "-independent"
        return name

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
        args = {"family": parts[0]}
        for p in parts[1:]:
            if p in ("normal", "complex"):
                args["cpd"] = p
            elif p in ("balanced", "imbalanced", "unbalanced"):
                args["balance"] = p
            elif p in ("shared", "independent"):
                args["shared"] = p == "shared"
            else:
                raise ValueError(f"Unknown part {p!r} in the design name {name!r}")
        args.update(kw)
        return cls(**args)

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
                random_state=random_state,
            )
        return make_general_bn(
            n_train=n_train,
            n_test=self.n_test,
            d=self.d,
            cpd=self.cpd,
            shared=self.shared,
            balance=self.balance,
            random_state=random_state,
        )
