"""agreekit._jit: interpreted / serial / declared kernels give the same bits, and the policy.

Every call site that lets :func:`agreekit._jit.pick` choose is run here in the three modes
(``AGREEKIT_JIT``-equivalent :func:`agreekit._jit.forced`) on random inputs, and the results
must be identical (``==`` on floats, not approximately equal): the interpreted kernel is
the same source run by CPython, the serial twin the same source without ``parallel``.
"""

from __future__ import annotations

import warnings

import numba as nb
import numpy as np
import pytest

from agreekit import _jit
from agreekit.clustering import adjusted_mutual_info, adjusted_rand_index, lfr_benchmark
from agreekit.consensus import kemeny
from agreekit.ireval import bootstrap as bs
from agreekit.ranking import exact_moments, weighted_correlation, weighted_correlation_test
from agreekit.ranking.correlation import batch_coefficient

MODES = ("interpreted", "serial", "compiled")


def _in_modes(call):
    out = {}
    for mode in MODES:
        with _jit.forced(mode):
            out[mode] = call()
    return out


def _same(results):
    ref = results["compiled"]
    for mode, value in results.items():
        assert _equal(value, ref), mode


def _equal(a, b):
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    a = np.asarray(a)
    b = np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))


def _kemeny_key(r):
    return (r.solutions.tolist(), r.average_tau_x, r.penalty, r.proven, r.exhaustive, r.solver, r.blocks)


@pytest.mark.parametrize(
    "kw",
    [
        dict(n=1000, rng=1),  # communities rebuilt: their first wiring deleted from the edge set
        dict(n=500, overlapping_nodes=100, overlapping_memberships=3, mu=0.3, mu_weights=0.2, rng=8),
    ],
)
def test_lfr_same_in_every_mode_and_numpy_global_state_kept(kw):
    """The LFR kernels chosen by pick() (membership assignment, edge deletion) give the same graph
    in every mode; interpreted, their ``np.random.seed`` must not touch numpy's global generator
    (the next global draw is the one after seeding it ourselves) and the edge-set hash's modular
    uint64 products must not warn."""
    np.random.seed(123)
    expected = np.random.random(2)
    out = {}
    for mode in MODES:
        np.random.seed(123)
        with _jit.forced(mode), warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            g = lfr_benchmark(**kw)
        assert np.random.random(2).tolist() == expected.tolist(), mode
        out[mode] = (g.edges, np.zeros(0) if g.weights is None else g.weights, *g.communities, g.realized_mu)
    _same(out)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("method", ["exact", "quick", "fast"])
def test_consensus_same_in_every_mode(seed, method):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(3, 7))
    X = rng.integers(1, m + 1, size=(int(rng.integers(3, 9)), m)).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan  # partial rankings
    X[np.isnan(X).all(axis=1), 0] = 1.0
    w = rng.integers(1, 4, size=X.shape[0]).astype(float)
    kw = dict(method=method, weights=w, rng=seed)
    if method == "fast":
        kw["n_starts"] = 20
    _same(_in_modes(lambda: _kemeny_key(kemeny(X, **kw))))


@pytest.mark.parametrize("coefficient", ["spearman", "kendall"])
@pytest.mark.parametrize("scheme", ["additive", "multiplicative"])
def test_ranking_same_in_every_mode(coefficient, scheme):
    rng = np.random.default_rng(7)
    kw = dict(coefficient=coefficient, weigher="inverse_square:n0=1", scheme=scheme)

    def perm(n):
        return rng.permutation(n) + 1

    x, y, x30, y30, x8, y8, x40, y40 = perm(60), perm(60), perm(30), perm(30), perm(8), perm(8), perm(40), perm(40)
    t = rng.integers(1, 20, 60)  # ties
    P = np.array([perm(30) for _ in range(40)])
    _same(
        _in_modes(
            lambda: (
                weighted_correlation(x, y, **kw),
                weighted_correlation(x30, y30, **kw),
                weighted_correlation(t, y, **kw),
                batch_coefficient(P, **kw),
            )
        )
    )
    m = _in_modes(lambda: exact_moments(coefficient, n=7, weigher="harmonic", scheme=scheme))
    _same({k: (v.mean, v.var, v.left_var) for k, v in m.items()})
    p = _in_modes(lambda: weighted_correlation_test(x8, y8, method="exact", **kw).pvalue)
    _same(p)
    mc = _in_modes(
        lambda: weighted_correlation_test(x40, y40, method="monte-carlo", n_resamples=300, rng=3, **kw).pvalue
    )
    _same(mc)


def test_clustering_same_in_every_mode():
    rng = np.random.default_rng(3)
    u = rng.integers(0, 6, 300)
    v = rng.integers(0, 9, 300)
    _same(_in_modes(lambda: (adjusted_rand_index(u, v), adjusted_mutual_info(u, v))))


@pytest.mark.parametrize("n", [5, 8, 13])
def test_paired_bootstrap_numpy_path_is_the_kernel_bit_for_bit(n):
    # n = 8: a multiple of the four partial sums; 5, 13: with a remainder
    rng = np.random.default_rng(n)
    X = rng.uniform(size=(n, 7))
    X[:, 3] = X[:, 2]  # identical systems: degenerate pair (t = 0)
    X[:, 4] = X[:, 1] + 0.25  # constant difference: t = ±inf
    X[: n // 2, 5] = X[: n // 2, 0]  # many zero differences
    pa, pb = np.triu_indices(7, 1)
    pa, pb = pa.astype(np.int64), pb.astype(np.int64)
    B, k = 203, 11
    idx = rng.integers(0, n, size=(B, n))

    def batches():
        return ((lo, idx[lo : lo + 64]) for lo in range(0, B, 64))

    ref = _in_modes(lambda: bs._paired_all_pairs_stream(X, pa, pb, B, batches(), k))
    _same(ref)
    direct = bs._paired_stream_numpy(X, pa, pb, B, batches(), k)
    assert _equal(direct, ref["compiled"])
    # and the in-memory reference (a different kernel, the one the stream was checked against)
    with _jit.forced("compiled"):
        mem = bs._paired_all_pairs(X, pa, pb, idx, k)
    assert _equal(mem, ref["compiled"])


def test_pick_interprets_small_work_then_compiles_once_the_budget_is_spent(monkeypatch):
    @nb.njit  # a fresh kernel (no cache): never compiled before
    def add_one(a):
        for i in range(a.size):
            a[i] += 1.0
        return a

    monkeypatch.delenv("AGREEKIT_JIT", raising=False)
    a = np.zeros(3)
    first = _jit.pick(add_one, 1000)
    assert first is _jit.interpreted(add_one) and not isinstance(first, nb.core.dispatcher.Dispatcher)
    first(a)
    assert add_one.signatures == []  # nothing compiled
    for _ in range(_jit.INTERPRET_BUDGET // 1000 - 1):
        assert _jit.pick(add_one, 1000) is first
    assert _jit.pick(add_one, 1000) is add_one  # budget spent: compile
    add_one(a)
    assert add_one.signatures
    assert _jit.pick(add_one, 1) is add_one  # compiled: always the compiled kernel from now on


def test_pick_takes_the_parallel_kernel_for_large_work_and_serial_twin_otherwise():
    @nb.njit(parallel=True)
    def psum(a, out):
        for i in nb.prange(a.size):
            out[i] = a[i] * 2.0

    twin = _jit.serial(psum)
    assert twin is not psum and not twin.targetoptions.get("parallel", False)
    assert twin.py_func.__qualname__.endswith("__serial")
    assert _jit.pick(psum, _jit.PARALLEL_ABOVE) is psum
    assert _jit.pick(psum, _jit.INTERPRET_BUDGET + 1) is twin
    a = np.arange(5.0)
    o1, o2 = np.empty(5), np.empty(5)
    psum(a, o1)
    twin(a, o2)
    assert np.array_equal(o1, o2)


def test_interpreted_kernels_call_interpreted_kernels():
    @nb.njit
    def inner(x):
        return x * 3

    @nb.njit
    def outer(x):
        return inner(x) + 1

    assert _jit.interpreted(outer)(2) == 7
    assert inner.signatures == [] and outer.signatures == []


def test_bad_mode_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("AGREEKIT_JIT", "fast")
    with pytest.raises(ValueError, match="AGREEKIT_JIT must be one of auto, compiled, serial, interpreted"):
        _jit.pick(_jit.serial, 1)  # the mode is read first
    with pytest.raises(ValueError, match="mode must be one of"):
        with _jit.forced("nope"):
            pass


@pytest.mark.parametrize("coefficient", ["spearman", "kendall"])
def test_exact_counts_same_in_every_mode(coefficient):
    # counting kernel of the n = 11, 12 exact p-values (bools added as ints in every mode)
    from agreekit.ranking import _kernels as K
    from agreekit.ranking._exact_null import exact_counts as _exact_counts
    from agreekit.ranking.weighting import parse_weigher

    coef = K.SPEARMAN if coefficient == "spearman" else K.KENDALL
    F = parse_weigher("harmonic").table(7)
    _same(_in_modes(lambda: _exact_counts(7, F, coef, False, -0.3, 0.2, False)))


def test_metaeval_and_gather_kernels_numpy_versions_are_bit_identical():
    from agreekit.ireval import _kernels as IK
    from agreekit.metaeval import _kernels as MK

    rng = np.random.default_rng(11)
    S = rng.integers(0, 6, size=(40, 23)) / 7.0  # many exact ties
    S[:, 5] = S[:, 4] * (1 + 1e-14)  # near-ties within TIE_TOL
    _same(_in_modes(lambda: _jit.pick(MK.average_ranks_desc, 1)(S, MK.TIE_TOL)))
    with _jit.forced("compiled"):
        RA = MK.average_ranks_desc(np.concatenate([S, S[::-1], S[:, ::-1]])[:, :23], MK.TIE_TOL)
    RA = RA.reshape(3, 40, 23)
    FW = 1.0 / (RA + 1.0)
    pa, pb = (a.astype(np.int64) for a in np.triu_indices(3, 1))
    for mult in (False, True):
        _same(_in_modes(lambda: _jit.pick(MK.pair_correlations, 1)(RA, FW, pa, pb, mult)))
    X = rng.normal(size=(17, 9))
    idx = rng.integers(-2, 19, size=(30, 17))  # out-of-range rows add nothing
    _same(_in_modes(lambda: _jit.pick(IK.gather_sum, 1)(idx, X)))


def test_top_k_overlap_same_in_every_mode():
    from agreekit.metaeval import _kernels as MK

    rng = np.random.default_rng(2)
    RA = rng.integers(1, 12, size=(3, 5, 14)).astype(float)  # tied ranks
    pa, pb = (a.astype(np.int64) for a in np.triu_indices(3, 1))
    _same(_in_modes(lambda: _jit.pick(MK.top_k_overlap, 1)(RA, pa, pb, 4)))


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
@pytest.mark.parametrize("descending", [False, True])
def test_stable_order_is_numpys_stable_argsort(dtype, descending):
    from agreekit._sorting import stable_order

    rng = np.random.default_rng(4)
    for n in [0, 1, 2, 3, 7, 8, 33, 200]:
        for _ in range(5):
            v = rng.integers(-3, 4, n).astype(dtype)  # many ties
            for run in (stable_order, _jit.interpreted(stable_order)):
                idx = np.empty(n, np.int64)
                run(v, n, idx, np.empty(n, np.int64), descending)
                ref = np.argsort(-v if descending else v, kind="stable")
                assert np.array_equal(idx, ref)
