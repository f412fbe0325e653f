"""Clustering agreement: the generalized distance framework and co-membership measures.

Implements R. Rabbany & O. R. Zaïane, *Generalization of clustering agreements and distances
for overlapping clusters and network communities* (DMKD 2015):

* contingency form (Definitions 1-3): :func:`generalized_distance` D_φ^η with its
  normalized (ND) and adjusted (AD) forms, and the classic measures as thin functions over the
  same contingency core: :func:`rand_index`, :func:`adjusted_rand_index`,
  :func:`adjusted_rand_index_approx` (ARI′), :func:`variation_of_information`,
  :func:`normalized_mutual_info`, :func:`jaccard_index`, :func:`f_measure`, :func:`mirkin_index`,
  and the measures users of scikit-learn expect: :func:`mutual_info`, :func:`expected_mutual_info`,
  :func:`adjusted_mutual_info` (exact hypergeometric expectation), :func:`fowlkes_mallows`,
  :func:`homogeneity`, :func:`completeness`, :func:`v_measure`;
* co-membership form (Definition 4, Theorem 4.1) for overlapping and soft clusterings:
  :func:`ri_delta`, :func:`ari_delta`, :func:`i_norm`, :func:`i_sqrt_tr`, and Omega:
  :func:`omega` (Collins–Dent adjusted, = cdlib's ``omega``) and :func:`omega_unadjusted`
  (the raw index; ``adjusted_omega`` is a deprecated alias of :func:`omega`);
* overlapping NMI of covers (Rabbany & Zaïane's NMI′ and NMI″): :func:`overlapping_nmi`;
* graph-aware agreement (sec. 4.1): the ``graph=``/``mode=``/``direct_weight=`` keywords of
  the Δ measures and :func:`agreement_with_graph`;
* LFR benchmark graphs (weighted, overlapping): :func:`lfr_benchmark` returning an
  :class:`LFRBenchmark`, with :func:`realized_mixing` and :func:`powerlaw_exponent_mle`.

Inputs are normalized by :func:`as_clustering` (label vectors, covers, membership matrices,
cdlib ``NodeClustering`` objects) and graphs by :func:`as_graph`; all results are Python floats.

Data:

* :data:`MEASURES` — the registry of named measures, ``{name: MeasureSpec}`` (the CLI's
  ``-m`` names; :func:`get_measure` also resolves aliases);
* :data:`PHI_FUNCTIONS` — the named φ functions of :func:`generalized_distance`,
  ``{"xlogx", "comb2", "x(x-1)", "square"}`` -> elementwise callable.

The seed-table helpers of the pipeline (``seed_table``, ``seed_table_frame``,
``seed_table_markdown``, ``SEED_TABLE_COLUMNS``) live in :mod:`agreekit.clustering._tables`.
"""

from agreekit.clustering._comembership import (  # noqa: F401 (adjusted_omega: deprecated alias)
    CoMembershipStats,
    adjusted_omega,
    ari_delta,
    comembership_stats,
    i_norm,
    i_sqrt_tr,
    omega,
    omega_unadjusted,
    ri_delta,
)
from agreekit.clustering._contingency import (
    PHI_FUNCTIONS,
    ContingencyTable,
    adjusted_mutual_info,
    adjusted_rand_index,
    adjusted_rand_index_approx,
    completeness,
    contingency_table,
    expected_mutual_info,
    f_measure,
    fowlkes_mallows,
    generalized_distance,
    homogeneity,
    jaccard_index,
    mirkin_index,
    mutual_info,
    normalized_mutual_info,
    rand_index,
    v_measure,
    variation_of_information,
)
from agreekit.clustering._files import read_clustering, read_graph
from agreekit.clustering._inputs import Clustering, Graph, as_clustering, as_graph
from agreekit.clustering._overlapping import overlapping_nmi
from agreekit.clustering._registry import MEASURES, MeasureSpec, agreement_with_graph, get_measure, list_measures
from agreekit.clustering._tables import (  # noqa: F401 (pipeline)
    SEED_TABLE_COLUMNS,
    seed_table,
    seed_table_frame,
    seed_table_markdown,
)
from agreekit.clustering.lfr import LFRBenchmark, LFRWarning, lfr_benchmark, powerlaw_exponent_mle, realized_mixing

__all__ = [
    "as_clustering",
    "Clustering",
    "as_graph",
    "Graph",
    "read_clustering",
    "read_graph",
    "contingency_table",
    "ContingencyTable",
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
    "overlapping_nmi",
    "ri_delta",
    "ari_delta",
    "i_norm",
    "i_sqrt_tr",
    "omega",
    "omega_unadjusted",
    "agreement_with_graph",
    "comembership_stats",
    "CoMembershipStats",
    "MEASURES",
    "MeasureSpec",
    "get_measure",
    "list_measures",
    "lfr_benchmark",
    "LFRBenchmark",
    "LFRWarning",
    "realized_mixing",
    "powerlaw_exponent_mle",
]
