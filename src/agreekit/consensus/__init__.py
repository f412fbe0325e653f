"""Kemeny consensus (median) rankings for complete, weak and partial rankings."""
from agreekit.consensus._matrices import (
    RankingData, as_rankings, average_tau_x, combined_input_matrix, dense_ranks,
    kemeny_distance, ordering_string, penalty, score_matrix, tau_x,
)
from agreekit.consensus._kemeny import KemenyResult, kemeny, warmup
from agreekit.consensus._exact import components

__all__ = [
    "kemeny", "KemenyResult", "RankingData", "as_rankings", "score_matrix",
    "combined_input_matrix", "tau_x", "kemeny_distance", "average_tau_x", "penalty",
    "dense_ranks", "ordering_string", "components", "warmup", "read_rankings",
]
from agreekit.consensus._io import read_rankings  # noqa: E402
