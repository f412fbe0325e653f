"""LFR benchmark graphs with weights and overlapping communities.

The generator of A. Lancichinetti & S. Fortunato, *Benchmarks for testing community detection
algorithms on directed and weighted graphs with overlapping communities*, Phys. Rev. E 80,
016118 (2009) — the undirected version, written from the paper's description:

1. degrees ``k_i`` from a discrete power law ``k^-tau1`` on ``[k_min, max_degree]``, the lower end
   chosen (with a fractional weight on its lowest value) so that the mean is ``average_degree``;
2. community sizes from a power law ``s^-tau2`` on ``[min_community, max_community]`` whose sum is
   the number of memberships ``n + o_n (o_m - 1)``;
3. each node gets ``k_out = mu k`` external stubs (randomly rounded) and ``k - k_out`` internal
   ones, split evenly over its memberships (``overlapping_memberships`` for the
   ``overlapping_nodes`` chosen at random, one for the others);
4. memberships go to communities large enough to hold them (a node with internal degree d in a
   community needs at least d other members), then move between communities until every
   community's internal degree sequence is graphical (Erdős-Gallai);
5. internal stubs are wired inside each community and external stubs among nodes that share no
   community, both as configuration models repaired by double-edge swaps (no self-loops, no
   multi-edges).  What the swaps cannot repair is realized as the reference implementation does:
   a community by Havel-Hakimi plus randomizing swaps; an external same-community pair by a swap
   with any other external pair, or (one community holding more external stubs than the others
   can take) with an internal edge of another community or by becoming internal, the two kept in
   balance so that the mean mixing stays at ``mu``; communities whose induced subgraph is not
   connected are joined by swaps.  Whatever still misses the request (a realized mixing more
   than 0.01 off, a dropped stub pair, a community not graphical or not connected, strengths
   more than 5 % off at over 1 % of the nodes) raises an :class:`LFRWarning` with the figures;
6. weighted graphs (``mu_weights`` given): node strengths ``s_i = k_i^beta`` split into
   ``(1 - mu_w) s_i`` on internal and ``mu_w s_i`` on external edges; edge weights are the
   non-negative least-squares fit of these per-node sums (the paper minimizes the same
   squared deviations, by a different heuristic).

Differences from the authors' C++ program: communities are filled greedily by decreasing internal
degree (the program places nodes at random and evicts when a community is full), then repaired
for Erdős-Gallai; the configuration model is tried first and the exact constructions only where
it fails (so graphs that needed no repair are those of earlier versions); the degree-sequence
lower end is matched exactly rather than by a continuous approximation.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agreekit._api import ResultBase, check_rng, renamed_parameters
from agreekit._jit import compile_notice, pick
from agreekit._validation import InputError, check_float, check_int
from agreekit.clustering import _lfr_kernels as K
from agreekit._memory import check_memory

__all__ = ["LFRBenchmark", "LFRWarning", "lfr_benchmark", "realized_mixing", "powerlaw_exponent_mle"]


class LFRWarning(UserWarning):
    """An LFR graph that misses its request: realized mixing more than 0.01 from ``mu`` (or
    ``mu_weights``), dropped stub pairs, or communities left non-graphical or disconnected.

    The message gives the realized figures; they are also in :class:`LFRBenchmark`
    (``realized_mu``, ``realized_mu_weights``, ``dropped_edges``, ``repairs``).

    Examples
    --------
    Two communities of 842 and 158 nodes cannot give every node half of its edges outside
    (the small one has too few stubs to take the big one's external edges):

    >>> import warnings
    >>> from agreekit.clustering.lfr import LFRWarning, lfr_benchmark
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     g = lfr_benchmark(1000, mu=0.5, average_degree=15, min_community=150, max_community=850,
    ...                       tau2=1.0, rng=16)
    >>> sorted(c.size for c in g.communities), round(g.realized_mu, 2)
    ([158, 842], 0.28)
    >>> caught[0].category is LFRWarning, "realized mu_t 0.28" in str(caught[0].message)
    (True, True)
    """


#: realized mixing further than this from the request gives an :class:`LFRWarning`
_MIXING_TOLERANCE = 0.01
#: ... and so does a community whose mean node mixing is further than this from ``mu``
#: (checked when external pairs had to be swapped with internal edges or made internal)
_COMMUNITY_MIXING_TOLERANCE = 0.05


def _warn_if_missed(g: "LFRBenchmark") -> None:
    import warnings

    p, r = g.parameters, g.repairs
    msgs = []
    if abs(g.realized_mu - p["mu"]) > _MIXING_TOLERANCE:
        msgs.append(f"realized mu_t {g.realized_mu:.4f} for mu = {p['mu']}")
    if g.realized_mu_weights is not None and abs(g.realized_mu_weights - p["mu_weights"]) > _MIXING_TOLERANCE:
        msgs.append(f"realized mu_w {g.realized_mu_weights:.4f} for mu_weights = {p['mu_weights']}")
    spread = r.get("community_mu_range")
    if spread and max(abs(spread[0] - p["mu"]), abs(spread[1] - p["mu"])) > _COMMUNITY_MIXING_TOLERANCE:
        msgs.append(
            f"per-community mean mixing ranges {spread[0]:.3f}-{spread[1]:.3f} (the communities' "
            "external stubs cannot be matched with each other)"
        )
    if r.get("strength_nodes_off_5pct", 0) > 0.01 * g.n:
        msgs.append(
            f"{r['strength_nodes_off_5pct']} nodes with internal or external strength more than 5 % off "
            f"(largest {100 * r['strength_max_rel_error']:.0f} %; few external edges per node over-determine "
            "the least-squares weights)"
        )
    if g.dropped_edges:
        msgs.append("not every stub pair could be wired into a simple graph")  # the count: below
    if r.get("non_graphical_left"):
        msgs.append(f"{r['non_graphical_left']} communities with a non-graphical internal degree sequence")
    if r.get("disconnected_communities"):
        msgs.append(f"{r['disconnected_communities']} communities not connected")
    if msgs:
        sizes = sorted((c.size for c in g.communities), reverse=True)
        shown = ", ".join(map(str, sizes[:5])) + (", ..." if len(sizes) > 5 else "")
        realized = f"realized mu_t {g.realized_mu:.4f}"
        if g.realized_mu_weights is not None:
            realized += f", mu_w {g.realized_mu_weights:.4f}"
        warnings.warn(
            "LFR request not met: " + "; ".join(msgs) + f" ({realized}; {g.dropped_edges} stub pairs "
            f"dropped; {len(sizes)} communities of sizes {shown}; see LFRBenchmark.repairs)",
            LFRWarning,
            stacklevel=5,
        )


@dataclass(frozen=True, eq=False)
class LFRBenchmark(ResultBase):
    r"""An LFR benchmark graph (result of :func:`lfr_benchmark`).

    ``to_dict()`` gives every attribute JSON-ready (edges and communities as lists).  The
    object reads as a cover wherever a clustering is expected (``.communities`` over nodes
    ``0..n-1``): ``ari_delta(g, found)`` compares with the ground truth.

    Parameters
    ----------
    n : int
        Number of nodes (ids ``0 .. n-1``).
    edges : ndarray of int64, shape (m, 2)
        Undirected edges, ``u < v``, sorted; no self-loops, no multi-edges.
    weights : ndarray of float64, shape (m,), or None
        Edge weights (``None`` for an unweighted benchmark).
    communities : list of ndarray of int64
        Ground-truth communities (sorted node ids); an overlapping node is in
        ``overlapping_memberships`` of them, every other node in exactly one.
    parameters : dict
        The requested parameters (after validation), plus ``min_degree`` (the real lower end of
        the degree power law) and ``rng`` (the int seed given, the text of a ``SeedSequence``, or
        ``None`` for a ``Generator`` or fresh entropy).
    dropped_edges : int
        Stub pairs that could not be wired without a self-loop or multi-edge.  0 in every regime
        measured (``benchmarks/bench_lfr.py``); a positive count comes with an
        :class:`LFRWarning` giving it.
    realized_mu : float
        Realized topological mixing :math:`\mu_t` (:func:`realized_mixing`).
    realized_mu_weights : float or None
        Realized weight mixing :math:`\mu_w` (``None`` if unweighted).
    repairs : dict
        What it took to realize the request: ``non_graphical_communities`` (internal degree
        sequences that failed Erdős-Gallai after the first assignment) and
        ``non_graphical_left`` (after moving memberships), ``internal_rebuilt`` (communities
        wired exactly by Havel-Hakimi and swaps after the configuration model failed),
        ``external_repaired`` (external pairs left invalid by the configuration model),
        ``external_internal_swaps`` / ``external_converted`` (of those, pairs swapped with an
        internal edge of another community / turned into an internal edge),
        ``internal_moved_outside`` (internal pairs of a node linked to every member of two
        communities it shares with the other node, wired as external edges instead),
        ``communities_reconnected`` / ``disconnected_communities`` (communities whose induced
        subgraph was joined by swaps / is still not connected), ``dropped_internal`` /
        ``dropped_external``, and for weighted graphs ``strength_max_rel_error`` and
        ``strength_nodes_off_5pct`` (per-node internal/external strength against
        ``(1 - mu_w) k^beta`` / ``mu_w k^beta``); ``community_mu_range`` when external pairs had
        to be swapped with internal edges or made internal.

    Examples
    --------
    >>> from agreekit.clustering import lfr_benchmark
    >>> g = lfr_benchmark(300, mu=0.2, average_degree=10, max_degree=30, min_community=20,
    ...                   max_community=60, rng=1)
    >>> g.n, int(g.degrees.sum()) == 2 * len(g.edges), g.weights, g.dropped_edges
    (300, True, None, 0)
    >>> round(g.realized_mu, 3), g.realized_mu_weights
    (0.203, None)
    """

    n: int
    edges: np.ndarray
    weights: np.ndarray | None
    communities: list
    parameters: dict = field(default_factory=dict)
    dropped_edges: int = 0
    realized_mu: float | None = None
    realized_mu_weights: float | None = None
    repairs: dict = field(default_factory=dict)

    @property
    def degrees(self) -> np.ndarray:
        """Node degrees of the realized graph."""
        return np.bincount(self.edges.ravel(), minlength=self.n)

    @property
    def overlapping(self) -> bool:
        """True if some node is in more than one community."""
        return bool(sum(c.size for c in self.communities) > self.n)

    def memberships(self) -> np.ndarray:
        """Number of communities of each node."""
        return np.bincount(np.concatenate(self.communities), minlength=self.n)

    def labels(self) -> np.ndarray:
        """Community index of each node (disjoint benchmarks only)."""
        if self.overlapping:
            raise InputError("communities", "overlap: a node has no single label (use .communities)")
        out = np.empty(self.n, dtype=np.int64)
        for c, members in enumerate(self.communities):
            out[members] = c
        return out

    def mixing(self) -> tuple[float, float | None]:
        """Realized ``(mu_t, mu_w)`` — see :func:`realized_mixing` (``mu_w`` is None if unweighted)."""
        mu_t = realized_mixing(self.n, self.edges, self.communities)
        mu_w = (
            None
            if self.weights is None
            else realized_mixing(self.n, self.edges, self.communities, weights=self.weights)
        )
        return mu_t, mu_w

    def to_networkx(self):
        """A ``networkx.Graph`` with nodes ``0 .. n-1``; node attribute ``"community"`` is the
        frozenset of the node's community indices; edge attribute ``"weight"`` when weighted."""
        import networkx as nx

        G = nx.Graph()
        member: list[list[int]] = [[] for _ in range(self.n)]
        for c, nodes in enumerate(self.communities):
            for v in nodes.tolist():
                member[v].append(c)
        G.add_nodes_from((v, {"community": frozenset(member[v])}) for v in range(self.n))
        if self.weights is None:
            G.add_edges_from(self.edges.tolist())
        else:
            G.add_weighted_edges_from((int(u), int(v), float(w)) for (u, v), w in zip(self.edges, self.weights))
        return G


# ----------------------------------------------------------------------------- distributions
def _powerlaw_table(lo_real: float, hi: int, tau: float) -> tuple[np.ndarray, np.ndarray]:
    """Support and probabilities of the discrete power law ``x^-tau`` on ``[lo_real, hi]``.

    A non-integer lower end ``lo_real = l + f`` keeps the value ``l`` with weight ``1 - f``
    (so the mean moves continuously with ``lo_real``).
    """
    lo = int(np.floor(lo_real))
    x = np.arange(lo, hi + 1, dtype=np.float64)
    p = x ** (-tau)
    p[0] *= 1.0 - (lo_real - lo)
    return x.astype(np.int64), p / p.sum()


def _solve_lower_end(mean: float, hi: int, tau: float, param: str) -> float:
    """Real lower end of the discrete power law on ``[., hi]`` with the given mean (bisection)."""

    def m(lo):
        x, p = _powerlaw_table(lo, hi, tau)
        return float(x @ p)

    a, b = 1.0, float(hi) - 1e-9
    if not m(a) <= mean <= m(b):
        raise InputError(param, f"must lie between {m(a):.4g} and {m(b):.4g} for this maximum and exponent; got {mean}")
    for _ in range(100):
        mid = 0.5 * (a + b)
        if m(mid) < mean:
            a = mid
        else:
            b = mid
    return 0.5 * (a + b)


def _sample(rng: np.random.Generator, x: np.ndarray, p: np.ndarray, size: int) -> np.ndarray:
    cdf = np.cumsum(p)
    cdf[-1] = 1.0
    return x[np.searchsorted(cdf, rng.random(size), side="right")]


def _community_sizes(rng, total: int, lo: int, hi: int, tau: float) -> np.ndarray:
    """Power-law sizes on [lo, hi] summing to ``total`` (draw until enough, then trim)."""
    x, p = _powerlaw_table(float(lo), hi, tau)
    sizes: list[int] = []
    s = 0
    while s < total:
        chunk = _sample(rng, x, p, max(16, int(1.2 * (total - s) / float(x @ p)) + 1)).tolist()
        for v in chunk:
            sizes.append(v)
            s += v
            if s >= total:
                break
    sizes_a = np.asarray(sizes, dtype=np.int64)
    excess = int(sizes_a.sum()) - total
    if excess:
        if sizes_a[-1] - excess >= lo:
            sizes_a[-1] -= excess
        else:  # drop the last draw and hand its missing part to random others with room
            sizes_a = sizes_a[:-1]
            deficit = total - int(sizes_a.sum())
            while deficit > 0:
                room = np.flatnonzero(sizes_a < hi)
                if room.size == 0:
                    raise InputError(
                        "max_community", f"community sizes in [{lo}, {hi}] cannot hold {total} memberships"
                    )
                i = room[rng.integers(room.size)]
                add = min(deficit, hi - int(sizes_a[i]))
                sizes_a[i] += add
                deficit -= add
    return sizes_a


def powerlaw_exponent_mle(values, *, minimum: int | None = None, maximum: int | None = None) -> float:
    r"""Maximum-likelihood exponent of a discrete power law ``x^-tau`` truncated to ``[minimum, maximum]``.

    Maximizes :math:`-\tau \sum_i \log x_i - N \log \sum_{k=\min}^{\max} k^{-\tau}` over τ in
    [-5, 10].  Used to check the degree and community-size distributions of :func:`lfr_benchmark`.

    Parameters
    ----------
    values : array_like of int
        The sample (e.g. node degrees or community sizes); values outside the range are ignored.
    minimum, maximum : int, optional
        The support ``[minimum, maximum]`` of the truncated law; each defaults to the observed
        extreme.

    Returns
    -------
    float
        The maximum-likelihood τ.

    Raises
    ------
    agreekit.InputError
        If fewer than two values fall in the range or the range is not ``1 <= minimum < maximum``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = np.arange(10, 51); p = x ** -2.0
    >>> round(powerlaw_exponent_mle(rng.choice(x, 20000, p=p / p.sum())), 1)
    2.0
    """
    from scipy.optimize import minimize_scalar

    v = _int_array("values", values, ndim=1)
    if v.size == 0:
        raise InputError("values", "is empty")
    lo = int(v.min()) if minimum is None else check_int("minimum", minimum, minimum=1)
    hi = int(v.max()) if maximum is None else check_int("maximum", maximum, minimum=1)
    if hi <= lo:
        raise InputError(
            "maximum" if maximum is not None else "values",
            f"the range [minimum, maximum] = [{lo}, {hi}] must have maximum > minimum",
        )
    check_memory("maximum", 8.0 * (hi - lo + 1), f"a support of {hi - lo + 1} values")
    v = v[(v >= lo) & (v <= hi)]
    if v.size < 2 or lo < 1 or hi <= lo:
        raise InputError("values", "need at least two values on a range [minimum, maximum] with 1 <= minimum < maximum")
    support = np.log(np.arange(lo, hi + 1, dtype=np.float64))
    mean_log = float(np.log(v).mean())

    def nll(tau):
        z = np.logaddexp.reduce(-tau * support)
        return tau * mean_log + z

    return float(minimize_scalar(nll, bounds=(-5.0, 10.0), method="bounded", options={"xatol": 1e-8}).x)


# ----------------------------------------------------------------------------- mixing
def realized_mixing(n: int, edges, communities: Sequence, *, weights=None) -> float:
    """Realized mixing: per node, the share of its edges (or weight) to neighbours with which it
    shares no community, averaged over the nodes of positive degree.

    Parameters
    ----------
    n : int
        Number of nodes (ids ``0 .. n-1``).
    edges : array_like of int, shape (m, 2)
        Undirected edges.
    communities : sequence of array_like of int
        The communities (node-id lists; they may overlap).
    weights : array_like of float, shape (m,), optional
        Edge weights: the weight mixing μ_w instead of the topological μ_t.

    Returns
    -------
    float
        The mean over nodes of positive degree of (external edges or weight) / (all of them).

    Examples
    --------
    >>> realized_mixing(4, [[0, 1], [1, 2], [2, 3]], [[0, 1], [2, 3]])  # node 1: 1/2, node 2: 1/2
    0.25
    """
    n = check_int("n", n, minimum=1, maximum=2**40)
    e = _int_array("edges", edges, ndim=2, below=n)
    if e.size and e.shape[1] != 2:
        raise InputError("edges", f"must have shape (m, 2); got {e.shape}")
    if communities is None or isinstance(communities, (str, bytes)) or not hasattr(communities, "__len__"):
        raise InputError("communities", f"must be a sequence of node-id lists; got {type(communities).__name__}")
    comms = [_int_array("communities", c, ndim=1, below=n) for c in communities]
    if weights is not None:
        if isinstance(weights, np.ma.MaskedArray):
            raise InputError("weights", "is a masked array; give plain numbers")
        w = np.asarray(weights)
        if w.dtype.kind not in "iuf" or w.ndim != 1 or w.shape[0] != len(e.reshape(-1, 2)):
            raise InputError(
                "weights",
                f"must be {len(e.reshape(-1, 2))} real numbers (one per edge); got {w.dtype} of shape {w.shape}",
            )
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise InputError("weights", "must be finite and non-negative")
    per_node = _node_mixing(n, e.reshape(-1, 2), comms, weights=weights)
    if np.all(np.isnan(per_node)):
        raise InputError("edges", "has no edges: the mixing of a graph without edges is undefined")
    return float(np.mean(per_node[~np.isnan(per_node)]))


def _int_array(parameter: str, values, *, ndim: int, below: int | None = None) -> np.ndarray:
    """``values`` as an int64 array of ``ndim`` dimensions (an empty list is allowed), or InputError naming
    ``parameter``: booleans, complex, dates, strings, masked arrays, NaN, infinities and non-integers are not
    ids or counts; with ``below``, every value lies in [0, below)."""
    if isinstance(values, np.ma.MaskedArray):
        raise InputError(parameter, "is a masked array; give plain integers")
    if values is None or isinstance(values, (str, bytes)):
        raise InputError(parameter, f"must be an array of integers; got {type(values).__name__}")
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):
        raise InputError(parameter, "must be a rectangular array of integers") from None
    if arr.size == 0:
        return np.zeros((0,) * ndim if ndim == 1 else (0, 2), dtype=np.int64)
    if arr.dtype.kind == "O":
        if any(
            isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating))
            for x in arr.ravel()
        ):
            raise InputError(parameter, "must contain integers only")
        arr = arr.astype(np.float64)
    if arr.dtype.kind not in "iuf":
        raise InputError(parameter, f"must contain integers; got dtype {arr.dtype}")
    if arr.ndim != ndim:
        raise InputError(parameter, f"must be {ndim}-D; got shape {arr.shape}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.floor(arr)) or np.any(np.abs(arr) > 2.0**62):
            raise InputError(parameter, "must contain integers (no NaN, infinity or fractions)")
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) > 2**62:
        raise InputError(parameter, "holds integers beyond 2**62")
    out = arr.astype(np.int64)
    if below is not None and out.size and (out.min() < 0 or out.max() >= below):
        raise InputError(parameter, f"holds node ids outside 0 .. {below - 1}")
    if below is None and out.size and out.min() < 0:
        raise InputError(parameter, "must contain non-negative integers")
    return out


def _node_mixing(n, edges, communities, *, weights=None) -> np.ndarray:
    """Per-node share of edges (weight) to nodes sharing no community (NaN at degree 0)."""
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    w = np.ones(len(e)) if weights is None else np.asarray(weights, dtype=np.float64)
    import scipy.sparse as sp

    rows = (
        np.concatenate([np.asarray(c, dtype=np.int64) for c in communities])
        if len(communities)
        else np.zeros(0, np.int64)
    )
    cols = (
        np.concatenate([np.full(len(c), i, dtype=np.int64) for i, c in enumerate(communities)])
        if len(communities)
        else np.zeros(0, np.int64)
    )
    M = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n, max(len(communities), 1)))
    shared = np.asarray((M[e[:, 0]].multiply(M[e[:, 1]])).sum(axis=1)).ravel() > 0
    total = np.bincount(e[:, 0], w, n) + np.bincount(e[:, 1], w, n)
    ext = np.bincount(e[~shared, 0], w[~shared], n) + np.bincount(e[~shared, 1], w[~shared], n)
    out = np.full(n, np.nan)
    ok = total > 0
    out[ok] = ext[ok] / total[ok]
    return out


# ----------------------------------------------------------------------------- randomness
def _seed_sequence(rng: Any) -> np.random.SeedSequence:
    """The root :class:`~numpy.random.SeedSequence` of one benchmark from a SPEC 7 ``rng``.

    An int (and ``None``) gives ``SeedSequence(rng)`` exactly as the former ``seed=`` did, so
    the graph of an int seed is unchanged; a ``SeedSequence`` is used as it is; a ``Generator``
    (or ``BitGenerator``) is advanced by drawing 128 bits of entropy for the root, so two calls
    with one generator give two different graphs, reproducibly.  A sequence of non-negative ints
    (accepted by ``SeedSequence``, and by the former ``seed=``) is still accepted.
    """
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if rng is None:
        return np.random.SeedSequence()
    if (
        isinstance(rng, (list, tuple))
        and rng
        and all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and v >= 0 for v in rng)
    ):
        return np.random.SeedSequence([int(v) for v in rng])
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)) and rng >= 0:
        return np.random.SeedSequence(int(rng))
    gen = check_rng(rng, parameter="rng")  # a Generator / BitGenerator, or InputError naming `rng`
    return np.random.SeedSequence(gen.integers(0, 2**32, size=4, dtype=np.uint64).tolist())


#: CPU seconds the first call of a fresh install spends compiling the kernels of a default
#: ``lfr_benchmark(1000)`` (``benchmarks/bench_cold_compile.py``): said on stderr before it starts
_COMPILE_SECONDS = 4
#: the compiled kernels every call needs (the others serve repairs that few requests need;
#: :func:`K.assign_memberships` and :func:`K.delete_edges` run interpreted on small inputs)
_FIRST_KERNELS = (K.wire_groups, K.rebuild_group)


def _kernel(kernel, work):
    """``pick(kernel, work)`` (:mod:`agreekit._jit`: the kernel's Python source while the work is
    small and the kernel is not compiled yet, so a first call does not compile it), with numpy's
    global random state kept: an interpreted kernel's ``np.random.seed`` seeds numpy's legacy
    generator, which compiled kernels leave alone (numba keeps its own state; both give the same
    draws from the same seed, so the results are the same bits either way), and without numpy's
    overflow warnings: the edge-set hash multiplies uint64 scalars modulo 2**64 on purpose, as
    the compiled kernels do."""
    fn = pick(kernel, work)
    if hasattr(fn, "py_func"):  # a numba kernel: compiled, with numba's own random state
        return fn

    def interpreted(*args):
        state = np.random.get_state()
        try:
            with np.errstate(over="ignore"):
                return fn(*args)
        finally:
            np.random.set_state(state)

    return interpreted


def _assign_work(n_slots, k, o_m):
    """Elementary steps of :func:`K.assign_memberships`: two merge sorts of the slots, then per slot a
    binary search, a Fenwick prefix and (mostly one) Fenwick descent over ``k`` communities and a
    membership check of up to ``o_m`` entries."""
    lg_s = max(1.0, np.log2(max(n_slots, 2)))
    lg_k = max(1.0, np.log2(k + 1))
    return n_slots * (2.0 * lg_s + 4.0 * lg_k + 2.0 * o_m)


#: ``progress=None`` shows a bar (when stderr is a terminal) from this many nodes on
_PROGRESS_FROM_N = 1000
_STAGES = ("degrees", "memberships", "communities", "internal edges", "external edges", "weights")


class _Stages:
    """Stage-by-stage progress on stderr (tqdm), or nothing."""

    def __init__(self, show: bool, n: int, weighted: bool):
        self.bar = None
        self.started = False
        if show:
            from tqdm.auto import tqdm

            self.bar = tqdm(
                total=len(_STAGES) - (0 if weighted else 1),
                desc=f"LFR n={n}",
                unit="stage",
                leave=False,
                file=sys.stderr,
            )

    def __call__(self, stage: str) -> None:
        if self.bar is not None:
            if self.started:
                self.bar.update(1)
            self.started = True
            self.bar.set_postfix_str(stage + (" (first use compiles numba kernels)" if "edges" in stage else ""))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.update(self.bar.total - self.bar.n)
            self.bar.close()


def _shown_rng(rng: Any):
    """What ``parameters["rng"]`` records: an int as it is, a SeedSequence or int list as text."""
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        return int(rng)
    if isinstance(rng, (np.random.SeedSequence, list, tuple)):
        return str(rng)
    return None


def _show_progress(progress: Any, n: int) -> bool:
    if progress is None:
        isatty = getattr(sys.stderr, "isatty", None)
        return bool(n >= _PROGRESS_FROM_N and callable(isatty) and isatty())
    if not isinstance(progress, (bool, np.bool_)):
        raise InputError("progress", f"must be None (auto), True or False; got {progress!r}")
    return bool(progress)


# ----------------------------------------------------------------------------- generator
def _iv(
    n,
    tau1,
    tau2,
    mu,
    average_degree,
    max_degree,
    min_community,
    max_community,
    mu_weights,
    beta,
    overlapping_nodes,
    overlapping_memberships,
):
    n = check_int("n", n, minimum=4)
    # exponents beyond 100 make k**-tau underflow to 0 for every k > 1 (the power law is degenerate)
    tau1 = check_float("tau1", tau1, minimum=0.0, maximum=100.0, inclusive=False)
    tau2 = check_float("tau2", tau2, minimum=0.0, maximum=100.0, inclusive=False)
    mu = check_float("mu", mu, minimum=0.0, maximum=1.0)
    max_degree = check_int("max_degree", max_degree, minimum=2, maximum=n - 1)
    average_degree = check_float("average_degree", average_degree, minimum=1.0, maximum=float(max_degree))

    check_memory(
        "n",
        n * (96.0 + 48.0 * average_degree),
        f"an LFR graph of {n} nodes with average degree "
        f"{average_degree:g} (about {96 + 48 * average_degree:.0f} bytes per node)",
    )
    min_community = check_int("min_community", min_community, minimum=2, maximum=n)
    max_community = check_int("max_community", max_community, minimum=min_community, maximum=n)
    if mu_weights is not None:
        mu_weights = check_float("mu_weights", mu_weights, minimum=0.0, maximum=1.0)
        if mu_weights > 0 and mu == 0:
            raise InputError("mu_weights", "must be 0 when mu = 0 (no external edges carry the external weight)")
        if mu_weights < 1 and mu == 1:
            raise InputError("mu_weights", "must be 1 when mu = 1 (no internal edges carry the internal weight)")
        if 0 < mu < 1 and mu_weights in (0.0, 1.0):
            side = "external" if mu_weights == 0 else "internal"
            raise InputError(
                "mu_weights",
                f"must lie strictly between 0 and 1 when 0 < mu < 1: {mu_weights:g} "
                f"gives the {side} edges weight 0 (use e.g. "
                f"{1e-3 if mu_weights == 0 else 1 - 1e-3:g})",
            )
    beta = check_float("beta", beta, minimum=0.0, inclusive=False)
    overlapping_nodes = check_int("overlapping_nodes", overlapping_nodes, minimum=0, maximum=n)
    overlapping_memberships = check_int("overlapping_memberships", overlapping_memberships, minimum=1)
    if overlapping_nodes > 0 and overlapping_memberships < 2:
        raise InputError(
            "overlapping_memberships", f"must be >= 2 when overlapping_nodes > 0; got {overlapping_memberships}"
        )
    return (
        n,
        tau1,
        tau2,
        mu,
        average_degree,
        max_degree,
        min_community,
        max_community,
        mu_weights,
        beta,
        overlapping_nodes,
        overlapping_memberships,
    )


@renamed_parameters(seed="rng")
def lfr_benchmark(
    n,
    *,
    tau1=2.0,
    tau2=1.5,
    mu=0.1,
    average_degree=20,
    max_degree=50,
    min_community=20,
    max_community=100,
    mu_weights=None,
    beta=1.5,
    overlapping_nodes=0,
    overlapping_memberships=1,
    rng=None,
    progress=None,
) -> LFRBenchmark:
    r"""LFR benchmark graph (Lancichinetti & Fortunato 2009), optionally weighted and overlapping.

    Parameters
    ----------
    n : int
        Number of nodes.
    tau1 : float
        Exponent of the degree distribution :math:`P(k) \propto k^{-\tau_1}`.
    tau2 : float
        Exponent of the community-size distribution :math:`P(s) \propto s^{-\tau_2}`.
    mu : float
        Topological mixing :math:`\mu_t`: each node has a share ``mu`` of its edges to nodes with
        which it shares no community.
    average_degree : float
        Mean degree (the power law's lower end is solved for it).
    max_degree : int
        Largest degree.
    min_community, max_community : int
        Range of community sizes.
    mu_weights : float or None
        Weight mixing :math:`\mu_w` (share of each node's strength on external edges); ``None``
        makes an unweighted graph.
    beta : float
        Strength exponent: node strength :math:`s_i = k_i^\beta` (weighted graphs only).
    overlapping_nodes : int
        Number of nodes :math:`o_n` in more than one community.
    overlapping_memberships : int
        Number of communities :math:`o_m` of each overlapping node (>= 2 when ``overlapping_nodes > 0``).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Randomness (scipy SPEC 7).  An int ``s`` seeds ``SeedSequence(s)`` (the same graph as
        the former ``seed=s``); a ``Generator`` is advanced (two calls give two graphs);
        ``None`` draws fresh OS entropy.  ``seed=`` is its deprecated spelling.
    progress : None or bool
        Stage-by-stage progress bar on stderr (tqdm).  ``None`` (default): shown when stderr is
        a terminal and ``n >= 1000``; ``False``: never; ``True``: always.  The first call in a
        fresh install compiles the numba kernels (a few seconds) and says so in one line on
        stderr first, unless ``progress=False`` or ``AGREEKIT_QUIET=1``.

    Returns
    -------
    LFRBenchmark

    Raises
    ------
    InputError
        Naming the parameter at fault, for values out of range (``rng='abc'`` or ``-1`` names
        ``rng``) and for combinations that cannot be realized (e.g. a node whose internal degree exceeds every community it could join, a
        mean degree out of reach of the degree range, more memberships than communities).

    Warns
    -----
    LFRWarning
        When the graph misses the request (the figures are in the message and in
        ``realized_mu``, ``realized_mu_weights``, ``dropped_edges``, ``repairs``): e.g. two
        communities of very different sizes with a large ``mu`` (the small one cannot take the
        big one's external edges), or ``mu_weights`` with one or two external edges per node.

    Notes
    -----
    Realized mixing (:func:`realized_mixing`) matches ``mu`` up to the random rounding of
    ``mu k_i`` (and ``mu_weights`` up to the least-squares fit): within 0.01 in every regime of
    ``benchmarks/bench_lfr.py`` — two equal communities, many small ones (sizes 10-50, with and
    without overlap), μ = 0 — with no dropped edge and the degree tail within 2 standard errors
    of the power law, whereas networkx's ``LFR_benchmark_graph`` overshoots ``mu`` (0.46
    realized for 0.3 requested).  ``mu_weights`` must lie strictly between 0 and 1 when
    ``0 < mu < 1`` (0 or 1 would give one kind of edge weight 0).

    References
    ----------
    .. [1] A. Lancichinetti, S. Fortunato, F. Radicchi, "Benchmark graphs for testing community
       detection algorithms", Phys. Rev. E 78, 046110 (2008). :doi:`10.1103/PhysRevE.78.046110`
    .. [2] A. Lancichinetti, S. Fortunato, "Benchmarks for testing community detection
       algorithms on directed and weighted graphs with overlapping communities", Phys. Rev. E 80,
       016118 (2009). :doi:`10.1103/PhysRevE.80.016118`

    Examples
    --------
    >>> from agreekit.clustering.lfr import lfr_benchmark
    >>> g = lfr_benchmark(1000, mu=0.3, rng=1)
    >>> g.edges.shape[1], len(g.weights) if g.weights is not None else None
    (2, None)
    >>> mu_t, _ = g.mixing()
    >>> abs(mu_t - 0.3) < 0.02
    True
    >>> w = lfr_benchmark(1000, mu=0.5, mu_weights=0.2, overlapping_nodes=100, overlapping_memberships=2, rng=2)
    >>> int((w.memberships() == 2).sum()), round(w.mixing()[1], 2)
    (100, 0.2)
    """
    (n, tau1, tau2, mu, average_degree, max_degree, min_community, max_community, mu_weights, beta, o_n, o_m) = _iv(
        n,
        tau1,
        tau2,
        mu,
        average_degree,
        max_degree,
        min_community,
        max_community,
        mu_weights,
        beta,
        overlapping_nodes,
        overlapping_memberships,
    )
    root = rng
    ss = _seed_sequence(rng)
    stage = _Stages(_show_progress(progress, n), n, mu_weights is not None)
    if progress is None or progress:  # False: nothing on stderr
        compile_notice("the LFR kernels", _COMPILE_SECONDS, _FIRST_KERNELS)
    try:
        return _generate(
            n,
            tau1,
            tau2,
            mu,
            average_degree,
            max_degree,
            min_community,
            max_community,
            mu_weights,
            beta,
            o_n,
            o_m,
            ss,
            root,
            stage,
        )
    finally:
        stage.close()


def _generate(
    n,
    tau1,
    tau2,
    mu,
    average_degree,
    max_degree,
    min_community,
    max_community,
    mu_weights,
    beta,
    o_n,
    o_m,
    ss,
    root,
    stage,
) -> LFRBenchmark:
    stage("degrees")
    # the first six children are those of the former ``ss.spawn(6)`` (unchanged graphs where no
    # repair is needed); the last two seed the exact-realization steps
    s_deg, s_comm, s_assign, s_parity, s_int, s_ext, s_graphical, s_fix = ss.spawn(8)
    notes: dict[str, int] = {}  # LFRBenchmark.repairs, in the order the steps fill it

    # 1. degrees; 2. memberships per node and their internal degrees (one generator for both)
    k_lo = _solve_lower_end(average_degree, max_degree, tau1, "average_degree")
    rng = np.random.default_rng(s_deg)
    deg, k_out, k_in = _degrees(rng, n, mu, k_lo, max_degree, tau1)
    stage("memberships")
    slot_node, slot_demand = _membership_slots(rng, n, mu, mu_weights, o_n, o_m, deg, k_out, k_in, max_community)

    # 3. community sizes and the community of every membership slot
    stage("communities")
    sizes, slot_comm = _assign_communities(
        np.random.default_rng(s_comm),
        _kernel_seed(s_assign),
        slot_node,
        slot_demand,
        n,
        o_m,
        min_community,
        max_community,
        tau2,
    )
    # 4. even internal stub count per community; 4b. graphical internal degree sequences
    slots = _Slots.by_community(slot_node, slot_comm, slot_demand, sizes.size)
    _fix_parity(np.random.default_rng(s_parity), slots, sizes, deg, k_out, mu, mu_weights, max_degree)
    slots = _make_graphical(slots, sizes, n, _kernel_seed(s_graphical), notes)

    # 5. wiring: internal edges, then external ones (both in one edge set)
    membership = _membership_table(slots, n, o_m)
    table = K.new_edge_set(int(deg.sum()) // 2)
    stage("internal edges")
    fix_seeds = s_fix.generate_state(sizes.size + 1, dtype=np.uint32)
    a1, b1, int_left_a, int_left_b = _wire_internal(slots, membership, table, n, _kernel_seed(s_int), fix_seeds, notes)
    stage("external edges")
    a1, b1, a2, b2 = _wire_external(
        k_out, int_left_a, int_left_b, a1, b1, membership, table, n, deg, _kernel_seed(s_ext), int(fix_seeds[-1]), notes
    )
    dropped = notes["dropped_internal"] + notes["dropped_external"]
    a = np.concatenate([a1, a2])
    b = np.concatenate([b1, b2])
    internal = np.concatenate([np.ones(a1.size, bool), np.zeros(a2.size, bool)])
    communities = slots.communities()
    # 5b. connected communities
    a, b, n_merged, n_disc = _connect_communities(
        n, a, b, communities, membership, table, np.random.default_rng(int(fix_seeds[0]) + 1)
    )
    notes["communities_reconnected"], notes["disconnected_communities"] = n_merged, n_disc
    order = np.lexsort((b, a))
    a, b, internal = a[order], b[order], internal[order]
    edges = np.column_stack([a, b]).astype(np.int64)

    # 6. weights
    weights = None
    if mu_weights is not None:
        stage("weights")
        weights = _edge_weights(a, b, edges, internal, n, mu_weights, beta, notes)

    params = dict(
        n=n,
        tau1=tau1,
        tau2=tau2,
        mu=mu,
        average_degree=average_degree,
        max_degree=max_degree,
        min_community=min_community,
        max_community=max_community,
        mu_weights=mu_weights,
        beta=beta,
        overlapping_nodes=o_n,
        overlapping_memberships=o_m,
        min_degree=k_lo,
        rng=_shown_rng(root),
    )
    mu_t = realized_mixing(n, edges, communities)
    if notes["external_internal_swaps"] or notes["external_converted"]:
        notes["community_mu_range"] = _community_mu_range(n, edges, communities)
    mu_w = None if weights is None else realized_mixing(n, edges, communities, weights=weights)
    g = LFRBenchmark(
        n=n,
        edges=edges,
        weights=weights,
        communities=communities,
        parameters=params,
        dropped_edges=int(dropped),
        realized_mu=mu_t,
        realized_mu_weights=mu_w,
        repairs=notes,
    )
    _warn_if_missed(g)  # called from here: its stacklevel points at the caller of lfr_benchmark
    return g


def _kernel_seed(s: np.random.SeedSequence) -> int:
    """The ``np.random.seed`` value of a numba kernel, from its own SeedSequence child."""
    return int(s.generate_state(1, dtype=np.uint32)[0])


def _degrees(rng, n, mu, k_lo, max_degree, tau1):
    """Step 1: degrees from the power law on ``[k_lo, max_degree]`` (even sum), split into
    ``k_out`` external stubs (``mu k`` randomly rounded) and ``k_in`` internal ones."""
    x, p = _powerlaw_table(k_lo, max_degree, tau1)
    deg = _sample(rng, x, p, n)
    if deg.sum() % 2:
        i = int(rng.integers(n))
        deg[i] += 1 if deg[i] < max_degree else -1
    k_out = np.floor(mu * deg).astype(np.int64)
    k_out += rng.random(n) < (mu * deg - k_out)
    k_in = deg - k_out
    return deg, k_out, k_in


def _membership_slots(rng, n, mu, mu_weights, o_n, o_m, deg, k_out, k_in, max_community):
    """Step 2: the memberships of every node (``o_m`` for ``o_n`` random nodes, else 1) as slots,
    each with its share of the node's internal degree.  ``k_out`` and ``k_in`` are adjusted in
    place so that weighted nodes keep an external edge and every membership an internal one.
    Returns ``(slot_node, slot_demand)`` (slots of a node consecutive, nodes in order)."""
    members = np.ones(n, dtype=np.int64)
    if o_n:
        members[rng.choice(n, size=o_n, replace=False)] = o_m
    if mu_weights is not None and 0 < mu_weights and mu > 0:  # every node carries external strength
        lift = (k_out == 0) & (deg >= 2)
        k_out[lift] += 1
        k_in[lift] -= 1
    if mu < 1:  # every membership gets an internal edge (a node with none is not in the community)
        short = np.minimum(np.maximum(members - k_in, 0), k_out)
        k_in += short
        k_out -= short
    slot_node = np.repeat(np.arange(n, dtype=np.int64), members)
    first = np.concatenate([[0], np.cumsum(members)[:-1]])
    pos = np.arange(slot_node.size) - first[slot_node]
    slot_demand = k_in[slot_node] // members[slot_node] + (pos < (k_in[slot_node] % members[slot_node]))
    slot_demand = slot_demand.astype(np.int64)
    need = int(slot_demand.max())
    if need >= max_community:
        raise InputError(
            "max_community",
            f"must exceed the largest internal degree {need} "
            f"(about (1 - mu) * max_degree / overlapping_memberships); got {max_community}",
        )
    return slot_node, slot_demand


def _assign_communities(rng_c, assign_seed, slot_node, slot_demand, n, o_m, min_community, max_community, tau2):
    """Step 3: community sizes (sorted decreasingly: the kernel's eligible communities form a
    prefix) and the community of every slot (:func:`K.assign_memberships`).  Returns
    ``(sizes, slot_comm)``."""
    need = int(slot_demand.max())
    sizes = np.sort(_community_sizes(rng_c, int(slot_node.size), min_community, max_community, tau2))[::-1].copy()
    if o_m > sizes.size:
        raise InputError("overlapping_memberships", f"is {o_m} but there are only {sizes.size} communities")
    assign = _kernel(K.assign_memberships, _assign_work(slot_node.size, sizes.size, o_m))
    slot_comm, ok = assign(slot_node, slot_demand, sizes, n, o_m, assign_seed)
    if not ok:
        raise InputError(
            "max_community",
            f"communities of {min_community}-{max_community} nodes cannot hold the "
            f"internal degrees (largest {need}); raise max_community or mu, or lower "
            "max_degree",
        )
    return sizes, slot_comm


@dataclass
class _Slots:
    """Membership slots sorted by (community, node): slot j puts node ``node[j]`` in community
    ``comm[j]`` with internal degree ``demand[j]``; community c holds slots ``ptr[c]:ptr[c + 1]``."""

    node: np.ndarray
    comm: np.ndarray
    demand: np.ndarray
    ptr: np.ndarray

    @classmethod
    def by_community(cls, node, comm, demand, k) -> "_Slots":
        order = np.lexsort((node, comm))
        comm_s = comm[order]
        return cls(node[order], comm_s, demand[order], np.searchsorted(comm_s, np.arange(k + 1)))

    def communities(self) -> list[np.ndarray]:
        """The member nodes of each community (sorted)."""
        return [self.node[self.ptr[c] : self.ptr[c + 1]].copy() for c in range(self.ptr.size - 1)]


def _fix_parity(rng_p, slots, sizes, deg, k_out, mu, mu_weights, max_degree) -> None:
    """Step 4: every community's internal stub count made even.  In a community with an odd sum,
    a member (in random order) moves one stub between internal and external; with ``mu = 0`` no
    external stub may appear, so its degree moves by one instead.  Changes ``slots.demand``,
    ``k_out`` and ``deg`` in place."""
    node_s, demand_s, ptr = slots.node, slots.demand, slots.ptr
    sums = np.add.reduceat(demand_s, ptr[:-1]) if demand_s.size else np.zeros(0, np.int64)
    keep_out = 1 if (mu_weights is not None and mu_weights > 0) else 0
    for c in np.flatnonzero(sums % 2):
        lo, hi = ptr[c], ptr[c + 1]
        for j in lo + rng_p.permutation(hi - lo):
            v = node_s[j]
            can_add = (k_out[v] > keep_out if mu > 0 else deg[v] < max_degree) and demand_s[j] + 1 < sizes[c]
            can_sub = demand_s[j] > 1
            if can_add and (not can_sub or rng_p.random() < 0.5):
                step = 1
            elif can_sub:
                step = -1
            else:
                continue
            demand_s[j] += step
            if mu > 0:
                k_out[v] -= step
            else:
                deg[v] += step
            break
    if k_out.sum() % 2:  # cannot happen (total degree even, every community even)
        raise RuntimeError("internal error: odd number of external stubs")


def _make_graphical(slots, sizes, n, seed, notes) -> "_Slots":
    """Step 4b: communities whose internal degree sequence fails Erdős-Gallai exchange slots with
    others (:func:`K.make_graphical`); records ``non_graphical_communities`` / ``_left``."""
    k = sizes.size
    ex = np.array([_eg_excess(slots.demand[slots.ptr[c] : slots.ptr[c + 1]]) for c in range(k)])
    notes["non_graphical_communities"] = int((ex > 0).sum())
    if ex.any():
        K.make_graphical(slots.node, slots.comm, slots.demand, sizes, n, seed, 200)
        slots = _Slots.by_community(slots.node, slots.comm, slots.demand, k)
        ex = np.array([_eg_excess(slots.demand[slots.ptr[c] : slots.ptr[c + 1]]) for c in range(k)])
    notes["non_graphical_left"] = int((ex > 0).sum())
    return slots


def _eg_excess(d: np.ndarray) -> int:
    """:func:`K.eg_excess` in numpy (exact integers; the kernel serves :func:`K.make_graphical`):
    the summed Erdős-Gallai excess of the degree sequence ``d``, 0 iff it is graphical."""
    x = -np.sort(-np.asarray(d, dtype=np.int64))
    s = x.size
    k = np.arange(1, s + 1, dtype=np.int64)
    prefix = np.cumsum(x)
    suffix = np.concatenate([np.cumsum(x[::-1])[::-1], [0]])
    j = np.searchsorted(-x, -k, side="right")  # number of entries >= k
    cnt = np.where(j > k, j - k, 0)
    rhs = k * (k - 1) + k * cnt + suffix[np.maximum(j, k)]
    return int(np.maximum(prefix - rhs, 0).sum())


def _community_roots(a, b, membership, n) -> np.ndarray:
    """Component labels of the membership slots ``(node, j)`` (n x o_m, -1 where no slot): two
    slots of one community are joined by every edge whose ends both belong to it, so slots of one
    community with equal labels are in one component of its induced subgraph."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    o_m = membership.shape[1]
    rows, cols = [], []
    for i in range(o_m):
        cu = membership[a, i]
        for j in range(o_m):
            hit = (cu >= 0) & (cu == membership[b, j])
            rows.append(a[hit] * o_m + i)
            cols.append(b[hit] * o_m + j)
    r, c = np.concatenate(rows), np.concatenate(cols)
    graph = coo_matrix((np.ones(r.size, dtype=np.int8), (r, c)), shape=(n * o_m, n * o_m))
    labels = connected_components(graph, directed=False)[1].reshape(n, o_m).astype(np.int64)
    return np.where(membership >= 0, labels, -1)


def _membership_table(slots, n, o_m) -> np.ndarray:
    """``membership[v, j]``: the j-th community of node v (by index), -1 after its last."""
    membership = np.full((n, o_m), -1, dtype=np.int64)
    filled = np.zeros(n, dtype=np.int64)
    for v, c in zip(slots.node.tolist(), slots.comm.tolist()):
        membership[v, filled[v]] = c
        filled[v] += 1
    return membership


def _wire_internal(slots, membership, table, n, seed, fix_seeds, notes):
    """Step 5, internal edges: a configuration model per community (:func:`K.wire_groups`); a
    community whose invalid pairs it cannot repair is rebuilt exactly (:func:`_rebuild_community`).
    Returns ``(a, b, left_a, left_b)``: the internal edges and the pairs to wire externally
    instead; records ``internal_rebuilt``, ``internal_moved_outside``, ``dropped_internal``."""
    node_s, demand_s, ptr = slots.node, slots.demand, slots.ptr
    int_stubs = np.repeat(node_s, demand_s)
    int_ptr = (
        np.concatenate([[0], np.cumsum(np.add.reduceat(demand_s, ptr[:-1]))]).astype(np.int64)
        if demand_s.size
        else np.zeros(1, np.int64)
    )
    a1, b1, g1, bad_a, _, bad_g = K.wire_groups(int_stubs, int_ptr, membership, False, table, n, seed, 100)
    notes["internal_rebuilt"] = 0
    dropped = 0
    int_left_a = int_left_b = np.zeros(0, np.int64)
    if bad_a.size:  # a configuration model that could not be repaired: build the community exactly
        redo = np.unique(bad_g)
        keep = ~np.isin(g1, redo)
        _kernel(K.delete_edges, 4 * int((~keep).sum()))(table, a1[~keep], b1[~keep], n)
        parts_a, parts_b = [a1[keep]], [b1[keep]]
        left_a, left_b = [], []
        for c in redo.tolist():
            ra, rb, la, lb, n_dropped = _rebuild_community(slots, c, membership, table, n, int(fix_seeds[c]))
            parts_a.append(ra)
            parts_b.append(rb)
            left_a.append(la)
            left_b.append(lb)
            dropped += n_dropped
        a1, b1 = np.concatenate(parts_a), np.concatenate(parts_b)
        int_left_a, int_left_b = np.concatenate(left_a), np.concatenate(left_b)
        notes["internal_moved_outside"] = int(int_left_a.size)
        notes["internal_rebuilt"] = int(redo.size)
    notes["dropped_internal"] = dropped
    return a1, b1, int_left_a, int_left_b


def _rebuild_community(slots, c, membership, table, n, seed):
    """Community ``c`` wired exactly (:func:`K.rebuild_group`), randomized again (up to four
    tries) while a pair clashes with another community's edges.  Returns ``(a, b, left_a,
    left_b, dropped)``: its edges, the pairs of two distinct nodes still clashing (an edge they
    already have in another community they share, a node linked to every member of both: to be
    wired externally) and the number of stub pairs dropped (a node paired with itself)."""
    lo, hi = slots.ptr[c], slots.ptr[c + 1]
    for attempt in range(4):  # a clash with another community's edges: another randomization
        ra, rb, xa, xb = K.rebuild_group(
            slots.node[lo:hi], slots.demand[lo:hi], table, membership, n, (seed + attempt) % 2**32, 10
        )
        if xa.size == 0 or attempt == 3:
            break
        _kernel(K.delete_edges, 4 * ra.size)(table, ra, rb, n)
    return ra, rb, xa[xa != xb], xb[xa != xb], int((xa == xb).sum()) // 2


def _wire_external(k_out, int_left_a, int_left_b, a1, b1, membership, table, n, deg, seed, repair_seed, notes):
    """Step 5, external edges: a configuration model over all external stubs; its invalid pairs
    and the internal pairs moved outside go to :func:`K.repair_external`, which may also swap
    them with internal edges ``(a1, b1)`` or make them internal.  Returns ``(a1, b1, a2, b2)``
    (internal and external edges); records ``external_repaired``, ``external_internal_swaps``,
    ``external_converted``, ``dropped_external``."""
    ext_stubs = np.repeat(np.arange(n, dtype=np.int64), k_out)
    a2, b2, _, xa, xb, _ = K.wire_groups(
        ext_stubs, np.array([0, ext_stubs.size], dtype=np.int64), membership, True, table, n, seed, 100
    )
    notes["external_repaired"] = int(xa.size)
    xa, xb = np.concatenate([xa, int_left_a]), np.concatenate([xb, int_left_b])
    notes["external_internal_swaps"] = notes["external_converted"] = 0
    dropped = 0
    if xa.size:
        a2, b2, a1, b1, xa, xb, n_sw, n_cv = K.repair_external(
            xa, xb, a2, b2, a1, b1, table, membership, n, deg.astype(np.float64), repair_seed, 200
        )
        notes["external_internal_swaps"], notes["external_converted"] = int(n_sw), int(n_cv)
        dropped = int(xa.size)
    notes["dropped_external"] = dropped
    return a1, b1, a2, b2


def _edge_weights(a, b, edges, internal, n, mu_weights, beta, notes) -> np.ndarray:
    """Step 6: edge weights fitting the strengths ``k^beta`` split ``1 - mu_w`` inside and ``mu_w``
    outside (:func:`K.fit_weights`); records ``strength_max_rel_error`` / ``_nodes_off_5pct``."""
    d = np.bincount(edges.ravel(), minlength=n).astype(np.float64)
    strength = d**beta
    t_in, t_out = (1.0 - mu_weights) * strength, mu_weights * strength
    weights = K.fit_weights(a, b, internal, t_in, t_out, n, 500, 1e-6, 0.01)
    s_in = np.bincount(a[internal], weights[internal], n) + np.bincount(b[internal], weights[internal], n)
    s_out = np.bincount(a[~internal], weights[~internal], n) + np.bincount(b[~internal], weights[~internal], n)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.nan_to_num(np.maximum(np.abs(s_in - t_in) / t_in, np.abs(s_out - t_out) / t_out), nan=0.0)
    notes["strength_max_rel_error"] = round(float(rel.max()), 6) if n else 0.0
    notes["strength_nodes_off_5pct"] = int((rel > 0.05).sum())
    return weights


def _community_mu_range(n, edges, communities) -> list[float]:
    """``[min, max]`` over communities of their members' mean mixing (rounded to 6 decimals)."""
    per_node = _node_mixing(n, edges, communities)
    cm = [float(per_node[c].mean()) for c in communities]
    return [round(min(cm), 6), round(max(cm), 6)]


def _connect_communities(n, a, b, communities, membership, table, rng, max_tries=10):
    """Join the components of each community's induced subgraph by double-edge swaps.

    A swap takes an edge ``(p, q)`` of a smaller component and ``(r, s)`` of the largest one
    (both inside the community and in no other community shared by their ends) and makes
    ``(p, r), (q, s)``: degrees are kept; it is kept only if the community has fewer components
    afterwards (it may not, when both edges are bridges).  Returns the new edge arrays, the number
    of communities joined and the number still disconnected.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    a, b = a.copy(), b.copy()
    roots = _community_roots(a, b, membership, n)  # components of every community at once
    merged = left = 0
    local = np.full(n, -1, dtype=np.int64)
    for c, nodes in enumerate(communities):
        r = roots[nodes, np.argmax(membership[nodes] == c, axis=1)]
        if np.unique(r).size <= 1:
            continue
        in_c = np.zeros(n, dtype=bool)
        in_c[nodes] = True
        local[nodes] = np.arange(nodes.size)
        sel = np.flatnonzero(in_c[a] & in_c[b])

        def components():
            A = coo_matrix((np.ones(sel.size), (local[a[sel]], local[b[sel]])), shape=(nodes.size, nodes.size))
            return connected_components(A, directed=False)

        ncomp, lab = components()
        budget = max_tries * ncomp
        while ncomp > 1 and budget > 0:
            comp_edges = lab[local[a[sel]]]
            counts = np.bincount(comp_edges, minlength=ncomp)
            big = int(np.argmax(counts))
            small = np.flatnonzero((counts > 0) & (np.arange(ncomp) != big))
            if small.size == 0:  # a member without any internal edge: no swap can reach it
                break
            X = int(small[rng.integers(small.size)])
            ex_, ey_ = sel[comp_edges == X], sel[comp_edges == big]
            budget -= 1
            e = int(ex_[rng.integers(ex_.size)])
            f = int(ey_[rng.integers(ey_.size)])
            p_, q_ = int(a[e]), int(b[e])
            r_, s_ = (int(a[f]), int(b[f])) if rng.random() < 0.5 else (int(b[f]), int(a[f]))
            if K.shared_count(membership, p_, q_) > 1 or K.shared_count(membership, r_, s_) > 1:
                continue
            if p_ == r_ or q_ == s_ or K.has_edge(table, p_, r_, n) or K.has_edge(table, q_, s_, n):
                continue
            old = (a[e], b[e], a[f], b[f])
            a[e], b[e] = min(p_, r_), max(p_, r_)
            a[f], b[f] = min(q_, s_), max(q_, s_)
            nc2, lab2 = components()
            if nc2 < ncomp:
                K.move_edge(table, p_, q_, p_, r_, n)
                K.move_edge(table, r_, s_, q_, s_, n)
                ncomp, lab = nc2, lab2
            else:
                a[e], b[e], a[f], b[f] = old
        local[nodes] = -1
        if ncomp <= 1:
            merged += 1
        else:
            left += 1
    return a, b, merged, left
