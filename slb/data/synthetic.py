"""Synthetic Bayesian-network designs of the SLB paper (Tenzer et al., JMLR 2020, section 5.1).

Each class is a Bayesian network over ``d`` continuous variables ``x1 .. xd``: random forests
(:func:`make_forest_bn`, paper 5.1.1) or networks whose non-root nodes have three parents
(:func:`make_general_bn`, 5.1.2), with normal or complex (t_5 / Gaussian-mixture) conditionals.
The choices the paper leaves unstated (``n_trees``, ``coef``, ``spacing``) are parameters; the
defaults are the "uncalibrated" designs (``slb.experiments.calibration`` fits them).  Exact class
densities give :func:`log_likelihood_ratio`, :func:`bayes_error` (Monte Carlo) and Lemma 1's
:func:`oracle_coefficients`.  The full description: ``docs/synthetic-designs.md``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import gammaln

__all__ = [
    "BayesNet",
    "SyntheticDataset",
    "make_forest_bn",
    "make_general_bn",
    "shared_node_count",
    "sample",
    "log_likelihood_ratio",
    "class_log_density",
    "gaussian_parameters",
    "true_log_density_terms",
    "oracle_coefficients",
    "bayes_error",
    "term_name",
    "edge_recovery",
]

T_DF = 5  # degrees of freedom of the Student t component of the complex CPDs
CPDS = ("normal", "complex")
_LOG_HALF = float(np.log(0.5))
_LOG_QUARTER = float(np.log(0.25))
_CHUNK = 50_000  # rows per block in Monte Carlo evaluations


# ----------------------------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------------------------
def _as_generator(random_state) -> np.random.Generator:
    """A :class:`numpy.random.Generator` from None, an int, a SeedSequence, a Generator or a
    legacy :class:`numpy.random.RandomState` (from which a seed is drawn)."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(int(random_state.randint(np.iinfo(np.int32).max)))
    return np.random.default_rng(random_state)


def term_name(label: int, *columns: str) -> str:
    """Name of one SLB log-density feature, e.g. ``log p+(x3)`` or ``log p-(x1, x3)``.

    Parameters
    ----------
    label : {+1, -1}
        The class whose density the term is.
    *columns : str
        One column (univariate term) or two columns (bivariate term), in column order.

    Returns
    -------
    str

    Examples
    --------
    >>> term_name(1, "x3"), term_name(-1, "x1", "x3")
    ('log p+(x3)', 'log p-(x1, x3)')
    """
    sign = "+" if int(label) > 0 else "-"
    return f"log p{sign}({', '.join(columns)})"


def _positive_share(balance) -> float:
    if isinstance(balance, str):
        key = balance.strip().lower()
        if key == "balanced":
            return 0.5
        if key in ("imbalanced", "unbalanced"):
            return 0.75
        raise ValueError(
            f"balance must be 'balanced', 'imbalanced' or a share in (0, 1); got {balance!r}"
        )
    share = float(balance)
    if not 0.0 < share < 1.0:
        raise ValueError(f"balance (the positive share) must lie in (0, 1); got {balance!r}")
    return share


def _check_count(name, n) -> int:
    if not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"{name} must be a non-negative integer; got {n!r}")
    return int(n)


def _check_scale(name, value) -> float:
    value = float(value)
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite non-negative number; got {value!r}")
    return value


def _check_cpd(cpd) -> str:
    if cpd not in CPDS:
        raise ValueError(f"cpd must be one of {CPDS}; got {cpd!r}")
    return cpd


def _mixture_means(Z: np.ndarray, coef=1.0, spacing=1.0):
    """Means of the two Gaussian components of the complex CPD given parent values ``Z`` (n, k):
    ``c z +/- spacing`` for one parent, else ``c (z1 + .. + z_{k-1})`` and ``c (z2 + .. + zk)``
    (``c = coef``; with the defaults 1, 1 the arithmetic is exactly the uncalibrated one)."""
    if Z.shape[1] == 1:
        return coef * Z[:, 0] + spacing, coef * Z[:, 0] - spacing
    return coef * Z[:, :-1].sum(axis=1), coef * Z[:, 1:].sum(axis=1)


_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)
_T_LOGNORM = float(gammaln((T_DF + 1) / 2) - gammaln(T_DF / 2) - 0.5 * np.log(T_DF * np.pi))


def _norm_logpdf(r):
    return -0.5 * (r * r) - _LOG_SQRT_2PI


def _t_logpdf(r):
    """Log-density of Student's t with ``T_DF`` degrees of freedom (checked against scipy)."""
    return _T_LOGNORM - 0.5 * (T_DF + 1) * np.log1p(r * r / T_DF)


def _complex_logpdf(x, s, m1, m2):
    """``log(1/2 t_5(x - s) + 1/4 phi(x - m1) + 1/4 phi(x - m2))``, computed stably."""
    a = _LOG_HALF + _t_logpdf(x - s)
    b = _LOG_QUARTER + _norm_logpdf(x - m1)
    c = _LOG_QUARTER + _norm_logpdf(x - m2)
    top = np.maximum(np.maximum(a, b), c)
    return top + np.log(np.exp(a - top) + np.exp(b - top) + np.exp(c - top))


# ----------------------------------------------------------------------------------------------
# one class's network
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BayesNet:
    """One class's Bayesian network: a DAG over named variables and its CPD kind.

    Parameters
    ----------
    columns : tuple of str
        Variable names in column order (``x1 .. xd``).
    parents : dict
        ``parents[node]`` is the *ordered* tuple of the node's parents ``(z1, z2, ...)``;
        ``()`` for a root.
    order : tuple of str
        A topological order (every parent precedes its children).
    cpd : {"normal", "complex"}
        Roots are ``N(0, 1)``; a child with parents ``z`` is ``N(c sum z, 1)`` ("normal"), or
        ``t_5 + c sum z`` w.p. 1/2 else the mixture ``1/2 N(m1, 1) + 1/2 N(m2, 1)`` with
        ``m1, m2 = c z +/- spacing`` for one parent and ``c (z1 + .. + z_{k-1})``,
        ``c (z2 + .. + zk)`` for ``k >= 2`` parents ("complex"), ``c = coef``.
    coef : float, default 1.0
    spacing : float, default 1.0

    Examples
    --------
    >>> from slb.data.synthetic import BayesNet
    >>> net = BayesNet(("x1", "x2"), {"x1": (), "x2": ("x1",)}, ("x1", "x2"), "normal")
    >>> net.order, net.parents["x2"]
    (('x1', 'x2'), ('x1',))
    """

    columns: tuple
    parents: dict
    order: tuple
    cpd: str
    coef: float = 1.0
    spacing: float = 1.0

    def __post_init__(self):
        _check_cpd(self.cpd)
        pos = {c: k for k, c in enumerate(self.order)}
        if set(pos) != set(self.columns) or len(self.order) != len(self.columns):
            raise ValueError("order must be a permutation of columns")
        for node, ps in self.parents.items():
            if any(pos[p] >= pos[node] for p in ps):
                raise ValueError(f"order is not topological at node {node!r}")

    @property
    def graph(self) -> nx.DiGraph:
        """The DAG as a :class:`networkx.DiGraph` (edges parent -> child), nodes in column
        order, each node with a ``parents`` attribute (the ordered parent tuple)."""
        g = nx.DiGraph()
        for c in self.columns:
            g.add_node(c, parents=tuple(self.parents.get(c, ())))
        for c in self.columns:
            for p in self.parents.get(c, ()):
                g.add_edge(p, c)
        return g

    def _index(self):
        return {c: k for k, c in enumerate(self.columns)}

    def sample(self, n: int, random_state=None) -> np.ndarray:
        """Draw ``n`` rows by ancestral sampling.

        Parameters
        ----------
        n : int
        random_state : None, int, Generator or RandomState

        Returns
        -------
        X : ndarray of shape (n, d), columns in ``columns`` order
        """
        rng = _as_generator(random_state)
        n = _check_count("n", n)
        idx = self._index()
        X = np.empty((n, len(self.columns)))
        for node in self.order:
            ps = self.parents.get(node, ())
            j = idx[node]
            if not ps:
                X[:, j] = rng.standard_normal(n)
                continue
            Z = X[:, [idx[p] for p in ps]]
            s = self.coef * Z.sum(axis=1)
            if self.cpd == "normal":
                X[:, j] = s + rng.standard_normal(n)
            else:
                use_t = rng.random(n) < 0.5
                t = rng.standard_t(T_DF, size=n)
                first = rng.random(n) < 0.5
                eps = rng.standard_normal(n)
                m1, m2 = _mixture_means(Z, self.coef, self.spacing)
                X[:, j] = np.where(use_t, s + t, np.where(first, m1, m2) + eps)
        return X

    def logpdf(self, X) -> np.ndarray:
        """Exact log-density: the sum over nodes of the log-CPDs.

        Parameters
        ----------
        X : array-like or DataFrame of shape (m, d)
            Columns in ``columns`` order (a DataFrame is reindexed by name).

        Returns
        -------
        ndarray of shape (m,)
        """
        X = _as_matrix(X, self.columns)
        idx = self._index()
        out = np.zeros(X.shape[0])
        for node in self.order:
            ps = self.parents.get(node, ())
            x = X[:, idx[node]]
            if not ps:
                out += _norm_logpdf(x)
                continue
            Z = X[:, [idx[p] for p in ps]]
            s = self.coef * Z.sum(axis=1)
            if self.cpd == "normal":
                out += _norm_logpdf(x - s)
            else:
                m1, m2 = _mixture_means(Z, self.coef, self.spacing)
                out += _complex_logpdf(x, s, m1, m2)
        return out

    def gaussian_parameters(self):
        """Mean and covariance of a normal-CPD network (a linear-Gaussian model).

        With ``B[child, parent] = coef``, ``X = B X + eps`` with ``eps ~ N(0, I)``, hence
        ``X ~ N(0, A A^T)`` with ``A = (I - B)^{-1}``.

        Returns
        -------
        mean : ndarray of shape (d,)
        cov : ndarray of shape (d, d)

        Raises
        ------
        ValueError
            For ``cpd="complex"`` (not Gaussian).
        """
        if self.cpd != "normal":
            raise ValueError("gaussian_parameters needs cpd='normal'")
        idx = self._index()
        d = len(self.columns)
        B = np.zeros((d, d))
        for node, ps in self.parents.items():
            for p in ps:
                B[idx[node], idx[p]] += self.coef
        A = np.linalg.inv(np.eye(d) - B)
        return np.zeros(d), A @ A.T


def _as_matrix(X, columns) -> np.ndarray:
    if isinstance(X, pd.DataFrame):
        X = X.loc[:, list(columns)]
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X[None, :]
    if X.shape[1] != len(columns):
        raise ValueError(f"X has {X.shape[1]} columns, the design has {len(columns)}")
    return X


# ----------------------------------------------------------------------------------------------
# random graphs
# ----------------------------------------------------------------------------------------------
def _random_forest(columns, n_trees, rng) -> BayesNet:
    """Parents and order of a random forest with exactly ``n_trees`` trees (see module doc)."""
    d = len(columns)
    g = nx.Graph()
    g.add_nodes_from(range(d))
    if d >= 2:
        seq = [int(v) for v in rng.integers(0, d, size=d - 2)]
        edges = sorted(
            tuple(sorted((int(u), int(v)))) for u, v in nx.from_prufer_sequence(seq).edges()
        )
        n_drop = n_trees - 1
        drop = set(rng.choice(len(edges), size=n_drop, replace=False).tolist()) if n_drop else set()
        g.add_edges_from(e for k, e in enumerate(edges) if k not in drop)
    parents, order = {}, []
    for comp in sorted((sorted(c) for c in nx.connected_components(g)), key=lambda c: c[0]):
        root = comp[int(rng.integers(len(comp)))]
        parents[columns[root]] = ()
        order.append(columns[root])
        for u, v in nx.bfs_edges(g, root):
            parents[columns[v]] = (columns[u],)
            order.append(columns[v])
    return BayesNet(tuple(columns), parents, tuple(order), "normal")


def _random_dag(columns, n_parents, rng, fixed=None) -> BayesNet:
    """A DAG whose non-root nodes all have ``n_parents`` parents (see module doc).

    ``fixed`` maps some nodes to prescribed ordered parent tuples; the topological order is then
    drawn as a random linear extension of those constraints (Kahn's algorithm, uniform choice
    among the available nodes), which is a uniform permutation when ``fixed`` is empty.
    """
    fixed = dict(fixed or {})
    waiting = {c: set(fixed.get(c, ())) for c in columns}
    children = {c: [] for c in columns}
    for c, ps in fixed.items():
        for p in ps:
            children[p].append(c)
    available = [c for c in columns if not waiting[c]]
    order = []
    while available:
        node = available.pop(int(rng.integers(len(available))))
        order.append(node)
        for ch in children[node]:
            waiting[ch].discard(node)
            if not waiting[ch]:
                available.append(ch)
    if len(order) != len(columns):
        raise ValueError("the fixed parent sets contain a cycle")
    parents = {}
    for k, node in enumerate(order):
        if node in fixed:
            parents[node] = tuple(fixed[node])
        elif k < n_parents:
            parents[node] = ()
        else:
            pick = rng.choice(k, size=n_parents, replace=False)
            parents[node] = tuple(order[int(i)] for i in pick)
    return BayesNet(tuple(columns), parents, tuple(order), "normal")


# ----------------------------------------------------------------------------------------------
# datasets
# ----------------------------------------------------------------------------------------------
@dataclass
class SyntheticDataset:
    """A synthetic two-class design and one draw of training and test data from it.

    Attributes
    ----------
    X_train, X_test : DataFrame
        Features, columns ``x1 .. xd``.
    y_train, y_test : ndarray of int
        Labels in {-1, +1}; +1 is the positive class.
    graphs : dict
        ``{+1: DiGraph, -1: DiGraph}`` over the column names, edges parent -> child.
    design : dict
        The settings (family, cpd, d, balance, counts, seed, ...), for display.
    models : dict
        ``{+1: BayesNet, -1: BayesNet}``, the exact generative models.
    oracle_coef : Series or None
        Forest designs only: Lemma 1's integer weights on the SLB log-density terms
        (see :func:`oracle_coefficients`).

    Examples
    --------
    >>> from slb.data.synthetic import make_forest_bn
    >>> ds = make_forest_bn(20, 10, d=4, random_state=0)
    >>> ds.X_train.shape, ds.X_test.shape
    ((20, 4), (10, 4))
    """

    X_train: pd.DataFrame
    y_train: np.ndarray
    X_test: pd.DataFrame
    y_test: np.ndarray
    graphs: dict
    design: dict
    models: dict = field(repr=False)
    oracle_coef: pd.Series | None = field(default=None, repr=False)

    @property
    def columns(self) -> list:
        """Feature names ``x1 .. xd``."""
        return list(self.X_train.columns)

    @property
    def name(self) -> str:
        """Short label, e.g. ``forest-normal-balanced`` or ``bn-complex-imbalanced-shared``."""
        return self.design["name"]

    def log_likelihood_ratio(self, X) -> np.ndarray:
        """``log p+(x) - log p-(x)``; see :func:`log_likelihood_ratio`."""
        return log_likelihood_ratio(self, X)

    def sample(self, n_pos: int, n_neg: int, random_state=None, shuffle: bool = True):
        """Fresh rows from the same design; see :func:`sample`."""
        return sample(self, n_pos, n_neg, random_state=random_state, shuffle=shuffle)

    def bayes_error(self, n_mc: int = 200_000, random_state=0, return_se: bool = False):
        """Monte Carlo Bayes balanced error rate; see :func:`bayes_error`."""
        return bayes_error(self, n_mc=n_mc, random_state=random_state, return_se=return_se)


def _draw(models, columns, n_pos, n_neg, rng, shuffle):
    r_pos, r_neg, r_perm = rng.spawn(3)
    X = np.vstack([models[1].sample(n_pos, r_pos), models[-1].sample(n_neg, r_neg)])
    y = np.concatenate([np.ones(n_pos, dtype=np.int64), -np.ones(n_neg, dtype=np.int64)])
    if shuffle:
        perm = r_perm.permutation(len(y))
        X, y = X[perm], y[perm]
    return pd.DataFrame(X, columns=list(columns)), y


def sample(dataset: SyntheticDataset, n_pos: int, n_neg: int, random_state=None, shuffle=True):
    """Draw fresh labelled rows from a design's two networks.

    Parameters
    ----------
    dataset : SyntheticDataset
    n_pos, n_neg : int
        Rows of class +1 and of class -1.
    random_state : None, int, Generator or RandomState
    shuffle : bool, default True
        Shuffle the rows (otherwise positives come first).

    Returns
    -------
    X : DataFrame of shape (n_pos + n_neg, d)
    y : ndarray of int, values in {-1, +1}

    Examples
    --------
    >>> X, y = sample(make_forest_bn(20, 10, d=4, random_state=0), 3, 2, random_state=1)
    >>> X.shape, sorted(y.tolist())
    ((5, 4), [-1, -1, 1, 1, 1])
    """
    rng = _as_generator(random_state)
    return _draw(
        dataset.models,
        dataset.columns,
        _check_count("n_pos", n_pos),
        _check_count("n_neg", n_neg),
        rng,
        shuffle,
    )


def _build(family, models, n_train, n_test, share, cpd, random_state, rng_train, rng_test, extra):
    columns = models[1].columns
    n_pos = int(np.floor(n_train * share + 0.5))
    n_neg = n_train - n_pos
    n_test_pos = n_test - n_test // 2
    n_test_neg = n_test // 2
    X_train, y_train = _draw(models, columns, n_pos, n_neg, rng_train, True)
    X_test, y_test = _draw(models, columns, n_test_pos, n_test_neg, rng_test, True)
    balance_name = (
        "balanced" if share == 0.5 else ("imbalanced" if share == 0.75 else f"pos{share:g}")
    )
    name = f"{family}-{cpd}-{balance_name}"
    if family == "bn":
        name += "-shared" if extra["shared"] else "-independent"
    design = {
        "name": name,
        "family": "forest" if family == "forest" else "general BN",
        "cpd": cpd,
        "d": len(columns),
        "balance": share,
        "n_train": n_train,
        "n_train_pos": n_pos,
        "n_train_neg": n_neg,
        "n_test": n_test,
        "n_test_pos": n_test_pos,
        "n_test_neg": n_test_neg,
        **extra,
        "random_state": random_state if isinstance(random_state, numbers.Integral) else None,
    }
    graphs = {1: models[1].graph, -1: models[-1].graph}
    oracle = oracle_coefficients(graphs, columns) if family == "forest" else None
    return SyntheticDataset(X_train, y_train, X_test, y_test, graphs, design, models, oracle)


def _columns(d):
    if not isinstance(d, numbers.Integral) or d < 1:
        raise ValueError(f"d must be a positive integer; got {d!r}")
    return tuple(f"x{k}" for k in range(1, int(d) + 1))


def make_forest_bn(
    n_train: int = 1000,
    n_test: int = 1000,
    d: int = 20,
    cpd: str = "normal",
    balance=0.5,
    n_trees: int | None = None,
    random_state=None,
    coef: float = 1.0,
    spacing: float = 1.0,
) -> SyntheticDataset:
    """Two-class forest-structured Bayesian networks (SLB paper, section 5.1.1).

    Each class has its own random forest (a uniformly random spanning tree with ``n_trees - 1``
    random edges removed, each tree rooted at a random node); roots are ``N(0, 1)`` and a child
    with parent value ``z`` is ``N(z, 1)`` (``cpd="normal"``) or, for ``cpd="complex"``,
    ``t_5 + z`` w.p. 1/2, else ``1/2 N(z + 1, 1) + 1/2 N(z - 1, 1)``.

    Parameters
    ----------
    n_train : int, default 1000
        Training rows; ``round(n_train * balance)`` of them positive.
    n_test : int, default 1000
        Test rows, half per class (``n_test - n_test // 2`` positives).
    d : int, default 20
        Number of variables ``x1 .. xd``.
    cpd : {"normal", "complex"}, default "normal"
    balance : float or {"balanced", "imbalanced"}, default 0.5
        Share of positives in the training set ("imbalanced" = 0.75, the paper's 75/25).
    n_trees : int, optional
        Number of trees of each class's forest, in ``[1, d]``; default ``max(1, round(d / 5))``.
    random_state : None, int, Generator or RandomState
        Same seed, same graphs and data.  The graphs depend on the seed only, the training and
        test rows on the seed and their sizes.
    coef : float, default 1.0
        A child's location is ``coef * z`` (unstated in the paper; see the module doc).
    spacing : float, default 1.0
        ``cpd="complex"``: the mixture means are ``coef * z +/- spacing``.

    Returns
    -------
    SyntheticDataset
        With ``oracle_coef`` set (Lemma 1's weights).

    Examples
    --------
    >>> ds = make_forest_bn(n_train=20, n_test=10, d=4, random_state=0)
    >>> ds.X_train.shape, ds.graphs[1].number_of_edges()
    ((20, 4), 3)
    """
    columns = _columns(d)
    cpd = _check_cpd(cpd)
    share = _positive_share(balance)
    n_train, n_test = _check_count("n_train", n_train), _check_count("n_test", n_test)
    d = len(columns)
    if n_trees is None:
        n_trees = max(1, int(np.floor(d / 5 + 0.5)))
    if not isinstance(n_trees, numbers.Integral) or not 1 <= n_trees <= d:
        raise ValueError(f"n_trees must be an integer in [1, d={d}]; got {n_trees!r}")
    coef, spacing = _check_scale("coef", coef), _check_scale("spacing", spacing)
    rng_struct, rng_train, rng_test = _as_generator(random_state).spawn(3)
    models = {}
    for label in (1, -1):
        net = _random_forest(columns, int(n_trees), rng_struct)
        models[label] = BayesNet(net.columns, net.parents, net.order, cpd, coef, spacing)
    return _build(
        "forest",
        models,
        n_train,
        n_test,
        share,
        cpd,
        random_state,
        rng_train,
        rng_test,
        {"n_trees": int(n_trees), "coef": coef, "spacing": spacing},
    )


def shared_node_count(d: int, *, n_parents: int = 3, shared_fraction: float = 1 / 3) -> int:
    """Nodes :func:`make_general_bn` (``shared=True``) gives the same parents in both classes:
    ``round(d * shared_fraction)``, at most the ``d - n_parents`` non-root nodes.

    Examples
    --------
    >>> shared_node_count(20), shared_node_count(5), shared_node_count(40)
    (7, 2, 13)
    """
    return min(int(np.floor(int(d) * float(shared_fraction) + 0.5)), int(d) - int(n_parents))


def make_general_bn(
    n_train: int = 1000,
    n_test: int = 1000,
    d: int = 20,
    cpd: str = "normal",
    shared: bool = False,
    balance=0.5,
    n_parents: int = 3,
    shared_fraction: float = 1 / 3,
    random_state=None,
    coef: float = 1.0,
) -> SyntheticDataset:
    """Two-class general Bayesian networks, non-root nodes with three parents (paper 5.1.2).

    Each DAG is a random topological order whose first ``n_parents`` nodes are roots
    (``N(0, 1)``) and whose later nodes draw ``n_parents`` distinct parents ``(z1, z2, z3)``
    uniformly among their predecessors.  A child is ``N(z1 + z2 + z3, 1)`` (``cpd="normal"``)
    or, for ``cpd="complex"``, ``t_5 + z1 + z2 + z3`` w.p. 1/2, else
    ``1/2 N(z1 + z2, 1) + 1/2 N(z2 + z3, 1)``.

    Parameters
    ----------
    n_train : int, default 1000
        Training rows; ``round(n_train * balance)`` of them positive.
    n_test : int, default 1000
        Test rows, half per class.
    d : int, default 20
        Number of variables; must exceed ``n_parents``.
    cpd : {"normal", "complex"}, default "normal"
    shared : bool, default False
        False: the two networks are independent.  True: :func:`shared_node_count` non-root nodes
        of the + network have the same ordered parents, hence the same CPD, in the - network.
    balance : float or {"balanced", "imbalanced"}, default 0.5
        Share of positives in the training set ("imbalanced" = 0.75).
    n_parents : int, default 3
    shared_fraction : float, default 1/3
        Used when ``shared=True``; capped at the number of non-root nodes.
    random_state : None, int, Generator or RandomState
    coef : float, default 1.0
        A child's location is ``coef * (z1 + z2 + z3)`` (mixture means likewise scaled).

    Returns
    -------
    SyntheticDataset
        ``design["shared_nodes"]`` lists the shared nodes; ``oracle_coef`` is None.

    Examples
    --------
    >>> ds = make_general_bn(n_train=20, n_test=10, d=5, random_state=0)
    >>> ds.X_test.shape, ds.graphs[1].number_of_edges()
    ((10, 5), 6)
    """
    columns = _columns(d)
    cpd = _check_cpd(cpd)
    share = _positive_share(balance)
    n_train, n_test = _check_count("n_train", n_train), _check_count("n_test", n_test)
    d = len(columns)
    if not isinstance(n_parents, numbers.Integral) or not 1 <= n_parents < d:
        raise ValueError(f"n_parents must be an integer in [1, d); got {n_parents!r} with d={d}")
    n_parents = int(n_parents)
    coef = _check_scale("coef", coef)
    rng_struct, rng_train, rng_test = _as_generator(random_state).spawn(3)
    pos = _random_dag(columns, n_parents, rng_struct)
    shared_nodes = ()
    if shared:
        if not 0.0 <= float(shared_fraction) <= 1.0:
            raise ValueError(f"shared_fraction must lie in [0, 1]; got {shared_fraction!r}")
        n_shared = shared_node_count(d, n_parents=n_parents, shared_fraction=shared_fraction)
        non_roots = [c for c in columns if pos.parents[c]]
        pick = rng_struct.choice(len(non_roots), size=n_shared, replace=False)
        shared_nodes = tuple(sorted((non_roots[int(i)] for i in pick), key=columns.index))
    neg = _random_dag(
        columns, n_parents, rng_struct, fixed={c: pos.parents[c] for c in shared_nodes}
    )
    models = {
        1: BayesNet(pos.columns, pos.parents, pos.order, cpd, coef),
        -1: BayesNet(neg.columns, neg.parents, neg.order, cpd, coef),
    }
    extra = {
        "n_parents": n_parents,
        "coef": coef,
        "shared": bool(shared),
        "shared_nodes": list(shared_nodes),
    }
    return _build(
        "bn", models, n_train, n_test, share, cpd, random_state, rng_train, rng_test, extra
    )


# ----------------------------------------------------------------------------------------------
# exact densities, oracle, Bayes error
# ----------------------------------------------------------------------------------------------
def class_log_density(dataset: SyntheticDataset, X, label: int) -> np.ndarray:
    """Exact ``log p_label(x)`` of a design's class (sum of log-CPDs along its DAG).

    Parameters
    ----------
    dataset : SyntheticDataset
    X : array-like or DataFrame of shape (m, d)
    label : {+1, -1}

    Returns
    -------
    ndarray of shape (m,)

    Examples
    --------
    >>> from slb.data.synthetic import class_log_density, make_forest_bn
    >>> ds = make_forest_bn(20, 10, d=4, random_state=0)
    >>> class_log_density(ds, ds.X_test, 1).shape
    (10,)
    """
    return dataset.models[1 if int(label) > 0 else -1].logpdf(X)


def log_likelihood_ratio(dataset: SyntheticDataset, X) -> np.ndarray:
    """Exact log-likelihood ratio ``log p+(x) - log p-(x)`` of a design.

    Valid for every design (normal and complex CPDs): each class density is the product of its
    explicit conditional densities.

    Parameters
    ----------
    dataset : SyntheticDataset
    X : array-like or DataFrame of shape (m, d)

    Returns
    -------
    ndarray of shape (m,)

    Examples
    --------
    >>> ds = make_forest_bn(n_train=20, n_test=10, d=4, random_state=0)
    >>> log_likelihood_ratio(ds, ds.X_test).shape
    (10,)
    """
    return dataset.models[1].logpdf(X) - dataset.models[-1].logpdf(X)


def gaussian_parameters(dataset: SyntheticDataset, label: int):
    """Exact mean and covariance of one class of a normal-CPD design.

    Parameters
    ----------
    dataset : SyntheticDataset
    label : {+1, -1}

    Returns
    -------
    mean : ndarray of shape (d,)
    cov : ndarray of shape (d, d)

    Examples
    --------
    >>> from slb.data.synthetic import gaussian_parameters, make_forest_bn
    >>> mean, cov = gaussian_parameters(make_forest_bn(20, 10, d=3, random_state=0), 1)
    >>> mean.shape, cov.shape
    ((3,), (3, 3))
    """
    return dataset.models[1 if int(label) > 0 else -1].gaussian_parameters()


def oracle_coefficients(graphs: dict, columns) -> pd.Series:
    """Lemma 1's oracle weights on the SLB log-density terms of two forest-structured classes.

    Parameters
    ----------
    graphs : dict
        ``{+1: graph, -1: graph}``, networkx graphs (directed or not) over ``columns``.
    columns : sequence of str
        Column order; a pair's names are written in this order.

    Returns
    -------
    Series
        Index: ``log p+(xi)`` for every column, then ``log p-(xi)``, then ``log p+(xi, xj)``
        for the + edges and ``log p-(xi, xj)`` for the - edges.  Values: ``1 - deg+(i)``,
        ``-(1 - deg-(i))``, ``+1`` and ``-1``.  Pairs not listed have weight 0; the intercept
        is 0 for the log-likelihood ratio itself.

    Examples
    --------
    >>> import networkx as nx
    >>> graphs = {1: nx.DiGraph([("x1", "x2")]), -1: nx.DiGraph([("x2", "x3")])}
    >>> oracle_coefficients(graphs, ["x1", "x2", "x3"]).tolist()
    [0.0, 0.0, 1.0, -1.0, 0.0, 0.0, 1.0, -1.0]
    """
    columns = list(columns)
    pos = {c: k for k, c in enumerate(columns)}
    coef = {}
    for label, sign in ((1, 1), (-1, -1)):
        und = nx.Graph(graphs[label])
        for c in columns:
            coef[term_name(label, c)] = (
                float(sign * (1 - und.degree(c))) if c in und else float(sign)
            )
    for label, sign in ((1, 1), (-1, -1)):
        edges = sorted(tuple(sorted(e, key=pos.get)) for e in nx.Graph(graphs[label]).edges())
        edges.sort(key=lambda e: (pos[e[0]], pos[e[1]]))
        for a, b in edges:
            coef[term_name(label, a, b)] = float(sign)
    return pd.Series(coef, name="oracle coefficient", dtype=float)


def true_log_density_terms(dataset: SyntheticDataset, X, pairs=None) -> pd.DataFrame:
    """The exact SLB log-density features of a normal-CPD design (its true Gaussian marginals).

    Parameters
    ----------
    dataset : SyntheticDataset
        A ``cpd="normal"`` design.
    X : array-like or DataFrame of shape (m, d)
    pairs : list of (str, str), optional
        Pairs for the bivariate terms; default: every edge of either class's graph.

    Returns
    -------
    DataFrame of shape (m, 2 d + 2 len(pairs))
        Columns ``log p+(xi)``, ``log p-(xi)`` for all i, then ``log p+(xi, xj)`` and
        ``log p-(xi, xj)`` per pair (names as in :func:`oracle_coefficients`).

    Examples
    --------
    >>> from slb.data.synthetic import make_forest_bn, true_log_density_terms
    >>> ds = make_forest_bn(20, 10, d=3, random_state=0)
    >>> true_log_density_terms(ds, ds.X_test).shape[0]
    10
    """
    columns = dataset.columns
    pos = {c: k for k, c in enumerate(columns)}
    X = _as_matrix(X, columns)
    if pairs is None:
        pairs = set()
        for g in dataset.graphs.values():
            pairs |= {tuple(sorted(e, key=pos.get)) for e in g.edges()}
        pairs = sorted(pairs, key=lambda e: (pos[e[0]], pos[e[1]]))
    pairs = [tuple(sorted(p, key=pos.get)) for p in pairs]
    out = {}
    params = {lab: gaussian_parameters(dataset, lab) for lab in (1, -1)}
    for lab in (1, -1):
        _, cov = params[lab]
        sd = np.sqrt(np.diag(cov))
        for c in columns:
            out[term_name(lab, c)] = stats.norm.logpdf(X[:, pos[c]], scale=sd[pos[c]])
    for a, b in pairs:
        i, j = pos[a], pos[b]
        for lab in (1, -1):
            _, cov = params[lab]
            s11, s22, s12 = cov[i, i], cov[j, j], cov[i, j]
            det = s11 * s22 - s12 * s12
            u, v = X[:, i], X[:, j]
            quad = (s22 * u * u - 2 * s12 * u * v + s11 * v * v) / det
            out[term_name(lab, a, b)] = -0.5 * quad - np.log(2 * np.pi) - 0.5 * np.log(det)
    return pd.DataFrame(out)


def bayes_error(
    dataset: SyntheticDataset, n_mc: int = 200_000, random_state=0, return_se: bool = False
):
    """Monte Carlo estimate of the Bayes balanced error rate (BER) of a design.

    Draws ``n_mc / 2`` fresh rows per class and classifies them by the sign of the exact
    log-likelihood ratio (a tie, ``llr == 0``, counts as half an error).  Thresholding at 0
    minimises the BER whatever the training balance (the BER is the error under equal
    priors), so the value is the same for the balanced and imbalanced versions of a design,
    and equals the Bayes misclassification rate on the paper's balanced test sets.

    Parameters
    ----------
    dataset : SyntheticDataset
    n_mc : int, default 200000
        Monte Carlo rows (half per class).
    random_state : None, int, Generator or RandomState, default 0
    return_se : bool, default False
        Also return the Monte Carlo standard error.

    Returns
    -------
    ber : float
    se : float
        Only when ``return_se``.

    Examples
    --------
    >>> from slb.data.synthetic import bayes_error, make_forest_bn
    >>> 0.0 <= bayes_error(make_forest_bn(20, 10, d=4, random_state=0), n_mc=1000) <= 0.5
    True
    """
    n_mc = _check_count("n_mc", n_mc)
    if n_mc < 2:
        raise ValueError("n_mc must be at least 2")
    rng = _as_generator(random_state)
    rates, sizes = [], []
    for label, n in ((1, n_mc - n_mc // 2), (-1, n_mc // 2)):
        errors = 0.0
        gen = rng.spawn(1)[0]
        for start in range(0, n, _CHUNK):
            m = min(_CHUNK, n - start)
            Xc = dataset.models[label].sample(m, gen)
            llr = log_likelihood_ratio(dataset, Xc)
            wrong = (llr < 0) if label == 1 else (llr > 0)
            errors += float(np.sum(wrong)) + 0.5 * float(np.sum(llr == 0))  # ties: coin flip
        rates.append(errors / n)
        sizes.append(n)
    ber = 0.5 * (rates[0] + rates[1])
    if not return_se:
        return float(ber)
    se = 0.5 * np.sqrt(sum(r * (1 - r) / n for r, n in zip(rates, sizes, strict=True)))
    return float(ber), float(se)


def edge_recovery(kept_pairs, graphs: dict, columns) -> dict:
    """Precision and recall of a set of kept feature pairs against the true edges.

    The truth is the union over the classes of the (undirected) edges of ``graphs``; a kept
    pair is correct when it is one of them, whatever the direction and the class.

    Parameters
    ----------
    kept_pairs : array-like of shape (k, 2)
        Pairs as column indices (e.g. ``SLBClassifier.pairs_``) or as column names.
    graphs : dict
        ``{+1: graph, -1: graph}`` (:attr:`SyntheticDataset.graphs`), networkx graphs over
        ``columns``.
    columns : sequence of str
        Column order, mapping indices to names.

    Returns
    -------
    dict
        ``n_kept``, ``n_true`` (distinct undirected true edges), ``n_true_positive``,
        ``precision`` (``n_true_positive / n_kept``; NaN when nothing is kept), ``recall``
        (``n_true_positive / n_true``; NaN when there is no true edge), ``f1`` (NaN when
        either is NaN or both are 0), and ``true_edges``, ``kept`` (sorted lists of index
        pairs ``(i, j)`` with ``i < j``).

    Examples
    --------
    >>> import networkx as nx
    >>> graphs = {1: nx.DiGraph([("x1", "x2")]), -1: nx.DiGraph([("x2", "x3")])}
    >>> r = edge_recovery([(0, 1), (0, 2)], graphs, ["x1", "x2", "x3"])
    >>> r["precision"], r["recall"]
    (0.5, 0.5)
    """
    columns = list(columns)
    pos = {c: k for k, c in enumerate(columns)}

    def index(v):
        if isinstance(v, str):
            if v not in pos:
                raise ValueError(f"Unknown column {v!r} in the kept pairs.")
            return pos[v]
        k = int(v)
        if not 0 <= k < len(columns):
            raise ValueError(f"Pair index {k} is out of range for {len(columns)} columns.")
        return k

    kept = set()
    for pair in list(kept_pairs if kept_pairs is not None else []):
        a, b = (index(v) for v in pair)
        if a != b:
            kept.add((min(a, b), max(a, b)))
    true = set()
    for g in graphs.values():
        for u, v in g.edges():
            a, b = pos[u], pos[v]
            true.add((min(a, b), max(a, b)))
    tp = len(kept & true)
    precision = tp / len(kept) if kept else float("nan")
    recall = tp / len(true) if true else float("nan")
    if np.isfinite(precision) and np.isfinite(recall) and precision + recall > 0:
        f1 = 2 * precision * recall / (precision + recall)
    else:
        f1 = float("nan")
    return {
        "n_kept": len(kept),
        "n_true": len(true),
        "n_true_positive": tp,
        "precision": float(precision),
        "recall": float(recall),
        "f1": float(f1),
        "true_edges": sorted(true),
        "kept": sorted(kept),
    }
