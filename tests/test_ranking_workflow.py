"""The table-generation workflow on the quick config (config/quick.yaml): whole DAG, determinism across
--cores, resume after SIGKILL, only new jobs for a new scheme, config errors before any job runs."""

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from _workflow_cmd import snakemake_cmd

ROOT = Path(__file__).resolve().parents[1]
QUICK = yaml.safe_load((ROOT / "config" / "quick.yaml").read_text())


def _workdir(tmp: Path, extra: dict | None = None) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    for name in ("config", "resources"):
        (tmp / name).symlink_to(ROOT / name)
    if extra is not None:
        (tmp / "extra.yaml").write_text(yaml.safe_dump(extra))
    return tmp


def _cmd(wd: Path, *args, cores=2, extra=False):
    cmd = snakemake_cmd(wd, "--configfile", "config/quick.yaml")
    if extra:
        cmd += ["extra.yaml"]
    return cmd + ["--cores", str(cores), "--rerun-incomplete", *args]


def _run(wd, *args, cores=2, extra=False, check=True):
    r = subprocess.run(_cmd(wd, *args, cores=cores, extra=extra), capture_output=True, text=True, cwd=wd)
    if check and r.returncode != 0:
        raise AssertionError(f"snakemake failed:\n{r.stdout[-3000:]}\n{r.stderr[-5000:]}")
    return r


def _ids():
    from agreekit.ranking.tablegen.generation import schemes_from_config

    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["ranking"]
    cfg.update(QUICK["ranking"])
    return [s.id for s in schemes_from_config(cfg)]


def _job_counts(dry_run_text: str) -> dict:
    counts = {}
    block = dry_run_text[dry_run_text.find("Job stats") :]
    for m in re.finditer(r"^(ranking_\w+|all)\s+(\d+)\s*$", block, re.M):
        counts[m.group(1)] = int(m.group(2))
    return counts


def test_quick_workflow_end_to_end_deterministic_resumable(tmp_path):
    ids = _ids()
    # ---- run A: the whole DAG, 2 cores
    a = _workdir(tmp_path / "a")
    _run(a, "ranking_all", cores=2)
    res = a / "results"
    for sid in ids:
        from agreekit.ranking.tables import load_table

        tab = load_table(res / "tables" / f"{sid}.json")
        assert tab.data["samples"]["n"][0] == round(1.3 ** QUICK["ranking"]["grid"]["a_min"])
    for k in range(1, 6):
        assert (res / "figures" / f"ranking_figure{k}.png").stat().st_size > 1000
        assert (res / "figures" / f"ranking_figure{k}.pdf").stat().st_size > 1000
        for ext in ("md", "tex", "csv"):
            assert (res / "paper_tables" / f"table{k}.{ext}").stat().st_size > 100
    rep = (res / "reproduction.md").read_text()
    n_exact_rows = 2 * 3 * (QUICK["ranking"]["n_exact"] - 2)  # 2 schemes x 3 quantities x n = 3..n_exact
    assert f"**{n_exact_rows}/{n_exact_rows}**" in rep
    assert "E[g] corrected" in rep
    assert "| sample |" in (res / "ranking" / "stage_times.md").read_text()
    assert (a / "logs" / "ranking" / "sample" / f"{ids[0]}.log").exists()
    _run(a, "ranking_all", "--report", "report.html", cores=1)
    assert (a / "report.html").stat().st_size > 100_000

    # ---- nothing to do on a rerun; a new scheme adds only its own jobs (+ the aggregates)
    plus = {
        "ranking": {
            "schemes": QUICK["ranking"]["schemes"]
            + [{"coefficient": "kendall", "scheme": "additive", "weigher": "dcg"}]
        }
    }
    (a / "extra.yaml").write_text(yaml.safe_dump(plus))
    dry = _run(a, "ranking_all", "--dry-run", extra=True).stdout
    counts = _job_counts(dry)
    for rule in (
        "ranking_exact",
        "ranking_sample",
        "ranking_quantiles",
        "ranking_fit",
        "ranking_validate",
        "ranking_pvalue_check",
    ):
        assert counts.get(rule) == 1, (rule, counts)
    assert "sid=kendall_additive_dcg" in dry
    assert not any(f"sid={sid}" in dry for sid in ids)
    assert (
        "Nothing to be done" in _run(a, "ranking_all", "--dry-run").stdout + _run(a, "ranking_all", "--dry-run").stderr
    )

    # ---- run B: one scheme's table at 1 core, SIGKILLed after its first finished job, then resumed
    b = _workdir(tmp_path / "b")
    targets = [f"results/tables/{ids[0]}.json"]
    log = b / "run.log"
    with open(log, "w") as fh:
        proc = subprocess.Popen(
            _cmd(b, *targets, cores=1), cwd=b, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.time() + 180
        while time.time() < deadline and proc.poll() is None and log.read_text().count("Finished jobid") < 1:
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    text = log.read_text()
    outputs, current = {}, []
    for line in text.splitlines():
        if m := re.match(r"\s+output: (.*)", line):
            current = m.group(1).split(", ")
        elif m := re.match(r"\s+jobid: (\d+)", line):
            outputs[m.group(1)] = current
    finished = [f for j in re.findall(r"Finished jobid: (\d+)", text) for f in outputs[j]]
    assert len(finished) >= 1, text[-2000:]
    assert not all((b / t).exists() for t in targets), "the run finished before it was killed"
    done = {f: (b / f).stat().st_mtime_ns for f in finished}
    subprocess.run(_cmd(b, "--unlock"), cwd=b, capture_output=True, check=True)
    _run(b, *targets, cores=1)
    for f, mtime in done.items():  # jobs recorded as finished were not redone
        assert (b / f).stat().st_mtime_ns == mtime, f
    # byte-identical to the uninterrupted 2-core run
    assert (b / targets[0]).read_bytes() == (res / "tables" / f"{ids[0]}.json").read_bytes()


@pytest.mark.parametrize(
    "override,key",
    [
        ({"schemes": [{"coefficient": "spearman", "scheme": "additive", "weigher": "harmonc"}]}, "weigher"),
        ({"sample_size": {"spearman": [{"size": -5}], "kendall": [{"size": 100}]}}, "size"),
        ({"grid": {"q": 1.3, "a_min": 12, "a_max": {"spearman": 11, "kendall": 18}}}, "ranking.grid.a_min"),
    ],
)
def test_invalid_config_fails_before_any_job(tmp_path, override, key):
    """The parse-time check the Snakefile runs (check_pipeline_config, see test_bad_config.py for the wiring),
    in-process on the config merged as `--configfile config/quick.yaml extra.yaml` merges it."""
    from snakemake.exceptions import WorkflowError

    from agreekit._pipeline_config import PipelineConfigError, check_pipeline_config, merged_pipeline_config

    wd = _workdir(tmp_path / "w", {"ranking": override})
    files = [wd / "config" / "quick.yaml", wd / "extra.yaml"]
    merged = merged_pipeline_config(files, workflow_configfile=wd / "config" / "config.yaml")
    with pytest.raises((PipelineConfigError, WorkflowError)) as err:
        check_pipeline_config(merged, [wd / "config" / "config.yaml", *files], ROOT / "config" / "config.schema.yaml")
    assert key in str(err.value)
    assert not (wd / "results").exists()


def _run_default(wd, *args, configfiles=(), check=True):
    cmd = snakemake_cmd(wd, "--cores", "1")
    cmd += list(args) + (["--configfile", *configfiles] if configfiles else [])
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=wd)
    if check and r.returncode != 0:
        raise AssertionError(f"snakemake failed:\n{r.stdout[-3000:]}\n{r.stderr[-5000:]}")
    return r


def test_default_run_takes_shipped_quantiles_make_tables_samples_them(tmp_path):
    """Issue 25: with the default config the null quantiles come from the shipped tables (their provenance
    has the same quantile settings); config/tables.yaml (`make tables`) or other quantile settings sample them."""
    wd = _workdir(tmp_path / "w")
    c = _job_counts(_run_default(wd, "ranking_all", "--dry-run").stdout)
    assert c.get("ranking_quantiles_shipped") == 2 and "ranking_quantiles" not in c, c
    c = _job_counts(_run_default(wd, "ranking_all", "--dry-run", configfiles=["config/tables.yaml"]).stdout)
    assert c.get("ranking_quantiles") == 2 and "ranking_quantiles_shipped" not in c, c
    other = {"ranking": {"quantiles": {"size": {"kendall": {"size": [{"size": 1000}], "max_elements": 10**9}}}}}
    (wd / "other.yaml").write_text(yaml.safe_dump(other))
    dry = _run_default(wd, "ranking_all", "--dry-run", configfiles=["other.yaml"]).stdout
    c = _job_counts(dry)
    assert c.get("ranking_quantiles") == 1 and c.get("ranking_quantiles_shipped") == 1, c
    assert "unit=batch/kendall-paper" in dry and "shipped_unit=batch/spearman-paper" in dry
    (wd / "bad.yaml").write_text(
        yaml.safe_dump({"ranking": {"quantiles": {"verify": {"n": {"spearman": [11, 125], "kendall": [11]}}}}})
    )
    r = _run_default(wd, "ranking_all", "--dry-run", configfiles=["bad.yaml"], check=False)
    assert r.returncode != 0 and "ranking.quantiles.verify.n.spearman" in r.stdout + r.stderr

    # the shipped job for real (verification at n = 11 only): its quantiles are the shipped tables' blocks
    import numpy as np

    from agreekit.ranking.tablegen.generation import quantile_block_from_arrays
    from agreekit.ranking.tables import available_tables, load_table

    (wd / "fast.yaml").write_text(
        yaml.safe_dump({"ranking": {"quantiles": {"verify": {"n": {"spearman": [11], "kendall": [11]}}}}})
    )
    out = "results/ranking/quantiles/shipped/batch/spearman-paper"
    _run_default(wd, out + ".npz", configfiles=["fast.yaml"])
    ver = json.loads((wd / (out + ".verify.json")).read_text())
    sids = [s for s in available_tables() if s.startswith("spearman")]
    assert ver["n"] == [11] and ver["mismatches"] == [] and sorted(r["scheme_id"] for r in ver["rows"]) == sids
    with np.load(wd / (out + ".npz")) as z:
        arrays = {k: z[k] for k in z.files}
    for sid in sids:
        assert quantile_block_from_arrays(arrays, sid) == load_table(sid).data["null_quantiles"]
