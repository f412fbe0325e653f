"""Contingency form of clustering distance (Rabbany & Zaïane 2015, Definitions 1-3) and the classic measures.

One shared core, :class:`ContingencyTable` (the non-zero cells of ``η`` and its margins),
and thin measures over it, in the style of scikit-learn's ``metrics/cluster/_supervised.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import xlogy

from agreekit._docstrings import docfill
from agreekit._api import ResultBase, _warn, renamed_parameters
from agreekit._validation import InputError, check_choice, check_float
from agreekit.clustering._inputs import Clustering, Graph, align_pair, as_graph, check_flag
from agreekit._jit import pick
from agreekit.clustering._kernels import contingency_codes, expected_mutual_info_sum

__all__ = [
    "ContingencyTable",
    "contingency_table",
    "generalized_distance",
    "PHI_FUNCTIONS",
    "rand_index",
    "adjusted_rand_index",
    "adjusted_rand_index_approx",
    "variation_of_information",
    "normalized_mutual_info",
    "jaccard_index",
    "f_measure",
    "mirkin_index",
    "mutual_info",
    "expected_mutual_info",
    "adjusted_mutual_info",
    "fowlkes_mallows",
    "homogeneity",
    "completeness",
    "v_measure",
]


#: docstring parts shared by the measures (``%(name)s`` in a docstring, filled by :func:`_docfill`,
#: as scipy's ``doccer``), so numpydoc and ``help()`` see the full text
_DOC_PARTS = {
    "partitions": """U, V : array_like, mapping, list of clusters or Clustering
        The two partitions of the same nodes: label vectors of equal length, ``{node: label}``
        mappings, lists of disjoint clusters (node lists) or :class:`Clustering` objects
        (read by :func:`as_clustering`).""",
    "rosenberg": """A. Rosenberg, J. Hirschberg. V-measure: a conditional entropy-based external cluster
    evaluation measure. EMNLP-CoNLL 2007, 410–420 (ACL Anthology D07-1043; no DOI).""",
}


#: fills the ``%(name)s`` parts of a docstring from :data:`_DOC_PARTS`
_docfill = docfill(_DOC_PARTS)


# --- φ functions ------------------------------------------------------------------------
def _xlogx(x):
    return xlogy(x, x)


def _comb2(x):
    return x * (x - 1.0) / 2.0


def _xx1(x):
    return x * (x - 1.0)


def _square(x):
    return x * x


#: canonical name -> φ (elementwise on float arrays)
PHI_FUNCTIONS: dict[str, Callable] = {"xlogx": _xlogx, "comb2": _comb2, "x(x-1)": _xx1, "square": _square}
_PHI_ALIASES = {
    "xlogx": "xlogx",
    "x log x": "xlogx",
    "xlog(x)": "xlogx",
    "x*log(x)": "xlogx",
    "entropy": "xlogx",
    "comb2": "comb2",
    "binom2": "comb2",
    "x(x-1)/2": "comb2",
    "C(x,2)": "comb2",
    "choose2": "comb2",
    "x(x-1)": "x(x-1)",
    "x*(x-1)": "x(x-1)",
    "square": "square",
    "x^2": "square",
    "x**2": "square",
    "x2": "square",
    "x²": "square",
}


def _resolve_phi(phi: Any) -> tuple[str | None, Callable]:
    if callable(phi):
        return None, phi
    if isinstance(phi, str) and phi.replace(" ", "") in {k.replace(" ", "") for k in _PHI_ALIASES}:
        key = next(v for k, v in _PHI_ALIASES.items() if k.replace(" ", "") == phi.replace(" ", ""))
        return key, PHI_FUNCTIONS[key]
    raise InputError("phi", f"must be a callable or one of {sorted(set(_PHI_ALIASES))}; got {phi!r}")


# --- the shared core --------------------------------------------------------------------
@dataclass(eq=False)
class ContingencyTable(ResultBase):
    """Non-zero cells of a ``k x r`` overlap matrix η and its margins (from :func:`contingency_table`).

    ``to_dict()`` exports the cells and margins (JSON-ready lists).

    Parameters
    ----------
    rows, cols : ndarray of int64
        Cluster indices (of U, of V) of the non-zero cells.
    counts : ndarray of float64
        The non-zero η_uv (integer-valued for crisp input with the overlap η).
    row_sums, col_sums : ndarray of float64
        The margins η_u. and η_.v.
    integer : bool
        True when every cell is an integer count of nodes (the classic pair-counting measures
        then use exact integers).

    Examples
    --------
    >>> from agreekit.clustering import contingency_table
    >>> t = contingency_table([0, 0, 1, 1, 1], [0, 1, 1, 1, 2])
    >>> t.shape, t.total, t.integer
    ((2, 3), 5.0, True)
    >>> t.dense().tolist()
    [[1.0, 1.0, 0.0], [0.0, 2.0, 1.0]]
    """

    rows: np.ndarray
    cols: np.ndarray
    counts: np.ndarray
    row_sums: np.ndarray
    col_sums: np.ndarray
    integer: bool
    _cache: dict = field(default_factory=dict, repr=False, init=False)

    @property
    def total(self) -> float:
        """The grand sum of η."""
        return float(self.counts.sum())

    @property
    def shape(self) -> tuple[int, int]:
        """``(k, r)``: the numbers of clusters of U and of V."""
        return self.row_sums.size, self.col_sums.size

    def dense(self) -> np.ndarray:
        """The full ``k x r`` matrix η (dense ndarray)."""
        out = np.zeros(self.shape)
        np.add.at(out, (self.rows, self.cols), self.counts)
        return out

    # integer sums (Python ints: no overflow whatever n)
    def _isum(self, key: str) -> int:
        if key not in self._cache:
            arr = {"cells": self.counts, "rows": self.row_sums, "cols": self.col_sums}[key]
            if self.total**2 < 2.0**52:  # every partial sum is an exactly representable integer
                self._cache[key] = int(np.dot(arr, arr))
            else:
                self._cache[key] = sum(int(x) * int(x) for x in arr)
        return self._cache[key]


def _table_from_codes(u: np.ndarray, v: np.ndarray) -> ContingencyTable:
    ku = int(u.max()) + 1
    kv = int(v.max()) + 1
    if u.size >= 2**31 - 1:
        raise InputError("U", "has too many nodes (at most 2**31 - 2)")
    rows, cols, cnt = pick(contingency_codes, 4 * u.size)(u, v, ku, kv)
    rs = np.bincount(u, minlength=ku).astype(np.float64)
    cs = np.bincount(v, minlength=kv).astype(np.float64)
    return ContingencyTable(rows, cols, cnt, rs, cs, True)


def _table_from_matrix(N: sp.sparray, integer: bool) -> ContingencyTable:
    N = sp.coo_array(N)
    N.sum_duplicates()
    keep = N.data != 0
    rs = np.asarray(N.sum(axis=1)).ravel().astype(np.float64)
    cs = np.asarray(N.sum(axis=0)).ravel().astype(np.float64)
    return ContingencyTable(
        N.row[keep].astype(np.int64), N.col[keep].astype(np.int64), N.data[keep].astype(np.float64), rs, cs, integer
    )


def _eta_table(cu: Clustering, cv: Clustering, eta: str, graph: Graph | None, convention: str) -> ContingencyTable:
    if eta == "overlap":
        if cu.is_partition and cv.is_partition:
            return _table_from_codes(cu.labels, cv.labels)
        return _table_from_matrix(cu.matrix.T @ cv.matrix, cu.crisp and cv.crisp)
    U, V = cu.matrix, cv.matrix
    if eta == "degree":
        d = graph.strength
        if convention == "authors":
            d = d / (graph.w.max() if graph.n_edges else 1.0) + 1.0
        return _table_from_matrix(U.T @ (V * d[:, None]), False)
    # eta == "edges": ξ_uv = Σ_e w_e [a,b ∈ u] [a,b ∈ v]  (each edge once, crisp); soft: products
    Pu = U[graph.a].multiply(U[graph.b])
    Pv = V[graph.b].multiply(V[graph.a])
    w = graph.w
    if convention == "authors":  # block sum of (A/max w + I): 2 ξ + |u ∩ v|
        w = 2.0 * w / (w.max() if w.size else 1.0)
        xi = sp.csr_array(Pu).T @ (sp.csr_array(Pv) * w[:, None]) + U.T @ V
    else:
        xi = sp.csr_array(Pu).T @ (sp.csr_array(Pv) * w[:, None])
    return _table_from_matrix(xi, False)


def contingency_table(
    U: Any, V: Any, *, eta: str = "overlap", graph: Any = None, convention: str = "seed"
) -> ContingencyTable:
    """The η table of two clusterings (``η = |u ∩ v|`` = ``UᵀV`` by default).

    Parameters
    ----------
    U, V : clustering
        Any form accepted by :func:`~agreekit.clustering.as_clustering`.
    eta : {"overlap", "degree", "edges"}, optional
        ``"overlap"`` (default): |u ∩ v| (``UᵀV``); ``"degree"``: Σd, the sum of the (weighted)
        degrees of the nodes in u ∩ v (``Uᵀ diag(d) V``); ``"edges"``: ξ, the (weighted) number of
        edges with both ends in u ∩ v, each edge counted once.  The last two need ``graph``.
    graph : graph, optional
        The graph over the same nodes (adjacency, edge list or networkx graph; see
        :func:`as_graph`), for ``eta="degree"`` and ``eta="edges"``.
    convention : {"seed", "authors"}, optional
        ``"seed"`` (default) uses Rabbany & Zaïane's (2015) definitions (above).  ``"authors"`` uses the
        variants of the authors' Java program: Σ(d_i/w_max + 1) and the block sum of
        ``A/w_max + I`` (every internal edge twice plus |u ∩ v|).

    Returns
    -------
    ContingencyTable
        Rows are the clusters of U, columns those of V.

    References
    ----------
    R. Rabbany, O. R. Zaïane. Generalization of clustering agreements and distances for
    overlapping clusters and network communities. Data Min. Knowl. Disc. 29(5), 1458–1485 (2015).
    :doi:`10.1007/s10618-015-0426-x`

    Examples
    --------
    >>> from agreekit.clustering import contingency_table
    >>> edges = [(0, 1), (1, 2), (2, 3), (3, 4)]
    >>> U, V = [[0, 1, 2], [3, 4]], [[0, 1], [2, 3, 4]]
    >>> contingency_table(U, V).dense().tolist()
    [[2.0, 1.0], [0.0, 2.0]]
    >>> contingency_table(U, V, eta="edges", graph=edges).dense().tolist()   # edges inside u ∩ v
    [[1.0, 0.0], [0.0, 1.0]]
    """
    check_choice("eta", eta, ("overlap", "degree", "edges"))
    check_choice("convention", convention, ("seed", "authors"))
    cu, cv = align_pair(U, V)
    g = None if graph is None or eta != "overlap" else as_graph(graph, cu)  # checked even where unused
    if eta != "overlap":
        if graph is None:
            raise InputError("graph", f"is required for eta={eta!r}")
        g = as_graph(graph, cu)
    return _eta_table(cu, cv, eta, g, convention)


# --- generalized distance (Definitions 1-3) ---------------------------------------------
def _phi_sum(phi: Callable, x: np.ndarray) -> float:
    return float(np.sum(phi(np.asarray(x, dtype=np.float64))))


def _expectation_def3(key: str | None, phi: Callable, t: ContingencyTable) -> float:
    r, c, T = t.row_sums, t.col_sums, t.total
    if T == 0:
        return 0.0
    if key == "square":
        return float(np.dot(r, r) * np.dot(c, c) / (T * T))
    if key == "xlogx":
        return float(np.sum(xlogy(r, r)) + np.sum(xlogy(c, c)) - xlogy(T, T))
    if key == "x(x-1)":
        return float(np.dot(r, r) * np.dot(c, c) / (T * T) - T)
    if key == "comb2":
        return float((np.dot(r, r) * np.dot(c, c) / (T * T) - T) / 2.0)
    total = 0.0  # user φ: Σ_ij φ(r_i c_j / T) over the full outer product, in row blocks
    block = max(1, 2_000_000 // max(1, c.size))
    for s in range(0, r.size, block):
        total += float(np.sum(phi(np.outer(r[s : s + block], c) / T)))
    return total


def _generalized_from_table(
    t: ContingencyTable, key: str | None, phi: Callable, normalization: str, expectation: str
) -> float:
    sr = _phi_sum(phi, t.row_sums)
    sc = _phi_sum(phi, t.col_sums)
    sn = _phi_sum(phi, t.counts)
    D = sr + sc - 2.0 * sn
    if normalization == "none":
        return D
    if normalization == "normalized":
        nf = float(phi(np.float64(t.total)))
    else:
        if expectation == "definition3":
            E = _expectation_def3(key, phi, t)
        else:
            pt = float(phi(np.float64(t.total)))
            E = sr * sc / pt if pt != 0 else 0.0
        nf = sr + sc - 2.0 * E
    scale = max(abs(sr), abs(sc), abs(sn), 1e-300)
    if abs(nf) <= 1e-13 * scale:
        if abs(D) <= 1e-13 * scale:
            return 0.0  # degenerate (e.g. n = 1, or both clusterings trivial): identical
        return math.nan
    return D / nf


def generalized_distance(
    U: Any,
    V: Any,
    *,
    phi: Any,
    eta: str = "overlap",
    normalization: str = "none",
    expectation: str = "definition3",
    graph: Any = None,
    convention: str = "seed",
) -> float:
    r"""Generalized clustering distance :math:`\mathcal{D}_\varphi^\eta` and its ND / AD forms.

    .. math::

        \mathcal{D} = \sum_u \varphi(\eta_{u.}) + \sum_v \varphi(\eta_{.v}) - 2\sum_{uv}\varphi(\eta_{uv})

    ``normalization="normalized"`` divides by :math:`\varphi(\sum_{uv}\eta_{uv})` (Definition 2,
    ND); ``"adjusted"`` divides by :math:`\sum\varphi(\eta_{u.}) + \sum\varphi(\eta_{.v}) - 2E`
    (Definition 3, AD) with the expectation

    * ``expectation="definition3"``: :math:`E = \sum_{uv}\varphi(\eta_{u.}\eta_{.v}/\sum\eta)`
      (Definition 3 literally); with φ = x(x−1) this gives 1 − ARI′, **not** 1 − ARI;
    * ``expectation="product"``: :math:`E = \sum\varphi(\eta_{u.})\sum\varphi(\eta_{.v})/\varphi(\sum\eta)`
      (Rabbany & Zaïane's appendix A.5 "later reformulation"), which gives the Hubert–Arabie ARI.

    Identities (η = overlap, n nodes, tested): ND_{x log x} = VI / log n;
    ND_{C(x,2)} = 1 − RI; ND_{x²} = 1 − RI′; AD_{x log x} = 1 − NMI_sum; AD_{x²} = 1 − ARI′;
    product-form AD_{x(x−1)} = AD_{C(x,2)} = 1 − ARI.

    Parameters
    ----------
    U, V : clustering
        Any form accepted by :func:`~agreekit.clustering.as_clustering` (for overlapping input
        the contingency form penalizes overlaps — use the co-membership measures instead).
    phi : {"xlogx", "comb2", "x(x-1)", "square"} or callable
        φ applied elementwise (``"comb2"`` is x(x−1)/2; aliases such as ``"x log x"``, ``"x^2"``
        accepted).  A callable must accept float arrays.
    eta : {"overlap", "degree", "edges"}
        Overlap function, see :func:`contingency_table`.
    normalization : {"none", "normalized", "adjusted"}
    expectation : {"definition3", "product"}
        Only used with ``normalization="adjusted"``.
    graph : graph, optional
        Needed for ``eta="degree"`` and ``eta="edges"``.
    convention : {"seed", "authors"}
        Σd/ξ convention (see :func:`contingency_table`).

    Returns
    -------
    float
        A distance (0 = identical).  Degenerate 0/0 cases (n = 1, both clusterings trivial)
        return 0.0.

    References
    ----------
    R. Rabbany, O. R. Zaïane. Generalization of clustering agreements and distances for
    overlapping clusters and network communities. Data Min. Knowl. Disc. 29(5), 1458–1485 (2015).
    :doi:`10.1007/s10618-015-0426-x`

    Examples
    --------
    >>> from agreekit.clustering import generalized_distance, adjusted_rand_index
    >>> U, V = [0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]
    >>> round(1 - generalized_distance(U, V, phi="comb2", normalization="adjusted",
    ...                                expectation="product"), 6) == round(adjusted_rand_index(U, V), 6)
    True
    """
    key, fn = _resolve_phi(phi)
    check_choice("normalization", normalization, ("none", "normalized", "adjusted"))
    check_choice("expectation", expectation, ("definition3", "product"))
    t = contingency_table(U, V, eta=eta, graph=graph, convention=convention)
    return float(_generalized_from_table(t, key, fn, normalization, expectation))


# --- classic (partition) measures over the table ---------------------------------------
def _partition_table(U: Any, V: Any, measure: str) -> ContingencyTable:
    cu, cv = align_pair(U, V)
    for c, name in ((cu, "U"), (cv, "V")):
        if not c.is_partition:
            kind = "soft memberships" if not c.crisp else "overlapping clusters or uncovered nodes"
            raise InputError(
                name,
                f"has {kind}; {measure} needs two partitions (use ri_delta, ari_delta "
                "or omega for overlapping/soft clusterings)",
            )
    return _table_from_codes(cu.labels, cv.labels)


def _pair_counts(t: ContingencyTable) -> tuple[int, int, int, int]:
    """(n, Σ C(r,2), Σ C(c,2), Σ C(n_ij,2)) as Python ints."""
    n = int(round(t.total))
    a = (t._isum("rows") - n) // 2
    b = (t._isum("cols") - n) // 2
    m11 = (t._isum("cells") - n) // 2
    return n, a, b, m11


@_docfill
def rand_index(U: Any, V: Any) -> float:
    """Rand index of two partitions (fraction of node pairs on which they agree).

    Equals 1 − ND_{C(x,2)} (Rabbany & Zaïane 2015, Identity 2) and scikit-learn's ``rand_score``
    (1.0 when n < 2).

    Parameters
    ----------
    %(partitions)s

    Returns
    -------
    float
        The Rand index in [0, 1].

    References
    ----------
    R. Rabbany, O. R. Zaïane. Generalization of clustering agreements and distances for
    overlapping clusters and network communities. Data Min. Knowl. Disc. 29(5), 1458–1485 (2015).
    :doi:`10.1007/s10618-015-0426-x`

    Examples
    --------
    >>> from agreekit.clustering import rand_index
    >>> round(rand_index([0, 0, 1, 1], [0, 0, 1, 2]), 4)
    0.8333
    """
    n, a, b, m11 = _pair_counts(_partition_table(U, V, "rand_index"))
    pairs = n * (n - 1) // 2
    if pairs == 0:
        return 1.0
    return float((pairs + 2 * m11 - a - b) / pairs)


@_docfill
def adjusted_rand_index(U: Any, V: Any) -> float:
    """Hubert–Arabie adjusted Rand index (product-form expectation; exact integer arithmetic).

    Equals 1 − AD_{x(x−1)} with ``expectation="product"`` and scikit-learn's
    ``adjusted_rand_score`` (no overflow at any n).

    Parameters
    ----------
    %(partitions)s

    Returns
    -------
    float
        ARI; 1 for identical partitions, 0 in expectation under random labels.

    Examples
    --------
    >>> from agreekit.clustering import adjusted_rand_index
    >>> round(adjusted_rand_index([0, 0, 1, 1], [0, 0, 1, 2]), 4)
    0.5714
    """
    n, a, b, m11 = _pair_counts(_partition_table(U, V, "adjusted_rand_index"))
    # ordered pair confusion (as scikit-learn's pair_confusion_matrix)
    tp = 2 * m11
    fp = 2 * (a - m11)
    fn = 2 * (b - m11)
    tn = n * (n - 1) - tp - fp - fn
    if fn == 0 and fp == 0:
        return 1.0
    return float(2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn)))


@_docfill
def adjusted_rand_index_approx(U: Any, V: Any) -> float:
    """ARI′: adjusted Rand index with the approximate expectation Σr²Σc²/n² (Rabbany & Zaïane 2015, Eq. 6).

    Equals 1 − AD_{x²} (Definition 3) and the approximate co-membership ARI′_δ on partitions.

    Parameters
    ----------
    %(partitions)s

    Returns
    -------
    float
        The approximate ARI.

    References
    ----------
    R. Rabbany, O. R. Zaïane. Generalization of clustering agreements and distances for
    overlapping clusters and network communities. Data Min. Knowl. Disc. 29(5), 1458–1485 (2015).
    :doi:`10.1007/s10618-015-0426-x`

    Examples
    --------
    >>> from agreekit.clustering import adjusted_rand_index_approx
    >>> round(adjusted_rand_index_approx([0, 0, 1, 1], [0, 0, 1, 2]), 4)
    0.75
    """
    t = _partition_table(U, V, "adjusted_rand_index_approx")
    n = int(round(t.total))
    S, R, C = t._isum("cells"), t._isum("rows"), t._isum("cols")
    num = 2 * (n * n * S - R * C)
    den = n * n * (R + C) - 2 * R * C
    if den == 0:
        return 1.0
    return float(num / den)


def _entropy_terms(t: ContingencyTable):
    n = t.total
    logn = math.log(n)
    r, c = t.row_sums, t.col_sums
    hu = float(-np.sum((r / n) * (np.log(r) - logn)))
    hv = float(-np.sum((c / n) * (np.log(c) - logn)))
    nz = t.counts
    outer = r[t.rows] * c[t.cols]
    mi_cells = (nz / n) * (np.log(nz) - logn) + (nz / n) * (-np.log(outer) + 2 * logn)
    mi_cells = np.where(np.abs(mi_cells) < np.finfo(np.float64).eps, 0.0, mi_cells)
    mi = max(float(mi_cells.sum()), 0.0)
    return hu, hv, mi


@_docfill
def variation_of_information(U: Any, V: Any, *, normalized: bool = False) -> float:
    """Variation of information VI = H(U|V) + H(V|U) (natural log).

    ``normalized=True`` returns VI / log n = ND_{x log x} (Rabbany & Zaïane 2015, Identity 1); its agreement
    form is 1 − VI/log n.  0 for identical partitions.

    Parameters
    ----------
    %(partitions)s
    normalized : bool, optional
        Divide by log n (default False).

    Returns
    -------
    float
        VI in nats, or VI / log n with ``normalized=True``.

    References
    ----------
    R. Rabbany, O. R. Zaïane. Generalization of clustering agreements and distances for
    overlapping clusters and network communities. Data Min. Knowl. Disc. 29(5), 1458–1485 (2015).
    :doi:`10.1007/s10618-015-0426-x`

    Examples
    --------
    >>> from agreekit.clustering import variation_of_information
    >>> round(variation_of_information([0, 0, 1, 1], [0, 0, 1, 2]), 4)
    0.3466
    """
    t = _partition_table(U, V, "variation_of_information")
    n = t.total
    vi = float(
        (
            np.sum(xlogy(t.row_sums, t.row_sums))
            + np.sum(xlogy(t.col_sums, t.col_sums))
            - 2.0 * np.sum(xlogy(t.counts, t.counts))
        )
        / n
    )
    vi = max(vi, 0.0)
    if check_flag("normalized", normalized):
        return 0.0 if n <= 1 else vi / math.log(n)
    return vi


#: scikit-learn's ``average_method`` values (the upper bound of I(U;V) in NMI and AMI)
_AVERAGE_METHODS = ("arithmetic", "geometric", "min", "max")
#: deprecated values (this package's names before scikit-learn's) -> scikit-learn's
_OLD_AVERAGE_VALUES = {"sum": "arithmetic", "sqrt": "geometric"}


def _check_average_method(value: Any, func: str) -> str:
    """scikit-learn's ``average_method`` name; the old ``"sum"``/``"sqrt"`` warn once."""
    if isinstance(value, str) and value in _OLD_AVERAGE_VALUES:
        new = _OLD_AVERAGE_VALUES[value]
        _warn(f'{func}(): average_method="{value}" is deprecated, use average_method="{new}"', stacklevel=5)
        return new
    return check_choice("average_method", value, _AVERAGE_METHODS)


def _normalizer(average_method: str, hu: float, hv: float) -> float:
    return {"arithmetic": (hu + hv) / 2.0, "geometric": math.sqrt(hu * hv), "max": max(hu, hv), "min": min(hu, hv)}[
        average_method
    ]


@renamed_parameters(average="average_method")
def normalized_mutual_info(U: Any, V: Any, *, average_method: str = "arithmetic") -> float:
    """Normalized mutual information of two partitions, I(U;V) / avg(H(U), H(V)).

    ``average_method`` is scikit-learn's (:func:`sklearn.metrics.normalized_mutual_info_score`):
    ``"arithmetic"`` (default): NMI_Σ = 2I/(H(U)+H(V)) (= 1 − AD_{x log x}, Rabbany & Zaïane 2015, Identity 3);
    ``"geometric"``: I/√(H(U)H(V)); ``"min"``, ``"max"``.  Conventions as scikit-learn: 1.0 if
    both have a single cluster, 0.0 if the mutual information is 0.

    Parameters
    ----------
    U, V : clustering
        Two partitions (label vectors, covers without overlap, crisp matrices).
    average_method : {"arithmetic", "geometric", "min", "max"}
        The mean of H(U) and H(V) that normalizes I(U;V).  ``average=`` and the values
        ``"sum"``/``"sqrt"`` are deprecated spellings of ``average_method=`` and
        ``"arithmetic"``/``"geometric"``.

    Returns
    -------
    float
        NMI in [0, 1]; 1 when U and V are the same partition.

    References
    ----------
    R. Rabbany, O. R. Zaïane. Generalization of clustering agreements and distances for
    overlapping clusters and network communities. Data Min. Knowl. Disc. 29(5), 1458–1485 (2015).
    :doi:`10.1007/s10618-015-0426-x`

    Examples
    --------
    >>> from agreekit.clustering import normalized_mutual_info
    >>> round(normalized_mutual_info([0, 0, 1, 1], [0, 0, 1, 2], average_method="geometric"), 4)
    0.8165
    """
    average_method = _check_average_method(average_method, "normalized_mutual_info")
    t = _partition_table(U, V, "normalized_mutual_info")
    ku, kv = t.shape
    if ku == kv == 1:
        return 1.0
    if ku == 1 or kv == 1:
        return 0.0
    hu, hv, mi = _entropy_terms(t)
    if mi == 0:
        return 0.0
    return float(mi / _normalizer(average_method, hu, hv))


@_docfill
def jaccard_index(U: Any, V: Any) -> float:
    """Pair-counting Jaccard index M11 / (M11 + M10 + M01) (1.0 if no pair is co-clustered in either).

    Parameters
    ----------
    %(partitions)s

    Returns
    -------
    float
        The pair-counting Jaccard index in [0, 1].

    Examples
    --------
    >>> from agreekit.clustering import jaccard_index
    >>> round(jaccard_index([0, 0, 1, 1], [0, 0, 1, 2]), 4)
    0.5
    """
    _, a, b, m11 = _pair_counts(_partition_table(U, V, "jaccard_index"))
    den = a + b - m11
    return 1.0 if den == 0 else float(m11 / den)


@_docfill
def f_measure(U: Any, V: Any, *, beta: float = 1.0) -> float:
    """Pair-counting F-measure F_β of candidate ``U`` against reference ``V``.

    Precision P = M11/(M11 + M10) (pairs together in U), recall R = M11/(M11 + M01) (pairs together
    in V), F_β = (β² + 1)PR/(β²P + R).  Symmetric only for β = 1.  1.0 if no pair is co-clustered
    in either, 0.0 if M11 = 0 otherwise.

    Parameters
    ----------
    %(partitions)s
    beta : float, optional
        Weight of recall against precision (default 1: the harmonic mean).

    Returns
    -------
    float
        F_β in [0, 1].

    Examples
    --------
    >>> from agreekit.clustering import f_measure
    >>> round(f_measure([0, 0, 1, 1], [0, 0, 1, 2]), 4)
    0.6667
    """
    beta = check_float("beta", beta, minimum=0.0, inclusive=False)
    _, a, b, m11 = _pair_counts(_partition_table(U, V, "f_measure"))
    if a == 0 and b == 0:
        return 1.0
    if m11 == 0:
        return 0.0
    p, r = m11 / a, m11 / b
    return float((beta * beta + 1.0) * p * r / (beta * beta * p + r))


@_docfill
def mirkin_index(U: Any, V: Any) -> float:
    """Mirkin metric Σr² + Σc² − 2Σn_ij² = n(n−1)(1 − RI): ordered node pairs in disagreement.

    A distance (0 for identical partitions).  Rabbany & Zaïane write n(n−1)(RI − 1); we use the
    usual non-negative sign.

    Parameters
    ----------
    %(partitions)s

    Returns
    -------
    float
        The Mirkin metric (0 for identical partitions).

    References
    ----------
    R. Rabbany, O. R. Zaïane. Generalization of clustering agreements and distances for
    overlapping clusters and network communities. Data Min. Knowl. Disc. 29(5), 1458–1485 (2015).
    :doi:`10.1007/s10618-015-0426-x`

    Examples
    --------
    >>> from agreekit.clustering import mirkin_index
    >>> mirkin_index([0, 0, 1, 1], [0, 0, 1, 2])
    2.0
    """
    t = _partition_table(U, V, "mirkin_index")
    return float(t._isum("rows") + t._isum("cols") - 2 * t._isum("cells"))


# --- information-theoretic and pair-counting measures after scikit-learn ------------------
def _mi_entropies(t: ContingencyTable) -> tuple[float, float, float]:
    """(H(U), H(V), I(U;V)) in nats; 0 entropies / MI for single-cluster sides."""
    ku, kv = t.shape
    if t.total <= 1:
        return 0.0, 0.0, 0.0
    hu, hv, mi = _entropy_terms(t)
    if ku == 1:
        hu, mi = 0.0, 0.0
    if kv == 1:
        hv, mi = 0.0, 0.0
    return hu, hv, mi


def _size_classes(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    vals, cnt = np.unique(np.rint(sizes).astype(np.int64), return_counts=True)
    return vals, cnt.astype(np.int64)


def _expected_mi(t: ContingencyTable) -> float:
    ku, kv = t.shape
    if ku == 1 or kv == 1:
        return 0.0
    av, ac = _size_classes(t.row_sums)
    bv, bc = _size_classes(t.col_sums)
    work = av.size * bv.size * (1 + min(int(av.max()), int(bv.max())))
    return float(pick(expected_mutual_info_sum, work)(av, ac, bv, bc, int(round(t.total))))


@_docfill
def mutual_info(U: Any, V: Any) -> float:
    r"""Mutual information I(U; V) of two partitions, in nats.

    .. math:: I(U;V) = \sum_{ij} \frac{n_{ij}}{n} \log\frac{n\,n_{ij}}{a_i b_j}

    (``n_ij`` the contingency table, ``a``/``b`` its margins).  Equals scikit-learn's
    ``mutual_info_score`` (0 when either partition has a single cluster).

    Parameters
    ----------
    %(partitions)s

    Returns
    -------
    float
        MI(U, V) in nats.

    References
    ----------
    T. M. Cover, J. A. Thomas. *Elements of Information Theory*, 2nd ed., Wiley (2006), ch. 2.
    :doi:`10.1002/047174882X`

    Examples
    --------
    >>> from agreekit.clustering import mutual_info
    >>> round(mutual_info([0, 0, 1, 1], [0, 0, 1, 2]), 4)
    0.6931
    """
    return float(_mi_entropies(_partition_table(U, V, "mutual_info"))[2])


@_docfill
def expected_mutual_info(U: Any, V: Any) -> float:
    r"""Expected mutual information E[I(U; V)] (nats) under the hypergeometric model.

    The model of Vinh, Epps & Bailey: all contingency tables with the margins of ``U`` and
    ``V`` (cluster sizes ``a_i``, ``b_j``) are equally likely (random permutation of the items),

    .. math:: E[I] = \sum_{i,j}\sum_{m} \frac{m}{n}\log\frac{n m}{a_i b_j}\,
              \frac{a_i!\,b_j!\,(n-a_i)!\,(n-b_j)!}{n!\,m!\,(a_i-m)!\,(b_j-m)!\,(n-a_i-b_j+m)!}

    with m from max(1, a_i + b_j − n) to min(a_i, b_j).  Computed over pairs of *distinct* cluster
    sizes, each inner sum started at the hypergeometric mode (its probability by Loader's
    saddle-point method, free of the log-gamma cancellation that costs scikit-learn ~1e-10 at
    n = 10⁶) and continued by the ratio recurrence until the terms vanish below 1e-24 of the mode,
    so the cost is about Σ over distinct size pairs of a few standard deviations of the
    hypergeometric, not scikit-learn's Σ_ij min(a_i, b_j).  Equals scikit-learn's
    ``expected_mutual_information`` to its rounding; relative error ~1e-15.

    Parameters
    ----------
    %(partitions)s

    Returns
    -------
    float
        E[MI] under the permutation model, in nats.

    References
    ----------
    N. X. Vinh, J. Epps, J. Bailey. Information theoretic measures for clusterings comparison:
    variants, properties, normalization and correction for chance. JMLR 11, 2837–2854 (2010).
    C. Loader. Fast and accurate computation of binomial probabilities. Technical note (2000; no DOI).

    Examples
    --------
    >>> from agreekit.clustering import expected_mutual_info
    >>> round(expected_mutual_info([0, 0, 1, 1], [0, 0, 1, 2]), 4)
    0.4621
    """
    return _expected_mi(_partition_table(U, V, "expected_mutual_info"))


@renamed_parameters(average="average_method")
@_docfill
def adjusted_mutual_info(U: Any, V: Any, *, average_method: str = "arithmetic") -> float:
    r"""Adjusted mutual information (AMI) of two partitions, corrected for chance.

    .. math:: AMI = \frac{I(U;V) - E[I]}{\mathrm{avg}(H(U), H(V)) - E[I]}

    with the exact expected mutual information :func:`expected_mutual_info` under the
    hypergeometric model (Vinh et al. 2010; Rabbany & Zaïane 2015, §2: with the arithmetic mean AMI equals
    the adjusted VI).  ``average_method`` picks the upper bound of I, with scikit-learn's names
    and default: ``"arithmetic"`` (default), ``"geometric"``, ``"min"``, ``"max"`` (``average=``
    and the values ``"sum"``/``"sqrt"`` are deprecated spellings, as in
    :func:`normalized_mutual_info`).  Equals scikit-learn's ``adjusted_mutual_info_score``,
    including its conventions: 1.0 when both partitions have a single cluster, 0.0 when exactly
    one has, numerator and denominator kept at least machine epsilon away from 0 with their sign.
    One difference: if a partition is all singletons, I(U;V) is the same for every permutation
    (E[I] = I exactly), and AMI is 0 — or 0/0 when the bound equals I (both all singletons, or
    ``average_method="min"``); we return exactly 0.0, resp. 1.0, where scikit-learn returns rounding
    noise (e.g. 1.5 for 10 singletons against 3 clusters with "min").

    Parameters
    ----------
    %(partitions)s
    average_method : {"arithmetic", "geometric", "min", "max"}, optional
        The mean of H(U) and H(V) that bounds I(U;V) in the denominator (default
        ``"arithmetic"``).

    Returns
    -------
    float
        AMI: 1 for identical partitions, about 0 in expectation for independent ones (it can be
        negative).

    References
    ----------
    N. X. Vinh, J. Epps, J. Bailey. Information theoretic measures for clusterings comparison:
    variants, properties, normalization and correction for chance. JMLR 11, 2837–2854 (2010).

    R. Rabbany, O. R. Zaïane. Generalization of clustering agreements and distances for
    overlapping clusters and network communities. Data Min. Knowl. Disc. 29(5), 1458–1485 (2015).
    :doi:`10.1007/s10618-015-0426-x`

    Examples
    --------
    >>> from agreekit.clustering import adjusted_mutual_info
    >>> round(adjusted_mutual_info([0, 0, 1, 1, 2, 2], [0, 0, 1, 2, 2, 2]), 4)
    0.5024
    >>> adjusted_mutual_info([0, 0, 1, 1], [5, 5, 7, 7])
    1.0
    """
    average_method = _check_average_method(average_method, "adjusted_mutual_info")
    t = _partition_table(U, V, "adjusted_mutual_info")
    ku, kv = t.shape
    n = int(round(t.total))
    if ku == kv == 1:
        return 1.0
    if ku == 1 or kv == 1:
        return 0.0
    if ku == n or kv == n:  # all singletons on one side: I is constant, E[I] = I
        return 1.0 if (ku == kv or average_method == "min") else 0.0
    hu, hv, mi = _mi_entropies(t)
    emi = _expected_mi(t)
    norm = _normalizer(average_method, hu, hv)
    eps = np.finfo(np.float64).eps
    den = norm - emi
    den = min(den, -eps) if den < 0 else max(den, eps)
    num = mi - emi
    num = min(num, -eps) if num < 0 else max(num, eps)
    return float(num / den)


@_docfill
def fowlkes_mallows(U: Any, V: Any) -> float:
    r"""Fowlkes–Mallows index: geometric mean of pair precision and recall.

    .. math:: FM = \frac{M_{11}}{\sqrt{(M_{11} + M_{10})(M_{11} + M_{01})}}

    over unordered node pairs (exact integer pair counts).  Equals scikit-learn's
    ``fowlkes_mallows_score``, including its convention 0.0 when no pair is co-clustered in
    both (e.g. two all-singleton partitions).

    Parameters
    ----------
    %(partitions)s

    Returns
    -------
    float
        The Fowlkes–Mallows index in [0, 1].

    References
    ----------
    E. B. Fowlkes, C. L. Mallows. A method for comparing two hierarchical clusterings. JASA 78(383),
    553–569 (1983). :doi:`10.1080/01621459.1983.10478008`

    Examples
    --------
    >>> from agreekit.clustering import fowlkes_mallows
    >>> round(fowlkes_mallows([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), 4)
    0.4714
    """
    _, a, b, m11 = _pair_counts(_partition_table(U, V, "fowlkes_mallows"))
    if m11 == 0:
        return 0.0
    return float(math.sqrt(m11 / a) * math.sqrt(m11 / b))


def _homogeneity_completeness(U: Any, V: Any, name: str) -> tuple[float, float]:
    t = _partition_table(U, V, name)
    hu, hv, mi = _mi_entropies(t)
    h = mi / hu if hu else 1.0
    c = mi / hv if hv else 1.0
    return h, c


@_docfill
def homogeneity(U: Any, V: Any) -> float:
    r"""Homogeneity of the clustering ``V`` with respect to the reference classes ``U``.

    :math:`h = 1 - H(U|V)/H(U) = I(U;V)/H(U)` (1.0 if ``U`` has one class): 1 when every
    cluster of ``V`` holds members of a single class of ``U``.  Argument order as
    scikit-learn's ``homogeneity_score(labels_true, labels_pred)``, which it equals;
    ``homogeneity(U, V) == completeness(V, U)``.

    Parameters
    ----------
    %(partitions)s

    Returns
    -------
    float
        h in [0, 1]: 1 when every cluster of ``V`` lies within one cluster of ``U``.

    References
    ----------
    %(rosenberg)s

    Examples
    --------
    >>> from agreekit.clustering import homogeneity
    >>> round(homogeneity([0, 0, 1, 1, 2, 2], [0, 0, 1, 2, 2, 2]), 4)
    0.7103
    """
    return float(_homogeneity_completeness(U, V, "homogeneity")[0])


@_docfill
def completeness(U: Any, V: Any) -> float:
    r"""Completeness of the clustering ``V`` with respect to the reference classes ``U``.

    :math:`c = 1 - H(V|U)/H(V) = I(U;V)/H(V)` (1.0 if ``V`` has one cluster): 1 when all members
    of a class of ``U`` fall in one cluster of ``V``.  Equals scikit-learn's
    ``completeness_score(labels_true, labels_pred)``.

    Parameters
    ----------
    %(partitions)s

    Returns
    -------
    float
        c in [0, 1], 1 when each class of ``U`` is inside a single cluster of ``V``; the
        homogeneity with the roles swapped.

    References
    ----------
    %(rosenberg)s

    Examples
    --------
    >>> from agreekit.clustering import completeness, homogeneity
    >>> U, V = [0, 0, 1, 1, 2, 2], [0, 0, 1, 2, 2, 2]
    >>> round(completeness(U, V), 4), completeness(U, V) == homogeneity(V, U)
    (0.7716, True)
    """
    return float(_homogeneity_completeness(U, V, "completeness")[1])


@_docfill
def v_measure(U: Any, V: Any, *, beta: float = 1.0) -> float:
    r"""V-measure: weighted harmonic mean of :func:`homogeneity` and :func:`completeness`.

    :math:`V_\beta = (1 + \beta)\,h\,c / (\beta h + c)` (0.0 if h + c = 0).  With β = 1 it is
    symmetric and equals the arithmetic NMI (:func:`normalized_mutual_info`).  Equals
    scikit-learn's ``v_measure_score(labels_true, labels_pred, beta=beta)``.

    Parameters
    ----------
    %(partitions)s
    beta : float, optional
        Weight of completeness against homogeneity (default 1).

    Returns
    -------
    float
        V_β in [0, 1].

    References
    ----------
    %(rosenberg)s

    Examples
    --------
    >>> from agreekit.clustering import v_measure
    >>> U, V = [0, 0, 1, 1, 2, 2], [0, 0, 1, 2, 2, 2]
    >>> [round(v_measure(U, V, beta=b), 4) for b in (1.0, 2.0)]    # beta > 1 weighs completeness more
    [0.7397, 0.75]
    """
    beta = check_float("beta", beta, minimum=0.0)
    h, c = _homogeneity_completeness(U, V, "v_measure")
    if h + c == 0.0:
        return 0.0
    return float((1.0 + beta) * h * c / (beta * h + c))
