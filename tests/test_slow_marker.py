"""The `slow` list of tests/conftest.py names tests that exist: an entry left behind by a renamed test
would silently move that test back into `make test`'s share (or a typo would mark nothing)."""

from __future__ import annotations

import ast
from pathlib import Path

import conftest


ROOT = Path(__file__).resolve().parents[1]


def _defined(entry: str) -> bool:
    """Whether the file of a SLOW entry exists and defines the named test (static: the file's AST), for
    entries whose file this run did not collect (a run of some test files only, or a renamed file)."""
    path, _, rest = entry.partition("::")
    if not (ROOT / path).is_file():
        return False
    if not rest:
        return True
    names = rest.split("[")[0].split("::")
    scope = ast.parse((ROOT / path).read_text(encoding="utf-8")).body
    for name in names:
        node = next(
            (
                n
                for n in scope
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name
            ),
            None,
        )
        if node is None:
            return False
        scope = getattr(node, "body", [])
    return True


def stale_entries(slow, collected) -> list:
    """Entries naming no collected test (their file was collected) or no test defined in an existing file."""
    collected = set(collected)
    files = {nodeid.split("::")[0] for nodeid in collected}
    return [
        e
        for e in slow
        if (not any(conftest._matches(n, e) for n in collected) if e.split("::")[0] in files else not _defined(e))
    ]


def test_every_slow_entry_names_a_collected_test():
    stale = stale_entries(conftest.SLOW, conftest.COLLECTED)
    assert not stale, f"tests/conftest.py SLOW names tests that do not exist: {stale}"
    assert len(set(conftest.SLOW)) == len(conftest.SLOW), "an entry is listed twice"


def test_stale_entries_of_files_not_collected_are_found():
    """An entry of a renamed (or deleted) file, or of a renamed test in a file this run did not collect,
    is stale too; an entry of an existing test in an uncollected file is not."""
    this = "tests/test_slow_marker.py::test_every_slow_entry_names_a_collected_test"
    ok = [
        "tests/test_ranking_workflow.py::test_quick_workflow_end_to_end_deterministic_resumable",
        "tests/test_consensus_limits.py::test_quick_and_fast_identical_to_reference_on_datasets[True-apa_full.csv]",
        "tests/test_docs_blocks.py",
    ]
    bad = [
        "tests/test_renamed_away.py::test_x",
        "tests/test_ranking_workflow.py::test_renamed_away",
        "tests/test_slow_marker.py::test_no_such_test",
    ]
    assert stale_entries(ok + bad, [this]) == bad


def test_an_entry_matches_its_test_and_its_cases_only():
    entry = "tests/test_ranking_workflow.py::test_quick_workflow_end_to_end_deterministic_resumable"
    assert entry in conftest.SLOW and conftest._slow(entry)
    case = "tests/test_consensus_limits.py::test_quick_and_fast_identical_to_reference_on_datasets"
    assert conftest._slow(case + "[True-apa_full.csv]") and not conftest._slow(case + "[False-apa_full.csv]")
    assert not conftest._slow(entry + "_and_more")  # a prefix of a longer name is another test
    assert conftest._slow("tests/test_slurm.py::test_quick_configs_on_slurm_match_local_run")  # .ci/run: test-slow
    assert not conftest._slow("tests/test_slow_marker.py::test_an_entry_matches_its_test_and_its_cases_only")
