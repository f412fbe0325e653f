import os

from hypothesis import HealthCheck, settings

# keep numba from oversubscribing when pytest-xdist runs 2 workers on 2 cores
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

# `make test` and .ci/run select the "ci" profile: hypothesis derives its examples from each test's
# name (derandomize), so a run is reproducible and a failure in CI fails again locally with
# `--hypothesis-profile=ci`; no deadline, since 2 shared cores make per-example timing meaningless.
# Without the option hypothesis keeps its default, randomized exploration.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])


# Long tests first. pytest-xdist hands tests out in collection order, so the multi-minute workflow tests
# (alphabetically last) used to start when the other worker had nothing left: one core idle for ~5 min
# at the end of `make test`.  Running them first lets the short tests fill in beside them.  The list
# names files (or one test) measured at >= 10 s per test with `--durations` (2026-12-02, quiet 2 cores);
# the order inside each group is the collection order, so a run is still reproducible.
LONG_FIRST = (
    "tests/test_ranking_workflow.py",
    "tests/test_ranking_cluster.py",
    "tests/test_slurm.py",
    "tests/test_ranking_significance_table.py",
    "tests/test_metaeval_cli_workflow.py",
    "tests/test_cli_help.py",
    "tests/test_ranking_moments.py",
    "tests/test_bootstrap_ir.py",
    "tests/test_bad_input_round3.py::test_unbounded_cases_stay_under_1_gib",
    "tests/test_ranking_standardization.py",
    "tests/test_ranking_quantile_tables.py",
    "tests/test_bad_config.py",
    "tests/test_workflow_lint.py",
    "tests/test_docs_blocks.py",
    "tests/test_consensus_limits.py",
    "tests/test_packaging.py",
)


def _long_rank(nodeid: str) -> int:
    for rank, prefix in enumerate(LONG_FIRST):
        if nodeid.startswith(prefix):
            return rank
    return len(LONG_FIRST)


def pytest_collection_modifyitems(session, config, items):
    items.sort(key=lambda item: _long_rank(item.nodeid))  # stable: collection order within a rank
