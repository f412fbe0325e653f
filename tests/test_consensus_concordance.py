"""Kendall's W and the Iman–Conover top-down concordance against independent references:
the formulas written here, scipy.stats.friedmanchisquare, brute-force permutation nulls and a
published R value (irr's ``kendall``, as documented with DescTools' ``KendallW``)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from agreekit import InputError
from agreekit.consensus import kendall_w, savage_scores, top_down_concordance, top_down_correlation, read_rankings


# ----------------------------------------------------------------------------- references written here


def w_formula(X):
    """Kendall & Babington Smith's W with the tie correction: rows = rankers, average ranks."""
    X = np.asarray(X, dtype=float)
    m, n = X.shape
    R = np.array([stats.rankdata(row) for row in X])
    Rj = R.sum(axis=0)
    S = ((Rj - m * (n + 1) / 2) ** 2).sum()
    T = 0.0
    for row in X:
        _, t = np.unique(row, return_counts=True)
        T += float((t**3 - t).sum())
    return 12 * S / (m**2 * (n**3 - n) - m * T)


def savage(n):
    return np.array([sum(1.0 / j for j in range(i, n + 1)) for i in range(1, n + 1)])


def ct_formula_untied(X):
    """Iman & Conover (1987): C_T = (Σ_j (Σ_k S_kj)² − m²n) / (m²(n − S_1)), no ties."""
    X = np.asarray(X)
    m, n = X.shape
    S = savage(n)
    T = np.array([S[np.asarray(row) - 1] for row in X]).sum(axis=0)
    return (float((T**2).sum()) - m * m * n) / (m * m * (n - S[0]))


def rt_formula_untied(x, y):
    """Iman & Conover (1987): r_T = (Σ S_x S_y − n) / (n − S_1)."""
    n = len(x)
    S = savage(n)
    return (float((S[np.asarray(x) - 1] * S[np.asarray(y) - 1]).sum()) - n) / (n - S[0])


def distinct_perms(row):
    return sorted(set(itertools.permutations(list(row))))


def brute_force_pvalues(scores):
    """P(Q ≥ q) and P(Q ≤ q) of Q = Σ_j (column sum)², every ranker's scores permuted
    independently over ALL arrangements (no symmetry used)."""
    scores = [np.asarray(r, dtype=float) for r in scores]
    P = [np.array(list(itertools.permutations(r))) for r in scores]  # n! rows each (repeats for ties)
    T = P[0][:, None, None, :] + P[1][None, :, None, :] + P[2][None, None, :, :]
    Q = (T**2).sum(axis=-1).ravel()
    q = float((np.sum(scores, axis=0) ** 2).sum())
    tol = 1e-9 * q
    return float(np.mean(Q >= q - tol)), float(np.mean(Q <= q + tol))


def random_tied(rng, m, n):
    """m rankings of n items with ties (values drawn from a few levels)."""
    levels = rng.integers(2, n + 1)
    return rng.integers(1, levels + 1, size=(m, n))


# ----------------------------------------------------------------------------- Kendall's W


def test_w_equals_formula_and_friedmanchisquare_on_random_tied_data():
    rng = np.random.default_rng(20261204)
    n_checked = 0
    for _ in range(250):
        m, n = int(rng.integers(2, 12)), int(rng.integers(3, 15))
        X = random_tied(rng, m, n)
        if any(np.unique(r).size == 1 for r in X) and all(np.unique(r).size == 1 for r in X):
            continue
        ref = w_formula(X)
        res = kendall_w(X, method="chi2")
        fr = stats.friedmanchisquare(*X.T)  # blocks = rankers, treatments = items
        assert res.statistic == pytest.approx(ref, rel=1e-12, abs=1e-12)
        assert res.chi2 == pytest.approx(float(fr.statistic), rel=1e-12, abs=1e-12)
        assert res.pvalue == pytest.approx(float(fr.pvalue), rel=1e-12, abs=1e-15)
        assert res.df == n - 1 and res.method == "chi2"
        n_checked += 1
    assert n_checked >= 200


def test_w_f_test_is_the_f_approximation():
    rng = np.random.default_rng(5)
    for _ in range(20):
        m, n = int(rng.integers(3, 9)), int(rng.integers(4, 10))
        X = random_tied(rng, m, n)
        W = w_formula(X)
        d1 = n - 1 - 2 / m
        F = (m - 1) * W / (1 - W)
        res = kendall_w(X, method="f")
        assert res.f == pytest.approx(F, rel=1e-12)
        assert res.df_f == pytest.approx((d1, (m - 1) * d1), rel=1e-15)
        assert res.pvalue == pytest.approx(float(stats.f.sf(F, d1, (m - 1) * d1)), rel=1e-10)


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("tied", [False, True])
def test_w_exact_pvalue_equals_brute_force(n, tied):
    rng = np.random.default_rng(100 * n + tied)
    for _ in range(3):
        X = random_tied(rng, 3, n) if tied else np.array([rng.permutation(n) + 1 for _ in range(3)])
        if any(np.unique(r).size == 1 for r in X):
            X[0] = np.arange(1, n + 1)
        ranks = [stats.rankdata(r) for r in X]
        p_ge, p_le = brute_force_pvalues(ranks)
        for alt, ref in (("greater", p_ge), ("less", p_le), ("two-sided", min(1.0, 2 * min(p_ge, p_le)))):
            res = kendall_w(X, method="exact", alternative=alt)
            assert res.method == "exact"
            assert res.pvalue == pytest.approx(ref, rel=1e-12, abs=1e-15)


def test_w_auto_picks_exact_when_small_and_f_when_large():
    small = kendall_w([[1, 2, 3, 4], [1, 3, 2, 4], [2, 1, 3, 4]])
    assert small.method == "exact" and "exact" in small.message
    rng = np.random.default_rng(0)
    big = np.array([rng.permutation(12) + 1 for _ in range(8)])
    res = kendall_w(big)
    assert res.method == "f" and "EXACT_BUDGET" in res.message
    with pytest.raises(InputError, match="monte-carlo"):
        kendall_w(big, method="exact")


def test_w_monte_carlo_close_to_exact_and_reproducible():
    X = np.array([[1, 2, 3, 4, 5], [2, 1, 3, 5, 4], [1, 3, 2, 4, 5], [3, 1, 2, 5, 4]])
    exact = kendall_w(X, method="exact").pvalue
    mc = kendall_w(X, method="monte-carlo", n_resamples=20000, rng=1)
    assert abs(mc.pvalue - exact) < 4 * math.sqrt(exact * (1 - exact) / 20000) + 1e-4
    assert mc == kendall_w(X, method="monte-carlo", n_resamples=20000, rng=1)
    assert mc.n_resamples == 20000


def test_w_irr_anxiety_published_value():
    # irr's `anxiety` data (20 subjects x 3 raters; the same integers as irr 0.84.1's data/anxiety.rda),
    # listed in DescTools' KendallW documentation, which reports KendallW(anxiety, TRUE) = 0.5396569
    # (irr's kendall(correct=TRUE), "integrated without logical changes"):
    # https://andrisignorell.github.io/DescTools/reference/KendallW.html
    anxiety = pd.DataFrame(
        {
            "rater1": [3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3],
            "rater2": [3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4],
            "rater3": [2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2],
        }
    )
    res = kendall_w(anxiety.T, method="chi2")  # rows = raters
    assert round(res.statistic, 7) == 0.5396569
    assert res.chi2 == pytest.approx(3 * 19 * res.statistic, rel=1e-15)


def test_w_identical_rankings_is_one_and_unpacks():
    X = [[1, 2, 2, 4], [1, 2, 2, 4], [1, 2, 2, 4]]
    w, p = kendall_w(X, method="chi2")
    assert w == pytest.approx(1.0, abs=1e-15)
    res = kendall_w(X, method="f")
    assert math.isinf(res.f) and res.pvalue == 0.0
    d = res.to_dict()
    assert d["statistic"] == pytest.approx(1.0) and d["method"] == "f"


def test_w_incomplete_ranking_is_a_clear_error():
    X = [[1, 2, 3], [1, np.nan, 2]]
    with pytest.raises(InputError, match=r"`rankings` row 1 leaves item 1 unranked .*complete rankings.*rank every"):
        kendall_w(X)
    with pytest.raises(InputError, match="`method`"):
        kendall_w([[1, 2], [2, 1]], method="kendall")
    with pytest.raises(InputError, match="`alternative`"):
        kendall_w([[1, 2], [2, 1]], alternative="up")
    with pytest.raises(InputError, match="at least 2 rankings"):
        kendall_w([[1, 2, 3]])
    with pytest.raises(InputError, match="ties all items"):
        kendall_w([[1, 1, 1], [2, 2, 2]])


def test_w_frequency_weights_are_repeated_rows(tmp_path):
    f = tmp_path / "r.csv"
    f.write_text("a,b,c,weight\n1,2,3,2\n2,1,3,1\n")
    res = kendall_w(read_rankings(f), method="chi2")
    assert res.statistic == pytest.approx(w_formula([[1, 2, 3], [1, 2, 3], [2, 1, 3]]), rel=1e-12)
    assert res.n_rankers == 3


# ----------------------------------------------------------------------------- top-down concordance


def test_savage_scores_definition():
    assert savage_scores([3, 1, 2]) == pytest.approx(savage(3)[[2, 0, 1]], rel=1e-15)
    s = savage(4)
    assert savage_scores([1, 2, 2, 4]) == pytest.approx([s[0], (s[1] + s[2]) / 2, (s[1] + s[2]) / 2, s[3]])


def test_ct_equals_iman_conover_formula_without_ties():
    rng = np.random.default_rng(7)
    for _ in range(100):
        m, n = int(rng.integers(2, 10)), int(rng.integers(3, 20))
        X = np.array([rng.permutation(n) + 1 for _ in range(m)])
        res = top_down_concordance(X, method="chi2")
        ref = ct_formula_untied(X)
        assert res.statistic == pytest.approx(ref, rel=1e-12, abs=1e-13)
        assert res.chi2 == pytest.approx(m * (n - 1) * ref, rel=1e-12, abs=1e-12)
        assert res.pvalue == pytest.approx(float(stats.chi2.sf(m * (n - 1) * ref, n - 1)), rel=1e-10, abs=1e-15)


def test_ct_identical_rankings_is_one():
    for row in ([3, 1, 2, 5, 4], [1, 1, 2, 3, 3], [2, 1, 1, 1, 1]):
        assert top_down_concordance([row] * 4, method="chi2").statistic == pytest.approx(1.0, abs=1e-14)


def test_two_rankings_ct_is_half_one_plus_rt():
    rng = np.random.default_rng(11)
    for _ in range(100):
        n = int(rng.integers(3, 25))
        x, y = rng.permutation(n) + 1, rng.permutation(n) + 1
        rt = top_down_correlation(x, y)
        assert rt == pytest.approx(rt_formula_untied(x, y), rel=1e-12, abs=1e-13)
        ct = top_down_concordance([x, y], method="chi2").statistic
        assert ct == pytest.approx((1 + rt) / 2, rel=1e-12, abs=1e-13)
        # with ties r_T is Pearson's correlation of the average Savage scores
        xt, yt = rng.integers(1, 4, n), rng.integers(1, 4, n)
        if np.unique(xt).size > 1 and np.unique(yt).size > 1:
            ref = np.corrcoef(savage_scores(xt), savage_scores(yt))[0, 1]
            assert top_down_correlation(xt, yt) == pytest.approx(ref, rel=1e-10, abs=1e-12)
    assert top_down_correlation([1, 2, 3, 4], [1, 2, 3, 4]) == pytest.approx(1.0)
    assert top_down_correlation([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(
        rt_formula_untied([1, 2, 3, 4], [4, 3, 2, 1])
    )


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("tied", [False, True])
def test_ct_permutation_pvalue_equals_brute_force(n, tied):
    rng = np.random.default_rng(300 + 10 * n + tied)
    for _ in range(3):
        X = random_tied(rng, 3, n) if tied else np.array([rng.permutation(n) + 1 for _ in range(3)])
        if any(np.unique(r).size == 1 for r in X):
            X[0] = np.arange(1, n + 1)
        p_ge, p_le = brute_force_pvalues([savage_scores(r) for r in X])
        for alt, ref in (("greater", p_ge), ("less", p_le), ("two-sided", min(1.0, 2 * min(p_ge, p_le)))):
            res = top_down_concordance(X, method="exact", alternative=alt)
            assert res.pvalue == pytest.approx(ref, rel=1e-12, abs=1e-15)
        mc = top_down_concordance(X, method="monte-carlo", n_resamples=4000, rng=3)
        assert abs(mc.pvalue - p_ge) < 4 * math.sqrt(max(p_ge * (1 - p_ge), 1e-4) / 4000) + 1e-3


def test_ct_chi2_pvalues_uniform_under_h0():
    rng = np.random.default_rng(123)
    m, n = 20, 15
    p = [
        top_down_concordance(np.array([rng.permutation(n) + 1 for _ in range(m)]), method="chi2").pvalue
        for _ in range(400)
    ]
    assert stats.kstest(p, "uniform").pvalue > 0.01


def test_ct_errors():
    with pytest.raises(InputError, match="`rankings` row 0 leaves item 2 unranked"):
        top_down_concordance([[1, 2, np.nan], [1, 2, 3]])
    with pytest.raises(InputError, match="`method`"):
        top_down_concordance([[1, 2], [2, 1]], method="f")
    with pytest.raises(InputError, match="`y` must rank the same number"):
        top_down_correlation([1, 2, 3], [1, 2])
    with pytest.raises(InputError, match="`x` ties every item"):
        top_down_correlation([1, 1, 1], [1, 2, 3])
    with pytest.raises(InputError, match=r"^`y` leaves item 0 unranked"):
        top_down_correlation([1, 2, 3], [np.nan, 1, 2])
