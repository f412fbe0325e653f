"""Intervals of means over units (topics, trials): agreekit._resampling.unit_mean_interval and the
PairedTestResult.confidence_interval hook.

Independent references: scipy.stats.bootstrap (BCa, percentile) with the same generator, one column at a
time; the jackknife interval of a mean is the one-sample t interval (scipy.stats.ttest_1samp).
"""

import numpy as np
import pytest
from scipy import stats

from agreekit import InputError
from agreekit._resampling import ConfidenceInterval, unit_mean_interval
from agreekit.ireval.bootstrap import paired_test


def _mean12(a):
    """the mean, rounded to 12 decimals (resamples equal to the mean in exact arithmetic compare equal)."""
    return round(float(np.mean(a)), 12)


@pytest.mark.parametrize("method,scipy_method", [("bootstrap", "BCa"), ("percentile", "percentile")])
def test_unit_mean_interval_equals_scipy_per_column(method, scipy_method):
    rng = np.random.default_rng(2)
    X = rng.gamma(2.0, 0.1, size=(25, 3))  # 25 topics x 3 systems, skewed
    X[:, 2] = np.round(X[:, 2], 1)  # repeated values too
    ci = unit_mean_interval(X, 0.9, method=method, n_resamples=1999, rng=7)
    assert ci.method == method and ci.low.shape == (3,)
    for k in range(3):
        sp = stats.bootstrap(
            (X[:, k],),
            _mean12,
            vectorized=False,
            method=scipy_method,
            confidence_level=0.9,
            n_resamples=1999,
            rng=np.random.default_rng(7),
        )
        assert (ci.low[k], ci.high[k]) == pytest.approx(tuple(sp.confidence_interval), rel=1e-10)
        assert ci.estimate[k] == pytest.approx(X[:, k].mean(), rel=1e-14)


def test_jackknife_of_a_mean_is_the_t_interval():
    rng = np.random.default_rng(3)
    v = rng.normal(0.3, 0.2, 40)
    ci = unit_mean_interval(v, 0.95, method="jackknife")
    ref = stats.ttest_1samp(v, 0.0).confidence_interval(0.95)
    assert (ci.low, ci.high) == pytest.approx((ref.low, ref.high), rel=1e-12)
    assert ci.standard_error == pytest.approx(stats.sem(v), rel=1e-12)


def test_paired_test_result_interval_over_topics():
    rng = np.random.default_rng(4)
    x = rng.random(30)
    y = x - rng.normal(0.02, 0.05, 30)
    res = paired_test(x, y, rng=1)
    ci = res.confidence_interval(rng=5, n_resamples=2999)
    sp = stats.bootstrap(
        (x - y,), _mean12, vectorized=False, method="BCa", n_resamples=2999, rng=np.random.default_rng(5)
    )
    low, high = ci
    assert (low, high) == pytest.approx(tuple(sp.confidence_interval), rel=1e-10)
    assert isinstance(ci, ConfidenceInterval) and ci.method == "bootstrap"
    assert ci.estimate == pytest.approx(res.mean_difference, rel=1e-14)
    g = paired_test(x + 0.1, y + 0.1, summary="gmean", rng=1)
    z = np.log(x + 0.1 + 1e-5) - np.log(y + 0.1 + 1e-5)
    ref = stats.ttest_1samp(z, 0.0).confidence_interval(0.9)
    assert tuple(g.confidence_interval(0.9, method="jackknife")) == pytest.approx((ref.low, ref.high), rel=1e-12)


def test_constant_values_give_a_point_interval():
    ci = unit_mean_interval(np.full(10, 0.25), n_resamples=99, rng=0)
    assert (ci.low, ci.high) == (0.25, 0.25)


@pytest.mark.parametrize(
    "kw,name",
    [
        ({"confidence_level": 1.0}, "confidence_level"),
        ({"confidence_level": 0}, "confidence_level"),
        ({"method": "bca"}, "method"),
        ({"n_resamples": 0}, "n_resamples"),
        ({"rng": -1}, "rng"),
    ],
)
def test_bad_input(kw, name):
    with pytest.raises(InputError, match=name):
        unit_mean_interval(np.arange(5.0), **kw)
    with pytest.raises(InputError, match="values"):
        unit_mean_interval([1.0])
    with pytest.raises(InputError, match="values"):
        unit_mean_interval([1.0, np.nan, 2.0])


def test_summarize_trials_interval_columns():
    import pandas as pd

    from agreekit.clustering.experiments import summarize_trials

    rng = np.random.default_rng(6)
    rows = [
        {
            "measure": "ARI",
            "algorithm": a,
            "mu": mu,
            "seed": s,
            "value": float(v),
            "communities": 4,
            "true_communities": 4,
        }
        for a in ("louvain", "infomap")
        for mu in (0.1, 0.5)
        for s, v in enumerate(rng.beta(5, 2, 12))
    ]
    frame = pd.DataFrame(rows)
    plain = summarize_trials(frame)
    out = summarize_trials(frame, confidence_level=0.9, n_resamples=999, rng=np.random.default_rng(2))
    assert list(out.columns[: len(plain.columns)]) == list(plain.columns) and "ci_low" not in plain
    gen = np.random.default_rng(2)  # the groups in order, one generator: scipy with the same stream
    for (_, row), (_, grp) in zip(out.iterrows(), frame.groupby(["measure", "algorithm", "mu"], sort=True)):
        sp = stats.bootstrap(
            (grp["value"].to_numpy(),),
            _mean12,
            vectorized=False,
            method="BCa",
            confidence_level=0.9,
            n_resamples=999,
            rng=gen,
        )
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(tuple(sp.confidence_interval), rel=1e-10)
