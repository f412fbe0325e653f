"""Statistical sanity of the bootstrap tests (seeded, so deterministic)."""

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from agreekit.ireval.bootstrap import discriminative_power, meta_evaluate, paired_test, unpaired_test
from agreekit.ireval.metrics import load_scores

SCORES = Path(__file__).resolve().parents[1] / "resources" / "bootstrap" / "trec_topic_by_run_scores"


@pytest.mark.parametrize("test", ["paired", "unpaired"])
def test_asl_roughly_uniform_under_the_null(test):
    """Two systems drawn from the same distribution: the ASL is roughly U(0, 1).

    Paired: the systems share per-topic difficulty; unpaired: independent samples (its
    null F = G ignores the pairing, so with shared topics it would be conservative).
    """
    rng = np.random.default_rng(20060806)
    asl = []
    for _ in range(400):
        topic = rng.beta(2, 5, size=30) if test == "paired" else 0.3  # shared topic difficulty
        x = np.clip(topic + rng.normal(0, 0.1, 30), 0, 1)
        y = np.clip(topic + rng.normal(0, 0.1, 30), 0, 1)
        if test == "paired":
            asl.append(paired_test(x, y, n_resamples=400, rng=rng).asl)
        else:
            asl.append(unpaired_test(x, y, n_resamples=400, rng=rng).asl)
    asl = np.array(asl)
    assert stats.kstest(asl, "uniform").pvalue > 0.01
    assert 0.02 <= np.mean(asl < 0.05) <= 0.09
    assert 0.4 <= np.mean(asl < 0.5) <= 0.6


def test_paired_test_detects_a_shift():
    rng = np.random.default_rng(1)
    hits = 0
    for _ in range(100):
        topic = rng.beta(2, 5, size=30)
        x = topic + rng.normal(0, 0.05, 30) + 0.05
        y = topic + rng.normal(0, 0.05, 30)
        hits += paired_test(x, y, n_resamples=400, rng=rng).asl < 0.05
    assert hits >= 90


@pytest.mark.parametrize("name", ["adhoc5_ap", "adhoc7_p10", "web2011_ndcg20"])
def test_paired_more_powerful_than_unpaired_on_real_data(name):
    X = load_scores(SCORES / f"{name}.csv")
    ev = meta_evaluate(X, rng=2006, analyses=("paired", "unpaired"))
    assert ev.paired.n_significant > ev.unpaired.n_significant
    # and the ASL curve of the paired test lies below the unpaired one (Figs. 7 vs 8)
    assert np.mean(ev.paired.asl_curve <= ev.unpaired.asl_curve) > 0.9


def test_alpha_001_is_stricter():
    X = load_scores(SCORES / "web2012_err20.csv")
    a = discriminative_power(X, alpha=0.05, rng=3)
    b = discriminative_power(X, alpha=0.01, rng=3)
    assert b.n_significant < a.n_significant
    assert b.estimated_difference > a.estimated_difference
