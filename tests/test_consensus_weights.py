"""Issue 23, "Overflow accepted": the Kemeny consensus depends only on the ratios of the row weights.

Weights of any finite scale (1e-300 … 1e308) give the consensus, the optimality flag and the
average τ_x of the same weights scaled to 1; the penalty is reported in the user's scale (and
refused, naming ``weights``, only when that exceeds float64).  The oracle is written here in
plain Python: every weak order of m ≤ 5 items, the weighted sum of Kemeny–Snell distances
(pair costs 0 / 1 / 2, 1 for a pair with an unranked item) and the Emond–Mason penalty from a
combined input matrix summed with ``math.fsum``.
"""

from __future__ import annotations

import io
import itertools
import json
import math
import random

import numpy as np
import pytest

from agreekit._validation import InputError
from agreekit.cli import main
from agreekit.consensus import average_tau_x, combined_input_matrix, kemeny, penalty, read_rankings


# ----------------------------------------------------------------------------- plain-Python oracle


def _weak_orders(m):
    """Every weak order of m items as a dense rank tuple (ordered set partitions)."""
    return [r for r in itertools.product(range(1, m + 1), repeat=m) if set(r) == set(range(1, max(r) + 1))]


def _pair_cost(x, y, i, j):
    """Kemeny–Snell cost of pair (i, j) between ranking x (may hold None) and the consensus y."""
    if x[i] is None or x[j] is None:
        return 1
    sx = (x[i] > x[j]) - (x[i] < x[j])
    sy = (y[i] > y[j]) - (y[i] < y[j])
    return abs(sx - sy)


def _oracle(X, w):
    """(set of optimal dense tuples, min weighted distance, penalty of an optimum, average τ_x).

    ``w`` must be small enough for plain floats (the tests call it with the weights scaled to 1)."""
    n, m = len(X), len(X[0])
    pairs = [(i, j) for i in range(m) for j in range(i + 1, m)]
    dist = {
        y: math.fsum(w[k] * sum(_pair_cost(X[k], y, i, j) for i, j in pairs) for k in range(n)) for y in _weak_orders(m)
    }
    best = min(dist.values())
    opt = {y for y, d in dist.items() if d <= best + 1e-9 * max(1.0, best)}
    C = [
        [
            math.fsum(
                w[k] * (1 if X[k][i] <= X[k][j] else -1)
                for k in range(n)
                if i != j and X[k][i] is not None and X[k][j] is not None
            )
            for j in range(m)
        ]
        for i in range(m)
    ]
    y = min(opt)
    s = [[0 if i == j else (1 if y[i] <= y[j] else -1) for j in range(m)] for i in range(m)]
    agree = math.fsum(C[i][j] * s[i][j] for i in range(m) for j in range(m))
    pen = math.fsum(abs(C[i][j]) for i in range(m) for j in range(m)) - agree
    return opt, best, pen, agree / (math.fsum(w) * m * (m - 1))


def _profile(seed, n, m):
    """n random rankings of m items with ties and unranked (None) cells, as lists."""
    rnd = random.Random(seed)
    X = []
    for _ in range(n):
        row = [rnd.randint(1, m) for _ in range(m)]
        for t in rnd.sample(range(m), 1 if m > 3 and rnd.random() < 0.4 else 0):
            row[t] = None
        X.append(row)
    return X


def _array(X):
    return np.array([[np.nan if v is None else float(v) for v in row] for row in X])


CYCLE = [[1, 2, 3], [2, 3, 1], [3, 1, 2]]  # Condorcet cycle: every consensus has a penalty > 0
TRANSITIVE = [[1, 2, 3], [2, 1, 3], [1, 3, 2]]  # pairwise majorities form an order: penalty 0
PROFILES = [CYCLE, TRANSITIVE, [[1, 2, 3, 4], [2, 1, 3, 4], [4, 3, 2, 1]]] + [
    _profile(seed, 3, m) for seed, m in ((1, 4), (2, 4), (3, 5), (4, 5), (5, 5))
]
BASES = ([1.0, 1.0, 1.0], [1.0, 2.0, 5.0])
SCALES = (1e-12, 1e-300, 1e308 / 5, 2.0**-40, 3.0)


@pytest.mark.parametrize("X", PROFILES, ids=range(len(PROFILES)))
@pytest.mark.parametrize("base", BASES, ids=("equal", "1-2-5"))
def test_exact_consensus_is_scale_free_against_brute_force(X, base):
    opt, _, pen, tau = _oracle(X, base)
    ref = kemeny(_array(X), weights=base, method="exact")
    assert {tuple(s) for s in ref.solutions} == opt and ref.proven and ref.exhaustive
    assert ref.penalty == pytest.approx(pen, rel=1e-12, abs=1e-12)
    assert ref.average_tau_x == pytest.approx(tau, rel=1e-12, abs=1e-15)
    for scale in SCALES:
        w = [scale * b for b in base]
        if pen * scale > 1.7e308:  # the penalty in the user's weights is not a float64
            with pytest.raises(InputError, match="`weights`.*overflows float64"):
                kemeny(_array(X), weights=w, method="exact")
            continue
        res = kemeny(_array(X), weights=w, method="exact")
        assert {tuple(s) for s in res.solutions} == opt, scale
        assert res.proven and res.exhaustive, scale
        assert res.average_tau_x == pytest.approx(tau, rel=1e-12, abs=1e-15), scale
        assert res.penalty == pytest.approx(pen * scale, rel=1e-12, abs=1e-12 * scale), scale


@pytest.mark.parametrize("X", PROFILES[:5], ids=range(5))
@pytest.mark.parametrize("method", ["quick", "fast", "auto"])
def test_every_method_gives_the_same_result_at_every_scale(X, method):
    base = [1.0, 2.0, 5.0]
    ref = kemeny(_array(X), weights=base, method=method, n_starts=20, rng=7)
    for scale in (1e-12, 1e-300, 1e300):
        res = kemeny(_array(X), weights=[scale * b for b in base], method=method, n_starts=20, rng=7)
        assert np.array_equal(res.solutions, ref.solutions) and res.proven == ref.proven, scale
        assert res.average_tau_x == pytest.approx(ref.average_tau_x, rel=1e-12, abs=1e-15)


def test_power_of_two_scales_keep_every_bit():
    X = _array(PROFILES[6])
    ref = kemeny(X, weights=[1, 2, 5], method="exact")
    for e in (-1000, -40, -1, 1, 40, 1000):
        res = kemeny(X, weights=np.ldexp([1.0, 2.0, 5.0], e), method="exact")
        assert np.array_equal(res.solutions, ref.solutions)
        assert res.average_tau_x == ref.average_tau_x  # the same float, not approximately
        assert res.penalty == math.ldexp(ref.penalty, e)


def test_the_issue_cases():
    # [1e-12]*3 and [1e308]*3 behave as [1, 1, 1]; [1e-300, 2e-300, 5e-300] as [1, 2, 5]
    X = _array(TRANSITIVE)
    one = kemeny(X, weights=[1, 1, 1], method="exact")
    assert one.orderings == ["0 1 2"] and one.proven and one.penalty == 0.0
    for w in ([1e-12] * 3, [1e308] * 3):
        res = kemeny(X, weights=w, method="exact")
        assert res.orderings == one.orderings and res.proven and res.penalty == 0.0
        assert res.average_tau_x == pytest.approx(one.average_tau_x, rel=1e-15)
    assert kemeny(X, weights=[1e308] * 3).total_weight == math.inf  # documented: 3e308 is no float64
    opt, _, pen, tau = _oracle(CYCLE, [1.0, 2.0, 5.0])
    res = kemeny(_array(CYCLE), weights=[1e-300, 2e-300, 5e-300], method="exact")
    assert {tuple(s) for s in res.solutions} == opt and res.proven
    assert res.penalty == pytest.approx(1e-300 * pen, rel=1e-12) and res.average_tau_x == pytest.approx(tau)
    with pytest.raises(InputError, match="`weights` are too large: the penalty") as err:
        kemeny(_array(CYCLE), weights=[1e308] * 3)
    assert "ratios" in str(err.value)


def test_weights_that_underflow_against_the_largest_leave_a_single_ranking():
    # ratios 1e-600 are 0 in float64: the heavy ranking is the only one (no refusal)
    X = _array([[2, 1, 3, 4], [4, 3, 2, 1], [1, 1, 2, 2]])
    opt, _, pen, tau = _oracle([[2, 1, 3, 4], [4, 3, 2, 1], [1, 1, 2, 2]], [1.0, 0.0, 0.0])
    res = kemeny(X, weights=[1e300, 1e-300, 1e-300], method="exact")
    assert {tuple(s) for s in res.solutions} == opt == {(2, 1, 3, 4)}
    assert res.proven and res.penalty == 0.0 == pen and res.average_tau_x == pytest.approx(tau, rel=1e-15)
    # a single nonzero weight, however small
    res = kemeny(X, weights=[0, 1e-320, 0], method="exact")
    assert res.orderings == ["3 2 1 0"] and res.proven and res.penalty == 0.0


@pytest.mark.parametrize(
    "weights, fragment",
    [
        ([1, np.nan, 1], "NaN or infinite"),
        ([1, np.inf, 1], "NaN or infinite"),
        ([1, -1e-300, 1], "non-negative"),
        ([0, 0, 0], "all be zero"),
        ([0.0, -0.0, 0.0], "all be zero"),
        ([1, 1], "one entry per ranking"),
    ],
)
def test_only_unusable_weights_are_refused(weights, fragment):
    with pytest.raises(InputError, match="`weights`") as err:
        kemeny(_array(CYCLE), weights=weights)
    assert fragment in str(err.value)


def test_matrix_functions_report_the_users_scale():
    X = _array(PROFILES[3])  # 4 items
    base = np.array([1.0, 2.0, 5.0])
    C1 = combined_input_matrix(X, weights=base)
    cand = [1, 2, 2, 3]
    for scale in (1e-300, 1e-12, 1e300):
        C = combined_input_matrix(X, weights=scale * base)
        np.testing.assert_allclose(C, scale * C1, rtol=1e-14, atol=0)
        assert penalty(cand, X, weights=scale * base) == pytest.approx(
            scale * penalty(cand, X, weights=base), rel=1e-13
        )
        assert average_tau_x(cand, X, weights=scale * base) == pytest.approx(
            average_tau_x(cand, X, weights=base), rel=1e-13
        )
    # a common power of two: the very bits
    assert np.array_equal(combined_input_matrix(X, weights=np.ldexp(base, -900)), np.ldexp(C1, -900))
    assert average_tau_x(cand, X, weights=np.ldexp(base, 900)) == average_tau_x(cand, X, weights=base)
    # entries of 1e308 are float64, 3e308 are not
    one = combined_input_matrix(X, weights=[1e308, 0, 0])
    assert np.array_equal(one, 1e308 * combined_input_matrix(X, weights=[1, 0, 0]))
    with pytest.raises(InputError, match="`weights` are too large: the combined input matrix"):
        combined_input_matrix(_array(TRANSITIVE), weights=[1e308] * 3)
    with pytest.raises(InputError, match="`weights` are too large: the penalty"):
        penalty([1, 2, 3], _array(CYCLE), weights=[1e308] * 3)
    assert penalty([1, 2, 3], _array(TRANSITIVE), weights=[1e308] * 3) == 0.0


# ----------------------------------------------------------------------------- CLI


def _csv(rows, weights):
    return "a,b,c,weight\n" + "".join(",".join(map(str, r)) + f",{w!r}\n" for r, w in zip(rows, weights))


@pytest.mark.parametrize(
    "rows, weights, base",
    [
        (TRANSITIVE, [1e-12] * 3, [1, 1, 1]),
        (TRANSITIVE, [1e308] * 3, [1, 1, 1]),
        (CYCLE, [1e-300, 2e-300, 5e-300], [1, 2, 5]),
        (CYCLE, [1e-12] * 3, [1, 1, 1]),
    ],
)
def test_cli_weight_column_of_any_scale(tmp_path, capsys, rows, weights, base):
    f = tmp_path / "r.csv"
    f.write_text(_csv(rows, weights))
    assert main(["consensus", str(f), "--method", "exact"]) == 0
    out = json.loads(capsys.readouterr().out)
    opt, _, pen, tau = _oracle(rows, [float(b) for b in base])
    assert {tuple(s[c] for c in "abc") for s in out["solutions"]} == opt and out["proven"] is True
    assert out["average_tau_x"] == pytest.approx(tau, rel=1e-12)
    assert out["penalty"] == pytest.approx(pen * weights[0] / base[0], rel=1e-12, abs=0.0)
    data = read_rankings(io.StringIO(_csv(rows, weights)))
    assert data.weights.tolist() == [float(w) for w in weights]  # the file's weights, as given


def test_cli_penalty_overflow_is_one_error_line_and_no_output(tmp_path, capsys):
    f = tmp_path / "r.csv"
    f.write_text(_csv(CYCLE, [1e308] * 3))
    out = tmp_path / "out.json"
    assert main(["consensus", str(f), "--method", "exact", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "`weights` are too large: the penalty" in err[0]
    assert not out.exists()


@pytest.mark.parametrize("weights", [[0.1, 0.7, 0.2], [1 / 3, 1 / 7, 1 / 11], [3e-5, 7e-5, 1e-5]])
def test_penalty_has_no_cancellation_noise(weights):
    # Σ|c| − Σ c s left ±1e-16·Σ|c| (even negative values) for non-integer weights; the pair-wise sum is
    # 0 exactly when the consensus follows every majority, and the oracle's value otherwise
    res = kemeny(_array(TRANSITIVE), weights=weights, method="exact")
    assert res.penalty == 0.0 and penalty(res.solutions[0], _array(TRANSITIVE), weights=weights) == 0.0
    for X in PROFILES[2:]:
        opt, _, pen, _ = _oracle(X, weights)
        res = kemeny(_array(X), weights=weights, method="exact")
        assert {tuple(s) for s in res.solutions} == opt
        assert res.penalty >= 0.0 and res.penalty == pytest.approx(pen, rel=1e-13, abs=0.0)
