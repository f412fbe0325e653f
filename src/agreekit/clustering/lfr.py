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
   community needs at least d other members);
5. internal stubs are wired inside each community and external stubs among nodes that share no
   community, both as configuration models repaired by double-edge swaps (no self-loops, no
   multi-edges; a rare unrepairable pair is dropped);
6. weighted graphs (``mu_weights`` given): node strengths ``s_i = k_i^beta`` split into
   ``(1 - mu_w) s_i`` on internal and ``mu_w s_i`` on external edges; edge weights are the
   non-negative least-squares fit of these per-node sums (the paper minimizes the same
   squared deviations, by a different heuristic).

Differences from the authors' C++ program: communities are filled greedily by decreasing internal
degree (the program places nodes at random and evicts when a community is full); the
degree-sequence lower end is matched exactly rather than by a continuous approximation.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agreekit._api import ResultBase, check_rng, renamed_parameters
from agreekit._validation import InputError, check_float, check_int
from agreekit.clustering import _lfr_kernels as K

__all__ = ["LFRBenchmark", "lfr_benchmark", "realized_mixing", "powerlaw_exponent_mle"]


@dataclass(frozen=True, eq=False)
class LFRBenchmark(ResultBase):
    """An LFR benchmark graph (result of :func:`lfr_benchmark`).

    Attributes
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
        Stub pairs that could not be wired without a self-loop or multi-edge (usually 0).

    ``to_dict()`` gives every attribute JSON-ready (edges and communities as lists).  The
    object reads as a cover wherever a clustering is expected (``.communities`` over nodes
    ``0..n-1``): ``ari_delta(g, found)`` compares with the ground truth.
    """

    n: int
    edges: np.ndarray
    weights: np.ndarray | None
    communities: list
    parameters: dict = field(default_factory=dict)
    dropped_edges: int = 0

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
        mu_w = None if self.weights is None else realized_mixing(self.n, self.edges, self.communities,
                                                                 weights=self.weights)
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
        raise InputError(param, f"must lie between {m(a):.4g} and {m(b):.4g} for this maximum and exponent; "
                                f"got {mean}")
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
                    raise InputError("max_community", f"community sizes in [{lo}, {hi}] cannot hold "
                                                      f"{total} memberships")
                i = room[rng.integers(room.size)]
                add = min(deficit, hi - int(sizes_a[i]))
                sizes_a[i] += add
                deficit -= add
    return sizes_a


def powerlaw_exponent_mle(values, *, minimum: int | None = None, maximum: int | None = None) -> float:
    """Maximum-likelihood exponent of a discrete power law ``x^-tau`` truncated to ``[minimum, maximum]``.

    Values outside the range are ignored; the range defaults to the observed one.  Used to check
    the degree and community-size distributions of :func:`lfr_benchmark`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = np.arange(10, 51); p = x ** -2.0
    >>> round(powerlaw_exponent_mle(rng.choice(x, 20000, p=p / p.sum())), 1)
    2.0
    """
    from scipy.optimize import minimize_scalar

    v = np.asarray(values, dtype=np.int64)
    lo = int(v.min()) if minimum is None else int(minimum)
    hi = int(v.max()) if maximum is None else int(maximum)
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

    Examples
    --------
    >>> realized_mixing(4, [[0, 1], [1, 2], [2, 3]], [[0, 1], [2, 3]])  # node 1: 1/2, node 2: 1/2
    0.25
    """
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    w = np.ones(len(e)) if weights is None else np.asarray(weights, dtype=np.float64)
    import scipy.sparse as sp

    rows = np.concatenate([np.asarray(c, dtype=np.int64) for c in communities]) if len(communities) else \
        np.zeros(0, np.int64)
    cols = np.concatenate([np.full(len(c), i, dtype=np.int64) for i, c in enumerate(communities)]) if \
        len(communities) else np.zeros(0, np.int64)
    M = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n, max(len(communities), 1)))
    shared = np.asarray((M[e[:, 0]].multiply(M[e[:, 1]])).sum(axis=1)).ravel() > 0
    total = np.bincount(e[:, 0], w, n) + np.bincount(e[:, 1], w, n)
    ext = np.bincount(e[~shared, 0], w[~shared], n) + np.bincount(e[~shared, 1], w[~shared], n)
    ok = total > 0
    return float(np.mean(ext[ok] / total[ok]))


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
    if isinstance(rng, (list, tuple)) and rng and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and v >= 0 for v in rng):
        return np.random.SeedSequence([int(v) for v in rng])
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)) and rng >= 0:
        return np.random.SeedSequence(int(rng))
    gen = check_rng(rng, parameter="rng")  # a Generator / BitGenerator, or InputError naming `rng`
    return np.random.SeedSequence(gen.integers(0, 2**32, size=4, dtype=np.uint64).tolist())


#: ``progress=None`` shows a bar (when stderr is a terminal) from this many nodes on
PROGRESS_FROM_N = 1000
_STAGES = ("degrees", "memberships", "communities", "internal edges", "external edges", "weights")


class _Stages:
    """Stage-by-stage progress on stderr (tqdm), or nothing."""

    def __init__(self, show: bool, n: int, weighted: bool):
        self.bar = None
        self.started = False
        if show:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=len(_STAGES) - (0 if weighted else 1), desc=f"LFR n={n}", unit="stage",
                            leave=False, file=sys.stderr)

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
        return bool(n >= PROGRESS_FROM_N and callable(isatty) and isatty())
    if not isinstance(progress, (bool, np.bool_)):
        raise InputError("progress", f"must be None (auto), True or False; got {progress!r}")
    return bool(progress)


# ----------------------------------------------------------------------------- generator
def _iv(n, tau1, tau2, mu, average_degree, max_degree, min_community, max_community, mu_weights, beta,
        overlapping_nodes, overlapping_memberships):
    n = check_int("n", n, minimum=4)
    tau1 = check_float("tau1", tau1, minimum=0.0, inclusive=False)
    tau2 = check_float("tau2", tau2, minimum=0.0, inclusive=False)
    mu = check_float("mu", mu, minimum=0.0, maximum=1.0)
    max_degree = check_int("max_degree", max_degree, minimum=2, maximum=n - 1)
    average_degree = check_float("average_degree", average_degree, minimum=1.0, maximum=float(max_degree))
    from agreekit._memory import check_memory  # issue 23: lfr_benchmark(10**9) was a 7.45 GiB MemoryError

    check_memory("n", n * (96.0 + 48.0 * average_degree), f"an LFR graph of {n} nodes with average degree "
                 f"{average_degree:g} (about {96 + 48 * average_degree:.0f} bytes per node)")
    min_community = check_int("min_community", min_community, minimum=2, maximum=n)
    max_community = check_int("max_community", max_community, minimum=min_community, maximum=n)
    if mu_weights is not None:
        mu_weights = check_float("mu_weights", mu_weights, minimum=0.0, maximum=1.0)
        if mu_weights > 0 and mu == 0:
            raise InputError("mu_weights", "must be 0 when mu = 0 (no external edges carry the external weight)")
        if mu_weights < 1 and mu == 1:
            raise InputError("mu_weights", "must be 1 when mu = 1 (no internal edges carry the internal weight)")
    beta = check_float("beta", beta, minimum=0.0, inclusive=False)
    overlapping_nodes = check_int("overlapping_nodes", overlapping_nodes, minimum=0, maximum=n)
    overlapping_memberships = check_int("overlapping_memberships", overlapping_memberships, minimum=1)
    if overlapping_nodes > 0 and overlapping_memberships < 2:
        raise InputError("overlapping_memberships", f"must be >= 2 when overlapping_nodes > 0; got "
                                                    f"{overlapping_memberships}")
    return (n, tau1, tau2, mu, average_degree, max_degree, min_community, max_community, mu_weights, beta,
            overlapping_nodes, overlapping_memberships)


@renamed_parameters(seed="rng")
def lfr_benchmark(n, *, tau1=2.0, tau2=1.5, mu=0.1, average_degree=20, max_degree=50, min_community=20,
                  max_community=100, mu_weights=None, beta=1.5, overlapping_nodes=0, overlapping_memberships=1,
                  rng=None, progress=None) -> LFRBenchmark:
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
        a terminal and ``n >= 1000`` (the first call in a fresh install also compiles the numba
        kernels, ~10-20 s); ``False``: never; ``True``: always.

    Returns
    -------
    LFRBenchmark

    Raises
    ------
    InputError
        Naming the parameter at fault, for values out of range (``rng='abc'`` or ``-1`` names
        ``rng``) and for combinations that cannot be realized (e.g. a node whose internal degree exceeds every community it could join, a
        mean degree out of reach of the degree range, more memberships than communities).

    Notes
    -----
    Realized mixing (:func:`realized_mixing`) matches ``mu`` up to the random rounding of
    ``mu k_i`` (and ``mu_weights`` up to the least-squares fit); for n = 1000, ⟨k⟩ = 20 both are
    within 0.02 of the request (tested), whereas networkx's ``LFR_benchmark_graph`` overshoots
    ``mu`` (0.46 realized for 0.3 requested).

    References
    ----------
    .. [1] A. Lancichinetti, S. Fortunato, F. Radicchi, "Benchmark graphs for testing community
       detection algorithms", Phys. Rev. E 78, 046110 (2008).
    .. [2] A. Lancichinetti, S. Fortunato, "Benchmarks for testing community detection
       algorithms on directed and weighted graphs with overlapping communities", Phys. Rev. E 80,
       016118 (2009).

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
    (n, tau1, tau2, mu, average_degree, max_degree, min_community, max_community, mu_weights, beta,
     o_n, o_m) = _iv(n, tau1, tau2, mu, average_degree, max_degree, min_community, max_community, mu_weights,
                     beta, overlapping_nodes, overlapping_memberships)
    root = rng
    ss = _seed_sequence(rng)
    stage = _Stages(_show_progress(progress, n), n, mu_weights is not None)
    try:
        return _generate(n, tau1, tau2, mu, average_degree, max_degree, min_community, max_community, mu_weights,
                         beta, o_n, o_m, ss, root, stage)
    finally:
        stage.close()


def _generate(n, tau1, tau2, mu, average_degree, max_degree, min_community, max_community, mu_weights, beta, o_n,
              o_m, ss, root, stage) -> LFRBenchmark:
    stage("degrees")
    s_deg, s_comm, s_assign, s_parity, s_int, s_ext = ss.spawn(6)
    kernel_seed = lambda s: int(s.generate_state(1, dtype=np.uint32)[0])  # noqa: E731

    # 1. degrees
    k_lo = _solve_lower_end(average_degree, max_degree, tau1, "average_degree")
    rng = np.random.default_rng(s_deg)
    x, p = _powerlaw_table(k_lo, max_degree, tau1)
    deg = _sample(rng, x, p, n)
    if deg.sum() % 2:
        i = int(rng.integers(n))
        deg[i] += 1 if deg[i] < max_degree else -1
    k_out = np.floor(mu * deg).astype(np.int64)
    k_out += rng.random(n) < (mu * deg - k_out)
    k_in = deg - k_out

    # 2. memberships per node and their internal degrees
    stage("memberships")
    members = np.ones(n, dtype=np.int64)
    if o_n:
        members[rng.choice(n, size=o_n, replace=False)] = o_m
    slot_node = np.repeat(np.arange(n, dtype=np.int64), members)
    first = np.concatenate([[0], np.cumsum(members)[:-1]])
    pos = np.arange(slot_node.size) - first[slot_node]
    slot_demand = k_in[slot_node] // members[slot_node] + (pos < (k_in[slot_node] % members[slot_node]))
    slot_demand = slot_demand.astype(np.int64)
    need = int(slot_demand.max())
    if need >= max_community:
        raise InputError("max_community", f"must exceed the largest internal degree {need} "
                                          f"(about (1 - mu) * max_degree / overlapping_memberships); got {max_community}")

    # 3. community sizes (sorted decreasingly: the kernel's eligible communities form a prefix)
    stage("communities")
    rng_c = np.random.default_rng(s_comm)
    sizes = np.sort(_community_sizes(rng_c, int(slot_node.size), min_community, max_community, tau2))[::-1].copy()
    if o_m > sizes.size:
        raise InputError("overlapping_memberships", f"is {o_m} but there are only {sizes.size} communities")
    slot_comm, ok = K.assign_memberships(slot_node, slot_demand, sizes, n, o_m, kernel_seed(s_assign))
    if not ok:
        raise InputError("max_community", f"communities of {min_community}-{max_community} nodes cannot hold the "
                                          f"internal degrees (largest {need}); raise max_community or mu, or lower "
                                          "max_degree")
    # 4. parity of each community's internal stubs: move one stub between internal and external
    order = np.lexsort((slot_node, slot_comm))
    slot_node_s, slot_comm_s, demand_s = slot_node[order], slot_comm[order], slot_demand[order].copy()
    ptr = np.searchsorted(slot_comm_s, np.arange(sizes.size + 1))
    sums = np.add.reduceat(demand_s, ptr[:-1]) if demand_s.size else np.zeros(0, np.int64)
    rng_p = np.random.default_rng(s_parity)
    for c in np.flatnonzero(sums % 2):
        lo, hi = ptr[c], ptr[c + 1]
        for j in lo + rng_p.permutation(hi - lo):
            v = slot_node_s[j]
            can_add = k_out[v] > 0 and demand_s[j] + 1 < sizes[c]
            can_sub = demand_s[j] > 0
            if can_add and (not can_sub or rng_p.random() < 0.5):
                demand_s[j] += 1
                k_out[v] -= 1
                break
            if can_sub:
                demand_s[j] -= 1
                k_out[v] += 1
                break
    if k_out.sum() % 2:  # cannot happen (total degree even, every community even)
        raise RuntimeError("internal error: odd number of external stubs")

    # 5. wiring
    membership = np.full((n, o_m), -1, dtype=np.int64)
    filled = np.zeros(n, dtype=np.int64)
    for v, c in zip(slot_node_s.tolist(), slot_comm_s.tolist()):
        membership[v, filled[v]] = c
        filled[v] += 1
    table = K.new_edge_set(int(deg.sum()) // 2)
    int_stubs = np.repeat(slot_node_s, demand_s)
    int_ptr = np.concatenate([[0], np.cumsum(np.add.reduceat(demand_s, ptr[:-1]))]).astype(np.int64) \
        if demand_s.size else np.zeros(1, np.int64)
    stage("internal edges")
    a1, b1, drop1 = K.wire_groups(int_stubs, int_ptr, membership, False, table, n, kernel_seed(s_int), 100)
    stage("external edges")
    ext_stubs = np.repeat(np.arange(n, dtype=np.int64), k_out)
    a2, b2, drop2 = K.wire_groups(ext_stubs, np.array([0, ext_stubs.size], dtype=np.int64), membership, True,
                                  table, n, kernel_seed(s_ext), 100)
    a = np.concatenate([a1, a2])
    b = np.concatenate([b1, b2])
    internal = np.concatenate([np.ones(a1.size, bool), np.zeros(a2.size, bool)])
    order = np.lexsort((b, a))
    a, b, internal = a[order], b[order], internal[order]
    edges = np.column_stack([a, b]).astype(np.int64)

    weights = None
    if mu_weights is not None:
        stage("weights")
        d = np.bincount(edges.ravel(), minlength=n).astype(np.float64)
        strength = d ** beta
        weights = K.fit_weights(a, b, internal, (1.0 - mu_weights) * strength, mu_weights * strength, n, 500, 1e-6,
                                0.01)

    communities = [slot_node_s[ptr[c]:ptr[c + 1]].copy() for c in range(sizes.size)]
    params = dict(n=n, tau1=tau1, tau2=tau2, mu=mu, average_degree=average_degree, max_degree=max_degree,
                  min_community=min_community, max_community=max_community, mu_weights=mu_weights, beta=beta,
                  overlapping_nodes=o_n, overlapping_memberships=o_m, min_degree=k_lo,
                  rng=_shown_rng(root))
    return LFRBenchmark(n=n, edges=edges, weights=weights, communities=communities, parameters=params,
                        dropped_edges=int(drop1 + drop2))
