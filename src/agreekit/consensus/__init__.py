"""Kemeny consensus (median) rankings for complete, weak and partial rankings.

See :func:`kemeny` (QUICK, FAST and exact solvers returning all optima), the Emond–Mason
algebra (:func:`score_matrix`, :func:`combined_input_matrix`, :func:`tau_x`,
:func:`average_tau_x`, :func:`penalty`, :func:`kemeny_distance`),
:func:`compare_methods` / :func:`methods_table` (QUICK, FAST and exact side by side) and
:mod:`agreekit.consensus.simulation` for the report's simulation study.

Internals stay importable from their modules but are not part of the public namespace:
``agreekit.consensus._exact.components``, ``agreekit.consensus._kemeny.warmup``,
``agreekit.consensus._matrices.dense_ranks``.
"""

from agreekit.consensus._exact import components  # noqa: F401  (internal, not in __all__)
from agreekit.consensus._io import read_rankings
from agreekit.consensus._kemeny import KemenyResult, TimeLimitWarning, kemeny, warmup  # noqa: F401
from agreekit.consensus._matrices import (  # noqa: F401  (dense_ranks: internal)
    RankingData,
    as_rankings,
    average_tau_x,
    combined_input_matrix,
    dense_ranks,
    kemeny_distance,
    ordering_string,
    penalty,
    score_matrix,
    tau_x,
)
from agreekit.consensus.comparison import compare_methods, methods_table

__all__ = [
    "kemeny",
    "KemenyResult",
    "TimeLimitWarning",
    "RankingData",
    "as_rankings",
    "read_rankings",
    "score_matrix",
    "combined_input_matrix",
    "tau_x",
    "kemeny_distance",
    "average_tau_x",
    "penalty",
    "ordering_string",
    "compare_methods",
    "methods_table",
]
from agreekit.consensus._concordance import (
    KendallWResult,
    TopDownConcordanceResult,
    kendall_w,  # noqa: E402
    savage_scores,
    top_down_concordance,
    top_down_correlation,
)

__all__ += [
    "kendall_w",
    "KendallWResult",
    "top_down_concordance",
    "TopDownConcordanceResult",
    "top_down_correlation",
    "savage_scores",
]
from agreekit.consensus._bootstrap import ConsensusBootstrap, bootstrap_consensus  # noqa: E402

__all__ += ["bootstrap_consensus", "ConsensusBootstrap"]
