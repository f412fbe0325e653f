"""Adjusted Omega against clusim's omega_index (an independent implementation)."""

import json
from pathlib import Path

import numpy as np
import pytest
from clusim.clustering import Clustering as ClusimClustering
from clusim.sim import omega_index

from agreekit.clustering import omega

DATA = Path(__file__).parent / "data" / "clustering"


def clusim_of(cover):
    elm2clu = {}
    for c, members in enumerate(cover):
        for node in members:
            elm2clu.setdefault(int(node), []).append(c)
    return ClusimClustering(elm2clu_dict=elm2clu)


@pytest.mark.parametrize("seed", range(5))
def test_adjusted_omega_equals_clusim_on_random_overlapping_covers(seed):
    rng = np.random.default_rng(500 + seed)
    n, k = [(12, 3), (40, 5), (100, 8), (250, 12), (400, 30)][seed]

    def cover():
        clusters = [[] for _ in range(k)]
        for i in range(n):
            for c in rng.choice(k, size=rng.integers(1, 4), replace=False):
                clusters[c].append(i)
        return [c for c in clusters if c]

    U, V = cover(), cover()
    assert omega(U, V) == pytest.approx(omega_index(clusim_of(U), clusim_of(V)), abs=1e-12)


def test_adjusted_omega_equals_clusim_on_the_omega_example():
    ex = json.loads((DATA / "fig2a_omega.json").read_text())
    c = ex["clusterings"]
    for cand in ("U1", "U2"):
        assert omega(c["V"], c[cand]) == pytest.approx(omega_index(clusim_of(c["V"]), clusim_of(c[cand])), abs=1e-12)
