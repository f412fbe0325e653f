"""Issue 20 in the clustering area: peers' numbers under the peers' names, SPEC 7 randomness,
peers' objects as input, and one DeprecationWarning per old spelling (same value as the new one)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

import agreekit.clustering as C
from agreekit._validation import InputError


SMALL = dict(average_degree=10, max_degree=30, min_community=15, max_community=60)


def _one_warning(record) -> None:
    dep = [w for w in record if issubclass(w.category, DeprecationWarning)]
    assert len(dep) == 1, [str(w.message) for w in dep]


# ----------------------------------------------------------------------------- omega = cdlib omega
def _karate_covers():
    nx = pytest.importorskip("networkx")
    G = nx.karate_club_graph()
    club = [[v for v in G if G.nodes[v]["club"] == c] for c in ("Mr. Hi", "Officer")]
    greedy = [sorted(c) for c in nx.community.greedy_modularity_communities(G)]
    louvain = [sorted(c) for c in nx.community.louvain_communities(G, seed=0)]

    def boundary_overlap(cover):  # a node with a neighbour in another community joins it too
        where = {v: i for i, c in enumerate(cover) for v in c}
        out = [set(c) for c in cover]
        for v in G:
            for u in G[v]:
                if where[u] != where[v] and G.degree(v) <= 4:
                    out[where[u]].add(v)
        return [sorted(c) for c in out]

    return G, {
        "club": club,
        "greedy": greedy,
        "louvain": louvain,
        "club_overlap": boundary_overlap(club),
        "greedy_overlap": boundary_overlap(greedy),
    }


def test_omega_equals_cdlib_omega_on_karate_covers():
    pytest.importorskip("cdlib")
    from cdlib import NodeClustering, evaluation

    G, covers = _karate_covers()
    names = sorted(covers)
    checked = 0
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            x = NodeClustering(covers[a], G, a, overlap=True)
            y = NodeClustering(covers[b], G, b, overlap=True)
            ref = evaluation.omega(x, y).score
            assert C.omega(covers[a], covers[b]) == pytest.approx(ref, abs=1e-12), (a, b)
            assert C.omega(x, y) == pytest.approx(ref, abs=1e-12), (a, b)  # NodeClustering as input
            assert C.omega_unadjusted(covers[a], covers[b]) > C.omega(covers[a], covers[b])
            checked += 1
    assert checked == 10


def test_omega_equals_cdlib_omega_on_random_overlapping_covers():
    pytest.importorskip("cdlib")
    nx = pytest.importorskip("networkx")
    from cdlib import NodeClustering, evaluation

    rng = np.random.default_rng(20)
    n = 40
    G = nx.empty_graph(n)
    for _ in range(5):
        covers = []
        for _ in range(2):
            k = int(rng.integers(2, 6))
            lab = rng.integers(0, k, n)
            cover = [np.flatnonzero(lab == c).tolist() for c in range(k) if (lab == c).any()]
            for v in rng.choice(n, 8, replace=False):  # second memberships
                c = int(rng.integers(len(cover)))
                if v not in cover[c]:
                    cover[c] = sorted(cover[c] + [int(v)])
            covers.append(cover)
        ref = evaluation.omega(
            NodeClustering(covers[0], G, "a", overlap=True), NodeClustering(covers[1], G, "b", overlap=True)
        ).score
        assert C.omega(*covers) == pytest.approx(ref, abs=1e-12)


def test_omega_registry_and_deprecated_alias():
    U, V = [[0, 3, 4], [1, 2, 3], [2, 3, 4]], [[0, 3, 4], [1], [2]]
    assert C.get_measure("omega")(U, V) == C.omega(U, V) == 0.21875  # seed Fig. 5(a) Aω(V, U1) = 0.219
    assert C.get_measure("omega_unadjusted")(U, V) == C.omega_unadjusted(U, V) == 0.5  # seed's ω
    assert C.get_measure("adjusted_omega") is C.get_measure("omega")
    with pytest.warns(DeprecationWarning, match=r"omega\(\)") as w:
        old = C.adjusted_omega(U, V)
    _one_warning(w)
    assert old == C.omega(U, V)
    assert "adjusted_omega" not in C.__all__ and "omega_unadjusted" in C.__all__


# ----------------------------------------------------------------------------- average_method = sklearn
METHODS = ("arithmetic", "geometric", "min", "max")


@pytest.mark.parametrize("method", METHODS)
def test_average_method_equals_sklearn(method):
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(7)
    for _ in range(30):
        n = int(rng.integers(5, 200))
        u = rng.integers(0, int(rng.integers(1, 8)), n)
        v = rng.integers(0, int(rng.integers(1, 8)), n)
        if len(set(u)) == n or len(set(v)) == n:
            continue  # documented difference (all singletons): sklearn returns rounding noise
        assert C.adjusted_mutual_info(u, v, average_method=method) == pytest.approx(
            metrics.adjusted_mutual_info_score(u, v, average_method=method), abs=1e-10
        )
        assert C.normalized_mutual_info(u, v, average_method=method) == pytest.approx(
            metrics.normalized_mutual_info_score(u, v, average_method=method), abs=1e-12
        )


@pytest.mark.parametrize("func", [C.normalized_mutual_info, C.adjusted_mutual_info])
@pytest.mark.parametrize("old,new", [("average", None), ("sum", "arithmetic"), ("sqrt", "geometric")])
def test_average_deprecated_spellings_warn_once(func, old, new):
    u, v = [0, 0, 1, 1, 2, 2, 2], [0, 0, 1, 2, 2, 1, 1]
    with pytest.warns(DeprecationWarning, match="average_method") as w:
        got = func(u, v, average="max") if new is None else func(u, v, average_method=old)
    _one_warning(w)
    assert got == func(u, v, average_method="max" if new is None else new)


def test_average_method_rejects_unknown_values():
    with pytest.raises(InputError, match="average_method"):
        C.normalized_mutual_info([0, 1], [0, 1], average_method="harmonic")


# ----------------------------------------------------------------------------- direct_weight of D_+
def _plus_by_hand(f, U, V, edges, w):
    N = [list(e) for e in edges]
    d_uv, d_un, d_vn = 1 - f(U, V), 1 - f(U, N), 1 - f(V, N)
    return 1 - (w * d_uv + (1 - w) * abs(d_un - d_vn))


@pytest.mark.parametrize("name", ["ri_delta", "ari_delta", "i_norm", "i_sqrt_tr"])
def test_direct_weight_is_the_weight_of_d_uv_and_alpha_warns_once(name):
    f = getattr(C, name)
    U, V = [[0, 3, 4], [1, 2, 3], [2, 3, 4]], [[0, 3, 4], [1], [2]]
    edges = [(0, 1), (0, 4), (1, 2), (2, 3), (3, 4)]
    new = f(U, V, graph=edges, mode="plus", direct_weight=0.3)
    assert new == pytest.approx(_plus_by_hand(f, U, V, edges, 0.3), abs=1e-12)
    with pytest.warns(DeprecationWarning, match="direct_weight") as w:
        old = f(U, V, graph=edges, mode="plus", alpha=0.3)
    _one_warning(w)
    assert old == new
    with pytest.raises(InputError, match="direct_weight"):
        f(U, V, graph=edges, mode="plus", direct_weight=1.5)


@pytest.mark.parametrize("func", ["seed_table", "seed_table_frame"])
def test_seed_table_alpha_warns_once(func):
    from pathlib import Path

    from agreekit.clustering import _tables

    ex = json.loads((Path(__file__).resolve().parents[1] / "resources/clustering/fig2a_omega.json").read_text())
    f = getattr(_tables, func)
    with pytest.warns(DeprecationWarning, match="direct_weight") as w:
        old = f(ex, alpha=0.2)
    _one_warning(w)
    new = f(ex, direct_weight=0.2)
    assert old.equals(new) if hasattr(old, "equals") else old == new
    assert not any(n.startswith(("seed_table", "SEED_TABLE")) for n in C.__all__)


# ----------------------------------------------------------------------------- peers' objects
def test_node_clustering_is_accepted_by_every_measure():
    pytest.importorskip("cdlib")
    from cdlib import NodeClustering

    G, covers = _karate_covers()
    a, b = covers["club"], covers["greedy_overlap"]
    x, y = NodeClustering(a, G, "club"), NodeClustering(b, G, "greedy", overlap=True)
    for name in (
        "ri_delta",
        "ari_delta",
        "ari_delta_approx",
        "i_norm",
        "i_sqrt_tr",
        "omega",
        "omega_unadjusted",
        "overlapping_nmi_lfk",
    ):
        m = C.get_measure(name)
        assert m(x, y) == m(a, b), name
    p = NodeClustering(covers["louvain"], G, "louvain")
    assert C.adjusted_rand_index(x, p) == C.adjusted_rand_index(a, covers["louvain"])
    assert C.as_clustering(x).n == 34
    # as in cdlib, the node set is the union of the communities (tests/test_clustering_cdlib_objects.py);
    # nodes= gives the graph's universe, where a node in no community is uncovered
    part = NodeClustering([c for c in a if 0 not in c] + [[v for v in a[0] if v != 0]], G, "partial")
    assert C.as_clustering(part).n == 33 and C.as_clustering(part, nodes=list(G)).n == 34


def test_lfr_benchmark_reads_as_its_ground_truth_cover():
    g = C.lfr_benchmark(300, mu=0.2, overlapping_nodes=30, overlapping_memberships=2, rng=3, progress=False)
    cover = [c.tolist() for c in g.communities]
    assert C.omega(g, cover) == 1.0
    assert C.ari_delta(g, cover, exact=False) == 1.0


# ----------------------------------------------------------------------------- lfr_benchmark(rng=)
def _digest(g) -> str:
    h = hashlib.sha1(g.edges.tobytes())
    if g.weights is not None:
        h.update(g.weights.tobytes())
    for c in g.communities:
        h.update(c.tobytes())
    return h.hexdigest()


def test_lfr_rng_int_gives_todays_graph_and_seed_warns_once():
    # regression pin: the derivation for int seeds (SeedSequence(seed).spawn(...), first six
    # children as before the rename) is unchanged; issue 23 changed this graph (main e3a1f75...
    # had a dropped pair in one community, now rebuilt exactly: repairs["internal_rebuilt"] == 1)
    g = C.lfr_benchmark(500, rng=1, progress=False)
    assert hashlib.sha1(g.edges.tobytes()).hexdigest() == "3b6d576d7ff70a875a20d3114af482122aa013cb"
    with pytest.warns(DeprecationWarning, match="rng") as w:
        old = C.lfr_benchmark(500, seed=1, progress=False)
    _one_warning(w)
    assert _digest(old) == _digest(g)
    assert g.parameters["rng"] == 1


def test_lfr_rng_seedsequence_and_generator():
    kw = dict(mu=0.3, mu_weights=0.2, progress=False)
    by_int = C.lfr_benchmark(300, rng=7, **kw)
    assert _digest(C.lfr_benchmark(300, rng=np.random.SeedSequence(7), **kw)) == _digest(by_int)
    g1 = C.lfr_benchmark(300, rng=np.random.default_rng(5), **kw)
    g2 = C.lfr_benchmark(300, rng=np.random.default_rng(5), **kw)
    assert _digest(g1) == _digest(g2)  # reproducible from the generator's seed
    gen = np.random.default_rng(5)
    first, second = C.lfr_benchmark(300, rng=gen, **kw), C.lfr_benchmark(300, rng=gen, **kw)
    assert _digest(first) == _digest(g1) and _digest(second) != _digest(first)  # the generator advances
    assert abs(first.mixing()[0] - 0.3) < 0.05


@pytest.mark.parametrize("bad", ["abc", -1, 1.5, True, np.random.RandomState(0)])
def test_lfr_bad_rng_names_rng(bad):
    with pytest.raises(InputError, match="`rng`"):
        C.lfr_benchmark(200, rng=bad)


def test_lfr_progress_on_stderr(capfd):
    C.lfr_benchmark(200, rng=1, progress=True, **SMALL)
    assert "LFR n=200" in capfd.readouterr().err
    C.lfr_benchmark(200, rng=1, progress=False, **SMALL)
    C.lfr_benchmark(2000, rng=1)  # auto: stderr is not a terminal under pytest
    assert capfd.readouterr().err == ""
    with pytest.raises(InputError, match="progress"):
        C.lfr_benchmark(200, rng=1, progress="yes", **SMALL)


# ----------------------------------------------------------------------------- experiments (rng=)
def test_experiments_take_rng_and_seed_warns_once():
    from agreekit.clustering import experiments as X

    small = X.LFRParameters(n=200, average_degree=10, max_degree=30, min_community=15, max_community=60)
    e, t, used = X.lfr_graph(small, 0.1, rng=3, generator="agreekit")
    with pytest.warns(DeprecationWarning, match="rng") as w:
        e2, t2, used2 = X.lfr_graph(small, 0.1, seed=3, generator="agreekit")
    _one_warning(w)
    assert np.array_equal(e, e2) and np.array_equal(t, t2) and used == used2 == 3
    found = X.detect_communities(200, e, "louvain", rng=5)
    with pytest.warns(DeprecationWarning, match="rng") as w:
        assert np.array_equal(X.detect_communities(200, e, "louvain", seed=5), found)
    _one_warning(w)
    same = X.detect_communities(200, e, "louvain", rng=np.random.SeedSequence(5))
    assert same.shape == found.shape  # a SeedSequence is accepted (reduced to an int seed)
    cover = X.detect_overlapping(200, e, "lfm", rng=2)
    with pytest.warns(DeprecationWarning, match="rng") as w:
        assert X.detect_overlapping(200, e, "lfm", seed=2) == cover
    _one_warning(w)
    for f, args in (
        (X.lfr_trial, (small, 0.1)),
        (X.weighted_lfr_trial, (small, 0.1)),
        (X.overlapping_lfr_trial, (small, 0.1)),
        (X.lfr_trial_for_figure, (7, {}, 0.1)),
    ):
        with pytest.warns(DeprecationWarning, match="rng") as w, pytest.raises((InputError, KeyError)):
            f(*args, seed=1, measures=["bogus"]) if f is not X.lfr_trial_for_figure else f(*args, seed=1)
        _one_warning(w)
    with pytest.raises(InputError, match="`rng`"):
        X.detect_communities(200, e, "louvain", rng="abc")


# ----------------------------------------------------------------------------- results
def test_results_export_to_dict():
    st = C.comembership_stats([0, 0, 1, 1], [[0, 1], [1, 2, 3]])
    d = st.to_dict()
    assert d == {k: getattr(st, k) for k in d} and set(d) >= {"s_u", "s_v", "s_uv", "pairs"}
    t = C.contingency_table([0, 0, 1, 1], [0, 1, 1, 1])
    td = t.to_dict()
    assert td["row_sums"] == [2.0, 2.0] and sum(td["counts"]) == 4.0 and "_cache" not in td
    spec = C.get_measure("omega").to_dict()
    assert spec["name"] == "omega" and "adjusted_omega" in spec["aliases"]
    g = C.lfr_benchmark(200, rng=1, progress=False, **SMALL)
    gd = json.loads(json.dumps(g.to_dict()))
    assert gd["n"] == 200 and len(gd["edges"]) == len(g.edges) and gd["parameters"]["rng"] == 1


def test_read_clustering_kind_is_deprecated(tmp_path):
    p = tmp_path / "u.txt"
    p.write_text("0\n0\n1\n")
    with pytest.warns(DeprecationWarning, match="input_format") as w:
        old = C.read_clustering(p, kind="labels")
    _one_warning(w)
    assert np.array_equal(old.labels, C.read_clustering(p, input_format="labels").labels)


# ----------------------------------------------------------------------------- CLI
def _run(argv, stdin=None):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "agreekit", "clustering", *argv], input=stdin, capture_output=True, text=True
    )


def test_cli_stdin_stdout_format_and_deprecated_alpha(tmp_path):
    u, v, g = tmp_path / "u.txt", tmp_path / "v.txt", tmp_path / "g.txt"
    u.write_text("0\n0\n1\n1\n1\n")
    v.write_text("0 1 2\n2 3 4\n")
    g.write_text("0 1\n1 2\n2 3 2.0\n3 4\n")
    by_path = _run([str(u), str(v), "-m", "omega", "-m", "omega_unadjusted", "--format", "csv", "-o", "-"])
    by_stdin = _run(
        ["-", str(v), "-m", "omega", "-m", "omega_unadjusted", "--format", "csv", "--quiet"], stdin=u.read_text()
    )
    assert by_path.returncode == 0 and by_stdin.returncode == 0, by_stdin.stderr
    assert by_path.stdout == by_stdin.stdout
    rows = dict(line.split(",") for line in by_path.stdout.splitlines()[1:])
    U, V = [0, 0, 1, 1, 1], [[0, 1, 2], [2, 3, 4]]
    assert float(rows["omega"]) == C.omega(U, V) and float(rows["omega_unadjusted"]) == C.omega_unadjusted(U, V)
    new = _run([str(u), str(v), "--graph", str(g), "--mode", "plus", "--direct-weight", "0.3", "-m", "ri_delta"])
    old = _run([str(u), str(v), "--graph", str(g), "--mode", "plus", "--alpha", "0.3", "-m", "ri_delta"])
    assert new.returncode == 0 and old.returncode == 0 and new.stderr == ""
    assert old.stderr.count("DeprecationWarning") == 1 and "--direct-weight" in old.stderr
    assert json.loads(old.stdout) == json.loads(new.stdout)
    edges = [(0, 1), (1, 2), (2, 3, 2.0), (3, 4)]
    assert json.loads(new.stdout)["results"]["ri_delta"] == C.ri_delta(
        U, V, graph=edges, mode="plus", direct_weight=0.3
    )
    out = tmp_path / "out.json"
    assert _run([str(u), str(v), "-o", str(out)]).returncode == 0
    assert json.loads(out.read_text())["results"]["ari_delta"] == C.ari_delta(U, V)
    both = _run(["-", "-"], stdin="0\n1\n")
    assert both.returncode == 2 and "stdin" in both.stderr and len(both.stderr.strip().splitlines()) == 1


def test_pipeline_keeps_the_seeds_omega_labels_and_numbers():
    # figure 9's "omega" / "adjusted_omega" columns (labels ω / Aω) are the seed's unadjusted and
    # adjusted indices, computed here independently by brute force over node pairs
    from itertools import combinations

    from agreekit.clustering import _trials

    rng = np.random.default_rng(9)
    n = 30
    truth = [[v for v in range(n) if v % 3 == c] for c in range(3)] + [[0, 1, 2, 4]]
    labels = rng.integers(0, 4, n)
    found = [np.flatnonzero(labels == c).tolist() for c in range(4)] + [[3, 5, 7, 8]]  # covers every node
    t, f = C.as_clustering(truth, nodes=range(n)), C.as_clustering(found, nodes=range(n))

    def times(cover, i, j):
        return sum(i in c and j in c for c in cover)

    pairs = list(combinations(range(n), 2))
    cu = [times(truth, i, j) for i, j in pairs]
    cv = [times(found, i, j) for i, j in pairs]
    w = sum(a == b for a, b in zip(cu, cv)) / len(pairs)
    e = sum(cu.count(k) * cv.count(k) for k in set(cu) | set(cv)) / len(pairs) ** 2
    assert _trials._figure9_score("omega", t, f, truth, found, n) == pytest.approx(w, abs=1e-12)
    assert _trials._figure9_score("adjusted_omega", t, f, truth, found, n) == pytest.approx(
        (w - e) / (1 - e), abs=1e-12
    )
    assert (_trials.FIGURE9_MEASURES["omega"], _trials.FIGURE9_MEASURES["adjusted_omega"]) == ("ω", "Aω")
