"""``agreekit metaeval`` CLI (JSON, files, bad input -> exit 2) and the metaeval pipeline stage."""

import json
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from agreekit.cli import main
from agreekit.ireval.metrics import load_scores
from agreekit.metaeval import metric_agreement
from _workflow_cmd import snakemake_cmd

ROOT = Path(__file__).resolve().parents[1]
SCORES = ROOT / "resources" / "bootstrap" / "trec_topic_by_run_scores"


@pytest.fixture
def csvs(tmp_path):
    out = {}
    for key, name in (("ap", "AP"), ("p10", "P@10"), ("rr", "RR")):
        X = load_scores(SCORES / f"adhoc5_{key}.csv").iloc[:, :15]
        p = tmp_path / f"{key}.csv"
        X.to_csv(p)
        out[name] = (p, X)
    return out


def _args(csvs):
    return [f"{name}={p}" for name, (p, _) in csvs.items()]


def test_metaeval_json_matches_library(csvs, capsys):
    assert main(["metaeval", *_args(csvs), "--n-resamples", "200", "--rng", "3", "--no-pvalue"]) == 0
    out = json.loads(capsys.readouterr().out)
    ref = metric_agreement({k: X for k, (_, X) in csvs.items()}, n_resamples=200, rng=3, pvalue=False)
    frame = ref.to_frame()
    assert out["metrics"] == ["AP", "P@10", "RR"] and len(out["pairs"]) == 3
    for row, (_, r) in zip(out["pairs"], frame.iterrows()):
        assert row["tau_b"] == pytest.approx(r.tau_b) and row["tau_w_standardized_se"] == pytest.approx(
            r.tau_w_standardized_se
        )
    assert out["consensus"]["proven"] is True
    assert set(out["consensus"]["ranking"]) == set(csvs["AP"][1].columns)


def test_metaeval_writes_files(csvs, tmp_path, capsys):
    d = tmp_path / "out"
    assert (
        main(
            [
                "metaeval",
                *_args(csvs),
                "--n-resamples",
                "50",
                "--rng",
                "1",
                "--no-pvalue",
                "--output-dir",
                str(d),
                "--name",
                "adhoc5 (15 runs)",
            ]
        )
        == 0
    )
    info = json.loads(capsys.readouterr().out)
    for f in (
        "agreement.csv",
        "agreement.md",
        "heatmap.png",
        "heatmap.pdf",
        "consensus.csv",
        "consensus.md",
        "collection.json",
    ):
        assert (d / f).stat().st_size > 0, f
    assert set(info["files"]) >= {"agreement_csv", "heatmap"}
    agree = pd.read_csv(d / "agreement.csv")
    assert list(agree[["metric_a", "metric_b"]].itertuples(index=False, name=None)) == [
        ("AP", "P@10"),
        ("AP", "RR"),
        ("P@10", "RR"),
    ]
    cons = pd.read_csv(d / "consensus.csv")
    assert (cons.kind == "system").sum() == 15 and (cons.kind == "metric").sum() == 3


@pytest.mark.parametrize(
    "case,message",
    [
        ("one", "at least 2 metrics"),
        ("noeq", "NAME=PATH"),
        ("twice", "given twice"),
        ("misaligned", "different systems"),
        ("nan", "missing value"),
        ("missing", "does not exist"),
        ("gmean", "--gmean"),
    ],
)
def test_metaeval_bad_input_exit_2_one_line(csvs, tmp_path, capsys, case, message):
    args = _args(csvs)
    if case == "one":
        args = args[:1]
    elif case == "noeq":
        args = [str(csvs["AP"][0]), args[1]]
    elif case == "twice":
        args = [args[0], args[0]]
    elif case == "misaligned":
        X = csvs["RR"][1].rename(columns={csvs["RR"][1].columns[0]: "other"})
        X.to_csv(tmp_path / "bad.csv")
        args = args[:2] + [f"RR={tmp_path / 'bad.csv'}"]
    elif case == "nan":
        X = csvs["RR"][1].copy()
        X.iloc[3, 2] = np.nan
        X.to_csv(tmp_path / "nan.csv")
        args = args[:2] + [f"RR={tmp_path / 'nan.csv'}"]
    elif case == "missing":
        args = args[:2] + [f"RR={tmp_path / 'nope.csv'}"]
    extra = ["--gmean", "XX"] if case == "gmean" else []
    d = tmp_path / "outdir"
    assert main(["metaeval", *args, "--n-resamples", "20", "--no-pvalue", "--output-dir", str(d), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not d.exists()  # no partial output


# ------------------------------------------------------------------ the pipeline stage


def _workdir(tmp: Path, extra: dict) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    for name in ("config", "resources"):
        (tmp / name).symlink_to(ROOT / name)
    (tmp / "extra.yaml").write_text(yaml.safe_dump(extra))
    return tmp


def _snake(wd, *args, cores=2):
    cmd = snakemake_cmd(
        wd,
        "--configfile",
        "config/config.yaml",
        "extra.yaml",
        "--cores",
        str(cores),
        *args,
    )
    return subprocess.run(cmd, capture_output=True, text=True, cwd=wd)


SMALL = {
    "metaeval": {
        "n_resamples": 60,
        "weigher": "harmonic",
        "scheme": "additive",
        "top_k": 5,
        "alpha": 0.1,
        "interchangeable_threshold": 0.9,
        "pvalue_resamples": 200,
        "geometric": [],
        "exclude": ["adhoc5", "adhoc6", "adhoc7", "adhoc8", "web2010", "web2011", "web2012", "robust03"],
        "consensus": {"method": "exact", "time_limit": None, "max_solutions": 20},
    }
}


def test_metaeval_stage_one_job_per_collection_and_deterministic(tmp_path):
    full = json.loads(json.dumps(SMALL))
    full["metaeval"]["exclude"] = []
    dry = _snake(_workdir(tmp_path / "dry", full), "results/metaeval/summary.md", "--dry-run")
    assert dry.returncode == 0, dry.stderr[-3000:]
    # 8 score-matrix collections + robust03 (computed from qrels and runs), one job each
    assert "metaeval_collection 9" in " ".join(dry.stdout.split())
    a = _workdir(tmp_path / "a", SMALL)
    r = _snake(a, "results/metaeval/summary.md", cores=2)
    assert r.returncode == 0, r.stderr[-3000:]
    b = _workdir(tmp_path / "b", SMALL)
    r = _snake(b, "results/metaeval/summary.md", cores=1)
    assert r.returncode == 0, r.stderr[-3000:]
    for coll in ("web2013",):
        for f in ("agreement.csv", "agreement.md", "consensus.csv", "consensus.md", "collection.json"):
            assert (a / "results/metaeval" / coll / f).read_bytes() == (b / "results/metaeval" / coll / f).read_bytes()
    summary = (a / "results/metaeval/summary.md").read_text()
    assert "web2013" in summary and "disagree about interchangeability" in summary
    assert (a / "results/metaeval/summary.md").read_bytes() == (b / "results/metaeval/summary.md").read_bytes()


@pytest.mark.parametrize(
    "override,key",
    [({"top_k": 0}, "top_k"), ({"weigher": "harmonc"}, "weigher"), ({"consensus": {"method": "best"}}, "method")],
)
def test_metaeval_invalid_config_fails_before_any_job(tmp_path, override, key):
    """The parse-time check the Snakefile runs (check_pipeline_config, see test_bad_config.py for the wiring),
    in-process on the config merged as `--configfile config/config.yaml extra.yaml` merges it."""
    from snakemake.exceptions import WorkflowError

    from agreekit._pipeline_config import PipelineConfigError, check_pipeline_config, merged_pipeline_config

    cfg = json.loads(json.dumps(SMALL))
    cfg["metaeval"].update(override)
    wd = _workdir(tmp_path / "w", cfg)
    files = [wd / "config" / "config.yaml", wd / "extra.yaml"]
    merged = merged_pipeline_config(files, workflow_configfile=files[0])
    with pytest.raises((PipelineConfigError, WorkflowError)) as err:
        check_pipeline_config(merged, files, ROOT / "config" / "config.schema.yaml")
    assert key in str(err.value)
    assert not (wd / "results").exists()
