"""Property tests of the τ_x / Kemeny-distance algebra (hypothesis)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from agreekit.consensus import average_tau_x, kemeny_distance, penalty, tau_x

weak = st.integers(2, 7).flatmap(lambda m: st.lists(st.integers(1, m), min_size=m, max_size=m))


def _pair(m):
    r = st.lists(st.integers(1, m), min_size=m, max_size=m)
    return st.tuples(r, r, r)


triples = st.integers(2, 7).flatmap(_pair)


@settings(max_examples=60, deadline=None)
@given(triples)
def test_metric_properties(rst):
    r, s, t = rst
    assert tau_x(r, r) == 1.0 and kemeny_distance(r, r) == 0.0
    assert tau_x(r, s) == tau_x(s, r)
    assert -1.0 <= tau_x(r, s) <= 1.0
    assert kemeny_distance(r, t) <= kemeny_distance(r, s) + kemeny_distance(s, t) + 1e-12
    # only the order of the values matters
    assert tau_x(np.asarray(r) * 10 + 3, s) == tau_x(r, s)


@settings(max_examples=40, deadline=None)
@given(triples)
def test_average_tau_and_penalty_are_consistent(rst):
    r, s, t = rst
    X = np.array([r, s], dtype=float)
    m = len(r)
    total = sum(kemeny_distance(x, t) for x in X)
    # maximising average tau_x == minimising summed Kemeny distance
    assert abs(average_tau_x(t, X) - (1 - 2 * total / (2 * m * (m - 1)))) < 1e-12
    assert penalty(t, X) >= -1e-12
