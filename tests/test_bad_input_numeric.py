"""Issue 23, numeric items: extreme but valid weighers, overflow, lenient numbers, raw exceptions.

References are independent of the code under test: the coefficients' definitions (seed 000, Eqs. 7,
8, 12, 13) evaluated in 60-digit ``mpmath`` arithmetic from the weigher's formula, so no weight can
over- or underflow; the invariance of both coefficients to the scale of the weights; and bit-identity
of ordinary weighers with the values computed before this change (``f(1..n)`` as numpy gives it).
CLI cases run in a real process with the subprocess contract of ``tests/test_bad_input.py`` (exit
2, one stderr line ``agreekit CMD: error: ...`` naming the parameter, no traceback, no file).
"""

from __future__ import annotations

import itertools
import math
import pickle
import subprocess
import sys
import textwrap

import mpmath
import numba
import numpy as np
import pytest

from agreekit._validation import InputError
from agreekit.ranking import weighted_kendall, weighted_spearman
from agreekit.ranking.weighting import parse_weigher

mpmath.mp.dps = 60


# ----------------------------------------------------------------------------- helpers


def _cli(*args, cwd):
    # copied from tests/test_bad_input.py
    return subprocess.run([sys.executable, "-m", "agreekit", *args], capture_output=True, text=True, cwd=cwd)


def _assert_clean_rejection(r, command: str, fragments=()):
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2, r.stderr
    assert r.stdout == "", r.stdout
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"agreekit {command}: error: "), r.stderr
    assert "Traceback" not in r.stderr
    for frag in fragments:
        assert frag in lines[0], (frag, lines[0])


def _mp_f(spec: str, i):
    """f(i) of a named weigher in mpmath (the formulas of weighting.py's table, written again)."""
    family, _, rest = spec.partition(":")
    prm = {k: mpmath.mpf(v) for k, v in (item.split("=") for item in rest.split(",") if item)}
    i = mpmath.mpf(i)
    n0 = prm.get("n0", mpmath.mpf(0))
    if family == "harmonic":
        return 1 / i
    if family == "inverse_square":
        return 1 / (i + n0) ** 2
    if family == "power":
        return 1 / (i + n0) ** prm["p"]
    assert family == "dcg"
    return 1 / mpmath.log(i + 1, 2)


def _mp_coefficient(x, y, f, coefficient, scheme):
    """Eq. 8 (Kendall) or Eq. 7 (Spearman) by definition, item weights Eq. 12/13, in mpmath."""
    w = [f(a) * f(b) if scheme == "multiplicative" else f(a) + f(b) for a, b in zip(x, y)]
    if coefficient == "kendall":
        num = den = mpmath.mpf(0)
        for i, j in itertools.combinations(range(len(x)), 2):
            p = w[i] * w[j]
            s = (x[j] - x[i]) * (y[j] - y[i])
            num += p if s > 0 else -p if s < 0 else 0
            den += p
        return float(num / den)
    W = sum(w)
    mx = sum(wi * a for wi, a in zip(w, x)) / W
    my = sum(wi * b for wi, b in zip(w, y)) / W
    sxy = sum(wi * (a - mx) * (b - my) for wi, a, b in zip(w, x, y))
    sxx = sum(wi * (a - mx) ** 2 for wi, a in zip(w, x))
    syy = sum(wi * (b - my) ** 2 for wi, b in zip(w, y))
    return float(sxy / mpmath.sqrt(sxx * syy))


def _coef(coefficient):
    return weighted_kendall if coefficient == "kendall" else weighted_spearman


# ----------------------------------------------------------------------------- the issue's cases, CLI

N10 = "\n".join(map(str, range(1, 11))) + "\n"
R10 = "\n".join(map(str, range(10, 0, -1))) + "\n"

ISSUE_WEIGHERS = [  # (coefficient, scheme, weigher, y file, expected value)
    ("kendall", "multiplicative", "inverse_square:n0=1e80", "r.txt", -1.0),  # ZeroDivisionError
    ("kendall", "multiplicative", "power:p=300", "r.txt", -1.0),  # ZeroDivisionError
    ("spearman", "additive", "power:p=30,n0=-0.999999", "r.txt", -1.0),  # gave -0.0
    ("kendall", "multiplicative", "power:p=19,n0=-0.9999999999999999", "x.txt", 1.0),  # gave null
]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "x.txt").write_text(N10)
    (tmp_path / "r.txt").write_text(R10)
    return tmp_path


@pytest.mark.parametrize("coefficient,scheme,weigher,yfile,expected", ISSUE_WEIGHERS)
def test_issue_extreme_weighers_in_a_real_process(files, coefficient, scheme, weigher, yfile, expected):
    import json

    r = _cli(
        "correlate", "--coefficient", coefficient, "--scheme", scheme, "--weigher", weigher, "x.txt", yfile, cwd=files
    )
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    value = json.loads(r.stdout)["value"]
    assert value == expected and np.copysign(1.0, value) == np.copysign(1.0, expected)
    # and the definition in 60 digits agrees
    x = list(range(1, 11))
    y = x if yfile == "x.txt" else x[::-1]
    assert _mp_coefficient(x, y, lambda i: _mp_f(weigher, i), coefficient, scheme) == pytest.approx(expected)


def test_issue_pvalue_with_a_span_float64_cannot_carry(files):
    # the null distribution of power:p=300 over 10! permutations needs pair weights 10^-1200 apart: each
    # permutation's weights are rescaled on their own (issue 23; the 60-digit checks of the null are in
    # tests/test_ranking_extreme_weighers.py).  Besides the reversal, every permutation whose dominant
    # pairs are all discordant is at -1 too, e.g. the transposition (1 2): items (1, 2), (2, 1) of weight
    # 2^-300 outweigh all other pairs by e^-451
    import json

    from agreekit.ranking import weighted_correlation_test

    r = _cli(
        "correlate",
        "--coefficient",
        "kendall",
        "--scheme",
        "multiplicative",
        "--weigher",
        "power:p=300",
        "--pvalue",
        "x.txt",
        "r.txt",
        cwd=files,
    )
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    out = json.loads(r.stdout)
    assert out["value"] == -1.0
    # the reference: all 10! permutations from the definition, each pair weight w_i w_j (w_i = f(i) f(π(i)),
    # f(i) = i^-300) in log space scaled by its largest pair (exp underflows only below e^-745 of it), so
    # 1 + Γ = 2 (concordant weight) / (total weight) to ~1e-16 relative; Γ counts as -1 within the library's
    # documented tie tolerance max(1e-12 |γ|, 1e-14) = 1e-12
    at_min = _count_at_minus_one(_all_permutations(10), 300.0, 1e-12)
    assert at_min == 3_117_360  # the reversal and 3 117 359 permutations within 1e-12 of it
    p_le = at_min / math.factorial(10)
    assert out["pvalue"] == min(1.0, 2 * p_le) == 1.0  # two-sided: 2 P(Γ <= -1) > 1
    x = np.arange(1, 11)
    less = weighted_correlation_test(
        x,
        x[::-1],
        coefficient="kendall",
        scheme="multiplicative",
        weigher="power:p=300",
        method="exact",
        alternative="less",
    )
    assert less.pvalue == pytest.approx(p_le, abs=1e-12)


def _all_permutations(n):
    from test_ranking_moments import all_permutations  # Heap's algorithm, checked there

    return all_permutations(n)


@numba.njit(cache=False)
def _count_at_minus_one(P, p, tol):  # pragma: no cover - compiled
    """#{π : Γ_kendall,mult(identity, π) <= -1 + tol} for f(i) = i^-p, from the definition in log space."""
    m, n = P.shape
    lf = np.empty(n)
    for i in range(n):
        lf[i] = -p * np.log(i + 1.0)
    lw = np.empty(n)
    count = 0
    for r in range(m):
        top = -np.inf
        for i in range(n):
            lw[i] = lf[i] + lf[P[r, i] - 1]
        for i in range(n):
            for j in range(i + 1, n):
                top = max(top, lw[i] + lw[j])
        conc = 0.0
        total = 0.0
        for i in range(n):
            for j in range(i + 1, n):
                e = np.exp(lw[i] + lw[j] - top)
                total += e
                if P[r, j] > P[r, i]:
                    conc += e
        if -1.0 + 2.0 * conc / total <= -1.0 + tol:
            count += 1
    return count


def test_issue_pvalue_of_a_rescaled_weigher(files):
    # inverse_square:n0=1e80: every weight 1e-160 (products 1e-320 or 0): rescaled, equal weights;
    # the exact null then is Kendall's tau's: x vs reversed x is the unique extreme of 10! permutations
    import json
    import math

    r = _cli(
        "correlate",
        "--coefficient",
        "kendall",
        "--scheme",
        "multiplicative",
        "--weigher",
        "inverse_square:n0=1e80",
        "--pvalue",
        "x.txt",
        "r.txt",
        cwd=files,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["value"] == -1.0
    assert out["pvalue"] == pytest.approx(2 / math.factorial(10), rel=1e-12)


def test_issue_consensus_weights_overflow_in_a_real_process(tmp_path):
    # issue 23: weights are ratios; only a penalty beyond float64 in the user's scale is refused
    # (a Condorcet cycle: the consensus penalty is 4 x 1e308)
    (tmp_path / "r.csv").write_text("a,b,c,weight\n1,2,3,1e308\n2,3,1,1e308\n3,1,2,1e308\n")
    _assert_clean_rejection(_cli("consensus", "r.csv", cwd=tmp_path), "consensus", ["`weights`", "overflow"])


def test_issue_clustering_graph_overflow_in_a_real_process(tmp_path):
    (tmp_path / "g.txt").write_text("0 1 1e300\n1 2 1e300\n2 3 1\n0 3 1\n")
    (tmp_path / "u.txt").write_text("0\n0\n1\n1\n")
    (tmp_path / "v.txt").write_text("0\n1\n1\n1\n")
    r = _cli("clustering", "--graph", "g.txt", "u.txt", "v.txt", cwd=tmp_path)
    _assert_clean_rejection(r, "clustering", ["`graph`", "overflow"])


def test_issue_bootstrap_scores_overflow_in_a_real_process(tmp_path):
    (tmp_path / "s.csv").write_text("topic,A,B\n1,1e308,0\n2,0,1e308\n3,1,2\n")
    r = _cli("bootstrap", "s.csv", "--n-resamples", "20", "--rng", "1", cwd=tmp_path)
    _assert_clean_rejection(r, "bootstrap", ["1e+308", "overflow"])


# ----------------------------------------------------------------------------- fresh variants, API

FRESH = [  # (weigher, n): values that overflow or underflow float64, or whose products do
    ("power:p=300", 12),
    ("power:p=150", 30),
    ("power:p=1000", 6),
    ("power:p=60,n0=-0.9999999", 8),
    ("inverse_square:n0=1e200", 9),
    ("inverse_square:n0=-0.9999999999999", 7),
    ("power:p=0.5,n0=1e300", 9),
    ("power:p=40,n0=-0.99999999", 9),
    ("power:p=5,n0=1e-310", 8),
    ("power:p=250,n0=3", 8),
]


@pytest.mark.parametrize("weigher,n", FRESH)
@pytest.mark.parametrize("coefficient", ["kendall", "spearman"])
@pytest.mark.parametrize("scheme", ["additive", "multiplicative"])
def test_extreme_weighers_match_the_definition_in_60_digits(weigher, n, coefficient, scheme):
    rng = np.random.default_rng(23)
    cases = [np.arange(1, n + 1), np.arange(n, 0, -1), rng.permutation(n) + 1, rng.permutation(n) + 1]
    x = np.arange(1, n + 1)
    for y in cases:
        got = _coef(coefficient)(x, y, weigher=weigher, scheme=scheme)
        ref = _mp_coefficient(x.tolist(), y.tolist(), lambda i: _mp_f(weigher, i), coefficient, scheme)
        assert np.isfinite(got)
        assert got == pytest.approx(ref, rel=1e-12, abs=1e-12), (y, got, ref)


@pytest.mark.parametrize("coefficient", ["kendall", "spearman"])
@pytest.mark.parametrize("scheme", ["additive", "multiplicative"])
def test_extreme_weighers_with_ties_match_the_definition(coefficient, scheme):
    # average ranks with a weigher whose products underflow; Spearman on average ranks is Eq. 7 as is
    x = [1, 2, 2, 4, 5, 6]
    y = [2, 1, 3, 3, 6, 5]
    xr = [1, 2.5, 2.5, 4, 5, 6]
    yr = [2, 1, 3.5, 3.5, 6, 5]
    weigher = "power:p=200"
    got = _coef(coefficient)(x, y, weigher=weigher, scheme=scheme)
    f = lambda i: _mp_f(weigher, i)  # noqa: E731
    if coefficient == "spearman":
        ref = _mp_coefficient(xr, yr, f, "spearman", scheme)
    else:  # tau_b form of Eq. 8: sqrt of the pair weights untied in x times untied in y
        w = [f(a) * f(b) if scheme == "multiplicative" else f(a) + f(b) for a, b in zip(xr, yr)]
        num = dx = dy = mpmath.mpf(0)
        for i, j in itertools.combinations(range(6), 2):
            p = w[i] * w[j]
            sx, sy = np.sign(xr[j] - xr[i]), np.sign(yr[j] - yr[i])
            num += p * int(sx * sy)
            dx += p * abs(int(sx))
            dy += p * abs(int(sy))
        ref = float(num / mpmath.sqrt(dx * dy))
    assert got == pytest.approx(ref, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("k", [-300, -150, -20, 20, 150, 300])
@pytest.mark.parametrize("coefficient", ["kendall", "spearman"])
@pytest.mark.parametrize("scheme", ["additive", "multiplicative"])
def test_scale_invariance_of_callable_weights(k, coefficient, scheme):
    # the issue's `1e200 * i` class: a callable c * f gives the value of f for every c = 10^k
    rng = np.random.default_rng(k % 97)
    x = np.arange(1, 15)
    y = rng.permutation(14) + 1
    c = 10.0**k
    base = _coef(coefficient)(x, y, weigher="harmonic", scheme=scheme)
    got = _coef(coefficient)(x, y, weigher=lambda i: c / i, scheme=scheme)
    assert np.isfinite(got) and got == pytest.approx(base, rel=1e-12, abs=1e-14)


def test_issue_api_weights_1e200_times_i():
    x = [1, 2, 3, 4, 5, 6]
    y = [2, 1, 4, 3, 6, 5]
    for scheme in ("additive", "multiplicative"):
        for coef in ("kendall", "spearman"):
            got = _coef(coef)(x, y, weigher=lambda i: 1e200 * i, scheme=scheme)
            ref = _mp_coefficient(x, y, lambda i: mpmath.mpf(10) ** 200 * i, coef, scheme)
            assert got == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize(
    "spec",
    ["harmonic", "dcg", "inverse_square:n0=0", "inverse_square:n0=1", "power:p=2.5", "power:p=1,n0=3", "power:p=10"],
)
def test_ordinary_weighers_are_unchanged(spec):
    # the shipped tables and every existing test rest on the table being f(1..n) itself, bit for bit
    w = parse_weigher(spec)
    for n in (2, 7, 50, 1000):
        assert np.array_equal(w.table(n), w(np.arange(1, n + 1)))


@pytest.mark.parametrize("e", [-500, -300, 150, 400, 900])
@pytest.mark.parametrize("coefficient", ["kendall", "spearman"])
def test_power_of_two_scaled_weights_give_the_same_bits(e, coefficient):
    # a callable 2^e / i is rescaled by an exact power of two: the same bits as harmonic
    rng = np.random.default_rng(7)
    x = np.arange(1, 61)
    y = rng.permutation(60) + 1
    for scheme in ("additive", "multiplicative"):
        base = _coef(coefficient)(x, y, weigher="harmonic", scheme=scheme)
        s = 2.0**e
        got = _coef(coefficient)(x, y, weigher=lambda i: s / i, scheme=scheme)
        assert got == base


def test_only_nonrepresentable_weights_are_refused():
    x = [1, 2, 3, 4]
    for bad in (lambda i: 0 * i, lambda i: np.inf * i, lambda i: np.nan * i, lambda i: -i):
        with pytest.raises(InputError, match="`weigher`"):
            weighted_kendall(x, x, weigher=bad)


# ----------------------------------------------------------------------------- lenient numbers, raw exceptions


@pytest.mark.parametrize(
    "bad",
    [
        [True, 2, 3, 4],
        ["1", "2", "3", "4"],
        [1, 2, "3", 4],
        np.array([True, False]),
        np.array(["1", "2", "3"]),
        [1, 2, None, 4],
    ],
)
def test_booleans_and_strings_are_not_ranks(bad):
    y = list(range(1, len(bad) + 1))
    with pytest.raises(InputError, match="`x`"):
        weighted_kendall(bad, y)
    with pytest.raises(InputError, match="`x`"):
        weighted_spearman(bad, y, kind="scores")


@pytest.mark.parametrize("bad", [True, "1", "0.5", np.bool_(True)])
def test_kemeny_time_limit_must_be_a_number(bad):
    from agreekit.consensus import kemeny

    with pytest.raises(InputError, match="`time_limit`"):
        kemeny([[1, 2, 3], [2, 1, 3]], time_limit=bad)


@pytest.mark.parametrize(
    "func,fragment",
    [
        (lambda i: np.ones(2), "shape"),  # wrong length
        (lambda i: np.ones(len(i) + 1), "shape"),
        (lambda i: ["a"] * len(i), "string"),  # strings
        (lambda i: "abc", "string"),
        (lambda i: None, "None"),  # None
        (lambda i: [None] * len(i), "None"),
        (lambda i: np.ones((len(i), 2)), "shape"),
    ],
)
def test_weigher_callable_returning_garbage_names_weigher(func, fragment):
    with pytest.raises(InputError, match="`weigher`") as err:
        weighted_kendall([1, 2, 3, 4], [2, 1, 4, 3], weigher=func)
    assert fragment in str(err.value)


def test_negative_seed_names_rng_in_the_api():
    from agreekit.ranking import weighted_correlation_test

    with pytest.raises(InputError, match="`rng`") as err:
        weighted_correlation_test(list(range(1, 13)), list(range(12, 0, -1)), method="monte-carlo", rng=-1)
    assert "--seed" not in str(err.value)


def test_input_error_pickles():
    err = InputError("weigher", "must be positive")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is InputError and back.parameter == "weigher" and str(back) == str(err)
    assert back.args == err.args


def _raise_input_error(_):
    raise InputError("x", "bad in a worker")


def test_input_error_crosses_a_process_pool():
    import multiprocessing as mp

    with mp.get_context("spawn").Pool(1) as pool:
        with pytest.raises(InputError, match="`x` bad in a worker"):
            pool.map(_raise_input_error, [0])


def test_no_numba_cache_folder_falls_back_with_one_warning(tmp_path):
    # a non-root user with a read-only install and no HOME: os.access says no, and numba finds no
    # cache locator (simulated: as root every folder is writable)
    script = textwrap.dedent("""
        import os, warnings
        warnings.simplefilter("always")
        os.environ.pop("NUMBA_CACHE_DIR", None)
        os.access = lambda *a, **k: False
        from numba.core import caching
        for name in dir(caching):
            if name.endswith("CacheLocator") and name != "_CacheLocator":
                getattr(caching, name).from_function = classmethod(lambda cls, *a: None)
        with warnings.catch_warnings(record=True) as caught:
            import numpy as np
            from agreekit.ranking import weighted_kendall
            from agreekit.ranking._kernels import kendall_weighted_fenwick
            v = weighted_kendall(np.arange(1, 100), np.arange(99, 0, -1))
        msgs = [str(w.message) for w in caught if "cannot cache" in str(w.message)]
        print("agreekit-numba-" in kendall_weighted_fenwick._cache._cache_path, v, len(msgs))  # a temporary folder
    """)
    r = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**__import__("os").environ, "AGREEKIT_JIT": "compiled"},
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "-1.0", "1"]


# ----------------------------------------------------------------------------- overflow, API


@pytest.mark.parametrize(
    "weights,fragment",
    [([1e308] * 3, "too large"), ([5e307] * 3, "too large"), ([np.nan, 1, 1], "NaN"), ([0, 0, 0], "all be zero")],
)
def test_consensus_weights_out_of_range(weights, fragment):
    from agreekit.consensus import kemeny

    # issue 23: only unusable weights, or a penalty beyond float64 in their scale, are refused
    # (a Condorcet cycle: the consensus penalty is 4 times the weight)
    with pytest.raises(InputError, match="`weights`") as err:
        kemeny([[1, 2, 3], [2, 3, 1], [3, 1, 2]], weights=weights)
    assert fragment in str(err.value)


@pytest.mark.parametrize("scale", [1e-6, 1e-12, 1e-200, 1e300])
def test_consensus_weights_in_range_keep_working(scale):
    from agreekit.consensus import kemeny

    a = kemeny([[1, 2, 3, 4], [2, 1, 3, 4], [4, 3, 2, 1]], weights=[scale, 2 * scale, scale])
    b = kemeny([[1, 2, 3, 4], [2, 1, 3, 4], [4, 3, 2, 1]], weights=[1, 2, 1])
    assert np.array_equal(a.solutions, b.solutions) and a.proven == b.proven
    assert a.penalty == pytest.approx(scale * b.penalty, rel=1e-12)


@pytest.mark.parametrize("big", [1e51, 1e200, 1e308])
def test_soft_memberships_that_overflow_are_refused(big):
    from agreekit.clustering import ari_delta

    U = np.array([[big, 0.0], [big, 0.0], [0.0, 1.0]])
    with pytest.raises(InputError, match="`U`"):
        ari_delta(U, [[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])


@pytest.mark.parametrize("w", [1e160, 1e300])
@pytest.mark.parametrize("mode", ["transform", "plus"])
def test_graph_weights_that_overflow_are_refused(w, mode):
    import warnings

    from agreekit.clustering import ari_delta

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no numpy overflow warning on the way
        with pytest.raises(InputError, match="`graph`"):
            ari_delta([0, 0, 1, 1], [0, 1, 1, 1], graph=[(0, 1, w), (1, 2, w), (2, 3, 1.0)], mode=mode)


def test_graph_weights_scale_invariance_in_range():
    # ari_delta with a graph is invariant to a common scale of the edge weights: 1e50 works as 1
    from agreekit.clustering import ari_delta

    g = [(0, 1, 1.0), (1, 2, 2.0), (2, 3, 1.0), (0, 3, 3.0)]
    base = ari_delta([0, 0, 1, 1], [0, 1, 1, 1], graph=g)
    big = ari_delta([0, 0, 1, 1], [0, 1, 1, 1], graph=[(a, b, w * 1e50) for a, b, w in g])
    assert big == pytest.approx(base, rel=1e-12)


@pytest.mark.parametrize("value", [1e151, -1e200, 1e308])
def test_scores_that_overflow_are_refused(value):
    from agreekit.ireval.metrics import check_scores

    with pytest.raises(InputError, match="`scores`"):
        check_scores([[value, 0.0], [0.0, 1.0], [0.5, 0.5]])
    assert check_scores([[1e150, 0.0], [0.0, 1.0]]).shape == (2, 2)


def test_metaeval_weigher_overflow_is_one_error_line(tmp_path):
    """issue 23: `metaeval --weigher power:p=1e308` printed a numpy RuntimeWarning line before the error."""
    for name, rows in (
        ("a.csv", "t1,0.1,0.2,0.3\nt2,0.4,0.5,0.1\nt3,0.3,0.3,0.2\n"),
        ("b.csv", "t1,0.2,0.1,0.3\nt2,0.5,0.4,0.1\nt3,0.3,0.2,0.2\n"),
    ):
        (tmp_path / name).write_text("topic,A,B,C\n" + rows)
    r = _cli("metaeval", "AP=a.csv", "P=b.csv", "--weigher", "power:p=1e308", "--n-resamples", "20", cwd=tmp_path)
    _assert_clean_rejection(r, "metaeval", ["`weigher`", "finite positive weights"])
