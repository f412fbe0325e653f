"""Seed Tables 1-3 and the worked examples' other test vectors, from tests/data/clustering."""

import json
from pathlib import Path

import numpy as np
import pytest

from agreekit.clustering import (
    SEED_TABLE_COLUMNS,
    omega,
    adjusted_rand_index,
    adjusted_rand_index_approx,
    ari_delta,
    contingency_table,
    f_measure,
    generalized_distance,
    i_norm,
    i_sqrt_tr,
    jaccard_index,
    normalized_mutual_info,
    omega_unadjusted,
    rand_index,
    ri_delta,
    seed_table,
    variation_of_information,
)

DATA = Path(__file__).parent / "data" / "clustering"
EXAMPLES = ["fig1_structure", "fig2a_omega", "fig2b_matching"]


def load(name):
    return json.loads((DATA / f"{name}.json").read_text())


@pytest.fixture(scope="module")
def tables():
    return {name: {r["row"]: r for r in seed_table(load(name))} for name in EXAMPLES}


def test_all_162_cells_within_tolerance(tables):
    n_cells = 0
    worst = 0.0
    for name in EXAMPLES:
        ex = load(name)
        printed = ex["expected_table_values"]
        assert set(printed) == set(tables[name])
        for row, values in printed.items():
            for col, expected in zip(ex["columns"], values):
                ours = tables[name][row][col]
                diff = abs(ours - expected)
                worst = max(worst, diff)
                # 5e-4 (+ float representation slack for the one exact rounding tie)
                assert diff <= 5e-4 + 1e-12, (name, row, col, ours, expected)
                n_cells += 1
    assert n_cells == 162
    assert worst <= 5e-4 + 1e-12


def test_cells_match_full_precision_reproduction(tables):
    for name in EXAMPLES:
        ex = load(name)
        for row, values in ex["reproduced_values_full_precision"].items():
            ours = [tables[name][row][c] for c in SEED_TABLE_COLUMNS]
            np.testing.assert_allclose(ours, values, atol=1e-6, err_msg=f"{name} {row}")


def test_the_rounding_tie(tables):
    # Table 2, bot(V,U2|G), RI_delta: exactly 0.9125, printed 0.913 (round half up)
    v = tables["fig2a_omega"]["bot(V,U2|G)"]["RI_delta"]
    assert v == pytest.approx(0.9125, abs=1e-12)
    assert load("fig2a_omega")["expected_table_values"]["bot(V,U2|G)"][0] == 0.913


def test_every_other_cell_rounds_to_the_printed_value(tables):
    mismatches = []
    for name in EXAMPLES:
        ex = load(name)
        for row, values in ex["expected_table_values"].items():
            for col, expected in zip(ex["columns"], values):
                if round(tables[name][row][col], 3) != pytest.approx(expected, abs=1e-9):
                    mismatches.append((name, row, col))
    assert mismatches == [("fig2a_omega", "bot(V,U2|G)", "RI_delta")]


def test_structure_example_candidates_tie_without_graph():
    ex = load("fig1_structure")
    c = ex["clusterings"]
    for f in (rand_index, adjusted_rand_index, normalized_mutual_info, omega_unadjusted, omega):
        assert f(c["V"], c["U1"]) == pytest.approx(f(c["V"], c["U2"]), abs=1e-15)
    # but the structure-aware forms prefer U1
    assert ari_delta(c["V"], c["U1"], graph=ex["edges"]) > ari_delta(c["V"], c["U2"], graph=ex["edges"])


def _sorted_rows(m):
    return sorted(map(list, np.asarray(m).tolist()))


@pytest.mark.parametrize("cand", ["U1", "U2"])
def test_figure1_caption_overlap_matrices(cand):
    ex = load("fig1_structure")
    c = ex["clusterings"]
    checks = ex["other_checks"][next(k for k in ex["other_checks"] if k.startswith("figure1_caption"))]
    for eta, key in (("overlap", "cap"), ("degree", "sum_degree"), ("edges", "edges_xi")):
        t = contingency_table(c[cand], c["V"], eta=eta, graph=ex["edges"]).dense()
        assert _sorted_rows(t) == _sorted_rows(checks[f"{key}({cand},V)"]), eta


def test_omega_example_pair_counts_and_adjusted_omega():
    ex = load("fig2a_omega")
    c = ex["clusterings"]
    for cand in ("U1", "U2"):
        assert omega_unadjusted(c["V"], c[cand]) == pytest.approx(ex["other_checks"]["omega"][f"(V,{cand})"], abs=1e-12)
        assert omega(c["V"], c[cand]) == pytest.approx(ex["other_checks"]["adjusted_omega"][f"(V,{cand})"], abs=1e-6)
    # Aω prefers U1 while ARI'_δ prefers U2 (the seed's point in Fig. 5a)
    assert omega(c["V"], c["U1"]) > omega(c["V"], c["U2"])
    assert ari_delta(c["V"], c["U2"], exact=False) > ari_delta(c["V"], c["U1"], exact=False)


def test_matching_example_classic_measures():
    ex = load("fig2b_matching")
    c = ex["clusterings"]
    V, U1, U2 = c["V"], c["U1"], c["U2"]
    chk = ex["other_checks"]["classic_measures (V,U1)"]
    assert adjusted_rand_index(V, U1) == pytest.approx(chk["ARI"], abs=1e-6)
    assert rand_index(V, U1) == pytest.approx(chk["RI"], abs=1e-6)
    assert adjusted_rand_index_approx(V, U1) == pytest.approx(chk["ARI_prime"], abs=1e-6)
    assert ri_delta(V, U1, exact=False) == pytest.approx(chk["RI_prime"], abs=1e-6)
    assert jaccard_index(V, U1) == pytest.approx(chk["Jaccard"], abs=1e-12)
    assert f_measure(V, U1) == pytest.approx(chk["F1"], abs=1e-6)
    assert 1 - variation_of_information(V, U1, normalized=True) == pytest.approx(
        chk["VI_agreement_1_minus_VI_over_log_n"], abs=1e-6
    )
    assert normalized_mutual_info(V, U1) == pytest.approx(chk["NMI_sum"], abs=1e-6)
    assert i_norm(V, U1, exact=True) == pytest.approx(chk["I_norm_exact_diagonal_removed"], abs=1e-6)
    assert i_norm(V, U1) == pytest.approx(chk["I_norm_approx"], abs=1e-6)
    assert i_sqrt_tr(V, U1) == pytest.approx(chk["I_sqrt_tr"], abs=1e-6)
    assert i_sqrt_tr(V, U1, exact=True) != pytest.approx(chk["I_sqrt_tr"], abs=1e-3)
    assert omega_unadjusted(V, U1) == pytest.approx(chk["omega"], abs=1e-6)
    assert omega(V, U1) == pytest.approx(chk["adjusted_omega"], abs=1e-6)
    chk2 = ex["other_checks"]["classic_measures (V,U2)"]
    assert normalized_mutual_info(V, U2) == pytest.approx(chk2["NMI_sum"], abs=5e-4)
    assert adjusted_rand_index_approx(V, U2) == pytest.approx(chk2["ARI_prime"], abs=5e-5)
    assert rand_index(V, U2) == pytest.approx(chk2["RI"], abs=5e-5)
    cap = ex["other_checks"]["seed_fig2b_caption"]
    assert round(normalized_mutual_info(U1, V), 2) == cap["NMI(U1,V)"]
    assert round(normalized_mutual_info(U2, V), 2) == cap["NMI(U2,V)"]


def test_structure_dependent_eta_both_conventions():
    """AD_{x²} with Σd and ξ: the seed's definitions and the authors' program's variants."""
    ex = load("fig2b_matching")
    c = ex["clusterings"]
    chk = ex["other_checks"]["structure_dependent_eta_variants (V,U1), phi=x^2, adjusted (AD)"]

    def ar(eta, convention):
        return 1 - generalized_distance(
            c["V"], c["U1"], phi="x^2", eta=eta, graph=ex["edges"], normalization="adjusted", convention=convention
        )

    assert ar("degree", "seed") == pytest.approx(
        chk["AR_sum_degree_as_defined_in_seed (eta = sum of degrees)"], abs=5e-5
    )
    assert ar("edges", "seed") == pytest.approx(
        chk["AR_xi_as_defined_in_seed (eta = edges inside u∩v, once)"], abs=5e-5
    )
    assert ar("degree", "authors") == pytest.approx(
        chk["AR_sum_degree_as_in_authors_code (eta = sum over u∩v of (degree+1))"], abs=5e-4
    )
    assert ar("edges", "authors") == pytest.approx(
        chk["AR_xi_as_in_authors_code (eta = 2*edges inside u∩v + |u∩v|)"], abs=5e-4
    )


# ----------------------------------------------------------------------------- other_checks recomputed
# Every number of ``other_checks`` recomputed here by brute force written independently of agreekit
# (loops over node pairs and cluster pairs, dense numpy co-membership matrices, scikit-learn), so the
# JSON values are checked against code anyone can read, not only against the research notes.
def _index(ex):
    return {v: i for i, v in enumerate(ex["nodes"])}


def _dense(cover, idx):
    """n x k 0/1 membership matrix of a cover given as node lists."""
    m = np.zeros((len(idx), len(cover)))
    for j, c in enumerate(cover):
        for v in c:
            m[idx[v], j] = 1.0
    return m


def _labels(partition, idx):
    lab = np.full(len(idx), -1)
    for j, c in enumerate(partition):
        for v in c:
            lab[idx[v]] = j
    assert (lab >= 0).all()
    return lab


def _brute_eta(rows, cols, edges, eta, convention="seed"):
    """η matrix by its definition: |r ∩ c|, Σ degrees over r ∩ c, or edges inside r ∩ c (once)."""
    deg = {}
    for a, b in edges:
        deg[a] = deg.get(a, 0) + 1
        deg[b] = deg.get(b, 0) + 1
    out = np.zeros((len(rows), len(cols)))
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            both = set(r) & set(c)
            if eta == "overlap":
                out[i, j] = len(both)
            elif eta == "degree":
                out[i, j] = sum(deg.get(v, 0) + (convention == "authors") for v in both)
            else:
                xi = sum(a in both and b in both for a, b in edges)
                out[i, j] = 2 * xi + len(both) if convention == "authors" else xi
    return out


def _brute_ad_square(N):
    """1 − AD_{x²} of an η matrix (Definition 3; for φ = x² both expectation forms coincide)."""
    r, c, T = N.sum(axis=1), N.sum(axis=0), N.sum()
    sr, sc = (r**2).sum(), (c**2).sum()
    return 1 - (sr + sc - 2 * (N**2).sum()) / (sr + sc - 2 * sr * sc / T**2)


def _pair_table(U, V, idx):
    """n11, n10, n01, n00 over unordered node pairs of two partitions (plain loops)."""
    from itertools import combinations

    lu, lv = _labels(U, idx), _labels(V, idx)
    t = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    for i, j in combinations(range(len(idx)), 2):
        t[(lu[i] == lu[j], lv[i] == lv[j])] += 1
    return t[(True, True)], t[(True, False)], t[(False, True)], t[(False, False)]


def _times_together(cover, idx):
    """Unordered pairs -> number of clusters of ``cover`` holding both."""
    from itertools import combinations

    m = _dense(cover, idx)
    co = m @ m.T
    return [int(co[i, j]) for i, j in combinations(range(len(idx)), 2)]


def _brute_omega(A, B, idx):
    ta, tb = _times_together(A, idx), _times_together(B, idx)
    p = len(ta)
    w = sum(x == y for x, y in zip(ta, tb)) / p
    e = sum(ta.count(t) * tb.count(t) for t in set(ta) | set(tb)) / p**2
    return w, (w - e) / (1 - e)


def test_other_checks_figure1_caption_by_brute_force():
    ex = load("fig1_structure")
    c = ex["clusterings"]
    checks = ex["other_checks"][next(k for k in ex["other_checks"] if k.startswith("figure1_caption"))]
    for cand in ("U1", "U2"):
        for eta, key in (("overlap", "cap"), ("degree", "sum_degree"), ("edges", "edges_xi")):
            brute = _brute_eta(c[cand], c["V"], ex["edges"], eta)
            assert _sorted_rows(brute) == _sorted_rows(checks[f"{key}({cand},V)"]), (cand, eta)  # seed caption
            ours = contingency_table(c[cand], c["V"], eta=eta, graph=ex["edges"]).dense()
            np.testing.assert_array_equal(ours, brute)


def test_other_checks_omega_example_by_brute_force():
    ex = load("fig2a_omega")
    c = ex["clusterings"]
    idx = _index(ex)
    oc = ex["other_checks"]
    pc = oc[next(k for k in oc if k.startswith("omega_pair_count_matrices"))]
    for cand in ("U1", "U2"):
        tv, tc = _times_together(c["V"], idx), _times_together(c[cand], idx)
        counts = np.zeros((3, 3), int)
        for a, b in zip(tv, tc):
            counts[a, b] += 1
        np.testing.assert_array_equal(counts, pc[cand])
        w, aw = _brute_omega(c["V"], c[cand], idx)
        assert w == pytest.approx(oc["omega"][f"(V,{cand})"], abs=1e-12)
        assert aw == pytest.approx(oc["adjusted_omega"][f"(V,{cand})"], abs=5e-7)  # JSON: 6 decimals
        assert omega_unadjusted(c["V"], c[cand]) == pytest.approx(w, abs=1e-12)
        assert omega(c["V"], c[cand]) == pytest.approx(aw, abs=1e-12)


def test_other_checks_omega_example_against_cdlib():
    cdlib = pytest.importorskip("cdlib")
    nx = pytest.importorskip("networkx")
    from cdlib import NodeClustering, evaluation

    ex = load("fig2a_omega")
    c = ex["clusterings"]
    G = nx.Graph(ex["edges"])
    for cand in ("U1", "U2"):
        ref = evaluation.omega(NodeClustering(c["V"], G, overlap=True), NodeClustering(c[cand], G, overlap=True))
        assert ref.score == pytest.approx(ex["other_checks"]["adjusted_omega"][f"(V,{cand})"], abs=5e-7)
    assert cdlib.__version__


def test_other_checks_matching_example_by_brute_force():
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score, rand_score

    ex = load("fig2b_matching")
    c = ex["clusterings"]
    idx = _index(ex)
    n = len(idx)
    V, U1, U2 = c["V"], c["U1"], c["U2"]
    chk = ex["other_checks"]["classic_measures (V,U1)"]
    n11, n10, n01, n00 = _pair_table(V, U1, idx)
    lv, l1 = _labels(V, idx), _labels(U1, idx)
    mv, m1 = _dense(V, idx), _dense(U1, idx)
    cv, c1 = mv @ mv.T, m1 @ m1.T  # co-membership matrices, diagonal kept
    off = ~np.eye(n, dtype=bool)

    def entropy(m):
        p = m.sum(axis=0) / n
        return -(p * np.log(p)).sum()

    joint = (mv.T @ m1) / n
    mi = sum(
        joint[i, j] * np.log(joint[i, j] / (mv.sum(0)[i] / n * m1.sum(0)[j] / n))
        for i in range(joint.shape[0])
        for j in range(joint.shape[1])
        if joint[i, j] > 0
    )
    brute = {
        "ARI": adjusted_rand_score(lv, l1),
        "RI": (n11 + n00) / (n11 + n10 + n01 + n00),
        "ARI_prime": _brute_ad_square(_brute_eta(V, U1, ex["edges"], "overlap")),
        "RI_prime": 1 - ((cv - c1) ** 2).sum() / n**2,
        "Jaccard": n11 / (n11 + n10 + n01),
        "F1": 2 * n11 / (2 * n11 + n10 + n01),
        "VI_agreement_1_minus_VI_over_log_n": 1 - (entropy(mv) + entropy(m1) - 2 * mi) / np.log(n),
        "NMI_sum": normalized_mutual_info_score(lv, l1),
        "I_norm_exact_diagonal_removed": 1
        - np.linalg.norm((cv - c1)[off]) / (np.linalg.norm(cv[off]) + np.linalg.norm(c1[off])),
        "I_norm_approx": 1 - np.linalg.norm(cv - c1) / (np.linalg.norm(cv) + np.linalg.norm(c1)),
        "I_sqrt_tr": np.trace(cv @ c1) / np.sqrt(np.trace(cv @ cv) * np.trace(c1 @ c1)),
    }
    brute["omega"], brute["adjusted_omega"] = _brute_omega(V, U1, idx)
    assert set(brute) == set(chk) - {"source"}
    for key, value in brute.items():
        # the JSON (authors' ReadMe) prints 6 decimals (Jaccard 0.64 exactly)
        assert value == pytest.approx(chk[key], abs=5e-7), key
    assert brute["omega"] == pytest.approx(brute["RI"], abs=1e-15)  # partitions: ω = RI
    assert brute["adjusted_omega"] == pytest.approx(brute["ARI"], abs=1e-15)  # and Aω = ARI
    # (V, U2): values of the research notes, to 4 (NMI: 3) decimals
    chk2 = ex["other_checks"]["classic_measures (V,U2)"]
    l2 = _labels(U2, idx)
    assert normalized_mutual_info_score(lv, l2) == pytest.approx(chk2["NMI_sum"], abs=5e-4)
    assert _brute_ad_square(_brute_eta(V, U2, ex["edges"], "overlap")) == pytest.approx(chk2["ARI_prime"], abs=5e-5)
    assert rand_score(lv, l2) == pytest.approx(chk2["RI"], abs=5e-5)
    # the seed's Figure 2(b) caption (NMI to two decimals)
    cap = ex["other_checks"]["seed_fig2b_caption"]
    assert round(normalized_mutual_info_score(l1, lv), 2) == cap["NMI(U1,V)"]
    assert round(normalized_mutual_info_score(l2, lv), 2) == cap["NMI(U2,V)"]


def test_other_checks_structure_dependent_eta_by_brute_force():
    ex = load("fig2b_matching")
    c = ex["clusterings"]
    chk = ex["other_checks"]["structure_dependent_eta_variants (V,U1), phi=x^2, adjusted (AD)"]
    cases = {
        ("degree", "seed"): ("AR_sum_degree_as_defined_in_seed (eta = sum of degrees)", 5e-5),
        ("edges", "seed"): ("AR_xi_as_defined_in_seed (eta = edges inside u∩v, once)", 5e-5),
        ("degree", "authors"): ("AR_sum_degree_as_in_authors_code (eta = sum over u∩v of (degree+1))", 5e-4),
        ("edges", "authors"): ("AR_xi_as_in_authors_code (eta = 2*edges inside u∩v + |u∩v|)", 5e-4),
    }
    for (eta, convention), (key, tol) in cases.items():
        brute = _brute_ad_square(_brute_eta(c["V"], c["U1"], ex["edges"], eta, convention))
        assert brute == pytest.approx(chk[key], abs=tol), key  # JSON: 4 (authors' ReadMe: 3) decimals
        ours = 1 - generalized_distance(
            c["V"], c["U1"], phi="x^2", eta=eta, graph=ex["edges"], normalization="adjusted", convention=convention
        )
        assert ours == pytest.approx(brute, abs=1e-12), key
