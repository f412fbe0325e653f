"""ap_correlation against ircor's published test values and direct O(n²) implementations written here.

References (none is agreekit's own code path):
* the R package ircor's test values (Urbano & Marrero; tests/testthat/test_tauAP.R), tolerance 5e-5;
* Yilmaz, Aslam & Robertson (SIGIR 2008)'s τ_AP by its definition, pair by pair;
* Urbano & Marrero (ICTIR 2017)'s τ_AP_a (pair by pair) and as the mean of τ_AP over every tie-breaking
  of y, and τ_AP_b = (τ*(x, y) + τ*(y, x))/2 pair by pair.

pyircor (PyPI, 2019) asks for Python < 3.8 and numpy==1.17.4 and imports ``collections.Iterable`` (gone
since Python 3.10): it is not in this project's stack; where it is installed anyway (``pip install --no-deps
--ignore-requires-python pyircor``) it runs once that alias is set, and is then a reference too (else skipped).
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

from agreekit import InputError
from agreekit.ranking import ap_correlation
from agreekit.ranking._ranked_lists import _permutation_dominance, _permutation_sum

# ircor's tests/testthat/helper_data.R (scores, higher = better)
SETS = {
    1: dict(
        x=[0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
        y=[0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988],
        xt=[0.9, 0.4, 0.9, 0.9, 0.7, 0.1, 0.2, 0.4, 0.5, 1],
        yt=[0.8, 0.4, 0.8, 1, 0.7, 0.1, 0.4, 0.5, 0.6, 1],
    ),
    2: dict(
        x=[0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
        y=[0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644],
        xt=[0.3, 0.6, 0.2, 0.9, 0.6, 0.2, 0.7, 0.8, 0.7, 0.4],
        yt=[0.3, 0.8, 0.7, 0.9, 0.1, 0.1, 0.5, 0.6, 1, 0.6],
    ),
    3: dict(
        x=[0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
        y=[0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25],
        xt=[0.2, 0.6, 0.9, 0.1, 0.5, 0.6, 0.8, 0.4, 1, 0.4],
        yt=[0.8, 0.3, 0.3, 0.9, 0.6, 0.3, 0.2, 0.9, 0, 0.2],
    ),
}
# ircor's tests/testthat/test_tauAP.R
IRCOR = {
    1: (0.8519, 0.7454, 0.8333, 0.7321),
    2: (0.2504, 0.2692, 0.2880, 0.297),
    3: (-0.6971, -0.5558, -0.668, -0.7047),
}


@pytest.mark.parametrize("k", [1, 2, 3])
def test_ircor_published_values(k):
    d, (ap, ap_a, ap_b, ap_b_ties) = SETS[k], IRCOR[k]
    assert ap_correlation(d["x"], d["y"], kind="scores") == pytest.approx(ap, abs=5e-5)
    assert ap_correlation(d["x"], d["yt"], kind="scores") == pytest.approx(ap_a, abs=5e-5)
    assert ap_correlation(d["x"], d["y"], symmetric=True, kind="scores") == pytest.approx(ap_b, abs=5e-5)
    assert ap_correlation(d["xt"], d["yt"], symmetric=True, kind="scores") == pytest.approx(ap_b_ties, abs=5e-5)
    assert ap_correlation(d["yt"], d["xt"], symmetric=True, kind="scores") == pytest.approx(ap_b_ties, abs=5e-5)


# ----------------------------------------------------------------------------- direct definitions
def tau_ap_direct(rx, ry):
    """Yilmaz et al.: rank vectors (1 = top), no ties; y evaluated against x."""
    n = len(rx)
    order = sorted(range(n), key=lambda i: ry[i])  # items in y's order
    total = 0.0
    for pos in range(1, n):
        i = order[pos]
        C = sum(1 for j in order[:pos] if rx[j] < rx[i])
        total += C / pos
    return 2 * total / (n - 1) - 1


def tau_ap_a_direct(rx, ry):
    """Urbano & Marrero's τ_AP_a, pair by pair (x untied, ties in y)."""
    n = len(rx)
    total = 0.0
    for i in range(n):
        p = 1 + sum(ry[j] < ry[i] for j in range(n))
        t = sum(ry[j] == ry[i] for j in range(n))
        if p != 1:
            c_above = sum(1 for j in range(n) if ry[j] < ry[i] and rx[j] < rx[i])
            total += c_above * sum(1 / (p + k - 2) for k in range(1, t + 1)) / t
        total += sum(k / (p + k - 1) for k in range(1, t)) / (2 * t)
    return 2 * total / (n - 1) - 1


def tau_star_direct(rx, ry):
    n = len(rx)
    total, m = 0.0, 0
    for i in range(n):
        p = 1 + sum(ry[j] < ry[i] for j in range(n))
        if p == 1:
            continue
        m += 1
        total += sum(1 for j in range(n) if ry[j] < ry[i] and rx[j] < rx[i]) / (p - 1)
    return 2 * total / m - 1 if m else float("nan")


def random_ranks(rng, n, tie_prob):
    """A rank vector (1 = top) of n items with random ties, as ranks with min-rank ties."""
    v = rng.permutation(n).astype(float)
    if tie_prob:
        v = np.floor(v * (1 - tie_prob))  # merge neighbours into groups
    from scipy.stats import rankdata

    return rankdata(v, method="min").astype(int)


def test_untied_against_yilmaz_definition_and_symmetric_mean():
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(2, 30))
        rx, ry = rng.permutation(n) + 1, rng.permutation(n) + 1
        ref = tau_ap_direct(rx, ry)
        assert ap_correlation(rx, ry) == pytest.approx(ref, abs=1e-12)
        assert ap_correlation(rx, ry, symmetric=True) == pytest.approx((ref + tau_ap_direct(ry, rx)) / 2, abs=1e-12)
        # scores (higher = better) give the same as the ranks they imply
        assert ap_correlation(-rx * 1.5, -ry * 0.3, kind="scores") == pytest.approx(ref, abs=1e-12)


def test_ties_against_urbano_marrero_definitions():
    rng = np.random.default_rng(1)
    for _ in range(300):
        n = int(rng.integers(2, 25))
        rx = rng.permutation(n) + 1
        ry = random_ranks(rng, n, float(rng.choice([0.2, 0.5, 0.8])))
        rxt = random_ranks(rng, n, float(rng.choice([0.0, 0.3, 0.6])))
        assert ap_correlation(rx, ry) == pytest.approx(tau_ap_a_direct(rx, ry), abs=1e-12)
        ref_b = (tau_star_direct(rxt, ry) + tau_star_direct(ry, rxt)) / 2
        got = ap_correlation(rxt, ry, symmetric=True)
        if np.isnan(ref_b):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(ref_b, abs=1e-12)


def test_tau_ap_a_is_the_mean_over_tie_breakings_of_y():
    rng = np.random.default_rng(2)
    for _ in range(100):
        n = int(rng.integers(2, 8))
        rx = rng.permutation(n) + 1
        ry = random_ranks(rng, n, 0.5)
        groups = {}
        for i, r in enumerate(ry):
            groups.setdefault(r, []).append(i)
        keys = sorted(groups)
        vals = []
        for combo in itertools.product(*(itertools.permutations(groups[k]) for k in keys)):
            order = [i for part in combo for i in part]
            broken = np.empty(n, dtype=int)
            broken[order] = np.arange(1, n + 1)
            vals.append(tau_ap_direct(rx, broken))
        assert ap_correlation(rx, ry) == pytest.approx(np.mean(vals), abs=1e-12)


def test_large_n_matches_direct_on_a_subsample_and_is_fast_enough_to_run():
    rng = np.random.default_rng(3)
    n = 400
    rx, ry = rng.permutation(n) + 1, rng.permutation(n) + 1
    assert ap_correlation(rx, ry) == pytest.approx(tau_ap_direct(rx, ry), abs=1e-12)
    assert ap_correlation(rx, rx) == 1.0 and ap_correlation(rx, n + 1 - rx) == pytest.approx(-1.0, abs=1e-12)


def _pyircor():
    try:
        from pyircor import tauap as mod
    except ImportError as exc:
        if "Iterable" not in str(exc):
            pytest.skip(f"pyircor not available: {exc}")
        import collections
        import collections.abc

        collections.Iterable = collections.abc.Iterable  # removed in Python 3.10; pyircor's check.py needs it
        from pyircor import tauap as mod
    return mod


def test_against_pyircor_where_it_is_installed():
    pi = _pyircor()
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(2, 40))
        x = rng.permutation(n) * 0.37 + 1.0  # scores, higher = better (pyircor's default, decreasing=True)
        y = np.round(rng.random(n), int(rng.choice([1, 2, 6])))  # ties at 1 or 2 decimals
        xt = np.round(rng.random(n), int(rng.choice([1, 6])))
        ys = rng.permutation(n) * 1.0
        assert ap_correlation(x, ys, kind="scores") == pytest.approx(pi.tauap(x, ys), abs=1e-12)
        assert ap_correlation(x, y, kind="scores") == pytest.approx(pi.tauap_a(x, y), abs=1e-12)
        ref_b = pi.tauap_b(xt, y)
        got = ap_correlation(xt, y, symmetric=True, kind="scores")
        assert (np.isnan(got) and np.isnan(ref_b)) or got == pytest.approx(ref_b, abs=1e-12)
    rx, ry = rng.permutation(30) + 1, rng.permutation(30) + 1  # rank vectors: decreasing=False
    assert ap_correlation(rx, ry) == pytest.approx(pi.tauap(rx * 1.0, ry * 1.0, decreasing=False), abs=1e-12)


# vectorized forms of the same definitions (numpy, O(n²) memory in row blocks) for thousands of items
def _pair_blocks(rx, ry, block=512):
    """Yield (rows, A, B): A[i, j] = y_j strictly above y_i, B[i, j] = x_j strictly above x_i."""
    rx, ry = np.asarray(rx, float), np.asarray(ry, float)
    for a in range(0, rx.size, block):
        rows = slice(a, min(a + block, rx.size))
        yield rows, ry[None, :] < ry[rows, None], rx[None, :] < rx[rows, None]


def tau_ap_direct_np(rx, ry):
    """Yilmaz et al.'s τ_AP, y untied: C(i)/(p_i − 1) summed over the items below y's top."""
    n = len(rx)
    total = 0.0
    for _, A, B in _pair_blocks(rx, ry):
        p1 = A.sum(axis=1)  # p_i − 1
        c = (A & B).sum(axis=1)
        total += np.sum(c[p1 > 0] / p1[p1 > 0])
    return 2 * total / (n - 1) - 1


def tau_star_direct_np(rx, ry):
    total, m = 0.0, 0
    for _, A, B in _pair_blocks(rx, ry):
        p1 = A.sum(axis=1)
        c = (A & B).sum(axis=1)
        total += np.sum(c[p1 > 0] / p1[p1 > 0])
        m += int(np.sum(p1 > 0))
    return 2 * total / m - 1


def tau_ap_a_direct_np(rx, ry):
    """Urbano & Marrero's τ_AP_a (x untied, ties in y) with the harmonic sums H written out."""
    n = len(rx)
    H = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, 2 * n + 2))))
    ry_f = np.asarray(ry, float)
    total = 0.0
    for rows, A, B in _pair_blocks(rx, ry):
        p = 1 + A.sum(axis=1)
        t = (ry_f[None, :] == ry_f[rows, None]).sum(axis=1)
        c = (A & B).sum(axis=1)
        s1 = (H[p + t - 2] - H[np.maximum(p - 2, 0)]) / t  # (1/t) Σ_{k=1}^{t} 1/(p + k − 2)
        total += np.sum(np.where(p != 1, c * s1, 0.0))
        for pi, ti in zip(p, t):
            total += sum(k / (pi + k - 1) for k in range(1, ti)) / (2 * ti)
    return 2 * total / (n - 1) - 1


@pytest.mark.parametrize("n", [4097, 5000, 9001])
def test_thousands_of_items_over_many_words_against_the_definition(n):
    """Thousands of items (many 64-bit words of the permutation kernel's bitset, the last one partly
    filled), correlated and independent orders, and inputs that only look like permutations (a rank
    repeated within one word's 64 values or across words, in x or in y), which must leave the fast path."""
    rng = np.random.default_rng(n)
    rx = rng.permutation(n) + 1
    noisy = np.argsort(np.argsort(rx + rng.normal(0, n / 10, n))) + 1  # correlated with rx
    for ry in (noisy, rng.permutation(n) + 1, rx.copy(), n + 1 - rx):
        ref = tau_ap_direct_np(rx, ry)
        assert ap_correlation(rx, ry) == pytest.approx(ref, abs=1e-12)
        assert 2 * _permutation_sum(rx, ry) / (n - 1) - 1 == pytest.approx(ref, abs=1e-12)
        sym = (ref + tau_ap_direct_np(ry, rx)) / 2
        assert ap_correlation(rx, ry, symmetric=True) == pytest.approx(sym, abs=1e-12)
    top, bottom = int(np.flatnonzero(rx == 1)[0]), int(np.flatnonzero(rx == n)[0])
    near = int(np.flatnonzero(rx == 2)[0])
    for i, j in ((near, top), (bottom, top)):  # rank 2 → 1 (same word), rank n → 1 (another word)
        xt = rx.copy()
        xt[i] = xt[j]
        assert _permutation_sum(xt, noisy) is None and _permutation_sum(noisy, xt) is None
        with pytest.raises(InputError, match="x"):
            ap_correlation(xt, noisy)
        ref_b = (tau_star_direct_np(xt, noisy) + tau_star_direct_np(noisy, xt)) / 2
        assert ap_correlation(xt, noisy, symmetric=True) == pytest.approx(ref_b, abs=1e-12)
        assert ap_correlation(noisy, xt) == pytest.approx(tau_ap_a_direct_np(noisy, xt), abs=1e-12)


def test_permutation_kernel_as_python_is_the_compiled_kernel():
    """The untied kernel's Python source (what NUMBA_DISABLE_JIT=1 runs) gives the compiled sums, with no
    overflow warning from the bit count, on both sides of a 64-bit word boundary."""
    rng = np.random.default_rng(64)
    for n in (2, 63, 64, 65, 700):
        x, y = rng.permutation(n) + 1, rng.permutation(n) + 1
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ok, total = _permutation_dominance.py_func(x, y)
        assert ok and total == _permutation_dominance(x, y)[1]
        assert 2 * total / (n - 1) - 1 == pytest.approx(tau_ap_direct_np(x, y), abs=1e-12)


@pytest.mark.parametrize(
    "args, kwargs, parameter",
    [
        (([1, 2, 2, 4], [1, 2, 3, 4]), {}, "x"),  # tied reference, asymmetric
        (([1, 2, 3], [1, 2]), {}, "y"),
        (([1, 2, 3], [1, 2, 5]), {}, "y"),
        (([0.1, float("nan"), 0.3], [1, 2, 3]), dict(kind="scores"), "x"),
        (([1, 2, 3], [1, 2, 3]), dict(kind="lists"), "kind"),
        (([1, 2, 3], [1, 2, 3]), dict(symmetric="yes"), "symmetric"),
        (([1], [1]), {}, "x"),
    ],
)
def test_bad_input(args, kwargs, parameter):
    with pytest.raises(InputError) as exc:
        ap_correlation(*args, **kwargs)
    assert exc.value.parameter == parameter


# ----------------------------------------------------------------------------- null model and test
from fractions import Fraction  # noqa: E402

from scipy.stats import kstest  # noqa: E402

from agreekit.ranking import ap_correlation_test  # noqa: E402


def enumerated_null(rx, ry, stat):
    """stat(rx, ry∘π) for all n! permutations π of y's values (x fixed)."""
    n = len(rx)
    return np.array([stat(rx, [ry[i] for i in perm]) for perm in itertools.permutations(range(n))])


def tails(null, value, alternative):
    tol = max(1e-12 * abs(value), 1e-14)
    ge, le = np.mean(null >= value - tol), np.mean(null <= value + tol)
    return {"greater": ge, "less": le, "two-sided": min(1.0, 2 * min(ge, le))}[alternative]


def test_null_variance_formula_and_published_fractions():
    published = {
        3: Fraction(5, 12),
        4: Fraction(20, 81),
        5: Fraction(49, 288),
        6: Fraction(287, 2250),
        7: Fraction(109, 1080),
    }
    for n in range(3, 9):
        rx = list(range(1, n + 1))
        null = enumerated_null(rx, rx, tau_ap_direct)
        res = ap_correlation_test(rx, rx)
        assert res.null_mean == 0.0 and abs(np.mean(null)) < 1e-13
        assert res.null_var == pytest.approx(np.var(null), abs=1e-12)
        if n in published:
            assert res.null_var == pytest.approx(float(published[n]), abs=1e-15)


def test_exact_pvalues_equal_enumeration_of_all_orders():
    rng = np.random.default_rng(10)
    for n in range(3, 9):
        rx = list(range(1, n + 1))
        null = enumerated_null(rx, rx, tau_ap_direct)  # y ∘ π over all π: the law of τ_AP(x, random order)
        for _ in range(4 if n < 8 else 2):
            ry = list(rng.permutation(n) + 1)
            value = tau_ap_direct(rx, ry)
            for alt in ("greater", "less", "two-sided"):
                res = ap_correlation_test(rx, ry, alternative=alt)
                assert res.method == "exact"
                assert res.pvalue == pytest.approx(tails(null, value, alt), abs=1e-12), (n, ry, alt)


def digit_convolution_law(n):
    """(τ_AP values, probabilities) of τ_AP(x, a uniformly random order), untied: the law of
    2/(n−1) Σ_{i=2}^{n} C(i)/(i−1) − 1 with independent digits C(i) uniform on {0..i−1} (Lehmer code),
    convolved digit by digit in floating point on the lattice of multiples of 1/lcm(1..n−1)."""
    ell = math.lcm(*range(1, n))
    prob = np.ones(1)
    for i in range(2, n + 1):
        step = ell // (i - 1)
        new = np.zeros(prob.size + step * (i - 1))
        for c in range(i):
            new[c * step : c * step + prob.size] += prob
        prob = new / i
    keep = prob > 0
    return (2.0 / (n - 1) * np.flatnonzero(keep) / ell - 1.0), prob[keep]


@pytest.mark.parametrize("n", [14, 16])
def test_exact_pvalues_beyond_enumeration_equal_the_digit_convolution(n):
    """Untied τ_AP exact p-values at n = 14 and 16 (beyond n = 13, the previous exact range) against
    the convolution of the Lehmer digits' uniform laws written here, and the extreme orders (1/n!)."""
    values, probs = digit_convolution_law(n)
    assert float(np.sum(probs * values)) == pytest.approx(0.0, abs=1e-12)
    assert float(np.sum(probs * values**2)) == pytest.approx(
        ((n - 1) + 2 * sum(1 / k for k in range(1, n))) / (3 * (n - 1) ** 2), abs=1e-12
    )
    rng = np.random.default_rng(n)
    rx = list(range(1, n + 1))
    for ry in [list(rng.permutation(n) + 1) for _ in range(3)]:
        value = tau_ap_direct(rx, ry)
        tol = max(1e-12 * abs(value), 1e-14)
        ge = float(np.sum(probs[values >= value - tol]))
        le = float(np.sum(probs[values <= value + tol]))
        expected = {"greater": ge, "less": le, "two-sided": min(1.0, 2 * min(ge, le))}
        for alt in ("greater", "less", "two-sided"):
            res = ap_correlation_test(rx, ry, alternative=alt)
            assert res.method == "exact"
            assert res.pvalue == pytest.approx(expected[alt], abs=1e-12), (n, ry, alt)
    top = ap_correlation_test(rx, rx, alternative="greater")
    bottom = ap_correlation_test(rx, rx[::-1], alternative="less")
    assert top.pvalue == bottom.pvalue == 1 / math.factorial(n)


def test_symmetric_and_tied_exact_pvalues_equal_enumeration():
    rng = np.random.default_rng(12)
    for _ in range(12):
        n = int(rng.integers(3, 8))
        rx = list(rng.permutation(n) + 1)
        ry = list(random_ranks(rng, n, 0.5))
        null_a = enumerated_null(rx, ry, tau_ap_a_direct)
        res = ap_correlation_test(rx, ry, alternative="greater")
        assert res.pvalue == pytest.approx(tails(null_a, tau_ap_a_direct(rx, ry), "greater"), abs=1e-12)
        assert res.null_mean == pytest.approx(np.mean(null_a), abs=1e-12)
        assert res.null_var == pytest.approx(np.var(null_a), abs=1e-12)
        rxt = list(random_ranks(rng, n, 0.3))

        def tb(a, b):
            return (tau_star_direct(a, b) + tau_star_direct(b, a)) / 2

        null_b = enumerated_null(rxt, ry, tb)
        res = ap_correlation_test(rxt, ry, symmetric=True, alternative="two-sided")
        if np.isnan(res.statistic):
            continue
        null_b = null_b[~np.isnan(null_b)]
        assert res.pvalue == pytest.approx(tails(null_b, tb(rxt, ry), "two-sided"), abs=1e-12)


def test_monte_carlo_within_3_se_of_exact():
    rng = np.random.default_rng(4)
    rx = list(range(1, 9))
    for ry, kw in (
        (list(rng.permutation(8) + 1), {}),
        (list(rng.permutation(8) + 1), dict(symmetric=True)),
        ([1, 2, 2, 4, 4, 4, 7, 8], {}),
    ):
        ex = ap_correlation_test(rx, ry, alternative="greater", **kw)
        mc = ap_correlation_test(rx, ry, alternative="greater", method="monte-carlo", n_resamples=20000, rng=5, **kw)
        assert ex.method == "exact" and mc.method == "monte-carlo"
        assert abs(mc.pvalue - ex.pvalue) <= 3 * mc.pvalue_se + 1e-4
    # untied beyond the lattice: Monte Carlo from the Lehmer digits, against the exact lattice law at n = 13
    ry = list(rng.permutation(13) + 1)
    ex = ap_correlation_test(list(range(1, 14)), ry, alternative="two-sided")
    mc = ap_correlation_test(
        list(range(1, 14)), ry, alternative="two-sided", method="monte-carlo", n_resamples=20000, rng=6
    )
    assert ex.method == "exact" and abs(mc.pvalue - ex.pvalue) <= 3 * mc.pvalue_se + 1e-4


@pytest.mark.parametrize("n, method", [(12, "exact"), (40, "monte-carlo")])
def test_pvalues_uniform_under_h0(n, method):
    rng = np.random.default_rng(n)
    rx = np.arange(1, n + 1)
    ps = [
        ap_correlation_test(
            rx, rng.permutation(n) + 1, alternative="greater", method=method, n_resamples=2000, rng=rng
        ).pvalue
        for _ in range(200)
    ]
    assert kstest(ps, "uniform").pvalue > 0.01


def test_result_protocol_and_bad_test_input():
    res = ap_correlation_test([1, 2, 3, 4], [2, 1, 3, 4])
    stat, p = res
    assert stat == res.statistic and p == res.pvalue
    assert {"statistic", "pvalue", "null_mean", "null_var", "method"} <= set(res.to_dict())
    for kwargs, par in (
        (dict(alternative="up"), "alternative"),
        (dict(method="table"), "method"),
        (dict(rng="x", method="monte-carlo"), "rng"),
        (dict(n_resamples=0), "n_resamples"),
    ):
        with pytest.raises(InputError) as exc:
            ap_correlation_test([1, 2, 3, 4], [2, 1, 3, 4], **kwargs)
        assert exc.value.parameter == par
