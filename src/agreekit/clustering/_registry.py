"""Registry of the named agreement measures (used by the CLI, the pipeline and property tests)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any
from dataclasses import dataclass, field

from agreekit._api import ResultBase
from agreekit._validation import InputError, did_you_mean
from agreekit.clustering import _comembership as cm
from agreekit.clustering import _contingency as ct
from agreekit.clustering import _overlapping as ov
from agreekit.clustering._inputs import as_clustering, as_graph

__all__ = ["MeasureSpec", "MEASURES", "get_measure", "list_measures", "agreement_with_graph"]


@dataclass(frozen=True)
class MeasureSpec(ResultBase):
    """One registered measure (an entry of :data:`MEASURES`); calling it computes the measure.

    ``to_dict()`` gives the row of :func:`list_measures`.

    Parameters
    ----------
    name : str
        Canonical name (the CLI's ``-m`` name).
    func : callable
        ``func(U, V, **options) -> float``.
    kind : {"similarity", "distance", "unnormalized"}
        ``"similarity"`` (1 = identical), ``"distance"`` (0 = identical) or ``"unnormalized"``
        (larger = more agreement, no fixed maximum: mutual information).
    input : {"partition", "crisp", "soft"}
        The most general input it accepts: partitions, crisp (overlapping) covers or
        real-valued memberships.
    symmetric : bool
        Whether ``f(U, V) == f(V, U)``.
    graph : bool
        Whether it takes ``graph=`` / ``mode=``.
    description : str
        One line for listings.
    aliases : tuple of str
        Other names :func:`get_measure` accepts.

    Examples
    --------
    >>> from agreekit.clustering import MEASURES
    >>> spec = MEASURES["ari"]
    >>> spec.kind, spec.input, spec.aliases
    ('similarity', 'partition', ('adjusted_rand_index',))
    >>> round(spec([0, 0, 1, 1], [0, 0, 1, 2]), 4)
    0.5714
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
        """``float(func(U, V, **options))``."""
        return float(self.func(U, V, **options))

    def to_dict(self) -> dict:
        """``name``, ``kind``, ``input``, ``graph``, ``description``, ``aliases`` (JSON-ready)."""
        return {
            "name": self.name,
            "kind": self.kind,
            "input": self.input,
            "graph": self.graph,
            "description": self.description,
            "aliases": list(self.aliases),
        }


def _p(f, **kw):
    g = functools.partial(f, **kw)
    functools.update_wrapper(g, f)
    return g


def _spec(name, func, description, *aliases, kind="similarity", input="partition", symmetric=True, graph=False):
    """A :class:`MeasureSpec` with the common defaults (a symmetric similarity of partitions)."""
    return MeasureSpec(name, func, kind, input, symmetric, graph, description, aliases)


#: co-membership measures: soft input, graph-aware (``graph=``/``mode=``)
_soft = functools.partial(_spec, input="soft", graph=True)
#: measures of crisp (possibly overlapping) covers
_crisp = functools.partial(_spec, input="crisp")
_ami = ct.adjusted_mutual_info
_onmi = ov.overlapping_nmi

_SPECS = [
    _spec("ri", ct.rand_index, "Rand index", "rand_index"),
    _spec("ari", ct.adjusted_rand_index, "adjusted Rand index (Hubert-Arabie)", "adjusted_rand_index"),
    _spec(
        "ari_prime",
        ct.adjusted_rand_index_approx,
        "ARI' (approximate expectation, Rabbany & Zaïane 2015, Eq. 6)",
        "adjusted_rand_index_approx",
    ),
    _spec(
        "vi",
        ct.variation_of_information,
        "variation of information (nats)",
        "variation_of_information",
        kind="distance",
    ),
    _spec(
        "vi_normalized",
        _p(ct.variation_of_information, normalized=True),
        "VI / log n (= ND_{x log x})",
        kind="distance",
    ),
    _spec(
        "nmi_sum",
        _p(ct.normalized_mutual_info, average_method="arithmetic"),
        "NMI, arithmetic normalization 2I/(H(U)+H(V))",
        "nmi",
        "nmi_arithmetic",
    ),
    _spec(
        "nmi_sqrt",
        _p(ct.normalized_mutual_info, average_method="geometric"),
        "NMI, geometric normalization I/sqrt(H(U)H(V))",
        "nmi_geometric",
    ),
    _spec("jaccard", ct.jaccard_index, "pair-counting Jaccard index", "jaccard_index"),
    _spec("f1", ct.f_measure, "pair-counting F-measure, beta = 1", "f_measure"),
    _spec("mirkin", ct.mirkin_index, "Mirkin metric n(n-1)(1 - RI)", "mirkin_index", kind="distance"),
    _soft("ri_delta", cm.ri_delta, "co-membership RI_delta (exact: diagonal removed)"),
    _soft("ari_delta", cm.ari_delta, "co-membership ARI_delta (exact: diagonal removed)"),
    _soft("ri_delta_approx", _p(cm.ri_delta, exact=False), "RI'_delta (diagonal kept)", "ri_prime_delta"),
    _soft("ari_delta_approx", _p(cm.ari_delta, exact=False), "ARI'_delta (diagonal kept)", "ari_prime_delta"),
    _soft("i_norm", cm.i_norm, "1 - ||UU'-VV'||_F/(||UU'||_F+||VV'||_F), diagonal kept"),
    _soft("i_sqrt_tr", cm.i_sqrt_tr, "cosine of UU' and VV', diagonal kept"),
    _crisp(
        "omega",
        cm.omega,
        "adjusted Omega index (Collins & Dent; = cdlib's omega)",
        "adjusted_omega",
        "omega_index",
        "adjusted_omega_index",
    ),
    _crisp(
        "omega_unadjusted",
        cm.omega_unadjusted,
        "unadjusted Omega index: share of pairs co-clustered equally often",
        "unadjusted_omega",
    ),
    _spec(
        "mi",
        ct.mutual_info,
        "mutual information I(U;V) (nats)",
        "mutual_info",
        "mutual_information",
        kind="unnormalized",
    ),
    _spec(
        "ami",
        _p(_ami, average_method="arithmetic"),
        "adjusted mutual information, exact E[I], arithmetic mean of H(U), H(V)",
        "adjusted_mutual_info",
        "ami_sum",
        "ami_arithmetic",
    ),
    _spec("ami_max", _p(_ami, average_method="max"), "AMI with max(H(U), H(V))"),
    _spec("ami_min", _p(_ami, average_method="min"), "AMI with min(H(U), H(V))"),
    _spec("ami_sqrt", _p(_ami, average_method="geometric"), "AMI with sqrt(H(U)H(V))", "ami_geometric"),
    _spec("fowlkes_mallows", ct.fowlkes_mallows, "Fowlkes-Mallows index", "fm", "fmi", "fowlkes_mallows_index"),
    _spec("homogeneity", ct.homogeneity, "homogeneity of V w.r.t. reference U, I/H(U)", symmetric=False),
    _spec("completeness", ct.completeness, "completeness of V w.r.t. reference U, I/H(V)", symmetric=False),
    _spec("v_measure", ct.v_measure, "V-measure, beta = 1 (= nmi_sum)", "v"),
    _crisp(
        "overlapping_nmi_lfk",
        _p(_onmi, variant="lfk"),
        "overlapping NMI' (Lancichinetti-Fortunato-Kertesz 2009)",
        "onmi_lfk",
        "nmi_lfk",
        "overlapping_nmi",
        "onmi",
    ),
    _crisp(
        "overlapping_nmi_mgh",
        _p(_onmi, variant="mgh"),
        "overlapping NMI'' (McDaid-Greene-Hurley 2011, max normalization)",
        "onmi_mgh",
        "nmi_mgh",
    ),
]

#: canonical name -> :class:`MeasureSpec`
MEASURES: dict[str, MeasureSpec] = {s.name: s for s in _SPECS}
_ALIASES = {a: s.name for s in _SPECS for a in s.aliases}


def get_measure(name: str) -> MeasureSpec:
    """Look up a measure by name or alias (case-insensitive, ``-`` read as ``_``).

    Parameters
    ----------
    name : str
        A canonical name of :data:`MEASURES` or one of its aliases.

    Returns
    -------
    MeasureSpec
        The registered measure; call it as ``spec(U, V, **options)``.

    Raises
    ------
    agreekit.InputError
        For an unknown name (the message lists the known ones).

    Examples
    --------
    >>> from agreekit.clustering import get_measure
    >>> get_measure("NMI").name, get_measure("adjusted-omega").name
    ('nmi_sum', 'omega')
    >>> round(get_measure("vi")([0, 0, 1, 1], [0, 0, 1, 2]), 4)
    0.3466
    """
    if isinstance(name, str):
        key = name.strip().lower().replace("-", "_")
        key = _ALIASES.get(key, key)
        if key in MEASURES:
            return MEASURES[key]

    hint = did_you_mean(key, MEASURES) if isinstance(name, str) else ""
    raise InputError("measure", f"unknown measure {name!r}{hint} (known: {', '.join(MEASURES)})")


def list_measures() -> list[dict]:
    """The registry as a list of plain dicts (name, kind, input, graph, description, aliases).

    Returns
    -------
    list of dict
        One :meth:`MeasureSpec.to_dict` row per measure, in registry order (JSON-ready).

    Examples
    --------
    >>> from agreekit.clustering import list_measures
    >>> rows = list_measures()
    >>> len(rows), rows[0]["name"], sorted(rows[0])
    (29, 'ri', ['aliases', 'description', 'graph', 'input', 'kind', 'name'])
    """
    return [s.to_dict() for s in _SPECS]


# ------------------------------------------------------------------ a measure against a graph
# (here, not in _comembership: it looks the measure up in the registry, which imports _comembership)


def agreement_with_graph(U: Any, graph: Any, measure: Any = "ari_delta", **options) -> float:
    """Agreement between a clustering and the graph's edge set used as a clustering.

    Each edge (a, b) becomes a cluster of its two end nodes (membership √w); the result is
    ``measure(U, N)`` — the "(N, X)" rows of Rabbany & Zaïane's Tables 1–3.

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

    Returns
    -------
    float
        The measure's value of (U, N); for the co-membership measures 1 means that U puts
        exactly the edges' end nodes together.

    References
    ----------
    R. Rabbany, O. R. Zaïane. Generalization of clustering agreements and distances for
    overlapping clusters and network communities. Data Min. Knowl. Disc. 29(5), 1458–1485 (2015).
    :doi:`10.1007/s10618-015-0426-x`

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
        raise InputError(
            "measure",
            f"{spec.name!r} needs two partitions; the edge set is an overlapping "
            "cover (use a co-membership measure such as 'ari_delta' or 'omega')",
        )
    return float(spec.func(cu, en, **options))
