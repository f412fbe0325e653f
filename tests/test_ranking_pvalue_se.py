"""The Monte Carlo ``pvalue_se`` of ``weighted_correlation_test``: it must be the standard error of the
reported p-value, to 10 %.

References (no agreekit code): the exact p-value of the permutation test by enumerating all 8! = 40320
permutations with the coefficient of tests/_independent_null.py (checked against scipy.stats.weightedtau),
the binomial standard error sqrt(p(1 - p)/B) · B/(B + 1) of (b + 1)/(B + 1) at that exact p (twice the
smaller tail's for the two-sided p), and the spread of p over independent seeds.
"""

import itertools
import math

import numpy as np
import pytest

from _independent_null import coefficient_rows

from agreekit.ranking import weighted_correlation_test

N = 8
ALL = np.array(list(itertools.permutations(range(1, N + 1))), dtype=np.int64)
X = np.arange(1, N + 1)
CASES = [("kendall", "additive", "harmonic", 0), ("spearman", "multiplicative", "inverse_square:n0=1", 1)]


def exact_tails(coefficient, scheme, weigher, y):
    """P(Γ ≥ γ), P(Γ ≤ γ) over all permutations (ties within 1e-12 count on both sides)."""
    null = coefficient_rows(ALL, coefficient, scheme, weigher)
    g = coefficient_rows(np.asarray([y], dtype=np.int64), coefficient, scheme, weigher)[0]
    return float(np.mean(null >= g - 1e-12)), float(np.mean(null <= g + 1e-12))


def _y(seed):
    """A ranking whose exact upper tail is near 0.1 (a p where the SE is well resolved)."""
    return ALL[[3779, 3532][seed]]


def binomial_se(p_ge, p_le, alternative, B):
    q = {"greater": p_ge, "less": p_le, "two-sided": min(p_ge, p_le)}[alternative]
    return (1 if alternative != "two-sided" else 2) * math.sqrt(q * (1 - q) / B) * B / (B + 1)


@pytest.mark.parametrize("coefficient, scheme, weigher, k", CASES)
@pytest.mark.parametrize("alternative", ["greater", "two-sided"])
def test_pvalue_se_is_the_binomial_se_at_the_exact_p(coefficient, scheme, weigher, k, alternative):
    y = _y(k)
    p_ge, p_le = exact_tails(coefficient, scheme, weigher, y)
    assert 0.02 < min(p_ge, p_le) < 0.4  # a p where 10 % of the SE is resolved
    B = 20_000
    res = weighted_correlation_test(
        X,
        y,
        coefficient=coefficient,
        scheme=scheme,
        weigher=weigher,
        method="monte-carlo",
        n_resamples=B,
        rng=5,
        alternative=alternative,
    )
    assert res.method == "monte-carlo" and res.n_resamples_used == B
    assert res.pvalue_se == pytest.approx(binomial_se(p_ge, p_le, alternative, B), rel=0.10)


@pytest.mark.parametrize("coefficient, scheme, weigher, k", CASES)
def test_pvalue_se_is_the_spread_of_p_over_independent_seeds(coefficient, scheme, weigher, k):
    """K = 1000 independent runs of B = 1000: the sample SD of p has a relative SE of
    1/sqrt(2(K - 1)) = 2.2 %, so 10 % is 4.5 of its SEs; the mean reported SE must match the SD."""
    y = _y(k)
    p_ge, p_le = exact_tails(coefficient, scheme, weigher, y)
    B, K = 1000, 1000
    seeds = np.random.SeedSequence(20261204 + k).spawn(K)
    for alternative in ("greater", "two-sided"):
        ps, ses = [], []
        for s in seeds:
            r = weighted_correlation_test(
                X,
                y,
                coefficient=coefficient,
                scheme=scheme,
                weigher=weigher,
                method="monte-carlo",
                n_resamples=B,
                rng=np.random.default_rng(s),
                alternative=alternative,
            )
            ps.append(r.pvalue)
            ses.append(r.pvalue_se)
        sd = float(np.std(ps, ddof=1))
        assert float(np.mean(ses)) == pytest.approx(sd, rel=0.10), alternative
        assert sd == pytest.approx(binomial_se(p_ge, p_le, alternative, B), rel=0.10), alternative
        # and the estimates are centred on the exact p (B/(B+1) bias of (b+1)/(B+1) is 1e-3 of p)
        p_exact = {"greater": p_ge, "two-sided": min(1.0, 2 * min(p_ge, p_le))}[alternative]
        assert abs(np.mean(ps) - p_exact) <= 4 * sd / math.sqrt(K) + 2 / (B + 1)
