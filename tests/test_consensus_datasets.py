"""The shared reference datasets reproduce resources/consensus/known_results.json."""

import json
from pathlib import Path

import numpy as np
import pytest

from agreekit.consensus import average_tau_x, kemeny
from agreekit.consensus._io import read_rankings
from _consensus_oracle import brute_force, random_profile

RES = Path(__file__).resolve().parents[1] / "resources" / "consensus"
KNOWN = json.loads((RES / "known_results.json").read_text())
SMALL = [
    "sports.csv",
    "apa_full.csv",
    "apa_full_weighted.csv",
    "apa_red.csv",
    "idea.csv",
    "brook_upton.csv",
    "german.csv",
]


def _solutions(res):
    return {tuple(sorted(d.items())) for d in res.rank_dicts()}


def _known(name):
    return {tuple(sorted(d.items())) for d in KNOWN[name]["solutions"]}


@pytest.mark.parametrize("name", SMALL + ["emond_mason.csv"])
@pytest.mark.parametrize("method", ["exact", "quick", "fast"])
def test_known_results(name, method):
    data = read_rankings(RES / name)
    assert data.X.shape == (KNOWN[name]["n_rankings"], KNOWN[name]["n_items"])
    assert data.total_weight == KNOWN[name]["total_weight"]
    res = kemeny(data, method=method, n_starts=100, rng=7)
    assert round(res.average_tau_x, 6) == KNOWN[name]["avg_tau_x"]
    if method == "exact":
        assert res.proven and res.exhaustive
        assert _solutions(res) == _known(name)
        assert res.orderings == sorted(KNOWN[name]["orderings"], key=res.orderings.index)
    else:  # heuristics: optimal value, solutions among the optima
        assert _solutions(res) <= _known(name)


def test_emond_mason_report_solutions():
    """The report's three BB solutions, with its Italian-alphabet letters (no J, K) mapped
    to ConsRank's labels: report L..Q = J..O."""
    report = [
        "D L (E M) (A B) I P (C N) H F G (O Q)",
        "D L (E M) (A B P) (C N) I H F G (O Q)",
        "D L (E M) (B P) A (C N) I H F G (O Q)",
    ]
    to_consrank = dict(zip("LMNOPQ", "JKLMNO"))
    mapped = {" ".join("".join(to_consrank.get(ch, ch) for ch in tok) for tok in s.split()) for s in report}
    res = kemeny(read_rankings(RES / "emond_mason.csv"), method="exact")
    assert set(res.orderings) == mapped
    assert res.n_optima == 3 and round(res.average_tau_x, 3) == 0.166  # the report's 0.166


def test_emond_mason_fast_finds_all_three():
    res = kemeny(read_rankings(RES / "emond_mason.csv"), method="fast", n_starts=100, rng=1)
    assert res.n_optima == 3 and _solutions(res) == _known("emond_mason.csv")


@pytest.mark.parametrize("name", SMALL)
def test_known_results_of_small_datasets_are_recomputed_by_brute_force(name):
    """known_results.json for the files with m <= 7 items: every weak order scored by the plain oracle of
    tests/_consensus_oracle.py (Emond-Mason, 15 items, and USA, 50, come from an exact ILP; see the README)."""
    data = read_rankings(RES / name)
    opt, best = brute_force(data.X, data.weights)
    labels = list(data.labels)
    assert round(best, 6) == KNOWN[name]["avg_tau_x"]
    assert {tuple(sorted(zip(labels, map(int, r)))) for r in opt} == _known(name)


def test_sports_report_value_does_not_reproduce():
    """The report's 0.428 (resources/consensus/report_results.csv) is not the optimum on ConsRank's data."""
    import csv

    with open(RES / "report_results.csv") as fh:
        report = {(r["dataset"], r["method"]): r for r in csv.DictReader(fh)}
    data = read_rankings(RES / "sports.csv")
    _, best = brute_force(data.X, data.weights)
    res = kemeny(data, method="exact")
    assert res.average_tau_x == pytest.approx(best, abs=1e-12)
    assert abs(best - float(report[("sports", "exact")]["report_tau_x"])) > 0.2


def test_apa_partial_rows_lower_tau():
    full = read_rankings(RES / "apa_full.csv")
    red = read_rankings(RES / "apa_red.csv")
    cand = [2, 5, 1, 4, 3]
    assert average_tau_x(cand, full.X) < average_tau_x(cand, red.X)


def test_usa_exact_all_optima():
    data = read_rankings(RES / "usa_ranks.csv", ordinal=True)
    res = kemeny(data, method="exact", rng=3)
    assert round(res.average_tau_x, 6) == KNOWN["usa_ranks.csv"]["avg_tau_x"] == 0.297684
    assert res.proven and res.exhaustive
    assert _known("usa_ranks.csv") <= _solutions(res)  # at least the 4 known optima
    for s in res.solutions:
        assert average_tau_x(s, data) == pytest.approx(res.average_tau_x, abs=1e-12)
    quick = kemeny(data, method="quick")
    assert round(quick.average_tau_x, 6) == 0.297684 and _solutions(quick) <= _solutions(res)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ties", [True, False])
def test_bb_and_mip_agree_on_medium_profiles(seed, ties):
    """Two independent exact solvers return the same optimal set (m = 9..11, low consensus)."""
    rng = np.random.default_rng(77 + seed)
    X, w = random_profile(rng, 6, 9 + seed % 3, tie_prob=0.3, nan_prob=0.1)
    a = kemeny(X, method="exact", solver="bb", allow_ties=ties, max_solutions=10**5)
    b = kemeny(X, method="exact", solver="mip", allow_ties=ties, max_solutions=10**5)
    assert a.exhaustive and b.exhaustive
    assert a.average_tau_x == pytest.approx(b.average_tau_x, abs=1e-12)
    np.testing.assert_array_equal(a.solutions, b.solutions)
