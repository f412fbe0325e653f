"""Issue 14 (bootstrap memory rows): streamed resamples, memory refused up front.

The streamed paired test must give exactly what the in-memory computation gives on the same
topic samples (the reference is the in-memory kernel path, run at test time).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agreekit._validation import InputError
from agreekit.cli import main
from agreekit import _resampling
from agreekit.ireval import bootstrap as bs

ROOT = Path(__file__).resolve().parents[1]


def _scores(n=20, s=5, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(size=(n, 1)) + np.linspace(0, 0.2, s) + rng.normal(0, 0.1, (n, s))


@pytest.mark.parametrize("batch", [7, 64, 10**6])
@pytest.mark.parametrize("alpha", [0.05, 0.01])
def test_streamed_discriminative_power_equals_in_memory(monkeypatch, batch, alpha):
    X = _scores()
    X[:, 3] = X[:, 2]  # a degenerate pair (identical systems)
    X[:, 4] = X[:, 1] + 0.01  # a constant difference
    B = 2000
    idx = bs.bootstrap_indices(X.shape[0], n_resamples=B, rng=4)
    pa, pb = bs._pairs(X.shape[1])
    k = bs.critical_rank(B, alpha)
    want = bs._paired_all_pairs(X, pa, pb, idx, k)
    monkeypatch.setattr(_resampling, "STREAM_BATCH_ELEMENTS", batch * X.shape[0])
    for res in (
        bs.discriminative_power(X, alpha=alpha, resamples=idx),
        bs.discriminative_power(X, alpha=alpha, n_resamples=B, rng=4),
    ):  # drawn in batches
        got = (res.table["statistic"], res.table["asl"], res.table["critical_value"], res.table["required_difference"])
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), w)


def test_streamed_paired_test_equals_one_batch(monkeypatch):
    x, y = _scores(30, 2, 1).T
    whole = bs.paired_test(x, y, n_resamples=999, rng=3)
    monkeypatch.setattr(_resampling, "STREAM_BATCH_ELEMENTS", 13 * 30)
    part = bs.paired_test(x, y, n_resamples=999, rng=3)
    np.testing.assert_array_equal(part.null_distribution, whole.null_distribution)
    np.testing.assert_array_equal(part.bootstrap_differences, whole.bootstrap_differences)
    assert part.asl == whole.asl and part.statistic == whole.statistic


def test_paired_test_ten_billion_resamples_refused_before_allocating():
    # today: numpy _ArrayMemoryError
    x, y = _scores(10, 2).T
    with pytest.raises(
        InputError,
        match=r"`n_resamples` would need about 149\.0 GiB of memory for the "
        r"10000000000 bootstrap replicates",
    ):
        bs.paired_test(x, y, n_resamples=10**10)


def test_other_analyses_refused_up_front(monkeypatch):
    X = _scores()
    for fn, kw in (
        (bs.stability, {}),
        (bs.swap_rates, {}),
        (bs.meta_evaluate, {}),
        (bs.discriminative_power, {"test": "unpaired"}),
        (bs.difference_se, None),
        (bs.rank_correlation_se, None),
        (bs.bootstrap_indices, None),
    ):
        with pytest.raises(InputError, match=r"`n_resamples` would need about [0-9.]+ [GT]iB"):
            if fn is bs.difference_se:
                fn(X[:, 0], X[:, 1], n_resamples=10**9)
            elif fn is bs.rank_correlation_se:
                fn(X, X, n_resamples=10**9)
            elif fn is bs.bootstrap_indices:
                fn(20, n_resamples=10**9)
            else:
                fn(X, n_resamples=10**9, **kw)


def test_memory_limit_can_be_raised(monkeypatch):
    x, y = _scores(10, 2).T
    monkeypatch.setenv("AGREEKIT_MAX_MEMORY", "10K")
    with pytest.raises(InputError, match="limit of 10.0 KiB"):
        bs.paired_test(x, y, n_resamples=1000)
    monkeypatch.setenv("AGREEKIT_MAX_MEMORY", "1G")
    assert bs.paired_test(x, y, n_resamples=1000).n_resamples == 1000
    monkeypatch.setenv("AGREEKIT_MAX_MEMORY", "lots")
    with pytest.raises(InputError, match="AGREEKIT_MAX_MEMORY"):
        bs.paired_test(x, y, n_resamples=1000)


def test_cli_billion_resamples_refused_with_memory(tmp_path, capsys):
    # today: traceback _ArrayMemoryError (149 GiB)
    f = tmp_path / "M.csv"
    pd.DataFrame(_scores(), columns=list("ABCDE")).to_csv(f, index=False)
    out = tmp_path / "o.json"
    assert main(["bootstrap", str(f), "--n-resamples", "1000000000", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "`--n-resamples` would need about 14.0 GiB" in err and len(err.splitlines()) == 1
    assert not out.exists()


def test_many_resamples_run_in_memory_independent_of_the_samples(tmp_path):
    """4 million resamples of 20 topics: the old code held 2 x 4e6 x 20 x 8 B = 1.2 GiB of
    samples and counts; streamed, only the 1.25 x B alpha largest statistics per pair remain."""
    f = tmp_path / "M.csv"
    pd.DataFrame(_scores(s=3), columns=list("ABC")).to_csv(f, index=False)
    code = (
        "import resource, json, sys\n"
        "from agreekit.cli import main\n"
        f"rc = main(['bootstrap', {str(f)!r}, '--resamples', '4000000', '--seed', '1', '--alpha', '0.01',"
        f" '-o', {str(tmp_path / 'o.json')!r}])\n"
        "print(json.dumps({'rc': rc, 'rss': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=ROOT)
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["rc"] == 0, proc.stderr
    # the peak memory (< 600 MiB; 1.2 GiB unstreamed) is measured in benchmarks/bench_limits.py
    out = json.loads((tmp_path / "o.json").read_text())
    assert out["n_resamples"] == 4000000 and out["n_pairs"] == 3
