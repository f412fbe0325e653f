"""agreekit.metaeval: metric_agreement and consensus_ranking against independent references."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from agreekit import standardize
from agreekit._validation import InputError
from agreekit.consensus import dense_ranks
from agreekit.metaeval import COLUMNS, consensus_ranking, metric_agreement
from agreekit.ranking.weighting import parse_weigher


def _frame(X, systems=None):
    s = X.shape[1]
    return pd.DataFrame(
        X, index=pd.RangeIndex(1, X.shape[0] + 1, name="topic"), columns=systems or [f"s{j:02d}" for j in range(s)]
    )


def _collection(kind, seed=0, s=30, n=40, k=10):
    """Metric B equals A's order except the top k (kind="top") or the rest (kind="bottom") reversed."""
    rng = np.random.default_rng(seed)
    q = np.linspace(0.9, 0.1, s)
    qb = q.copy()
    if kind == "top":
        qb[:k] = qb[:k][::-1]
    else:
        qb[k:] = qb[k:][::-1]
    A = q[None, :] + rng.normal(0, 0.05, (n, s))
    B = qb[None, :] + rng.normal(0, 0.05, (n, s))
    return {"A": _frame(A), "B": _frame(B)}


# ---------------------------------------------------------------- known answers


def test_disagreement_on_top_gives_high_tau_b_but_low_standardized_tau_w():
    row = metric_agreement(_collection("top"), rng=1, n_resamples=300, pvalue=False).to_frame().iloc[0]
    # 45 of 435 pairs reversed: tau_b = 1 - 2 * 45 / 435 = 0.793 (up to topic noise)
    assert row.tau_b == pytest.approx(1 - 2 * 45 / 435, abs=0.03)
    assert row.tau_w_standardized < 0.2
    assert row.tau_b - row.tau_w_standardized > 0.6
    assert row.difference == pytest.approx(row.tau_w_standardized - row.tau_b)
    assert row.top_k_overlap == 10  # same top-10 *set*, reversed order


def test_disagreement_on_bottom_gives_low_tau_b_but_high_standardized_tau_w():
    row = metric_agreement(_collection("bottom"), rng=1, n_resamples=300, pvalue=False).to_frame().iloc[0]
    assert row.tau_b == pytest.approx(1 - 2 * 190 / 435, abs=0.03)  # 190 of 435 pairs reversed
    assert row.tau_w_standardized > 0.6
    assert row.tau_w_standardized - row.tau_b > 0.5


def test_identical_metrics_give_tau_one_and_zero_se():
    coll = _collection("top")
    X = coll["A"].to_numpy().copy()
    X[:, 5] = X[:, 4]  # an identical pair of systems: tied in both
    res = metric_agreement(
        {"A": _frame(X), "A2": _frame(X.copy()), "B": coll["B"]}, rng=3, n_resamples=200, pvalue=False
    )
    row = res.to_frame().iloc[0]
    assert (row.metric_a, row.metric_b) == ("A", "A2")
    for col in ("tau_b", "tau_w", "tau_w_standardized"):
        assert row[col] == 1.0
        assert row[col + "_se"] == 0.0
    assert row.top_k_overlap == 10 and bool(row.ties)
    assert res.matrix("tau_b").loc["A2", "A"] == 1.0


# ---------------------------------------------------------------- bootstrap SEs, independently


def _reference_replicates(scores, idx, weigher, scheme):
    f = parse_weigher(weigher)
    names = list(scores)
    out = {}
    for a, b in itertools.combinations(range(len(names)), 2):
        tb, tw = [], []
        for row in idx:
            ra = stats.rankdata(-scores[names[a]].to_numpy()[row].mean(axis=0))
            rb = stats.rankdata(-scores[names[b]].to_numpy()[row].mean(axis=0))
            w = f(ra) + f(rb) if scheme == "additive" else f(ra) * f(rb)
            tb.append(stats.kendalltau(ra, rb).statistic)
            tw.append(
                stats.weightedtau(
                    -ra, -rb, rank=np.arange(ra.size), weigher=lambda i, w=w: w[i], additive=False
                ).statistic
            )
        out[(names[a], names[b])] = (np.array(tb), np.array(tw))
    return out


@pytest.mark.parametrize("scheme", ["additive", "multiplicative"])
def test_every_bootstrap_se_equals_a_per_replicate_recomputation(scheme):
    rng = np.random.default_rng(5)
    s, n = 14, 25
    q = rng.uniform(size=s)
    scores = {m: _frame(q + rng.normal(0, sd, (n, s))) for m, sd in (("A", 0.2), ("B", 0.3), ("C", 0.5))}
    X = scores["A"].to_numpy().copy()
    X[:, 3] = X[:, 2]
    scores["A"] = _frame(X)  # exact ties in metric A's rankings
    res = metric_agreement(scores, weigher="harmonic", scheme=scheme, n_resamples=120, rng=11, pvalue=False)
    ref = _reference_replicates(scores, res.resamples, "harmonic", scheme)
    frame = res.to_frame()
    for p, row in frame.iterrows():
        tb, tw = ref[(row.metric_a, row.metric_b)]
        g = standardize(tw, coefficient="kendall", scheme=scheme, weigher="harmonic", n=s)
        np.testing.assert_allclose(res.bootstrap_tau_b[:, p], tb, atol=1e-12)
        np.testing.assert_allclose(res.bootstrap_tau_w[:, p], tw, atol=1e-12)
        assert row.tau_b_se == pytest.approx(np.std(tb, ddof=1), abs=1e-12)
        assert row.tau_w_se == pytest.approx(np.std(tw, ddof=1), abs=1e-12)
        assert row.tau_w_standardized_se == pytest.approx(np.std(g, ddof=1), abs=1e-12)
        assert row.difference_se == pytest.approx(np.std(g - tb, ddof=1), abs=1e-12)
        assert row.tau_b_ci_low == pytest.approx(np.quantile(tb, 0.025), abs=1e-12)
        assert row.tau_w_standardized_ci_high == pytest.approx(np.quantile(g, 0.975), abs=1e-12)


def test_observed_values_match_scipy_and_kendall_of_rank_correlation_se():
    from agreekit.ireval.bootstrap import rank_correlation_se

    coll = _collection("bottom", seed=4)
    res = metric_agreement(coll, rng=7, n_resamples=250, pvalue=False)
    row = res.to_frame().iloc[0]
    ra = stats.rankdata(-coll["A"].mean().to_numpy())
    rb = stats.rankdata(-coll["B"].mean().to_numpy())
    assert row.tau_b == pytest.approx(stats.kendalltau(ra, rb).statistic, abs=1e-12)
    from agreekit import weighted_kendall

    assert row.tau_w == pytest.approx(weighted_kendall(ra.astype(int), rb.astype(int)), abs=1e-12)
    # the same seed draws the same topic samples as the bootstrap module: identical tau_b SE
    se = rank_correlation_se(coll["A"], coll["B"], n_resamples=250, rng=7).standard_error
    assert row.tau_b_se == pytest.approx(se, abs=1e-12)


def test_all_metrics_share_the_same_topic_resamples():
    rng = np.random.default_rng(2)
    q = rng.uniform(size=12)
    scores = {m: _frame(q + rng.normal(0, 0.3, (20, 12))) for m in "ABC"}
    two = metric_agreement({k: scores[k] for k in "AB"}, rng=9, n_resamples=100, pvalue=False)
    three = metric_agreement(scores, rng=9, n_resamples=100, pvalue=False)
    np.testing.assert_array_equal(two.resamples, three.resamples)
    np.testing.assert_array_equal(two.bootstrap_tau_w[:, 0], three.bootstrap_tau_w[:, 0])
    inj = metric_agreement(scores, resamples=two.resamples, pvalue=False)
    pd.testing.assert_frame_equal(inj.to_frame(), three.to_frame())


def test_top_k_overlap_against_brute_force_with_ties_at_the_cut():
    s = 8
    a = np.array([0.9, 0.8, 0.7, 0.7, 0.7, 0.3, 0.2, 0.1])
    b = np.array([0.1, 0.8, 0.9, 0.6, 0.2, 0.7, 0.5, 0.4])
    scores = {"A": _frame(np.tile(a, (3, 1))), "B": _frame(np.tile(b, (3, 1)))}
    res = metric_agreement(scores, top_k=3, n_resamples=10, rng=0, pvalue=False)
    top_a = {i for i in range(s) if (a > a[i]).sum() < 3}  # 0, 1 and the three tied at .7
    top_b = {i for i in range(s) if (b > b[i]).sum() < 3}
    assert top_a == {0, 1, 2, 3, 4}
    assert res.to_frame().top_k_overlap.iloc[0] == len(top_a & top_b) == 2


def test_alignment_by_label_and_determinism():
    coll = _collection("top", seed=8)
    shuffled = coll["B"].iloc[::-1, ::-1]
    r1 = metric_agreement(coll, rng=4, n_resamples=150, pvalue=False).to_frame()
    r2 = metric_agreement({"A": coll["A"], "B": shuffled}, rng=4, n_resamples=150, pvalue=False).to_frame()
    pd.testing.assert_frame_equal(r1, r2)
    import numba

    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        r3 = metric_agreement(coll, rng=4, n_resamples=150, pvalue=False).to_frame()
    finally:
        numba.set_num_threads(old)
    pd.testing.assert_frame_equal(r1, r3)
    assert list(r1.columns) == list(COLUMNS)


def test_gmean_statistic_per_metric():
    from agreekit.ireval.metrics import geometric_mean

    rng = np.random.default_rng(1)
    X = rng.uniform(0.2, 0.6, size=(20, 10))
    X[rng.uniform(size=X.shape) < 0.15] = 0.0  # zero topics hurt the GM, not the AM
    res = metric_agreement(
        {"A": _frame(X), "G_A": _frame(X)}, summary={"G_A": "gmean"}, rng=1, n_resamples=50, pvalue=False
    )
    assert res.summary_names == ("mean", "gmean")
    np.testing.assert_allclose(res.summaries["G_A"].to_numpy(), geometric_mean(X), rtol=1e-12)
    np.testing.assert_allclose(res.summaries["A"].to_numpy(), X.mean(axis=0), rtol=1e-12)
    ra = stats.rankdata(-X.mean(axis=0))
    rg = stats.rankdata(-geometric_mean(X))
    assert res.to_frame().tau_b.iloc[0] == pytest.approx(stats.kendalltau(ra, rg).statistic, abs=1e-12)
    assert res.to_frame().tau_b.iloc[0] < 1.0


def test_deprecated_statistic_spelling_is_an_alias_of_summary():
    rng = np.random.default_rng(1)
    X = rng.uniform(0.2, 0.6, size=(20, 10))
    scores = {"A": _frame(X), "G_A": _frame(X)}
    new = metric_agreement(scores, summary={"G_A": "gmean"}, rng=1, n_resamples=50, pvalue=False)
    with pytest.warns(DeprecationWarning, match="summary"):
        old = metric_agreement(scores, statistic={"G_A": "gmean"}, rng=1, n_resamples=50, pvalue=False)
    with pytest.warns(DeprecationWarning, match="summary_names"):
        assert old.statistic == new.summary_names == ("mean", "gmean")
    pd.testing.assert_frame_equal(old.to_frame(), new.to_frame())


def test_bad_input_is_rejected_with_the_parameter_named():
    coll = _collection("top")
    with pytest.raises(InputError, match="at least 2 metrics"):
        metric_agreement({"A": coll["A"]})
    with pytest.raises(InputError, match="different systems"):
        metric_agreement({"A": coll["A"], "B": coll["B"].rename(columns={"s00": "zz"})})
    with pytest.raises(InputError, match="different topics"):
        metric_agreement({"A": coll["A"], "B": coll["B"].iloc[1:]})
    bad = coll["B"].copy()
    bad.iloc[2, 3] = np.nan
    with pytest.raises(InputError, match=r"scores\['B'\].*NaN"):
        metric_agreement({"A": coll["A"], "B": bad})
    with pytest.raises(InputError, match="`summary`"):
        metric_agreement(coll, summary={"C": "gmean"})
    with pytest.raises(InputError, match="`scheme`"):
        metric_agreement(coll, scheme="sum")
    with pytest.raises(InputError, match="`top_k`"):
        metric_agreement(coll, top_k=0)
    with pytest.raises(InputError, match="`scores`"):
        consensus_ranking([coll["A"], coll["B"]])


# ---------------------------------------------------------------- consensus


def _weak_orders(m):
    levels = np.indices((m,) * m).reshape(m, -1).T
    used = np.zeros((levels.shape[0], m), dtype=bool)
    np.put_along_axis(used, levels, True, axis=1)
    k = used.sum(axis=1)
    keep = levels.max(axis=1) == k - 1  # levels 0..k-1 all used: dense ranks
    return levels[keep] + 1


def _score(r):
    d = r[:, None] - r[None, :]
    s = np.where(d <= 0, 1.0, -1.0)  # +1 ahead or tied, -1 behind (Emond-Mason)
    np.fill_diagonal(s, 0.0)
    return s


@pytest.mark.parametrize("m,n_metrics,seed", [(5, 3, 0), (6, 4, 1), (7, 3, 2), (7, 5, 3), (6, 2, 4), (7, 2, 5)])
def test_consensus_equals_brute_force_over_all_weak_orders(m, n_metrics, seed):
    rng = np.random.default_rng(seed)
    q = rng.uniform(size=m)
    scores = {}
    for k in range(n_metrics):
        X = np.round(8 * (q + rng.normal(0, 0.8, (6, m)))) / 8  # noisy, coarse (exact binary fractions): ties
        scores[f"M{k}"] = _frame(X)
    res = consensus_ranking(scores, method="exact")
    R = [stats.rankdata(-scores[k].mean().to_numpy()) for k in scores]
    A = [_score(r) for r in R]
    W = _weak_orders(m)
    assert W.shape[0] == {5: 541, 6: 4683, 7: 47293}[m]  # ordered Bell numbers
    taus = np.array([np.mean([(a * _score(w)).sum() / (m * (m - 1)) for a in A]) for w in W])
    best = taus.max()
    assert res.average_tau_x == pytest.approx(best, abs=1e-12)
    assert res.proven and res.gap == 0.0
    optimal = {tuple(w) for w, t in zip(W, taus) if t > best - 1e-12}
    found = {tuple(r) for r in res.solutions.to_numpy()}
    if n_metrics == 2:
        assert res.method == "bound"  # two metrics: either one's ranking reaches the bound
    if (m, n_metrics) in ((7, 3), (7, 5)):
        assert res.method == "exact"  # conflicting metrics: the exact solver enumerates all optima
    if res.method == "bound":  # a metric's own ranking reaches the bound: proven, optima not enumerated
        assert not res.exhaustive and found <= optimal
        assert any(tuple(dense_ranks(r)) in found for r in R)
    else:
        assert res.method == "exact" and m == 7 and n_metrics in (3, 5)  # the noisier cases
        assert res.exhaustive and res.n_optima == len(optimal) and found == optimal
    assert tuple(res.ranking.to_numpy()) in optimal
    for k, r in zip(scores, R):
        assert res.tau_x[k] == pytest.approx((_score(r) * _score(res.ranking.to_numpy())).sum() / (m * (m - 1)))
    assert res.tau_x.mean() == pytest.approx(res.average_tau_x)


def test_consensus_time_limit_reports_a_gap():
    rng = np.random.default_rng(0)
    q = rng.uniform(size=40)
    scores = {f"M{k}": _frame(q + rng.normal(0, 0.4, (10, 40))) for k in range(5)}
    res = consensus_ranking(scores, method="fast", n_starts=3)
    assert not res.proven
    assert res.bound >= res.average_tau_x and res.gap == pytest.approx(res.bound - res.average_tau_x)
    frame = res.to_frame()
    assert (frame.kind == "system").sum() == 40 and (frame.kind == "metric").sum() == 5
    assert frame.loc[frame.kind == "system", "rank"].is_monotonic_increasing


# ---------------------------------------------------------------- p-values


def test_pvalue_untied_is_weighted_correlation_test():
    from agreekit import weighted_correlation_test

    coll = _collection("bottom", seed=6, s=9, k=3)
    res = metric_agreement(coll, n_resamples=20, rng=5)
    row = res.to_frame().iloc[0]
    assert not row.ties
    ra = res.ranks["A"].to_numpy().astype(int)
    rb = res.ranks["B"].to_numpy().astype(int)
    ref = weighted_correlation_test(ra, rb, coefficient="kendall", weigher="harmonic", scheme="additive")
    assert ref.method == "exact" and 0.001 < ref.pvalue < 0.5
    assert row.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert row.pvalue_method == ref.method


@pytest.mark.parametrize("scheme", ["additive", "multiplicative"])
def test_pvalue_with_ties_matches_the_exact_permutation_distribution(scheme):
    """n = 7 with ties: the p-value is exact ("exact (ties)": every one of the 7! relabellings), so it
    equals the exact permutation p-value over all 7! relabellings (each τ_w from
    scipy.stats.weightedtau) to rounding, whatever the Monte Carlo budget."""
    a = np.array([0.9, 0.8, 0.8, 0.5, 0.4, 0.3, 0.3])
    b = np.array([0.7, 0.9, 0.6, 0.6, 0.2, 0.4, 0.1])
    scores = {"A": _frame(np.tile(a, (2, 1))), "B": _frame(np.tile(b, (2, 1)))}
    K = 20_000
    res = metric_agreement(scores, scheme=scheme, n_resamples=5, rng=1, pvalue_resamples=K)
    row = res.to_frame().iloc[0]
    assert row.ties and row.pvalue_method == "exact (ties)"
    f = parse_weigher("harmonic")
    ra, rb = stats.rankdata(-a), stats.rankdata(-b)

    def tw(x, y):
        w = f(x) + f(y) if scheme == "additive" else f(x) * f(y)
        return stats.weightedtau(-x, -y, rank=np.arange(x.size), weigher=lambda i: w[i], additive=False).statistic

    obs = tw(ra, rb)
    assert row.tau_w == pytest.approx(obs, abs=1e-12)
    null = np.array([tw(ra, rb[list(p)]) for p in itertools.permutations(range(7))])
    tol = 1e-12
    exact = min(1.0, 2 * min(np.mean(null >= obs - tol), np.mean(null <= obs + tol)))
    assert row.pvalue == pytest.approx(exact, abs=1e-12)
    again = metric_agreement(scores, scheme=scheme, n_resamples=5, rng=1, pvalue_resamples=K)
    assert again.to_frame().pvalue.iloc[0] == row.pvalue  # seeded: reproducible


def test_tau_b_tie_break_equals_scipy_kendalltau():
    from scipy.stats import kendalltau

    from agreekit.metaeval._consensus import _tau_b

    rng = np.random.default_rng(5)
    for _ in range(200):
        s = int(rng.integers(2, 30))
        x = rng.integers(1, 6, s).astype(float)
        y = rng.normal(size=s).round(int(rng.integers(0, 2)))
        ref = kendalltau(x, y).statistic
        got = _tau_b(x, y)
        assert (np.isnan(ref) and np.isnan(got)) or abs(got - ref) <= 1e-12


# ----------------------------------------------------------------------------- τ_AP_b beside τ_b and g(τ_w)
def _tau_ap_b_direct(a, b):
    """Urbano & Marrero's τ_AP_b of two score vectors (higher = better), pair by pair."""

    def star(x, y):  # y against x
        n = len(x)
        tot, m = 0.0, 0
        for i in range(n):
            above = [j for j in range(n) if y[j] > y[i]]
            if not above:
                continue
            m += 1
            tot += sum(1 for j in above if x[j] > x[i]) / len(above)
        return 2 * tot / m - 1

    return (star(a, b) + star(b, a)) / 2


def test_metric_agreement_reports_tau_ap_b_and_its_bootstrap_se(tmp_path):
    rng = np.random.default_rng(8)
    base = rng.uniform(size=(25, 9)) + np.linspace(1, 0, 9)
    base[:, 3] = base[:, 4]  # two systems with equal scores: a tie
    scores = {
        "A": pd.DataFrame(base),
        "B": pd.DataFrame(base + rng.normal(0, 0.3, base.shape)),
        "C": pd.DataFrame(rng.uniform(size=base.shape)),
    }
    res = metric_agreement(scores, n_resamples=60, rng=2, pvalue=False)
    t = res.to_frame()
    assert {"tau_ap_b", "tau_ap_b_se"} <= set(t.columns)
    means = {m: scores[m].mean(axis=0).to_numpy() for m in scores}
    for row in t.itertuples(index=False):
        assert row.tau_ap_b == pytest.approx(_tau_ap_b_direct(means[row.metric_a], means[row.metric_b]), abs=1e-12)
    # the bootstrap SE: the same topic samples, τ_AP_b of each replicate's means, their SD (ddof = 1)
    row = t.iloc[0]
    boot = [
        _tau_ap_b_direct(
            scores[row.metric_a].to_numpy()[i].mean(axis=0), scores[row.metric_b].to_numpy()[i].mean(axis=0)
        )
        for i in res.resamples
    ]
    assert row.tau_ap_b_se == pytest.approx(np.std(boot, ddof=1), abs=1e-12)
    from agreekit.metaeval.report import plot_heatmap

    plot_heatmap(res, tmp_path / "heat")
    assert (tmp_path / "heat.png").stat().st_size > 1000
