"""agreekit.ireval.bootstrap against a straightforward per-pair numpy implementation (independent code).

The naive functions below follow Sakai's Figs. 2, 4, 5, 6, 9 and 11 literally,
one pair at a time, on the gathered resampled values.
"""

from pathlib import Path

import numpy as np
import pytest

from agreekit.ireval.bootstrap import (
    bootstrap_indices,
    discriminative_power,
    meta_evaluate,
    rank_correlation_se,
    stability,
    swap_rates,
)
from agreekit.ireval.metrics import load_scores

SCORES = Path(__file__).resolve().parents[1] / "resources" / "bootstrap" / "trec_topic_by_run_scores"
TOL = 1e-12


def naive_paired(x, y, idx, k):
    z = x - y
    n = z.size
    if np.ptp(z) == 0:
        t = 0.0 if z[0] == 0 else np.sign(z[0]) * np.inf
        w = np.zeros(n)
    else:
        t = z.mean() / (z.std(ddof=1) / np.sqrt(n))
        w = z - z.mean()
    ws = w[idx]  # B x n, Fig. 1
    m = ws.mean(axis=1)
    sd = ws.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ts = m / (sd / np.sqrt(n))
    ts = np.where(
        sd <= 1e-5 * np.sqrt((ws**2).mean(axis=1)), np.where((ws == 0).all(axis=1), 0.0, np.sign(m) * np.inf), ts
    )
    asl = np.mean(np.abs(ts) >= abs(t) * (1 - TOL))  # Fig. 2
    order = np.argsort(-np.abs(ts), kind="stable")  # Fig. 5
    return t, asl, abs(m[order[k - 1]])


def naive_unpaired(x, y, idx2, k, stat):
    v = np.concatenate([x, y])
    n = x.size
    dhat = stat(x) - stat(y)
    s = v[idx2]
    d = np.array([stat(r[:n]) - stat(r[n:]) for r in s])  # Fig. 4
    asl = np.mean(np.abs(d) >= abs(dhat) * (1 - TOL))
    return dhat, asl, np.sort(np.abs(d))[::-1][k - 1]  # Fig. 6


def gm(a):
    return np.exp(np.mean(np.log(a + 1e-5))) - 1e-5


@pytest.fixture(scope="module")
def matrix():
    return load_scores(SCORES / "adhoc6_ap.csv").iloc[:, :14]


def test_paired_matches_naive(matrix):
    X = matrix.to_numpy()
    idx = bootstrap_indices(X.shape[0], rng=21)
    res = discriminative_power(matrix, resamples=idx)
    for row in res.table.itertuples():
        a, b = matrix.columns.get_loc(row.system_a), matrix.columns.get_loc(row.system_b)
        t, asl, contrib = naive_paired(X[:, a], X[:, b], idx, 50)
        assert row.statistic == pytest.approx(t, rel=1e-10)
        assert row.asl == asl
        assert row.required_difference == pytest.approx(contrib, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("statistic, fn", [("mean", np.mean), ("gmean", gm)])
def test_unpaired_matches_naive(matrix, statistic, fn):
    X = matrix.to_numpy()[:, :8]
    idx2 = bootstrap_indices(2 * X.shape[0], n_resamples=400, rng=5)
    res = discriminative_power(matrix.iloc[:, :8], test="unpaired", summary=statistic, resamples=idx2, alpha=0.05)
    for row in res.table.itertuples():
        a, b = matrix.columns.get_loc(row.system_a), matrix.columns.get_loc(row.system_b)
        dhat, asl, crit = naive_unpaired(X[:, a], X[:, b], idx2, 20, fn)
        assert row.statistic == pytest.approx(dhat, rel=1e-10)
        assert row.asl == asl
        assert row.critical_value == pytest.approx(crit, rel=1e-9)
    # a user callable takes the generic (gathering) path and agrees with the compiled one
    gen = discriminative_power(
        matrix.iloc[:, :8],
        test="unpaired",
        resamples=idx2,
        summary=(lambda s, axis=-1: np.mean(s, axis=axis))
        if statistic == "mean"
        else (lambda s, axis=-1: np.exp(np.mean(np.log(s + 1e-5), axis=axis)) - 1e-5),
        batch_size=3,
    )
    np.testing.assert_array_equal(gen.asl, res.asl)
    np.testing.assert_allclose(gen.table["critical_value"], res.table["critical_value"], rtol=1e-9)


def test_ag_paired_matches_naive_on_logs(matrix):
    X = matrix.to_numpy()[:, :6]
    idx = bootstrap_indices(X.shape[0], rng=2)
    res = discriminative_power(matrix.iloc[:, :6], summary="gmean", resamples=idx)
    L = np.log(X + 1e-5)
    for row in res.table.itertuples():
        a, b = matrix.columns.get_loc(row.system_a), matrix.columns.get_loc(row.system_b)
        t, asl, contrib = naive_paired(L[:, a], L[:, b], idx, 50)
        assert row.asl == asl and row.required_difference == pytest.approx(contrib, rel=1e-9)


def test_stability_and_swap_match_naive(matrix):
    X = matrix.to_numpy()
    n, s = X.shape
    idx = bootstrap_indices(n, n_resamples=300, rng=1)
    idx2 = bootstrap_indices(n, n_resamples=300, rng=2)
    f = np.array([0.0, 0.01, 0.05, 0.2])
    st = stability(matrix, fuzziness=f, resamples=idx)
    sw = swap_rates(matrix, resamples=idx, resamples_prime=idx2)
    M = np.array([X[r].mean(axis=0) for r in idx])
    M2 = np.array([X[r].mean(axis=0) for r in idx2])
    mr = np.zeros(f.size)
    pt = np.zeros(f.size)
    counter = np.zeros(21, int)
    swaps = np.zeros(21, int)
    for a in range(s):
        for b in range(a + 1, s):
            for fi, ff in enumerate(f):  # Fig. 9
                gt_ab = gt_ba = eq = 0
                for r in range(idx.shape[0]):
                    x, y = M[r, a], M[r, b]
                    tie = abs(x - y) <= 1e-12 * max(abs(x), abs(y))  # equal up to round-off
                    if tie or abs(x - y) < ff * max(x, y) * (1 - 1e-9):  # strictly inside the margin
                        eq += 1
                    elif x > y:
                        gt_ab += 1
                    else:
                        gt_ba += 1
                mr[fi] += min(gt_ab, gt_ba)
                pt[fi] += eq
            D, D2 = M[:, a] - M[:, b], M2[:, a] - M2[:, b]  # Fig. 11
            D = np.where(np.abs(D) <= 1e-12 * np.maximum(np.abs(M[:, a]), np.abs(M[:, b])), 0.0, D)
            D2 = np.where(np.abs(D2) <= 1e-12 * np.maximum(np.abs(M2[:, a]), np.abs(M2[:, b])), 0.0, D2)
            bins = np.minimum(np.floor(np.round(np.abs(D) / 0.01, 9)).astype(int), 20)
            np.add.at(counter, bins, 1)
            np.add.at(swaps, bins[D * D2 <= 0], 1)
    denom = idx.shape[0] * s * (s - 1) / 2
    np.testing.assert_allclose(st.minority_rate, mr / denom, rtol=1e-12)
    np.testing.assert_allclose(st.proportion_of_ties, pt / denom, rtol=1e-12)
    np.testing.assert_array_equal(sw.bins["comparisons"], counter)
    np.testing.assert_array_equal(sw.bins["swaps"], swaps)
    assert sw.max_value == pytest.approx(M.max())


def _counts(idx, n):
    """C[b, i] = how often topic i is in sample b: the bootstrap as a matrix product, no gathering."""
    C = np.zeros((idx.shape[0], n))
    np.add.at(C, (np.repeat(np.arange(idx.shape[0]), idx.shape[1]), idx.ravel()), 1.0)
    return C


def _power_by_counts(X, idx, alpha=0.05):
    """Fraction of system pairs with ASL < alpha, from resampled sums C @ w and C @ w**2 (Figs. 1-2)."""
    n, s = X.shape
    a, b = np.triu_indices(s, 1)
    Z = X[:, a] - X[:, b]
    C = _counts(idx, n)
    zbar = Z.mean(axis=0)
    sd = Z.std(axis=0, ddof=1)
    W = Z - zbar
    m = C @ W / n
    var = (C @ W**2 - n * m**2) / (n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(sd > 0, zbar / (sd / np.sqrt(n)), np.where(zbar == 0, 0.0, np.inf))
        ts = np.abs(m) / np.sqrt(np.maximum(var, 0) / n)
    ts = np.where(np.isnan(ts), 0.0, ts)
    asl = (ts >= np.abs(t) * (1 - 1e-9)).mean(axis=0)
    asl = np.where(sd > 0, asl, np.where(zbar == 0, 1.0, 0.0))  # identical runs: no evidence (notes 3)
    return float(np.mean(asl < alpha))


def test_power_and_tau_se_adhoc8_against_plain_numpy():
    """adhoc8 AP / P@10 / RR (129 runs, 8256 pairs): discriminative power and the Kendall tau SE.

    The reference is a plain-numpy bootstrap written here (resampled sums as a count-matrix product and
    scipy's kendalltau per sample), not a stored snapshot; it shares only the topic samples."""
    from scipy.stats import kendalltau

    ap = load_scores(SCORES / "adhoc8_ap.csv")
    p10 = load_scores(SCORES / "adhoc8_p10.csv")
    rr = load_scores(SCORES / "adhoc8_rr.csv")
    n = ap.shape[0]
    idx = bootstrap_indices(n, rng=2006)  # meta_evaluate's and rank_correlation_se's topic stream
    power = {}
    for name, m in (("ap", ap), ("p10", p10), ("rr", rr)):
        ev = meta_evaluate(m, rng=2006, analyses=("paired",))
        power[name] = ev.paired.proportion
        assert power[name] == _power_by_counts(m.to_numpy(), idx)
    assert power["ap"] > power["p10"] > power["rr"]  # the seed's ordering: AP most, RR least discriminative

    # System means per sample from the gathered values X[idx] (B x n x s) summed over topics.  P@10 and RR
    # take few distinct values, so exact ties between systems are frequent and Kendall's tau-b depends on
    # them: numpy's reduction over the non-contiguous topic axis adds in sample order, as a plain loop
    # would, and keeps an exact tie a tie (a BLAS product C @ X does not, and moves the SE by ~1e-4).
    def tau_se(A, B):
        obs = kendalltau(A.mean(axis=0), B.mean(axis=0)).statistic
        boot = np.array([kendalltau(x, y).statistic for x, y in zip(A[idx].sum(axis=1) / n, B[idx].sum(axis=1) / n)])
        return obs, boot.std(ddof=1)

    def gmean_se(A):
        L = np.log(A + 1e-5)
        G = np.exp(L[idx].sum(axis=1) / n) - 1e-5
        obs = kendalltau(A.mean(axis=0), np.exp(L.mean(axis=0)) - 1e-5).statistic
        boot = np.array([kendalltau(x, y).statistic for x, y in zip(A[idx].sum(axis=1) / n, G)])
        return obs, boot.std(ddof=1)

    A, P = ap.to_numpy(), p10.to_numpy()
    tau = rank_correlation_se(ap, p10, rng=2006)
    obs, se = tau_se(A, P)
    assert tau.correlation == pytest.approx(obs, rel=1e-12)
    assert tau.standard_error == pytest.approx(se, rel=1e-9)
    g = rank_correlation_se(ap, ap, summary_b="gmean", rng=2006)
    obs_g, se_g = gmean_se(A)
    assert g.correlation == pytest.approx(obs_g, rel=1e-12)
    assert g.standard_error == pytest.approx(se_g, rel=1e-9)
    assert g.standard_error > tau.standard_error  # GM gives the less accurate tau (paper, Fig. 13)
