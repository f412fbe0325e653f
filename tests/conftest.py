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


# ---- order of the tests under pytest-xdist (`make test`: `-n CORES+1 --maxschedchunk 1`)
# With --maxschedchunk 1 each worker holds one test ahead of the one it runs, so the collection order below
# is close to one queue that all workers draw from.  The SLURM test comes first: it waits most of its
# time (7 min before the test node oversubscribed) on the scheduler (its jobs run under slurmd, not in the worker), so the extra worker of
# CORES+1 keeps both cores busy meanwhile; the test queued behind it on that worker is a short one.  Then the
# long tests, longest first (measured with --durations on a quiet 2-core machine, 2026-12-02), so that no
# multi-minute test starts when the other workers have nothing left; then the rest in collection order.
# Each group keeps the collection order, so the order is reproducible.
FIRST = "tests/test_slurm.py"
LONG_FIRST = (
    "tests/test_ranking_significance_table.py::test_table_pvalue_se_tracks_the_error_against_a_large_monte_carlo",
    "tests/test_ranking_workflow.py::test_quick_workflow_end_to_end_deterministic_resumable",
    "tests/test_ranking_cluster.py",
    "tests/test_cli_help.py::test_examples_in_help_run",
    "tests/test_metaeval_cli_workflow.py::test_metaeval_stage_one_job_per_collection_and_deterministic",
    "tests/test_ranking_moments.py::test_matches_plain_enumeration_n10",
    "tests/test_ranking_quantile_tables.py::test_cached_references_agree_with_a_plain_numpy_monte_carlo",
    "tests/test_bad_input_round3.py::test_unbounded_cases_stay_under_1_gib",
    "tests/test_bootstrap_ir.py::test_robust03_means_against_ir_measures_and_plain_q_measure",
    "tests/test_ranking_standardization.py::test_zero_mean_both_rules_all_permutations_n3_to_10",
    "tests/test_ranking_workflow.py::test_default_run_takes_shipped_quantiles_make_tables_samples_them",
    "tests/test_docs_blocks.py",
    "tests/test_packaging.py::test_wheel_installs_into_a_fresh_venv_without_extras",
    "tests/test_workflow_lint.py",
)


def _rank(nodeid: str) -> int:
    if nodeid.startswith(FIRST):
        return 0
    for rank, prefix in enumerate(LONG_FIRST):
        if nodeid.startswith(prefix):
            return 2 + rank
    return 2 + len(LONG_FIRST)


def pytest_collection_modifyitems(session, config, items):
    ranks = [_rank(item.nodeid) for item in items]
    if 0 in ranks:  # the first short test goes right behind the SLURM test (rank 1)
        short = next((i for i, r in enumerate(ranks) if r == 2 + len(LONG_FIRST)), None)
        if short is not None:
            ranks[short] = 1
    order = sorted(range(len(items)), key=lambda i: ranks[i])   # stable: collection order within a rank
    items[:] = [items[i] for i in order]
