"""Collection reports (tables, figures) and determinism across thread counts."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from agreekit.ireval import report as rep
from agreekit.ireval.metrics import load_scores

ROOT = Path(__file__).resolve().parents[1]
SCORES = ROOT / "resources" / "bootstrap" / "trec_topic_by_run_scores"


def _metrics(k=10):
    ap = load_scores(SCORES / "web2013_ndcg20.csv").iloc[:, :k]
    err = load_scores(SCORES / "web2013_err20.csv").iloc[:, :k]
    return [rep.MetricInput("nDCG@20", ap), rep.MetricInput("ERR@20", err), rep.MetricInput("G_nDCG@20", ap, "gmean")]


def test_analyze_collection_tables_and_figures(tmp_path):
    an = rep.analyze_collection("web2013", _metrics(), rng=1, n_resamples=200)
    paths = rep.write_collection(an, tmp_path / "web2013")
    summary = json.loads(paths["summary"].read_text())
    assert summary["n_systems"] == 10 and set(summary["metrics"]) == {"nDCG@20", "ERR@20", "G_nDCG@20"}
    pairs = pd.read_csv(paths["pairs"])
    assert len(pairs) == 3 * 2 * 45
    corr = pd.read_csv(paths["correlations"])
    assert len(corr) == 3 and (corr["se"] > 0).all()
    t2 = rep.table2([summary])
    assert t2.loc[t2.metric == "G_nDCG@20", "paired_metric"].item() == "AG_nDCG@20"
    row = t2[t2.metric == "nDCG@20"].iloc[0]
    assert row["paired_sensitivity"] == (
        f"{row['paired_significant']}/45={round(100 * row['paired_significant'] / 45)}%"
    )
    t3 = rep.table3([summary])
    assert list(t3["sensitivity"]) == sorted(t3["sensitivity"], reverse=True)
    rep.write_table(t2, tmp_path / "table2", markdown_columns=rep.MARKDOWN_COLUMNS["table2"])
    assert (tmp_path / "table2.md").read_text().startswith("| collection | metric |")
    rep.plot_asl_curves(pairs, "paired", tmp_path / "fig_asl")
    rep.plot_rank_correlations(corr, tmp_path / "fig_tau", n_systems=10)
    for f in ("fig_asl.png", "fig_asl.pdf", "fig_tau.png", "fig_tau.pdf"):
        assert (tmp_path / f).stat().st_size > 1000


def test_misaligned_metrics_rejected():
    m = _metrics()
    bad = rep.MetricInput("ERR@20", m[1].scores.iloc[:-1])
    with pytest.raises(ValueError, match="different topics"):
        rep.analyze_collection("x", [m[0], bad], rng=1, n_resamples=100)


_SCRIPT = """
import hashlib, sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from test_bootstrap_report import _metrics
from agreekit.ireval import report as rep
an = rep.analyze_collection("web2013", _metrics(14), rng=5, n_resamples=200)
paths = rep.write_collection(an, Path({out!r}))
print(";".join(hashlib.sha256(p.read_bytes()).hexdigest() for p in paths.values()))
"""


def test_byte_identical_whatever_the_thread_count(tmp_path):
    """A subprocess with a different numba thread count than this process gives the same bytes."""
    import numba

    other = "2" if numba.get_num_threads() == 1 else "1"
    env = dict(os.environ, NUMBA_NUM_THREADS=other)
    code = _SCRIPT.format(tests=str(Path(__file__).parent), out=str(tmp_path / "one"))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    an = rep.analyze_collection("web2013", _metrics(14), rng=5, n_resamples=200)
    paths = rep.write_collection(an, tmp_path / "default")
    here = ";".join(hashlib.sha256(p.read_bytes()).hexdigest() for p in paths.values())
    assert proc.stdout.strip() == here
