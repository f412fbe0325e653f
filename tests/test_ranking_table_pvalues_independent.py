"""Every shipped table's p-values (``weighted_correlation_test(method="table")``) at a held-out n ≥ 500
against a permutation Monte Carlo that shares no code with the fused kernel that built the tables:
numpy's ``Generator.permuted`` permutations and the coefficient of tests/_independent_null.py (checked
against ``scipy.stats.weightedtau`` and numpy's weighted covariance in
tests/test_ranking_independent_null.py).

Tolerance.  The reference has B = 10^5 permutations; at a reference p its binomial SE is
sqrt(p(1 - p)/B) (0.022 % at p = 0.005: a relative 4.5 %; 0.16 % at p = 0.5), and the table's own
sampling error is its reported ``pvalue_se`` (effective size ~10^6, a tenth of the reference's variance at
most).  Each of the 14 points (7 probabilities × 2 tails) must agree within 4.5 of the two SEs together
(a false alarm < 10^-5 per point, < 0.3 % over the 224 points of the 16 tables).  That is tighter than the
README's target (≤ 0.005 absolute, ≤ 10 % relative below p = 0.05), which the tables meet with room: what
it checks is that the table is the null distribution of the coefficient, up to sampling error.  Planted
defects it catches: every table p-value × 1.1 (PLANT1), the table's null built from Γ off by
1 % (p evaluated at γ/1.01; PLANT2).
"""

import numpy as np
import pytest

from _independent_null import coefficient_rows, permutation_blocks

from agreekit.ranking import tables as T
from agreekit.ranking import weighted_correlation_test
from agreekit.ranking._quantile_model import quantile_model

N = 1000  # held out: not a stored length of any table (asserted)
B = 100_000  # reference permutations per coefficient (shared by its 8 tables)
PROBS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5)
Z = 4.5


@pytest.mark.parametrize("coefficient", ["kendall", "spearman"])
def test_every_shipped_table_pvalue_against_an_independent_monte_carlo(coefficient):
    sids = [s for s in T.available_tables() if s.startswith(coefficient)]
    assert len(sids) == 8
    tabs = [T.load_table(s) for s in sids]
    for t in tabs:
        assert N not in quantile_model(t).index, t.scheme_id
    rng = np.random.default_rng([20261204, N, ("kendall", "spearman").index(coefficient)])
    samples = {s: [] for s in sids}
    query = None  # the first block of permutations: the query rankings
    for P in permutation_blocks(N, B, rng):
        if query is None:
            query = P.copy()
        for t in tabs:
            samples[t.scheme_id].append(coefficient_rows(P, coefficient, t.scheme, t.weigher))
    x = np.arange(1, N + 1)
    failures = []
    for t in tabs:
        g = np.concatenate(samples[t.scheme_id])
        assert g.size == B
        g_sorted = np.sort(g)
        g_query = g[: query.shape[0]]
        for p in PROBS:
            for side in ("less", "greater"):
                target = np.quantile(g_sorted, p if side == "less" else 1 - p)
                k = int(np.argmin(np.abs(g_query - target)))  # a query ranking with Γ near the quantile
                gamma = g_query[k]
                p_ref = (
                    np.searchsorted(g_sorted, gamma, side="right")
                    if side == "less"
                    else B - np.searchsorted(g_sorted, gamma, side="left")
                ) / B
                res = weighted_correlation_test(
                    x,
                    query[k],
                    coefficient=coefficient,
                    scheme=t.scheme,
                    weigher=t.weigher,
                    method="table",
                    alternative=side,
                )
                assert res.method == "table" and res.statistic == pytest.approx(gamma, abs=1e-10)
                allowed = Z * np.sqrt(p_ref * (1 - p_ref) / B + res.pvalue_se**2)
                if abs(res.pvalue - p_ref) > allowed:
                    failures.append(
                        f"{t.scheme_id} {side} p={p}: table {res.pvalue:.5f} vs reference "
                        f"{p_ref:.5f} (allowed ±{allowed:.5f})"
                    )
    assert not failures, "\n".join(failures)
