"""Accurate tables (issue 9 §2): the fused shared-stream sampler, held-out degree choice, prediction SEs,
schema 1.1/1.2 (SEs and null quantiles), and the validation gate."""

import itertools
import json
from pathlib import Path

import numba
import numpy as np
import pytest
from scipy import stats

from agreekit._validation import InputError
from agreekit.ranking import tables as T
from agreekit.ranking.correlation import batch_coefficient
from agreekit.ranking.tablegen._fused import permutation_rows
from agreekit.ranking.tablegen.fitting import (
    fit_with_covariance,
    loo_score,
    prediction_se,
    select_degree_held_out,
    x_of_n,
)
from agreekit.ranking.tablegen.generation import (
    _left_var_at,
    fit_stage,
    sample_batch_stage,
    sample_stage,
    summarize_for_fit,
)
from agreekit.ranking.tablegen.reproduction import validation_failures
from agreekit.ranking.tablegen.sampling import quantile_probs, sample_lanes, sample_stream, stream_key

ROOT = Path(__file__).resolve().parents[1]
WEIGHERS = ["harmonic", "inverse_square:n0=0", "inverse_square:n0=1", "inverse_square:n0=2"]
LANES = [(w, s) for s in ("additive", "multiplicative") for w in WEIGHERS]


@pytest.mark.parametrize("coefficient", ["spearman", "kendall"])
@pytest.mark.parametrize("n", [3, 11, 60, 700, 9000])
@pytest.mark.parametrize("sizes", [[40, 40, 31, 40, 7, 40, 1, 25], [40, 3, 40, 40, 12, 12, 12, 12]])
def test_fused_kernel_equals_the_reference_coefficients_on_the_same_permutations(coefficient, n, sizes):
    # lanes stop at different rows; in the second case only the additive lanes run after row 12 (the kernel
    # still computes all eight lanes and reports the active ones); n = 9000 was the old kernel's two-pass
    # Kendall path (tests/test_fused_kernel_bitwise.py compares with that kernel bit for bit)
    key = stream_key(5, coefficient, n)
    got = sample_lanes(coefficient, n=n, sizes=sizes, lanes=LANES, key=key, batch_elements=17 * n)
    perms = permutation_rows(n, key[0], key[1], 0, 40)
    assert np.all(np.sort(perms, axis=1) == np.arange(1, n + 1))
    for (w, s), size, g in zip(LANES, sizes, got):
        ref = batch_coefficient(perms[:size], coefficient=coefficient, weigher=w, scheme=s)
        np.testing.assert_allclose(g, ref, rtol=0, atol=1e-13)


def test_shared_stream_permutations_are_uniform():
    key = stream_key(3, "kendall", 4)
    p = permutation_rows(4, key[0], key[1], 0, 48_000)
    index = {perm: k for k, perm in enumerate(itertools.permutations(range(1, 5)))}
    counts = np.bincount([index[tuple(r)] for r in p], minlength=24)
    assert stats.chisquare(counts).pvalue > 1e-3
    # position of the value 1 in the next row is independent of this row's (rows are separate streams)
    a = np.argmax(p[:-1] == 1, axis=1)
    b = np.argmax(p[1:] == 1, axis=1)
    table = np.zeros((4, 4))
    np.add.at(table, (a, b), 1)
    assert stats.chi2_contingency(table).pvalue > 1e-3


def test_lane_values_do_not_depend_on_companions_batching_or_threads():
    n = 150
    alone = sample_stream("spearman", n=n, size=500, weigher="inverse_square:n0=1", scheme="multiplicative", seed=9)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        together = sample_lanes(
            "spearman",
            n=n,
            sizes=[300, 500, 120],
            key=stream_key(9, "spearman", n),
            lanes=[("harmonic", "additive"), ("inverse_square:n0=1", "multiplicative"), ("dcg", "additive")],
            batch_elements=37 * n,
        )
    finally:
        numba.set_num_threads(old)
    assert np.array_equal(alone, together[1])
    # other purposes / seeds / n give other streams
    assert not np.array_equal(
        alone,
        sample_stream(
            "spearman",
            n=n,
            size=500,
            weigher="inverse_square:n0=1",
            scheme="multiplicative",
            seed=9,
            purpose="validation",
        ),
    )
    assert stream_key(9, "spearman", n) != stream_key(9, "kendall", n) != stream_key(9, "spearman", n + 1)


def test_summary_left_variance_is_exact_inside_the_window():
    rng = np.random.default_rng(0)
    g = rng.normal(-0.2, 0.3, 20_000)
    s = summarize_for_fit(g)
    for c in (s["mean"], s["mean"] + 0.5 * (s["hi"] - s["mean"]), s["lo"] + 1e-9):
        ref = np.mean(np.where(g < c, (g - c) ** 2, 0.0))
        assert _left_var_at(s, c, "x") == pytest.approx(ref, rel=1e-12)
    with pytest.raises(InputError, match="outside the stored window"):
        _left_var_at(s, s["hi"] + 0.01, "samples.n11")
    np.testing.assert_array_equal(s["quantiles"], np.quantile(g, quantile_probs(), method="linear"))
    assert s["se"] == pytest.approx(g.std() / np.sqrt(g.size))


def test_quantile_probs_are_the_announced_grid():
    from scipy.special import expit, logit

    p = quantile_probs()
    assert (
        p.size == 201
        and p[0] == pytest.approx(1e-4)
        and p[-1] == pytest.approx(1 - 1e-4)
        and p[100] == pytest.approx(0.5, abs=1e-12)
    )
    np.testing.assert_array_equal(p, expit(np.linspace(logit(1e-4), logit(1 - 1e-4), 201)))


def test_fit_covariance_matches_statsmodels():
    from statsmodels.regression.linear_model import WLS

    rng = np.random.default_rng(1)
    n = np.array([11, 14, 18, 23, 30, 39, 51, 67, 87, 112, 146, 190], float)
    x = x_of_n(n, "inv_n")
    se = 0.001 * (1 + rng.random(n.size))
    for noise in (1.0, 3.0):  # chi2/dof < 1 (cov = (X'WX)^-1) and > 1 (scaled by chi2/dof)
        y = 0.1 - 0.5 * x + 2 * x**2 + noise * se * rng.standard_normal(n.size)
        coef, cov = fit_with_covariance(x, y, 2, se=se)
        X = np.vander(x, 3, increasing=True)
        res = WLS(y, X, weights=1 / se**2).fit()
        np.testing.assert_allclose(coef, res.params, rtol=1e-9)
        ref = res.cov_params() / res.scale * max(1.0, res.scale)
        np.testing.assert_allclose(cov, ref, rtol=1e-8)


def test_loo_score_equals_brute_force_refits():
    rng = np.random.default_rng(2)
    n = np.round(1.3 ** np.arange(9, 25)).astype(float)
    x = x_of_n(n, "inv_log_n")
    se = 0.002 * (1 + rng.random(n.size))
    y = -0.4 + 1.5 * x - 1.7 * x**2 + se * rng.standard_normal(n.size)
    for d in (1, 2, 4):
        brute = []
        for i in range(n.size):
            m = np.arange(n.size) != i
            c, _ = fit_with_covariance(x[m], y[m], d, se=se[m])
            brute.append(((y[i] - np.polynomial.polynomial.polyval(x[i], c)) / se[i]) ** 2)
        assert loo_score(x, y, d, se=se) == pytest.approx(np.mean(brute), rel=1e-8)
    sel = select_degree_held_out(n, y, se=se, transform="inv_log_n", min_degree=1, max_degree=5)
    assert sel.degree == 1 + int(np.argmin(sel.mse))
    assert sel.degree in (2, 3)  # the true curve is quadratic


def test_prediction_se_is_the_spread_of_refits():
    rng = np.random.default_rng(3)
    n = np.round(1.3 ** np.arange(9, 41)).astype(float)
    x = x_of_n(n, "inv_n")
    se = np.full(n.size, 0.001)
    truth = -0.2 + 3 * x - 20 * x**2
    preds = []
    for _ in range(400):
        c, cov = fit_with_covariance(x, truth + se * rng.standard_normal(n.size), 2, se=se)
        preds.append(np.polynomial.polynomial.polyval(x_of_n(np.array([15.0, 40000.0]), "inv_n"), c))
    spread = np.std(preds, axis=0)
    ref = np.sqrt(
        np.diag(
            np.vander(x_of_n(np.array([15.0, 40000.0]), "inv_n"), 3, increasing=True)
            @ np.linalg.inv((np.vander(x, 3, increasing=True) / se[:, None] ** 2).T @ np.vander(x, 3, increasing=True))
            @ np.vander(x_of_n(np.array([15.0, 40000.0]), "inv_n"), 3, increasing=True).T
        )
    )
    np.testing.assert_allclose(spread, ref, rtol=0.12)
    # prediction_se with the known-SE covariance equals the textbook formula
    X = np.vander(x, 3, increasing=True)
    cov = np.linalg.inv((X / se[:, None] ** 2).T @ X)
    np.testing.assert_allclose(prediction_se(np.array([15.0, 40000.0]), "inv_n", cov), ref, rtol=1e-9)


def _small_settings(coefficient, scheme, weigher, *, method="held_out", sizes=None):
    grid = [11, 14, 18, 23, 30, 39, 51]
    return {
        "coefficient": coefficient,
        "scheme": scheme,
        "weigher": weigher,
        "n_exact": 6,
        "grid": {"q": 1.3, "a_min": 9, "a_max": 15, "n": grid},
        "sample_size": sizes or {"target_se": 0.004, "min_size": [3000] * len(grid), "max_elements": 10**7},
        "sampler": "shared-stream-v1",
        "transform": {"mean": "inv_log_n", "var": "inv_n", "left_var": "inv_n"},
        "degree_selection": {
            "min_degree": 1,
            "max_degree": 3,
            "ratio_improve": 0.8,
            "ratio_lookahead": 0.5,
            "fit_subset": "even",
            "method": method,
        },
        "n_max": 60,
        "seed": 4,
    }


def test_batch_stage_equals_single_stage_and_null_quantiles_are_the_samples():
    a = _small_settings("kendall", "additive", "harmonic")
    b = _small_settings("kendall", "multiplicative", "inverse_square:n0=1")
    batch = sample_batch_stage([a, b])
    single = sample_stage(b)
    sid = "kendall_multiplicative_inverse_square-n0=1"
    for key, s in single.items():
        for f in ("size", "mean", "se", "var_pop", "S2"):
            assert batch[sid][key][f] == s[f]
    # target-SE sizing: N = max(min_size, ceil(V_prev / se^2)) from the scheme's own previous sample
    sizes = [single[f"n{n}"]["size"] for n in b["grid"]["n"]]
    assert sizes[0] == int(np.ceil(0.3 / 0.004**2))
    assert sizes[1] == max(3000, int(np.ceil(single["n11"]["var_pop"] / 0.004**2)))
    fitted = fit_stage(b, single)
    nq = fitted["null_quantiles"]
    assert nq["n"] == b["grid"]["n"] and nq["size"] == sizes
    k = 2
    regen = sample_stream(
        "kendall", n=nq["n"][k], size=nq["size"][k], weigher="inverse_square:n0=1", scheme="multiplicative", seed=4
    )
    np.testing.assert_array_equal(nq["values"][k], np.quantile(regen, nq["probs"], method="linear"))
    assert fitted["samples"]["mean"][k] == pytest.approx(regen.mean(), abs=1e-15)
    for q in ("mean", "var", "left_var"):
        f = fitted["fits"][q]
        assert f["method"] == "held_out_loo" and np.shape(f["covariance"]) == (f["degree"] + 1,) * 2
    # the paper rule stays selectable
    paper = fit_stage(_small_settings("kendall", "multiplicative", "inverse_square:n0=1", method="paper"), single)
    assert all(paper["fits"][q]["method"] == "paper_4.2.3" for q in ("mean", "var", "left_var"))


def test_schema_1_0_tables_are_still_read():
    data = json.loads(
        (ROOT / "tests" / "data" / "ranking" / "table_schema_1.0_kendall_additive_harmonic.json").read_text()
    )
    assert data["schema_version"] == "1.0"
    tab = T._validate_table(data, "old") and T.CoefficientTable(data)
    assert tab.null_quantiles is None
    m = tab.moments(200)
    assert m.source == "fit" and np.isnan(m.mean_se) and np.isnan(m.var_se)
    ex = tab.moments(8)
    assert (ex.mean_se, ex.var_se, ex.left_var_se) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("sid", T.available_tables())
def test_shipped_tables_are_schema_1_2_with_ses_and_quantiles(sid):
    tab = T.load_table(sid)
    assert tab.data["schema_version"] == "1.2" and tab.n_max == 40000
    assert tab.data["samples"]["n"][-1] == 36119
    assert all(tab.data["fits"][q]["method"] == "held_out_loo" for q in ("mean", "var", "left_var"))
    ns = [11, 30, 100, 300, 1000, 3000, 10000, 40000]
    ms = [tab.moments(n) for n in ns]
    # the fit's own standard error of Γ̄: <= 5e-4 up to n = 1000, and below the 0.002 target up to n_max
    # (the largest, 1.6e-3 at n = 40000, for Kendall/multiplicative/1/(i+n0)^2, whose null variance stays
    # near 0.13 while the work per permutation grows with n)
    assert all(0 < m.mean_se <= 5e-4 for m in ms[:5]), [m.mean_se for m in ms]
    assert all(0 < m.mean_se < 0.002 for m in ms), [m.mean_se for m in ms]
    assert all(0 < m.var_se < 0.003 and 0 < m.left_var_se < 0.001 for m in ms)
    assert tab.moments(10).mean_se == 0.0
    nq = tab.null_quantiles
    assert nq.values.shape == (nq.n.size, 201) and np.all(np.diff(nq.values, axis=1) >= 0)
    np.testing.assert_array_equal(nq.probs, quantile_probs())
    # schema 1.2: the quantile stage's own grid and sizes (every n up to 60 with 1e6, then >= 5e5 up to 800)
    qs = tab.data["provenance"]["settings"]["quantiles"]
    assert list(nq.n) == qs["n"] and list(nq.size) == qs["size"]
    assert list(nq.n[:50]) == list(range(11, 61)) and nq.n[-1] == 40000
    assert nq.size[nq.n <= 60].min() == 1_000_000 and nq.size[nq.n <= 800].min() >= 500_000


@pytest.mark.parametrize("coefficient", ["spearman", "kendall"])
def test_shipped_tables_have_zero_mean_g_at_held_out_n(coefficient):
    """A small version of the pipeline's validation (which uses >= 1e5 permutations at 6 n per scheme),
    with Γ drawn by the independent sampler of tests/_independent_null.py (numpy permutations, the
    coefficient checked against scipy.stats.weightedtau), not the fused kernel that drew the tables'
    training samples; g is the public standardization function of the shipped table."""
    from _independent_null import coefficient_rows, permutation_blocks

    from agreekit.ranking import standardization_function

    tabs = [T.load_table(s) for s in T.available_tables() if s.startswith(coefficient)]
    assert len(tabs) == 8
    size = 20_000
    for n in (44, 160):
        perms = list(permutation_blocks(n, size, np.random.default_rng([123, n, coefficient == "kendall"])))
        for t in tabs:
            assert n not in t.data["samples"]["n"]  # held out
            gam = np.concatenate([coefficient_rows(P, coefficient, t.scheme, t.weigher) for P in perms])
            g = standardization_function(coefficient=coefficient, scheme=t.scheme, weigher=t.weigher, n=n)
            gv = np.asarray(g(gam), dtype=float)
            mean, se = float(gv.mean()), float(gv.std() / np.sqrt(size))
            assert abs(mean) <= 0.002 + 3 * se, (t.scheme_id, n, mean, se)


def test_validation_failures_name_scheme_and_n():
    rows = {
        "kendall_additive_harmonic": [
            {"n": 44, "size": 1000, "beyond_n_max": False, "g_mean_corrected": 0.01, "g_se_corrected": 0.001},
            {"n": 160, "size": 1000, "beyond_n_max": False, "g_mean_corrected": 0.004, "g_se_corrected": 0.001},
            {"n": 90000, "size": 1000, "beyond_n_max": True, "g_mean_corrected": 0.5, "g_se_corrected": 0.001},
            {
                "n": 300,
                "size": 1000,
                "beyond_n_max": False,
                "g_mean_corrected": None,
                "g_se_corrected": None,
                "error_corrected": "BoundConsistencyError: empty",
            },
        ]
    }
    bad = validation_failures(rows)
    assert len(bad) == 2
    assert bad[0].startswith("kendall_additive_harmonic at n = 44: |E[g]| = 0.0100 > 0.002 + 3 SE")
    assert "n = 300" in bad[1] and "BoundConsistencyError" in bad[1]
    assert validation_failures(rows, threshold=0.02) == [bad[1]]
