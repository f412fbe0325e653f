"""Confidence intervals of weighted_correlation_test results (WeightedCorrelationResult.confidence_interval).

Independent references: the Fisher-z formulas (Fieller, Hartley & Pearson 1957; Bonett & Wright 2000) written
here with scipy's kendalltau / spearmanr; the U-statistic variance by its O(n^2) definition over all pairs;
scipy.stats.bootstrap (BCa and percentile, paired=True) with the same generator, on scipy's coefficients or a
brute-force weighted tau written here; the jackknife by its definition with leave-one-out kendalltau.
"""

import math

import numpy as np
import pytest
from scipy import stats

from agreekit import InputError, weighted_correlation_test
from agreekit.ranking._intervals import kendall_u_variance


def ones(i):
    return np.ones(np.shape(i))


def _data(rng, n, rho=0.5, ties=False):
    z = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], n)
    if ties:
        z = np.round(z * 1.5)
    x = stats.rankdata(z[:, 0], method="min").astype(np.int64)
    y = stats.rankdata(z[:, 1], method="min").astype(np.int64)
    return x, y


def _test(x, y, **kw):
    kw.setdefault("weigher", ones)
    return weighted_correlation_test(x, y, method="monte-carlo", n_resamples=10, rng=0, **kw)


def _u_variance_definition(x, y):
    """O(n^2): t_ij = c sign(x_i - x_j) sign(y_i - y_j), c = n(n-1)/(2 sqrt((n0-n1)(n0-n2)));
    var = [4(n-2) s1^2 + 2 s2^2] / (n(n-1)), s1^2 = sum_i (t_i. - t)^2/(n-1), s2^2 = sum_{i!=j} (t_ij - t)^2/(n(n-1))."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    n = x.size
    d = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
    n0 = n * (n - 1) / 2
    n1 = sum(c * (c - 1) / 2 for c in np.unique(x, return_counts=True)[1])
    n2 = sum(c * (c - 1) / 2 for c in np.unique(y, return_counts=True)[1])
    c = n * (n - 1) / (2 * math.sqrt((n0 - n1) * (n0 - n2)))
    t = c * d
    off = ~np.eye(n, dtype=bool)
    tau = t[off].mean()
    ti = t.sum(axis=1) / (n - 1)  # diagonal is 0
    s1 = ((ti - tau) ** 2).sum() / (n - 1)
    s2 = ((t[off] - tau) ** 2).sum() / (n * (n - 1))
    return tau, (4 * (n - 2) * s1 + 2 * s2) / (n * (n - 1))


@pytest.mark.parametrize("ties", [False, True])
def test_u_variance_equals_its_quadratic_definition(ties):
    rng = np.random.default_rng(11 + ties)
    for case in range(150):
        n = int(rng.integers(5, 60))
        x, y = _data(rng, n, rho=float(rng.uniform(-0.9, 0.9)), ties=ties)
        if ties and (np.unique(x).size < 2 or np.unique(y).size < 2):
            continue
        if ties and case % 3 == 0:  # a float, non-integer tie pattern too
            x = x / 3.0
        tau, var = kendall_u_variance(x, y)
        tau_ref, var_ref = _u_variance_definition(x, y)
        assert tau == pytest.approx(stats.kendalltau(x, y).statistic, rel=1e-12, abs=1e-14)
        assert tau == pytest.approx(tau_ref, rel=1e-12, abs=1e-14)
        assert var == pytest.approx(var_ref, rel=1e-10, abs=1e-15)


def test_u_variance_large_n_against_definition():
    rng = np.random.default_rng(5)
    x, y = _data(rng, 1500, rho=0.3, ties=True)
    tau, var = kendall_u_variance(x, y)
    tau_ref, var_ref = _u_variance_definition(x, y)
    assert tau == pytest.approx(tau_ref, rel=1e-12)
    assert var == pytest.approx(var_ref, rel=1e-10)


@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
@pytest.mark.parametrize("n", [12, 40])
def test_analytic_intervals_equal_the_fisher_z_formulas(level, n):
    rng = np.random.default_rng(n)
    x, y = _data(rng, n, rho=0.6)
    q = stats.norm.ppf((1 + level) / 2)
    tau = stats.kendalltau(x, y).statistic
    ci = _test(x, y).confidence_interval(level)
    assert ci.method == "analytic" and ci.confidence_level == level
    h = q * math.sqrt(0.437 / (n - 4))
    assert (ci.low, ci.high) == pytest.approx(
        (math.tanh(math.atanh(tau) - h), math.tanh(math.atanh(tau) + h)), rel=1e-13
    )
    rs = stats.spearmanr(x, y).statistic
    ci = _test(x, y, coefficient="spearman").confidence_interval(level, method="analytic")
    h = q * math.sqrt((1 + rs**2 / 2) / (n - 3))
    low, high = ci
    assert (low, high) == pytest.approx((math.tanh(math.atanh(rs) - h), math.tanh(math.atanh(rs) + h)), rel=1e-13)
    ci = _test(x, y).confidence_interval(level, method="u-statistic")
    t_ref, v_ref = _u_variance_definition(x, y)
    h = q * math.sqrt(v_ref) / (1 - t_ref**2)
    assert (ci.low, ci.high) == pytest.approx(
        (math.tanh(math.atanh(t_ref) - h), math.tanh(math.atanh(t_ref) + h)), rel=1e-10
    )


def _ranked_stat(f):
    """scipy's coefficient on a resample (scipy re-ranks; ranks 1 = top need no flip for constant weights),
    rounded to 12 decimals so that resamples equal to the observed value in exact arithmetic compare equal
    (BCa's bias correction counts them; agreekit counts values within 1e-12 as equal)."""
    return lambda a, b: round(float(f(a, b).statistic), 12)


@pytest.mark.parametrize("coefficient,ref", [("kendall", stats.kendalltau), ("spearman", stats.spearmanr)])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("method", ["BCa", "percentile"])
def test_bootstrap_equals_scipy_bootstrap_constant_weights(coefficient, ref, ties, method):
    rng = np.random.default_rng(3)
    for seed, n in ((1, 15), (2, 50)):
        x, y = _data(rng, n, rho=0.4, ties=ties)
        res = _test(x, y, coefficient=coefficient)
        ours = res.confidence_interval(
            0.9, method="bootstrap" if method == "BCa" else "percentile", n_resamples=999, rng=seed
        )
        sp = stats.bootstrap(
            (x, y),
            _ranked_stat(ref),
            paired=True,
            vectorized=False,
            method=method,
            confidence_level=0.9,
            n_resamples=999,
            rng=np.random.default_rng(seed),
        )
        assert res.statistic == pytest.approx(ref(x, y).statistic, rel=1e-12)
        assert (ours.low, ours.high) == pytest.approx(tuple(sp.confidence_interval), rel=1e-10, abs=1e-12)
        assert ours.n_resamples == 999


def _weighted_tau_rounded(a, b):
    return round(_weighted_tau(a, b), 12)


def _weighted_tau(a, b):
    """Brute-force tie-aware τ_w (harmonic, additive) with re-derived average ranks (1 = top):
    Σ_{i<j} w_i w_j s^x_ij s^y_ij / sqrt(Σ w_i w_j |s^x_ij| · Σ w_i w_j |s^y_ij|), w_i = 1/r^x_i + 1/r^y_i."""
    rx = stats.rankdata(a)
    ry = stats.rankdata(b)
    w = 1 / rx + 1 / ry
    ww = np.triu(np.outer(w, w), 1)
    sx = np.sign(rx[:, None] - rx[None, :])
    sy = np.sign(ry[:, None] - ry[None, :])
    return (ww * sx * sy).sum() / math.sqrt((ww * np.abs(sx)).sum() * (ww * np.abs(sy)).sum())


def test_bca_equals_scipy_bootstrap_weighted():
    rng = np.random.default_rng(8)
    for seed, ties in ((4, False), (5, True)):
        x, y = _data(rng, 25, rho=0.5, ties=ties)
        res = weighted_correlation_test(x, y, method="monte-carlo", n_resamples=10, rng=0)
        assert res.statistic == pytest.approx(_weighted_tau(x, y), rel=1e-12)
        ours = res.confidence_interval(n_resamples=499, rng=seed)
        assert ours.method == "bootstrap"
        sp = stats.bootstrap(
            (x, y),
            _weighted_tau_rounded,
            paired=True,
            vectorized=False,
            method="BCa",
            n_resamples=499,
            rng=np.random.default_rng(seed),
        )
        assert (ours.low, ours.high) == pytest.approx(tuple(sp.confidence_interval), rel=1e-10)


@pytest.mark.parametrize("coefficient,ref", [("kendall", stats.kendalltau), ("spearman", stats.spearmanr)])
@pytest.mark.parametrize("ties", [False, True])
def test_jackknife_equals_its_definition(coefficient, ref, ties):
    rng = np.random.default_rng(9)
    x, y = _data(rng, 30, rho=0.3, ties=ties)
    n = x.size
    loo = np.array([ref(np.delete(x, i), np.delete(y, i)).statistic for i in range(n)])
    se = math.sqrt((n - 1) / n * ((loo - loo.mean()) ** 2).sum())
    g = ref(x, y).statistic
    q = stats.t.ppf(0.975, n - 1)
    ci = _test(x, y, coefficient=coefficient).confidence_interval(method="jackknife")
    assert (ci.low, ci.high) == pytest.approx((g - q * se, g + q * se), rel=1e-12)
    assert ci.standard_error == pytest.approx(se, rel=1e-12)


def test_kendall_jackknife_large_n_against_leave_one_out():
    from agreekit.ranking._intervals import kendall_jackknife

    rng = np.random.default_rng(13)
    x, y = _data(rng, 3000, rho=0.5, ties=True)
    jack = kendall_jackknife(x, y)
    for i in rng.choice(x.size, 5, replace=False):
        ref = stats.kendalltau(np.delete(x, i), np.delete(y, i)).statistic
        assert jack[i] == pytest.approx(ref, rel=1e-12)


def test_default_method_and_reproducibility():
    rng = np.random.default_rng(10)
    x, y = _data(rng, 30)
    assert _test(x, y).confidence_interval().method == "analytic"
    w = weighted_correlation_test(x, y, method="monte-carlo", n_resamples=10, rng=0)
    a = w.confidence_interval(n_resamples=199, rng=1)
    assert a.method == "bootstrap" and a == w.confidence_interval(n_resamples=199, rng=1)
    assert a.low < w.statistic < a.high
    assert set(a.to_dict()) >= {"low", "high", "method", "confidence_level", "estimand"}
    # the kept data stay out of the exported fields and of equality
    assert "_data" not in w.to_dict()


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.1, "0.95", True, float("nan")])
def test_bad_confidence_level(level):
    rng = np.random.default_rng(0)
    x, y = _data(rng, 20)
    with pytest.raises(InputError, match="confidence_level"):
        _test(x, y).confidence_interval(level)


def test_bad_method_and_analytic_with_weights():
    rng = np.random.default_rng(0)
    x, y = _data(rng, 20)
    with pytest.raises(InputError, match="method"):
        _test(x, y).confidence_interval(method="bca-ish")
    weighted = weighted_correlation_test(x, y, method="monte-carlo", n_resamples=10, rng=0)
    for m in ("analytic", "u-statistic"):
        with pytest.raises(InputError, match="method.*constant weights"):
            weighted.confidence_interval(method=m)
    with pytest.raises(InputError, match="method"):
        _test(x, y, coefficient="spearman").confidence_interval(method="u-statistic")
    with pytest.raises(InputError, match="n_resamples"):
        weighted.confidence_interval(n_resamples=0)
    with pytest.raises(InputError, match="rng"):
        weighted.confidence_interval(rng="x")


def test_concordance_kernel_same_bits_in_every_jit_mode():
    from agreekit import _jit

    rng = np.random.default_rng(12)
    x, y = _data(rng, 300, rho=0.4, ties=True)
    out = []
    for mode in ("interpreted", "serial", "compiled"):
        with _jit.forced(mode):
            out.append(kendall_u_variance(x, y))
    assert out[0] == out[1] == out[2]
