"""Graphs and community detection for the LFR experiments of Rabbany & Zaïane 2015 (sec. 5, Figures 7-9).

:func:`lfr_graph` makes one unweighted disjoint LFR graph, with
:func:`agreekit.clustering.lfr.lfr_benchmark` (``generator="agreekit"``) or networkx's
``LFR_benchmark_graph`` (``generator="networkx"``; it overshoots the requested μ, see the README);
:func:`detect_communities` runs python-igraph's disjoint methods (:data:`ALGORITHMS`) and
:func:`detect_overlapping` cdlib's overlapping ones (:data:`OVERLAPPING_METHODS`).  networkx,
python-igraph and cdlib are optional dependencies (``pip install agreekit[workflow]``) imported
only when these functions run; cdlib is imported without the notes it prints about its own optional
packages (see ``_quiet_import``).

networkx deviations (``generator="networkx"`` only): it needs ``tau2 > 1``; it cannot meet
``average_degree`` together with ``max_degree``, so the ``min_degree`` whose truncated power law has
the mean closest to ``average_degree`` is passed instead; its self-loops are removed.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import sys
import warnings
from dataclasses import dataclass

import numpy as np

from agreekit._api import check_rng, renamed_parameters
from agreekit._optional import import_optional
from agreekit._validation import InputError, check_choice, check_float, check_int
from agreekit.clustering.lfr import lfr_benchmark

__all__ = [
    "ALGORITHMS",
    "OVERLAPPING_METHODS",
    "GENERATORS",
    "LFRParameters",
    "min_degree_for",
    "lfr_graph",
    "detect_communities",
    "detect_overlapping",
]

#: community-detection algorithms (python-igraph implementations)
ALGORITHMS = ("louvain", "walktrap", "infomap", "spinglass", "fastgreedy")

#: overlapping community detection (cdlib) -> the program of Rabbany & Zaïane it stands in for
OVERLAPPING_METHODS = {
    "slpa": "COPRA",  # multi-label propagation (speaker-listener variant of COPRA's idea)
    "core_expansion": "MOSES",  # seed/core expansion that finds many small communities, as MOSES does
    "lfm": "OSLOM",  # local fitness optimization, the precursor of OSLOM (same group)
    "big_clam": "BIGCLAM",  # cdlib's BigClam (threshold affiliation, overlapping)
    "demon": None,  # ego-network label propagation (extra, not in the paper)
}

#: graph generators
GENERATORS = ("agreekit", "networkx")


#: lines cdlib prints on import (``cdlib.prompt_utils.report_missing_packages``, once per algorithms
#: module) about its optional packages that agreekit does not use; :func:`_quiet_import` drops them
CDLIB_IMPORT_NOTES = (
    re.compile(r"Note: to be able to use all crisp methods, you need to install some additional packages: .*"),
)

#: compile-time warnings about a third-party module's own source (cdlib's regex strings: a
#: SyntaxWarning from Python 3.12, a DeprecationWarning before) when it is imported without bytecode
_SOURCE_WARNINGS = ((SyntaxWarning, r"invalid escape sequence"), (DeprecationWarning, r"invalid escape sequence"))


def _quiet_import(name: str, *, purpose: str, notes=CDLIB_IMPORT_NOTES):
    """Import ``name`` (as :func:`agreekit._optional.import_optional`) without the known ``notes`` it prints.

    What the import writes to ``sys.stdout`` and ``sys.stderr`` is held in a buffer; the lines that
    match one of ``notes`` (compiled patterns, whole line) are dropped and every other line goes on to
    the stream it was written to, also when the import fails, so errors and warnings still show (only
    the compile-time warnings about the imported package's own source in ``_SOURCE_WARNINGS`` are
    ignored).  Output is not redirected globally: only during this import, and not at all once
    ``name`` is imported.
    """
    if name in sys.modules:
        return sys.modules[name]
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
            for category, message in _SOURCE_WARNINGS:
                warnings.filterwarnings("ignore", message=message, category=category)
            return import_optional(name, purpose=purpose)
    finally:
        for buffer, stream in ((out, sys.stdout), (err, sys.stderr)):
            lines = buffer.getvalue().splitlines(keepends=True)
            kept = "".join(ln for ln in lines if not any(p.fullmatch(ln.rstrip("\r\n")) for p in notes))
            if kept:
                stream.write(kept)
                stream.flush()


@dataclass(frozen=True)
class LFRParameters:
    """LFR generator settings shared by the experiments (Rabbany & Zaïane 2015, sec. 5.1 defaults)."""

    n: int = 1000
    tau1: float = 2.0
    tau2: float = 1.0
    average_degree: float = 20.0
    max_degree: int = 50
    min_community: int = 20
    max_community: int = 100

    def __post_init__(self):
        check_int("n", self.n, minimum=10)
        check_float("tau1", self.tau1, minimum=1.0, inclusive=False)
        check_float("tau2", self.tau2, minimum=0.0, inclusive=False)
        check_float("average_degree", self.average_degree, minimum=1.0)
        check_int("max_degree", self.max_degree, minimum=2, maximum=self.n - 1)
        check_int("min_community", self.min_community, minimum=2)
        check_int("max_community", self.max_community, minimum=self.min_community, maximum=self.n)
        if self.average_degree >= self.max_degree:
            raise InputError("average_degree", f"must be below max_degree ({self.max_degree})")

    def generator_kwargs(self) -> dict:
        return dict(
            tau1=self.tau1,
            tau2=self.tau2,
            average_degree=self.average_degree,
            max_degree=self.max_degree,
            min_community=self.min_community,
            max_community=self.max_community,
        )


def min_degree_for(average_degree: float, max_degree: int, tau1: float) -> int:
    """Minimum degree whose discrete power law k^-tau1 on [k_min, max_degree] has mean closest to ``average_degree``."""
    best, best_err = 1, np.inf
    for kmin in range(1, int(max_degree) + 1):
        k = np.arange(kmin, int(max_degree) + 1, dtype=np.float64)
        p = k ** (-tau1)
        err = abs(float(np.sum(k * p) / np.sum(p)) - average_degree)
        if err < best_err:
            best, best_err = kmin, err
    return best


def _int_seed(rng) -> int:
    """The non-negative int seed behind a SPEC 7 ``rng`` (the experiments seed python-igraph,
    networkx and cdlib, which take ints): an int as it is (so the tables of Rabbany & Zaïane are unchanged),
    one draw of 32 bits from a ``SeedSequence``, a ``Generator`` or fresh entropy (``None``)."""
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)) and rng >= 0:
        return int(rng)
    if isinstance(rng, np.random.SeedSequence):
        return int(rng.generate_state(1)[0])
    return int(check_rng(rng, parameter="rng").integers(0, 2**32))


@renamed_parameters(seed="rng")
def lfr_graph(params: LFRParameters, mu: float, *, rng=None, max_attempts: int = 50, generator: str = "networkx"):
    """One unweighted disjoint LFR graph: ``(edges, labels, used_seed)``; edges (m, 2) int, no self-loops.

    ``generator="agreekit"`` uses :func:`~agreekit.clustering.lfr.lfr_benchmark`;
    ``"networkx"`` uses ``networkx.LFR_benchmark_graph`` (which sometimes fails to place
    communities: the next seed, ``seed + 1``, ..., is then tried, up to ``max_attempts`` times).
    ``rng`` (SPEC 7; ``seed=`` is its deprecated spelling) is reduced to that int seed (see
    ``_int_seed``: an int is used as it is).
    """
    seed = _int_seed(rng)
    mu = check_float("mu", mu, minimum=0.0, maximum=1.0)
    check_choice("generator", generator, GENERATORS)
    if generator == "agreekit":
        g = lfr_benchmark(params.n, mu=mu, rng=int(seed), progress=False, **params.generator_kwargs())
        return g.edges, g.labels(), int(seed)
    import networkx as nx

    if params.tau2 <= 1:
        raise InputError("tau2", f"must be > 1 for networkx's generator; got {params.tau2}")
    kmin = min_degree_for(params.average_degree, params.max_degree, params.tau1)
    last = None
    for attempt in range(max_attempts):
        s = int(seed) + attempt
        try:
            G = nx.LFR_benchmark_graph(
                params.n,
                params.tau1,
                params.tau2,
                mu,
                min_degree=kmin,
                max_degree=params.max_degree,
                min_community=params.min_community,
                max_community=params.max_community,
                seed=s,
                max_iters=1000,
            )
        except (nx.ExceededMaxIterations, OverflowError, ValueError) as exc:
            last = exc
            continue
        labels = np.full(params.n, -1, dtype=np.int64)
        comms = {}
        for v in range(params.n):
            key = min(G.nodes[v]["community"])
            labels[v] = comms.setdefault(key, len(comms))
        edges = np.array([(a, b) for a, b in G.edges() if a != b], dtype=np.int64).reshape(-1, 2)
        return edges, labels, s
    raise RuntimeError(f"LFR generator failed {max_attempts} times (last error: {last!r})")


@renamed_parameters(seed="rng")
def detect_communities(n: int, edges: np.ndarray, algorithm: str, *, rng=None, weights=None) -> np.ndarray:
    """Labels found by ``algorithm`` (see :data:`ALGORITHMS`) with python-igraph; ``weights`` per edge or None.

    ``rng`` (SPEC 7, reduced to an int seed of python-igraph's generator; ``seed=`` deprecated)."""
    import igraph as ig

    seed = _int_seed(rng)
    check_choice("algorithm", algorithm, ALGORITHMS)
    ig.set_random_number_generator(random.Random(int(seed)))
    g = ig.Graph(n=n, edges=[tuple(e) for e in np.asarray(edges).tolist()])
    if weights is not None:
        g.es["weight"] = [float(w) for w in np.asarray(weights, dtype=np.float64)]
        g.simplify(combine_edges="sum")
        w = g.es["weight"]
    else:
        g.simplify()
        w = None
    if algorithm == "louvain":
        return np.asarray(g.community_multilevel(weights=w).membership, dtype=np.int64)
    if algorithm == "walktrap":
        return np.asarray(g.community_walktrap(weights=w).as_clustering().membership, dtype=np.int64)
    if algorithm == "infomap":
        return np.asarray(g.community_infomap(edge_weights=w).membership, dtype=np.int64)
    if algorithm == "fastgreedy":
        return np.asarray(g.community_fastgreedy(weights=w).as_clustering().membership, dtype=np.int64)
    # spinglass needs a connected graph: run it per connected component
    labels = np.zeros(n, dtype=np.int64)
    offset = 0
    for comp in g.connected_components():
        if len(comp) < 3:
            labels[comp] = offset
            offset += 1
            continue
        sub = g.induced_subgraph(comp)
        memb = np.asarray(
            sub.community_spinglass(weights=sub.es["weight"] if w is not None else None).membership, dtype=np.int64
        )
        labels[comp] = memb + offset
        offset += int(memb.max()) + 1
    return labels


@renamed_parameters(seed="rng")
def detect_overlapping(n: int, edges: np.ndarray, method: str, *, rng=None, n_communities: int | None = None) -> list:
    """Overlapping communities found by a cdlib method (see :data:`OVERLAPPING_METHODS`), as a cover.

    cdlib's methods draw from Python's and numpy's global generators: both are seeded from
    ``rng`` (SPEC 7, reduced to an int seed; ``seed=`` deprecated) before the call (and restored
    after).  ``big_clam`` needs the number of communities
    (``n_communities``; the SNAP program estimates it, cdlib does not) and uses the threshold
    affiliation of Yang & Leskovec (overlapping).  ``lfm`` runs with α = 1, ``demon`` with ε = 0.25.
    Returns a list of sorted lists of node ids (nodes may be in none, one or several).
    """
    import networkx as nx

    seed = _int_seed(rng)
    check_choice("method", method, tuple(OVERLAPPING_METHODS))
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(np.asarray(edges).tolist())
    py_state, np_state = random.getstate(), np.random.get_state()
    random.seed(int(seed))
    np.random.seed(int(seed) % (2**32))
    try:
        A = _quiet_import("cdlib.algorithms", purpose="detect_overlapping")
        if method == "slpa":
            res = A.slpa(G)
        elif method == "core_expansion":
            res = A.core_expansion(G)
        elif method == "lfm":
            res = A.lfm(G, alpha=1.0)
        elif method == "big_clam":
            k = check_int("n_communities", n_communities, minimum=1)
            # its sigm(x) = 1 / expm1(x) overflows to 1 / inf = 0, the exact limit, for large x
            with np.errstate(over="ignore"):
                res = A.big_clam(G, dimensions=k, affiliation_method="threshold")
        else:
            res = A.demon(G, epsilon=0.25)
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)
    cover = sorted(sorted({int(v) for v in c}) for c in res.communities if len(c))
    return cover
