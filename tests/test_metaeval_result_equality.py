"""Result equality of the metaeval results: the dataclass-generated ``==`` raised ValueError on their
DataFrame / array fields ("truth value of a DataFrame is ambiguous"); they compare field by field."""

import numpy as np
import pandas as pd
import pytest

from agreekit.metaeval import consensus_ranking, metric_agreement


def _scores(seed):
    rng = np.random.default_rng(seed)
    topics = [f"t{i}" for i in range(12)]
    systems = [f"s{j}" for j in range(6)]
    base = rng.uniform(size=(12, 6)) + np.linspace(0, 0.3, 6)
    return {
        m: pd.DataFrame(base + rng.normal(0, 0.05 * (k + 1), base.shape), index=topics, columns=systems)
        for k, m in enumerate(["AP", "P@10", "nDCG"])
    }


def test_metric_agreement_equality():
    a = metric_agreement(_scores(0), n_resamples=50, rng=3)
    b = metric_agreement(_scores(0), n_resamples=50, rng=3)
    c = metric_agreement(_scores(0), n_resamples=50, rng=4)  # other bootstrap draws
    assert a == b and not (a != b)
    assert a != c
    assert (a == "not a result") is False
    with pytest.raises(TypeError):
        hash(a)


def test_consensus_ranking_equality_unchanged():
    a = consensus_ranking(_scores(1))
    b = consensus_ranking(_scores(1))
    assert a == b
    assert a != consensus_ranking(_scores(2))
