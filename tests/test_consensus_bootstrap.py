"""bootstrap_consensus and consensus_ranking's topic support against plain bootstraps written here."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from agreekit import InputError
from agreekit.consensus import bootstrap_consensus, kemeny
from agreekit.ireval import bootstrap_indices
from agreekit.metaeval import consensus_ranking


def noisy_profile(rng, n_judges, n_items, noise):
    """Judges rank items by a common quality plus noise, coarsened into ties."""
    q = np.linspace(0, 1, n_items)
    X = np.empty((n_judges, n_items))
    for k in range(n_judges):
        v = np.round(4 * (q + rng.normal(0, noise, n_items)))
        X[k] = stats.rankdata(-v, method="min")
    return X


def plain_judge_bootstrap(X, B, seed):
    """Resample the judges B times with multinomial counts, solve exactly, record whether an optimum
    of the full data is among the resample's optima and how often i precedes j."""
    rng = np.random.default_rng(seed)
    full = {tuple(s) for s in kemeny(X, method="exact").solutions}
    n, m = X.shape
    hits, prec = 0, np.zeros((m, m))
    for _ in range(B):
        w = rng.multinomial(n, np.full(n, 1 / n))
        res = kemeny(X, weights=w, method="exact")
        assert res.exhaustive
        sols = {tuple(s) for s in res.solutions}
        hits += bool(full & sols)
        prec += np.mean([[[a < b for b in s] for a in s] for s in res.solutions], axis=0)
    return hits / B, prec / B


def test_support_and_precedence_match_a_plain_judge_bootstrap():
    X = noisy_profile(np.random.default_rng(3), 9, 5, 0.35)
    B = 300
    ref_support, ref_prec = plain_judge_bootstrap(X, B, seed=99)
    res = bootstrap_consensus(X, n_resamples=B, rng=7, method="exact")
    assert 0.15 < ref_support < 0.95  # a profile whose consensus is genuinely uncertain
    se = math.sqrt(2 * ref_support * (1 - ref_support) / B)
    assert abs(res.support - ref_support) < 4 * se
    se_p = np.sqrt(2 * np.maximum(ref_prec * (1 - ref_prec), 1 / B) / B)
    assert np.all(np.abs(res.precedence - ref_prec) < 4.5 * se_p)
    assert res.proven and res.n_resamples == B
    # the orderings' frequencies: each is the fraction of resamples in which it is optimal
    assert max(res.orderings.values()) <= 1.0
    top_full = [o for o in res.to_dict()["consensus"]]
    assert res.support >= max(res.orderings.get(o, 0.0) for o in top_full) - 1e-12


def test_unanimous_judges_support_one_and_01_precedence():
    X = np.array([[2, 1, 3, 3, 5]] * 6)
    res = bootstrap_consensus(X, n_resamples=50, rng=0)
    assert res.support == 1.0
    assert set(np.unique(res.precedence)) <= {0.0, 1.0}
    expected = (X[0][:, None] < X[0][None, :]).astype(float)
    assert np.array_equal(res.precedence, expected)
    low, high = res.position_interval()
    assert np.array_equal(low, high) and low.tolist() == [2.0, 1.0, 3.5, 3.5, 5.0]
    assert res.orderings == {"1 0 (2 3) 4": 1.0}


def test_deterministic_exports_and_errors():
    X = noisy_profile(np.random.default_rng(1), 7, 4, 0.5)
    a = bootstrap_consensus(X, n_resamples=40, rng=5)
    b = bootstrap_consensus(X, n_resamples=40, rng=5)
    assert a == b
    f = a.to_frame()
    assert list(f.columns) == ["item", "consensus_rank", "mean_position", "position_low", "position_high", "p_first"]
    low, high = a.position_interval(0.9)
    inside = (a.positions >= low) & (a.positions <= high)
    assert np.all(inside.mean(axis=0) >= 0.9) and np.all(low <= high)
    d = a.to_dict()
    assert set(d) >= {"support", "precedence", "position_interval", "orderings", "consensus"}
    assert np.all(a.precedence + a.precedence.T <= 1.0 + 1e-12) and np.all(np.diag(a.precedence) == 0)
    with pytest.raises(InputError, match="`n_resamples`"):
        bootstrap_consensus(X, n_resamples=0)
    with pytest.raises(InputError, match="`method`"):
        bootstrap_consensus(X, method="kendall")
    with pytest.raises(InputError, match="`confidence_level`"):
        a.position_interval(1.5)


def test_frequency_weights_resample_individual_judges():
    """Integer weights = repeated rows: the same support as the expanded profile (MC error)."""
    rng = np.random.default_rng(12)
    X = noisy_profile(rng, 6, 4, 0.5)
    w = np.array([3, 1, 2, 1, 4, 1])
    B = 300
    a = bootstrap_consensus(X, weights=w, n_resamples=B, rng=1, method="exact")
    b = bootstrap_consensus(np.repeat(X, w, axis=0), n_resamples=B, rng=2, method="exact")
    p = (a.support + b.support) / 2
    assert abs(a.support - b.support) < 4 * math.sqrt(2 * max(p * (1 - p), 1 / B) / B)


# ----------------------------------------------------------------------------- metaeval: topics resampled


def all_weak_orders(m):
    g = np.array(list(itertools.product(range(1, m + 1), repeat=m)))
    srt = np.sort(g, axis=1)
    dense = (srt[:, 0] == 1) & np.all(np.diff(srt, axis=1) <= 1, axis=1)
    return g[dense]


def em_scores(W):
    """Emond–Mason score matrices, flattened, of each row of W."""
    S = np.where(W[:, :, None] <= W[:, None, :], 1.0, -1.0)
    idx = np.arange(W.shape[1])
    S[:, idx, idx] = 0.0
    return S.reshape(W.shape[0], -1)


def test_metaeval_consensus_support_over_resampled_topics():
    m, n_topics, B = 7, 8, 60
    rng = np.random.default_rng(3)
    q = rng.uniform(size=m)
    scores = {}
    for k in range(3):
        Xk = np.round(8 * (q + rng.normal(0, 0.5, (n_topics, m)))) / 8  # binary fractions: exact sums, ties
        scores[f"M{k}"] = pd.DataFrame(
            Xk, index=[f"t{i}" for i in range(n_topics)], columns=[f"s{j}" for j in range(m)]
        )
    res = consensus_ranking(scores, method="exact", n_resamples=B, rng=4)
    assert res.method == "exact" and res.exhaustive  # every optimum of the full data is known
    W = all_weak_orders(m)
    assert W.shape[0] == 47293
    SW = em_scores(W)

    def objective(frames):
        R = [stats.rankdata(-f.mean().to_numpy(), method="min") for f in frames]
        C = sum(em_scores(np.asarray([r]))[0] for r in R)
        return SW @ C

    full = objective(scores.values())
    full_opt = full >= full.max() - 1e-9
    idx = bootstrap_indices(n_topics, n_resamples=B, rng=4)
    hits = 0
    for b in range(B):
        t = objective([f.iloc[idx[b]] for f in scores.values()])
        hits += bool(t[full_opt].max() >= t.max() - 1e-9)
    assert res.support == hits / B
    assert 0 < res.support < 1
    assert res.to_dict()["support"] == res.support
    assert "support" not in consensus_ranking(scores, method="exact").to_dict()
