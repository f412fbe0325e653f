"""Property tests (hypothesis) for the bootstrap machinery on small random matrices with ties."""

import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from agreekit.ireval.bootstrap import bootstrap_indices, discriminative_power, stability, swap_rates

# values on a coarse grid so that ties, identical systems and constant differences occur
matrices = st.integers(3, 9).flatmap(
    lambda n: st.integers(2, 5).flatmap(
        lambda s: arrays(np.float64, (n, s), elements=st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.5, 1.0]))
    )
)


@settings(max_examples=40, deadline=None)
@given(X=matrices, seed=st.integers(0, 2**32 - 1))
def test_threshold_identity_and_ranges(X, seed):
    n = X.shape[0]
    for test, width in (("paired", n), ("unpaired", 2 * n)):
        idx = bootstrap_indices(width, n_resamples=40, rng=seed)
        res = discriminative_power(X, alpha=0.05, test=test, resamples=idx)
        t = res.table
        assert ((t["asl"] >= 0) & (t["asl"] <= 1)).all()
        assert (
            (t["asl"] < 0.05).to_numpy() == (t["statistic"].abs() * (1 - 1e-12) > t["critical_value"]).to_numpy()
        ).all()
        same = [np.array_equal(X[:, a], X[:, b]) for a, b in zip(*np.triu_indices(X.shape[1], 1))]
        assert (t.loc[same, "asl"] == 1.0).all()  # identical systems: never significant


@settings(max_examples=40, deadline=None)
@given(X=matrices, seed=st.integers(0, 2**32 - 1))
def test_stability_counts_and_swap_totals(X, seed):
    n, s = X.shape
    idx = bootstrap_indices(n, n_resamples=30, rng=seed)
    st_ = stability(X, fuzziness=[0.0, 0.05, 0.2], resamples=idx)
    assert (st_.gt_ab + st_.gt_ba + st_.eq == 30).all()
    assert (np.diff(st_.eq, axis=0) >= 0).all()  # larger f -> more ties
    assert (st_.minority_rate <= 0.5).all()
    sw = swap_rates(X, resamples=idx, resamples_prime=idx[::-1])
    assert sw.bins["comparisons"].sum() == 30 * s * (s - 1) // 2
    assert (sw.bins["swaps"] <= sw.bins["comparisons"]).all()
