import os

import pytest

from hypothesis import HealthCheck, settings

# keep numba from oversubscribing when pytest-xdist runs 2 workers on 2 cores
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

# `make test` and .ci/run select the "ci" profile: hypothesis derives its examples from each test's
# name (derandomize), so a run is reproducible and a failure in CI fails again locally with
# `--hypothesis-profile=ci`; no deadline, since 2 shared cores make per-example timing meaningless.
# Without the option hypothesis keeps its default, randomized exploration.
settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)


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


# ---- the `slow` tests: `make test` leaves them out, `make test-slow` runs only them, `.ci/run` runs both
# (issue 21: "what is slow goes behind a `slow` marker that `.ci/run` still runs").  A test is slow when it
# needs 5 CPU-seconds or more on its own (worker and subprocesses; measured per test on the 2-core machine
# with a warm numba cache, 2026-12-02): large references (Monte Carlo, enumerations, other tools on every
# robust03 run), whole pipeline runs, CLI sessions of many subprocesses.  The SLURM test is the largest
# (about 500 CPU-s of the machine: the quick configs of all four areas twice); `.ci/run` runs `make test-slow`
# with the cluster up and AGREEKIT_REQUIRE_SLURM=1, as it ran `make test` before (issue 13).  Node ids or
# their prefixes (a parametrized test's "[...]" picks one case); tests/test_slow_marker.py checks that every
# entry names a test that exists.
SLOW = (
    "tests/test_slurm.py::test_quick_configs_on_slurm_match_local_run",
    "tests/test_bad_input_round3.py::test_unbounded_cases_stay_under_1_gib",
    "tests/test_bad_input_numeric.py::test_issue_pvalue_with_a_span_float64_cannot_carry",
    "tests/test_bootstrap_ir.py::test_robust03_means_against_ir_measures_and_plain_q_measure",
    "tests/test_bootstrap_reference.py::test_power_and_tau_se_adhoc8_against_plain_numpy",
    "tests/test_cli_help.py::test_examples_in_help_run",
    "tests/test_cli_help.py::test_bootstrap_reports_the_seed_it_drew_and_it_repeats_the_run",
    "tests/test_clustering_api.py::test_cli_stdin_stdout_format_and_deprecated_alpha",
    "tests/test_clustering_information.py::test_adjusted_mutual_info_against_sklearn",
    "tests/test_clustering_information.py::test_pair_and_entropy_measures_against_sklearn",
    "tests/test_consensus_bruteforce.py::test_huge_optimal_plateau_is_truncated_not_enumerated[mip]",
    "tests/test_consensus_limits.py::test_quick_and_fast_identical_to_reference_on_datasets[True-emond_mason.csv]",
    "tests/test_consensus_limits.py::test_quick_and_fast_identical_to_reference_on_datasets[True-apa_full.csv]",
    "tests/test_consensus_limits.py::test_quick_and_fast_identical_to_reference_on_datasets[True-apa_full_weighted.csv]",
    "tests/test_docs_blocks.py::test_docs_block[guide/tables.md:58-bash]",
    "tests/test_docs_blocks.py::test_docs_block[guide/ranking.md:131-bash]",
    "tests/test_docs_blocks.py::test_docs_block[guide/ireval.md:129-bash]",
    "tests/test_docs_blocks.py::test_docs_block[guide/ireval.md:64-python]",
    "tests/test_docs_blocks.py::test_docs_block[guide/consensus.md:121-bash]",
    "tests/test_docs_blocks.py::test_docs_block[guide/clustering.md:194-bash]",
    "tests/test_docs_blocks.py::test_docs_block[guide/clustering.md:229-python]",
    "tests/test_docs_blocks.py::test_docs_block[guide/consensus.md:71-python]",
    "tests/test_docs_blocks.py::test_docs_block[guide/metaeval.md:29-python]",
    "tests/test_docs_blocks.py::test_docs_block[guide/metaeval.md:64-bash]",
    "tests/test_fused_kernel_bitwise.py::test_shipped_tables_sample_means_are_reproduced",
    "tests/test_ireval_dialect.py::test_every_ir_measures_name_equals_ir_measures_on_all_robust03_runs",
    "tests/test_ireval_dialect.py::test_rr_at_k_is_rr_truncated_at_k",
    "tests/test_ireval_trec_forms.py::test_rprec_and_trec_ndcg_match_pytrec_eval_on_all_robust03_runs",
    "tests/test_metaeval.py::test_consensus_equals_brute_force_over_all_weak_orders[7-5-3]",
    "tests/test_metaeval_cli_workflow.py::test_metaeval_stage_one_job_per_collection_and_deterministic",
    "tests/test_packaging.py::test_wheel_installs_into_a_fresh_venv_without_extras",
    "tests/test_release.py::test_wheel_contains_the_datasets_with_their_licences",
    "tests/test_release.py::test_wheel_in_a_fresh_venv_runs_readme_quickstart_and_gallery",
    "tests/test_ranking_moments.py::test_matches_plain_enumeration_n10",
    "tests/test_ranking_quantile_tables.py::test_cached_references_agree_with_a_plain_numpy_monte_carlo",
    "tests/test_ranking_significance_table.py::test_table_pvalue_se_tracks_the_error_against_a_large_monte_carlo",
    "tests/test_ranking_significance_table.py::test_table_pvalues_meet_accuracy_target[kendall-additive-harmonic-45]",
    "tests/test_ranking_significance_table.py::test_table_pvalues_meet_accuracy_target[kendall-additive-harmonic-20]",
    "tests/test_ranking_significance_table.py::test_table_method_through_the_public_function[kendall-additive-harmonic]",
    "tests/test_ranking_significance_table.py::test_clustered_null_uses_fixed_gamma_interpolation_in_the_upper_tail",
    "tests/test_ranking_standardization.py::test_zero_mean_both_rules_all_permutations_n3_to_10",
    "tests/test_ranking_table_pvalues_independent.py::test_every_shipped_table_pvalue_against_an_independent_monte_carlo",
    "tests/test_ranking_tables.py::test_moments_exact_fit_and_range",
    "tests/test_ranking_workflow.py::test_quick_workflow_end_to_end_deterministic_resumable",
    "tests/test_ranking_workflow.py::test_default_run_takes_shipped_quantiles_make_tables_samples_them",
    "tests/test_runtime_modes.py::test_readme_python_examples_under_OO",
    "tests/test_runtime_modes.py::test_numba_disable_jit_gives_the_compiled_numbers",
    "tests/test_runtime_modes.py::test_importing_and_running_agreekit_leaves_numba_as_it_was",
    # every -o-writing subcommand x a device / FIFO / link: 7-14 interpreter starts each (the fast suite keeps one
    # command per target kind)
    "tests/test_bad_input_round4_output.py::test_character_device_survives_every_command",
    "tests/test_bad_input_round4_output.py::test_fifo_reader_gets_the_output",
    "tests/test_bad_input_round4_output.py::test_symlink_to_a_file_is_written_through",
    # every clustering job of the quick config through Snakemake, its console read for third-party notes
    "tests/test_quiet_console.py::test_every_clustering_job_of_the_quick_config_keeps_the_console_clean",
    # two Snakemake dry runs (the in-process cases of the same file are fast)
    "tests/test_bad_config_round4.py::test_dry_run_refuses_collection_path_and_alpha_before_any_job",
    "tests/test_first_calls.py::test_cold_first_calls_say_so_once_and_compile_one_variant_per_kernel",
)


#: every collected node id (before `-m` deselects any), for tests/test_slow_marker.py
COLLECTED: list = []


def _matches(nodeid: str, entry: str) -> bool:
    """``entry`` names this test, one of its cases, or (a file or class) contains it."""
    return nodeid == entry or nodeid.startswith(entry + "[") or nodeid.startswith(entry + "::")


def _slow(nodeid: str) -> bool:
    return any(_matches(nodeid, e) for e in SLOW)


def _rank(nodeid: str) -> int:
    if nodeid.startswith(FIRST):
        return 0
    for rank, prefix in enumerate(LONG_FIRST):
        if nodeid.startswith(prefix):
            return 2 + rank
    return 2 + len(LONG_FIRST)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(session, config, items):
    COLLECTED[:] = [item.nodeid for item in items]
    for item in items:
        if _slow(item.nodeid):
            item.add_marker(pytest.mark.slow)
    ranks = [_rank(item.nodeid) for item in items]
    if 0 in ranks:  # the first short test goes right behind the SLURM test (rank 1)
        short = next((i for i, r in enumerate(ranks) if r == 2 + len(LONG_FIRST)), None)
        if short is not None:
            ranks[short] = 1
    order = sorted(range(len(items)), key=lambda i: ranks[i])  # stable: collection order within a rank
    items[:] = [items[i] for i in order]
