"""Meta-evaluation of evaluation metrics across the seeds.

Do two IR metrics agree on the *top* systems, how sure are we, and what is the consensus?

* :func:`metric_agreement` — for every metric pair, Kendall τ_b (Sakai 2006)
  and the top-weighted τ_w standardized by g (Lombardo 2025), their bootstrap SEs from one
  shared set of topic samples, the p-value of τ_w and the top-k overlap
  (:class:`MetricAgreement`, ``to_frame()``);
* :func:`consensus_ranking` — the Kemeny median (Amodio, D'Ambrosio & Siciliano 2016) of the metric-induced system
  rankings with each metric's τ_x to it (:class:`ConsensusRanking`);
* :mod:`agreekit.metaeval.report` — the pipeline's tables, heatmap and cross-collection
  summary.

:data:`COLUMNS` lists the columns of :meth:`MetricAgreement.to_frame`, in order.
"""

from agreekit.metaeval._agreement import COLUMNS, MetricAgreement, metric_agreement
from agreekit.metaeval._consensus import ConsensusRanking, consensus_ranking

__all__ = ["metric_agreement", "MetricAgreement", "consensus_ranking", "ConsensusRanking", "COLUMNS"]
