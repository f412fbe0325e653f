"""Tail probabilities of a null distribution: the tie tolerance, the two-sided combination and the
binomial standard error (the p-value conventions of :mod:`agreekit.ranking.significance`, shared by
the exact, Monte Carlo, table and tied nulls)."""

from __future__ import annotations

import math

_TIE_RTOL = 1e-12
_TIE_ATOL = 1e-14


def tie_tol(gamma: float) -> float:
    """Null values within this distance of γ count as ties (both Γ >= γ and Γ <= γ hold)."""
    return max(_TIE_RTOL * abs(gamma), _TIE_ATOL)


def combine(p_ge: float, p_le: float, alternative: str) -> float:
    """The p-value of ``alternative`` from the two tails P(Γ >= γ), P(Γ <= γ)."""
    if alternative == "greater":
        return min(1.0, p_ge)
    if alternative == "less":
        return min(1.0, p_le)
    return min(1.0, 2.0 * min(p_ge, p_le))


def tail_se(p_ge, p_le, p, alternative, size):
    """Binomial standard error of the tail estimate(s) that p is made of, from ``size`` draws."""
    if alternative == "greater":
        return math.sqrt(p_ge * (1 - p_ge) / size)
    if alternative == "less":
        return math.sqrt(p_le * (1 - p_le) / size)
    q = min(p_ge, p_le)
    return 0.0 if p >= 1.0 else 2.0 * math.sqrt(q * (1 - q) / size)
