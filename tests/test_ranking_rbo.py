"""rank_biased_overlap against published values and brute force written here from the definitions.

References used (none is agreekit's own code path):
* Corsi & Urbano (SIGIR 2024)'s README example and 200 rows of their published test file
  (tests/data/ranking/rbo_corsi_urbano_2024.csv, MIT licence);
* Webber, Moffat & Zobel (TOIS 2010): RBO_min (Eq. 11), RBO_ext (Eq. 30/32) on explicit prefix
  overlaps of Python sets; RBO_min and RBO_max also as the RBO of the worst / best explicit
  continuation of the lists, summed to a depth where p^d is negligible;
* variant a as the mean over every tie-breaking of both lists (the seen-part quantities);
* a dense item x depth implementation of the tie contributions c(d) (Corsi & Urbano's definitions).
"""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agreekit import InputError
from agreekit.ranking import rank_biased_overlap

DATA = Path(__file__).parent / "data" / "ranking" / "rbo_corsi_urbano_2024.csv"


def parse(text):
    """Corsi & Urbano's string notation: "red (blue green) yellow" -> ["red", {"blue", "green"}, "yellow"]."""
    out = []
    for m in re.finditer(r"\(([^)]*)\)|(\w+)", text):
        out.append(set(m.group(1).split()) if m.group(1) else m.group(2))
    return out


# ----------------------------------------------------------------------------- published values
def test_corsi_urbano_readme_example_to_7_digits():
    x = parse("red (blue green) yellow pink")
    y = parse("(blue red) white (yellow black purple) green")
    expected = {
        "a": (0.6922853, 0.3310519, 0.8930692, 0.5620173),
        "w": (0.7068257, 0.3429684, 0.9049857, None),
        "b": (0.7207131, 0.3509163, 0.9129336, None),
    }
    for ties, (ext, mn, mx, res) in expected.items():
        r = rank_biased_overlap(x, y, p=0.95, ties=ties)
        assert round(r.ext, 7) == ext and round(r.min, 7) == mn and round(r.max, 7) == mx
        if res is not None:
            assert round(r.res, 7) == res
        assert (r.depth_x, r.depth_y, r.p, r.ties) == (5, 7, 0.95, ties)


def test_corsi_urbano_published_rows():
    df = pd.read_csv(DATA)
    assert len(df) == 200
    for row in df.to_dict("records"):
        x, y = parse(row["x"]), parse(row["y"])
        for ties in "wab":
            r = rank_biased_overlap(x, y, p=row["p"], ties=ties)
            for k in ("ext", "min", "max", "res"):
                assert getattr(r, k) == pytest.approx(row[f"{ties}.{k}"], abs=1e-12), (row, ties, k)


# ----------------------------------------------------------------------------- brute force, untied
def brute_untied(S, L, p, depth=4000):
    """Webber et al.'s ext (Eq. 32) and min (Eq. 11) from explicit prefix-overlap sets, and min/max as the RBO of
    explicit worst/best continuations (S the shorter list)."""
    s, l = len(S), len(L)
    X = [0] * (l + 1)
    for d in range(1, l + 1):
        X[d] = len(set(S[: min(d, s)]) & set(L[:d]))
    # Eq. 11 generalized (X_d for d > s counts overlap with the seen part of S)
    mn = (
        (1 - p)
        / p
        * (
            sum(X[d] / d * p**d for d in range(1, l + 1))
            + X[l] * (math.log(1 / (1 - p)) - sum(p**d / d for d in range(1, l + 1)))
        )
    )
    # Eq. 32
    ext = (1 - p) / p * (
        sum(X[d] / d * p**d for d in range(1, l + 1))
        + sum(X[s] * (d - s) / (s * d) * p**d for d in range(s + 1, l + 1))
    ) + ((X[l] - X[s]) / l + X[s] / s) * p**l

    def infinite(a, b):
        sa, sb, ov, total = set(), set(), 0, 0.0
        for d in range(1, depth + 1):
            u, v = a[d - 1], b[d - 1]
            if u == v:
                ov += 1
            else:
                ov += (u in sb) + (v in sa)
            sa.add(u)
            sb.add(v)
            total += p ** (d - 1) * ov / d
        return (1 - p) * total

    fresh = (("fresh", i) for i in itertools.count())
    worst_S = list(S) + [next(fresh) for _ in range(depth)]
    worst_L = list(L) + [next(fresh) for _ in range(depth)]
    best_S = list(S) + [i for i in L if i not in set(S)]
    best_L = list(L) + [i for i in S if i not in set(L)]
    best_S += [("new", i) for i in range(depth)]
    best_L += [("new", i) for i in range(depth)]
    return ext, mn, infinite(worst_S, worst_L), infinite(best_S, best_L)


def random_untied(rng, universe=12):
    s = int(rng.integers(1, 9))
    l = int(rng.integers(s, 12))
    pool = np.arange(universe)
    S = [int(v) for v in rng.choice(pool, size=s, replace=False)]
    L = [int(v) for v in rng.choice(pool, size=l, replace=False)]
    if rng.random() < 0.15:  # disjoint lists
        L = [v + 100 for v in L]
    return S, L


def test_untied_against_webber_formulas_and_explicit_continuations():
    rng = np.random.default_rng(2024)
    for case in range(500):
        S, L = random_untied(rng)
        p = float(rng.choice([0.5, 0.8, 0.9, 0.95]))
        ext, mn, mn_explicit, mx_explicit = brute_untied(S, L, p, depth=1500 if p < 0.95 else 3000)
        assert mn == pytest.approx(mn_explicit, abs=1e-12)
        swap = rng.random() < 0.5
        r = rank_biased_overlap(L, S, p=p) if swap else rank_biased_overlap(S, L, p=p)
        assert r.ext == pytest.approx(ext, abs=1e-12), (case, S, L, p)
        assert r.min == pytest.approx(mn, abs=1e-12), (case, S, L, p)
        assert r.max == pytest.approx(mx_explicit, abs=1e-12), (case, S, L, p)
        assert r.res == pytest.approx(mx_explicit - mn, abs=1e-12)
        for ties in "wb":  # no ties: the variants agree
            r2 = rank_biased_overlap(S, L, p=p, ties=ties)
            assert (r2.ext, r2.min, r2.max) == pytest.approx((r.ext, r.min, r.max), abs=1e-15)


# ----------------------------------------------------------------------------- brute force, ties
def random_tied(rng, universe=9, max_len=7):
    def one(n):
        items = [int(v) for v in rng.choice(np.arange(universe), size=n, replace=False)]
        out, i = [], 0
        while i < n:
            g = min(int(rng.choice([1, 1, 2, 3])), n - i)
            out.append(set(items[i : i + g]) if g > 1 else items[i])
            i += g
        return out

    return one(int(rng.integers(1, max_len))), one(int(rng.integers(1, max_len)))


def breakings(lst):
    opts = [list(itertools.permutations(sorted(g))) if isinstance(g, set) else [(g,)] for g in lst]
    for combo in itertools.product(*opts):
        yield [i for part in combo for i in part]


def flat_tb(lst):
    """item -> (t, b) top and bottom rank of its group."""
    out, r = {}, 0
    for g in lst:
        members = sorted(g) if isinstance(g, set) else [g]
        for it in members:
            out[it] = (r + 1, r + len(members))
        r += len(members)
    return out, r


def dense_definition(x, y, p, ties):
    """Corsi & Urbano's RBO^w/a/b with an explicit item x depth contribution table (O(n·l))."""
    fx, nx = flat_tb(x)
    fy, ny = flat_tb(y)
    (fS, s), (fL, l) = ((fx, nx), (fy, ny)) if nx < ny else ((fy, ny), (fx, nx))
    orderL = sorted(fL, key=lambda i: (fL[i][0], str(i)))

    def c(tb, d):
        if tb is None:
            return 0.0
        t, b = tb
        if ties == "w":
            return 1.0 if d >= t else 0.0
        return 0.0 if d < t else (1.0 if d >= b else (d - t + 1) / (b - t + 1))

    items = set(fS) | set(fL)
    only_L = [i for i in orderL if i not in fS]

    def norm(X, d, sec2):
        cs = [c(fS.get(i), d) for i in items]
        cl = [c(fL.get(i), d) for i in items]
        if ties == "w":
            return 2 * X / ((d if sec2 else sum(cs)) + sum(cl))
        if ties == "a":
            return X / d
        return X / math.sqrt((d if sec2 else sum(v * v for v in cs)) * sum(v * v for v in cl))

    A1 = []
    for d in range(1, s + 1):
        X = sum(c(fS.get(i), d) * c(fL.get(i), d) for i in items)
        A1.append(norm(X, d, False))
    A_s = A1[-1]
    A_min, A_max, A_ext = list(A1), list(A1), list(A1)
    for d in range(s + 1, l + 1):
        X = sum(c(fS.get(i), d) * c(fL.get(i), d) for i in items)
        k = d - s
        unseen_max = sum(c(fL[i], d) for i in only_L[:k])
        nonzero = [c(fL[i], d) for i in only_L if c(fL[i], d) > 0]
        unseen_ext = k * A_s * (sum(nonzero) / len(nonzero))
        A_min.append(norm(X, d, True))
        A_max.append(norm(X + unseen_max, d, True))
        A_ext.append(norm(X + unseen_ext, d, True))
    Xl = len(set(fS) & set(fL))
    sec3_min = Xl * (math.log(1 / (1 - p)) - sum(p**d / d for d in range(1, l + 1)))
    f = l + s - Xl
    sec3_max = sum((2 * d - l - s + Xl) / d * p**d for d in range(l + 1, f + 1)) + p ** (f + 1) / (1 - p)
    sec3_ext = (Xl + (l - s) * A_s) / l * p ** (l + 1) / (1 - p)
    k = (1 - p) / p

    def total(A, sec3):
        return k * (sum(a * p ** (d + 1) for d, a in enumerate(A)) + sec3)

    return total(A_ext, sec3_ext), total(A_min, sec3_min), total(A_max, sec3_max)


def test_ties_against_dense_definition():
    rng = np.random.default_rng(7)
    for case in range(500):
        x, y = random_tied(rng)
        p = float(rng.choice([0.6, 0.9, 0.95]))
        for ties in "wab":
            ext, mn, mx = dense_definition(x, y, p, ties)
            r = rank_biased_overlap(x, y, p=p, ties=ties)
            assert (r.ext, r.min, r.max) == pytest.approx((ext, mn, mx), abs=1e-12), (case, x, y, p, ties)
            assert r.min <= r.ext + 1e-12 and r.ext <= r.max + 1e-12 and r.max <= 1 + 1e-12


def test_variant_a_is_the_mean_over_tie_breakings():
    """RBO^a_min (any lengths) and ext/min/max (equal lengths) = the mean of the untied scores over every
    tie-breaking of both lists (the untied scores from Webber's formulas and explicit continuations)."""
    rng = np.random.default_rng(11)
    n_checked = 0
    for case in range(500):
        x, y = random_tied(rng, universe=8, max_len=6)
        p = float(rng.choice([0.7, 0.9]))
        rows = []
        for a in breakings(x):
            for b in breakings(y):
                S, L = (a, b) if len(a) <= len(b) else (b, a)
                rows.append(brute_untied(S, L, p, depth=600))
        mean = np.mean(np.array(rows), axis=0)
        r = rank_biased_overlap(x, y, p=p, ties="a")
        assert r.min == pytest.approx(mean[1], abs=1e-12), (x, y, p)
        if flat_tb(x)[1] == flat_tb(y)[1]:
            assert r.ext == pytest.approx(mean[0], abs=1e-12), (x, y, p)
            assert r.max == pytest.approx(mean[3], abs=1e-12), (x, y, p)
            n_checked += 1
    assert n_checked >= 40


def test_variant_w_is_webber_eq28():
    """Variant w on equal-length lists: A_d = 2 |S_d ∩ L_d| / (|S_d| + |L_d|), S_d the items whose group starts by d."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        x, y = random_tied(rng)
        fx, nx = flat_tb(x)
        fy, ny = flat_tb(y)
        if nx != ny:
            continue
        n = nx
        p = 0.9
        A = []
        for d in range(1, n + 1):
            Sd = {i for i, (t, b) in fx.items() if t <= d}
            Ld = {i for i, (t, b) in fy.items() if t <= d}
            A.append(2 * len(Sd & Ld) / (len(Sd) + len(Ld)))
        Xl = len(set(fx) & set(fy))
        mn = (
            (1 - p)
            / p
            * (
                sum(a * p**d for d, a in enumerate(A, 1))
                + Xl * (math.log(1 / (1 - p)) - sum(p**d / d for d in range(1, n + 1)))
            )
        )
        assert rank_biased_overlap(x, y, p=p, ties="w").min == pytest.approx(mn, abs=1e-12)


def test_variant_b_of_a_list_with_itself_is_one_and_a_le_b():
    rng = np.random.default_rng(5)
    for _ in range(200):
        x, y = random_tied(rng)
        assert rank_biased_overlap(x, x, p=0.9, ties="b").ext == pytest.approx(1.0, abs=1e-12)
        assert rank_biased_overlap(x, y, ties="a").ext <= rank_biased_overlap(x, y, ties="b").ext + 1e-12


def test_bounds_on_dlukes_rbo_issue_4_and_at_scale():
    r = rank_biased_overlap([1, 2, 3], [1], p=0.4)  # dlukes/rbo#4 returned ext = 1.0453
    assert r.min <= r.ext <= r.max <= 1.0
    assert r.ext == pytest.approx(1.0, abs=1e-15)
    rng = np.random.default_rng(0)
    for _ in range(100):
        s, l = int(rng.integers(1, 300)), int(rng.integers(1, 2000))
        x = rng.choice(3000, size=s, replace=False)
        y = rng.choice(3000, size=l, replace=False)
        for p in (0.5, 0.9, 0.98):
            r = rank_biased_overlap(x, y, p=p)
            assert -1e-12 <= r.min <= r.ext + 1e-12 and r.ext <= r.max + 1e-12 and r.max <= 1 + 1e-12


def test_scores_input_ties_equal_scores_and_matches_lists():
    x = {"a": 3.0, "b": 2.0, "c": 2.0, "d": 1.0}
    y = pd.Series({"b": 9.0, "a": 5.0, "e": 5.0})
    r = rank_biased_overlap(x, y, kind="scores", p=0.8, ties="b")
    r2 = rank_biased_overlap(["a", {"b", "c"}, "d"], ["b", {"a", "e"}], p=0.8, ties="b")
    assert r.to_dict() == r2.to_dict()
    d = r.to_dict()
    assert set(d) == {"ext", "min", "max", "res", "p", "ties", "depth_x", "depth_y"}


def test_numpy_array_input_matches_list_input():
    rng = np.random.default_rng(1)
    x = rng.choice(50, 20, replace=False)
    y = rng.choice(50, 30, replace=False)
    assert rank_biased_overlap(x, y).to_dict() == rank_biased_overlap(list(map(int, x)), list(map(int, y))).to_dict()


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "kwargs, parameter",
    [
        (dict(x=[], y=[1]), "x"),
        (dict(x=[1], y=[]), "y"),
        (dict(x=[1, 2, 1], y=[1]), "x"),
        (dict(x=[1, {2, 3}], y=[{1, 4}, 4]), "y"),
        (dict(x=[1, {2, 3}, 2], y=[1]), "x"),
        (dict(x=[[1, 2], 3], y=[1]), "x"),
        (dict(x=[1, 2], y=[1], p=1.0), "p"),
        (dict(x=[1, 2], y=[1], p=0), "p"),
        (dict(x=[1, 2], y=[1], p=float("nan")), "p"),
        (dict(x=[1, 2], y=[1], ties="c"), "ties"),
        (dict(x="abc", y=[1]), "x"),
        (dict(x={"a": 1.0, "b": float("nan")}, y={"a": 1.0}, kind="scores"), "x"),
        (dict(x=[1], y=[1], kind="ranks"), "kind"),
    ],
)
def test_bad_input_is_one_input_error(kwargs, parameter):
    x, y = kwargs.pop("x"), kwargs.pop("y")
    with pytest.raises(InputError) as exc:
        rank_biased_overlap(x, y, **kwargs)
    assert exc.value.parameter == parameter
    assert "\n" not in str(exc.value)


# ----------------------------------------------------------------------------- null model and test
from scipy.stats import kstest  # noqa: E402

from agreekit.ranking import rank_biased_overlap_test  # noqa: E402


def webber_scores(S, L, p):
    """(ext, min, max) of untied lists from explicit prefix overlaps: Eq. 32, Eq. 11 and the best continuation's
    closed form (unseen items of S match the next items of L; beyond l every unseen item matches)."""
    if len(S) > len(L):
        S, L = L, S
    s, l = len(S), len(L)
    X = [0] * (l + 1)
    setS = set()
    for d in range(1, l + 1):
        X[d] = len(set(S[: min(d, s)]) & set(L[:d]))
    w = (1 - p) / p
    head = sum(X[d] / d * p**d for d in range(1, l + 1))
    mn = w * (head + X[l] * (math.log(1 / (1 - p)) - sum(p**d / d for d in range(1, l + 1))))
    ext = (
        w * (head + sum(X[s] * (d - s) / (s * d) * p**d for d in range(s + 1, l + 1)))
        + ((X[l] - X[s]) / l + X[s] / s) * p**l
    )
    f = l + s - X[l]
    mx = w * (
        sum(X[d] / d * p**d for d in range(1, s + 1))
        + sum((X[d] + d - s) / d * p**d for d in range(s + 1, l + 1))
        + sum((2 * d - l - s + X[l]) / d * p**d for d in range(l + 1, f + 1))
        + p ** (f + 1) / (1 - p)
    )
    del setS
    return {"ext": ext, "min": mn, "max": mx}


def enumerate_rbo_null(N, s, l, p, score, fix_first=False):
    """The score over every pair of prefixes (an s-prefix and an l-prefix of permutations of N items), equally likely
    under H0; with fix_first the first list is fixed to (0..s−1) (the law is invariant under relabelling)."""
    firsts = [tuple(range(s))] if fix_first else list(itertools.permutations(range(N), s))
    seconds = list(itertools.permutations(range(N), l))
    return np.array([webber_scores(list(a), list(b), p)[score] for a in firsts for b in seconds])


@pytest.mark.parametrize(
    "N, s, l, fix",
    [
        (4, 2, 3, False),
        (5, 3, 3, False),
        (5, 2, 4, False),
        (6, 3, 4, True),
        (7, 3, 3, True),
        (7, 2, 5, True),
        (7, 4, 4, True),
    ],
)
def test_rbo_null_moments_and_pvalues_equal_enumeration(N, s, l, fix):
    rng = np.random.default_rng(N * 100 + s * 10 + l)
    for score in ("ext", "min", "max"):
        p = float(rng.choice([0.5, 0.9]))
        null = enumerate_rbo_null(N, s, l, p, score, fix_first=fix)
        x = [int(v) for v in rng.choice(N, s, replace=False)]
        y = [int(v) for v in rng.choice(N, l, replace=False)]
        value = webber_scores(x, y, p)[score]
        for alt in ("greater", "less", "two-sided"):
            res = rank_biased_overlap_test(x, y, n_items=N, p=p, score=score, alternative=alt)
            assert res.method == "exact" and res.statistic == pytest.approx(value, abs=1e-12)
            assert res.null_mean == pytest.approx(np.mean(null), abs=1e-12)
            assert res.null_var == pytest.approx(np.var(null), abs=1e-12)
            tol = max(1e-12 * abs(value), 1e-14)
            ge, le = np.mean(null >= value - 1e-10), np.mean(null <= value + 1e-10)
            ref = {"greater": ge, "less": le, "two-sided": min(1.0, 2 * min(ge, le))}[alt]
            assert res.pvalue == pytest.approx(ref, abs=1e-12), (score, alt)
            assert res.adjusted == pytest.approx((value - np.mean(null)) / (1 - np.mean(null)), abs=1e-12)
            del tol


def test_published_null_mean():
    # E[RBO_ext] for N = 5, k = 4, p = .9 is 3439/5000 (exact enumeration in rationals)
    res = rank_biased_overlap_test([0, 1, 2, 3], [0, 1, 2, 3], n_items=5, p=0.9)
    assert res.null_mean == pytest.approx(3439 / 5000, abs=1e-15)


def tied_null_enumeration(x, y, N, p, ties, score):
    """Both tie patterns kept, the lists' items every injective assignment from a domain of N items."""

    def shape(lst):
        return [len(g) if isinstance(g, set) else 1 for g in lst]

    def build(sizes, items):
        out, i = [], 0
        for g in sizes:
            out.append(set(items[i : i + g]) if g > 1 else items[i])
            i += g
        return out

    sx, sy = shape(x), shape(y)
    vals = []
    for a in itertools.combinations(range(N), sum(sx)):  # a set per tie group order does not matter within groups
        for pa in itertools.permutations(a):
            for pb in itertools.permutations(range(N), sum(sy)):
                vals.append(dense_definition(build(sx, list(pa)), build(sy, list(pb)), p, ties))
    idx = {"ext": 0, "min": 1, "max": 2}[score]
    return np.array([v[idx] for v in vals])


def test_tied_monte_carlo_within_3_se_of_enumeration():
    x = ["a", {"b", "c"}]
    y = [{"a", "d"}, "b"]
    null = tied_null_enumeration(x, y, 5, 0.8, "a", "ext")
    value = dense_definition(x, y, 0.8, "a")[0]
    ref = np.mean(null >= value - 1e-10)
    res = rank_biased_overlap_test(x, y, n_items=5, p=0.8, method="monte-carlo", n_resamples=4000, rng=1)
    assert res.method == "monte-carlo" and res.null_moments == "monte-carlo"
    assert abs(res.pvalue - ref) <= 3 * res.pvalue_se + 1e-3
    assert abs(res.null_mean - np.mean(null)) <= 3 * np.std(null) / math.sqrt(4000)


@pytest.mark.parametrize("ties, score", [("b", "max"), ("w", "min")])
def test_tied_monte_carlo_longer_x_within_3_se_of_enumeration(ties, score):
    """The compiled tied resampler with x the longer list (the roles of S and L swapped) and the other
    scores and tie variants: its null mean and p-value against the enumerated null."""
    x = [{"a", "b"}, "c", "d"]
    y = ["a", {"e", "b"}]
    null = tied_null_enumeration(x, y, 5, 0.7, ties, score)
    value = dense_definition(x, y, 0.7, ties)[{"ext": 0, "min": 1, "max": 2}[score]]
    ref = np.mean(null >= value - 1e-10)
    res = rank_biased_overlap_test(
        x, y, n_items=5, p=0.7, ties=ties, score=score, method="monte-carlo", n_resamples=4000, rng=7
    )
    assert res.statistic == pytest.approx(value, abs=1e-12)
    assert abs(res.pvalue - ref) <= 3 * res.pvalue_se + 1e-3
    assert abs(res.null_mean - np.mean(null)) <= 3 * np.std(null) / math.sqrt(4000)


def test_untied_monte_carlo_within_3_se_of_exact():
    x, y = [3, 1, 0, 5, 6], [1, 3, 2, 7, 0, 8]
    ex = rank_biased_overlap_test(x, y, n_items=12, p=0.8)
    mc = rank_biased_overlap_test(x, y, n_items=12, p=0.8, method="monte-carlo", n_resamples=20000, rng=2)
    assert ex.method == "exact" and abs(mc.pvalue - ex.pvalue) <= 3 * mc.pvalue_se + 1e-4
    assert mc.null_mean == ex.null_mean  # exact moments either way without ties


@pytest.mark.parametrize("N, s, method", [(16, 8, "exact"), (30, 10, "monte-carlo")])
def test_rbo_pvalues_uniform_under_h0(N, s, method):
    rng = np.random.default_rng(N)
    ps = []
    for _ in range(150):
        x = [int(v) for v in rng.choice(N, s, replace=False)]
        y = [int(v) for v in rng.choice(N, s, replace=False)]
        ps.append(rank_biased_overlap_test(x, y, n_items=N, p=0.7, method=method, n_resamples=300, rng=rng).pvalue)
    assert kstest(ps, "uniform").pvalue > 0.01


def test_rbo_test_bad_input():
    for kwargs, par in (
        (dict(n_items=3), "n_items"),
        (dict(n_items=10, score="res"), "score"),
        (dict(n_items=10, alternative="up"), "alternative"),
        (dict(n_items=10, p=1.5), "p"),
        (dict(n_items="ten"), "n_items"),
    ):
        with pytest.raises(InputError) as exc:
            rank_biased_overlap_test([1, 2, 3], [2, 4], **kwargs)
        assert exc.value.parameter == par
    with pytest.raises(InputError) as exc:
        rank_biased_overlap_test([1, {2, 3}], [2, 4], n_items=10, method="exact")
    assert exc.value.parameter == "method"


def test_long_lists_past_the_underflow_depth_match_the_formulas():
    """Depths where p^d underflows are skipped: the scores still equal Webber's formulas (small p, long lists)."""
    rng = np.random.default_rng(9)
    for p in (0.1, 0.3):
        for _ in range(3):
            s, l = int(rng.integers(300, 700)), int(rng.integers(700, 900))
            S = [int(v) for v in rng.choice(1000, s, replace=False)]
            L = [int(v) for v in rng.choice(1000, l, replace=False)]
            ext, mn, mn_explicit, mx_explicit = brute_untied(S, L, p, depth=l + s + 50)
            r = rank_biased_overlap(S, L, p=p)
            # (Eq. 11's ln(1/(1-p)) − Σ_{d<=l} p^d/d cancels to rounding noise here: the explicit continuation is used)
            assert (r.ext, r.min, r.max) == pytest.approx((ext, mn_explicit, mx_explicit), abs=1e-15)


def test_untied_ext_against_pypi_rbo_where_it_imports():
    """PyPI `rbo` (changyaochen) declares numpy<2, so it is not in the [test] extra; where it imports anyway, its
    rbo_ext (Webber's Eq. 32, untied) is a peer reference."""
    rbo = pytest.importorskip("rbo", reason="PyPI rbo is not installed (it declares numpy<2, the stack pins numpy 2)")
    rng = np.random.default_rng(15)
    for _ in range(200):
        S, L = random_untied(rng)
        p = float(rng.choice([0.5, 0.9, 0.98]))
        assert rank_biased_overlap(S, L, p=p).ext == pytest.approx(rbo.RankingSimilarity(S, L).rbo_ext(p=p), abs=1e-12)
