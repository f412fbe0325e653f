"""Co-membership measures, Omega and the graph-aware forms against brute-force O(n²) references."""

import numpy as np
import pytest
import scipy.sparse as sp

from agreekit.clustering import (
    omega,
    adjusted_rand_index,
    adjusted_rand_index_approx,
    agreement_with_graph,
    ari_delta,
    comembership_stats,
    i_norm,
    i_sqrt_tr,
    omega_unadjusted,
    rand_index,
    ri_delta,
)


def random_cover(rng, n, k, max_memb=3, soft=False):
    """n x k membership matrix; every node in 1..max_memb clusters."""
    m = np.zeros((n, k))
    for i in range(n):
        cs = rng.choice(k, size=rng.integers(1, min(k, max_memb) + 1), replace=False)
        m[i, cs] = rng.random(cs.size) + 0.05 if soft else 1.0
    return m


def brute(U, V, exact):
    CU, CV = U @ U.T, V @ V.T
    n = CU.shape[0]
    if exact:
        np.fill_diagonal(CU, 0)
        np.fill_diagonal(CV, 0)
    P = n * n - n if exact else n * n
    sd = np.sum((CU - CV) ** 2)
    m = max(CU.max(), CV.max())
    su, sv = np.sum(CU**2), np.sum(CV**2)
    den = su + sv - 2 * CU.sum() * CV.sum() / P
    return {
        "ri": 1 - sd / (P * m * m) if P * m else 1.0,
        "ari": 1.0 if abs(den) < 1e-12 and sd < 1e-12 else 1 - sd / den,  # 0/0: identical
        "inorm": 1 - np.sqrt(sd) / (np.sqrt(su) + np.sqrt(sv)),
        "isqrt": np.sum(CU * CV) / np.sqrt(su * sv),
    }


def brute_omega(U, V):
    CU, CV = np.rint(U @ U.T).astype(int), np.rint(V @ V.T).astype(int)
    iu, ju = np.triu_indices(CU.shape[0], 1)
    a, b = CU[iu, ju], CV[iu, ju]
    N = a.size
    w = np.mean(a == b)
    t = max(a.max(), b.max()) + 1
    e = np.sum(np.bincount(a, minlength=t) * np.bincount(b, minlength=t)) / N**2
    return w, (w - e) / (1 - e)


def check_all(U, V, ref_U=None, ref_V=None, **kw):
    ref_U = U if ref_U is None else ref_U
    ref_V = V if ref_V is None else ref_V
    for exact in (True, False):
        ref = brute(ref_U, ref_V, exact)
        assert ri_delta(U, V, exact=exact, **kw) == pytest.approx(ref["ri"], abs=1e-12)
        assert ari_delta(U, V, exact=exact, **kw) == pytest.approx(ref["ari"], abs=1e-12)
        assert i_norm(U, V, exact=exact, **kw) == pytest.approx(ref["inorm"], abs=1e-12)
        assert i_sqrt_tr(U, V, exact=exact, **kw) == pytest.approx(ref["isqrt"], abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("soft", [False, True])
def test_delta_measures_match_brute_force(seed, soft):
    rng = np.random.default_rng(seed)
    n, k, r = [(2, 2, 2), (7, 3, 4), (30, 5, 4), (60, 8, 12), (120, 10, 6), (90, 2, 30)][seed]
    U = random_cover(rng, n, k, soft=soft)
    V = random_cover(rng, n, r, soft=soft)
    check_all(U, V)
    check_all(sp.csr_array(U), sp.coo_matrix(V), U, V)


@pytest.mark.parametrize("seed", range(8))
def test_omega_matches_brute_force_pair_count(seed):
    rng = np.random.default_rng(100 + seed)
    n, k, r = [(2, 1, 2), (5, 3, 3), (25, 4, 6), (40, 6, 3), (80, 10, 10), (150, 12, 20), (60, 3, 3), (200, 30, 8)][
        seed
    ]
    U = random_cover(rng, n, k, max_memb=min(k, 4))
    V = random_cover(rng, n, r, max_memb=min(r, 4))
    w, aw = brute_omega(U, V)
    assert omega_unadjusted(U, V) == pytest.approx(w, abs=1e-12)
    assert omega(U, V) == pytest.approx(aw, abs=1e-12)
    # as lists of clusters with string node ids, in shuffled order
    names = [f"node{i}" for i in range(n)]
    cover_u = [[names[i] for i in rng.permutation(np.flatnonzero(U[:, c]))] for c in range(k)]
    cover_v = [[names[i] for i in np.flatnonzero(V[:, c])] for c in rng.permutation(r)]
    assert omega(cover_u, cover_v) == pytest.approx(aw, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_disjoint_input_reduces_to_classic(seed):
    rng = np.random.default_rng(200 + seed)
    n = [1, 2, 10, 200, 1000][seed]
    u = rng.integers(0, max(1, n // 5), n)
    v = rng.integers(0, 4, n)
    assert ri_delta(u, v) == pytest.approx(rand_index(u, v), abs=1e-12)
    assert ari_delta(u, v) == pytest.approx(adjusted_rand_index(u, v), abs=1e-12)
    assert ari_delta(u, v, exact=False) == pytest.approx(adjusted_rand_index_approx(u, v), abs=1e-12)
    assert omega_unadjusted(u, v) == pytest.approx(rand_index(u, v), abs=1e-12)
    assert omega(u, v) == pytest.approx(adjusted_rand_index(u, v), abs=1e-12)
    # the same partitions given as covers go through the general (sparse Gram / pair-scan) path
    cu = [list(np.flatnonzero(u == c)) for c in np.unique(u)]
    cv = [list(np.flatnonzero(v == c)) for c in np.unique(v)]
    dense_u = np.eye(u.max() + 1)[u]
    assert ari_delta(dense_u, cv) == pytest.approx(adjusted_rand_index(u, v), abs=1e-12)
    assert omega(cu, cv) == pytest.approx(adjusted_rand_index(u, v), abs=1e-12)


def test_identical_overlapping_clusterings_agree_fully():
    rng = np.random.default_rng(5)
    U = random_cover(rng, 50, 6)
    for f in (ri_delta, ari_delta, i_norm, i_sqrt_tr):
        for exact in (True, False):
            assert f(U, U, exact=exact) == pytest.approx(1.0, abs=1e-12)
    assert omega_unadjusted(U, U) == 1.0
    assert omega(U, U) == 1.0


def random_graph(rng, n, p, weighted=False):
    A = np.triu((rng.random((n, n)) < p).astype(float), 1)
    if weighted:
        A *= rng.integers(1, 5, (n, n))
    return A + A.T


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weighted", [False, True])
def test_transform_mode_equals_explicit_incidence_transform(seed, weighted):
    rng = np.random.default_rng(300 + seed)
    n = [6, 15, 40, 70][seed]
    A = random_graph(rng, n, 0.3, weighted)
    U = random_cover(rng, n, 4, soft=seed % 2 == 1)
    V = random_cover(rng, n, 5)
    iu, ju = np.nonzero(np.triu(A, 1))
    N = np.zeros((n, iu.size))
    N[iu, np.arange(iu.size)] = np.sqrt(A[iu, ju])
    N[ju, np.arange(iu.size)] = np.sqrt(A[iu, ju])
    check_all(U, V, N.T @ U, N.T @ V, graph=sp.csr_array(A))
    # Gram shortcut statistics equal the statistics of the explicitly transformed matrices
    for exact in (True, False):
        a = comembership_stats(U, V, exact=exact, graph=A)
        b = comembership_stats(N.T @ U, N.T @ V, exact=exact)
        np.testing.assert_allclose(
            [a.s_u, a.s_v, a.s_uv, a.sum_u, a.sum_v, a.pairs, a.max_u, a.max_v],
            [b.s_u, b.s_v, b.s_uv, b.sum_u, b.sum_v, b.pairs, b.max_u, b.max_v],
            rtol=1e-12,
            atol=1e-9,
        )


@pytest.mark.parametrize("seed", range(3))
def test_plus_mode_and_agreement_with_graph(seed):
    rng = np.random.default_rng(400 + seed)
    n = [8, 25, 50][seed]
    A = random_graph(rng, n, 0.25)
    U = random_cover(rng, n, 3)
    V = random_cover(rng, n, 4)
    iu, ju = np.nonzero(np.triu(A, 1))
    N = np.zeros((n, iu.size))
    N[iu, np.arange(iu.size)] = 1
    N[ju, np.arange(iu.size)] = 1
    for exact in (True, False):
        for key, f in (("ri", ri_delta), ("ari", ari_delta), ("inorm", i_norm), ("isqrt", i_sqrt_tr)):
            a_uv = brute(U, V, exact)[key]
            a_un = brute(U, N, exact)[key]
            a_vn = brute(V, N, exact)[key]
            for alpha in (0.5, 0.2):
                expected = 1 - (alpha * (1 - a_uv) + (1 - alpha) * abs(a_un - a_vn))
                got = f(U, V, exact=exact, graph=A, mode="plus", direct_weight=alpha)
                assert got == pytest.approx(expected, abs=1e-12)
            assert agreement_with_graph(U, A, f, exact=exact) == pytest.approx(a_un, abs=1e-12)
    edges = list(zip(iu.tolist(), ju.tolist()))
    assert agreement_with_graph(U, edges, "ari_delta_approx") == pytest.approx(brute(U, N, False)["ari"], abs=1e-12)
    w, aw = brute_omega(U, N)
    assert agreement_with_graph(U, edges, "adjusted_omega") == pytest.approx(aw, abs=1e-12)


def test_exact_ri_uses_max_offdiagonal_squared():
    # overlapping cover where the largest co-membership (2) is off the diagonal
    V = [[0, 3, 4], [1, 2, 3], [2, 3, 4]]
    U = [[0, 3, 4], [1], [2]]
    st = comembership_stats(V, U, exact=True)
    assert st.max_u == 2.0 and st.max_v == 1.0
    assert st.pairs == 20
    # against the brute force of this file on the membership matrices (not the library's own statistics)
    MV, MU = np.zeros((5, 3)), np.zeros((5, 3))
    for k, c in enumerate(V):
        MV[c, k] = 1.0
    for k, c in enumerate(U):
        MU[c, k] = 1.0
    assert ri_delta(V, U) == pytest.approx(brute(MV, MU, exact=True)["ri"], abs=1e-15)


@pytest.mark.parametrize("seed", range(3))
def test_omega_with_many_identical_nodes_and_forced_hash_collisions(seed):
    """Grouping of identical nodes is exact, and a hash collision falls back to single nodes."""
    from agreekit.clustering._comembership import _cover_pair_counts

    rng = np.random.default_rng(600 + seed)
    n = [30, 200, 500][seed]
    U = random_cover(rng, n, 3, max_memb=2)  # few distinct rows: large groups
    V = random_cover(rng, n, 4, max_memb=2)
    w, aw = brute_omega(U, V)
    assert omega_unadjusted(U, V) == pytest.approx(w, abs=1e-12)
    assert omega(U, V) == pytest.approx(aw, abs=1e-12)
    Us, Vs = sp.csr_array(U), sp.csr_array(V)
    grouped = _cover_pair_counts(Us, Vs)
    collided = _cover_pair_counts(Us, Vs, hashes=np.zeros(n, dtype=np.uint64))  # every hash equal
    for a, b in zip(grouped, collided):
        np.testing.assert_array_equal(a, b)
