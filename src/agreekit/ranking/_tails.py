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


def binomial_se(p: float, size: int) -> float:
    """Standard error of a tail estimate p = (b + 1)/(size + 1) from ``size`` draws: the binomial
    sqrt(size · q(1 − q))/(size + 1) at the Laplace estimate q = (b + 1)/(size + 2) of the tail
    probability, which is never 0 or 1 (at b = size, where every draw was as extreme, p = 1 and the
    plug-in sqrt(p(1 − p)/size) would be 0 although the exact tail may be below 1)."""
    q = p * (size + 1) / (size + 2)
    return math.sqrt(size * q * (1.0 - q)) / (size + 1)


def plugin_se(p: float, size: int) -> float:
    """Binomial standard error sqrt(p(1 − p)/size) at the estimate p itself (the table's tails, whose
    probabilities come from quantiles of ``size`` effective draws)."""
    return math.sqrt(p * (1.0 - p) / size)


def tail_se(p_ge, p_le, alternative, size, *, single=plugin_se):
    """Standard error of the tail estimate(s) that the p-value of ``alternative`` is made of, from
    ``size`` draws, ``single(p_tail, size)`` per tail; two-sided: twice the smaller tail's, also where
    the p-value is cut at 1 (the cut only shrinks the error, and the exact p may be below 1)."""
    if alternative == "greater":
        return single(p_ge, size)
    if alternative == "less":
        return single(p_le, size)
    return 2.0 * single(min(p_ge, p_le), size)
