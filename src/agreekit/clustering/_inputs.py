"""The normalizing input layer: clusterings and graphs in every accepted form.

A *clustering* of n nodes is turned into a :class:`Clustering`: an ``n x k`` membership
matrix (CSR, float64) plus, when it is a crisp partition, integer label codes (the fast
path of all contingency measures).  Accepted forms:

* **label vector** — 1-D array-like of hashable labels (node i = position i), or a mapping
  ``{node: label}``; a partition (disjoint, every node covered);
* **cover** — a list of collections of node ids (clusters may overlap, nodes may be
  uncovered); its node set is the union of the clusters unless ``nodes=`` is given; an empty
  cluster or a node listed twice in one cluster is an error;
* **membership matrix** — 2-D numpy array or ``scipy.sparse`` matrix, ``n x k``, crisp
  (0/1) or soft (non-negative reals); node i = row i;
* **a peer's clustering object** — anything with a ``.communities`` list of node collections,
  such as cdlib's ``NodeClustering`` (over the union of its communities, as cdlib's scores are;
  its ``.graph`` is not read: pass ``nodes=`` for a larger universe) or an
  :class:`~agreekit.clustering.LFRBenchmark` (nodes ``0..n-1``); read as a cover.  cdlib is
  never imported.

Two clusterings compared must be over the same node set (label vectors and matrices are
positional, ids ``0..n-1``; covers are keyed by their node ids).  Nodes in no cluster
("uncovered") follow the ``uncovered`` convention of :func:`as_clustering`: by default they
form **one extra cluster** (the convention of Rabbany & Zaïane's program); ``"singletons"``
gives each its own cluster; ``"ignore"`` keeps them as all-zero rows (they then co-occur
with nobody in the co-membership measures and drop out of the contingency table).

A *graph* is a ``scipy.sparse`` (or dense) symmetric adjacency matrix whose rows follow the
clustering's node order, an edge list of ``(a, b)`` or ``(a, b, weight)`` over node ids, or a
networkx graph (networkx is optional: it is only touched if you pass such a graph).
A dense ``n x n`` numpy array is read as an adjacency matrix, any other array as an edge list.
Self-loops are ignored; a directed edge list is read as undirected (repeated edges add up).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from agreekit._validation import InputError, check_choice, check_name, float_matrix

__all__ = ["Clustering", "as_clustering", "Graph", "as_graph"]

_UNCOVERED = ("cluster", "singletons", "ignore")


@dataclass(frozen=True, eq=False, repr=False)
class Clustering:
    """A clustering of ``n`` nodes in normalized form (see module docs).

    Parameters
    ----------
    n : int
        Number of nodes.
    nodes : tuple or None
        Node ids in row order; ``None`` for positional input (ids ``0..n-1``).
    labels : ndarray of int64 or None
        Cluster code of each node when the clustering is a crisp partition, else ``None``.
    crisp : bool
        Whether all memberships are 0 or 1.
    _matrix : scipy.sparse.csr_array, optional
        Internal: the ``n x k`` membership matrix of a clustering that is not a partition (built
        from ``labels`` on first use otherwise); read it as :attr:`matrix`.

    See Also
    --------
    as_clustering : makes one from any accepted form (the constructor is internal).

    Examples
    --------
    >>> from agreekit.clustering import as_clustering
    >>> c = as_clustering([[0, 1, 2], [2, 3]])          # a cover: node 2 in both clusters
    >>> c, c.is_partition, c.k
    (Clustering(crisp cover, n=4, k=2), False, 2)
    >>> c.matrix.toarray().tolist()
    [[1.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    """

    n: int
    nodes: tuple | None
    labels: np.ndarray | None
    crisp: bool
    _matrix: Any = field(default=None)
    _cache: dict = field(default_factory=dict, init=False)

    @property
    def is_partition(self) -> bool:
        """True for a crisp, disjoint clustering that covers every node."""
        return self.labels is not None

    @property
    def k(self) -> int:
        """Number of (non-empty) clusters."""
        if self.labels is not None:
            return int(self.labels.max()) + 1 if self.n else 0
        return int(self.matrix.shape[1])

    @property
    def matrix(self) -> sp.csr_array:
        """The ``n x k`` membership matrix (CSR, float64)."""
        if self._matrix is None:
            m = sp.csr_array(
                (np.ones(self.n), self.labels.astype(np.int64), np.arange(self.n + 1, dtype=np.int64)),
                shape=(self.n, self.k),
            )
            object.__setattr__(self, "_matrix", m)
        return self._matrix

    def __repr__(self) -> str:
        kind = "partition" if self.is_partition else ("crisp cover" if self.crisp else "soft clustering")
        return f"Clustering({kind}, n={self.n}, k={self.k})"

    # -- node-set handling ------------------------------------------------------------
    def _node_index(self) -> dict:
        if "index" not in self._cache:
            ids = range(self.n) if self.nodes is None else self.nodes
            self._cache["index"] = {node: i for i, node in enumerate(ids)}
        return self._cache["index"]

    def _reordered(self, perm: np.ndarray, nodes: tuple | None) -> "Clustering":
        """Rows permuted so that new row i is old row ``perm[i]``."""
        if self.labels is not None:
            return Clustering(self.n, nodes, self.labels[perm], self.crisp)
        return Clustering(self.n, nodes, None, self.crisp, self.matrix[perm])


def _empty(param: str) -> InputError:
    return InputError(param, "is empty: a clustering needs at least one node")


def _is_collection(x: Any) -> bool:
    return isinstance(x, (list, tuple, set, frozenset, np.ndarray, range)) or (
        isinstance(x, Iterable) and not isinstance(x, (str, bytes, Mapping)) and not np.isscalar(x)
    )


def _encode_labels(values: Any, param: str) -> np.ndarray:
    """Contiguous int64 codes 0..k-1 (in order of first appearance for generic labels)."""
    arr = np.asarray(values) if not isinstance(values, pd.Series) else values.to_numpy()
    if arr.ndim != 1:
        raise InputError(param, f"must be a 1-D label vector; got shape {arr.shape}")
    if arr.size == 0:
        raise _empty(param)
    if arr.dtype.kind in "iu":
        lo, hi = int(arr.min()), int(arr.max())
        if lo >= 0 and hi <= 4 * arr.size + 1024:
            present = np.bincount(arr, minlength=hi + 1) > 0
            code = np.cumsum(present, dtype=np.int64) - 1
            return code[arr]
        codes, _ = pd.factorize(arr, sort=True)
        return codes.astype(np.int64, copy=False)
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise InputError(param, "must not contain NaN or infinite labels")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    try:
        codes, _ = pd.factorize(arr, sort=False, use_na_sentinel=True)
    except TypeError:
        raise InputError(param, "labels must be hashable") from None
    if np.any(codes < 0):
        raise InputError(param, "must not contain missing (None/NaN) labels")
    return codes.astype(np.int64, copy=False)


def _node_order(ids: Iterable) -> tuple:
    uniq = list(dict.fromkeys(ids))
    try:
        return tuple(sorted(uniq))
    except TypeError:
        return tuple(uniq)


def _apply_uncovered(matrix: sp.csr_array, uncovered: str) -> sp.csr_array:
    row_nnz = np.diff(matrix.indptr)
    empty = np.flatnonzero(row_nnz == 0)
    if empty.size == 0 or uncovered == "ignore":
        return matrix
    n, k = matrix.shape
    if uncovered == "cluster":
        extra = sp.csr_array((np.ones(empty.size), (empty, np.zeros(empty.size, np.int64))), shape=(n, 1))
    else:  # singletons
        extra = sp.csr_array((np.ones(empty.size), (empty, np.arange(empty.size))), shape=(n, empty.size))
    return sp.hstack([matrix, extra], format="csr")


#: largest soft membership: Σ over node pairs of (Σ_c u_ic u_jc)² stays finite in float64
_MEMBERSHIP_MAX = 1e50


def _from_matrix(matrix: Any, param: str, nodes: tuple | None, uncovered: str) -> Clustering:
    if sp.issparse(matrix):
        m = sp.csr_array(matrix, dtype=np.float64)
        m.sum_duplicates()
    else:
        dense = float_matrix(param, matrix, what="membership matrix")
        m = sp.csr_array(dense)
    n, _ = m.shape
    if n == 0:
        raise _empty(param)
    if not np.all(np.isfinite(m.data)):
        raise InputError(param, "must not contain NaN or infinite memberships")
    if np.any(m.data < 0):
        raise InputError(param, "has negative memberships; soft memberships must be >= 0")
    if m.data.size and m.data.max() > _MEMBERSHIP_MAX:
        raise InputError(
            param,
            f"has a membership {float(m.data.max()):.3g} above {_MEMBERSHIP_MAX:.0e}: the "
            "co-membership sums (fourth powers of memberships) overflow float64; scale the "
            "memberships down",
        )
    m.eliminate_zeros()
    if nodes is not None and len(nodes) != n:
        raise InputError("nodes", f"has {len(nodes)} ids but `{param}` has {n} rows")
    m = _apply_uncovered(m, uncovered)
    # drop empty clusters (columns without members)
    col_nnz = np.bincount(m.indices, minlength=m.shape[1])
    if np.any(col_nnz == 0):
        m = m[:, np.flatnonzero(col_nnz)]
    m = sp.csr_array(m)
    m.sort_indices()
    crisp = bool(np.all(m.data == 1.0))
    row_nnz = np.diff(m.indptr)
    labels = m.indices.astype(np.int64) if crisp and np.all(row_nnz == 1) else None
    if labels is not None:
        labels = _encode_labels(labels, param)
        return Clustering(n, nodes, labels, True)
    return Clustering(n, nodes, None, crisp, m)


def _int_cover(clusters: list, param: str, nodes: tuple | None, uncovered: str) -> Clustering | None:
    """Vectorized path for a cover whose clusters are 1-D integer arrays (e.g. LFR communities);
    None when it does not apply.  Same result as the generic path."""
    if not clusters or not all(isinstance(c, np.ndarray) and c.ndim == 1 and c.dtype.kind in "iu" for c in clusters):
        return None
    empty = next((c for c, cl in enumerate(clusters) if cl.size == 0), None)
    if empty is not None:  # the same rules as the generic path
        raise InputError(param, f"cluster {empty} is empty; a cover lists non-empty clusters (drop it)")
    for c, cl in enumerate(clusters):
        if cl.size > 1:
            srt = np.sort(cl)
            dup = srt[1:][srt[1:] == srt[:-1]]
            if dup.size:
                raise InputError(param, f"cluster {c} lists node {int(dup[0])!r} twice; a cluster names each node once")
    ids = np.concatenate(clusters).astype(np.int64, copy=False)
    cols = np.repeat(np.arange(len(clusters), dtype=np.int64), [c.size for c in clusters])
    if nodes is None:
        if ids.size == 0:
            raise _empty(param)
        lo, hi = int(ids.min()), int(ids.max())
        if lo >= 0 and hi <= 4 * ids.size + 1024:  # dense ids: counting instead of sorting
            present = np.bincount(ids, minlength=hi + 1) > 0
            order = np.flatnonzero(present)
            rows = (np.cumsum(present, dtype=np.int64) - 1)[ids]
        else:
            order, rows = np.unique(ids, return_inverse=True)
    else:
        if not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in nodes):
            return None
        order = np.fromiter(dict.fromkeys(nodes), dtype=np.int64)
        if order.size == 0:
            raise _empty(param)
        if np.array_equal(order, np.arange(order.size)):  # nodes = range(n)
            bad = (ids < 0) | (ids >= order.size)
            rows = np.where(bad, 0, ids)
        else:
            sorter = np.argsort(order, kind="stable")
            rows = sorter[np.minimum(np.searchsorted(order, ids, sorter=sorter), order.size - 1)]
            bad = order[rows] != ids
        if np.any(bad):
            missing = sorted(set(ids[bad].tolist()))
            raise InputError(param, f"has {len(missing)} node(s) not in `nodes`, e.g. {list(map(repr, missing))[:3]}")
    m = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(order.size, len(clusters)))
    m.sum_duplicates()
    return _from_matrix(m, param, tuple(order.tolist()), uncovered)


def _from_cover(clusters: list, param: str, nodes: Iterable | None, uncovered: str) -> Clustering:
    fast = _int_cover(clusters, param, None if nodes is None else tuple(nodes), uncovered)
    if fast is not None:
        return fast
    members = []
    for c, cluster in enumerate(clusters):
        if not _is_collection(cluster):
            raise InputError(param, f"cluster {c} is not a collection of node ids")
        cl = list(cluster)
        if not cl:
            raise InputError(param, f"cluster {c} is empty; a cover lists non-empty clusters (drop it)")
        try:
            unique = list(dict.fromkeys(cl))
        except TypeError:
            raise InputError(param, "node ids must be hashable") from None
        if len(unique) != len(cl):
            dup = next(x for i, x in enumerate(cl) if x in cl[:i])
            raise InputError(param, f"cluster {c} lists node {dup!r} twice; a cluster names each node once")
        members.append(cl)
    all_ids = [x for cl in members for x in cl]
    try:
        order = _node_order(all_ids) if nodes is None else tuple(dict.fromkeys(nodes))
    except TypeError:
        raise InputError(param, "node ids must be hashable") from None
    if nodes is not None:
        missing = set(all_ids) - set(order)
        if missing:
            raise InputError(param, f"has {len(missing)} node(s) not in `nodes`, e.g. {sorted(map(repr, missing))[:3]}")
    if not order:
        raise _empty(param)
    index = {node: i for i, node in enumerate(order)}
    rows = np.fromiter((index[x] for cl in members for x in cl), dtype=np.int64, count=len(all_ids))
    cols = np.repeat(np.arange(len(members), dtype=np.int64), [len(cl) for cl in members])
    m = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(len(order), len(members)))
    return _from_matrix(m, param, order, uncovered)


def as_clustering(
    clustering: Any, *, nodes: Iterable | None = None, uncovered: str = "cluster", name: str = "clustering"
) -> Clustering:
    """Normalize a clustering given as a label vector, a cover or a membership matrix.

    Parameters
    ----------
    clustering : array-like, mapping, list of collections, 2-D array, sparse matrix, Clustering, or an object with ``.communities``
        See the module documentation for the accepted forms (a cdlib ``NodeClustering`` is
        read as the cover ``.communities`` over the union of its communities, as in cdlib;
        ``nodes=list(nc.graph)`` takes the graph's nodes instead).
    nodes : iterable, optional
        Node ids of a cover (the node universe; nodes in no cluster are *uncovered*), or the
        ids of the rows of a membership matrix / positions of a label vector.
    uncovered : {"cluster", "singletons", "ignore"}
        What happens to nodes in no cluster (see module docs). Default ``"cluster"``.
    name : str
        Parameter name used in error messages.

    Returns
    -------
    Clustering
        The clustering in normalized form: node ids, memberships and, for a crisp partition, labels.

    Examples
    --------
    >>> from agreekit.clustering import as_clustering
    >>> as_clustering([0, 0, 1, 1, 2])
    Clustering(partition, n=5, k=3)
    >>> as_clustering([["a", "b", "c"], ["c", "d"]])
    Clustering(crisp cover, n=4, k=2)
    """
    check_choice("uncovered", uncovered, _UNCOVERED)
    check_name("name", name)
    if isinstance(clustering, Clustering):
        return clustering
    if nodes is not None:
        nodes = check_nodes(nodes)
    if isinstance(clustering, np.ma.MaskedArray):
        raise InputError(name, "is a masked array; give plain labels (or a cover / membership matrix)")
    peer = _peer_communities(clustering, nodes)
    if peer is not None:
        clusters, nodes = peer
        return _from_cover(clusters, name, nodes, uncovered)
    if sp.issparse(clustering):
        return _from_matrix(clustering, name, nodes, uncovered)
    if isinstance(clustering, Mapping):
        if not clustering:
            raise _empty(name)
        keys = _node_order(clustering.keys())
        labels = _encode_labels(
            np.array([clustering[k] for k in keys], dtype=object)
            if not all(isinstance(v, (int, np.integer)) for v in clustering.values())
            else np.array([clustering[k] for k in keys], dtype=np.int64),
            name,
        )
        return Clustering(len(keys), keys, labels, True)
    if isinstance(clustering, (np.ndarray, pd.Series, pd.DataFrame)):
        arr = clustering.to_numpy() if isinstance(clustering, (pd.Series, pd.DataFrame)) else clustering
        if arr.ndim == 2:
            return _from_matrix(arr, name, nodes, uncovered)
        if arr.ndim == 1 and arr.dtype != object:
            labels = _encode_labels(arr, name)
            if nodes is not None and len(nodes) != labels.size:
                raise InputError("nodes", f"has {len(nodes)} ids but `{name}` has {labels.size} labels")
            return Clustering(labels.size, nodes, labels, True)
        clustering = list(arr)
    if isinstance(clustering, (list, tuple)):
        if len(clustering) == 0:
            raise _empty(name)
        first = clustering[0]
        if _is_collection(first):
            return _from_cover(list(clustering), name, nodes, uncovered)
        if any(_is_collection(x) for x in clustering):
            raise InputError(name, "mixes labels and clusters; give a label vector or a list of clusters")
        labels = _encode_labels(
            np.array(clustering, dtype=object)
            if any(isinstance(x, str) for x in clustering)
            else np.asarray(clustering),
            name,
        )
        if nodes is not None and len(nodes) != labels.size:
            raise InputError("nodes", f"has {len(nodes)} ids but `{name}` has {labels.size} labels")
        return Clustering(labels.size, nodes, labels, True)
    if isinstance(clustering, Iterable) and not isinstance(clustering, (str, bytes)):
        return as_clustering(list(clustering), nodes=nodes, uncovered=uncovered, name=name)
    raise InputError(
        name, f"must be a label vector, a list of clusters or a membership matrix; got {type(clustering).__name__}"
    )


def _peer_communities(obj: Any, nodes: tuple | None):
    """``(clusters, nodes)`` of an object with a ``.communities`` attribute (cdlib's
    ``NodeClustering``, :class:`LFRBenchmark`), or None for anything else (duck-typed)."""
    if isinstance(obj, (list, tuple, np.ndarray, Mapping, str, bytes)) or sp.issparse(obj):
        return None
    communities = getattr(obj, "communities", None)
    if communities is None or isinstance(communities, (str, bytes)):
        return None
    clusters = [list(c.tolist()) if isinstance(c, np.ndarray) else list(c) for c in communities]
    if nodes is None:
        # cdlib's NodeClustering: the node set is the union of its communities, as in every cdlib
        # score (its ``.graph`` is not read: a graph node in no community would otherwise change
        # the numbers); an LFRBenchmark covers its nodes 0..n-1.
        n = getattr(obj, "n", None)
        if isinstance(n, (int, np.integer)) and not isinstance(n, bool):
            nodes = tuple(range(int(n)))
    return clusters, nodes


def _describe(missing: set) -> str:
    shown = sorted(map(repr, missing))[:3]
    return f"{len(missing)} node(s), e.g. {', '.join(shown)}"


def align_pair(U: Any, V: Any, names: tuple[str, str] = ("U", "V")) -> tuple[Clustering, Clustering]:
    """Normalize two clusterings and put V's rows in U's node order (or raise)."""
    cu = as_clustering(U, name=names[0])
    cv = as_clustering(V, name=names[1])
    return cu, align_to(cu, cv, names)


def align_to(cu: Clustering, cv: Clustering, names: tuple[str, str] = ("U", "V")) -> Clustering:
    if cu.nodes is None and cv.nodes is None:
        if cu.n != cv.n:
            raise InputError(
                names[1],
                f"has {cv.n} nodes but `{names[0]}` has {cu.n}; both clusterings must be over the same node set",
            )
        return cv
    if cu.n == cv.n and (cu.nodes == cv.nodes):
        return cv
    idx_u = cu._node_index()
    idx_v = cv._node_index()
    if idx_u.keys() != idx_v.keys():
        only_u = idx_u.keys() - idx_v.keys()
        only_v = idx_v.keys() - idx_u.keys()
        parts = []
        if only_u:
            parts.append(f"{_describe(only_u)} of `{names[0]}` are missing from it")
        if only_v:
            parts.append(f"it has {_describe(only_v)} not in `{names[0]}`")
        raise InputError(names[1], "is over a different node set than `" + names[0] + "`: " + "; ".join(parts))
    perm = np.fromiter(
        (idx_v[node] for node in (cu.nodes if cu.nodes is not None else range(cu.n))), dtype=np.int64, count=cu.n
    )
    return cv._reordered(perm, cu.nodes)


# ---------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Graph:
    """An undirected weighted graph over a clustering's nodes (rows in its node order).

    Made by :func:`as_graph`; self-loops are dropped and repeated edges summed.

    Parameters
    ----------
    weights : scipy.sparse.csr_array
        The symmetric ``n x n`` adjacency (no diagonal).
    a, b : ndarray of int64
        The end nodes (row indices) of every edge, once each, ``a < b``.
    w : ndarray of float64
        The edge weights, in the order of ``a`` and ``b``.

    Examples
    --------
    >>> from agreekit.clustering import as_clustering, as_graph
    >>> g = as_graph([(0, 1), (1, 2, 2.0), (2, 1)], as_clustering([0, 0, 1]))
    >>> g.n_edges, g.w.tolist(), g.strength.tolist()
    (2, [1.0, 3.0], [1.0, 4.0, 3.0])
    """

    weights: sp.csr_array
    a: np.ndarray
    b: np.ndarray
    w: np.ndarray

    @property
    def n_edges(self) -> int:
        """Number of (distinct) edges."""
        return int(self.a.size)

    @property
    def strength(self) -> np.ndarray:
        """Weighted degree of every node."""
        return np.asarray(self.weights.sum(axis=1)).ravel()

    def incidence(self) -> sp.csr_array:
        """Node-by-edge incidence matrix N with ``sqrt(w)`` at both endpoints (n x |E|)."""
        n = self.weights.shape[0]
        m = self.n_edges
        s = np.sqrt(self.w)
        rows = np.concatenate([self.a, self.b])
        cols = np.concatenate([np.arange(m), np.arange(m)])
        return sp.csr_array((np.concatenate([s, s]), (rows, cols)), shape=(n, m))


def _from_edges(a_ids, b_ids, w, nodes: Clustering, param: str) -> Graph:
    index = nodes._node_index()
    try:
        a = np.fromiter((index[x] for x in a_ids), dtype=np.int64, count=len(a_ids))
        b = np.fromiter((index[x] for x in b_ids), dtype=np.int64, count=len(b_ids))
    except KeyError as exc:
        raise InputError(param, f"has an edge endpoint {exc.args[0]!r} that is not a node of the clustering") from None
    except TypeError:
        raise InputError(param, "node ids must be hashable") from None
    w = np.asarray(w, dtype=np.float64)
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise InputError(param, "edge weights must be positive finite numbers")
    keep = a != b  # self-loops ignored
    a, b, w = a[keep], b[keep], w[keep]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    n = nodes.n
    upper = sp.csr_array((w, (lo, hi)), shape=(n, n))  # duplicates summed
    upper.sum_duplicates()
    coo = upper.tocoo()
    W = sp.csr_array(upper + upper.T)
    return Graph(W, coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data.astype(np.float64))


def check_nodes(nodes: Any) -> tuple:
    """The ``nodes=`` of a cover as a tuple, or InputError naming ``nodes`` (a scalar, a string, a masked or
    2-D array are not node lists)."""
    if isinstance(nodes, (str, bytes, np.ma.MaskedArray)) or not hasattr(nodes, "__iter__") or np.ndim(nodes) > 1:
        raise InputError("nodes", f"must be an iterable of node ids; got {type(nodes).__name__}")
    return tuple(nodes)


def check_flag(parameter: str, value: Any) -> bool:
    """``value`` as a bool if it is one (``True``/``False``/``numpy.bool_``), else InputError naming ``parameter``
    (``bool(array)`` would be a raw ValueError; ``'yes'`` and ``2`` are not flags)."""
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(parameter, f"must be True or False; got {value!r}"[:200])
    return bool(value)


def as_graph(graph: Any, clustering: Clustering, *, name: str = "graph") -> Graph:
    """Normalize ``graph`` (sparse/dense adjacency, edge list or networkx graph) to a :class:`Graph`.

    Parameters
    ----------
    graph : array_like, sparse matrix, iterable of edges, networkx graph or Graph
        A symmetric non-negative ``n x n`` adjacency over the clustering's nodes (in its row
        order), edges ``(a, b)`` or ``(a, b, weight)`` named by node id, or a networkx graph
        (edge attribute ``"weight"``, default 1).  Self-loops are ignored, repeated edges summed.
    clustering : Clustering
        The clustering whose nodes the graph is over (from :func:`as_clustering`).
    name : str, optional
        Parameter name used in error messages (default ``"graph"``).

    Returns
    -------
    Graph
        The graph with rows in the clustering's node order.

    Raises
    ------
    agreekit.InputError
        If an edge names a node the clustering does not have, a weight is not a positive finite
        number, or an adjacency matrix has the wrong shape or is not symmetric.

    Examples
    --------
    >>> from agreekit.clustering import as_clustering, as_graph
    >>> U = as_clustering({"a": 0, "b": 0, "c": 1})
    >>> g = as_graph([("a", "b"), ("b", "c", 0.5)], U)
    >>> g.a.tolist(), g.b.tolist(), g.w.tolist()
    ([0, 1], [1, 2], [1.0, 0.5])
    """
    check_name("name", name)
    if not isinstance(clustering, Clustering):
        clustering = as_clustering(clustering, name="clustering")
    if isinstance(graph, np.ma.MaskedArray):
        raise InputError(name, "is a masked array; give a plain adjacency matrix or an edge list")
    if isinstance(graph, Graph):
        if graph.weights.shape[0] != clustering.n:
            raise InputError(name, f"has {graph.weights.shape[0]} nodes but the clustering has {clustering.n}")
        return graph
    if hasattr(graph, "adj") and hasattr(graph, "edges") and hasattr(graph, "nodes"):  # networkx
        missing = [v for v in graph.nodes if v not in clustering._node_index()]
        if missing:
            raise InputError(name, f"has {_describe(set(missing))} that are not nodes of the clustering")
        edges = list(graph.edges(data="weight", default=1.0))
        a_ids = [e[0] for e in edges]
        b_ids = [e[1] for e in edges]
        return _from_edges(a_ids, b_ids, [e[2] for e in edges], clustering, name)
    if sp.issparse(graph) or (
        isinstance(graph, np.ndarray) and graph.ndim == 2 and graph.shape == (clustering.n, clustering.n)
    ):
        A = sp.csr_array(graph, dtype=np.float64)
        if A.shape != (clustering.n, clustering.n):
            raise InputError(
                name,
                f"adjacency must be {clustering.n} x {clustering.n} (the clustering's nodes); "
                f"got {A.shape[0]} x {A.shape[1]}",
            )
        if not np.all(np.isfinite(A.data)) or np.any(A.data < 0):
            raise InputError(name, "adjacency weights must be finite and non-negative")
        A.setdiag(0)
        A.eliminate_zeros()
        if abs(A - A.T).sum() > 1e-12 * max(1.0, abs(A).sum()):
            raise InputError(name, "adjacency matrix must be symmetric (undirected graph)")
        coo = sp.triu(A, k=1).tocoo()
        W = sp.csr_array(A)
        return Graph(W, coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data.astype(np.float64))
    try:
        edges = list(graph)
    except TypeError:
        raise InputError(
            name, f"must be an adjacency matrix, an edge list or a networkx graph; got {type(graph).__name__}"
        ) from None
    a_ids, b_ids, w = [], [], []
    for e, edge in enumerate(edges):
        edge = tuple(edge.tolist()) if isinstance(edge, np.ndarray) else tuple(edge)
        if len(edge) not in (2, 3):
            raise InputError(name, f"edge {e} must be (a, b) or (a, b, weight); got {edge!r}")
        a_ids.append(edge[0])
        b_ids.append(edge[1])
        try:
            w.append(float(edge[2]) if len(edge) == 3 else 1.0)
        except (TypeError, ValueError):
            raise InputError(name, f"edge {e} has a non-numeric weight {edge[2]!r}") from None
    return _from_edges(a_ids, b_ids, w, clustering, name)
