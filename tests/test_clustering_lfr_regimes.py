"""The LFR generator's formerly silent regimes (issue 23): two or one dominant community, many small
communities (Erdős-Gallai), mu = 0, mu_w at the ends, weighted overlap, connectivity, warnings.

References: brute-force loops over the edges written here (mixing, internal degrees, membership
edges), networkx's ``is_graphical`` (Erdős-Gallai) and ``is_connected``, and the target power law
written out from its definition (``P(k) ~ k^-tau1`` on ``[k_min, k_max]``, the lowest value
weighted by ``1 - frac(k_min)``) with a binomial standard error.  The large regimes (n = 5000,
10 000) are in ``benchmarks/bench_lfr.py``, with networkit beside.
"""

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from agreekit._validation import InputError
from agreekit.clustering.lfr import LFRWarning, lfr_benchmark


def _quiet(n, **kw):
    """The graph and the LFRWarnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = lfr_benchmark(n, progress=False, **kw)
    return g, [w for w in caught if issubclass(w.category, LFRWarning)]


def _member_sets(g):
    m = [set() for _ in range(g.n)]
    for c, nodes in enumerate(g.communities):
        for v in nodes.tolist():
            m[v].add(c)
    return m


def _brute_mu(g):
    m = _member_sets(g)
    tot = np.zeros(g.n)
    ext = np.zeros(g.n)
    for u, v in g.edges.tolist():
        tot[u] += 1
        tot[v] += 1
        if not m[u] & m[v]:
            ext[u] += 1
            ext[v] += 1
    ok = tot > 0
    return float(np.mean(ext[ok] / tot[ok]))


def _tail_z(g, k=45):
    """(realized P(deg >= k) - target) / SE under the requested degree law."""
    lo_real, hi, tau = g.parameters["min_degree"], g.parameters["max_degree"], g.parameters["tau1"]
    lo = int(np.floor(lo_real))
    x = np.arange(lo, hi + 1, dtype=float)
    p = x**-tau
    p[0] *= 1 - (lo_real - lo)
    p /= p.sum()
    target = p[x >= k].sum()
    return (float((g.degrees >= k).mean()) - target) / np.sqrt(target * (1 - target) / g.n)


def _internal_sequences(g):
    """Per community, the internal degrees of its members (edges with both ends in it)."""
    out = []
    for nodes in g.communities:
        inc = np.zeros(g.n, bool)
        inc[nodes] = True
        e = g.edges[inc[g.edges[:, 0]] & inc[g.edges[:, 1]]]
        out.append((nodes, e, np.bincount(e.ravel(), minlength=g.n)[nodes]))
    return out


def _check_simple(g):
    e = g.edges
    assert np.all(e[:, 0] < e[:, 1]) and len(np.unique(e[:, 0] * g.n + e[:, 1])) == len(e)


# ----------------------------------------------------------------------------- two communities
@pytest.mark.parametrize("mu", [0.1, 0.3, 0.5])
def test_two_equal_communities_realize_mu_without_drops(mu):
    # main realized 0.051 / 0.169 / 0.323 here and dropped ~1/2 of the external pairs
    g, warned = _quiet(600, mu=mu, average_degree=15, max_degree=50, min_community=300, max_community=300, rng=0)
    assert [c.size for c in g.communities] == [300, 300]
    _check_simple(g)
    assert g.dropped_edges == 0 and not warned
    assert abs(_brute_mu(g) - mu) <= 0.01
    assert g.realized_mu == pytest.approx(_brute_mu(g), abs=1e-12)
    assert g.repairs["external_repaired"] > 0.2 * mu * len(g.edges)  # the regime was exercised
    assert abs(_tail_z(g)) <= 2
    assert abs(g.degrees.mean() - 15) < 3 * g.degrees.std() / np.sqrt(g.n)
    # both communities mix as asked, not one at the other's expense
    lo, hi = g.repairs["community_mu_range"]
    assert mu - 0.05 <= lo <= hi <= mu + 0.05


def test_dominant_community_that_cannot_be_met_warns_with_the_realized_figures():
    # 842 + 158 nodes, mu = 0.5: the small community has too few stubs for the big one's external
    # edges (per node, mu = 0.5 is impossible); main gave ~0.18 silently
    g, warned = _quiet(
        1000, mu=0.5, average_degree=15, max_degree=50, min_community=150, max_community=850, tau2=1.0, rng=16
    )
    assert sorted(c.size for c in g.communities) == [158, 842]
    _check_simple(g)
    assert len(warned) == 1
    msg = str(warned[0].message)
    assert f"realized mu_t {_brute_mu(g):.4f} for mu = 0.5" in msg
    assert abs(g.realized_mu - 0.5) > 0.01 and g.realized_mu == pytest.approx(_brute_mu(g), abs=1e-12)
    assert f"; {g.dropped_edges} stub pairs dropped;" in msg  # the count, also when 0
    lo, hi = g.repairs["community_mu_range"]
    assert f"{lo:.3f}-{hi:.3f}" in msg
    assert g.to_dict()["realized_mu"] == g.realized_mu
    # the dropped pairs are reported (attribute, to_dict, and the internal/external split in repairs)
    d = g.to_dict()
    assert d["dropped_edges"] == g.dropped_edges == g.repairs["dropped_internal"] + g.repairs["dropped_external"] > 0
    assert d["realized_mu_weights"] is None


def test_dominant_but_feasible_split_meets_mu_on_average_and_says_how_per_community():
    # 683 + 317: the mean meets 0.5, but only by mixing the small community more (warned)
    g, warned = _quiet(
        1000, mu=0.5, average_degree=15, max_degree=50, min_community=150, max_community=850, tau2=1.0, rng=11
    )
    assert sorted(c.size for c in g.communities) == [317, 683]
    assert abs(_brute_mu(g) - 0.5) <= 0.01 and g.dropped_edges == 0
    assert len(warned) == 1 and "per-community mean mixing" in str(warned[0].message)


# ----------------------------------------------------------------------------- small communities
@pytest.mark.parametrize(
    "kw",
    [
        dict(n=2000, tau2=1.0, mu=0.1, rng=0),  # 2009 setting
        dict(n=3000, mu=0.3, overlapping_nodes=600, overlapping_memberships=2, rng=1),  # overlapping
    ],
    ids=["lf2009", "overlapping"],
)
def test_small_communities_are_graphical_connected_and_complete(kw):
    import networkx as nx  # the [test] extra; only this test uses it (Erdős-Gallai and connectivity)

    kw = dict(kw)
    n = kw.pop("n")
    g, warned = _quiet(n, average_degree=20, max_degree=50, min_community=10, max_community=50, **kw)
    _check_simple(g)
    assert g.repairs["non_graphical_communities"] > 0  # the first assignment failed Erdős-Gallai ...
    assert g.repairs["non_graphical_left"] == 0  # ... and was repaired
    assert g.dropped_edges == 0 and not warned
    assert abs(_brute_mu(g) - kw["mu"]) <= 0.01
    assert abs(_tail_z(g)) <= 2  # hubs keep their degree (main: z ~ -4)
    m = _member_sets(g)
    for nodes, e, kin in _internal_sequences(g):
        assert nx.is_graphical(kin.tolist(), method="eg")
        assert np.all(kin > 0)  # every membership has an edge into it
        H = nx.Graph()
        H.add_nodes_from(nodes.tolist())
        H.add_edges_from(e.tolist())
        assert nx.is_connected(H)
    if kw.get("overlapping_nodes"):
        assert sum(len(s) == 2 for s in m) == kw["overlapping_nodes"]


def test_mu_zero_has_no_external_edge():
    g, warned = _quiet(1000, mu=0.0, rng=3)  # main: mu_t 0.001 (the parity fix moved stubs outside)
    m = _member_sets(g)
    assert all(m[u] & m[v] for u, v in g.edges.tolist())
    assert g.realized_mu == 0.0 and not warned
    assert abs(g.degrees.mean() - 20) < 1


@pytest.mark.parametrize("mu_w", [0.0, 1.0])
def test_mu_weights_at_the_ends_is_refused_when_edges_of_both_kinds_exist(mu_w):
    # main gave the external (mu_w = 0) or internal (mu_w = 1) edges weight exactly 0
    with pytest.raises(InputError, match="`mu_weights`.*weight 0"):
        lfr_benchmark(500, mu=0.3, mu_weights=mu_w, rng=0)
    assert (
        lfr_benchmark(
            300, mu=0.0, mu_weights=0.0, rng=0, average_degree=10, max_degree=30, min_community=20, max_community=60
        ).weights.min()
        > 0
    )


def test_weighted_overlapping_strengths_and_positive_weights():
    g, warned = _quiet(1000, mu=0.3, mu_weights=0.3, overlapping_nodes=200, overlapping_memberships=2, rng=0)
    assert not warned and g.dropped_edges == 0
    m = _member_sets(g)
    ext = np.array([not (m[u] & m[v]) for u, v in g.edges.tolist()])
    w, e = g.weights, g.edges
    s_out = np.bincount(e[ext, 0], w[ext], g.n) + np.bincount(e[ext, 1], w[ext], g.n)
    s_in = np.bincount(e[~ext, 0], w[~ext], g.n) + np.bincount(e[~ext, 1], w[~ext], g.n)
    s = g.degrees**1.5
    assert np.all(w > 0)
    assert np.allclose(s_out, 0.3 * s, rtol=0.01) and np.allclose(s_in, 0.7 * s, rtol=0.01)
    assert abs(g.realized_mu_weights - 0.3) <= 0.01


def test_weighted_low_mixing_every_node_has_external_strength_and_misfit_is_warned():
    # mu = 0.1: one or two external edges per node cannot carry mu_w k^beta at both ends
    g, warned = _quiet(1000, mu=0.1, mu_weights=0.1, overlapping_nodes=300, overlapping_memberships=2, rng=0)
    m = _member_sets(g)
    ext = np.array([not (m[u] & m[v]) for u, v in g.edges.tolist()])
    assert np.all(np.bincount(g.edges[ext].ravel(), minlength=g.n) > 0)  # main: some nodes had none
    assert len(warned) == 1
    assert f"{g.repairs['strength_nodes_off_5pct']} nodes with internal or external strength" in str(warned[0].message)
    assert abs(g.realized_mu_weights - 0.1) <= 0.01


# ----------------------------------------------------------------------------- report and determinism
def test_benchmark_reports_realized_figures_in_to_dict():
    g, _ = _quiet(
        400, mu=0.3, mu_weights=0.2, average_degree=10, max_degree=30, min_community=20, max_community=60, rng=5
    )
    d = json.loads(json.dumps(g.to_dict()))
    mu_t, mu_w = g.mixing()
    assert d["realized_mu"] == mu_t and d["realized_mu_weights"] == mu_w
    assert d["dropped_edges"] == 0 and d["repairs"]["dropped_internal"] == 0


_SCRIPT = (
    "import hashlib, sys; from agreekit.clustering.lfr import lfr_benchmark as L; "
    "g = L(3000, mu=0.3, average_degree=20, max_degree=50, min_community=10, max_community=50, "
    "overlapping_nodes=600, overlapping_memberships=2, mu_weights=0.3, rng=1, progress=False); "
    "h = hashlib.sha1(g.edges.tobytes()); h.update(g.weights.tobytes()); "
    "[h.update(c.tobytes()) for c in g.communities]; print(h.hexdigest())"
)


def test_same_int_rng_is_byte_identical_at_any_thread_count():
    outs = set()
    for threads in ("1", "2"):
        env = dict(os.environ, NUMBA_NUM_THREADS=threads, OMP_NUM_THREADS=threads)
        outs.add(
            subprocess.run(
                [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, check=True
            ).stdout.strip()
        )
    assert len(outs) == 1
