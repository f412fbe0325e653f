"""metaeval p-values after issue 24: an undefined τ_w has an undefined p-value (issue 23), and tied
rankings use weighted_correlation_test's tie-preserving null (one implementation)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from agreekit import weighted_correlation_test
from agreekit.metaeval import metric_agreement


def _frame(X):
    return pd.DataFrame(
        X, index=pd.RangeIndex(1, X.shape[0] + 1, name="topic"), columns=[f"s{j:02d}" for j in range(X.shape[1])]
    )


def test_a_metric_that_ties_every_system_has_no_pvalue():
    rng = np.random.default_rng(0)
    A = rng.uniform(size=(20, 12))
    scores = {"A": _frame(A), "flat": _frame(np.full((20, 12), 0.5)), "B": _frame(A + rng.normal(0, 0.1, A.shape))}
    res = metric_agreement(scores, n_resamples=20, rng=1)
    t = res.to_frame().set_index(["metric_a", "metric_b"])
    for pair in (("A", "flat"), ("flat", "B")):
        row = t.loc[pair]
        assert math.isnan(row.tau_w) and math.isnan(row.pvalue) and row.pvalue_method == "undefined"
    assert np.isfinite(t.loc[("A", "B")].pvalue)
    rows = {(r["metric_a"], r["metric_b"]): r for r in json.loads(json.dumps(res.to_dict()))["pairs"]}
    assert rows[("A", "flat")]["pvalue"] is None and rows[("A", "flat")]["tau_w"] is None


@pytest.mark.parametrize("s", [9, 14])
def test_tied_pvalue_is_weighted_correlation_test_on_the_average_ranks(s):
    rng = np.random.default_rng(s)
    a = np.round(rng.uniform(size=s), 1)  # scores on a grid: ties
    b = np.round(a + rng.normal(0, 0.2, s), 1)
    scores = {"A": _frame(np.tile(a, (3, 1))), "B": _frame(np.tile(b, (3, 1)))}
    res = metric_agreement(scores, n_resamples=5, rng=2, pvalue_resamples=5000)
    row = res.to_frame().iloc[0]
    ra, rb = stats.rankdata(-a), stats.rankdata(-b)
    assert row.ties
    ref = weighted_correlation_test(
        -ra,
        -rb,
        kind="scores",
        n_resamples=5000,
        rng=np.random.default_rng(np.random.SeedSequence(2, spawn_key=(3, 0))),
    )
    assert row.pvalue_method == f"{ref.method} (ties)"
    assert row.pvalue == ref.pvalue and row.tau_w == pytest.approx(ref.statistic, abs=1e-12)
