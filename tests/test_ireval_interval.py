"""evaluate()'s result: confidence_interval() per metric and system, the mean over topics.

Independent references: scipy.stats.bootstrap (BCa, percentile) on one system's column with the same
generator, and the one-sample t interval (scipy.stats.ttest_1samp) for the jackknife; the per-topic
scores themselves are computed inside the test from the definitions (reciprocal rank, precision at 2).
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from agreekit._resampling import ConfidenceInterval
from agreekit.ireval.metrics import evaluate


def _mean12(a):
    """the mean, rounded to 12 decimals (resamples equal to the mean in exact arithmetic compare equal)."""
    return round(float(np.mean(a)), 12)


def _collection(n_topics=30, n_docs=6, seed=11):
    rng = np.random.default_rng(seed)
    qrels = {str(t): {f"d{d}": int(rng.integers(0, 3)) for d in range(n_docs)} for t in range(n_topics)}
    for t in qrels:
        qrels[t]["d0"] = 1  # every topic has a relevant document
    runs = {}
    for name in ("a", "b"):
        rows = [(t, f"d{d}", float(s)) for t in qrels for d, s in zip(rng.permutation(n_docs), range(n_docs, 0, -1))]
        runs[name] = pd.DataFrame(rows, columns=["topic", "docno", "score"])
    return qrels, runs


def _by_definition(qrels, run):
    """Per topic (in evaluate's topic order): reciprocal rank and precision at 2, from the ranked lists."""
    rr, p2 = {}, {}
    for t, g in run.groupby("topic"):
        ranked = g.sort_values("score", ascending=False)["docno"].tolist()
        rel = [qrels[t].get(d, 0) > 0 for d in ranked]
        rr[t] = next((1.0 / (i + 1) for i, r in enumerate(rel) if r), 0.0)
        p2[t] = sum(rel[:2]) / 2
    order = sorted(qrels, key=int)
    return np.array([rr[t] for t in order]), np.array([p2[t] for t in order])


@pytest.mark.parametrize("method,scipy_method", [(None, "BCa"), ("percentile", "percentile")])
def test_interval_equals_scipy_bootstrap_on_one_column(method, scipy_method):
    qrels, runs = _collection()
    res = evaluate(qrels, runs, ["RR", "P@2"])
    rr_a = _by_definition(qrels, runs["a"])[0]
    np.testing.assert_array_equal(res["RR"]["a"].to_numpy(), rr_a)
    cis = res.confidence_interval(0.9, method=method, n_resamples=1999, rng=7)
    assert list(cis) == ["RR", "P@2"]
    ci = cis["RR"]
    assert isinstance(ci, ConfidenceInterval) and ci.low.shape == (2,)
    assert ci.method == ("bootstrap" if method is None else method) and ci.n_resamples == 1999
    # the first metric uses the generator first: its first system's column is scipy's interval with rng=7
    sp = stats.bootstrap(
        (rr_a,),
        _mean12,
        vectorized=False,
        method=scipy_method,
        confidence_level=0.9,
        n_resamples=1999,
        rng=np.random.default_rng(7),
    )
    assert (ci.low[0], ci.high[0]) == pytest.approx(tuple(sp.confidence_interval), rel=1e-10)
    assert ci.estimate == pytest.approx([rr_a.mean(), _by_definition(qrels, runs["b"])[0].mean()], rel=1e-14)
    # deterministic for a given rng
    again = res.confidence_interval(0.9, method=method, n_resamples=1999, rng=7)
    assert np.array_equal(again["P@2"].low, cis["P@2"].low) and np.array_equal(again["P@2"].high, cis["P@2"].high)


def test_jackknife_interval_is_the_t_interval_per_system():
    qrels, runs = _collection(seed=5)
    res = evaluate(qrels, runs, ["P@2", "RR"])
    ci = res.confidence_interval(0.95, method="jackknife")["P@2"]
    assert ci.n_resamples == 0
    for k, name in enumerate(("a", "b")):
        p2 = _by_definition(qrels, runs[name])[1]
        ref = stats.ttest_1samp(p2, 0.0).confidence_interval(0.95)
        assert (ci.low[k], ci.high[k]) == pytest.approx((ref.low, ref.high), rel=1e-12)
        assert ci.standard_error[k] == pytest.approx(stats.sem(p2), rel=1e-12)
