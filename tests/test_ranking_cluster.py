"""Scale-out: the quick config through the cluster-generic executor with a local stand-in for sbatch.

Every job runs as a separate job script in its own shell (no shared interpreter with the submitting
Snakemake), which shows the jobs are self-contained — what the SLURM profile relies on."""

import subprocess
from pathlib import Path

import pytest
from _workflow_cmd import snakemake_cmd

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("snakemake_executor_plugin_cluster_generic")


def test_quick_scheme_runs_through_cluster_generic_executor(tmp_path):
    for name in ("config", "resources"):
        (tmp_path / name).symlink_to(ROOT / name)
    sid = "kendall_multiplicative_inverse_square-n0=1"
    cmd = snakemake_cmd(
        tmp_path,
        "--configfile",
        "config/quick.yaml",
        "--executor",
        "cluster-generic",
        "--cluster-generic-submit-cmd",
        str(ROOT / "tests" / "data" / "ranking" / "fake_sbatch.sh"),
        "--jobs",
        "2",
        "--latency-wait",
        "10",
        "--max-status-checks-per-second",
        "5",
        f"results/tables/{sid}.json",
    )
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    from agreekit.ranking.tables import load_table

    tab = load_table(tmp_path / "results" / "tables" / f"{sid}.json")
    assert tab.scheme_id == sid
    # three jobs (exact, sample, fit), each submitted as its own job script
    assert r.stderr.count("Submitted job") + r.stdout.count("Submitted job") >= 3
