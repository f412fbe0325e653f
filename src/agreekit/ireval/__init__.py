"""IR evaluation (Sakai 2006): metrics from qrels and runs, and the bootstrap.

* :mod:`~agreekit.ireval.metrics` — AP, P@k, R@k, RR, Rprec, nDCG@k (trec_eval's form),
  nDCG_jk@k (Sakai's), Q-measure, nCG@k from TREC qrels and runs (ir_measures names,
  measure objects and frames accepted); reading and aligning topics × systems score matrices.
  :data:`METRICS` is the registry of every IR metric name (definitions, parameters, aliases).
* :mod:`~agreekit.ireval.bootstrap` — paired/unpaired bootstrap tests,
  discriminative power, required difference, stability, swap rates and the
  bootstrap standard errors of rank correlations and differences.
* :mod:`~agreekit.ireval.report` — the paper's tables and figures for a collection.

Every public function and result class of the two modules is importable from here.
"""

from agreekit.ireval.bootstrap import (
    DiscriminativePowerResult,
    DifferenceSEResult,
    MetaEvaluation,
    PairedTestResult,
    RankCorrelationResult,
    StabilityResult,
    SwapResult,
    UnpairedTestResult,
    bootstrap_indices,
    critical_rank,
    difference_bin,
    difference_se,
    discriminative_power,
    format_difference,
    kendall_critical_value,
    kendall_normal_test,
    meta_evaluate,
    paired_test,
    rank_correlation_se,
    spearman_t_test,
    stability,
    swap_rates,
    unpaired_test,
)
from agreekit.ireval.metrics import (
    METRICS,
    MetricDefinition,
    MetricSpec,
    align_scores,
    arithmetic_mean,
    evaluate,
    geometric_mean,
    load_scores,
    parse_metric,
    read_qrels,
    read_run,
    round_significant,
    topic_metrics,
)

__all__ = [
    "evaluate",
    "read_qrels",
    "read_run",
    "load_scores",
    "parse_metric",
    "topic_metrics",
    "align_scores",
    "METRICS",
    "MetricDefinition",
    "MetricSpec",
    "arithmetic_mean",
    "geometric_mean",
    "round_significant",
    "bootstrap_indices",
    "paired_test",
    "unpaired_test",
    "discriminative_power",
    "stability",
    "swap_rates",
    "rank_correlation_se",
    "difference_se",
    "meta_evaluate",
    "critical_rank",
    "difference_bin",
    "format_difference",
    "kendall_normal_test",
    "kendall_critical_value",
    "spearman_t_test",
    "PairedTestResult",
    "UnpairedTestResult",
    "DiscriminativePowerResult",
    "StabilityResult",
    "SwapResult",
    "RankCorrelationResult",
    "DifferenceSEResult",
    "MetaEvaluation",
]
