"""IR evaluation (seed 002): metrics from qrels and runs, and the bootstrap.

* :mod:`~agreekit.ireval.metrics` — AveP, P@l, Q, nCG@l, nDCG@l, … from TREC
  qrels and runs; reading and aligning topics × systems score matrices.
* :mod:`~agreekit.ireval.bootstrap` — paired/unpaired bootstrap tests,
  discriminative power, required difference, stability, swap rates and the
  bootstrap standard error of rank correlations.
* :mod:`~agreekit.ireval.report` — the paper's tables and figures for a collection.
"""
from agreekit.ireval.bootstrap import (
    bootstrap_indices,
    discriminative_power,
    meta_evaluate,
    paired_test,
    rank_correlation_se,
    stability,
    swap_rates,
    unpaired_test,
)
from agreekit.ireval.metrics import evaluate, load_scores, read_qrels, read_run

__all__ = [
    "evaluate", "read_qrels", "read_run", "load_scores",
    "bootstrap_indices", "paired_test", "unpaired_test", "discriminative_power",
    "stability", "swap_rates", "rank_correlation_se", "meta_evaluate",
]
