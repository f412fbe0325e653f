"""The vectorized fused kernel reproduces the scalar kernel the shipped tables were made with, bit for bit.

``_fused_oracle`` is a frozen copy of that kernel (main 7b015f1).  Every Γ value, the random stream
(SplitMix64 row seeding + Fisher–Yates) and the NaN pattern of inactive lanes must be identical.
"""

import numpy as np
import pytest

import _fused_oracle as oracle
from agreekit.ranking.tablegen import _fused
from agreekit.ranking.tablegen.sampling import sample_lanes, stream_key
from agreekit.ranking.weighting import parse_weigher

PAPER = ["harmonic", "inverse_square:n0=0", "inverse_square:n0=1", "inverse_square:n0=2"]
LANES = [(w, s) for s in ("additive", "multiplicative") for w in PAPER]


def _bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def _weights(n, kind, offset=0):
    """(n, C) C-contiguous weight table; ``offset`` (elements) shifts it off a 64-byte boundary."""
    if kind == "paper":
        cols = [parse_weigher(w).table(n) for w in PAPER]
    elif kind == "eight":  # two column groups
        cols = [parse_weigher(w).table(n) for w in PAPER + ["dcg", "power:p=1.5,n0=3", "power:p=0.5", "harmonic"]]
    else:  # arbitrary positive weights, no monotone structure
        cols = list(np.random.default_rng(n).uniform(0.01, 3.0, (4, n)))
    C = len(cols)
    buf = np.empty(n * C + 16)
    start = (-buf.ctypes.data % 64) // 8 + offset
    F = buf[start : start + n * C].reshape(n, C)
    F[:] = np.column_stack(cols)
    assert F.flags.c_contiguous
    return F


def _active(pattern, C, rows):
    a = np.zeros((2, C), np.int64)
    if pattern == "all":
        a[:] = rows
    elif pattern == "staggered":  # lanes stop at different rows, some never run
        a[:] = (np.arange(2 * C).reshape(2, C) * 7) % (rows + 1)
    elif pattern == "additive":
        a[0] = rows
    elif pattern == "multiplicative":
        a[1, : C // 2] = rows
    return a


CASES = [
    # (n, rows, kind, pattern, offset)
    (2, 9, "paper", "all", 0),
    (3, 9, "random", "staggered", 1),
    (11, 23, "paper", "all", 0),
    (12, 23, "random", "staggered", 0),
    (13, 7, "eight", "multiplicative", 3),
    (64, 9, "paper", "additive", 0),
    (65, 9, "random", "all", 2),
    (700, 6, "eight", "staggered", 0),
    (2620, 3, "paper", "all", 0),
    (9000, 3, "paper", "multiplicative", 1),  # the old kernel's two-pass Kendall path (n > 8192)
]


@pytest.mark.parametrize("coef", [_fused.SPEARMAN, _fused.KENDALL], ids=["spearman", "kendall"])
@pytest.mark.parametrize("n, rows, kind, pattern, offset", CASES)
def test_fused_kernel_is_bit_identical_to_the_scalar_oracle(coef, n, rows, kind, pattern, offset):
    F = _weights(n, kind, offset)
    C = F.shape[1]
    active = _active(pattern, C, rows)
    k0, k1 = stream_key(11 + n, "kendall" if coef else "spearman", n, "bitwise")
    r0 = 5  # the stream does not have to start at row 0
    want = np.full((2, C, rows), -1.0)
    got = np.full((2, C, rows), -2.0)
    oracle.fused_sample(coef, n, k0, k1, r0, rows, F, active, want)
    _fused.fused_sample(coef, n, k0, k1, r0, rows, F, active, got)
    assert np.array_equal(_bits(got), _bits(want))
    assert np.isnan(got).sum() == np.sum(active[:, :, None] <= np.arange(r0, r0 + rows)[None, None, :])


@pytest.mark.parametrize("n", [2, 11, 12, 257, 36119])
def test_permutation_stream_is_unchanged(n):
    k0, k1 = stream_key(3, "spearman", n)
    rows = 3 if n > 1000 else 40
    y_new = np.empty(n, np.int32)
    y_old = np.empty(n, np.int32)
    for r in range(rows):
        s_new = _fused.fisher_yates(np.uint64(_fused.row_state(k0, k1, r)), y_new)
        s_old = oracle.fisher_yates(np.uint64(oracle.row_state(k0, k1, r)), y_old)
        assert s_new == s_old
        assert np.array_equal(y_new, y_old)
    assert np.array_equal(_fused.permutation_rows(n, k0, k1, 0, rows)[-1], y_old)


@pytest.mark.parametrize("coefficient", ["spearman", "kendall"])
@pytest.mark.parametrize("n", [12, 36119])
def test_sample_lanes_matches_the_oracle_at_the_benchmark_sizes(coefficient, n):
    # the public entry point (weight table, batching, lane bookkeeping) on the paper's eight schemes;
    # n = 36119 is the benchmark's length
    sizes = [3, 2, 3, 1, 3, 3, 2, 3] if n > 1000 else [40, 17, 40, 3, 40, 40, 9, 40]
    key = stream_key(1, coefficient, n, "bench")
    got = sample_lanes(coefficient, n=n, sizes=sizes, lanes=LANES, key=key, batch_elements=2 * n)
    F = np.ascontiguousarray(np.column_stack([parse_weigher(w).table(n) for w in PAPER]))
    active = np.array([sizes[:4], sizes[4:]], np.int64)
    want = np.empty((2, 4, max(sizes)))
    oracle.fused_sample(
        _fused.SPEARMAN if coefficient == "spearman" else _fused.KENDALL,
        n,
        key[0],
        key[1],
        0,
        max(sizes),
        F,
        active,
        want,
    )
    for s, (m, c) in enumerate((m, c) for m in range(2) for c in range(4)):
        assert np.array_equal(_bits(got[s]), _bits(want[m, c, : sizes[s]]))


@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 8, 9, 16, 17, 100, 1023, 1024, 1025])
def test_heap_order_tree_matches_fenwick_paths(n):
    # every (rank p, level k) pair: the slot the kernel uses, (M + p) >> (k + 1), is the node the
    # pointer-walk Fenwick tree reads (bit k of p set) or updates (bit clear), slots of different nodes
    # never collide, and every slot lies in the range _clear_tree zeroes
    K = _fused.tree_levels(n)
    M = 1 << K
    assert M // 2 <= max(n - 1, 1) < M  # at most 2n slots of address space (about n of them touched)
    cleared = set()
    for k in range(K):
        lo = M >> (k + 1)
        cleared |= set(range(lo, lo + ((n - 1) >> (k + 1)) + 1))
    seen = {}
    for p in range(n):
        query = set()
        j = p
        while j > 0:
            query.add(j)
            j -= j & -j
        update = set()
        j = p + 1
        while j <= n:
            update.add(j)
            j += j & -j
        for k in range(K):
            node = (2 * (p >> (k + 1)) + 1) << k
            slot = (M + p) >> (k + 1)
            assert M >> (k + 1) <= slot < M >> k and slot in cleared
            assert seen.setdefault(slot, node) == node
            if (p >> k) & 1:
                assert node in query
            elif node <= n:
                assert node in update
        # every node the walk reads is at a level < K, so the tree sees all of them
        assert query == {(2 * (p >> (k + 1)) + 1) << k for k in range(K) if (p >> k) & 1}
        assert {u for u in update if u <= n - 1} <= {(2 * (p >> (k + 1)) + 1) << k for k in range(K)}
    assert len(seen) == len(cleared)  # _clear_tree zeroes exactly the slots in use


@pytest.mark.parametrize("coefficient", ["spearman", "kendall"])
def test_shipped_tables_sample_means_are_reproduced(coefficient):
    # end to end against the data the tables were built from: the stored sample means at the
    # first, a middle and the last training n (36119) are recomputed exactly from the moment stream
    # (the null quantiles have their own stream: tests/test_ranking_quantile_tables.py)
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "src" / "agreekit" / "data" / "tables"
    tabs = [json.loads(p.read_text()) for p in sorted(root.glob(f"{coefficient}_*.json"))]
    assert len(tabs) == 8
    seed = tabs[0]["provenance"]["seed"]
    grid = tabs[0]["samples"]["n"]
    for k in (0, len(grid) // 2, len(grid) - 1):
        n = grid[k]
        sizes = [t["samples"]["size"][k] for t in tabs]
        got = sample_lanes(
            coefficient,
            n=n,
            sizes=sizes,
            lanes=[(t["weigher"], t["scheme"]) for t in tabs],
            key=stream_key(seed, coefficient, n),
        )
        for t, g in zip(tabs, got):
            assert t["samples"]["n"][k] == n and t["provenance"]["seed"] == seed
            assert float(np.sum(g)) / g.size == t["samples"]["mean"][k]
