"""Registry of the named agreement measures (used by the CLI, the pipeline and property tests)."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any
from dataclasses import dataclass, field

from agreekit._api import ResultBase
from agreekit._validation import InputError
from agreekit.clustering import _comembership as cm
from agreekit.clustering import _contingency as ct
from agreekit.clustering import _overlapping as ov
from agreekit.clustering._inputs import as_clustering, as_graph

__all__ = ["MeasureSpec", "MEASURES", "get_measure", "list_measures", "agreement_with_graph"]


@dataclass(frozen=True)
class MeasureSpec(ResultBase):
    """One registered measure.

    ``kind`` is ``"similarity"`` (1 = identical), ``"distance"`` (0 = identical) or
    ``"unnormalized"`` (larger = more agreement, no fixed maximum: mutual information); ``input``
    is the most general input it accepts: ``"partition"``, ``"crisp"`` (overlapping covers) or
    ``"soft"`` (real-valued memberships); ``graph`` tells whether it takes ``graph=``/``mode=``.
    ``to_dict()`` gives the row of :func:`list_measures`.
    """

    name: str
    func: Callable
    kind: str
    input: str
    symmetric: bool
    graph: bool
    description: str
    aliases: tuple[str, ...] = field(default=())

    def __call__(self, U, V, **options) -> float:
        return float(self.func(U, V, **options))

    def to_dict(self) -> dict:
        """``name``, ``kind``, ``input``, ``graph``, ``description``, ``aliases`` (JSON-ready)."""
        return {"name": self.name, "kind": self.kind, "input": self.input, "graph": self.graph,
                "description": self.description, "aliases": list(self.aliases)}


def _p(f, **kw):
    g = functools.partial(f, **kw)
    functools.update_wrapper(g, f)
    return g


_SPECS = [
    MeasureSpec("ri", ct.rand_index, "similarity", "partition", True, False,
                "Rand index", ("rand_index",)),
    MeasureSpec("ari", ct.adjusted_rand_index, "similarity", "partition", True, False,
                "adjusted Rand index (Hubert-Arabie)", ("adjusted_rand_index",)),
    MeasureSpec("ari_prime", ct.adjusted_rand_index_approx, "similarity", "partition", True, False,
                "ARI' (approximate expectation, seed Eq. 6)", ("adjusted_rand_index_approx",)),
    MeasureSpec("vi", ct.variation_of_information, "distance", "partition", True, False,
                "variation of information (nats)", ("variation_of_information",)),
    MeasureSpec("vi_normalized", _p(ct.variation_of_information, normalized=True), "distance", "partition",
                True, False, "VI / log n (= ND_{x log x})", ()),
    MeasureSpec("nmi_sum", _p(ct.normalized_mutual_info, average_method="arithmetic"), "similarity", "partition",
                True, False, "NMI, arithmetic normalization 2I/(H(U)+H(V))", ("nmi", "nmi_arithmetic")),
    MeasureSpec("nmi_sqrt", _p(ct.normalized_mutual_info, average_method="geometric"), "similarity", "partition",
                True, False, "NMI, geometric normalization I/sqrt(H(U)H(V))", ("nmi_geometric",)),
    MeasureSpec("jaccard", ct.jaccard_index, "similarity", "partition", True, False,
                "pair-counting Jaccard index", ("jaccard_index",)),
    MeasureSpec("f1", ct.f_measure, "similarity", "partition", True, False,
                "pair-counting F-measure, beta = 1", ("f_measure",)),
    MeasureSpec("mirkin", ct.mirkin_index, "distance", "partition", True, False,
                "Mirkin metric n(n-1)(1 - RI)", ("mirkin_index",)),
    MeasureSpec("ri_delta", cm.ri_delta, "similarity", "soft", True, True,
                "co-membership RI_delta (exact: diagonal removed)", ()),
    MeasureSpec("ari_delta", cm.ari_delta, "similarity", "soft", True, True,
                "co-membership ARI_delta (exact: diagonal removed)", ()),
    MeasureSpec("ri_delta_approx", _p(cm.ri_delta, exact=False), "similarity", "soft", True, True,
                "RI'_delta (diagonal kept)", ("ri_prime_delta",)),
    MeasureSpec("ari_delta_approx", _p(cm.ari_delta, exact=False), "similarity", "soft", True, True,
                "ARI'_delta (diagonal kept)", ("ari_prime_delta",)),
    MeasureSpec("i_norm", cm.i_norm, "similarity", "soft", True, True,
                "1 - ||UU'-VV'||_F/(||UU'||_F+||VV'||_F), diagonal kept", ()),
    MeasureSpec("i_sqrt_tr", cm.i_sqrt_tr, "similarity", "soft", True, True,
                "cosine of UU' and VV', diagonal kept", ()),
    MeasureSpec("omega", cm.omega, "similarity", "crisp", True, False,
                "adjusted Omega index (Collins & Dent; = cdlib's omega)",
                ("adjusted_omega", "omega_index", "adjusted_omega_index")),
    MeasureSpec("omega_unadjusted", cm.omega_unadjusted, "similarity", "crisp", True, False,
                "unadjusted Omega index: share of pairs co-clustered equally often", ("unadjusted_omega",)),
    MeasureSpec("mi", ct.mutual_info, "unnormalized", "partition", True, False,
                "mutual information I(U;V) (nats)", ("mutual_info", "mutual_information")),
    MeasureSpec("ami", _p(ct.adjusted_mutual_info, average_method="arithmetic"), "similarity", "partition", True, False,
                "adjusted mutual information, exact E[I], arithmetic mean of H(U), H(V)",
                ("adjusted_mutual_info", "ami_sum", "ami_arithmetic")),
    MeasureSpec("ami_max", _p(ct.adjusted_mutual_info, average_method="max"), "similarity", "partition", True, False,
                "AMI with max(H(U), H(V))", ()),
    MeasureSpec("ami_min", _p(ct.adjusted_mutual_info, average_method="min"), "similarity", "partition", True, False,
                "AMI with min(H(U), H(V))", ()),
    MeasureSpec("ami_sqrt", _p(ct.adjusted_mutual_info, average_method="geometric"), "similarity", "partition", True,
                False, "AMI with sqrt(H(U)H(V))", ("ami_geometric",)),
    MeasureSpec("fowlkes_mallows", ct.fowlkes_mallows, "similarity", "partition", True, False,
                "Fowlkes-Mallows index", ("fm", "fmi", "fowlkes_mallows_index")),
    MeasureSpec("homogeneity", ct.homogeneity, "similarity", "partition", False, False,
                "homogeneity of V w.r.t. reference U, I/H(U)", ()),
    MeasureSpec("completeness", ct.completeness, "similarity", "partition", False, False,
                "completeness of V w.r.t. reference U, I/H(V)", ()),
    MeasureSpec("v_measure", ct.v_measure, "similarity", "partition", True, False,
                "V-measure, beta = 1 (= nmi_sum)", ("v",)),
    MeasureSpec("overlapping_nmi_lfk", _p(ov.overlapping_nmi, variant="lfk"), "similarity", "crisp", True, False,
                "overlapping NMI' (Lancichinetti-Fortunato-Kertesz 2009)",
                ("onmi_lfk", "nmi_lfk", "overlapping_nmi", "onmi")),
    MeasureSpec("overlapping_nmi_mgh", _p(ov.overlapping_nmi, variant="mgh"), "similarity", "crisp", True, False,
                "overlapping NMI'' (McDaid-Greene-Hurley 2011, max normalization)", ("onmi_mgh", "nmi_mgh")),
]

#: canonical name -> :class:`MeasureSpec`
MEASURES: dict[str, MeasureSpec] = {s.name: s for s in _SPECS}
_ALIASES = {a: s.name for s in _SPECS for a in s.aliases}


def get_measure(name: str) -> MeasureSpec:
    """Look up a measure by name or alias (raises ``InputError('measure', ...)``)."""
    if isinstance(name, str):
        key = name.strip().lower().replace("-", "_")
        key = _ALIASES.get(key, key)
        if key in MEASURES:
            return MEASURES[key]
    raise InputError("measure", f"unknown measure {name!r}; known: {', '.join(MEASURES)}")


def list_measures() -> list[dict]:
    """The registry as a list of plain dicts (name, kind, input, graph, description, aliases)."""
    return [s.to_dict() for s in _SPECS]


# ------------------------------------------------------------------ a measure against a graph
# (here, not in _comembership: it looks the measure up in the registry, which imports _comembership)

def agreement_with_graph(U: Any, graph: Any, measure: Any = "ari_delta", **options) -> float:
    """Agreement between a clustering and the graph's edge set used as a clustering.

    Each edge (a, b) becomes a cluster of its two end nodes (membership √w); the result is
    ``measure(U, N)`` — the "(N, X)" rows of the seed's Tables 1–3.

    Parameters
    ----------
    U : clustering
    graph : graph
        Adjacency matrix, edge list or networkx graph over U's nodes.
    measure : str or callable
        A name from :data:`~agreekit.clustering.MEASURES` that accepts overlapping input
        (e.g. ``"ri_delta"``, ``"ari_delta_approx"``, ``"i_norm"``, ``"omega"``) or a
        callable ``f(U, N, **options)``.
    **options
        Passed on to the measure (e.g. ``exact=False``).

    Examples
    --------
    >>> from agreekit.clustering import agreement_with_graph
    >>> edges = [(0, 1), (0, 4), (1, 2), (2, 3), (3, 4)]
    >>> round(agreement_with_graph([[0, 3, 4], [1], [2]], edges, "ri_delta"), 3)
    0.6
    """
    cu = as_clustering(U, name="U")
    g = as_graph(graph, cu)
    if g.n_edges == 0:
        raise InputError("graph", "has no edges")
    en = cm._edge_clustering(cu, g)
    if callable(measure):
        return float(measure(cu, en, **options))
    spec = get_measure(measure)
    if spec.input == "partition":
        raise InputError("measure", f"{spec.name!r} needs two partitions; the edge set is an overlapping "
                                    "cover (use a co-membership measure such as 'ari_delta' or 'omega')")
    return float(spec.func(cu, en, **options))
