"""The `slow` list of tests/conftest.py names tests that exist: an entry left behind by a renamed test
would silently move that test back into `make test`'s share (or a typo would mark nothing)."""
from __future__ import annotations

import conftest


def test_every_slow_entry_names_a_collected_test():
    collected = set(conftest.COLLECTED)
    files = {nodeid.split("::")[0] for nodeid in collected}
    stale = [e for e in conftest.SLOW if e.split("::")[0] in files
             and not any(conftest._matches(n, e) for n in collected)]
    assert not stale, f"tests/conftest.py SLOW names tests that were not collected: {stale}"
    assert len(set(conftest.SLOW)) == len(conftest.SLOW), "an entry is listed twice"


def test_an_entry_matches_its_test_and_its_cases_only():
    entry = "tests/test_ranking_workflow.py::test_quick_workflow_end_to_end_deterministic_resumable"
    assert entry in conftest.SLOW and conftest._slow(entry)
    case = "tests/test_consensus_limits.py::test_quick_and_fast_identical_to_reference_on_datasets"
    assert conftest._slow(case + "[True-apa_full.csv]") and not conftest._slow(case + "[False-apa_full.csv]")
    assert not conftest._slow(entry + "_and_more")   # a prefix of a longer name is another test
    assert conftest._slow("tests/test_slurm.py::test_quick_configs_on_slurm_match_local_run")   # .ci/run: test-slow
    assert not conftest._slow("tests/test_slow_marker.py::test_an_entry_matches_its_test_and_its_cases_only")
