"""Deterministic oracles for agreekit.ireval.bootstrap (notes section 13), with injected resamples."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from agreekit._validation import InputError
from agreekit.ireval.bootstrap import (
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
from agreekit.ireval.metrics import load_scores

ROOT = Path(__file__).resolve().parents[1]
SCORES = ROOT / "resources" / "bootstrap" / "trec_topic_by_run_scores"

# Fig. 1 of the paper: w = (0.2, 0.0, 0.1, 0.4, 0.0), Q*b = (001, 003, 001, 002, 005)
W_FIG1 = np.array([0.2, 0.0, 0.1, 0.4, 0.0])
ROW_FIG1 = [0, 2, 0, 1, 4]


def test_fig1_indexing_and_hand_computed_t():
    # paired_test centres z = w - 0 at zbar = 0.14; the replicate of Fig. 1 is
    # w*b = (0.2, 0.1, 0.2, 0.0, 0.0) - 0.14: mean -0.04, sd 0.1 -> t* = -0.04 / (0.1 / sqrt 5)
    res = paired_test(W_FIG1, np.zeros(5), resamples=[ROW_FIG1])
    assert res.mean_difference == pytest.approx(0.14)
    assert res.bootstrap_differences[0] == pytest.approx(0.1 - 0.14)
    assert res.null_distribution[0] == pytest.approx(-0.04 / (0.1 / math.sqrt(5)))
    # observed t: mean 0.14, sd sqrt(0.112 / 4)
    assert res.statistic == pytest.approx(0.14 / (math.sqrt(0.112 / 4) / math.sqrt(5)))


def test_paired_asl_counting_by_hand():
    rows = [
        ROW_FIG1,  # |t*| = 0.894 < |t| = 1.871: not counted
        [3, 3, 3, 3, 3],  # constant non-zero replicate: |t*| = inf, counted
        [0, 1, 2, 3, 4],  # the original sample, centred: t* = 0, not counted
        [1, 1, 4, 4, 1],
    ]  # all zero-valued w + 0.14 ... constant -0.14: inf, counted
    res = paired_test(W_FIG1, np.zeros(5), resamples=rows)
    assert res.null_distribution[2] == pytest.approx(0.0, abs=1e-12)
    assert np.isinf(res.null_distribution[1]) and np.isinf(res.null_distribution[3])
    assert res.asl == pytest.approx(2 / 4)


def test_fig3_unpaired_example():
    res = unpaired_test([0.1, 0.3], [0.2, 0.0], resamples=[[0, 3, 0, 1]])
    # x* = (0.1, 0.0), y* = (0.1, 0.3): d* = 0.05 - 0.2
    assert res.null_distribution[0] == pytest.approx(-0.15)
    assert res.statistic == pytest.approx(0.1)
    assert res.asl == 1.0
    res = unpaired_test([0.1, 0.3], [0.2, 0.0], resamples=[[0, 1, 2, 3], [0, 3, 0, 1]])
    assert res.null_distribution[0] == pytest.approx(0.1)  # tie with |dhat| counts (>=)
    assert res.asl == 1.0


def test_degenerate_pairs():
    x = np.array([0.1, 0.5, 0.3, 0.2, 0.9, 0.4])
    assert paired_test(x, x, rng=0).asl == 1.0
    assert paired_test(x, x, rng=0).statistic == 0.0
    r = paired_test(x + 0.1, x, rng=0)  # constant non-zero difference
    assert r.asl == 0.0 and np.isinf(r.statistic)
    assert unpaired_test(x, x, rng=0).asl == 1.0
    assert unpaired_test(x, x, summary="gmean", rng=0).asl == 1.0


def test_paired_t_matches_scipy_ttest_rel():
    rng = np.random.default_rng(5)
    for _ in range(5):
        x, y = rng.uniform(size=20), rng.uniform(size=20)
        res = paired_test(x, y, n_resamples=10, rng=1)
        assert res.statistic == pytest.approx(stats.ttest_rel(x, y).statistic, rel=1e-12)


def test_ag_variant_is_the_test_on_logs():
    rng = np.random.default_rng(3)
    x, y = rng.uniform(size=15), rng.uniform(size=15)
    x[0] = 0.0
    idx = bootstrap_indices(15, n_resamples=200, rng=2)
    ag = paired_test(x, y, summary="gmean", resamples=idx)
    lg = paired_test(np.log(x + 1e-5), np.log(y + 1e-5), resamples=idx)
    assert ag.statistic == pytest.approx(lg.statistic)
    assert ag.asl == lg.asl


def test_unpaired_callable_matches_builtin_and_median():
    rng = np.random.default_rng(4)
    x, y = rng.uniform(size=12), rng.uniform(size=9) + 0.2
    idx = bootstrap_indices(21, n_resamples=300, rng=9)
    a = unpaired_test(x, y, resamples=idx)
    b = unpaired_test(x, y, summary=np.mean, resamples=idx)
    c = unpaired_test(x, y, summary=lambda s: float(np.mean(s)), resamples=idx)  # no axis keyword
    assert a.asl == b.asl == c.asl
    np.testing.assert_allclose(a.null_distribution, c.null_distribution)
    med = unpaired_test(x, y, summary=np.median, resamples=idx)
    v = np.concatenate([x, y])[idx]
    ref = np.median(v[:, :12], axis=1) - np.median(v[:, 12:], axis=1)
    np.testing.assert_allclose(med.null_distribution, ref)
    assert med.asl == np.mean(np.abs(ref) >= abs(np.median(x) - np.median(y)))


def test_critical_rank():
    assert critical_rank(1000, 0.05) == 50
    assert critical_rank(1000, 0.01) == 10
    # B * alpha not an integer: k rounded down with a warning (issue 20; it used to be refused)
    with pytest.warns(UserWarning, match="rounded down to 50"):
        assert critical_rank(1000, 0.0505) == 50
    with pytest.warns(UserWarning, match="rounded down to 49"):
        assert critical_rank(999, 0.05) == 49
    with pytest.raises(InputError, match="alpha"):
        critical_rank(1000, 0.0005)  # B * alpha < 1
    with pytest.warns(UserWarning, match="rounded down to 1"):
        res = discriminative_power(np.random.default_rng(0).uniform(size=(5, 3)), alpha=0.05, n_resamples=30)
    assert res.k == 1


def test_difference_bins():
    assert difference_bin(0.031 - 0.021).item() == 1
    assert difference_bin([0.2, 0.57, 0.0, 0.0099]).tolist() == [20, 20, 0, 0]
    assert difference_bin(-0.05).item() == 5
    assert format_difference(1.4234) == "1.42"
    assert format_difference(0.10234, significant=2) == "0.1"


def test_kendall_normal_test_critical_value():
    # Sakai: with 30 runs a tau "over 0.34" is significant at alpha = .01; Eq. 11 gives 0.332
    c = kendall_critical_value(30, 0.01)
    assert c == pytest.approx(2.5758293 * math.sqrt(130 / 7830), rel=1e-6)
    assert round(c, 3) == 0.332
    z, p = kendall_normal_test(c, 30)
    assert p == pytest.approx(0.01)
    t0, p = spearman_t_test(0.5, 30)
    assert t0 == pytest.approx(0.5 * math.sqrt(28) / math.sqrt(0.75))
    assert p == pytest.approx(stats.pearsonr(*_corr_pair(0.5, 30)).pvalue, rel=1e-6)


def _corr_pair(r, n):
    # two vectors with Pearson correlation exactly r (for the p-value identity above)
    rng = np.random.default_rng(0)
    a = rng.normal(size=n)
    b = rng.normal(size=n)
    a = (a - a.mean()) / np.linalg.norm(a - a.mean())
    b = b - b.mean() - (b - b.mean()) @ a * a
    b /= np.linalg.norm(b)
    return a, r * a + math.sqrt(1 - r * r) * b


def test_stability_by_hand():
    X = np.array([[0.1, 0.2, 0.4], [0.3, 0.3, 0.5], [0.2, 0.4, 0.6]])
    res = stability(X, fuzziness=[0.0, 0.5], resamples=[[0, 1, 2], [0, 0, 0]])
    # f = 0.5, sample 1 (means .2 .3 .5): (0,1) EQ, (0,2) GT, (1,2) EQ; sample 2 (.1 .2 .4): all GT
    assert res.eq[1].tolist() == [1, 0, 1]
    assert res.proportion_of_ties.tolist() == [0.0, 2 / 6]
    assert res.minority_rate.tolist() == [0.0, 0.0]
    # f = 0 counts only exact ties: systems 0 and 1 tie on topic 1
    res = stability(X, fuzziness=[0.0], resamples=[[1, 1, 1], [0, 1, 2]])
    assert res.eq[0].tolist() == [1, 0, 0]
    assert (res.gt_ab + res.gt_ba + res.eq == 2).all()


def test_stability_minority_rate_by_hand():
    X = np.array([[0.5, 0.1], [0.1, 0.5], [0.3, 0.3]])
    res = stability(X, fuzziness=[0.0, 0.01], resamples=[[0, 0, 2], [1, 1, 2], [0, 1, 2], [0, 1, 1]])
    # means: (.433,.233) GT_ab; (.167,.433) GT_ba; (.3,.3) EQ; (.233,.367) GT_ba
    assert res.gt_ab[:, 0].tolist() == [1, 1] and res.gt_ba[:, 0].tolist() == [2, 2]
    assert res.minority_rate.tolist() == [1 / 4, 1 / 4]
    assert res.proportion_of_ties.tolist() == [1 / 4, 1 / 4]


def test_swap_rates_by_hand():
    X = np.array([[0.30, 0.10], [0.10, 0.25], [0.20, 0.20]])
    idx = [[0, 0, 0], [1, 1, 1], [2, 2, 2]]
    idx2 = [[1, 1, 1], [1, 1, 1], [0, 0, 0]]
    res = swap_rates(X, resamples=idx, resamples_prime=idx2)
    # D = (.2, -.15, 0), D' = (-.15, -.15, .2): bins 20, 15, 0; swaps at 20 (opposite) and 0 (tie)
    b = res.bins
    assert b["comparisons"].sum() == 3
    assert b.loc[20, "comparisons"] == 1 and b.loc[20, "swaps"] == 1
    assert b.loc[15, "comparisons"] == 1 and b.loc[15, "swaps"] == 0
    assert b.loc[0, "comparisons"] == 1 and b.loc[0, "swaps"] == 1
    assert res.abs_difference == pytest.approx(0.15)
    assert res.max_value == pytest.approx(0.30)
    assert res.rel_difference == pytest.approx(0.5)
    assert res.sensitivity == pytest.approx(2 / 3)
    assert np.isnan(b.loc[1, "swap_rate"])
    mono = swap_rates(X, resamples=idx, resamples_prime=idx2, monotone=True)
    assert np.isnan(mono.abs_difference) and mono.sensitivity == 0.0


def test_rank_correlation_against_scipy_per_replicate():
    rng = np.random.default_rng(11)
    A = pd.DataFrame(rng.uniform(size=(12, 7)) + np.linspace(0, 0.5, 7), columns=[f"s{j}" for j in range(7)])
    Bm = A + rng.normal(0, 0.15, A.shape)
    Bm.iloc[:, 3] = Bm.iloc[:, 2]  # a tie in metric b's ranking (tau-b matters)
    idx = bootstrap_indices(12, n_resamples=50, rng=4)
    res = rank_correlation_se(A, Bm, resamples=idx)
    ref = [stats.kendalltau(A.to_numpy()[r].mean(0), Bm.to_numpy()[r].mean(0)).statistic for r in idx]
    np.testing.assert_allclose(res.bootstrap_distribution, ref, rtol=1e-12)
    assert res.standard_error == pytest.approx(np.std(ref, ddof=1))
    assert res.correlation == pytest.approx(stats.kendalltau(A.mean(), Bm.mean()).statistic)
    sp = rank_correlation_se(A, Bm, coefficient="spearman", resamples=idx)
    ref = [stats.spearmanr(A.to_numpy()[r].mean(0), Bm.to_numpy()[r].mean(0)).statistic for r in idx]
    np.testing.assert_allclose(sp.bootstrap_distribution, ref, rtol=1e-12)
    # columns in another order are aligned by label, not position
    shuffled = Bm[list(reversed(Bm.columns))]
    assert rank_correlation_se(A, shuffled, resamples=idx).standard_error == res.standard_error
    ga = rank_correlation_se(A, A, summary_b="gmean", resamples=idx)
    ref = [
        stats.kendalltau(A.to_numpy()[r].mean(0), np.exp(np.log(A.to_numpy()[r] + 1e-5).mean(0))).statistic for r in idx
    ]
    np.testing.assert_allclose(ga.bootstrap_distribution, ref, rtol=1e-12)


def test_difference_se_eq13():
    res = difference_se([0.2, 0.4, 0.6], [0.1, 0.1, 0.4], resamples=[[0, 1, 2], [0, 0, 0]])
    # D = (0.2, 0.1): sd = 0.0707
    np.testing.assert_allclose(res.bootstrap_distribution, [0.2, 0.1])
    assert res.standard_error == pytest.approx(np.std([0.2, 0.1], ddof=1))


def test_required_difference_tie_break_takes_first_replicate():
    # all replicates of this 2-topic pair have |t*| in {inf, 0}: with k = 1 the
    # first replicate with |t*| = inf in replicate order decides the contribution
    x = np.array([0.3, 0.1])
    y = np.array([0.0, 0.0])
    idx = [[0, 1], [1, 1], [0, 0]]
    res = paired_test(x, y, resamples=idx)
    assert np.isinf(res.null_distribution[1:]).all()
    assert res.required_difference(alpha=1 / 3) == pytest.approx(0.1)  # replicate 1: |wbar*| = 0.1
    assert res.critical_value(alpha=1 / 3) == np.inf


@pytest.fixture(scope="module")
def adhoc5():
    return load_scores(SCORES / "adhoc5_ap.csv")


def test_threshold_identity_all_pairs_real_collection(adhoc5):
    """ASL < alpha exactly when |t| exceeds the B*alpha-th largest |t*| (paired and unpaired)."""
    for alpha in (0.05, 0.01):
        for test in ("paired", "unpaired"):
            res = discriminative_power(adhoc5, alpha=alpha, test=test, rng=42)
            tab = res.table
            stat = tab["statistic"].abs().to_numpy()
            assert ((tab["asl"] < alpha).to_numpy() == (stat > tab["critical_value"].to_numpy())).all()
            assert res.n_significant == int((tab["asl"] < alpha).sum())
            assert 0 < res.n_significant < res.n_pairs
    unp = discriminative_power(adhoc5, test="unpaired", rng=42)
    big = unp.table["statistic"].abs() > unp.estimated_difference
    assert big.any() and unp.table.loc[big, "significant"].all()


def test_identical_runs_in_real_data_get_asl_one():
    X = load_scores(SCORES / "adhoc8_ap.csv")
    res = discriminative_power(X[["run57", "run59", "run69", "run70", "run1"]], rng=1)
    t = res.table.set_index(["system_a", "system_b"])
    assert t.loc[("run57", "run59"), "asl"] == 1.0
    assert t.loc[("run69", "run70"), "asl"] == 1.0
    assert np.isnan(t.loc[("run57", "run59"), "required_difference"])


def test_orientation_invariance(adhoc5):
    X = adhoc5.iloc[:, :12]
    Y = X[list(reversed(X.columns))]
    ev1 = meta_evaluate(X, rng=3)
    ev2 = meta_evaluate(Y, rng=3)
    t1 = ev1.paired.table.assign(key=lambda d: [frozenset(p) for p in zip(d.system_a, d.system_b)])
    t2 = ev2.paired.table.assign(key=lambda d: [frozenset(p) for p in zip(d.system_a, d.system_b)])
    m = t1.merge(t2, on="key")
    np.testing.assert_array_equal(m["asl_x"], m["asl_y"])
    np.testing.assert_allclose(m["statistic_x"].abs(), m["statistic_y"].abs(), rtol=1e-12)
    np.testing.assert_allclose(m["required_difference_x"], m["required_difference_y"], rtol=1e-9)
    assert ev1.paired.estimated_difference == pytest.approx(ev2.paired.estimated_difference)
    np.testing.assert_array_equal(ev1.stability.minority_rate, ev2.stability.minority_rate)
    np.testing.assert_array_equal(ev1.stability.proportion_of_ties, ev2.stability.proportion_of_ties)
    np.testing.assert_array_equal(ev1.swap.bins["comparisons"], ev2.swap.bins["comparisons"])
    np.testing.assert_array_equal(ev1.swap.bins["swaps"], ev2.swap.bins["swaps"])


def test_seed_streams_are_shared_and_deterministic(adhoc5):
    X = adhoc5.iloc[:, :6]
    idx = bootstrap_indices(50, rng=8)
    a = discriminative_power(X, rng=8)
    b = discriminative_power(X, resamples=idx)
    pd.testing.assert_frame_equal(a.table, b.table)
    ev = meta_evaluate(X, rng=8)
    pd.testing.assert_frame_equal(ev.paired.table, a.table)
    assert np.array_equal(stability(X, rng=8).eq, ev.stability.eq)
    assert swap_rates(X, rng=8).bins.equals(ev.swap.bins)
    # the swap method's second set is independent of the first
    assert not np.array_equal(bootstrap_indices(50, rng=8), bootstrap_indices(50, rng=8, stream=1))


@pytest.mark.parametrize(
    "bad, param",
    [
        (np.array([[0.1, np.nan], [0.2, 0.3]]), "scores"),
        (np.array([[0.1, 0.2, 0.3]]), "scores"),
        (np.array([[0.1], [0.2]]), "scores"),
    ],
)
def test_bad_matrices(bad, param):
    with pytest.raises(InputError, match=param):
        discriminative_power(bad, n_resamples=20)


def test_bad_arguments():
    x = np.arange(5) / 10
    with pytest.raises(InputError, match="`y`"):
        paired_test(x, x[:4])
    with pytest.raises(InputError, match="resamples"):
        paired_test(x, x, resamples=[[0, 1, 2, 3, 5]])
    with pytest.raises(InputError, match="`summary`"):
        paired_test(x, x, summary=np.median)
    with pytest.raises(InputError, match="test"):
        discriminative_power(np.ones((3, 3)), test="wilcoxon")
    with pytest.raises(InputError, match="rng"):
        paired_test(x, x, rng="seed")
    with pytest.raises(InputError, match="x"):
        paired_test([0.1, np.nan, 0.3], [0.1, 0.2, 0.3])


def test_rank_correlation_se_method_is_a_deprecated_alias_of_coefficient():
    """The one test of the old spelling (the oracles above use ``coefficient=``)."""
    rng = np.random.default_rng(3)
    A = pd.DataFrame(rng.uniform(size=(12, 6)), columns=list("abcdef"))
    Bm = A + rng.normal(0, 0.15, A.shape)
    idx = bootstrap_indices(12, n_resamples=30, rng=4)
    new = rank_correlation_se(A, Bm, coefficient="spearman", resamples=idx)
    with pytest.warns(DeprecationWarning, match="coefficient="):
        old = rank_correlation_se(A, Bm, method="spearman", resamples=idx)
    np.testing.assert_array_equal(old.bootstrap_distribution, new.bootstrap_distribution)
    assert old.standard_error == new.standard_error
