"""`snakemake --lint` reports nothing for the pipeline (Snakefile + workflow/rules/*.smk).

Snakemake's linter flags path composition with `+`, parameters that hard-code a prefix of an output,
functions mixed with rules in one file, missing log directives, and more; each would hurt runs without a
shared file system (profiles/slurm) or readability. This test fails on any lint and lists them."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_snakemake_lint_is_clean():
    r = subprocess.run(
        [sys.executable, "-m", "snakemake", "--lint", "--cores", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    text = r.stdout + r.stderr
    lints = re.findall(r"^\s+\* (.+)$", text, re.M)
    assert r.returncode == 0 and not lints, (
        f"snakemake --lint: exit {r.returncode}, {len(lints)} lint(s):\n"
        + "\n".join(lints)
        + f"\n--- full output (tail) ---\n{text[-4000:]}"
    )
    assert "good condition" in text, text[-2000:]


def test_slurm_profile_sizes_and_groups_every_rule():
    """profiles/slurm gives every (non-target) rule threads, mem_mb and runtime, and a group."""
    import yaml

    prof = yaml.safe_load((ROOT / "profiles" / "slurm" / "config.yaml").read_text())
    rules = set()
    for smk in (ROOT / "workflow" / "rules").glob("*.smk"):
        rules |= set(re.findall(r"^rule (\w+):", smk.read_text(), re.M))
    rules -= {"all", "ranking_all"}  # targets only: they run no job
    groups = {g.split("=")[0] for g in prof["groups"]}
    missing = {
        "set-threads": sorted(rules - set(prof["set-threads"])),
        "set-resources": sorted(r for r in rules if not {"mem_mb", "runtime"} <= set(prof["set-resources"].get(r, {}))),
        "groups": sorted(rules - groups),
    }
    assert not any(missing.values()), f"profiles/slurm/config.yaml lacks rules: {missing}"
    assert not set(prof["set-threads"]) - rules, (
        f"profile names rules that do not exist: {set(prof['set-threads']) - rules}"
    )
