"""Overlapping NMI (NMI′ of Lancichinetti et al. 2009, NMI″ of McDaid et al. 2011).

References: the seed's Figure 2(b) values, a brute-force transcription of the papers' formulas
over all cluster pairs, and cdlib's overlapping_normalized_mutual_information_LFK / _MGH.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from agreekit._validation import InputError
from agreekit.clustering import overlapping_nmi

DATA = Path(__file__).resolve().parents[1] / "resources" / "clustering" / "fig2b_matching.json"


# --- brute force, straight from LFK appendix B and McDaid et al. eq. (2)-(4) ---------------
def brute_force(X, Y, n, variant, overlapping_pairs_only=False):
    def h(c):
        return 0.0 if c == 0 else -(c / n) * math.log(c / n)

    def H(s):
        return h(len(s)) + h(n - len(s))

    def cond(x, cover):
        best = H(x)
        for y in cover:
            o = len(x & y)
            if overlapping_pairs_only and o == 0:
                continue
            p11, p10, p01, p00 = o, len(x) - o, len(y) - o, n - len(x) - len(y) + o
            if h(p11) + h(p00) > h(p01) + h(p10):
                best = min(best, h(p11) + h(p10) + h(p01) + h(p00) - H(y))
        return best

    if variant == "lfk":

        def side(A, B):
            return sum((cond(x, B) / H(x)) if H(x) > 0 else 1.0 for x in A) / len(A)

        return 1 - 0.5 * (side(X, Y) + side(Y, X))
    hx, hy = sum(H(x) for x in X), sum(H(y) for y in Y)
    i = 0.5 * (hx - sum(cond(x, Y) for x in X) + hy - sum(cond(y, X) for y in Y))
    return i / max(hx, hy)


def random_cover(rng, nodes, k):
    cover = []
    for _ in range(k):
        kind = rng.random()
        if kind < 0.15:  # a big cluster (most nodes): disjoint pairs can then be admissible
            size = rng.integers(max(1, int(0.6 * len(nodes))), len(nodes) + 1)
        else:
            size = rng.integers(1, max(2, len(nodes) // 3) + 1)
        cover.append(set(rng.choice(nodes, size=min(size, len(nodes)), replace=False).tolist()))
    return cover


def cover_pairs(count=300, seed=20261201):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(2, 80))
        nodes = np.arange(n)
        X = random_cover(rng, nodes, int(rng.integers(1, 9)))
        Y = random_cover(rng, nodes, int(rng.integers(1, 9)))
        out.append((X, Y))
    return out


PAIRS = cover_pairs()


def universe(X, Y):
    return len(set().union(*X, *Y))


# --- seed Figure 2(b) ----------------------------------------------------------------------
def fig2b():
    d = json.loads(DATA.read_text())
    return d["clusterings"], d["other_checks"]["seed_fig2b_caption"]


def test_seed_figure_2b_values():
    cl, caption = fig2b()
    V = cl["V"]
    got = {(m, u): overlapping_nmi(cl[u], V, variant=m) for m in ("lfk", "mgh") for u in ("U1", "U2")}
    # full values (issue 11): NMI' 0.610 / 0.628, NMI'' 0.538 / 0.616
    assert [round(got["lfk", "U1"], 3), round(got["lfk", "U2"], 3)] == [0.610, 0.628]
    assert [round(got["mgh", "U1"], 3), round(got["mgh", "U2"], 3)] == [0.538, 0.616]
    # the seed prints them truncated (not rounded) to two decimals
    for (m, u), key in {
        ("lfk", "U1"): "NMI_LFK(U1,V)",
        ("lfk", "U2"): "NMI_LFK(U2,V)",
        ("mgh", "U1"): "NMI_MGH(U1,V)",
        ("mgh", "U2"): "NMI_MGH(U2,V)",
    }.items():
        assert math.floor(got[m, u] * 100) / 100 == pytest.approx(caption[key], abs=1e-12)
    # the seed's point: both overlapping NMIs prefer U2, the classic NMI prefers U1
    assert got["lfk", "U2"] > got["lfk", "U1"] and got["mgh", "U2"] > got["mgh", "U1"]
    for m in ("lfk", "mgh"):
        for u in ("U1", "U2"):
            assert overlapping_nmi(cl[u], V, variant=m) == pytest.approx(
                brute_force([set(c) for c in cl[u]], [set(c) for c in V], 11, m), abs=1e-14
            )


# --- brute force ---------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["lfk", "mgh"])
def test_against_brute_force_on_random_covers(variant):
    for X, Y in PAIRS:
        n = universe(X, Y)
        assert overlapping_nmi([sorted(c) for c in X], [sorted(c) for c in Y], variant=variant) == pytest.approx(
            brute_force(X, Y, n, variant), abs=1e-12
        )


def test_explicit_node_universe_and_uncovered_nodes():
    rng = np.random.default_rng(5)
    for _ in range(50):
        n = int(rng.integers(3, 40))
        X = random_cover(rng, np.arange(n - 2), 4)  # nodes n-2, n-1 in no cluster of either cover
        Y = random_cover(rng, np.arange(n - 2), 3)
        for variant in ("lfk", "mgh"):
            got = overlapping_nmi([sorted(c) for c in X], [sorted(c) for c in Y], variant=variant, nodes=range(n))
            assert got == pytest.approx(brute_force(X, Y, n, variant), abs=1e-12)
    # a membership matrix with an all-zero row: that node is uncovered, n = number of rows
    U = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    V = np.array([[1], [1], [0], [0]])
    assert overlapping_nmi(U, V) == pytest.approx(brute_force([{0, 1}, {1, 2}], [{0, 1}], 4, "lfk"), abs=1e-14)


def test_disjoint_admissible_pairs_occur_and_count():
    """The LFK minimum runs over all Y_l (appendix B), disjoint ones included: they are admissible
    when one cluster holds most nodes.  McDaid's C++ onmi only visits overlapping pairs (its overlap
    map stores non-zero cells), so it differs from the definition on such covers."""
    differ = 0
    for X, Y in PAIRS:
        n = universe(X, Y)
        if any(
            brute_force(X, Y, n, v) != pytest.approx(brute_force(X, Y, n, v, overlapping_pairs_only=True), abs=1e-12)
            for v in ("lfk", "mgh")
        ):
            differ += 1
    assert differ >= 5  # 8 of the 300 random pairs
    # X = {0}, Y = {1..84} of n = 100 are disjoint yet admissible: h(.15) > h(.01) + h(.84)
    X, Y = [{0}], [set(range(1, 85))]
    full = brute_force(X, Y, 100, "mgh")
    assert full > 0.01
    assert brute_force(X, Y, 100, "mgh", overlapping_pairs_only=True) == 0.0
    assert overlapping_nmi([[0]], [list(range(1, 85))], variant="mgh", nodes=range(100)) == pytest.approx(
        full, abs=1e-14
    )


# --- cdlib ------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["lfk", "mgh"])
def test_against_cdlib_on_random_covers(variant):
    pytest.importorskip("cdlib")  # test extra
    from cdlib import NodeClustering
    from cdlib.evaluation import (
        overlapping_normalized_mutual_information_LFK,
        overlapping_normalized_mutual_information_MGH,
    )

    peer = (
        overlapping_normalized_mutual_information_LFK
        if variant == "lfk"
        else overlapping_normalized_mutual_information_MGH
    )
    # 100 random pairs (cdlib's pure-Python loop is slow) and a disjoint admissible pair
    for X, Y in PAIRS[:100] + [([{0}, {100}, set(range(50, 99))], [set(range(1, 85)), {0, 99, 100}])]:
        ref = peer(NodeClustering([sorted(c) for c in X], None), NodeClustering([sorted(c) for c in Y], None)).score
        got = overlapping_nmi([sorted(c) for c in X], [sorted(c) for c in Y], variant=variant)
        assert got == pytest.approx(ref, abs=1e-12)


def test_cdlib_on_figure_2b():
    pytest.importorskip("cdlib")
    from cdlib import NodeClustering
    from cdlib.evaluation import (
        overlapping_normalized_mutual_information_LFK,
        overlapping_normalized_mutual_information_MGH,
    )

    cl, _ = fig2b()
    for u in ("U1", "U2"):
        a, b = NodeClustering(cl[u], None), NodeClustering(cl["V"], None)
        assert overlapping_nmi(cl[u], cl["V"]) == pytest.approx(
            overlapping_normalized_mutual_information_LFK(a, b).score, abs=1e-14
        )
        assert overlapping_nmi(cl[u], cl["V"], variant="mgh") == pytest.approx(
            overlapping_normalized_mutual_information_MGH(a, b).score, abs=1e-14
        )


# --- properties and conventions -------------------------------------------------------------
def test_symmetry_identity_and_partitions():
    rng = np.random.default_rng(8)
    for X, Y in PAIRS[:60]:
        Xl, Yl = [sorted(c) for c in X], [sorted(c) for c in Y]
        for v in ("lfk", "mgh"):
            assert overlapping_nmi(Xl, Yl, variant=v) == pytest.approx(overlapping_nmi(Yl, Xl, variant=v), abs=1e-14)
            assert overlapping_nmi(Xl, Xl[::-1], variant=v) == 1.0
            assert 0.0 <= overlapping_nmi(Xl, Yl, variant=v) <= 1.0
    u, w = rng.integers(0, 4, 50), rng.integers(0, 3, 50)
    cover_u = [np.flatnonzero(u == c).tolist() for c in range(4)]
    cover_w = [np.flatnonzero(w == c).tolist() for c in range(3)]
    assert overlapping_nmi(u, w) == pytest.approx(overlapping_nmi(cover_u, cover_w), abs=1e-14)


def test_whole_node_set_cluster_conventions():
    # H(X_k) = 0: term 1 in the LFK sum (LFK program, McDaid's onmi, cdlib); identical covers give 1
    X = [[0, 1, 2, 3], [0, 1]]
    Y = [[0, 1], [2, 3]]
    assert overlapping_nmi(X, Y) == pytest.approx(brute_force([set(c) for c in X], [set(c) for c in Y], 4, "lfk"))
    assert overlapping_nmi(X, X[::-1]) == 1.0
    assert overlapping_nmi([[0, 1, 2]], [[0, 1, 2]], variant="mgh") == 1.0
    assert overlapping_nmi([[0, 1, 2]], [[0, 1, 2]], variant="lfk") == 1.0
    assert overlapping_nmi([[0, 1, 2]], [[0], [1, 2]], variant="mgh") == 0.0


def test_errors():
    with pytest.raises(InputError, match="variant"):
        overlapping_nmi([[0, 1]], [[0, 1]], variant="max")
    with pytest.raises(InputError, match="soft"):
        overlapping_nmi(np.array([[0.5, 0.5], [1.0, 0.0]]), [0, 1])
    with pytest.raises(InputError, match="V"):
        overlapping_nmi([0, 1, 1], [0, 1])
    with pytest.raises(InputError, match="nodes"):
        overlapping_nmi([[0, 1], [5]], [[0, 1]], nodes=range(3))


def test_large_cover_is_fast_and_matches_a_sampled_brute_force():
    rng = np.random.default_rng(3)
    n, k = 20000, 400
    labels = rng.integers(0, k, n)
    second = rng.random(n) < 0.2
    lab2 = rng.integers(0, k, n)
    X = [set(np.flatnonzero((labels == c) | (second & (lab2 == c))).tolist()) for c in range(k)]
    moved = labels.copy()
    mv = rng.random(n) < 0.3
    moved[mv] = rng.integers(0, k, int(mv.sum()))
    Y = [set(np.flatnonzero(moved == c).tolist()) for c in range(k)] + [set(range(n // 2))]
    for v in ("lfk", "mgh"):
        assert overlapping_nmi([sorted(c) for c in X], [sorted(c) for c in Y], variant=v) == pytest.approx(
            brute_force(X, Y, n, v), abs=1e-12
        )


# --- exact ties of the strict admissibility test ---------------------------------------------
# The definition evaluated without rounding: admissibility h(P11) + h(P00) > h(P01) + h(P10) as a
# comparison of integers (multiply by n and exponentiate: n^(c11+c00) c01^c01 c10^c10 >
# n^(c01+c10) c11^c11 c00^c00), the entropies with mpmath at 50 digits.
def exact_definition(X, Y, n, variant):
    import mpmath

    with mpmath.workdps(50):

        def h(c):
            return mpmath.mpf(0) if c == 0 else -(mpmath.mpf(c) / n) * mpmath.log(mpmath.mpf(c) / n)

        def H(s):
            return h(len(s)) + h(n - len(s))

        def cond(x, cover):
            best = H(x)
            for y in cover:
                o = len(x & y)
                c11, c10, c01, c00 = o, len(x) - o, len(y) - o, n - len(x) - len(y) + o
                if n ** (c11 + c00) * c01**c01 * c10**c10 > n ** (c01 + c10) * c11**c11 * c00**c00:
                    best = min(best, h(c11) + h(c10) + h(c01) + h(c00) - H(y))
            return best

        if variant == "lfk":

            def side(A, B):
                return sum((cond(x, B) / H(x)) if H(x) > 0 else 1 for x in A) / len(A)

            value = 1 - (side(X, Y) + side(Y, X)) / 2
        else:
            hx, hy = sum(H(x) for x in X), sum(H(y) for y in Y)
            value = (hx - sum(cond(x, Y) for x in X) + hy - sum(cond(y, X) for y in Y)) / 2 / max(hx, hy)
        return min(max(float(value), 0.0), 1.0)


def exact_ties(X, Y, n):
    """Number of cluster pairs whose two sides of the admissibility test are equal as real numbers."""
    count = 0
    for x in X:
        for y in Y:
            o = len(x & y)
            c11, c10, c01, c00 = o, len(x) - o, len(y) - o, n - len(x) - len(y) + o
            count += n ** (c11 + c00) * c01**c01 * c10**c10 == n ** (c01 + c10) * c11**c11 * c00**c00
    return count


TIE_U = [[0, 1, 2, 3], list(range(4, 16))]
TIE_V = [[0, 1, 4, 5, 6, 7], [2, 3] + list(range(8, 16))]


def tie_pairs(count=300, seed=20261204):
    """Random covers of 16 nodes (half with even cluster sizes: many exact ties) and the tie case."""
    rng = np.random.default_rng(seed)
    out = [([set(c) for c in TIE_U], [set(c) for c in TIE_V])]
    for i in range(count):

        def cover():
            sizes = (
                2 * rng.integers(1, 8, size=rng.integers(1, 5))
                if i % 2
                else rng.integers(1, 16, size=rng.integers(1, 5))
            )
            return [set(rng.choice(16, size=int(s), replace=False).tolist()) for s in sizes]

        out.append((cover(), cover()))
    return out


def test_exact_tie_case_is_not_admissible():
    # the two sides are equal in exact arithmetic for (U_1, V_1): 16^8 4^4 = 16^8 2^2 2^2 ... (integers)
    X, Y = [set(c) for c in TIE_U], [set(c) for c in TIE_V]
    assert exact_ties(X, Y, 16) >= 1
    for variant in ("lfk", "mgh"):
        assert exact_definition(X, Y, 16, variant) == 0.0
        assert overlapping_nmi(TIE_U, TIE_V, variant=variant) == 0.0
    # every count scaled by m keeps the tie (both sides gain the factor m^(m n)); up to n = 10^5
    for m in (3, 7, 1000, 6250):
        U = [list(range(4 * m)), list(range(4 * m, 16 * m))]
        V = [list(range(2 * m)) + list(range(4 * m, 8 * m)), list(range(2 * m, 4 * m)) + list(range(8 * m, 16 * m))]
        for variant in ("lfk", "mgh"):
            assert overlapping_nmi(U, V, variant=variant) == 0.0, (m, variant)


def test_exact_ties_against_the_definition_and_cdlib():
    pytest.importorskip("cdlib")  # test extra
    from cdlib import NodeClustering
    from cdlib.evaluation import (
        overlapping_normalized_mutual_information_LFK,
        overlapping_normalized_mutual_information_MGH,
    )

    peers = {"lfk": overlapping_normalized_mutual_information_LFK, "mgh": overlapping_normalized_mutual_information_MGH}
    pairs = tie_pairs()
    with_ties = 0
    for X, Y in pairs:
        n = universe(X, Y)
        with_ties += exact_ties(X, Y, n) > 0
        Xl, Yl = [sorted(c) for c in X], [sorted(c) for c in Y]
        for variant, peer in peers.items():
            ref = exact_definition(X, Y, n, variant)
            got = overlapping_nmi(Xl, Yl, variant=variant)
            assert got == pytest.approx(ref, abs=1e-12), (X, Y, variant)
            assert got == pytest.approx(peer(NodeClustering(Xl, None), NodeClustering(Yl, None)).score, abs=1e-12)
    assert len(pairs) == 301 and with_ties >= 60  # the pairs do exercise exact ties
