"""Per-topic IR metrics from sorted arrays (every topic of every run at once).

A run's ranked lists are held as one array per attribute, ordered by topic then rank
(:class:`RankedLists`); each metric is a few numpy reductions over topic segments, so there
is no Python loop over topics.  The definitions are in :mod:`agreekit.ireval.metrics`; the
registry that names these functions is :mod:`agreekit.ireval._registry`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from agreekit._validation import InputError


@dataclass
class RankedLists:
    """The ranked lists of one run over ``n_topics`` topics, as flat arrays.

    ``seg`` (topic index), ``pos`` (1-based rank), ``gain``, and, when known, ``grade`` and
    ``judged`` of every retrieved document (``judged_asc``: ``judged`` with equal scores in
    docno-ascending order, ir_measures' order for Judged@k), topic by topic in rank order (already cut at the
    evaluation depth); ``start`` / ``n_ret`` the offset and length of each topic's list.
    ``ideal`` holds the positive gains of each topic's judged documents in decreasing order
    (``istart``, ``R`` = their number); ``qseg`` / ``qgrade`` / ``qgain`` the topic index, grade
    and gain of every judgement (for ``rel=`` counts and bpref).  ``depth`` is the cut (None =
    every document) and ``beta`` / ``log_base`` the Q-measure's and nDCG_jk's parameters."""

    n_topics: int
    seg: np.ndarray
    pos: np.ndarray
    gain: np.ndarray
    start: np.ndarray
    n_ret: np.ndarray
    ideal: np.ndarray
    istart: np.ndarray
    R: np.ndarray
    grade: np.ndarray | None = None
    judged: np.ndarray | None = None
    judged_asc: np.ndarray | None = None
    qseg: np.ndarray | None = None
    qgrade: np.ndarray | None = None
    qgain: np.ndarray | None = None
    depth: int | None = None
    beta: float = 1.0
    log_base: float = 2.0


def segments(seg: np.ndarray, n_topics: int) -> tuple[np.ndarray, np.ndarray]:
    """(start, length) of each topic's run in a topic-sorted ``seg``."""
    length = np.bincount(seg, minlength=n_topics).astype(np.int64)
    start = np.zeros(n_topics, dtype=np.int64)
    np.cumsum(length[:-1], out=start[1:])
    return start, length


# --------------------------------------------------------------------------- segment helpers
def _sum(L: RankedLists, x: np.ndarray) -> np.ndarray:
    return np.bincount(L.seg, weights=np.asarray(x, dtype=np.float64), minlength=L.n_topics)


def _count(L: RankedLists, mask: np.ndarray) -> np.ndarray:
    """Inclusive running count of ``mask`` within each topic's list (exact: integers)."""
    c = np.cumsum(mask, dtype=np.int64)
    before = np.concatenate(([0], c))[L.start]
    return (c - before[L.seg]).astype(np.float64)


def _running_sum(values: np.ndarray, seg: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum of float ``values`` within each segment, summed in order from the
    segment's start (as ``np.cumsum`` of the segment alone, not a difference of global sums)."""
    n_seg = start.size
    width = int(length.max()) if n_seg else 0
    if values.size == 0:
        return np.zeros(0)
    col = np.arange(values.size) - start[seg]
    if n_seg * width <= 8 * values.size + 4096:  # a padded matrix, cumsum along its rows
        grid = np.zeros((n_seg, width))
        grid[seg, col] = values
        return np.cumsum(grid, axis=1)[seg, col]
    out = np.empty(values.size)  # very uneven lists: one cumsum per segment
    for t in np.flatnonzero(length):
        out[start[t] : start[t] + length[t]] = np.cumsum(values[start[t] : start[t] + length[t]])
    return out


def _ideal_prefix(L: RankedLists, k: float, weights: np.ndarray | None = None) -> np.ndarray:
    """Per topic, the sum of the first ``min(k, R)`` ideal gains (times ``weights`` by ideal rank)."""
    g = L.ideal if weights is None else L.ideal * weights
    iseg = np.repeat(np.arange(L.n_topics), L.R)
    return np.bincount(iseg, weights=np.where(_ideal_ranks(L) <= k, g, 0.0), minlength=L.n_topics)


def _ideal_ranks(L: RankedLists) -> np.ndarray:
    """1-based rank of each ideal gain within its topic."""
    iseg = np.repeat(np.arange(L.n_topics), L.R)
    return (np.arange(L.ideal.size) - L.istart[iseg] + 1).astype(np.float64)


def _cut(L: RankedLists, spec, *, default_depth: bool = True) -> float:
    """The spec's cut-off (``@k``; else the depth if ``default_depth``; else every document)."""
    if spec.cutoff is not None:
        return float(spec.cutoff)
    if default_depth and L.depth is not None:
        return float(L.depth)
    return math.inf


def _needs(L: RankedLists, spec) -> None:
    if L.grade is None:
        raise InputError(
            "specs",
            f"{spec.name!r} needs the grade of each retrieved document; use "
            "evaluate() (topic_metrics() knows only gains)",
        )


def _isrel(L: RankedLists, spec) -> np.ndarray:
    """Relevant: gain > 0, or grade >= rel for ``rel=`` (ir_measures / trec_eval -l)."""
    if spec.rel is None:
        return L.gain > 0
    _needs(L, spec)
    return L.judged & (L.grade >= spec.rel)


def _n_relevant(L: RankedLists, spec) -> np.ndarray:
    if spec.rel is None:
        return L.R.astype(np.float64)
    _needs(L, spec)
    return np.bincount(L.qseg[L.qgrade >= spec.rel], minlength=L.n_topics).astype(np.float64)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, 0 where den == 0 (pytrec_eval's value for a topic without relevant documents)."""
    out = np.zeros_like(num, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


# --------------------------------------------------------------------------- metrics
def average_precision(L: RankedLists, spec) -> np.ndarray:
    rel = _isrel(L, spec) & (L.pos <= _cut(L, spec, default_depth=False))
    count = _count(L, rel)
    return _ratio(_sum(L, np.where(rel, count / L.pos, 0.0)), _n_relevant(L, spec))


def q_measure(L: RankedLists, spec) -> np.ndarray:
    rel = _isrel(L, spec) & (L.pos <= _cut(L, spec, default_depth=False))
    count = _count(L, rel)
    cg = _running_sum(L.gain, L.seg, L.start, L.n_ret)
    iseg = np.repeat(np.arange(L.n_topics), L.R)
    icum = _running_sum(L.ideal, iseg, L.istart, L.R)
    kk = np.minimum(L.pos.astype(np.int64), L.R[L.seg])  # cgI(r) = the first min(r, R) ideal gains
    cgi = np.where(kk > 0, icum[np.maximum(L.istart[L.seg] + kk - 1, 0)] if icum.size else 0.0, 0.0)
    br = (L.beta * cg + count) / (L.beta * cgi + L.pos)
    return _ratio(_sum(L, np.where(rel, br, 0.0)), _n_relevant(L, spec))


def precision(L: RankedLists, spec) -> np.ndarray:
    k = _cut(L, spec)
    hits = _sum(L, _isrel(L, spec) & (L.pos <= k))
    if math.isinf(k):  # every document and no @k: relevant retrieved / retrieved (trec_eval set_P)
        return _ratio(hits, L.n_ret.astype(np.float64))
    return hits / k


def recall(L: RankedLists, spec) -> np.ndarray:
    return _ratio(_sum(L, _isrel(L, spec) & (L.pos <= _cut(L, spec))), _n_relevant(L, spec))


def reciprocal_rank(L: RankedLists, spec) -> np.ndarray:
    idx = np.flatnonzero(_isrel(L, spec) & (L.pos <= _cut(L, spec, default_depth=False)))
    out = np.zeros(L.n_topics)
    topics, first = np.unique(L.seg[idx], return_index=True)
    out[topics] = 1.0 / L.pos[idx[first]]
    return out


def r_precision(L: RankedLists, spec) -> np.ndarray:
    R = _n_relevant(L, spec)
    return _ratio(_sum(L, _isrel(L, spec) & (L.pos <= R[L.seg])), R)


def success(L: RankedLists, spec) -> np.ndarray:
    return (_sum(L, _isrel(L, spec) & (L.pos <= _cut(L, spec, default_depth=False))) > 0).astype(np.float64)


def ncg(L: RankedLists, spec) -> np.ndarray:
    k = _cut(L, spec)
    num = _sum(L, np.where(L.pos <= k, L.gain, 0.0))
    return _ratio(num, _ideal_prefix(L, k))


def _dcg(L: RankedLists, spec, discount) -> np.ndarray:
    k = _cut(L, spec)
    num = _sum(L, np.where(L.pos <= k, L.gain / discount(L.pos), 0.0))
    den = _ideal_prefix(L, k, 1.0 / discount(_ideal_ranks(L)))
    return _ratio(num, den)


def ndcg_trec(L: RankedLists, spec) -> np.ndarray:
    """trec_eval's ndcg_cut: gain / log2(rank + 1) from rank 1."""
    return _dcg(L, spec, lambda r: np.log2(r + 1.0))


def ndcg_jk(L: RankedLists, spec) -> np.ndarray:
    """Jarvelin-Kekalainen: 1 for ranks <= a, log_a(rank) beyond."""
    a = L.log_base
    return _dcg(L, spec, lambda r: np.where(r <= a, 1.0, np.log(np.maximum(r, 1.0)) / math.log(a)))


def bpref(L: RankedLists, spec) -> np.ndarray:
    """trec_eval's bpref: (1/R) sum over relevant retrieved r of 1 - min(n_r, R) / min(R, N), n_r the
    judged non-relevant documents above r, N those of the topic (1 when n_r = 0)."""
    _needs(L, spec)
    rel = _isrel(L, spec)
    nonrel = L.judged & ~rel
    above = _count(L, nonrel)
    R = _n_relevant(L, spec)
    qrel = (L.qgain > 0) if spec.rel is None else (L.qgrade >= spec.rel)
    N = np.bincount(L.qseg[~qrel], minlength=L.n_topics).astype(np.float64)
    m = np.minimum(R, N)[L.seg]
    term = np.where(above > 0, 1.0 - np.minimum(above, R[L.seg]) / np.where(m > 0, m, 1.0), 1.0)
    return _ratio(_sum(L, np.where(rel, term, 0.0)), R)


def judged(L: RankedLists, spec) -> np.ndarray:
    """ir_measures' Judged@k: judged documents in the top k / min(k, retrieved); as in ir_measures,
    documents of equal score are taken in docno-ascending order for the top k."""
    _needs(L, spec)
    k = _cut(L, spec, default_depth=False)
    flags = L.judged if L.judged_asc is None else L.judged_asc
    return _ratio(_sum(L, flags & (L.pos <= k)), np.minimum(L.n_ret, k).astype(np.float64))
