"""Kemeny consensus (median) rankings for complete, weak and partial rankings.

See :func:`kemeny` (QUICK, FAST and exact solvers returning all optima), the Emond–Mason
algebra (:func:`score_matrix`, :func:`combined_input_matrix`, :func:`tau_x`,
:func:`average_tau_x`, :func:`penalty`, :func:`kemeny_distance`) and
:mod:`agreekit.consensus.simulation` for the report's simulation study.
"""
from agreekit.consensus._exact import components
from agreekit.consensus._io import read_rankings
from agreekit.consensus._kemeny import KemenyResult, TimeLimitWarning, kemeny, warmup
from agreekit.consensus._matrices import (
    RankingData, as_rankings, average_tau_x, combined_input_matrix, dense_ranks,
    kemeny_distance, ordering_string, penalty, score_matrix, tau_x,
)

__all__ = [
    "kemeny", "KemenyResult", "TimeLimitWarning", "RankingData", "as_rankings", "read_rankings", "score_matrix",
    "combined_input_matrix", "tau_x", "kemeny_distance", "average_tau_x", "penalty",
    "dense_ranks", "ordering_string", "components", "warmup",
]
