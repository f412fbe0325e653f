"""method="table" of weighted_correlation_test on tables whose null quantiles come from our own
Monte Carlo (same format as schema 1.1), checked against an independent, larger Monte Carlo
(tests/_independent_null.py) at held-out n (issue 10 accuracy target), plus auto / fallback behaviour and H0 uniformity."""

import copy

import numpy as np
import pytest
from scipy import stats

from agreekit import InputError, weighted_correlation_test
from agreekit.ranking import _quantile_model as QM
from agreekit.ranking._quantile_model import quantile_model as _quantile_model
from agreekit.ranking.significance import null_quantile_block, quantile_probs
from agreekit.ranking.tables import CoefficientTable, load_table
from agreekit.ranking.tablegen.sampling import sample_coefficient

TRAIN_N = [11, 14, 18, 23, 30, 39, 51, 67, 87, 112, 146]
# Synthetic tables (2e5 permutations per training n) of two configurations with a smooth null check the
# quantile model itself; at that sampling the steep multiplicative nulls (clusters of mass ~1/n) miss
# the target at some n, and the clustered case is checked below for the interpolation scheme it needs.
# All 16 shipped tables are tested against the target at 9 held-out n in
# tests/test_ranking_quantile_tables.py::test_every_shipped_table_meets_the_target_at_every_held_out_n.
CONFIGS = [("spearman", "additive", "harmonic"), ("kendall", "additive", "harmonic")]


def _mc(coef, scheme, weigher, n, size, seed):
    return sample_coefficient(
        coef, n=n, size=size, weigher=weigher, scheme=scheme, rng=np.random.default_rng([seed, n])
    )


def synthetic_table(coef, scheme, weigher, size=200_000, seed=2024):
    """The shipped table of the configuration with a null_quantiles block (and a matching
    samples block) from a fresh Monte Carlo sample of ``size`` permutations per training n."""
    from agreekit.ranking.weighting import scheme_id

    tab = load_table(scheme_id(coef, scheme, weigher))
    d = copy.deepcopy(tab.data)
    samples = {n: _mc(coef, scheme, weigher, n, size, seed) for n in TRAIN_N}
    block = null_quantile_block(samples)
    fm = [tab.moments(n).mean for n in TRAIN_N]
    d["samples"] = {
        "n": TRAIN_N,
        "size": block["size"],
        "mean": [float(np.mean(samples[n])) for n in TRAIN_N],
        "se": [0.0] * len(TRAIN_N),
        "fitted_mean": fm,
        "var": [float(np.mean((samples[n] - m) ** 2)) for n, m in zip(TRAIN_N, fm)],
        "left_var": [0.0] * len(TRAIN_N),
    }
    d["null_quantiles"] = block
    return CoefficientTable(d, None)


@pytest.fixture(scope="module", params=CONFIGS, ids=lambda c: "-".join(c))
def table_and_config(request):
    return synthetic_table(*request.param), request.param


def test_block_format():
    samples = {20: np.linspace(-1, 1, 1001)}
    b = null_quantile_block(samples)
    assert len(b["probs"]) == 201 and b["probs"][0] == pytest.approx(1e-4) and b["probs"][-1] == pytest.approx(1 - 1e-4)
    np.testing.assert_allclose(b["values"][0], np.quantile(samples[20], quantile_probs(), method="linear"))
    assert b["n"] == [20] and b["size"] == [1001]


@pytest.mark.parametrize("n", [20, 45])
def test_table_pvalues_meet_accuracy_target(table_and_config, n):
    from _independent_null import null_sample

    tab, (coef, scheme, weigher) = table_and_config
    # the reference: 10^6 permutations drawn by the independent sampler of tests/_independent_null.py
    # (numpy permutations, coefficient checked against scipy.stats.weightedtau), not the fused kernel that
    # drew the synthetic table's training samples
    ref = np.sort(null_sample(coef, scheme, weigher, n, 1_000_000, np.random.default_rng([77, n])))
    B = ref.size
    model = _quantile_model(tab)
    for p in (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5):
        for side in ("less", "greater"):
            g = float(np.quantile(ref, p if side == "less" else 1 - p))
            p_mc = np.mean(ref <= g) if side == "less" else np.mean(ref >= g)
            p_ge, p_le = model.tails(n, g)
            p_tab = p_le if side == "less" else p_ge
            se = np.sqrt(p_mc * (1 - p_mc) / B)
            assert p_mc >= 0.001 - 3 * se, (side, p)  # every row falls under one of the two bounds
            if p_mc >= 0.05:
                assert abs(p_tab - p_mc) <= 0.005 + 3 * se, (side, p)
            else:
                assert abs(p_tab - p_mc) <= 0.10 * p_mc + 3 * se, (side, p)


def test_clustered_null_uses_fixed_gamma_interpolation_in_the_upper_tail():
    # Kendall, multiplicative 1/i^2: the permutations keeping item 1 on top form a cluster of mass
    # ~1/n near Γ = 1, at a fixed location; quantiles at fixed p cannot be interpolated across it
    tab = synthetic_table("kendall", "multiplicative", "inverse_square:n0=0")
    model = _quantile_model(tab)
    n = 45
    ref = np.sort(_mc("kendall", "multiplicative", "inverse_square:n0=0", n, 400_000, seed=78))
    g = float(np.quantile(ref, 1 - 0.01))
    assert model.vertical_at(n, g)
    p_mc = np.mean(ref >= g)
    p_vertical = model.tails(n, g)[0]
    q, _ = model.quantiles(n)
    l_horizontal = float(np.interp(g, q, model.logit))
    p_horizontal = 1 / (1 + np.exp(l_horizontal))
    assert abs(p_vertical - p_mc) < abs(p_horizontal - p_mc)
    assert abs(p_vertical - p_mc) <= 0.2 * p_mc


def test_table_method_through_the_public_function(table_and_config):
    tab, (coef, scheme, weigher) = table_and_config
    rng = np.random.default_rng(9)
    n = 60
    for _ in range(5):
        x, y = rng.permutation(n) + 1, rng.permutation(n) + 1
        kw = dict(coefficient=coef, scheme=scheme, weigher=weigher, table=tab)
        t = weighted_correlation_test(x, y, method="table", **kw)
        a = weighted_correlation_test(x, y, method="auto", **kw)
        mc = weighted_correlation_test(x, y, method="monte-carlo", n_resamples=100_000, rng=rng, **kw)
        assert t.method == a.method == "table" and t == a
        # the table's own Monte Carlo error: linear interpolation between the stored n = 51 and 67
        # (2e5 permutations each) has N_eff = 1 / ((1 - lam)^2 / N + lam^2 / N)
        lam = (np.log(n) - np.log(51)) / (np.log(67) - np.log(51))
        n_eff = 200_000 / ((1 - lam) ** 2 + lam**2)
        q = min(t.pvalue / 2, 0.5)
        assert t.pvalue_se == pytest.approx(2 * np.sqrt(q * (1 - q) / n_eff), rel=1e-9) or t.pvalue == 1.0
        assert abs(t.pvalue - mc.pvalue) <= 0.005 + 4 * mc.pvalue_se
        m = tab.moments(n)
        assert (t.null_mean, t.null_var, t.null_left_var) == (m.mean, m.var, m.left_var)


def test_table_pvalues_uniform_under_h0(table_and_config):
    tab, (coef, scheme, weigher) = table_and_config
    rng = np.random.default_rng(11)
    n = 50
    ps = {alt: [] for alt in ("two-sided", "greater", "less")}
    for _ in range(2000):
        x, y = rng.permutation(n) + 1, rng.permutation(n) + 1
        for alt in ps:
            ps[alt].append(
                weighted_correlation_test(
                    x, y, coefficient=coef, scheme=scheme, weigher=weigher, table=tab, alternative=alt
                ).pvalue
            )
    for alt, p in ps.items():
        assert stats.kstest(p, "uniform").pvalue > 0.01, alt


def test_table_without_quantiles():
    tab = load_table("kendall_additive_harmonic")
    if tab.data.get("null_quantiles") is not None:
        d = copy.deepcopy(tab.data)
        del d["null_quantiles"]
        tab = CoefficientTable(d, None)
    x, y = np.arange(1, 31), np.random.default_rng(0).permutation(30) + 1
    res = weighted_correlation_test(x, y, table=tab, n_resamples=2000, rng=1)
    assert res.method == "monte-carlo"  # auto falls back
    with pytest.raises(InputError, match="null quantiles") as exc:
        weighted_correlation_test(x, y, table=tab, method="table")
    assert exc.value.parameter == "table"


def test_table_range_errors(table_and_config):
    tab, (coef, scheme, weigher) = table_and_config
    n = tab.n_max + 1
    x = np.arange(1, n + 1)
    with pytest.raises(InputError, match="outside") as exc:
        weighted_correlation_test(x, x, coefficient=coef, scheme=scheme, weigher=weigher, table=tab, method="table")
    assert exc.value.parameter == "n"
    with pytest.raises(InputError, match="is for"):
        weighted_correlation_test(x[:20], x[:20], coefficient=coef, scheme=scheme, weigher="dcg", table=tab)


def _shipped_with_quantiles():
    """The shipped tables that hold null quantiles (``quantile_model`` is None exactly when the block is
    absent).  Read as plain JSON: validating 16 tables at import cost every xdist worker ~4 CPU-s at
    collection; the tests load and validate the ones they use."""
    import json

    from agreekit.ranking.tables import available_tables, shipped_tables_dir

    folder = shipped_tables_dir()
    return [
        sid
        for sid in available_tables()
        if "null_quantiles" in json.loads(folder.joinpath(f"{sid}.json").read_text("utf-8"))
    ]


SHIPPED = _shipped_with_quantiles()


@pytest.mark.parametrize("n", [50, 500])
@pytest.mark.parametrize("sid", ["spearman_additive_harmonic", "kendall_multiplicative_inverse_square-n0=0"])
def test_shipped_table_pvalues_uniform_under_h0(sid, n):
    tab = load_table(sid)
    assert len(SHIPPED) == 16 and sid in SHIPPED  # every shipped table (schema 1.2) has null quantiles
    rng = np.random.default_rng([n, len(sid)])
    ps = {alt: [] for alt in ("two-sided", "greater", "less")}
    for _ in range(2000):
        x, y = rng.permutation(n) + 1, rng.permutation(n) + 1
        for alt in ps:
            res = weighted_correlation_test(
                x, y, coefficient=tab.coefficient, scheme=tab.scheme, weigher=tab.weigher, alternative=alt
            )
            assert res.method == "table"
            ps[alt].append(res.pvalue)
    for alt, p in ps.items():
        assert stats.kstest(p, "uniform").pvalue > 0.01, alt


@pytest.mark.parametrize("sid", ["kendall_multiplicative_inverse_square-n0=0", "spearman_additive_harmonic"])
def test_vertical_scheme_is_weighted_least_squares_linear_in_inverse_n(sid, monkeypatch):
    # the vertical weights c_k(n) reproduce a + b/n exactly (a linear smoother, unbiased for that model);
    # one stored length per side is interpolation between the neighbours; wider windows pool, with
    # weights proportional to the sample sizes when every x = 1/n_k - 1/n is equal, so compare with an
    # independent weighted least-squares solve

    model = QM.QuantileModel(load_table(sid), QM.table_quantiles(load_table(sid)))
    ns, size = model.nq.n, model.nq.size.astype(float)
    for n in (70, 333, 1400, 2000, 5400, 30000, 39999):
        sel, c = model._vertical_weights(n)
        x = 1.0 / ns[sel]
        assert c.sum() == pytest.approx(1.0, abs=1e-12)
        assert c @ x == pytest.approx(1.0 / n, rel=1e-9)
        half = next(h for upto, h in QM._VERTICAL_WINDOWS if n <= upto)
        assert sel.size == 2 * half and np.all(np.diff(sel) == 1)
        if half == 1:
            a, b = sel
            lam = (1 / n - 1 / ns[a]) / (1 / ns[b] - 1 / ns[a])
            np.testing.assert_allclose(c, [1 - lam, lam], atol=1e-12)
            assert ns[a] <= n <= ns[b] or n > ns[-1]
        else:
            X = np.column_stack([np.ones(sel.size), x - 1.0 / n])
            W = np.diag(size[sel])
            ref = np.linalg.inv(X.T @ W @ X) @ X.T @ W
            np.testing.assert_allclose(c, ref[0], atol=1e-10)
    # leaving a stored length out never uses it
    k = int(np.searchsorted(ns, 5000))
    sel, _ = model._vertical_weights(int(ns[k]), exclude=k)
    assert k not in sel


def test_stored_lengths_where_the_fit_pools_use_the_pooled_quantiles():

    tab = load_table("kendall_additive_harmonic")
    model = QM.QuantileModel(tab, QM.table_quantiles(tab))
    for n in (30, 60, 101, 1433):  # dense range, and interpolation windows: the stored values as stored
        k = model.index[n]
        np.testing.assert_array_equal(model.quantiles(n)[0], model.nq.values[k])
    n = 31020  # a pooling window: the fit through all stored lengths around it
    k = model.index[n]
    q = model.quantiles(n)[0]
    np.testing.assert_allclose(q, model._horizontal(n))
    assert not np.array_equal(q, model.nq.values[k])
    body = (model.nq.probs >= 0.01) & (model.nq.probs <= 0.99)  # (the extreme stored quantiles rest on a few draws)
    assert np.max(np.abs(q - model.nq.values[k])[body]) < 0.05 * model.nq.sd[k]


def _mc_plain_spearman_additive(weigher, n, size, seed, rows=2000):
    """The Monte Carlo sample of _mc (same permutation stream: agreekit's uniform permutation sampler,
    as before, whose stream does not depend on the batch size), with Γ computed by the plain compiled
    kernel of tests/test_ranking_moments.py from the definition instead of agreekit's batch_coefficient
    (equal to it on these permutations; checked below on the first rows)."""
    from agreekit.ranking._kernels import random_permutations
    from test_ranking_moments import _values, plain_weigher

    rng = np.random.default_rng([seed, n])
    fr = plain_weigher(weigher)(np.arange(1, n + 1, dtype=np.float64))
    out = np.empty(size)
    perms = np.empty((rows, n), dtype=np.int64)
    u = np.empty((rows, n))
    for start in range(0, size, rows):
        k = min(rows, size - start)
        p = random_permutations(rng, k, n, out=perms[:k], _u=u[:k])
        out[start : start + k] = _values(p, fr, False, True)
    return out


def test_plain_monte_carlo_is_the_sampler_s_sample():
    a = _mc_plain_spearman_additive("inverse_square:n0=1", 5400, 3000, seed=79)
    b = _mc("spearman", "additive", "inverse_square:n0=1", 5400, 3000, seed=79)
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-14)


def test_table_pvalue_se_tracks_the_error_against_a_large_monte_carlo():
    # at n = 5400 (pooled fits over stored lengths with 1e5-5e5 permutations each), the reported
    # pvalue_se is the table's sampling error: against an independent 1e6 Monte Carlo, the errors
    # scaled by sqrt(se_table^2 + se_mc^2) have a spread of about 1 (not << 1, not >> 1)
    tab = load_table("spearman_additive_inverse_square-n0=1")
    n = 5400
    ref = np.sort(_mc_plain_spearman_additive("inverse_square:n0=1", n, 1_000_000, seed=79))
    model = _quantile_model(tab)
    zs = []
    for p in (0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2):
        for side in ("less", "greater"):
            g = float(np.quantile(ref, p if side == "less" else 1 - p))
            p_mc = np.mean(ref <= g) if side == "less" else np.mean(ref >= g)
            p_ge, p_le, n_eff = model.tails_and_size(n, g)
            p_tab = p_le if side == "less" else p_ge
            assert 2e5 < n_eff < 2e7
            zs.append((p_tab - p_mc) / np.sqrt(p_mc * (1 - p_mc) * (1 / n_eff + 1 / ref.size)))
    zs = np.array(zs)
    assert np.max(np.abs(zs)) < 4.5
    assert 0.2 < np.sqrt(np.mean(zs**2)) < 2.0
