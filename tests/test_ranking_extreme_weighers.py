"""Issue 23, "extreme but valid weighers": null distributions, moments and p-values of weighers whose
values span far more than float64 carries (10^100 ... 10^3000 over f(1..n)).

The reference is independent of the code under test: every one of the n! permutations (n <= 7) is
evaluated in 60-digit ``mpmath`` arithmetic (unbounded exponent) from the weigher's formula, written
again here in log space from its float64 parameters — Kendall by Eq. 8 (pair weight w_i w_j), Spearman
by the pairwise form Eq. 16 (algebraically Eq. 7, but no weighted mean whose rounding could swamp a
weight 10^-1000 times the largest) — and the mean, variance, left variance (divided by n!) and the
tail counts of a given pair are taken from those values.  Monte Carlo p-values are compared with the
exact reference within 3 binomial standard errors.  CLI cases run in a real process.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import subprocess
import sys

import mpmath
import numpy as np
import pytest

from agreekit._validation import InputError
from agreekit.ranking import exact_moments, parse_weigher, weighted_correlation_test
from agreekit.ranking.standardization import BoundConsistencyError, StandardizationFunction
from agreekit.ranking.tables import null_moments, standardize
from agreekit.ranking._rescaling import scratch_table, weigher_table

mpmath.mp.dps = 60
#: extreme nulls admit no monotone g: the test result says so with this warning (standardized = nan)
pytestmark = pytest.mark.filterwarnings("ignore:no standardization function:RuntimeWarning")

# ----------------------------------------------------------------------------- the reference


def _mp_logf(spec, i):
    """log f(i) in mpmath from the weigher's float64 parameters (formulas of the spec grammar)."""
    if callable(spec):
        return mpmath.log(mpmath.mpf(float(spec(float(i)))))
    family, _, rest = spec.partition(":")
    prm = {k: mpmath.mpf(float(v)) for k, v in (item.split("=") for item in rest.split(",") if item)}
    n0 = prm.get("n0", mpmath.mpf(0))
    i = mpmath.mpf(i)
    if family == "harmonic":
        return -mpmath.log(i)
    if family == "inverse_square":
        return -2 * mpmath.log(i + n0)
    assert family == "power"
    return -prm["p"] * mpmath.log(i + n0)


def _mp_gamma(y, f, coefficient, mult):
    """Γ(id, y) by definition in mpmath; ``f[r]`` = f(r) for r = 1..n (``f[0]`` unused)."""
    n = len(y)
    x = range(1, n + 1)
    w = [f[a] * f[b] if mult else f[a] + f[b] for a, b in zip(x, y)]
    if coefficient == "kendall":
        num = den = mpmath.mpf(0)
        for i, j in itertools.combinations(range(n), 2):
            p = w[i] * w[j]
            num += p if (y[j] - y[i]) > 0 else -p  # x[j] > x[i]
            den += p
        return num / den
    sxy = sxx = syy = mpmath.mpf(0)
    for i, j in itertools.combinations(range(n), 2):
        p = w[i] * w[j]
        dx = j - i
        dy = y[j] - y[i]
        sxy += p * dx * dy
        sxx += p * dx * dx
        syy += p * dy * dy
    return sxy / mpmath.sqrt(sxx * syy)


def _all_mp_gammas(perms, f, coefficient, mult):
    """_mp_gamma for every permutation, bit for bit: the same mpmath operations in the same order, with
    the pair products (and, for Spearman, p·dx·dy, p·dx·dx, p·dy·dy) computed once per
    (i, j, y_i, y_j) instead of once per permutation."""
    n = len(perms[0])
    W = {(a, b): f[a] * f[b] if mult else f[a] + f[b] for a in range(1, n + 1) for b in range(1, n + 1)}
    pairs = list(itertools.combinations(range(n), 2))
    T = {}
    for i, j in pairs:
        for yi in range(1, n + 1):
            for yj in range(1, n + 1):
                if yi != yj:
                    p = W[i + 1, yi] * W[j + 1, yj]
                    dx, dy = j - i, yj - yi
                    T[i, j, yi, yj] = p if coefficient == "kendall" else (p * dx * dy, p * dx * dx, p * dy * dy)
    vals = []
    zero = mpmath.mpf(0)
    for y in perms:
        if coefficient == "kendall":
            num = den = zero
            for i, j in pairs:
                p = T[i, j, y[i], y[j]]
                num += p if (y[j] - y[i]) > 0 else -p
                den += p
            vals.append(num / den)
        else:
            sxy = sxx = syy = zero
            for i, j in pairs:
                a, b, c = T[i, j, y[i], y[j]]
                sxy += a
                sxx += b
                syy += c
            vals.append(sxy / mpmath.sqrt(sxx * syy))
    return vals


_REF = {}


def _reference(coefficient, scheme, spec, n):
    """(permutations, Γ values as mpf, mean, var, left_var) over all n! permutations, cached."""
    key = (coefficient, scheme, spec if not callable(spec) else spec.__name__, n)
    if key not in _REF:
        f = [None] + [mpmath.exp(_mp_logf(spec, i)) for i in range(1, n + 1)]
        perms = list(itertools.permutations(range(1, n + 1)))
        vals = _all_mp_gammas(perms, f, coefficient, scheme == "multiplicative")
        N = len(vals)
        mean = mpmath.fsum(vals) / N
        var = mpmath.fsum((v - mean) ** 2 for v in vals) / N
        left = mpmath.fsum((v - mean) ** 2 for v in vals if v < mean) / N
        _REF[key] = (perms, vals, f, float(mean), float(var), float(left))
    return _REF[key]


_SORTED = {}


def _ref_pvalue(vals, g, alternative="two-sided"):
    """Exact p-value of Γ = g from the reference values, null values within the documented tie tolerance
    of ``weighted_correlation_test`` (``max(1e-12·|γ|, 1e-14)``) counting as ties.  Extreme weighers put
    values as close as e^-28 to γ, so no reference value may lie within 1e-15 of that tolerance's edge
    (where float64's rounding of Γ could decide).  The counts are taken by bisection in the sorted values
    (exact mpf comparisons against the same bounds ``g ∓ tol``); the edge check is applied to every value
    within ``tol + 2e-15`` of g (any other value passes it with a margin of 1e-15)."""
    if id(vals) not in _SORTED:
        _SORTED[id(vals)] = (vals, sorted(vals))
    srt = _SORTED[id(vals)][1]
    N = len(srt)
    tol = max(1e-12 * abs(float(g)), 1e-14)
    lo, hi = bisect.bisect_left(srt, g - tol - 2e-15), bisect.bisect_right(srt, g + tol + 2e-15)
    assert all(abs(abs(v - g) - tol) > 1e-15 for v in srt[lo:hi]), "a null value at the tie tolerance's edge"
    ge = N - bisect.bisect_left(srt, g - tol)
    le = bisect.bisect_right(srt, g + tol)
    if alternative == "greater":
        return ge / N
    if alternative == "less":
        return le / N
    return min(1.0, 2 * min(ge, le) / N)


def _ref_pvalue_plain(vals, g, alternative="two-sided"):
    """The same p-value by a scan over all values (checks _ref_pvalue below)."""
    N = len(vals)
    tol = max(1e-12 * abs(float(g)), 1e-14)
    assert all(abs(abs(v - g) - tol) > 1e-15 for v in vals), "a null value at the tie tolerance's edge"
    ge = sum(1 for v in vals if v >= g - tol)
    le = sum(1 for v in vals if v <= g + tol)
    if alternative == "greater":
        return ge / N
    if alternative == "less":
        return le / N
    return min(1.0, 2 * min(ge, le) / N)


@pytest.mark.parametrize("coefficient,scheme", [("kendall", "multiplicative"), ("spearman", "additive")])
def test_the_fast_reference_is_the_plain_one_bit_for_bit(coefficient, scheme):
    spec, n = "power:p=1200", 6
    perms, vals, f, *_ = _reference(coefficient, scheme, spec, n)
    mult = scheme == "multiplicative"
    for r in range(0, len(perms), 7):
        assert vals[r] == _mp_gamma(perms[r], f, coefficient, mult)  # mpf equality: same bits
    for y in (perms[0], perms[-1], perms[100], perms[333]):
        g = _mp_gamma(y, f, coefficient, mult)
        for alternative in ("two-sided", "greater", "less"):
            assert _ref_pvalue(vals, g, alternative) == _ref_pvalue_plain(vals, g, alternative)


def _wide(i):  # a representable weight vector spanning 10^600 at n = 7: 1e300, 1e200, ..., 1e-300
    return 10.0 ** (300.0 - 100.0 * (np.asarray(i, dtype=np.float64) - 1.0))


def _times_1e200(i):  # the issue's callable
    return 1e200 * np.asarray(i, dtype=np.float64)


def _log10_span(spec, n):
    return float((_mp_logf(spec, 1) - _mp_logf(spec, n)) / mpmath.log(10))


# spans of f(1..n): 10^101, 10^934, 10^3035 (n = 6), 10^600 (a callable), 10^18 and 10^23 (linear
# tables that Spearman's one-pass enumeration could not carry)
EXTREME = [
    ("power:p=130", 6),
    ("power:p=1200", 6),
    ("power:p=3900", 6),
    (_wide, 7),
    ("power:p=30", 6),
    ("inverse_square:n0=-0.999999999", 6),
]
CONFIGS = [(c, s) for c in ("kendall", "spearman") for s in ("additive", "multiplicative")]


def _id(spec):
    return spec if isinstance(spec, str) else spec.__name__


def test_the_spans_are_what_the_issue_asks_for():
    spans = [_log10_span(spec, n) for spec, n in EXTREME]
    assert spans[0] > 100 and spans[2] > 3000 and 599 < spans[3] < 601
    # float64 carries none of the three power tables as values relative to the largest
    for spec, n in EXTREME[:3]:
        assert weigher_table(parse_weigher(spec), n).shape == (2 * n,)


# ----------------------------------------------------------------------------- exact moments and p-values


@pytest.mark.parametrize("coefficient,scheme", CONFIGS)
@pytest.mark.parametrize("spec,n", EXTREME, ids=[f"{_id(s)}-n{n}" for s, n in EXTREME])
def test_exact_moments_match_the_60_digit_enumeration(spec, n, coefficient, scheme):
    _, _, _, mean, var, left = _reference(coefficient, scheme, spec, n)
    m = exact_moments(coefficient, n=n, weigher=spec, scheme=scheme)
    assert (m.mean, m.var, m.left_var) == pytest.approx((mean, var, left), rel=1e-12, abs=1e-12)
    assert m.n_permutations == math.factorial(n)


@pytest.mark.parametrize("coefficient,scheme", CONFIGS)
@pytest.mark.parametrize("spec,n", EXTREME, ids=[f"{_id(s)}-n{n}" for s, n in EXTREME])
def test_exact_pvalues_match_the_60_digit_enumeration(spec, n, coefficient, scheme):
    perms, vals, f, mean, var, left = _reference(coefficient, scheme, spec, n)
    x = np.arange(1, n + 1)
    rng = np.random.default_rng(2323)
    cases = [x[::-1].copy(), x.copy()] + [rng.permutation(n) + 1 for _ in range(3)]
    for y in cases:
        g = _mp_gamma(tuple(int(v) for v in y), f, coefficient, scheme == "multiplicative")
        for alternative in ("two-sided", "greater", "less"):
            res = weighted_correlation_test(
                x, y, coefficient=coefficient, scheme=scheme, weigher=spec, method="exact", alternative=alternative
            )
            assert res.statistic == pytest.approx(float(g), rel=1e-12, abs=1e-14)
            assert res.pvalue == pytest.approx(_ref_pvalue(vals, g, alternative), rel=1e-12), (y, alternative)
        assert (res.null_mean, res.null_var, res.null_left_var) == pytest.approx(
            (mean, var, left), rel=1e-12, abs=1e-12
        )


@pytest.mark.parametrize("coefficient,scheme", CONFIGS)
@pytest.mark.parametrize("spec,n", [EXTREME[1], EXTREME[3]], ids=["power:p=1200-n6", "_wide-n7"])
def test_monte_carlo_pvalues_are_within_3_se_of_the_exact_reference(spec, n, coefficient, scheme):
    perms, vals, f, *_ = _reference(coefficient, scheme, spec, n)
    x = np.arange(1, n + 1)
    B = 20_000
    checked = 0
    for head in ([2, 1, 4, 3, 6, 5], [1, 3, 2, 5, 4, 6], [3, 1, 2, 6, 4, 5]):
        y = np.array(head + list(range(7, n + 1)))
        g = _mp_gamma(tuple(int(v) for v in y), f, coefficient, scheme == "multiplicative")
        exact = _ref_pvalue(vals, g)
        res = weighted_correlation_test(
            x,
            y,
            coefficient=coefficient,
            scheme=scheme,
            weigher=spec,
            method="monte-carlo",
            n_resamples=B,
            rng=np.random.default_rng(7),
        )
        q = min(exact / 2, 0.5)
        se = 2 * math.sqrt(q * (1 - q) / B)
        assert abs(res.pvalue - exact) <= 3 * se + 2 / (B + 1), (y, res.pvalue, exact, se)
        again = weighted_correlation_test(
            x,
            y,
            coefficient=coefficient,
            scheme=scheme,
            weigher=spec,
            method="monte-carlo",
            n_resamples=B,
            rng=np.random.default_rng(7),
        )
        assert again.pvalue == res.pvalue  # same rng, same bits
        checked += 1
    assert checked == 3


@pytest.mark.parametrize("coefficient,scheme", CONFIGS)
def test_null_moments_and_standardize_without_a_table(coefficient, scheme):
    spec, n = EXTREME[2]  # power:p=3900, span 10^3035
    _, _, _, mean, var, left = _reference(coefficient, scheme, spec, n)
    tm = null_moments(coefficient=coefficient, scheme=scheme, weigher=spec, n=n)
    assert tm.source == "exact"
    assert (tm.mean, tm.var, tm.left_var) == pytest.approx((mean, var, left), rel=1e-12, abs=1e-12)
    # so extreme a null (atoms at -1: mean -0.65 .. -0.72) admits no monotone g; standardize says so by its
    # documented error instead of a traceback from inside or a NaN
    with pytest.raises(BoundConsistencyError, match="no monotone g"):
        standardize(0.3, coefficient=coefficient, scheme=scheme, weigher=spec, n=n)
    # beyond exact enumeration: seeded Monte Carlo moments, finite and reproducible, the same null as the
    # permutation test's
    big = null_moments(coefficient=coefficient, scheme=scheme, weigher=spec, n=14)
    assert big.source == "monte-carlo" and all(map(math.isfinite, (big.mean, big.var, big.left_var)))
    assert null_moments(coefficient=coefficient, scheme=scheme, weigher=spec, n=14) == big
    assert 0 < big.var < 1 and 0 < big.left_var < big.var


@pytest.mark.parametrize("coefficient,scheme", CONFIGS)
@pytest.mark.parametrize(
    "spec,n", [(_times_1e200, 7), ("inverse_square:n0=1e80", 6)], ids=["1e200*i-n7", "inverse_square:n0=1e80-n6"]
)
def test_standardize_without_a_table_where_a_monotone_g_exists(spec, n, coefficient, scheme):
    # rescaled weighers whose null admits g: standardize(γ) is g(γ) of the exact moments, and g has mean 0
    # over the 60-digit null (E[g(Γ)] = 0 is what g is built for)
    _, vals, _, mean, var, left = _reference(coefficient, scheme, spec, n)
    g = StandardizationFunction.from_moments(mean, var, left)
    assert abs(math.fsum(g(float(v)) for v in vals) / len(vals)) < 1e-9
    for gamma in (-0.5, 0.1, 0.7):
        got = standardize(gamma, coefficient=coefficient, scheme=scheme, weigher=spec, n=n)
        assert got == pytest.approx(g(gamma), abs=1e-12)


# ----------------------------------------------------------------------------- the issue's cases

ISSUE = [  # (coefficient, scheme, weigher, y = "x" or "reversed", expected value or None)
    ("kendall", "multiplicative", "power:p=300", "reversed", -1.0),
    ("kendall", "multiplicative", "inverse_square:n0=1e80", "reversed", -1.0),
    ("spearman", "additive", "power:p=30,n0=-0.999999", "reversed", -1.0),
    ("kendall", "multiplicative", "power:p=19,n0=-0.9999999999999999", "x", 1.0),
    ("spearman", "multiplicative", "power:p=1000", "shuffled", None),
]
N_ISSUE = 6


def _issue_y(which, n):
    x = np.arange(1, n + 1)
    return {"x": x, "reversed": x[::-1].copy(), "shuffled": np.array([2, 1, 3, 5, 6, 4])}[which]


@pytest.mark.parametrize("coefficient,scheme,spec,which,expected", ISSUE)
def test_issue_cases_in_the_api(coefficient, scheme, spec, which, expected):
    n = N_ISSUE
    perms, vals, f, mean, var, left = _reference(coefficient, scheme, spec, n)
    x = np.arange(1, n + 1)
    y = _issue_y(which, n)
    g = _mp_gamma(tuple(int(v) for v in y), f, coefficient, scheme == "multiplicative")
    if expected is not None:
        assert float(g) == pytest.approx(expected, abs=1e-15)
    res = weighted_correlation_test(x, y, coefficient=coefficient, scheme=scheme, weigher=spec)
    assert res.method == "exact"
    assert res.statistic == pytest.approx(float(g), abs=1e-14)
    assert res.pvalue == pytest.approx(_ref_pvalue(vals, g), rel=1e-12)
    assert (res.null_mean, res.null_var, res.null_left_var) == pytest.approx((mean, var, left), rel=1e-12, abs=1e-12)
    mc = weighted_correlation_test(
        x, y, coefficient=coefficient, scheme=scheme, weigher=spec, method="monte-carlo", n_resamples=20_000, rng=1
    )
    q = min(res.pvalue / 2, 0.5)
    assert abs(mc.pvalue - res.pvalue) <= 3 * 2 * math.sqrt(q * (1 - q) / 20_000) + 2 / 20_001


@pytest.mark.parametrize("coefficient,scheme,spec,which,expected", ISSUE)
def test_issue_cases_through_the_cli(tmp_path, coefficient, scheme, spec, which, expected):
    n = N_ISSUE
    _, vals, f, *_ = _reference(coefficient, scheme, spec, n)
    y = _issue_y(which, n)
    (tmp_path / "x.txt").write_text("".join(f"{i}\n" for i in range(1, n + 1)))
    (tmp_path / "y.txt").write_text("".join(f"{int(v)}\n" for v in y))
    flag = "--test" if which == "x" else "--pvalue"  # --test: the deprecated spelling the issue used
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "agreekit",
            "correlate",
            "--coefficient",
            coefficient,
            "--scheme",
            scheme,
            "--weigher",
            spec,
            flag,
            "x.txt",
            "y.txt",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    out = json.loads(r.stdout)
    g = _mp_gamma(tuple(int(v) for v in y), f, coefficient, scheme == "multiplicative")
    assert out["value"] == pytest.approx(float(g), abs=1e-14)
    if expected is not None:
        assert out["value"] == expected
    assert out["pvalue"] == pytest.approx(_ref_pvalue(vals, g), rel=1e-12)


def test_issue_callable_1e200_times_i():
    n = 7
    for coefficient, scheme in CONFIGS:
        _, vals, f, mean, var, left = _reference(coefficient, scheme, _times_1e200, n)
        m = exact_moments(coefficient, n=n, weigher=_times_1e200, scheme=scheme)
        assert (m.mean, m.var, m.left_var) == pytest.approx((mean, var, left), rel=1e-12, abs=1e-12)
        y = np.array([3, 1, 2, 7, 5, 4, 6])
        g = _mp_gamma(tuple(y.tolist()), f, coefficient, scheme == "multiplicative")
        res = weighted_correlation_test(
            np.arange(1, n + 1), y, coefficient=coefficient, scheme=scheme, weigher=_times_1e200, method="exact"
        )
        assert res.statistic == pytest.approx(float(g), abs=1e-14)
        assert res.pvalue == pytest.approx(_ref_pvalue(vals, g), rel=1e-12)


# ----------------------------------------------------------------------------- the table and what is refused


def test_the_log_table_is_the_weighers_log_relative_to_its_largest():
    n = 6
    t = weigher_table(parse_weigher("power:p=3900"), n)
    lf = [float(_mp_logf("power:p=3900", i) - _mp_logf("power:p=3900", 1)) for i in range(1, n + 1)]
    assert t[n:] == pytest.approx(lf, rel=1e-14)
    assert t[0] == 1.0 and np.all(t[1:n] == 0.0)  # 2^-3900 and below: 0 as values
    np.testing.assert_array_equal(scratch_table(t, n), t[n:])
    # strict=False (a single pair's coefficient): no (2n,) table, the caller uses item_weights
    assert weigher_table(parse_weigher("power:p=3900"), n, strict=False) is None


@pytest.mark.parametrize("spec", ["harmonic", "inverse_square:n0=0", "inverse_square:n0=1", "inverse_square:n0=2"])
def test_ordinary_weighers_keep_the_tree_enumeration(spec):
    # the 8 configurations of the shipped tables: the values are f(1..n) as numpy gives them, and neither
    # coefficient is sent to the per-permutation kernels at any exact n
    w = parse_weigher(spec)
    n0 = dict(w.params).get("n0")
    for n in range(2, 13):
        i = np.arange(1, n + 1, dtype=np.float64)
        ref = 1.0 / i if n0 is None else 1.0 / (i + n0) ** 2
        t = w.table(n)
        assert t.tobytes() == ref.tobytes()
        assert scratch_table(t, n, 0, one_pass=True) is None and scratch_table(t, n, 1, one_pass=True) is None
    for n in (13, 100, 2620, 36119):  # Monte Carlo and single pairs (two-pass formula) up to the tables' n_max
        t = w.table(n)
        assert t.shape == (n,) and scratch_table(t, n, 0) is None and scratch_table(t, n, 1) is None


@pytest.mark.parametrize(
    "bad",
    [
        lambda i: np.where(i == 3, np.nan, 1.0 / i),
        lambda i: np.where(i == 2, np.inf, 1.0),
        lambda i: np.zeros_like(i, dtype=float),
        lambda i: np.where(i == 4, 0.0, 1.0 / i),
    ],
)
def test_nan_inf_zero_raw_weights_are_refused_by_name(bad):
    with pytest.raises(InputError, match="`weigher`"):
        exact_moments("kendall", n=5, weigher=bad, scheme="multiplicative")
    with pytest.raises(InputError, match="`weigher`"):
        weighted_correlation_test([1, 2, 3, 4, 5], [2, 1, 3, 5, 4], weigher=bad, method="exact")


def test_log_weights_beyond_float64_are_refused_by_name():
    with pytest.raises(InputError, match=r"`weigher` 'power:p=1e\+308,n0=0'.*10\^300"):
        exact_moments("kendall", n=5, weigher="power:p=1e308", scheme="additive")


@pytest.mark.parametrize("coefficient,scheme", CONFIGS)
@pytest.mark.parametrize("spec", ["power:p=1000", "power:p=30"])
def test_every_permutations_coefficient_matches_the_reference(spec, coefficient, scheme):
    # one item's weight 10^-125 .. 10^-9 times another's decides: Spearman centred at the weighted mean
    # lost it (y = (3 2 4 1 5 6) at p=1000: -1.7e-47 for -7/sqrt(50)); every path agrees with 60 digits
    from agreekit.ranking import weighted_correlation
    from agreekit.ranking.correlation import batch_coefficient

    n = 6
    perms, vals, *_ = _reference(coefficient, scheme, spec, n)
    ref = np.array([float(v) for v in vals])
    P = np.array(perms, dtype=np.int64)
    got = batch_coefficient(P, coefficient=coefficient, weigher=spec, scheme=scheme)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-14)
    x = np.arange(1, n + 1)
    for r in (0, 119, 300, 481, 719):
        assert weighted_correlation(x, P[r], coefficient=coefficient, weigher=spec, scheme=scheme) == pytest.approx(
            ref[r], rel=1e-12, abs=1e-14
        )


def test_public_table_is_always_one_weight_per_rank():
    # Weigher.table(n) keeps its documented shape (n,) for every span; the (2n,) form with the log-weights
    # is internal (weigher_table), used by the kernels that rescale each permutation on its own
    for spec in ["harmonic", "inverse_square:n0=1e80", "power:p=300", "power:p=3900"]:
        w = parse_weigher(spec)
        t = w.table(9)
        assert t.shape == (9,) and 0.5 <= t.max() <= 1.0 and np.all(t >= 0)
        logs = w.log(np.arange(1, 10.0))
        np.testing.assert_allclose(t / t.max(), np.exp(logs - logs.max()), rtol=1e-12, atol=1e-300)


def test_tables_of_an_extreme_weigher_are_refused_by_name():
    # table generation samples all lanes on one float64 weight matrix: a span beyond 2**240 cannot be held
    # for every permutation at once, so it is refused naming the weigher (an ordinary lane still samples)
    from agreekit.ranking.tablegen.sampling import sample_lanes, stream_key

    key = stream_key(1, "kendall", 12)
    ok = sample_lanes("kendall", n=12, sizes=[50], lanes=[("harmonic", "additive")], key=key)
    assert ok[0].shape == (50,) and np.all(np.abs(ok[0]) <= 1)
    with pytest.raises(InputError, match=r"weigher.*power:p=300.*spans more than 2\*\*240"):
        sample_lanes(
            "kendall", n=12, sizes=[50, 50], lanes=[("harmonic", "additive"), ("power:p=300", "additive")], key=key
        )
