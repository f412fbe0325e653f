"""The stability method (minority rate / proportion of ties, Sakai Fig. 9-10) and swap rates
(Fig. 11, Table 3).  Public through :mod:`agreekit.ireval.bootstrap`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from agreekit._api import ResultBase, renamed_parameters
from agreekit._memory import check_memory
from agreekit._resampling import STREAM_SWAP, bootstrap_summaries, summary_name, topic_resamples
from agreekit._validation import InputError, check_flag, check_float, check_int, real_array
from agreekit.ireval import _kernels as _k
from agreekit.ireval._power import _pairs
from agreekit.ireval._scores import check_scores
from agreekit.ireval._summaries import GM_OFFSET

__all__ = ["DEFAULT_FUZZINESS", "difference_bin", "StabilityResult", "stability", "SwapResult", "swap_rates"]


#: fuzziness values of the stability method, f = 0.01, 0.02, ..., 0.20
DEFAULT_FUZZINESS = tuple(round(0.01 * i, 2) for i in range(1, 21))


#: largest number of difference bins (an int32 index)
MAX_BINS = 2**31


def difference_bin(d: Any, *, width: float = 0.01, n_bins: int = 21) -> np.ndarray:
    """Bin index of |d|: floor(|d| / width) made robust to round-off, clipped to n_bins - 1.

    ``floor(0.01 / 0.01)`` is 1 even when 0.01 was computed as 0.031 - 0.021.

    Parameters
    ----------
    d : array_like
        Finite performance differences (their absolute values are binned).
    width : float, default 0.01
        Bin width (Sakai's 0.01), > 0.
    n_bins : int, default 21
        Number of bins, 1 to 2**31; the last one holds every |d| >= (n_bins - 1) width.

    Returns
    -------
    ndarray of int64
        The bin index of each |d|, in 0 .. n_bins - 1.

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532
    (Fig. 11: the swap method's bins). :doi:`10.1145/1148170.1148261`

    Examples
    --------
    >>> from agreekit.ireval.bootstrap import difference_bin
    >>> difference_bin([0.031 - 0.021, 0.2, 0.57]).tolist()
    [1, 20, 20]
    """
    d = real_array("d", d)
    width = check_float("width", width, minimum=0.0, inclusive=False)
    n_bins = check_int("n_bins", n_bins, minimum=1, maximum=MAX_BINS)
    with np.errstate(over="ignore"):
        q = np.minimum(np.round(np.abs(d) / width, 9), float(n_bins - 1))
    return np.floor(q).astype(np.int64)


# --------------------------------------------------------------------------- stability


@dataclass(frozen=True)
class StabilityResult(ResultBase):
    """Result of :func:`stability` (Sakai Fig. 9, Eqs. 9-10).

    ``minority_rate[i]`` and ``proportion_of_ties[i]`` belong to
    ``fuzziness[i]``; ``gt_ab``, ``gt_ba``, ``eq`` are the per-pair counts
    (shape F x pairs; GT(a,b) + GT(b,a) + EQ = B).

    Parameters
    ----------
    fuzziness : ndarray, shape (F,)
        The fuzziness values f.
    minority_rate : ndarray, shape (F,)
        MR per f (Eq. 9): sum over pairs of min(GT(a,b), GT(b,a)) / (B |C|).
    proportion_of_ties : ndarray, shape (F,)
        PT per f (Eq. 10): sum over pairs of EQ / (B |C|).
    n_pairs : int
        |C|, the number of system pairs.
    n_resamples : int
        B, the number of bootstrap samples.
    gt_ab, gt_ba, eq : ndarray of int64, shape (F, pairs)
        Per f and pair (a < b in column order): samples where a wins, where b wins, and ties
        within the margin.

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532.
    :doi:`10.1145/1148170.1148261`

    Examples
    --------
    Four systems, one shared set of 200 topic samples: MR falls and PT grows with the
    fuzziness (the MR-PT curve of Fig. 10), and the counts of every pair add up to B.

    >>> from agreekit.ireval.bootstrap import stability
    >>> X = [[0.2, 0.3, 0.5, 0.52], [0.1, 0.35, 0.4, 0.45], [0.3, 0.2, 0.6, 0.5], [0.25, 0.4, 0.55, 0.6]]
    >>> res = stability(X, fuzziness=[0.0, 0.05, 0.2], n_resamples=200, rng=5)
    >>> res.to_frame().round(4)
       fuzziness  minority_rate  proportion_of_ties
    0       0.00         0.0633              0.0033
    1       0.05         0.0367              0.0858
    2       0.20         0.0000              0.2058
    >>> bool(((res.gt_ab + res.gt_ba + res.eq) == res.n_resamples).all())
    True
    """

    fuzziness: np.ndarray
    minority_rate: np.ndarray
    proportion_of_ties: np.ndarray
    n_pairs: int
    n_resamples: int
    gt_ab: np.ndarray = field(repr=False)
    gt_ba: np.ndarray = field(repr=False)
    eq: np.ndarray = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """Table f, MR, PT (the MR-PT curve)."""
        return pd.DataFrame(
            {
                "fuzziness": self.fuzziness,
                "minority_rate": self.minority_rate,
                "proportion_of_ties": self.proportion_of_ties,
            }
        )


def _check_fuzziness(fuzziness) -> np.ndarray:
    f = np.atleast_1d(real_array("fuzziness", fuzziness, finite=False))
    if f.ndim != 1 or f.size == 0 or not np.all(np.isfinite(f)) or np.any(f < 0):
        raise InputError("fuzziness", "must be a non-empty 1-D array of finite values >= 0")
    return np.ascontiguousarray(f)


@renamed_parameters(statistic="summary")
def stability(
    scores: Any,
    *,
    fuzziness: Sequence[float] = DEFAULT_FUZZINESS,
    summary: str = "mean",
    n_resamples: int = 1000,
    rng: Any = None,
    resamples: Any = None,
    offset: float = GM_OFFSET,
) -> StabilityResult:
    """Stability method on bootstrap topic samples: minority rate and proportion of ties.

    For each pair and sample Q*b, with margin = f * max(M(X,Q*b), M(Y,Q*b)):
    |difference| < margin -> EQ; otherwise the larger system gets a GT.
    MR = sum_C min(GT(X,Y), GT(Y,X)) / (B |C|), PT = sum_C EQ / (B |C|).
    A zero difference (equal summaries up to round-off, |d| <= 1e-12 max(|x|, |y|))
    counts as EQ, so f = 0 counts only ties; a difference equal to the margin in
    exact arithmetic is not EQ (the comparison is strict and guarded against
    round-off).

    Parameters
    ----------
    scores : DataFrame or array_like, shape (n topics, s systems)
        Per-topic values of one metric.
    fuzziness : sequence of float, default f = 0.01, 0.02, ..., 0.20
        The fuzziness values f (default ``DEFAULT_FUZZINESS``: 0.01, 0.02, ..., 0.20).
    summary : {"mean", "gmean"}
        How a system is summarised over a topic sample (formerly ``statistic``).
    n_resamples : int, default 1000
        B (ignored when ``resamples`` is given).
    rng : None, int, SeedSequence or Generator
        Source of the topic samples (stream 0 with an int seed: the Q*b of the paired test).
    resamples : array_like of int, shape (B, n), optional
        Injected topic samples (row b = indices of Q*b, 0-based).
    offset : float, default 1e-5
        Geometric-mean offset.

    Returns
    -------
    StabilityResult
        MR and PT per fuzziness value and the per-pair counts behind them.

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532
    (Section 5, Fig. 9, Eqs. 9-10: the stability method with bootstrap samples). :doi:`10.1145/1148170.1148261`

    Examples
    --------
    >>> import numpy as np
    >>> from agreekit.ireval.bootstrap import stability
    >>> X = np.array([[0.1, 0.2, 0.4], [0.3, 0.3, 0.5], [0.2, 0.4, 0.6]])
    >>> res = stability(X, fuzziness=[0.0, 0.5], resamples=[[0, 1, 2], [0, 0, 0]])
    >>> res.minority_rate.tolist(), res.proportion_of_ties.tolist()
    ([0.0, 0.0], [0.0, 0.3333333333333333])
    """
    df = check_scores(scores)
    X = df.to_numpy()
    n, s = X.shape
    stat = summary_name(summary, allow_callable=False)
    f = _check_fuzziness(fuzziness)
    offset = check_float("offset", offset, minimum=0.0)
    idx = topic_resamples(
        resamples, n, n_resamples, rng, bytes_per_resample=16.0 * s, what="system summaries of the stability method"
    )
    B = idx.shape[0]
    M = bootstrap_summaries(X, idx, stat, offset)
    pa, pb = _pairs(s)
    gt_ab, gt_ba, eq = _k.stability_counts(np.ascontiguousarray(M.T), pa, pb, f)
    denom = B * pa.size
    mr = np.minimum(gt_ab, gt_ba).sum(axis=1) / denom
    pt = eq.sum(axis=1) / denom
    return StabilityResult(
        fuzziness=f,
        minority_rate=mr,
        proportion_of_ties=pt,
        n_pairs=int(pa.size),
        n_resamples=B,
        gt_ab=gt_ab,
        gt_ba=gt_ba,
        eq=eq,
    )


# --------------------------------------------------------------------------- swap


@dataclass(frozen=True)
class SwapResult(ResultBase):
    """Result of :func:`swap_rates` (Sakai Fig. 11 and Table 3).

    Parameters
    ----------
    bins : DataFrame
        ``lower``, ``upper`` (inf for the last bin), ``comparisons``,
        ``swaps``, ``swap_rate`` (NaN for empty bins).
    abs_difference : float
        Lower edge of the first non-empty bin whose swap rate <= threshold
        (with ``monotone=True``: from which on every non-empty bin does); NaN
        if none.
    max_value : float
        Largest M(X, Q*b) over systems and samples ("max").
    rel_difference : float
        abs_difference / max_value ("rel").
    sensitivity : float
        Share of the |C| B comparisons with |D| >= abs_difference (by bin).
    threshold : float
        The swap rate that defines ``abs_difference`` (Sakai's 5 %).
    n_pairs : int
        |C|, the number of system pairs.
    n_resamples : int
        B, the number of bootstrap samples in each of the two sets.

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532.
    :doi:`10.1145/1148170.1148261`

    Examples
    --------
    Two systems on three topics, two injected samples in each set: D = 0.0333 on Q*1 (all
    topics) swaps, since topic 2 alone (Q'1) prefers the second system; D = 0.1 on Q*2 does not.
    So abs = 0.1, rel = 0.1 / max = 0.1 / 0.2333 and half of the comparisons reach it:

    >>> from agreekit.ireval.bootstrap import swap_rates
    >>> X = [[0.2, 0.1], [0.4, 0.1], [0.1, 0.4]]
    >>> res = swap_rates(X, bin_width=0.05, n_bins=4, resamples=[[0, 1, 2], [0, 0, 0]],
    ...                  resamples_prime=[[2, 2, 2], [0, 1, 1]])
    >>> res.bins
       lower  upper  comparisons  swaps  swap_rate
    0   0.00   0.05            1      1        1.0
    1   0.05   0.10            0      0        NaN
    2   0.10   0.15            1      0        0.0
    3   0.15    inf            0      0        NaN
    >>> res.abs_difference, round(res.rel_difference, 4), res.sensitivity
    (0.1, 0.4286, 0.5)
    """

    bins: pd.DataFrame = field(repr=False)
    abs_difference: float
    max_value: float
    rel_difference: float
    sensitivity: float
    threshold: float
    n_pairs: int
    n_resamples: int

    def to_frame(self) -> pd.DataFrame:
        """The per-bin table (a copy)."""
        return self.bins.copy()

    def to_dict(self) -> dict:
        """Table 3's quantities (JSON-able; the keys of the pipeline's summary.json)."""
        return {
            "abs": self.abs_difference,
            "max": self.max_value,
            "rel": self.rel_difference,
            "sensitivity": self.sensitivity,
            "threshold": self.threshold,
            "n_pairs": self.n_pairs,
            "n_resamples": self.n_resamples,
        }


@renamed_parameters(statistic="summary")
def swap_rates(
    scores: Any,
    *,
    summary: str = "mean",
    bin_width: float = 0.01,
    n_bins: int = 21,
    threshold: float = 0.05,
    monotone: bool = False,
    n_resamples: int = 1000,
    rng: Any = None,
    resamples: Any = None,
    resamples_prime: Any = None,
    offset: float = GM_OFFSET,
) -> SwapResult:
    """Swap method with two independent sets of bootstrap samples {Q*b}, {Q'*b}.

    For each pair and b: D = M(X,Q*b) - M(Y,Q*b), D' likewise on Q'*b;
    ``comparisons[bin(|D|)] += 1`` and, if D * D' <= 0, ``swaps[bin(|D|)] += 1``.
    Bins have width ``bin_width``; the last holds |D| >= (n_bins - 1) width.

    ``resamples`` should be the topic samples used elsewhere (Sakai reuses
    the paired test's Q*b); ``resamples_prime`` must be independent of it.

    Parameters
    ----------
    scores : DataFrame or array_like, shape (n topics, s systems)
        Per-topic values of one metric.
    summary : {"mean", "gmean"}
        How a system is summarised over a topic sample (formerly ``statistic``).
    bin_width : float, default 0.01
        Width of the difference bins.
    n_bins : int, default 21
        Number of bins (the last one is open above).
    threshold : float, default 0.05
        The swap rate that defines ``abs_difference``.
    monotone : bool, default False
        ``abs_difference`` from the first bin from which on every non-empty bin has a swap
        rate <= threshold (instead of the first such bin).
    n_resamples : int, default 1000
        B (ignored when ``resamples`` is given).
    rng : None, int, SeedSequence or Generator
        Source of both sets (with an int seed: streams 0 and 1 of the module's streams).
    resamples, resamples_prime : array_like of int, shape (B, n), optional
        Injected topic samples Q*b and Q'*b (0-based; both or either).
    offset : float, default 1e-5
        Geometric-mean offset.

    Returns
    -------
    SwapResult
        The per-bin table and Table 3's abs / max / rel / sensitivity.

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532
    (Fig. 11 and Table 3: swap rates with bootstrap samples). :doi:`10.1145/1148170.1148261`

    Examples
    --------
    The swap method on Sakai's (2006) defaults (B = 1000, 21 bins of 0.01) for five systems that
    are 0.075 apart: the difference needed for a swap rate of at most 5 % (Table 3's abs):

    >>> import numpy as np
    >>> from agreekit.ireval.bootstrap import swap_rates
    >>> noise = np.random.default_rng(0).normal(0, 0.1, (20, 5))
    >>> res = swap_rates(0.3 + np.linspace(0, 0.3, 5) + noise, rng=3)
    >>> int(res.bins["comparisons"].sum()), res.abs_difference, round(res.sensitivity, 3)
    (10000, 0.03, 0.957)
    """
    df = check_scores(scores)
    X = df.to_numpy()
    n, s = X.shape
    stat = summary_name(summary, allow_callable=False)
    width = check_float("bin_width", bin_width, minimum=0.0, inclusive=False)
    nb = check_int("n_bins", n_bins, minimum=1, maximum=MAX_BINS)
    thr = check_float("threshold", threshold, minimum=0.0, maximum=1.0)
    monotone = check_flag("monotone", monotone)
    offset = check_float("offset", offset, minimum=0.0)
    if resamples is None:  # two B x n sample matrices and four B x s summaries
        check_memory(
            "n_resamples",
            check_int("n_resamples", n_resamples, minimum=1) * (16.0 * n + 32.0 * s),
            "the two sets of bootstrap samples and system summaries of the swap method",
        )
    if isinstance(rng, np.random.Generator):
        idx = topic_resamples(resamples, n, n_resamples, rng)
        idx2 = topic_resamples(resamples_prime, n, idx.shape[0], rng, name="resamples_prime")
    else:
        idx = topic_resamples(resamples, n, n_resamples, rng)
        idx2 = topic_resamples(resamples_prime, n, idx.shape[0], rng, stream=STREAM_SWAP, name="resamples_prime")
    if idx2.shape[0] != idx.shape[0]:
        raise InputError("resamples_prime", f"must have as many rows as `resamples` ({idx.shape[0]})")
    B = idx.shape[0]
    M1 = np.ascontiguousarray(bootstrap_summaries(X, idx, stat, offset))
    M2 = np.ascontiguousarray(bootstrap_summaries(X, idx2, stat, offset))
    pa, pb = _pairs(s)
    counter, swaps = _k.swap_counts(np.ascontiguousarray(M1.T), np.ascontiguousarray(M2.T), pa, pb, width, nb)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(counter > 0, swaps / np.maximum(counter, 1), np.nan)
    lower = np.arange(nb) * width
    upper = np.append(lower[1:], np.inf)
    bins = pd.DataFrame(
        {
            "lower": np.round(lower, 12),
            "upper": np.round(upper, 12),
            "comparisons": counter,
            "swaps": swaps,
            "swap_rate": rate,
        }
    )
    nonempty = counter > 0
    ok = nonempty & (rate <= thr)
    i_abs = None
    if monotone:
        for i in range(nb):
            if ok[i] and np.all(ok[i:] | ~nonempty[i:]):
                i_abs = i
                break
    else:
        hits = np.flatnonzero(ok)
        i_abs = int(hits[0]) if hits.size else None
    abs_d = float(lower[i_abs]) if i_abs is not None else float("nan")
    max_v = float(M1.max())
    rel = abs_d / max_v if (i_abs is not None and max_v != 0) else float("nan")
    sens = float(counter[i_abs:].sum() / counter.sum()) if i_abs is not None else 0.0
    return SwapResult(
        bins=bins,
        abs_difference=round(abs_d, 12),
        max_value=max_v,
        rel_difference=rel,
        sensitivity=sens,
        threshold=thr,
        n_pairs=int(pa.size),
        n_resamples=B,
    )
