"""K-class synthetic designs: the paper's forest networks for more than two classes.

The SLB paper is binary; these designs extend its section 5.1.1 to ``K >= 2`` classes, one
Bayesian network per class, so that the multiclass SLB, its peers and the formulation protocol
(``docs/multiclass.md``) can be checked against a known structure:

* :func:`make_multiclass_forest`: each class its own random forest network, exactly the
  paper's construction (:func:`slb.data.synthetic.make_forest_bn`) drawn once per class;
* :func:`make_pairwise_classes`: classes that differ **only in their pairwise structure**:
  every variable is ``N(0, 1)`` in every class (so naive Bayes is at chance, ``1 - 1/K``), and
  class ``k`` couples the variables of its own random perfect matching with correlation
  ``rho``.  The dependent pairs of a class are exactly its matching's edges.

:func:`oracle_class_coefficients` gives Lemma 1's weights for K classes: class ``k``'s score
``log p_k(x) = sum_i (1 - deg_k(i)) log p_k(x_i) + sum_{(i, j) in E_k} log p_k(x_i, x_j)`` is
linear in class ``k``'s block of the K-block log-density map, so the Bayes rule ``argmax_k``
of these scores is a point of the multiclass SLB's linear model (one weight row per class).
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass

import networkx as nx
import numpy as np
import pandas as pd
from scipy.stats import multivariate_normal, norm

from .synthetic import _as_generator, _check_count, _columns, _random_forest

__all__ = [
    "GaussianPairs",
    "MulticlassDesign",
    "make_multiclass_forest",
    "make_pairwise_classes",
    "multiclass_bayes_error",
    "oracle_class_coefficients",
    "true_class_log_density_terms",
]


@dataclass(frozen=True)
class GaussianPairs:
    """One class of :func:`make_pairwise_classes`: standard normal variables, correlated
    ``rho`` along the edges of a perfect matching (the other pairs are independent).

    Attributes
    ----------
    columns : tuple of str
    edges : tuple of (str, str)
        The matching, each edge in column order.
    rho : float

    Examples
    --------
    >>> import numpy as np
    >>> from slb.data.multiclass import GaussianPairs
    >>> cls = GaussianPairs(("x1", "x2", "x3", "x4"), (("x1", "x3"), ("x2", "x4")), 0.8)
    >>> cls.gaussian_parameters()[1][0].tolist()  # x1 is correlated with x3 only
    [1.0, 0.0, 0.8, 0.0]
    >>> X = cls.sample(2000, random_state=0)
    >>> X.shape, round(float(np.corrcoef(X[:, 0], X[:, 2])[0, 1]), 1)
    ((2000, 4), 0.8)
    >>> cls.logpdf(np.zeros((2, 4))).round(4).tolist()  # -2 log(2 pi) - log(1 - 0.8^2)
    [-2.6541, -2.6541]
    """

    columns: tuple
    edges: tuple
    rho: float

    @property
    def graph(self) -> nx.Graph:
        """The matching as an undirected graph over ``columns``."""
        g = nx.Graph()
        g.add_nodes_from(self.columns)
        g.add_edges_from(self.edges)
        return g

    def gaussian_parameters(self):
        """Mean (zeros) and covariance (unit diagonal, ``rho`` on the matched pairs)."""
        idx = {c: k for k, c in enumerate(self.columns)}
        cov = np.eye(len(self.columns))
        for a, b in self.edges:
            cov[idx[a], idx[b]] = cov[idx[b], idx[a]] = self.rho
        return np.zeros(len(self.columns)), cov

    def sample(self, n, random_state=None):
        """``n`` rows, columns in ``columns`` order."""
        rng = _as_generator(random_state)
        mean, cov = self.gaussian_parameters()
        return rng.multivariate_normal(mean, cov, size=_check_count("n", n), method="cholesky")

    def logpdf(self, X):
        """Exact log-density of the rows of ``X`` (columns in ``columns`` order)."""
        mean, cov = self.gaussian_parameters()
        return multivariate_normal(mean, cov).logpdf(np.asarray(X, dtype=float))


@dataclass
class MulticlassDesign:
    """A K-class synthetic design and one draw of training and test data from it.

    Attributes
    ----------
    X_train, X_test : DataFrame
        Columns ``x1 .. xd``.
    y_train, y_test : ndarray of str
        Labels ``"class 1"`` .. ``"class K"``.
    models : dict
        Label -> the class's exact model (``sample``, ``logpdf``, ``gaussian_parameters``).
    graphs : dict
        Label -> undirected graph of the class's dependent pairs.
    design : dict
        The settings, for display.

    Examples
    --------
    >>> from slb.data.multiclass import MulticlassDesign, make_pairwise_classes
    >>> ds = make_pairwise_classes(n_classes=3, n_train=60, n_test=30, d=4, random_state=0)
    >>> isinstance(ds, MulticlassDesign), ds.classes, ds.columns
    (True, ['class 1', 'class 2', 'class 3'], ['x1', 'x2', 'x3', 'x4'])
    >>> ds.X_test.shape, ds.design["rho"]
    ((30, 4), 0.8)
    """

    X_train: pd.DataFrame
    y_train: np.ndarray
    X_test: pd.DataFrame
    y_test: np.ndarray
    models: dict
    graphs: dict
    design: dict

    @property
    def classes(self):
        """The labels in order."""
        return list(self.models)

    @property
    def columns(self):
        """The variable names."""
        return list(self.X_train.columns)


def _labels(n_classes):
    if not isinstance(n_classes, numbers.Integral) or n_classes < 2:
        raise ValueError(f"n_classes must be an integer >= 2; got {n_classes!r}")
    return [f"class {k + 1}" for k in range(int(n_classes))]


def _per_class_counts(n, n_classes):
    """``n`` rows split as evenly as the classes allow (the first classes get the rest)."""
    base, extra = divmod(_check_count("n", n), n_classes)
    return [base + (k < extra) for k in range(n_classes)]


def _draw(models, n, rng):
    labels = list(models)
    counts = _per_class_counts(n, len(labels))
    streams = rng.spawn(len(labels) + 1)
    X = np.vstack(
        [models[c].sample(m, s) for c, m, s in zip(labels, counts, streams[:-1], strict=True)]
    )
    y = np.repeat(np.array(labels, dtype=object), counts)
    perm = streams[-1].permutation(y.size)
    return X[perm], y[perm]


def _design(models, graphs, n_train, n_test, data_seed, random_state=None, **settings):
    rng = _as_generator(data_seed)
    r_train, r_test = rng.spawn(2)
    columns = next(iter(models.values())).columns
    X_train, y_train = _draw(models, n_train, r_train)
    X_test, y_test = _draw(models, n_test, r_test)
    design = {
        "n_classes": len(models),
        "d": len(columns),
        "n_train": n_train,
        "n_test": n_test,
        **settings,
        "random_state": random_state if isinstance(random_state, numbers.Integral) else None,
    }
    return MulticlassDesign(
        pd.DataFrame(X_train, columns=list(columns)),
        y_train,
        pd.DataFrame(X_test, columns=list(columns)),
        y_test,
        models,
        graphs,
        design,
    )


def make_multiclass_forest(
    n_classes=3,
    n_train=600,
    n_test=600,
    d=10,
    cpd="normal",
    n_trees=None,
    random_state=None,
) -> MulticlassDesign:
    """K classes, each a random forest-structured Bayesian network (the paper's 5.1.1 design).

    Each class draws its own forest as :func:`slb.data.synthetic.make_forest_bn` draws each of
    its two (a uniformly random spanning tree with ``n_trees - 1`` random edges removed,
    roots ``N(0, 1)``, a child ``N(parent, 1)`` or the paper's complex CPD).

    Parameters
    ----------
    n_classes : int, default=3
    n_train, n_test : int, default=600
        Rows, split evenly over the classes.
    d : int, default=10
    cpd : {"normal", "complex"}, default="normal"
    n_trees : int or None, default=None
        Trees per forest; None: 1 to ``d // 4 + 1`` drawn per class.
    random_state : None, int or Generator

    Returns
    -------
    MulticlassDesign

    Examples
    --------
    >>> from slb.data.multiclass import make_multiclass_forest
    >>> ds = make_multiclass_forest(n_classes=4, n_train=80, n_test=40, d=5, random_state=0)
    >>> ds.X_train.shape, sorted(set(ds.y_train))
    ((80, 5), ['class 1', 'class 2', 'class 3', 'class 4'])
    """
    labels = _labels(n_classes)
    columns = _columns(d)
    rng = _as_generator(random_state)
    structure_rng, data_seed = rng.spawn(2)
    models, graphs = {}, {}
    for c in labels:
        k = (
            n_trees
            if n_trees is not None
            else int(structure_rng.integers(1, len(columns) // 4 + 2))
        )
        k = max(1, min(int(k), len(columns)))
        net = dataclasses.replace(_random_forest(columns, k, structure_rng), cpd=cpd)
        models[c] = net
        graphs[c] = nx.Graph(net.graph)
    return _design(
        models, graphs, n_train, n_test, data_seed, random_state, family="forest", cpd=cpd
    )


def make_pairwise_classes(
    n_classes=3,
    n_train=600,
    n_test=600,
    d=8,
    rho=0.8,
    random_state=None,
) -> MulticlassDesign:
    """K classes that differ only in which pairs of variables are dependent.

    Every variable is ``N(0, 1)`` in every class; class ``k`` correlates (``rho``) the pairs of
    its own random perfect matching of the ``d`` variables (``d`` even; the classes' matchings
    are drawn until they share no edge when possible).  The univariate densities are the same
    in every class, so naive Bayes is at chance; only bivariate terms separate the classes.

    Parameters
    ----------
    n_classes : int, default=3
    n_train, n_test : int, default=600
    d : int, default=8
        An even number of variables.
    rho : float, default=0.8
        Correlation of a matched pair, in (-1, 1).
    random_state : None, int or Generator

    Returns
    -------
    MulticlassDesign

    Examples
    --------
    >>> from slb.data.multiclass import make_pairwise_classes
    >>> ds = make_pairwise_classes(n_classes=3, n_train=60, n_test=30, d=6, random_state=0)
    >>> [len(ds.graphs[c].edges) for c in ds.classes]
    [3, 3, 3]
    """
    labels = _labels(n_classes)
    columns = _columns(d)
    if len(columns) % 2:
        raise ValueError(f"d must be even (the variables are matched in pairs); got {d!r}")
    if not -1.0 < float(rho) < 1.0:
        raise ValueError(f"rho must be in (-1, 1); got {rho!r}")
    rng = _as_generator(random_state)
    structure_rng, data_seed = rng.spawn(2)
    used, models, graphs = set(), {}, {}
    for c in labels:
        for _ in range(200):  # distinct edges across classes where the matchings allow it
            perm = structure_rng.permutation(len(columns))
            edges = tuple(
                tuple(sorted((columns[a], columns[b]), key=columns.index))
                for a, b in perm.reshape(-1, 2)
            )
            if not used.intersection(edges):
                break
        used.update(edges)
        edges = tuple(sorted(edges, key=lambda e: (columns.index(e[0]), columns.index(e[1]))))
        models[c] = GaussianPairs(columns, edges, float(rho))
        graphs[c] = models[c].graph
    return _design(
        models, graphs, n_train, n_test, data_seed, random_state, family="pairwise", rho=float(rho)
    )


def oracle_class_coefficients(design: MulticlassDesign) -> pd.DataFrame:
    """Lemma 1's weights for K forest-structured classes, one column per class.

    Class ``k``'s exact log-density is ``sum_i (1 - deg_k(i)) log p_k(x_i) + sum_{(i, j) in
    E_k} log p_k(x_i, x_j)``: weight ``1 - deg_k(i)`` on class ``k``'s univariate terms,
    ``1`` on its edges' bivariate terms, 0 on every other class's terms.

    Parameters
    ----------
    design : MulticlassDesign
        Forest-structured classes (both designs of this module are).

    Returns
    -------
    DataFrame
        Index: the term names of :func:`true_class_log_density_terms` (``log p[k](xi)``,
        ``log p[k](xi, xj)``); columns: the class labels.

    Examples
    --------
    >>> from slb.data.multiclass import make_pairwise_classes, oracle_class_coefficients
    >>> ds = make_pairwise_classes(n_classes=3, n_train=60, n_test=30, d=4, random_state=0)
    >>> W = oracle_class_coefficients(ds)
    >>> W.shape  # 3 classes x (4 univariate + 2 edge terms)
    (18, 3)
    >>> W.loc["log p[class 1](x1, x2)"].tolist()  # an edge of class 1's matching
    [1.0, 0.0, 0.0]
    >>> W.loc["log p[class 1](x1)"].tolist()  # degree 1: weight 1 - 1 = 0
    [0.0, 0.0, 0.0]
    """
    columns = design.columns
    rows = {}
    for c in design.classes:
        g = design.graphs[c]
        for x in columns:
            rows[(f"log p[{c}]({x})", c)] = 1.0 - g.degree(x)
        for a, b in _edges(design, c):
            rows[(f"log p[{c}]({a}, {b})", c)] = 1.0
    s = pd.Series(rows)
    out = s.unstack(fill_value=0.0)
    return out.reindex(columns=design.classes, fill_value=0.0).fillna(0.0)


def _edges(design, c):
    columns = design.columns
    pos = {x: k for k, x in enumerate(columns)}
    return sorted(
        (tuple(sorted(e, key=pos.get)) for e in design.graphs[c].edges()),
        key=lambda e: (pos[e[0]], pos[e[1]]),
    )


def true_class_log_density_terms(design: MulticlassDesign, X) -> pd.DataFrame:
    """Exact univariate and (edge) bivariate log-densities of every class at ``X``.

    For normal CPDs (Gaussian classes): the marginals of each class's covariance.

    Parameters
    ----------
    design : MulticlassDesign
    X : DataFrame or ndarray of shape (m, d)

    Returns
    -------
    DataFrame
        Columns ``log p[k](xi)`` for every class and variable and ``log p[k](xi, xj)`` for the
        edges of class ``k``.

    Examples
    --------
    Lemma 1: the oracle weights of these terms give each class's exact log-density.

    >>> import numpy as np
    >>> from slb.data.multiclass import (
    ...     make_pairwise_classes,
    ...     oracle_class_coefficients,
    ...     true_class_log_density_terms,
    ... )
    >>> ds = make_pairwise_classes(n_classes=3, n_train=60, n_test=30, d=4, random_state=0)
    >>> T = true_class_log_density_terms(ds, ds.X_test)
    >>> T.shape
    (30, 18)
    >>> W = oracle_class_coefficients(ds)
    >>> scores = T[W.index].to_numpy() @ W.to_numpy()
    >>> exact = np.column_stack([ds.models[c].logpdf(ds.X_test) for c in ds.classes])
    >>> bool(np.allclose(scores, exact))
    True
    """
    X = np.asarray(X, dtype=float)
    columns = design.columns
    pos = {x: k for k, x in enumerate(columns)}
    out = {}
    for c in design.classes:
        _, cov = design.models[c].gaussian_parameters()
        sd = np.sqrt(np.diag(cov))
        for x in columns:
            out[f"log p[{c}]({x})"] = norm.logpdf(X[:, pos[x]], scale=sd[pos[x]])
        for a, b in _edges(design, c):
            ij = [pos[a], pos[b]]
            out[f"log p[{c}]({a}, {b})"] = multivariate_normal(
                np.zeros(2), cov[np.ix_(ij, ij)]
            ).logpdf(X[:, ij])
    return pd.DataFrame(out)


def multiclass_bayes_error(design: MulticlassDesign, n=100_000, random_state=0) -> float:
    """Monte-Carlo macro-averaged error (BER) of the Bayes rule with equal priors.

    The rule ``argmax_k log p_k(x)`` minimises the balanced error rate; it is scored on ``n``
    fresh rows per class.

    Parameters
    ----------
    design : MulticlassDesign
    n : int, default=100000
        Rows per class.
    random_state : int, default=0

    Returns
    -------
    float

    Examples
    --------
    >>> from slb.data.multiclass import make_pairwise_classes, multiclass_bayes_error
    >>> ds = make_pairwise_classes(n_classes=3, n_train=60, n_test=30, d=4, random_state=0)
    >>> error = multiclass_bayes_error(ds, n=2000)
    >>> 0.2 < error < 0.4  # well below naive Bayes's chance level, 2/3
    True
    """
    rng = _as_generator(random_state)
    labels = design.classes
    errors = []
    for k, (c, s) in enumerate(zip(labels, rng.spawn(len(labels)), strict=True)):
        X = design.models[c].sample(int(n), s)
        ll = np.column_stack([design.models[j].logpdf(X) for j in labels])
        errors.append(float(np.mean(ll.argmax(axis=1) != k)))
    return float(np.mean(errors))
