"""Simulation-study pieces: Mallows sampler, tie/missing transforms, cell runner, tables."""

import numpy as np
import pandas as pd
import pytest

from agreekit.consensus import kemeny_distance, read_rankings
from agreekit.consensus.comparison import compare_methods, methods_table
from agreekit.consensus.simulation import (
    mallows_rankings,
    mask_missing,
    merge_ties,
    run_cell,
    summarize_recovery,
    summarize_times,
)


def _expected_kendall(m, theta):
    """E[d_K] under Mallows (Fligner & Verducci 1986)."""
    q = np.exp(-theta)
    j = np.arange(1, m + 1)
    return m * q / (1 - q) - np.sum(j * q**j / (1 - q**j))


@pytest.mark.parametrize("theta", [0.2, 0.7, 1.5])
def test_mallows_mean_distance(theta):
    m, n = 6, 4000
    rng = np.random.default_rng(11)
    center = rng.permutation(m) + 1
    X = mallows_rankings(center, theta, n, rng)
    d = np.array([kemeny_distance(x, center) / 2 for x in X])  # discordant pairs
    se = d.std(ddof=1) / np.sqrt(n)
    assert abs(d.mean() - _expected_kendall(m, theta)) < 4 * se
    assert all(sorted(x) == list(range(1, m + 1)) for x in X[:50])


def test_mallows_theta_zero_is_uniform():
    rng = np.random.default_rng(2)
    X = mallows_rankings([1, 2, 3], 0.0, 6000, rng)
    counts = pd.Series([tuple(x) for x in X]).value_counts()
    assert len(counts) == 6 and counts.min() > 850 and counts.max() < 1150


def test_merge_ties_and_mask_missing():
    rng = np.random.default_rng(3)
    X = mallows_rankings(np.arange(1, 9), 0.5, 200, rng).astype(float)
    T = merge_ties(X, 0.5, rng)
    for x, t in zip(X, T):
        # same order, adjacent positions merged, dense values
        assert np.all(np.diff(t[np.argsort(x)]) >= 0)
        assert sorted(set(t)) == list(range(1, int(t.max()) + 1))
    assert np.mean([len(set(t)) for t in T]) == pytest.approx(1 + 7 * 0.5, abs=0.3)
    M = mask_missing(X, 0.9, rng)
    assert (np.sum(~np.isnan(M), axis=1) >= 2).all()
    assert np.isnan(M).mean() > 0.6
    np.testing.assert_array_equal(M[~np.isnan(M)], X[~np.isnan(M)])


def test_run_cell_and_tables():
    df = run_cell(m=7, theta=0.3, variant="tied", n_profiles=3, n_judges=15, n_starts=20, rng=5)
    assert len(df) == 3 and df["exact_optimal"].all() and df["exact_exhaustive"].all()
    assert (df["fast_tau_x"] <= df["exact_tau_x"] + 1e-12).all()
    assert ((df["fast_share_recovered"] > 0) == df["fast_found_optimum"]).all()
    again = run_cell(m=7, theta=0.3, variant="tied", n_profiles=3, n_judges=15, n_starts=20, rng=5)
    cols = [c for c in df.columns if not c.endswith("_time")]
    pd.testing.assert_frame_equal(df[cols], again[cols])
    rec = summarize_recovery(df)
    assert rec.loc[0, "profiles"] == 3
    assert rec.loc[0, "fast_share_recovered"] == pytest.approx(df["fast_share_recovered"].mean())
    times = summarize_times(df)
    assert set(times["algorithm"]) == {"quick", "fast", "exact"}


def test_compare_methods_table():
    from pathlib import Path

    res_dir = Path(__file__).resolve().parents[1] / "resources" / "consensus"
    out = compare_methods(read_rankings(res_dir / "emond_mason.csv"), n_starts=50, rng=1)
    assert out["methods"]["exact"]["n_optima"] == 3
    assert out["methods"]["fast"]["exact_solutions_recovered"] <= 3
    report = pd.read_csv(res_dir / "report_results.csv")
    table = methods_table({"emond_mason": out}, report)
    row = table[(table.method == "exact")].iloc[0]
    assert row["average_tau_x"] == 0.165561 and row["report_tau_x"] == 0.166 and row["report_n_solutions"] == 3
