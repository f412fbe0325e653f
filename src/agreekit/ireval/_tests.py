"""The paired (Studentised) and unpaired bootstrap tests of :mod:`agreekit.ireval.bootstrap`.

Also the counting rule shared by every ASL (b = #{b : |t*b| >= |t| (1 - 1e-12)}, see the
``bootstrap`` module docstring) and the critical rank k = B alpha.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agreekit._api import TestResultBase, deprecated_attribute, monte_carlo_pvalue, renamed_parameters
from agreekit._memory import check_memory
from agreekit._resampling import (
    STREAM_POOLED,
    log_values,
    resample_batches,
    summary_name,
    topic_resamples,
    unit_mean_interval,
)
from agreekit._validation import InputError, as_float_array, check_choice, check_float, check_int, check_real_values
from agreekit.ireval import _kernels as _k
from agreekit.ireval._summaries import GM_OFFSET

__all__ = ["ALTERNATIVES", "critical_rank", "PairedTestResult", "paired_test", "UnpairedTestResult", "unpaired_test"]


_REL_TOL = 1e-12  # relative tolerance of the ">=" counting rule
_ZERO_VAR_TOL = 1e-10  # replicate variance <= tol * mean square  ->  zero spread
ALTERNATIVES = ("two-sided", "greater", "less")


def critical_rank(n_resamples: int, alpha: float) -> int:
    """k = B * alpha, the rank of the bootstrap value behind the critical value and the
    required difference (Sakai uses B = 1000, alpha = 0.05 -> k = 50).

    When B * alpha is not an integer (B = 999), k is rounded down with a
    :class:`UserWarning` (the k-th largest value is then a slightly conservative
    threshold); B * alpha < 1 is an :class:`~agreekit.InputError`.

    Parameters
    ----------
    n_resamples : int
        B, the number of bootstrap samples.
    alpha : float
        The significance level of the test (a pair is significant iff ASL < alpha).

    Returns
    -------
    int
        k >= 1: ASL < alpha iff the observed |statistic| exceeds the k-th largest bootstrap
        value (Sakai Figs. 5-6).

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532
    (Figs. 5-6: the difference required for ASL < alpha). :doi:`10.1145/1148170.1148261`

    Examples
    --------
    >>> from agreekit.ireval.bootstrap import critical_rank
    >>> critical_rank(1000, 0.05), critical_rank(1000, 0.01)
    (50, 10)
    """
    B = check_int("n_resamples", n_resamples, minimum=1)
    alpha = check_float("alpha", alpha, minimum=0.0, maximum=1.0, inclusive=False)
    exact = B * alpha
    k = round(exact)
    if abs(k - exact) > 1e-9 * max(1.0, exact):
        k = math.floor(exact)
        if k >= 1:
            warnings.warn(
                f"n_resamples * alpha = {B} * {alpha} = {exact:g} is not an integer; the critical "
                f"rank k is rounded down to {k}",
                UserWarning,
                stacklevel=3,
            )
    if k < 1:
        raise InputError("alpha", f"n_resamples * alpha must be at least 1; got {B} * {alpha} = {exact:g}")
    return int(k)


def _check_alternative(alternative) -> str:
    return check_choice("alternative", alternative, ALTERNATIVES)


def _count_extreme(observed: float, null: np.ndarray, alternative: str) -> int:
    """b: replicates at least as extreme as ``observed`` (relative tolerance 1e-12)."""
    if alternative == "two-sided":
        return int(np.count_nonzero(np.abs(null) >= abs(observed) * (1 - _REL_TOL)))
    tol = _REL_TOL * abs(observed) if math.isfinite(observed) else 0.0
    if alternative == "greater":
        return int(np.count_nonzero(null >= observed - tol))
    return int(np.count_nonzero(null <= observed + tol))


def _kth_largest(A: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Column-wise k-th largest value of A (B x P) and the first replicate holding it.

    The replicate is the k-th in a stable descending sort (ties in replicate order).
    """
    B = A.shape[0]
    v = np.partition(A, B - k, axis=0)[B - k]
    greater = np.count_nonzero(A > v, axis=0)
    eq = A == v
    occ = np.cumsum(eq, axis=0)
    pos = np.argmax(eq & (occ == (k - greater)), axis=0)
    return v, pos


# --------------------------------------------------------------------------- paired test core


def _align_paired(x, y):
    """Two labelled :class:`pandas.Series` paired by label, as ``metric_agreement`` and
    ``rank_correlation_se`` pair topics: ``y`` is reordered to ``x``'s labels; different label
    sets or duplicate labels (unless both indexes are equal) are an :class:`InputError`.  Anything
    else is paired by position."""
    import pandas as pd

    if not (isinstance(x, pd.Series) and isinstance(y, pd.Series)) or x.index.equals(y.index):
        return x, y
    if x.index.has_duplicates or y.index.has_duplicates:
        raise InputError(
            "y",
            "x and y are Series with duplicate topic labels in a different order: they "
            "cannot be paired by label (give unique labels or arrays)",
        )
    a, b = set(map(str, x.index)), set(map(str, y.index))
    if a != b or len(x) != len(y) or len(set(x.index)) != len(a):
        raise InputError(
            "y",
            f"x and y are Series with different topic labels (only in x: "
            f"{sorted(a - b)[:5]}; only in y: {sorted(b - a)[:5]}): a paired test pairs "
            "topics by label",
        )
    by_text = pd.Series(y.to_numpy(), index=[str(t) for t in y.index])
    return x, pd.Series(by_text.loc[[str(t) for t in x.index]].to_numpy(), index=x.index, name=y.name)


def _two_samples(x, y, *, min_size: int) -> tuple[np.ndarray, np.ndarray]:
    """x and y as finite 1-D float arrays of at least ``min_size`` values (errors name x or y)."""
    out = []
    for nm, v in (("x", x), ("y", y)):
        check_real_values(nm, v)
        v = as_float_array(nm, v, what="numbers (per-topic scores)")
        if v.ndim != 1:
            raise InputError(nm, f"must be 1-D; got shape {v.shape}")
        if v.size < min_size:
            raise InputError(
                nm, "must not be empty" if min_size == 1 else f"must have at least {min_size} values; got {v.size}"
            )
        if not np.all(np.isfinite(v)):
            raise InputError(nm, "must not contain NaN or infinite values")
        out.append(v)
    return out[0], out[1]


def _paired_core(Z: np.ndarray, idx: np.ndarray):
    """Studentised paired bootstrap for one difference vector (used by :func:`paired_test`)."""
    CT = np.ascontiguousarray(_k.counts_matrix(idx, Z.size).T)
    return _k.paired_one(np.ascontiguousarray(Z, dtype=np.float64), CT, _ZERO_VAR_TOL)


def _asl(observed_abs: np.ndarray, null_abs: np.ndarray) -> np.ndarray:
    return np.count_nonzero(null_abs >= observed_abs * (1 - _REL_TOL), axis=0) / null_abs.shape[0]


@dataclass(frozen=True)
class _ASLResult(TestResultBase):
    """The fields and accessors both bootstrap test results share (the first four fields of
    either; ``n_resamples`` follows in each); ``statistic, pvalue = result`` unpacks like scipy's."""

    statistic: float
    pvalue: float
    asl: float
    null_distribution: np.ndarray = field(repr=False)

    def critical_value(self, alpha: float = 0.05) -> float:
        """The B*alpha-th largest absolute value of the null distribution: ASL < alpha iff the
        observed |statistic| exceeds it."""
        k = critical_rank(self.n_resamples, alpha)
        v, _ = _kth_largest(np.abs(self.null_distribution)[:, None], k)
        return float(v[0])


@dataclass(frozen=True)
class PairedTestResult(_ASLResult):
    """Result of :func:`paired_test`; ``statistic, pvalue = result``.

    Parameters
    ----------
    statistic : float
        Observed Studentised statistic t(z) = zbar / (sd(z) / sqrt(n)).
    pvalue : float
        scipy's resampling p-value (b + 1) / (B + 1), b = #{b : |t*b| >= |t|}
        (two-sided; t*b >= t for "greater", t*b <= t for "less").
    asl : float
        Sakai's achieved significance level b / B (can be 0).
    null_distribution : ndarray, shape (B,)
        Bootstrap replicates t*b under H0 (centred differences).
    mean_difference : float
        zbar, the observed mean difference (of logs for ``summary="gmean"``).
    bootstrap_differences : ndarray, shape (B,)
        The replicate means wbar*b (needed for the required difference).
    n_resamples : int
        B, the number of bootstrap samples.
    summary_name : str
        ``"mean"`` or ``"gmean"`` (formerly ``statistic_name``).
    alternative : str
        ``"two-sided"``, ``"greater"`` or ``"less"``.
    differences : ndarray, shape (n,), optional
        z, the per-topic differences (of logs for ``"gmean"``), kept for :meth:`confidence_interval`
        (not exported, not compared).

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532.
    :doi:`10.1145/1148170.1148261`

    Examples
    --------
    Three topic samples injected by hand (0-based): the differences z = (0.25, 0.5, 0) are
    centred to w = (0, 0.25, -0.25); the sample that draws topic 0 three times has no spread
    and gets t* = 0.  No |t*| reaches t = sqrt(3), so Sakai's ASL is 0 while scipy's p-value
    is 1 / (B + 1):

    >>> from agreekit.ireval.bootstrap import paired_test
    >>> res = paired_test([0.75, 1.0, 0.5], [0.5, 0.5, 0.5], resamples=[[0, 1, 2], [0, 0, 0], [2, 1, 1]])
    >>> res.null_distribution.round(4).tolist()
    [0.0, 0.0, 0.5]
    >>> round(res.statistic, 4), res.asl, res.pvalue, res.n_resamples
    (1.7321, 0.0, 0.25, 3)
    """

    mean_difference: float
    bootstrap_differences: np.ndarray = field(repr=False)
    n_resamples: int
    summary_name: str = "mean"
    alternative: str = "two-sided"
    #: z, the per-topic differences (of logs for "gmean"), kept for confidence_interval
    differences: np.ndarray | None = field(default=None, repr=False, compare=False)

    statistic_name = deprecated_attribute("summary_name", "statistic_name")

    def confidence_interval(self, confidence_level=0.95, *, method=None, n_resamples=9999, rng=None):
        """Interval for the population mean per-topic difference μ_X − μ_Y (of logs for ``"gmean"``).

        Estimand: the mean difference over the population of topics the n topics are an i.i.d. sample of;
        the topics are resampled with replacement (:func:`agreekit._resampling.unit_mean_interval`).

        Parameters
        ----------
        confidence_level : float, optional
            Nominal coverage in (0, 1) (default 0.95).
        method : {None, 'bootstrap', 'percentile', 'jackknife'}, optional
            ``'bootstrap'`` (BCa; also for None), ``'percentile'``, or ``'jackknife'`` (the t interval).
        n_resamples : int, optional
            Bootstrap resamples (default 9999).
        rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
            Randomness of the bootstrap (scipy SPEC 7).

        Returns
        -------
        ConfidenceInterval
            ``low, high = ci``; also ``method``, ``confidence_level``, ``estimate`` (the mean difference).

        Examples
        --------
        >>> from agreekit.ireval.bootstrap import paired_test
        >>> res = paired_test([0.5, 0.4, 0.6, 0.3, 0.7], [0.45, 0.41, 0.5, 0.25, 0.6], rng=1)
        >>> low, high = res.confidence_interval(method="jackknife")
        >>> bool(low < res.mean_difference < high)
        True
        """
        return unit_mean_interval(
            self.differences,
            confidence_level,
            method=method,
            n_resamples=n_resamples,
            rng=rng,
            estimand="the population mean per-topic difference of the two systems",
        )

    def required_difference(self, alpha: float = 0.05) -> float:
        """|wbar*| of the replicate with the B*alpha-th largest |t*| (Sakai Fig. 5, one pair)."""
        k = critical_rank(self.n_resamples, alpha)
        _, pos = _kth_largest(np.abs(self.null_distribution)[:, None], k)
        return float(abs(self.bootstrap_differences[pos[0]]))


@renamed_parameters(statistic="summary")
def paired_test(
    x: Any,
    y: Any,
    *,
    alternative: str = "two-sided",
    n_resamples: int = 1000,
    rng: Any = None,
    resamples: Any = None,
    summary: str = "mean",
    offset: float = GM_OFFSET,
) -> PairedTestResult:
    """Studentised paired bootstrap test of H0: mu_X = mu_Y.

    z = x - y, t = zbar / (sd(z)/sqrt(n)); the null is imposed by centring,
    w = z - zbar; each bootstrap sample w*b = w[resamples[b]] gives
    t*b = mean(w*b) / (sd(w*b)/sqrt(n)).  With b = #{|t*b| >= |t|} (two-sided),
    ``pvalue`` = (b + 1) / (B + 1) (scipy's rule) and ``asl`` = b / B (Sakai's ASL).

    Parameters
    ----------
    x, y : array_like, shape (n,)
        Per-topic values of systems X and Y on the same topics, in the same order; two
        :class:`pandas.Series` are paired by their labels (different label sets are an error).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        H1: mu_X != mu_Y (b counts |t*b| >= |t|), mu_X > mu_Y (t*b >= t) or
        mu_X < mu_Y (t*b <= t).
    n_resamples : int, default 1000
        B (ignored when ``resamples`` is given).  The topic samples are drawn and used in
        batches; the result holds 2 B replicates (16 B bytes), refused up front with
        :class:`~agreekit.InputError` beyond the memory limit
        (:mod:`agreekit._memory`).
    rng : None, int, SeedSequence or Generator
        Source of the bootstrap samples (see module docstring).
    resamples : array_like of int, shape (B, n), optional
        Injected topic samples (row b = indices of Q*b, 0-based).
    summary : {"mean", "gmean"}
        ``"gmean"`` is the "AG" variant for geometric means: the test runs on
        z = ln(x + offset) - ln(y + offset).  (Formerly ``statistic=``.)
    offset : float, default 1e-5
        Geometric-mean offset.

    Returns
    -------
    PairedTestResult
        ``statistic, pvalue = result``; also Sakai's ASL, the null replicates and the replicate
        mean differences.

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532
    (Figs. 1-2: the paired test; its AG variant for geometric means). :doi:`10.1145/1148170.1148261`

    Examples
    --------
    >>> import numpy as np
    >>> from agreekit.ireval.bootstrap import paired_test
    >>> x = np.array([0.5, 0.4, 0.6, 0.3, 0.7, 0.45, 0.55, 0.62])
    >>> y = x - np.array([0.02, 0.06, 0.04, 0.01, 0.07, 0.03, 0.05, 0.0])
    >>> res = paired_test(x, y, rng=1)
    >>> t, p = res
    >>> round(t, 3), p < 0.05, p == (res.asl * 1000 + 1) / 1001
    (4.041, True, True)
    """
    stat = summary_name(summary, allow_callable=False)
    offset = check_float("offset", offset, minimum=0.0)
    alternative = _check_alternative(alternative)

    x, y = _two_samples(*_align_paired(x, y), min_size=2)
    if x.size != y.size:
        raise InputError("y", f"must have the same length as `x` ({x.size}) for a paired test; got {y.size}")
    if stat == "gmean":
        z = log_values(x, offset, "x") - log_values(y, offset, "y")
    else:
        z = x - y
    if resamples is None:
        B = check_int("n_resamples", n_resamples, minimum=1)
        check_memory(
            "n_resamples",
            16.0 * B,
            f"the {B} bootstrap replicates t*b and wbar*b the result holds (null_distribution, bootstrap_differences)",
        )
    B, batches = resample_batches(resamples, x.size, n_resamples, rng)
    tstar = np.empty(B)
    wbar = np.empty(B)
    z = np.ascontiguousarray(z, dtype=np.float64)
    t = 0.0
    for lo, idx in batches:  # streamed: only one batch of topic samples in memory
        t, ts, wb, _ = _paired_core(z, idx)
        tstar[lo : lo + ts.size] = ts
        wbar[lo : lo + wb.size] = wb
    b = _count_extreme(float(t), tstar, alternative)
    return PairedTestResult(
        statistic=float(t),
        pvalue=float(monte_carlo_pvalue(b, B)),
        asl=b / B,
        null_distribution=tstar,
        mean_difference=float(z.mean()),
        bootstrap_differences=wbar,
        n_resamples=B,
        summary_name=stat,
        alternative=alternative,
        differences=z,
    )


# --------------------------------------------------------------------------- unpaired test


def _apply_statistic(fn: Callable, sample: np.ndarray) -> np.ndarray:
    """Apply ``fn`` along the last axis, vectorised when it accepts ``axis``."""
    try:
        out = np.asarray(fn(sample, axis=-1), dtype=np.float64)
        if out.shape == sample.shape[:-1]:
            return out
    except TypeError:
        pass
    return np.apply_along_axis(lambda r: float(fn(r)), -1, sample)


def _stat_fn(statistic, offset: float) -> Callable:
    if statistic == "mean":
        return lambda a, axis=-1: np.mean(a, axis=axis)
    if statistic == "gmean":
        return lambda a, axis=-1: np.exp(np.mean(np.log(a + offset), axis=axis)) - offset
    return statistic


@dataclass(frozen=True)
class UnpairedTestResult(_ASLResult):
    """Result of :func:`unpaired_test`; ``statistic, pvalue = result``.

    Parameters
    ----------
    statistic : float
        Observed dhat = M(x) - M(y) (Eq. 8).
    pvalue : float
        (b + 1) / (B + 1) with b = #{b : |d*b| >= |dhat|} (two-sided; d*b >= dhat
        for "greater", d*b <= dhat for "less"), scipy's rule.
    asl : float
        Sakai's ASL b / B.
    null_distribution : ndarray, shape (B,)
        Replicates d*b = M(x*b) - M(y*b) from the pooled values.
    n_resamples : int
        B, the number of bootstrap samples.
    alternative : str
        ``"two-sided"``, ``"greater"`` or ``"less"``.

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532.
    :doi:`10.1145/1148170.1148261`

    Examples
    --------
    The unpaired test of two clearly different systems with the geometric mean; the required
    difference of this one pair is the critical value, the 50th largest |d*| of 1000:

    >>> from agreekit.ireval.bootstrap import unpaired_test
    >>> res = unpaired_test([0.9, 0.7, 0.8, 0.6, 0.75], [0.1, 0.3, 0.2, 0.15, 0.25], summary="gmean", rng=4)
    >>> stat, p = res
    >>> round(stat, 4), res.asl, round(p, 4), round(res.required_difference(0.05), 4)
    (0.5568, 0.002, 0.003, 0.3542)
    """

    n_resamples: int
    alternative: str = "two-sided"

    def required_difference(self, alpha: float = 0.05) -> float:
        """The B*alpha-th largest |d*b|: this pair's required difference (Fig. 6)."""
        return self.critical_value(alpha)


@renamed_parameters(statistic="summary")
def unpaired_test(
    x: Any,
    y: Any,
    *,
    alternative: str = "two-sided",
    summary: str | Callable = "mean",
    n_resamples: int = 1000,
    rng: Any = None,
    resamples: Any = None,
    offset: float = GM_OFFSET,
) -> UnpairedTestResult:
    """Unpaired bootstrap test of H0: F = G for any summary statistic.

    The pooled vector v = (x, y) is resampled with replacement; the first n
    values of a sample form x*b, the remaining m form y*b, and
    d*b = M(x*b) - M(y*b) (Sakai Figs. 3-4).

    Parameters
    ----------
    x : array_like, shape (n,)
    y : array_like, shape (m,)
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        b counts |d*b| >= |dhat|, d*b >= dhat or d*b <= dhat; ``pvalue`` =
        (b + 1) / (B + 1), ``asl`` = b / B.
    summary : {"mean", "gmean"} or callable
        Summary statistic M (formerly ``statistic=``); a callable gets a sample (and
        ``axis=-1`` if it accepts it, like numpy reducers) and returns a number.
    n_resamples : int, default 1000
        B (ignored when ``resamples`` is given).
    rng : None, int, SeedSequence or Generator
        Source of the pooled indices (with an int seed: stream 2 of the module's streams).
    resamples : array_like of int, shape (B, n + m), optional
        Injected indices into v (0-based).
    offset : float, default 1e-5
        Geometric-mean offset (``summary="gmean"``, Sakai Eq. 7).

    Returns
    -------
    UnpairedTestResult
        ``statistic, pvalue = result``; also Sakai's ASL and the replicates d*b.

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532
    (Figs. 3-4, Eq. 8: the unpaired test). :doi:`10.1145/1148170.1148261`

    Examples
    --------
    Sakai's worked example of Fig. 3 with its indices (1, 4, 1, 2), 0-based:

    >>> from agreekit.ireval.bootstrap import unpaired_test
    >>> res = unpaired_test([0.1, 0.3], [0.2, 0.0], resamples=[[0, 3, 0, 1]])
    >>> float(round(res.null_distribution[0], 10))   # x* = (0.1, 0.0), y* = (0.1, 0.3)
    -0.15
    """
    stat = summary_name(summary, allow_callable=True)
    offset = check_float("offset", offset, minimum=0.0)
    alternative = _check_alternative(alternative)

    x, y = _two_samples(x, y, min_size=1)
    n, m = x.size, y.size
    v = np.concatenate([x, y])
    if stat == "gmean":
        log_values(v, offset, "x, y")
    idx = topic_resamples(
        resamples,
        n + m,
        n_resamples,
        rng,
        stream=STREAM_POOLED,
        bytes_per_resample=8.0 * (n + m) + 32.0,
        what="pooled indices, resampled values and replicates of the unpaired test",
    )
    fn = _stat_fn(stat, offset)
    dhat = float(_apply_statistic(fn, x[None, :])[0] - _apply_statistic(fn, y[None, :])[0])
    sample = v[idx]
    d = _apply_statistic(fn, sample[:, :n]) - _apply_statistic(fn, sample[:, n:])
    if not np.all(np.isfinite(d)) or not np.isfinite(dhat):
        raise InputError("summary", "returned NaN or infinite values")
    B = idx.shape[0]
    b = _count_extreme(dhat, d, alternative)
    return UnpairedTestResult(
        statistic=dhat,
        pvalue=float(monte_carlo_pvalue(b, B)),
        asl=b / B,
        null_distribution=d,
        n_resamples=B,
        alternative=alternative,
    )
