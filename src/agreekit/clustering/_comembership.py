"""Co-membership (Δ) form of clustering agreement (Rabbany & Zaïane 2015, Definition 4, Theorem 4.1, sec. 4.1).

With ``CU = U Uᵀ`` and ``CV = V Vᵀ`` (never formed), every statistic comes from the sparse
Gram matrices ``UᵀU``, ``VᵀV`` and ``UᵀV`` (Rabbany & Zaïane 2015, A.6:
``‖CU − CV‖² = ‖UᵀU‖² + ‖VᵀV‖² − 2‖UᵀV‖²``), column sums and row norms, in O(nnz).
The *exact* forms drop the pairs of a node with itself (diagonals zeroed, P = n² − n);
the *approximate* (primed) forms keep them (P = n²).  Graph-aware forms: ``mode="transform"``
is D_⊥(U, V | G) = D(NᵀU, NᵀV) with N the node-by-edge incidence matrix (√w at both ends),
whose Gram matrices are ``Uᵀ(W + diag(strength))U``; ``mode="plus"`` is
D_+ = w D(U, V) + (1 − w)|D(U, N) − D(V, N)| with the edge set N used as a clustering; the
α of Rabbany & Zaïane (2015) is the weight ``w = direct_weight`` of the direct distance D(U, V) (0.5 in the paper).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from agreekit._docstrings import docfill
from agreekit._api import ResultBase, deprecated_alias, renamed_parameters
from agreekit._validation import InputError, check_choice, check_float
from agreekit.clustering._contingency import _pair_counts, _table_from_codes
from agreekit.clustering._inputs import Clustering, Graph, align_pair, as_graph, check_flag
from agreekit.clustering._kernels import group_signatures, max_offdiagonal, signature_hashes, weighted_pair_counts

__all__ = [
    "ri_delta",
    "ari_delta",
    "i_norm",
    "i_sqrt_tr",
    "omega",
    "omega_unadjusted",
    "adjusted_omega",
    "comembership_stats",
    "CoMembershipStats",
]


@dataclass(frozen=True)
class CoMembershipStats(ResultBase):
    """Sufficient statistics of two co-membership matrices CU = UUᵀ, CV = VVᵀ (from
    :func:`comembership_stats`; diagonals dropped in the exact form, kept in the approximate one).

    Parameters
    ----------
    s_u, s_v : float
        ``‖CU‖²_F`` and ``‖CV‖²_F``.
    s_uv : float
        ``<CU, CV>_F``.
    sum_u, sum_v : float
        ``Σ CU`` and ``Σ CV``.
    pairs : float
        P: n² (approximate) or n² − n (exact).
    max_u, max_v : float
        The largest entry of CU, CV (off-diagonal in the exact form; ``nan`` if not computed).

    Examples
    --------
    >>> from agreekit.clustering import comembership_stats
    >>> st = comembership_stats([0, 0, 1, 1], [0, 0, 1, 2])
    >>> st.s_u, st.s_v, st.s_uv, st.pairs, st.s_delta
    (4.0, 2.0, 2.0, 12.0, 2.0)
    """

    s_u: float
    s_v: float
    s_uv: float
    sum_u: float
    sum_v: float
    pairs: float
    max_u: float
    max_v: float

    @property
    def s_delta(self) -> float:
        """‖CU − CV‖²_F (clipped at 0 against round-off)."""
        return max(self.s_u + self.s_v - 2.0 * self.s_uv, 0.0)


def _sqsum(x) -> float:
    x = np.asarray(x, dtype=np.float64).ravel()
    return float(np.dot(x, x))


def _max_offdiag(m: sp.csr_array, crisp: bool, bound: float) -> float:
    n = m.shape[0]
    row_nnz = np.diff(m.indptr)
    if crisp and row_nnz.max(initial=0) <= 1:  # disjoint (possibly with uncovered nodes)
        col_nnz = np.bincount(m.indices, minlength=m.shape[1])
        return 1.0 if col_nnz.max(initial=0) >= 2 else 0.0
    csc = sp.csc_array(m)
    csc.sort_indices()
    return float(
        max_offdiagonal(
            n,
            m.indptr.astype(np.int64),
            m.indices.astype(np.int64),
            m.data,
            csc.indptr.astype(np.int64),
            csc.indices.astype(np.int64),
            csc.data,
            bound,
        )
    )


def _quiet_overflow(func):
    """Run ``func`` with float overflow silent: :func:`_check_magnitude` reports it as an InputError."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with np.errstate(over="ignore", invalid="ignore"):
            return func(*args, **kwargs)

    return wrapper


@_quiet_overflow
def _stats_plain(cu: Clustering, cv: Clustering, exact: bool, need_max: bool) -> CoMembershipStats:
    n = float(cu.n)
    if cu.is_partition and cv.is_partition:
        t = _table_from_codes(cu.labels, cv.labels)
        su, sv, suv = float(t._isum("rows")), float(t._isum("cols")), float(t._isum("cells"))
        sum_u, sum_v = su, sv
        if exact:
            su, sv, suv, sum_u, sum_v = su - n, sv - n, suv - n, sum_u - n, sum_v - n
            mu = 1.0 if t.row_sums.max() >= 2 else 0.0
            mv = 1.0 if t.col_sums.max() >= 2 else 0.0
            return CoMembershipStats(su, sv, suv, sum_u, sum_v, n * n - n, mu, mv)
        return CoMembershipStats(su, sv, suv, sum_u, sum_v, n * n, 1.0, 1.0)
    U, V = cu.matrix, cv.matrix
    du = np.asarray(U.multiply(U).sum(axis=1)).ravel()
    dv = np.asarray(V.multiply(V).sum(axis=1)).ravel()
    return _stats_from_parts(
        U.T @ U,
        V.T @ V,
        U.T @ V,
        np.asarray(U.sum(axis=0)),
        np.asarray(V.sum(axis=0)),
        du,
        dv,
        U,
        V,
        cu.crisp,
        cv.crisp,
        exact,
        need_max,
    )


def _check_magnitude(st: CoMembershipStats, parameter: str) -> CoMembershipStats:
    """Overflow (inf/NaN) or underflow (every square zero) of the co-membership sums: an InputError."""
    sums = (st.s_u, st.s_v, st.s_uv, st.sum_u, st.sum_v)
    if not all(math.isfinite(v) for v in sums):
        raise InputError(
            parameter,
            "has memberships or edge weights so large that the co-membership sums "
            "(squares of products of them) overflow float64; scale them down",
        )
    return st


def _stats_from_parts(GU, GV, C, colsum_u, colsum_v, du, dv, U, V, crisp_u, crisp_v, exact, need_max):
    n = float(du.size)
    su = _sqsum(sp.csr_array(GU).data)
    sv = _sqsum(sp.csr_array(GV).data)
    suv = _sqsum(sp.csr_array(C).data)
    sum_u, sum_v = _sqsum(colsum_u), _sqsum(colsum_v)
    if not exact:
        mu = float(du.max(initial=0.0))
        mv = float(dv.max(initial=0.0))
        return CoMembershipStats(su, sv, suv, sum_u, sum_v, n * n, mu, mv)
    su -= float(np.dot(du, du))
    sv -= float(np.dot(dv, dv))
    suv -= float(np.dot(du, dv))
    sum_u -= float(du.sum())
    sum_v -= float(dv.sum())
    mu = mv = math.nan
    if need_max:
        mu = _max_offdiag(U, crisp_u, float(du.max(initial=0.0)))
        mv = _max_offdiag(V, crisp_v, float(dv.max(initial=0.0)))
    return CoMembershipStats(su, sv, suv, sum_u, sum_v, n * n - n, mu, mv)


def _transformed(U: sp.csr_array, g: Graph) -> sp.csr_array:
    """NᵀU: one row per edge e = (a, b), equal to √w_e (u_a + u_b)."""
    out = sp.csr_array(g.incidence().T @ U)
    out.sort_indices()
    return out


@_quiet_overflow
def _stats_transform(cu: Clustering, cv: Clustering, g: Graph, exact: bool, need_max: bool) -> CoMembershipStats:
    U, V = cu.matrix, cv.matrix
    M = sp.csr_array(g.weights + sp.diags_array(g.strength))  # N Nᵀ = W + diag(strength)
    MV = M @ V
    GU = U.T @ (M @ U)
    GV = V.T @ MV
    C = U.T @ MV
    q = np.asarray(g.weights.sqrt().sum(axis=1)).ravel()  # N 1: Σ √w over incident edges
    colsum_u = U.T @ q
    colsum_v = V.T @ q
    TU, TV = _transformed(U, g), _transformed(V, g)
    du = np.asarray(TU.multiply(TU).sum(axis=1)).ravel()
    dv = np.asarray(TV.multiply(TV).sum(axis=1)).ravel()
    return _stats_from_parts(GU, GV, C, colsum_u, colsum_v, du, dv, TU, TV, False, False, exact, need_max)


def comembership_stats(
    U: Any, V: Any, *, exact: bool = True, graph: Any = None, need_max: bool = True
) -> CoMembershipStats:
    """Sufficient statistics of ``UUᵀ`` and ``VVᵀ`` (or of ``NᵀU``, ``NᵀV`` when ``graph`` is given).

    Computed in O(nnz) from the Gram matrices ``UᵀU``, ``VᵀV``, ``UᵀV`` (never the n x n
    matrices); every Δ measure is a function of them.

    Parameters
    ----------
    U, V : clustering
        Label vectors, covers, crisp or soft membership matrices over the same nodes.
    exact : bool, optional
        Drop the diagonals (pairs of a node with itself; default) or keep them.
    graph : graph, optional
        If given, the statistics of the incidence-transformed memberships ``NᵀU``, ``NᵀV``
        (every edge a data point; Rabbany & Zaïane 2015, sec. 4.1).
    need_max : bool, optional
        Compute ``max_u`` / ``max_v`` (default True; only RI_δ needs them, and in the exact form
        for overlapping covers it takes a scan of the co-clustered pairs).

    Returns
    -------
    CoMembershipStats

    References
    ----------
    R. Rabbany, O. R. Zaïane. Generalization of clustering agreements and distances for
    overlapping clusters and network communities. Data Min. Knowl. Disc. 29(5), 1458–1485 (2015).
    :doi:`10.1007/s10618-015-0426-x`

    Examples
    --------
    >>> from agreekit.clustering import comembership_stats
    >>> st = comembership_stats([[0, 3, 4], [1, 2, 3], [2, 3, 4]], [[0, 3, 4], [1], [2]], exact=False)
    >>> st.pairs, st.max_u, st.max_v, st.s_delta
    (25.0, 3.0, 1.0, 22.0)
    """
    cu, cv = align_pair(U, V)
    need_max = check_flag("need_max", need_max)
    if graph is None:
        return _check_magnitude(_stats_plain(cu, cv, check_flag("exact", exact), need_max), "U")
    return _check_magnitude(
        _stats_transform(cu, cv, as_graph(graph, cu), check_flag("exact", exact), need_max), "graph"
    )


# --- the four Δ measures over the statistics --------------------------------------------
def _ri_from(st: CoMembershipStats) -> float:
    m = max(st.max_u, st.max_v)
    den = st.pairs * m * m
    if den == 0:
        return 1.0
    return 1.0 - st.s_delta / den


def _ari_from(st: CoMembershipStats) -> float:
    if st.pairs == 0:
        return 1.0
    den = st.s_u + st.s_v - 2.0 * st.sum_u * st.sum_v / st.pairs
    sd = st.s_delta
    scale = max(st.s_u, st.s_v, 1e-300)
    if abs(den) <= 1e-13 * scale:
        return 1.0 if sd <= 1e-13 * scale else math.nan
    return 1.0 - sd / den


def _inorm_from(st: CoMembershipStats) -> float:
    den = math.sqrt(max(st.s_u, 0.0)) + math.sqrt(max(st.s_v, 0.0))
    if den == 0:
        return 1.0
    return 1.0 - math.sqrt(st.s_delta) / den


def _isqrt_from(st: CoMembershipStats) -> float:
    su, sv = max(st.s_u, 0.0), max(st.s_v, 0.0)
    if su == 0 and sv == 0:
        return 1.0
    if su == 0 or sv == 0:
        return 0.0
    return st.s_uv / math.sqrt(su * sv)


def _edge_clustering(cu: Clustering, g: Graph) -> Clustering:
    """The edge set as a clustering: each edge a cluster of its two end nodes (√w memberships)."""
    N = g.incidence()
    N.sort_indices()
    crisp = bool(np.all(g.w == 1.0))
    return Clustering(cu.n, cu.nodes, None, crisp, N)


def _delta_measure(U, V, exact, graph, mode, direct_weight, from_stats: Callable, need_max: bool) -> float:
    exact = check_flag("exact", exact)
    # every option is checked, also those the call does not use (a typo must not pass silently)
    check_choice("mode", mode, ("transform", "plus"))
    w = check_float("direct_weight", direct_weight, minimum=0.0, maximum=1.0)
    cu, cv = align_pair(U, V)
    if graph is None:
        return float(from_stats(_check_magnitude(_stats_plain(cu, cv, exact, need_max), "U")))
    g = as_graph(graph, cu)
    if mode == "transform":
        if g.n_edges == 0:
            raise InputError("graph", "has no edges; the transformed measures need at least one edge")
        return float(from_stats(_check_magnitude(_stats_transform(cu, cv, g, exact, need_max), "graph")))
    en = _edge_clustering(cu, g)
    d_uv = 1.0 - from_stats(_check_magnitude(_stats_plain(cu, cv, exact, need_max), "U"))
    d_un = 1.0 - from_stats(_check_magnitude(_stats_plain(cu, en, exact, need_max), "graph"))
    d_vn = 1.0 - from_stats(_check_magnitude(_stats_plain(cv, en, exact, need_max), "graph"))
    return float(1.0 - (w * d_uv + (1.0 - w) * abs(d_un - d_vn)))


#: docstring parts of the four Δ measures (``%(name)s`` in their docstrings, filled by _docfill)
_DELTA_DOC = {
    "soft": """U, V : clustering
        Label vectors, covers (overlapping allowed), crisp or soft membership matrices, or cdlib
        ``NodeClustering`` objects over the same nodes.""",
    "graph": """graph : graph, optional
        If given, the structure-aware form (Rabbany & Zaïane 2015, sec. 4.1): an adjacency matrix, an edge list
        or a networkx graph over the same nodes.
    mode : {"transform", "plus"}, optional
        ``"transform"`` (default): D_⊥(U, V | G) = D(NᵀU, NᵀV), every edge a data point (exact
        form: pairs of an edge with itself dropped, P = |E|² − |E|); ``"plus"``: agreement
        1 − [w D(U, V) + (1 − w)|D(U, N) − D(V, N)|] with D = 1 − agreement, N the edges used
        as 2-node clusters and w = ``direct_weight``.
    direct_weight : float, optional
        ``mode="plus"`` only: the weight w of the direct distance D(U, V) in D_+ (Rabbany & Zaïane's α,
        default 0.5); the structural term |D(U, N) − D(V, N)| gets 1 − w.  ``alpha=`` is its
        deprecated spelling.""",
}


_DELTA_DOC["rand_parameters"] = f"""Parameters
    ----------
    {_DELTA_DOC["soft"]}
    exact : bool, optional
        Exact form (default: pairs of a node with itself dropped) or approximate (primed) form.
    {_DELTA_DOC["graph"]}"""
_DELTA_DOC["norm_parameters"] = f"""Parameters
    ----------
    {_DELTA_DOC["soft"]}
    exact : bool, optional
        Drop the diagonals (pairs of a node with itself).  Default False: Rabbany & Zaïane's tables use
        the diagonal-kept form.
    {_DELTA_DOC["graph"]}"""


#: fills the ``%(name)s`` parts of a docstring from :data:`_DELTA_DOC`
_docfill = docfill(_DELTA_DOC)


@_docfill
@renamed_parameters(alpha="direct_weight")
def ri_delta(
    U: Any, V: Any, *, exact: bool = True, graph: Any = None, mode: str = "transform", direct_weight: float = 0.5
) -> float:
    """Co-membership Rand index RI_δ = 1 − ‖UUᵀ − VVᵀ‖²_F / (P m²).

    ``m`` is the largest co-membership entry of either clustering.  ``exact=True`` (RI_δ):
    diagonals dropped, P = n² − n, m the largest off-diagonal entry; equals the Rand index on
    partitions.  ``exact=False`` (RI′_δ): diagonals kept, P = n²; equals RI′ on partitions.

    %(rand_parameters)s

    Returns
    -------
    float
        RI_δ; 1 when U and V have the same co-membership matrix (UUᵀ = VVᵀ).

    References
    ----------
    R. Rabbany, O. R. Zaïane. Generalization of clustering agreements and distances for
    overlapping clusters and network communities. Data Min. Knowl. Disc. 29(5), 1458–1485 (2015).
    :doi:`10.1007/s10618-015-0426-x`

    Examples
    --------
    >>> from agreekit.clustering import ri_delta
    >>> V = [[0, 3, 4], [1, 2, 3], [2, 3, 4]]          # overlapping cover (Rabbany & Zaïane 2015, Fig. 2a)
    >>> U1 = [[0, 3, 4], [1], [2]]
    >>> round(ri_delta(V, U1), 3), round(ri_delta(V, U1, exact=False), 3)
    (0.8, 0.902)
    >>> edges = [(0, 1), (0, 4), (1, 2), (2, 3), (3, 4)]
    >>> round(ri_delta(V, U1, graph=edges), 3)
    0.856
    """
    return _delta_measure(U, V, exact, graph, mode, direct_weight, _ri_from, True)


@_docfill
@renamed_parameters(alpha="direct_weight")
def ari_delta(
    U: Any, V: Any, *, exact: bool = True, graph: Any = None, mode: str = "transform", direct_weight: float = 0.5
) -> float:
    """Co-membership adjusted Rand index ARI_δ = 1 − S_Δ / (S_U + S_V − 2 ΣCU ΣCV / P).

    ``exact=True`` (ARI_δ): diagonals dropped, P = n² − n; equals the Hubert–Arabie ARI on
    partitions.  ``exact=False`` (ARI′_δ): diagonals kept, P = n²; equals ARI′ on partitions.
    S_U = ‖UUᵀ‖²_F, S_V = ‖VVᵀ‖²_F and S_Δ = ‖UUᵀ − VVᵀ‖²_F.

    %(rand_parameters)s

    Returns
    -------
    float
        ARI_δ: 1 for equal co-membership matrices, about 0 in expectation for unrelated
        clusterings (negative below chance).

    References
    ----------
    R. Rabbany, O. R. Zaïane. Generalization of clustering agreements and distances for
    overlapping clusters and network communities. Data Min. Knowl. Disc. 29(5), 1458–1485 (2015).
    :doi:`10.1007/s10618-015-0426-x`

    Examples
    --------
    >>> from agreekit.clustering import ari_delta
    >>> round(ari_delta([0, 0, 1, 1], [0, 0, 1, 2]), 4)    # = ARI on partitions
    0.5714
    >>> round(ari_delta([[0, 3, 4], [1, 2, 3], [2, 3, 4]], [[0, 3, 4], [1], [2, 3]], exact=False), 3)
    0.577
    """
    return _delta_measure(U, V, exact, graph, mode, direct_weight, _ari_from, False)


@_docfill
@renamed_parameters(alpha="direct_weight")
def i_norm(
    U: Any, V: Any, *, exact: bool = False, graph: Any = None, mode: str = "transform", direct_weight: float = 0.5
) -> float:
    """I_norm = 1 − ‖UUᵀ − VVᵀ‖_F / (‖UUᵀ‖_F + ‖VVᵀ‖_F) (plain Frobenius norms).

    %(norm_parameters)s

    Returns
    -------
    float
        I_norm in [0, 1]; 1 when UUᵀ = VVᵀ (the triangle inequality keeps it non-negative).

    References
    ----------
    R. Rabbany, O. R. Zaïane. Generalization of clustering agreements and distances for
    overlapping clusters and network communities. Data Min. Knowl. Disc. 29(5), 1458–1485 (2015).
    :doi:`10.1007/s10618-015-0426-x`

    Examples
    --------
    >>> from agreekit.clustering import i_norm
    >>> round(i_norm([0, 0, 1, 1], [0, 0, 1, 2]), 4)
    0.7321
    >>> round(i_norm([[0, 3, 4], [1, 2, 3], [2, 3, 4]], [[0, 3, 4], [1], [2]]), 3)   # Rabbany & Zaïane 2015, Table 2, (V, U1)
    0.532
    """
    return _delta_measure(U, V, exact, graph, mode, direct_weight, _inorm_from, False)


@_docfill
@renamed_parameters(alpha="direct_weight")
def i_sqrt_tr(
    U: Any, V: Any, *, exact: bool = False, graph: Any = None, mode: str = "transform", direct_weight: float = 0.5
) -> float:
    """I_√tr = tr(UUᵀ VVᵀ) / √(tr(UUᵀUUᵀ) tr(VVᵀVVᵀ)): the cosine of the co-membership matrices.

    Equals ‖UᵀV‖²_F / (‖UᵀU‖_F ‖VᵀV‖_F).

    %(norm_parameters)s

    Returns
    -------
    float
        The cosine in [0, 1] for non-negative memberships; 1 when UUᵀ and VVᵀ are proportional.

    References
    ----------
    R. Rabbany, O. R. Zaïane. Generalization of clustering agreements and distances for
    overlapping clusters and network communities. Data Min. Knowl. Disc. 29(5), 1458–1485 (2015).
    :doi:`10.1007/s10618-015-0426-x`

    Examples
    --------
    >>> from agreekit.clustering import i_sqrt_tr
    >>> round(i_sqrt_tr([0, 0, 1, 1], [0, 0, 1, 2]), 4)
    0.866
    """
    return _delta_measure(U, V, exact, graph, mode, direct_weight, _isqrt_from, False)


# --- Omega -------------------------------------------------------------------------------
def _signature_groups(U: sp.csr_array, V: sp.csr_array, hashes: np.ndarray | None = None):
    """Representatives and sizes of the groups of nodes with identical rows in both U and V.

    Nodes are grouped by a hash of their cluster sets and every grouping is verified row by row;
    on a (vanishingly unlikely) hash collision every node is its own group, which is still exact.
    """
    n = U.shape[0]
    i64 = np.int64
    up, ui, vp, vi = U.indptr.astype(i64), U.indices.astype(i64), V.indptr.astype(i64), V.indices.astype(i64)
    if hashes is None:
        rng = np.random.default_rng(0x5EED)
        r1 = rng.integers(0, 2**63, U.shape[1], dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        r2 = rng.integers(0, 2**63, V.shape[1], dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        hashes = signature_hashes(n, up, ui, vp, vi, r1, r2)
    # identical signatures must be adjacent; sorting first by each node's first U and V cluster
    # also makes the groups of one cluster nearly contiguous (cache-friendly pair scan)
    first_u = np.where(np.diff(up) > 0, ui[np.minimum(up[:-1], max(ui.size - 1, 0))] if ui.size else -1, -1)
    first_v = np.where(np.diff(vp) > 0, vi[np.minimum(vp[:-1], max(vi.size - 1, 0))] if vi.size else -1, -1)
    order = np.lexsort((hashes, first_v, first_u)).astype(i64)
    reps, size, ok = group_signatures(order, hashes, up, ui, vp, vi)
    if not ok:
        return np.arange(n, dtype=i64), np.ones(n, dtype=i64)
    return reps, size


def _cover_pair_counts(U: sp.csr_array, V: sp.csr_array, hashes: np.ndarray | None = None):
    """Omega's pair counts of two crisp covers, via groups of identical nodes (see kernels)."""
    U = sp.csr_array(U)
    V = sp.csr_array(V)
    U.sort_indices()
    V.sort_indices()
    reps, size = _signature_groups(U, V, hashes)
    Ug, Vg = sp.csr_array(U[reps]), sp.csr_array(V[reps])
    Ug.sort_indices()
    Vg.sort_indices()
    uc, vc = sp.csc_array(Ug), sp.csc_array(Vg)
    uc.sort_indices()
    vc.sort_indices()
    max_mult = int(max(np.diff(U.indptr).max(initial=0), np.diff(V.indptr).max(initial=0), 1))
    i64 = np.int64
    return weighted_pair_counts(
        reps.size,
        size.astype(i64),
        Ug.indptr.astype(i64),
        Ug.indices.astype(i64),
        uc.indptr.astype(i64),
        uc.indices.astype(i64),
        Vg.indptr.astype(i64),
        Vg.indices.astype(i64),
        vc.indptr.astype(i64),
        vc.indices.astype(i64),
        max_mult,
    )


def _omega_counts(U: Any, V: Any) -> tuple[int, int, int]:
    """(N pairs, pairs in agreement, Σ_t f_U(t) f_V(t)) as Python ints."""
    cu, cv = align_pair(U, V)
    for c, name in ((cu, "U"), (cv, "V")):
        if not c.crisp:
            raise InputError(name, "has soft memberships; omega needs crisp clusterings")
    n = cu.n
    npairs = n * (n - 1) // 2
    if cu.is_partition and cv.is_partition:
        _, a, b, m11 = _pair_counts(_table_from_codes(cu.labels, cv.labels))
        agree = m11 + (npairs - a - b + m11)
        s = (npairs - a) * (npairs - b) + a * b
        return npairs, agree, s
    f_u, f_v, agree_pos, union = _cover_pair_counts(cu.matrix, cv.matrix)
    f_u = [int(x) for x in f_u]
    f_v = [int(x) for x in f_v]
    f_u[0] = npairs - sum(f_u[1:])
    f_v[0] = npairs - sum(f_v[1:])
    agree = int(agree_pos) + (npairs - int(union))
    s = sum(x * y for x, y in zip(f_u, f_v))
    return npairs, agree, s


def omega(U: Any, V: Any) -> float:
    """Omega index of Collins & Dent, adjusted for chance: Aω = (ω − E[ω]) / (1 − E[ω]).

    The value of cdlib's :func:`cdlib.evaluation.omega` and clusim's ``omega_index``.  ω is the
    unadjusted index (:func:`omega_unadjusted`), E[ω] = Σ_t f_U(t) f_V(t) / P², with ``f_X(t)``
    the number of node pairs co-clustered exactly t times in X and P the number of pairs.
    Equals the adjusted Rand index on partitions.  Crisp clusterings only (covers may overlap);
    exact integer arithmetic up to the final division.

    .. versionchanged:: 0.2
       ``omega`` is the adjusted index (as in cdlib); it was the unadjusted one, now
       :func:`omega_unadjusted`.  ``adjusted_omega`` is a deprecated alias of ``omega``.

    Parameters
    ----------
    %(covers)s

    Returns
    -------
    float
        Aω: 1 for equal co-membership counts of every pair, about 0 in expectation for unrelated
        covers (negative below chance).

    Examples
    --------
    >>> from agreekit.clustering import omega
    >>> omega([[0, 3, 4], [1, 2, 3], [2, 3, 4]], [[0, 3, 4], [1], [2]])
    0.21875
    """
    npairs, agree, s = _omega_counts(U, V)
    den = npairs * npairs - s
    if den == 0:
        return 1.0
    return float((agree * npairs - s) / den)


def omega_unadjusted(U: Any, V: Any) -> float:
    """Unadjusted Omega index ω (Collins & Dent): share of node pairs co-clustered equally often.

    Over unordered pairs i < j (diagonal excluded), the fraction whose number of shared clusters
    is the same in U and V; Rabbany & Zaïane's ω, equal to the Rand index on partitions.  Crisp
    clusterings only (covers may overlap).  Computed by counting, per co-membership
    multiplicity, only the pairs that share a cluster in U or V (no O(n²) loop).  The
    chance-adjusted index (cdlib's ``omega``) is :func:`omega`.

    Parameters
    ----------
    %(covers)s

    Returns
    -------
    float
        ω in [0, 1]: the share of node pairs that U and V put together equally often.

    References
    ----------
    R. Rabbany, O. R. Zaïane. Generalization of clustering agreements and distances for
    overlapping clusters and network communities. Data Min. Knowl. Disc. 29(5), 1458–1485 (2015).
    :doi:`10.1007/s10618-015-0426-x`

    Examples
    --------
    >>> from agreekit.clustering import omega_unadjusted
    >>> omega_unadjusted([[0, 3, 4], [1, 2, 3], [2, 3, 4]], [[0, 3, 4], [1], [2]])
    0.5
    """
    npairs, agree, _ = _omega_counts(U, V)
    return 1.0 if npairs == 0 else float(agree / npairs)


#: the parameters of omega and omega_unadjusted (``%(covers)s`` in their docstrings)
_COVERS_DOC = {
    "covers": """U, V : clustering
        Crisp covers (overlapping allowed), label vectors, 0/1 matrices or cdlib
        ``NodeClustering`` objects over the same nodes."""
}
docfill(_COVERS_DOC)(omega)
docfill(_COVERS_DOC)(omega_unadjusted)

adjusted_omega = deprecated_alias(omega, "adjusted_omega")


# --- agreement of a clustering with the graph itself ("(N, X)" rows) -------------------
