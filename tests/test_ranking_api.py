"""Issue 20, ranking area: one dialect (kind="ranks"/"scores", 1-based weighers, aligned defaults,
results like scipy's, SPEC 7 rng, deprecated spellings that warn once, CLI names = API names).

References are independent of the code under test: ranks derived by hand (a double loop),
``scipy.stats.weightedtau`` with explicit item weights, brute-force enumeration of n! permutations.
"""

import dataclasses
import itertools
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from agreekit._validation import InputError
from agreekit.ranking import (
    ExactMoments,
    StandardizationFunction,
    WeightedCorrelationResult,
    exact_moments,
    parse_weigher,
    standardize,
    weighted_correlation,
    weighted_correlation_test,
    weighted_kendall,
    weighted_spearman,
)

ROOT = Path(__file__).resolve().parents[1]
WEIGHERS = ["harmonic", "inverse_square:n0=1", "dcg"]
SCHEMES = ["additive", "multiplicative"]


def hand_ranks(scores):
    """Descending ranks with average ties, by counting: 1 + #better + (#equal others) / 2."""
    s = list(map(float, scores))
    return np.array([1 + sum(t > v for t in s) + (sum(t == v for t in s) - 1) / 2 for v in s])


def min_ranks(scores):
    s = list(map(float, scores))
    return np.array([1 + sum(t > v for t in s) for v in s])


def item_weights(rx, ry, weigher, scheme):
    f = parse_weigher(weigher)
    fx, fy = f(rx), f(ry)
    return fx * fy if scheme == "multiplicative" else fx + fy


def _scores(rng, n, tied):
    s = rng.normal(size=n)
    if tied:
        s = np.round(s * 2) / 2  # many ties
    return s


# ----------------------------------------------------------------------------- kind="scores"
@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("weigher", WEIGHERS)
def test_scores_equal_hand_derived_ranks(weigher, scheme, tied):
    rng = np.random.default_rng([len(weigher), len(scheme), tied])
    for n in (6, 30, 120):
        a, b = _scores(rng, n, tied), _scores(rng, n, tied)
        ha, hb = hand_ranks(a), hand_ranks(b)
        assert tied == (len(set(a)) < n or len(set(b)) < n)
        kw = dict(weigher=weigher, scheme=scheme)
        # as rank vectors: competition ranks 1 + #better ([1, 2, 2, 4]), which the ranks path averages
        ra, rb = min_ranks(a), min_ranks(b)
        assert weighted_kendall(a, b, kind="scores", **kw) == weighted_kendall(ra, rb, **kw)
        assert weighted_spearman(a, b, kind="scores", **kw) == weighted_spearman(ra, rb, **kw)
        for coef in ("kendall", "spearman"):
            assert weighted_correlation(a, b, coefficient=coef, kind="scores", **kw) == weighted_correlation(
                ra, rb, coefficient=coef, **kw
            )
        # and ρ_w straight from its definition on the hand-derived average ranks
        w = item_weights(ha, hb, weigher, scheme)
        dx, dy = ha - w @ ha / w.sum(), hb - w @ hb / w.sum()
        ref = (w * dx) @ dy / np.sqrt(((w * dx) @ dx) * ((w * dy) @ dy))
        assert weighted_spearman(a, b, kind="scores", **kw) == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("weigher", WEIGHERS)
def test_scores_equal_scipy_weightedtau_on_the_raw_scores(weigher, scheme, tied):
    # scipy sees the scores themselves; the item weights come from the hand-derived descending ranks
    rng = np.random.default_rng([7, len(weigher), len(scheme), tied])
    for n in (5, 40, 300):
        a, b = _scores(rng, n, tied), _scores(rng, n, tied)
        w = item_weights(hand_ranks(a), hand_ranks(b), weigher, scheme)
        ref = stats.weightedtau(a, b, rank=np.arange(n), weigher=lambda i: w[i], additive=False).statistic
        assert weighted_kendall(a, b, weigher=weigher, scheme=scheme, kind="scores") == pytest.approx(ref, abs=1e-12)


def test_ascending_rankdata_of_scores_is_the_trap():
    # the trap: rankdata(s) ranks ascending, so the worst item gets rank 1 and the largest weight
    a = np.array([0.9, 0.7, 0.2, 0.1])
    b = np.array([0.8, 0.9, 0.3, 0.2])
    right = weighted_kendall(a, b, kind="scores")
    assert right == weighted_kendall([1, 2, 3, 4], [2, 1, 3, 4])
    assert right == pytest.approx(0.260274, abs=5e-7)
    wrong = weighted_kendall(stats.rankdata(a), stats.rankdata(b))
    assert wrong == pytest.approx(0.883472, abs=5e-7)
    assert right == weighted_kendall(stats.rankdata(-a), stats.rankdata(-b))


def test_scores_in_the_test_equal_ranks():
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=9), rng.normal(size=9)
    ra, rb = hand_ranks(a).astype(int), hand_ranks(b).astype(int)
    for coef in ("kendall", "spearman"):
        got = weighted_correlation_test(a, b, coefficient=coef, kind="scores", alternative="greater")
        want = weighted_correlation_test(ra, rb, coefficient=coef, alternative="greater")
        assert got == want
    # the exact p-value of scores against a brute-force count over the 6! permutations of y
    n = 6
    a, b = a[:n], b[:n]
    ra, rb = hand_ranks(a).astype(int), hand_ranks(b).astype(int)
    res = weighted_correlation_test(a, b, kind="scores", alternative="greater", method="exact")
    null = [weighted_kendall(ra, np.array(p)) for p in itertools.permutations(range(1, n + 1))]
    p_ge = np.mean(np.array(null) >= res.statistic - 1e-12)
    assert res.pvalue == pytest.approx(p_ge, abs=1e-15)


@pytest.mark.parametrize("func", [weighted_kendall, weighted_spearman, weighted_correlation, weighted_correlation_test])
def test_invalid_kind_and_bad_scores(func):
    kw = {"coefficient": "kendall"} if func is weighted_correlation else {}
    with pytest.raises(InputError, match="`kind`"):
        func([1, 2, 3], [1, 3, 2], kind="score", **kw)
    with pytest.raises(InputError, match="`x`"):
        func([0.1, np.nan, 0.3], [0.3, 0.2, 0.1], kind="scores", **kw)
    with pytest.raises(InputError, match="`y`"):
        func([0.1, 0.2, 0.3], ["a", "b", "c"], kind="scores", **kw)
    # ranks stay strict: scores passed as ranks are refused
    with pytest.raises(InputError, match="`x`"):
        func([0.1, 0.2, 0.3], [1, 2, 3], **kw)


def test_tied_scores_with_ties_raise_and_in_the_test():
    with pytest.raises(InputError, match="`x`.*tied"):
        weighted_kendall([0.5, 0.5, 0.1], [0.3, 0.2, 0.1], kind="scores", ties="raise")
    with pytest.raises(InputError, match="`method`.*untied"):  # ties: every method but the table (issue 24)
        weighted_correlation_test([0.5, 0.5, 0.1], [0.3, 0.2, 0.1], kind="scores", method="table")


# ----------------------------------------------------------------------------- 1-based weighers
def test_scipy_weigher_maps_with_i_minus_1():
    scipy_w = lambda r: 1.0 / (r + 1.0)  # noqa: E731 - scipy's default hyperbolic weigher, 0-based
    ours = lambda i: scipy_w(i - 1)  # noqa: E731
    rng = np.random.default_rng(11)
    for n in (5, 60):
        x, y = rng.permutation(n) + 1, rng.permutation(n) + 1
        assert np.array_equal(parse_weigher(ours).table(n), scipy_w(np.arange(n)))
        for scheme in SCHEMES:
            w = item_weights(x, y, ours, scheme)
            ref = stats.weightedtau(x, y, rank=np.arange(n), weigher=lambda k: w[k], additive=False).statistic
            got = weighted_kendall(x, y, weigher=ours, scheme=scheme)
            assert got == pytest.approx(ref, abs=1e-12)
            assert got == pytest.approx(weighted_kendall(x, y, weigher="harmonic", scheme=scheme), abs=1e-15)
            # scipy's callable unchanged is f(i) = 1/(i+1): shifted weights, a different number
            assert weighted_kendall(x, y, weigher=scipy_w, scheme=scheme) != pytest.approx(got, abs=1e-6)


# ----------------------------------------------------------------------------- aligned defaults
def test_weighted_correlation_default_is_kendall_and_warns_once():
    x, y = [1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5]
    with pytest.warns(FutureWarning, match="coefficient=") as w:
        value = weighted_correlation(x, y)
    assert len(w) == 1
    assert value == weighted_kendall(x, y) == weighted_correlation(x, y, coefficient="kendall")
    assert value != weighted_spearman(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        weighted_correlation(x, y, coefficient="kendall")
        weighted_correlation(x, y, coefficient="spearman")


def test_moments_defaults_match_brute_force_and_the_other_functions():
    n = 5
    m = exact_moments(n=n)
    assert m == exact_moments("kendall", n=n, weigher="harmonic", scheme="additive")
    vals = np.array(
        [weighted_kendall(np.arange(1, n + 1), np.array(p)) for p in itertools.permutations(range(1, n + 1))]
    )
    assert m.mean == pytest.approx(vals.mean(), abs=1e-14)
    assert m.var == pytest.approx(vals.var(), abs=1e-14)
    res = weighted_correlation_test([1, 2, 3, 4, 5], [2, 1, 3, 5, 4])
    assert (res.coefficient, res.weigher, res.scheme) == ("kendall", "harmonic", "additive")
    assert res.null_mean == pytest.approx(m.mean, abs=1e-14)
    assert standardize(0.3, n=30) == standardize(
        0.3, coefficient="kendall", scheme="additive", weigher="harmonic", n=30
    )


# ----------------------------------------------------------------------------- results
def test_test_result_unpacks_like_scipy_and_exports():
    res = weighted_correlation_test([1, 2, 3, 4, 5, 6, 7, 8], [1, 3, 2, 4, 6, 5, 8, 7])
    stat, p = res
    assert (stat, p) == (res.statistic, res.pvalue) == (res[0], res[1])
    assert round(stat, 6) == 0.846672 and round(p, 6) == 0.008929
    d = res.to_dict()
    assert json.loads(json.dumps(d)) == d and d["pvalue"] == p and d["statistic"] == stat
    with pytest.warns(DeprecationWarning, match="to_dict") as w:
        old = res.as_dict()
    assert len(w) == 1 and old == d


def test_exact_moments_seconds_and_aliases():
    m = exact_moments(n=6)
    assert m.seconds >= 0
    assert dataclasses.replace(m, seconds=m.seconds + 99.0) == m  # timing is out of equality
    with pytest.warns(DeprecationWarning, match="seconds") as w:
        e = m.elapsed
    assert len(w) == 1 and e == m.seconds
    d = m.to_dict()
    assert d["mean"] == m.mean and d["n_permutations"] == 720
    with pytest.warns(DeprecationWarning) as w:
        assert m.as_dict() == d
    assert len(w) == 1


def test_standardization_function_to_dict_and_alias():
    g = StandardizationFunction.from_moments(-0.1, 0.2, 0.09)
    d = g.to_dict()
    assert d["g0"] == g.g0 and d["mean"] == -0.1
    with pytest.warns(DeprecationWarning) as w:
        assert g.as_dict() == d
    assert len(w) == 1


def test_other_ranking_objects_export():
    from agreekit.ranking import load_table

    assert parse_weigher("power:p=1.5,n0=2").to_dict() == {
        "spec": "power:p=1.5,n0=2",
        "family": "power",
        "params": {"p": 1.5, "n0": 2.0},
    }
    tab = load_table("kendall_additive_harmonic")
    d = tab.to_dict()
    assert d == tab.data and d is not tab.data
    assert issubclass(WeightedCorrelationResult, tuple) is False and hasattr(ExactMoments, "to_dict")


# ----------------------------------------------------------------------------- rng (SPEC 7)
def test_rng_int_seedsequence_generator_same_draws():
    rng = np.random.default_rng(0)
    x, y = rng.permutation(30) + 1, rng.permutation(30) + 1
    kw = dict(method="monte-carlo", n_resamples=3000)
    a = weighted_correlation_test(x, y, rng=5, **kw)
    b = weighted_correlation_test(x, y, rng=np.random.SeedSequence(5), **kw)
    c = weighted_correlation_test(x, y, rng=np.random.default_rng(5), **kw)
    assert a == b == c
    assert a.pvalue * 3001 == pytest.approx(round(a.pvalue * 3001))  # (b + 1) / (B + 1)
    for bad in ("abc", -1, np.random.RandomState(0), 1.5, True):
        with pytest.raises(InputError, match="`rng`"):
            weighted_correlation_test(x, y, rng=bad, **kw)


# ----------------------------------------------------------------------------- CLI
def _cli(*argv, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "agreekit", *argv], capture_output=True, text=True, cwd=ROOT, input=stdin
    )


@pytest.fixture
def rank_files(tmp_path):
    x, y = tmp_path / "x.txt", tmp_path / "y.txt"
    x.write_text("1\n2\n3\n4\n5\n6\n7\n")
    y.write_text("2\n1\n3\n5\n4\n7\n6\n")
    return str(x), str(y)


def test_cli_defaults_and_kind_scores_from_stdin(rank_files, tmp_path):
    x, y = rank_files
    r = _cli("correlate", x, y)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert (out["coefficient"], out["scheme"], out["weigher"], out["kind"]) == (
        "kendall",
        "additive",
        "harmonic",
        "ranks",
    )
    assert out["value"] == weighted_kendall([1, 2, 3, 4, 5, 6, 7], [2, 1, 3, 5, 4, 7, 6])
    s = tmp_path / "s.txt"
    s.write_text("0.8\n0.9\n0.5\n0.3\n0.4\n0.1\n0.2\n")  # descending ranks 2 1 3 5 4 7 6 = y
    r = _cli(
        "correlate", "--kind", "scores", "-", str(s), "-o", str(tmp_path / "o.json"), stdin="7\n6\n5\n4\n3\n2\n1\n"
    )
    assert r.returncode == 0 and r.stdout == "", r.stderr
    got = json.loads((tmp_path / "o.json").read_text())
    assert got["value"] == out["value"] and got["kind"] == "scores"


def test_cli_csv_and_the_pvalue(rank_files):
    x, y = rank_files
    r = _cli("correlate", x, y, "--pvalue", "--format", "csv")
    assert r.returncode == 0, r.stderr
    header, row = r.stdout.splitlines()
    rec = dict(zip(header.split(","), row.split(",")))
    ref = weighted_correlation_test([1, 2, 3, 4, 5, 6, 7], [2, 1, 3, 5, 4, 7, 6])
    assert float(rec["pvalue"]) == ref.pvalue and float(rec["value"]) == ref.statistic
    r = _cli("moments", "--n", "6", "--format", "csv")
    header, row = r.stdout.splitlines()
    rec = dict(zip(header.split(","), row.split(",")))
    assert float(rec["mean"]) == exact_moments(n=6).mean
    from agreekit.ranking import available_tables

    r = _cli("table", "--format", "csv")
    assert r.stdout.splitlines() == ["table", *available_tables()]


@pytest.mark.parametrize(
    "old, new", [(["--test"], ["--pvalue"]), (["--pvalue", "--resamples", "500"], ["--pvalue", "--n-resamples", "500"])]
)
def test_cli_old_spellings_warn_once(rank_files, old, new):
    x, y = rank_files
    tail = ["--method", "monte-carlo", "--rng", "3"]
    a, b = _cli("correlate", x, y, *old, *tail), _cli("correlate", x, y, *new, *tail)
    assert a.returncode == b.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    assert a.stderr.count("DeprecationWarning") == 1 and new[-2 if len(new) > 1 else 0] in a.stderr
    assert b.stderr == ""


def test_cli_seed_is_reported_and_repeats(rank_files):
    x, y = rank_files
    args = ["correlate", x, y, "--pvalue", "--method", "monte-carlo", "--n-resamples", "300"]
    a = json.loads(_cli(*args).stdout)
    again = json.loads(_cli(*args, "--seed", str(a["rng"])).stdout)
    assert again == a
