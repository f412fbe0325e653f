"""Bootstrap meta-evaluation of evaluation metrics (Sakai, SIGIR 2006).

Given a topics x systems score matrix of one evaluation metric, this module
answers "how good is the metric?" with the bootstrap:

* :func:`paired_test` - Studentised paired bootstrap test (Figs. 1-2), with
  the log-space "AG" variant for geometric means (``summary="gmean"``);
* :func:`unpaired_test` - unpaired (two-sample) bootstrap test for any
  summary statistic (Figs. 3-4);
* :func:`discriminative_power` - the test over all system pairs: number and
  share of pairs with ASL < alpha, the per-pair ASL table (ASL curves,
  Figs. 7-8) and the estimated difference required for ASL < alpha (Figs. 5-6);
* :func:`stability` - minority rate and proportion of ties over bootstrap
  topic sets for fuzziness values f (Fig. 9, Eqs. 9-10, MR-PT curves, Fig. 10);
* :func:`swap_rates` - swap rates per difference bin (Fig. 11) and the
  abs / max / rel / sensitivity quantities of Table 3;
* :func:`rank_correlation_se` - Kendall's tau (or Spearman's rho) between the
  system rankings of two metrics, its bootstrap standard error (Eq. 12) and the
  classical normal test (Eq. 11) or t test;
* :func:`difference_se` - the bootstrap standard error of a difference (Eq. 13);
* :func:`meta_evaluate` - everything above for one metric, on one shared set
  of bootstrap samples.

:data:`DEFAULT_FUZZINESS` is the stability method's grid f = 0.01, 0.02, ..., 0.20.
``summary`` (``"mean"`` or ``"gmean"``, Sakai's Eq. 7) is how a system's per-topic
values are summarised, everywhere; a result's ``statistic`` is the value of a statistic.

Resampling.  One B x n matrix of topic indices (``resamples``; row b is the
bootstrap topic sample Q*b) is shared by every pair, every metric, the
stability method and the standard errors; the swap method uses a second,
independent matrix, and the unpaired test a B x (n + m) matrix over the
pooled values.  Each can be injected for deterministic tests.  Otherwise they
are drawn with ``numpy.random.default_rng``: an integer seed (or ``None`` or
a ``SeedSequence``) gives three independent named streams - topic samples
(stream 0), the swap method's second samples (stream 1) and the unpaired
pooled indices (stream 2) - so the same seed yields the same Q*b in every
function; a ``Generator`` is drawn from in call order.

Round-off.  Means of different topic values that are equal in exact
arithmetic can differ in the last bits depending on summation order; the
stability and swap methods therefore treat |x - y| <= 1e-12 max(|x|, |y|)
as a tie, and the bins use floor(round(|D| / width, 9)).

Counting rule.  With b = #{b : |t*b| >= |t|} (two-sided; ``alternative="greater"``
counts t*b >= t, ``"less"`` t*b <= t), Sakai's achieved significance level is
``asl`` = b / B (Efron and Tibshirani; it can be 0), and ``pvalue`` follows scipy's
rule for resampling p-values, (b + 1) / (B + 1) (never 0; ``scipy.stats.permutation_test``).
Discriminative power and the stability of its tables count what Sakai counts: a pair is
significant iff ASL < alpha.  Comparisons use scipy's relative tolerance for round-off:
|t*b| counts when |t*b| >= |t| (1 - 1e-12).  Degenerate pairs: identical systems (all
differences 0) get t = 0 and ASL = 1; a constant non-zero difference gets
t = +-inf and ASL = 0; a bootstrap replicate with zero spread gets t* = 0 when
all its values are 0 and +-inf otherwise.

References
----------
T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006,
pp. 525-532.
B. Efron and R. Tibshirani, "An Introduction to the Bootstrap", 1993.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from agreekit import _jit
from agreekit._jit import pick
from agreekit.ireval import _kernels as _k
from agreekit._memory import check_memory
import warnings

from agreekit._api import ResultBase, TestResultBase, deprecated_attribute, monte_carlo_pvalue, renamed_parameters
from agreekit._validation import InputError, as_float_array, check_choice, check_float, check_int
from agreekit.ireval.metrics import GM_OFFSET, _progress, align_scores, check_scores

__all__ = [
    "DEFAULT_FUZZINESS",
    "bootstrap_indices",
    "critical_rank",
    "difference_bin",
    "format_difference",
    "paired_test",
    "unpaired_test",
    "discriminative_power",
    "stability",
    "swap_rates",
    "rank_correlation_se",
    "kendall_normal_test",
    "kendall_critical_value",
    "spearman_t_test",
    "difference_se",
    "meta_evaluate",
    "PairedTestResult",
    "UnpairedTestResult",
    "DiscriminativePowerResult",
    "StabilityResult",
    "SwapResult",
    "RankCorrelationResult",
    "DifferenceSEResult",
    "MetaEvaluation",
]

#: fuzziness values of the stability method, f = 0.01, 0.02, ..., 0.20
DEFAULT_FUZZINESS = tuple(round(0.01 * i, 2) for i in range(1, 21))

_REL_TOL = 1e-12          # relative tolerance of the ">=" counting rule
_ZERO_VAR_TOL = 1e-10     # replicate variance <= tol * mean square  ->  zero spread
_STREAM_TOPICS, _STREAM_SWAP, _STREAM_POOLED = 0, 1, 2
ALTERNATIVES = ("two-sided", "greater", "less")
_DEFAULT_BATCH_ELEMENTS = 4_000_000   # B x pairs doubles per temporary array (32 MB)
_STREAM_BATCH_ELEMENTS = 1 << 21      # topic indices per streamed batch of resamples (16 MB)


# --------------------------------------------------------------------------- helpers


def _generator(rng: Any, stream: int) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, np.random.BitGenerator):
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.RandomState):
        raise InputError("rng", "must be None, a non-negative int, a numpy.random.SeedSequence or a "
                                "numpy.random.Generator, not RandomState")
    if rng is None:
        ss = np.random.SeedSequence()
    elif isinstance(rng, np.random.SeedSequence):
        ss = rng
    else:
        try:
            ss = np.random.SeedSequence(check_int("rng", rng, minimum=0))
        except InputError:
            raise InputError("rng", f"must be None, a non-negative int, a SeedSequence or a Generator; "
                                    f"got {rng!r}") from None
    return np.random.default_rng(np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (stream,)))


def bootstrap_indices(n: int, *, n_resamples: int = 1000, rng: Any = None,
                      stream: int = _STREAM_TOPICS) -> np.ndarray:
    """Draw a B x n matrix of indices in [0, n), uniformly with replacement.

    Row b is a bootstrap sample Q*b of n topics (Sakai Fig. 1).  With an int
    seed, ``stream`` selects an independent named stream (0 = topic samples,
    1 = the swap method's second samples, 2 = unpaired pooled indices).

    Examples
    --------
    >>> from agreekit.ireval.bootstrap import bootstrap_indices
    >>> bootstrap_indices(5, n_resamples=3, rng=1).shape
    (3, 5)
    """
    n = check_int("n", n, minimum=1)
    B = check_int("n_resamples", n_resamples, minimum=1)
    check_memory("n_resamples", 8.0 * B * n, f"a {B} x {n} matrix of resampled topic indices")
    return _generator(rng, stream).integers(0, n, size=(B, n), dtype=np.int64)


def _resample_batches(resamples, n, n_resamples, rng, stream=_STREAM_TOPICS, name="resamples"):
    """(B, batches): the topic samples as successive (offset, B_i x n index matrix) pairs.

    Drawn batch by batch from the same generator, they are the rows of
    :func:`bootstrap_indices` (numpy draws bounded integers without buffering), so
    streaming changes only the memory, never the samples."""
    if resamples is not None:
        idx = _check_resamples(resamples, n, name)
        B = idx.shape[0]
        step = max(1, _STREAM_BATCH_ELEMENTS // n)
        return B, ((lo, idx[lo:lo + step]) for lo in range(0, B, step))
    B = check_int("n_resamples", n_resamples, minimum=1)
    n = check_int("n", n, minimum=1)
    gen = _generator(rng, stream)
    step = max(1, _STREAM_BATCH_ELEMENTS // n)

    def draw():
        for lo in range(0, B, step):
            yield lo, gen.integers(0, n, size=(min(step, B - lo), n), dtype=np.int64)
    return B, draw()


def _check_resamples(resamples: Any, width: int, name: str = "resamples") -> np.ndarray:
    try:
        idx = np.asarray(resamples)
    except (TypeError, ValueError):
        raise InputError(name, "must be a 2-D integer array") from None
    if idx.ndim != 2 or idx.shape[1] != width or idx.shape[0] < 1:
        raise InputError(name, f"must have shape (B, {width}); got {idx.shape}")
    if idx.dtype.kind not in "iu":
        if idx.dtype.kind == "f" and np.all(np.isfinite(idx)) and np.all(idx == np.round(idx)):
            idx = idx.astype(np.int64)
        else:
            raise InputError(name, "must contain integer indices")
    if idx.min() < 0 or idx.max() >= width:
        raise InputError(name, f"indices must lie in [0, {width}); got [{idx.min()}, {idx.max()}]")
    return np.ascontiguousarray(idx, dtype=np.int64)


def _topic_resamples(resamples, n, n_resamples, rng, stream=_STREAM_TOPICS, name="resamples",
                     bytes_per_resample: float = 0.0, what: str = ""):
    """The B x n topic samples, drawn or injected; refused up front (InputError naming
    ``n_resamples``) if they and ``bytes_per_resample`` bytes per resample of the caller's
    own arrays would exceed the memory limit."""
    if resamples is not None:
        return _check_resamples(resamples, n, name)
    B = check_int("n_resamples", n_resamples, minimum=1)
    check_memory("n_resamples", B * (8.0 * n + bytes_per_resample),
                 f"{B} bootstrap samples of {n} topics" + (f" ({what})" if what else ""))
    return bootstrap_indices(n, n_resamples=B, rng=rng, stream=stream)


def critical_rank(n_resamples: int, alpha: float) -> int:
    """k = B * alpha, the rank of the bootstrap value behind the critical value and the
    required difference (Sakai uses B = 1000, alpha = 0.05 -> k = 50).

    When B * alpha is not an integer (B = 999), k is rounded down with a
    :class:`UserWarning` (the k-th largest value is then a slightly conservative
    threshold); B * alpha < 1 is an :class:`~agreekit._validation.InputError`.

    Parameters
    ----------
    n_resamples : int
        B, the number of bootstrap samples.
    alpha : float
        The significance level of the test (a pair is significant iff ASL < alpha).

    Examples
    --------
    >>> from agreekit.ireval.bootstrap import critical_rank
    >>> critical_rank(1000, 0.05)
    50
    """
    B = check_int("n_resamples", n_resamples, minimum=1)
    alpha = check_float("alpha", alpha, minimum=0.0, maximum=1.0, inclusive=False)
    exact = B * alpha
    k = round(exact)
    if abs(k - exact) > 1e-9 * max(1.0, exact):
        k = math.floor(exact)
        if k >= 1:
            warnings.warn(f"n_resamples * alpha = {B} * {alpha} = {exact:g} is not an integer; the critical "
                          f"rank k is rounded down to {k}", UserWarning, stacklevel=3)
    if k < 1:
        raise InputError("alpha", f"n_resamples * alpha must be at least 1; got {B} * {alpha} = {exact:g}")
    return int(k)


def difference_bin(d: Any, *, width: float = 0.01, n_bins: int = 21) -> np.ndarray:
    """Bin index of |d|: floor(|d| / width) made robust to round-off, clipped to n_bins - 1.

    ``floor(0.01 / 0.01)`` is 1 even when 0.01 was computed as 0.031 - 0.021.

    Examples
    --------
    >>> from agreekit.ireval.bootstrap import difference_bin
    >>> difference_bin([0.031 - 0.021, 0.2, 0.57]).tolist()
    [1, 20, 20]
    """
    q = np.round(np.abs(np.asarray(d, dtype=np.float64)) / width, 9)
    return np.minimum(np.floor(q).astype(np.int64), n_bins - 1)


def format_difference(value: float, *, decimals: int | None = 2, significant: int | None = None) -> str:
    """Format an estimated difference like Sakai's Table 2 (two decimals by default).

    The paper's text says "two significant figures" but its Table 2 prints two
    decimal places (1.42, 1.76); pass ``significant=2`` for the former.
    """
    if value is None or not np.isfinite(value):
        return "nan"
    if significant is not None:
        return f"{value:.{int(significant)}g}"
    return f"{value:.{int(decimals)}f}"


def _statistic_name(statistic, *, allow_callable: bool, parameter: str = "summary") -> str | Callable:
    """``summary`` checked: "mean", "gmean" (or a callable where ``allow_callable``)."""
    if callable(statistic):
        if not allow_callable:
            raise InputError(parameter, "the paired test supports 'mean' and 'gmean' (the AG "
                                        "variant); use the unpaired test for other summaries")
        return statistic
    return check_choice(parameter, statistic, ("mean", "gmean"))


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


def _log_values(X: np.ndarray, offset: float, name: str) -> np.ndarray:
    if np.any(X + offset <= 0):
        raise InputError(name, f"geometric mean needs values > -{offset}")
    return np.log(X + offset)


def _summaries(X: np.ndarray, idx: np.ndarray, statistic: str, offset: float) -> np.ndarray:
    """B x s system summaries M(X, Q*b) over the topic samples ``idx``."""
    n = X.shape[0]
    gather = pick(_k.gather_sum, idx.size * X.shape[1])
    if statistic == "mean":
        return gather(idx, np.ascontiguousarray(X)) / n
    L = _log_values(X, offset, "scores")
    return np.exp(gather(idx, np.ascontiguousarray(L)) / n) - offset


def _summary(X: np.ndarray, statistic: str, offset: float) -> np.ndarray:
    if statistic == "mean":
        return X.mean(axis=0)
    return np.exp(_log_values(X, offset, "scores").mean(axis=0)) - offset


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


def _pairs(s: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.triu_indices(s, 1)
    return a.astype(np.int64), b.astype(np.int64)


def _batch(n_resamples: int, batch_size: int | None) -> int:
    if batch_size is None:
        return max(1, _DEFAULT_BATCH_ELEMENTS // n_resamples)
    return check_int("batch_size", batch_size, minimum=1)


# --------------------------------------------------------------------------- paired test core


def _paired_core(Z: np.ndarray, idx: np.ndarray):
    """Studentised paired bootstrap for one difference vector (used by :func:`paired_test`)."""
    CT = np.ascontiguousarray(_k.counts_matrix(idx, Z.size).T)
    return _k.paired_one(np.ascontiguousarray(Z, dtype=np.float64), CT, _ZERO_VAR_TOL)


def _asl(observed_abs: np.ndarray, null_abs: np.ndarray) -> np.ndarray:
    return np.count_nonzero(null_abs >= observed_abs * (1 - _REL_TOL), axis=0) / null_abs.shape[0]


class _ASLResult(TestResultBase):
    """Shared accessors of the bootstrap test results (``asl``, ``null_distribution``, ``n_resamples``);
    ``statistic, pvalue = result`` unpacks like scipy's."""

    __slots__ = ()

    def critical_value(self, alpha: float = 0.05) -> float:
        """The B*alpha-th largest absolute value of the null distribution: ASL < alpha iff the
        observed |statistic| exceeds it."""
        k = critical_rank(self.n_resamples, alpha)
        v, _ = _kth_largest(np.abs(self.null_distribution)[:, None], k)
        return float(v[0])


@dataclass(frozen=True)
class PairedTestResult(_ASLResult):
    """Result of :func:`paired_test`; ``statistic, pvalue = result``.

    Attributes
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
    summary_name : str
        ``"mean"`` or ``"gmean"`` (formerly ``statistic_name``).
    alternative : str
    """

    statistic: float
    pvalue: float
    asl: float
    null_distribution: np.ndarray = field(repr=False)
    mean_difference: float
    bootstrap_differences: np.ndarray = field(repr=False)
    n_resamples: int
    summary_name: str = "mean"
    alternative: str = "two-sided"

    statistic_name = deprecated_attribute("summary_name", "statistic_name")

    def required_difference(self, alpha: float = 0.05) -> float:
        """|wbar*| of the replicate with the B*alpha-th largest |t*| (Sakai Fig. 5, one pair)."""
        k = critical_rank(self.n_resamples, alpha)
        _, pos = _kth_largest(np.abs(self.null_distribution)[:, None], k)
        return float(abs(self.bootstrap_differences[pos[0]]))


@renamed_parameters(statistic="summary")
def paired_test(x: Any, y: Any, *, alternative: str = "two-sided", n_resamples: int = 1000, rng: Any = None,
                resamples: Any = None, summary: str = "mean",
                offset: float = GM_OFFSET) -> PairedTestResult:
    """Studentised paired bootstrap test of H0: mu_X = mu_Y.

    z = x - y, t = zbar / (sd(z)/sqrt(n)); the null is imposed by centring,
    w = z - zbar; each bootstrap sample w*b = w[resamples[b]] gives
    t*b = mean(w*b) / (sd(w*b)/sqrt(n)).  With b = #{|t*b| >= |t|} (two-sided),
    ``pvalue`` = (b + 1) / (B + 1) (scipy's rule) and ``asl`` = b / B (Sakai's ASL).

    Parameters
    ----------
    x, y : array_like, shape (n,)
        Per-topic values of systems X and Y on the same topics, in the same order.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        H1: mu_X != mu_Y (b counts |t*b| >= |t|), mu_X > mu_Y (t*b >= t) or
        mu_X < mu_Y (t*b <= t).
    n_resamples : int, default 1000
        B (ignored when ``resamples`` is given).  The topic samples are drawn and used in
        batches; the result holds 2 B replicates (16 B bytes), refused up front with
        :class:`~agreekit._validation.InputError` beyond the memory limit
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
    stat = _statistic_name(summary, allow_callable=False)
    alternative = _check_alternative(alternative)

    x = as_float_array("x", x, what="numbers (per-topic scores)")
    y = as_float_array("y", y, what="numbers (per-topic scores)")
    for nm, v in (("x", x), ("y", y)):
        if v.ndim != 1:
            raise InputError(nm, f"must be 1-D; got shape {v.shape}")
        if v.size < 2:
            raise InputError(nm, f"must have at least 2 values; got {v.size}")
        if not np.all(np.isfinite(v)):
            raise InputError(nm, "must not contain NaN or infinite values")
    if x.size != y.size:
        raise InputError("y", f"must have the same length as `x` ({x.size}) for a paired test; got {y.size}")
    if stat == "gmean":
        z = _log_values(x, offset, "x") - _log_values(y, offset, "y")
    else:
        z = x - y
    if resamples is None:
        B = check_int("n_resamples", n_resamples, minimum=1)
        check_memory("n_resamples", 16.0 * B, f"the {B} bootstrap replicates t*b and wbar*b the result "
                                               f"holds (null_distribution, bootstrap_differences)")
    B, batches = _resample_batches(resamples, x.size, n_resamples, rng)
    tstar = np.empty(B)
    wbar = np.empty(B)
    z = np.ascontiguousarray(z, dtype=np.float64)
    t = 0.0
    for lo, idx in batches:  # streamed: only one batch of topic samples in memory
        t, ts, wb, _ = _paired_core(z, idx)
        tstar[lo:lo + ts.size] = ts
        wbar[lo:lo + wb.size] = wb
    b = _count_extreme(float(t), tstar, alternative)
    return PairedTestResult(statistic=float(t), pvalue=float(monte_carlo_pvalue(b, B)), asl=b / B,
                            null_distribution=tstar, mean_difference=float(z.mean()),
                            bootstrap_differences=wbar, n_resamples=B, summary_name=stat,
                            alternative=alternative)


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

    Attributes
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
    """

    statistic: float
    pvalue: float
    asl: float
    null_distribution: np.ndarray = field(repr=False)
    n_resamples: int
    alternative: str = "two-sided"

    def required_difference(self, alpha: float = 0.05) -> float:
        """The B*alpha-th largest |d*b|: this pair's required difference (Fig. 6)."""
        return self.critical_value(alpha)


@renamed_parameters(statistic="summary")
def unpaired_test(x: Any, y: Any, *, alternative: str = "two-sided", summary: str | Callable = "mean",
                  n_resamples: int = 1000, rng: Any = None, resamples: Any = None,
                  offset: float = GM_OFFSET) -> UnpairedTestResult:
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
    resamples : array_like of int, shape (B, n + m), optional
        Injected indices into v (0-based).

    Examples
    --------
    >>> from agreekit.ireval.bootstrap import unpaired_test
    >>> res = unpaired_test([0.1, 0.3], [0.2, 0.0], resamples=[[0, 3, 0, 1]])
    >>> float(round(res.null_distribution[0], 10))   # x* = (0.1, 0.0), y* = (0.1, 0.3)
    -0.15
    """
    stat = _statistic_name(summary, allow_callable=True)
    alternative = _check_alternative(alternative)

    x = as_float_array("x", x, what="numbers (per-topic scores)")
    y = as_float_array("y", y, what="numbers (per-topic scores)")
    for nm, v in (("x", x), ("y", y)):
        if v.ndim != 1:
            raise InputError(nm, f"must be 1-D; got shape {v.shape}")
        if v.size < 1:
            raise InputError(nm, "must not be empty")
        if not np.all(np.isfinite(v)):
            raise InputError(nm, "must not contain NaN or infinite values")
    n, m = x.size, y.size
    v = np.concatenate([x, y])
    if stat == "gmean":
        _log_values(v, offset, "x, y")
    idx = _topic_resamples(resamples, n + m, n_resamples, rng, stream=_STREAM_POOLED,
                           bytes_per_resample=8.0 * (n + m) + 32.0,
                           what="pooled indices, resampled values and replicates of the unpaired test")
    fn = _stat_fn(stat, offset)
    dhat = float(_apply_statistic(fn, x[None, :])[0] - _apply_statistic(fn, y[None, :])[0])
    sample = v[idx]
    d = _apply_statistic(fn, sample[:, :n]) - _apply_statistic(fn, sample[:, n:])
    if not np.all(np.isfinite(d)) or not np.isfinite(dhat):
        raise InputError("summary", "returned NaN or infinite values")
    B = idx.shape[0]
    b = _count_extreme(dhat, d, alternative)
    return UnpairedTestResult(statistic=dhat, pvalue=float(monte_carlo_pvalue(b, B)), asl=b / B,
                              null_distribution=d, n_resamples=B, alternative=alternative)


# --------------------------------------------------------------------------- all pairs


@dataclass(frozen=True)
class DiscriminativePowerResult(ResultBase):
    """Result of :func:`discriminative_power` (Sakai Table 2, Figs. 5-8).

    Attributes
    ----------
    n_pairs, n_significant : int
        |C| and #{pairs with ASL < alpha} (Sakai's ASL = b / B, not the (b + 1) / (B + 1)
        p-value: the count of the seed).
    proportion : float
        n_significant / n_pairs (the "sensitivity").
    estimated_difference : float
        Maximum over pairs of the per-pair required difference (Figs. 5-6);
        NaN if every pair is degenerate.  In log units for the paired test
        with ``summary="gmean"`` (AG).
    summary_name : str
        The summary ("mean", "gmean" or the callable's name; formerly ``statistic``).
    alpha : float
        The significance level; k = B alpha (rounded down) is the critical rank.
    table : DataFrame
        One row per pair (i < j in column order): ``system_a``, ``system_b``,
        ``difference`` (observed M(a) - M(b); mean log difference for AG),
        ``statistic`` (t or dhat), ``asl``, ``significant``,
        ``critical_value`` (k-th largest |t*| or |d*|), ``required_difference``
        (the pair's contribution; NaN for degenerate paired pairs).
    """

    n_pairs: int
    n_significant: int
    proportion: float
    estimated_difference: float
    alpha: float
    k: int
    test: str
    summary_name: str
    n_resamples: int
    table: pd.DataFrame = field(repr=False)

    statistic = deprecated_attribute("summary_name", "statistic")

    @property
    def asl(self) -> np.ndarray:
        """Per-pair ASLs (upper-triangle order)."""
        return self.table["asl"].to_numpy()

    @property
    def asl_curve(self) -> np.ndarray:
        """ASLs sorted ascending (the curves of Figs. 7-8)."""
        return np.sort(self.asl)

    def to_frame(self) -> pd.DataFrame:
        """The per-pair table (a copy)."""
        return self.table.copy()

    def to_dict(self) -> dict:
        """Plain-dict summary (JSON-able; the keys of the pipeline's summary.json, where
        ``statistic`` is the summary name)."""
        return {"test": self.test, "statistic": self.summary_name, "alpha": self.alpha, "k": self.k,
                "n_resamples": self.n_resamples, "n_pairs": self.n_pairs,
                "n_significant": self.n_significant, "proportion": self.proportion,
                "estimated_difference": self.estimated_difference}


def _paired_all_pairs(X, pa, pb, idx, k):
    """Paired test of every pair on one in-memory B x n sample matrix (kept as the reference
    of the streamed :func:`_paired_all_pairs_stream`)."""
    CT = np.ascontiguousarray(_k.counts_matrix(idx, X.shape[0]).T)
    t, asl, crit, contrib, degen = _k.paired_all_pairs(np.ascontiguousarray(X), pa, pb, CT, k,
                                                       _REL_TOL, _ZERO_VAR_TOL)
    contrib[degen] = np.nan
    return t, asl, crit, contrib


def _paired_all_pairs_stream(X, pa, pb, B, batches, k):
    """The same results as :func:`_paired_all_pairs`, with the topic samples streamed in
    batches: memory O(pairs x k) for the k = B alpha largest |t*| per pair (needed for the
    critical value and the required difference), not O(B x n).

    Small analyses whose kernel is not compiled yet run :func:`_paired_stream_numpy` instead
    (the same operations in the same order, vectorised over pairs: the same bits, no compile)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    P = pa.size
    work = 4.0 * P * n * B
    kernel = _k.paired_pairs_batch
    mode = _jit._mode()
    if mode == "interpreted" or (mode == "auto" and P * B <= _NUMPY_PAIRED_MAX_ELEMENTS
                                 and work <= _jit.INTERPRET_BUDGET * 1000
                                 and not _jit.available(_jit.serial(kernel)) and not _jit.available(kernel)):
        return _paired_stream_numpy(X, pa, pb, B, batches, k)
    t = np.empty(P)
    degen = np.zeros(P, dtype=bool)
    empty = np.zeros((n, 0))
    one = pick(_k.paired_one, 4 * n * P)
    for p in range(P):
        tt, _, _, const = one(np.ascontiguousarray(X[:, pa[p]] - X[:, pb[p]]), empty, _ZERO_VAR_TOL)
        t[p] = tt
        degen[p] = const
    thr = np.abs(t) * (1.0 - _REL_TOL)
    cap = k + min(B, max(k // 4, 1024))
    count = np.zeros(P, dtype=np.int64)
    vals = np.empty((P, cap))
    idxs = np.empty((P, cap), dtype=np.int64)
    wbs = np.empty((P, cap))
    fill = np.zeros(P, dtype=np.int64)
    kth = np.full(P, -1.0)
    batch_kernel = pick(kernel, work)
    for lo, idx in batches:
        CT = np.ascontiguousarray(pick(_k.counts_matrix, idx.size)(idx, n).T)
        batch_kernel(X, pa, pb, CT, lo, thr, count, vals, idxs, wbs, fill, kth, k, _ZERO_VAR_TOL)
    crit = np.empty(P)
    contrib = np.empty(P)
    prune = pick(_k._prune_top, P * cap * 8)
    for p in range(P):
        f = prune(vals[p], idxs[p], wbs[p], fill[p], k)
        crit[p] = vals[p, f - 1]
        contrib[p] = abs(wbs[p, f - 1])
    contrib[degen] = np.nan
    return t, count / B, crit, contrib


#: the numpy paired test keeps B x P values (|t*| and wbar) in memory: at most this many
_NUMPY_PAIRED_MAX_ELEMENTS = 4_000_000


def _paired_one_numpy(Z, zero_tol):
    """:func:`agreekit.ireval._kernels.paired_one` for every column of Z (n x P) at once,
    without the replicates: (t, w, w2, const), sums over topics in topic order."""
    n, P = Z.shape
    s = np.zeros(P)
    sq = np.zeros(P)
    for i in range(n):
        s += Z[i]
        sq += Z[i] * Z[i]
    zbar = s / n
    dev = np.zeros(P)
    for i in range(n):
        d = Z[i] - zbar
        dev += d * d
    const = dev / (n - 1) <= zero_tol * (sq / n)
    W = np.where(const[None, :], 0.0, Z - zbar[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = np.sqrt(dev / (n - 1))
        t = zbar / (sd / np.sqrt(n))
    t = np.where(const, np.where(sq == 0.0, 0.0, np.where(zbar > 0, np.inf, -np.inf)), t)
    return t, W, W * W, const


def _replicate_sums_numpy(C, W, W2):
    """(C @ W, C @ W2) summed as :func:`agreekit.ireval._kernels._replicate_sums` sums: the
    topics added one after the other (C: B x n counts, W, W2: n x P)."""
    Bb, n = C.shape
    s1 = np.zeros((Bb, W.shape[1]))
    s2 = np.zeros((Bb, W.shape[1]))
    for i in range(n):
        c = C[:, i, None]
        s1 += c * W[i]
        s2 += c * W2[i]
    return s1, s2


def _paired_stream_numpy(X, pa, pb, B, batches, k):
    """:func:`_paired_all_pairs_stream` in numpy, for small analyses (B x P within
    :data:`_NUMPY_PAIRED_MAX_ELEMENTS`): the kernels' operations in the kernels' order,
    vectorised over pairs and replicates, so the results are the same bits."""
    n = X.shape[0]
    P = pa.size
    Z = X[:, pa] - X[:, pb]
    t, W, W2, degen = _paired_one_numpy(Z, _ZERO_VAR_TOL)
    thr = np.abs(t) * (1.0 - _REL_TOL)
    absT = np.empty((B, P))
    wbar = np.empty((B, P))
    for lo, idx in batches:
        Bb = idx.shape[0]
        C = np.zeros((Bb, n))
        np.add.at(C, (np.repeat(np.arange(Bb), idx.shape[1]), idx.ravel()), 1.0)
        s1, s2 = _replicate_sums_numpy(C, W, W2)
        mean = s1 / n
        var = (s2 - s1 * mean) / (n - 1)
        var[var < 0.0] = 0.0
        flat = var <= _ZERO_VAR_TOL * (s2 / n)
        with np.errstate(divide="ignore", invalid="ignore"):
            ts = mean / np.sqrt(var / n)
        edge = np.where(s2 == 0.0, 0.0, np.where(mean > 0, np.inf, np.where(mean < 0, -np.inf, 0.0)))
        absT[lo:lo + Bb] = np.abs(np.where(flat, edge, ts))
        wbar[lo:lo + Bb] = mean
    count = (absT >= thr[None, :]).sum(axis=0)
    # the k-th largest |t*| in a stable descending order (ties: the earlier replicate first)
    order = np.argsort(-absT, axis=0, kind="stable")
    kth = order[k - 1]
    cols = np.arange(P)
    crit = absT[kth, cols]
    contrib = np.abs(wbar[kth, cols])
    contrib[degen] = np.nan
    return t, count / B, crit, contrib


def _unpaired_all_pairs(X, pa, pb, idx2, k, batch, statistic, offset):
    """Unpaired test for all pairs; idx2 is B x 2n over the pooled (x_a, x_b)."""
    n = X.shape[0]
    P = pa.size
    if callable(statistic):
        fn = statistic
        obs = _apply_statistic(fn, X.T)
        dhat = obs[pa] - obs[pb]
        small = max(1, batch // max(1, 2 * n))
        crit = np.empty(P)
        asl = np.empty(P)
        for lo in range(0, P, small):
            sl = slice(lo, min(P, lo + small))
            V = np.concatenate([X[:, pa[sl]], X[:, pb[sl]]], axis=0)  # 2n x p
            S = V[idx2]                                               # B x 2n x p
            S = np.moveaxis(S, 2, 1)                                  # B x p x 2n
            d = _apply_statistic(fn, S[:, :, :n]) - _apply_statistic(fn, S[:, :, n:])
            if not np.all(np.isfinite(d)):
                raise InputError("summary", "returned NaN or infinite values")
            ad = np.abs(d)
            asl[sl] = _asl(np.abs(dhat[sl]), ad)
            crit[sl] = _kth_largest(ad, k)[0]
        return dhat, asl, crit
    # mean / gmean: the pooled sums decompose into per-system sums
    V = X if statistic == "mean" else _log_values(X, offset, "scores")
    Z0 = np.zeros_like(V)
    top = np.ascontiguousarray(np.vstack([V, Z0]))     # pooled index < n  -> system a
    bot = np.ascontiguousarray(np.vstack([Z0, V]))     # pooled index >= n -> system b
    F, S = np.ascontiguousarray(idx2[:, :n]), np.ascontiguousarray(idx2[:, n:])
    sums = [np.ascontiguousarray(_k.gather_sum(I, M).T) for I in (F, S) for M in (top, bot)]
    obs = V.mean(axis=0)
    if statistic == "gmean":
        obs = np.exp(obs) - offset
    dhat = obs[pa] - obs[pb]
    asl, crit = _k.unpaired_all_pairs(sums[0], sums[1], sums[2], sums[3], pa, pb, float(n), float(n),
                                      np.ascontiguousarray(dhat), statistic == "gmean", k, _REL_TOL)
    return dhat, asl, crit


@renamed_parameters(statistic="summary")
def discriminative_power(scores: Any, *, alpha: float = 0.05, test: str = "paired",
                         n_resamples: int = 1000, rng: Any = None, resamples: Any = None,
                         summary: str | Callable = "mean", offset: float = GM_OFFSET,
                         batch_size: int | None = None, progress: bool | None = None) -> DiscriminativePowerResult:
    """Bootstrap test over all system pairs: discriminative power and required difference.

    Parameters
    ----------
    scores : DataFrame or array_like, shape (n topics, s systems)
        Per-topic values of one metric (see :func:`agreekit.ireval.metrics.load_scores`).
    alpha : float, default 0.05
        Significance level; a pair is significant iff Sakai's ASL = b / B < alpha
        (the count of the seed, not the (b + 1) / (B + 1) p-value).  k = B alpha
        (Figs. 5-6) is rounded down with a warning when it is not an integer.
    test : {"paired", "unpaired"}
    n_resamples, rng, resamples
        As in :func:`paired_test`; the same topic samples serve every pair.
        For the unpaired test ``resamples`` has shape (B, 2n).
    summary : {"mean", "gmean"} or callable
        Summary statistic (formerly ``statistic=``); ``"gmean"`` with the paired test is
        the AG variant; callables only with the unpaired test.
    batch_size : int, optional
        Only for a callable statistic of the unpaired test, which needs the
        resampled values themselves: pairs per batch (memory about
        B * batch_size doubles; default about 32 MB).  "mean" and "gmean" run in
        compiled kernels with memory O(B) per pair and per thread.
    progress : bool, optional
        A progress bar over the batches of topic samples of the paired test on stderr
        (default: only when stderr is a terminal and there is more than one batch).

    Returns
    -------
    DiscriminativePowerResult

    Examples
    --------
    >>> import numpy as np
    >>> from agreekit.ireval.bootstrap import discriminative_power
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(30, 1)) + np.linspace(0, 0.5, 6) + rng.normal(0, .1, (30, 6))
    >>> res = discriminative_power(X, rng=1)
    >>> res.n_pairs, res.n_significant
    (15, 15)
    """
    df = check_scores(scores)
    X = df.to_numpy()
    n, s = X.shape
    test = check_choice("test", test, ("paired", "unpaired"))
    stat = _statistic_name(summary, allow_callable=(test == "unpaired"))
    pa, pb = _pairs(s)
    P = pa.size
    if test == "paired":
        # streamed: the topic samples are drawn (or read) in batches; what stays in memory is
        # the k = B alpha largest |t*| of every pair, with their replicate index and wbar
        B, batches = _resample_batches(resamples, n, n_resamples, rng)
        step = max(1, _STREAM_BATCH_ELEMENTS // n)
        batches = _progress(batches, progress, total=-(-B // step), desc="bootstrap: resamples")
        k = critical_rank(B, alpha)
        cap = k + min(B, max(k // 4, 1024))
        check_memory("n_resamples", 24.0 * P * cap + 16.0 * min(B, _STREAM_BATCH_ELEMENTS // n + 1) * n,
                     f"the {k} = n_resamples * alpha largest bootstrap statistics of each of the {P} "
                     f"system pairs (B = {B})", hint="use fewer resamples, a smaller alpha or fewer systems")
        Xs = _log_values(X, offset, "scores") if stat == "gmean" else X
        t, asl, crit, contrib = _paired_all_pairs_stream(Xs, pa, pb, B, batches, k)
        diff = Xs.mean(axis=0)[pa] - Xs.mean(axis=0)[pb]
    else:
        idx = _topic_resamples(resamples, 2 * n, n_resamples, rng, stream=_STREAM_POOLED,
                               bytes_per_resample=8.0 * (4 * s + 2 * n + 8),
                               what="pooled indices and per-system sums of the unpaired test")
        B = idx.shape[0]
        k = critical_rank(B, alpha)
    batch = _batch(B, batch_size)
    if test != "paired":
        t, asl, crit = _unpaired_all_pairs(X, pa, pb, idx, k, batch, stat, offset)
        diff = t
        contrib = crit.copy()
    sig = asl < alpha
    table = pd.DataFrame({"system_a": df.columns[pa].astype(str), "system_b": df.columns[pb].astype(str),
                          "difference": diff, "statistic": t, "asl": asl, "significant": sig,
                          "critical_value": crit, "required_difference": contrib})
    est = float(np.nanmax(contrib)) if np.any(np.isfinite(contrib)) else float("nan")
    return DiscriminativePowerResult(
        n_pairs=int(pa.size), n_significant=int(sig.sum()), proportion=float(sig.mean()),
        estimated_difference=est, alpha=float(alpha), k=k, test=test,
        summary_name=stat if isinstance(stat, str) else getattr(stat, "__name__", "callable"),
        n_resamples=B, table=table)


# --------------------------------------------------------------------------- stability


@dataclass(frozen=True)
class StabilityResult(ResultBase):
    """Result of :func:`stability` (Sakai Fig. 9, Eqs. 9-10).

    ``minority_rate[i]`` and ``proportion_of_ties[i]`` belong to
    ``fuzziness[i]``; ``gt_ab``, ``gt_ba``, ``eq`` are the per-pair counts
    (shape F x pairs; GT(a,b) + GT(b,a) + EQ = B).
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
        return pd.DataFrame({"fuzziness": self.fuzziness, "minority_rate": self.minority_rate,
                             "proportion_of_ties": self.proportion_of_ties})


def _check_fuzziness(fuzziness) -> np.ndarray:
    f = np.atleast_1d(np.asarray(fuzziness, dtype=np.float64))
    if f.ndim != 1 or f.size == 0 or not np.all(np.isfinite(f)) or np.any(f < 0):
        raise InputError("fuzziness", "must be a non-empty 1-D array of finite values >= 0")
    return np.ascontiguousarray(f)


@renamed_parameters(statistic="summary")
def stability(scores: Any, *, fuzziness: Sequence[float] = DEFAULT_FUZZINESS, summary: str = "mean",
              n_resamples: int = 1000, rng: Any = None, resamples: Any = None,
              offset: float = GM_OFFSET) -> StabilityResult:
    """Stability method on bootstrap topic samples: minority rate and proportion of ties.

    For each pair and sample Q*b, with margin = f * max(M(X,Q*b), M(Y,Q*b)):
    |difference| < margin -> EQ; otherwise the larger system gets a GT.
    MR = sum_C min(GT(X,Y), GT(Y,X)) / (B |C|), PT = sum_C EQ / (B |C|).
    A zero difference (equal summaries up to round-off, |d| <= 1e-12 max(|x|, |y|))
    counts as EQ, so f = 0 counts only ties; a difference equal to the margin in
    exact arithmetic is not EQ (the comparison is strict and guarded against
    round-off).  ``summary`` ("mean" or "gmean"; formerly ``statistic``) summarises
    each system over a topic sample.

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
    stat = _statistic_name(summary, allow_callable=False)
    f = _check_fuzziness(fuzziness)
    idx = _topic_resamples(resamples, n, n_resamples, rng, bytes_per_resample=16.0 * s,
                           what="system summaries of the stability method")
    B = idx.shape[0]
    M = _summaries(X, idx, stat, offset)
    pa, pb = _pairs(s)
    gt_ab, gt_ba, eq = _k.stability_counts(np.ascontiguousarray(M.T), pa, pb, f)
    denom = B * pa.size
    mr = np.minimum(gt_ab, gt_ba).sum(axis=1) / denom
    pt = eq.sum(axis=1) / denom
    return StabilityResult(fuzziness=f, minority_rate=mr, proportion_of_ties=pt, n_pairs=int(pa.size),
                           n_resamples=B, gt_ab=gt_ab, gt_ba=gt_ba, eq=eq)


# --------------------------------------------------------------------------- swap


@dataclass(frozen=True)
class SwapResult(ResultBase):
    """Result of :func:`swap_rates` (Sakai Fig. 11 and Table 3).

    Attributes
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
        return {"abs": self.abs_difference, "max": self.max_value, "rel": self.rel_difference,
                "sensitivity": self.sensitivity, "threshold": self.threshold,
                "n_pairs": self.n_pairs, "n_resamples": self.n_resamples}


@renamed_parameters(statistic="summary")
def swap_rates(scores: Any, *, summary: str = "mean", bin_width: float = 0.01, n_bins: int = 21,
               threshold: float = 0.05, monotone: bool = False, n_resamples: int = 1000,
               rng: Any = None, resamples: Any = None, resamples_prime: Any = None,
               offset: float = GM_OFFSET) -> SwapResult:
    """Swap method with two independent sets of bootstrap samples {Q*b}, {Q'*b}.

    For each pair and b: D = M(X,Q*b) - M(Y,Q*b), D' likewise on Q'*b;
    ``comparisons[bin(|D|)] += 1`` and, if D * D' <= 0, ``swaps[bin(|D|)] += 1``.
    Bins have width ``bin_width``; the last holds |D| >= (n_bins - 1) width.

    ``resamples`` should be the topic samples used elsewhere (Sakai reuses
    the paired test's Q*b); ``resamples_prime`` must be independent of it.
    ``summary`` ("mean" or "gmean"; formerly ``statistic``) summarises each system.

    Examples
    --------
    >>> import numpy as np
    >>> from agreekit.ireval.bootstrap import swap_rates
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(20, 1)) + np.linspace(0, 0.3, 5) + rng.normal(0, .1, (20, 5))
    >>> res = swap_rates(X, rng=3)
    >>> int(res.bins["comparisons"].sum())   # 10 pairs x 1000 samples
    10000
    """
    df = check_scores(scores)
    X = df.to_numpy()
    n, s = X.shape
    stat = _statistic_name(summary, allow_callable=False)
    width = check_float("bin_width", bin_width, minimum=0.0, inclusive=False)
    nb = check_int("n_bins", n_bins, minimum=1)
    thr = check_float("threshold", threshold, minimum=0.0, maximum=1.0)
    if resamples is None:  # two B x n sample matrices and four B x s summaries
        check_memory("n_resamples", check_int("n_resamples", n_resamples, minimum=1) * (16.0 * n + 32.0 * s),
                     "the two sets of bootstrap samples and system summaries of the swap method")
    if isinstance(rng, np.random.Generator):
        idx = _topic_resamples(resamples, n, n_resamples, rng)
        idx2 = _topic_resamples(resamples_prime, n, idx.shape[0], rng, name="resamples_prime")
    else:
        idx = _topic_resamples(resamples, n, n_resamples, rng)
        idx2 = _topic_resamples(resamples_prime, n, idx.shape[0], rng, stream=_STREAM_SWAP,
                                name="resamples_prime")
    if idx2.shape[0] != idx.shape[0]:
        raise InputError("resamples_prime", f"must have as many rows as `resamples` ({idx.shape[0]})")
    B = idx.shape[0]
    M1 = np.ascontiguousarray(_summaries(X, idx, stat, offset))
    M2 = np.ascontiguousarray(_summaries(X, idx2, stat, offset))
    pa, pb = _pairs(s)
    counter, swaps = _k.swap_counts(np.ascontiguousarray(M1.T), np.ascontiguousarray(M2.T), pa, pb, width, nb)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(counter > 0, swaps / np.maximum(counter, 1), np.nan)
    lower = np.arange(nb) * width
    upper = np.append(lower[1:], np.inf)
    bins = pd.DataFrame({"lower": np.round(lower, 12), "upper": np.round(upper, 12), "comparisons": counter,
                         "swaps": swaps, "swap_rate": rate})
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
    return SwapResult(bins=bins, abs_difference=round(abs_d, 12), max_value=max_v, rel_difference=rel,
                      sensitivity=sens, threshold=thr, n_pairs=int(pa.size), n_resamples=B)


# --------------------------------------------------------------------------- rank correlation


def _normal_pvalue(z: float, alternative: str, dist) -> float:
    """p-value of a signed statistic z under ``dist`` (symmetric) for ``alternative``."""
    if alternative == "two-sided":
        return float(2 * dist.sf(abs(z)))
    return float(dist.sf(z) if alternative == "greater" else dist.cdf(z))


def kendall_normal_test(tau: float, n_systems: int, *, alternative: str = "two-sided") -> tuple[float, float]:
    """Eq. 11: Z0 = |tau| / sqrt((4 ns + 10) / (9 ns (ns - 1))) and its p-value.

    ``alternative="two-sided"`` (Sakai's test) gives 2 (1 - Phi(Z0)); "greater" / "less"
    use the signed z = tau / sqrt(...) (H1: positive / negative association) and return it.

    Examples
    --------
    >>> from agreekit.ireval.bootstrap import kendall_normal_test
    >>> z, p = kendall_normal_test(0.332, 30)
    >>> round(z, 3), round(p, 4)
    (2.577, 0.01)
    """
    ns = check_int("n_systems", n_systems, minimum=2)
    alternative = _check_alternative(alternative)
    from scipy import stats as _stats
    z = float(tau) / math.sqrt((4 * ns + 10) / (9 * ns * (ns - 1)))
    p = _normal_pvalue(z, alternative, _stats.norm)
    return (abs(z) if alternative == "two-sided" else z), p


def kendall_critical_value(n_systems: int, alpha: float = 0.01) -> float:
    """Smallest |tau| significant at ``alpha`` (two-sided) under Eq. 11.

    Parameters
    ----------
    n_systems : int
    alpha : float, default 0.01
        The significance level (two-sided).

    Examples
    --------
    >>> from agreekit.ireval.bootstrap import kendall_critical_value
    >>> round(kendall_critical_value(30, 0.01), 3)   # Sakai rounds this up to "0.34"
    0.332
    """
    ns = check_int("n_systems", n_systems, minimum=2)
    alpha = check_float("alpha", alpha, minimum=0.0, maximum=1.0, inclusive=False)
    from scipy import stats as _stats
    return float(_stats.norm.isf(alpha / 2) * math.sqrt((4 * ns + 10) / (9 * ns * (ns - 1))))


def spearman_t_test(rho: float, n_systems: int, *, alternative: str = "two-sided") -> tuple[float, float]:
    """t0 = |rho| sqrt(ns - 2) / sqrt(1 - rho^2) with ns - 2 df and its p-value.

    ``alternative="two-sided"`` gives the two-sided p-value of t0 (the p-value of
    :func:`scipy.stats.spearmanr`); "greater" / "less" use the signed t and return it.
    """
    ns = check_int("n_systems", n_systems, minimum=3)
    alternative = _check_alternative(alternative)
    rho = float(rho)
    if abs(rho) >= 1:
        t = math.copysign(float("inf"), rho)
    else:
        t = rho * math.sqrt(ns - 2) / math.sqrt(1 - rho * rho)
    from scipy import stats as _stats
    p = _normal_pvalue(t, alternative, _stats.t(ns - 2))
    return (abs(t) if alternative == "two-sided" else t), p


def _correlation_rows(A: np.ndarray, Bm: np.ndarray, coefficient: str, variant: str) -> np.ndarray:
    if coefficient == "kendall":
        return _k.kendall_rows(np.ascontiguousarray(A), np.ascontiguousarray(Bm), variant == "b")
    from scipy import stats as _stats
    ra = _stats.rankdata(A, axis=1)
    rb = _stats.rankdata(Bm, axis=1)
    ra = ra - ra.mean(axis=1, keepdims=True)
    rb = rb - rb.mean(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (ra * rb).sum(axis=1) / np.sqrt((ra * ra).sum(axis=1) * (rb * rb).sum(axis=1))


@dataclass(frozen=True)
class RankCorrelationResult(TestResultBase):
    """Result of :func:`rank_correlation_se`; ``statistic, pvalue = result`` (statistic =
    the correlation, as in :func:`scipy.stats.kendalltau`).

    Attributes
    ----------
    correlation : float
        Kendall's tau (tau-b by default) or Spearman's rho between the
        system rankings by the two metrics (summaries over all topics).
    standard_error : float
        Bootstrap SE, sqrt(sum_b (tau*b - m)^2 / (B - 1)) (Eq. 12).
    bootstrap_mean : float
    bootstrap_distribution : ndarray, shape (B,)
    test_statistic, pvalue : float
        Z0 of Eq. 11 (Kendall) or Spearman's t0, and its two-sided normal / t p-value.
    coefficient : str
        ``"kendall-tau-b"``, ``"kendall-tau-a"`` or ``"spearman"`` (formerly ``method``).
    """

    correlation: float
    standard_error: float
    bootstrap_mean: float
    bootstrap_distribution: np.ndarray = field(repr=False)
    test_statistic: float
    pvalue: float
    coefficient: str
    n_systems: int
    n_resamples: int
    statistic: float = field(default=float("nan"), repr=False)

    method = deprecated_attribute("coefficient", "method")

    def __post_init__(self):
        object.__setattr__(self, "statistic", self.correlation)  # what `stat, p = result` unpacks first

    def to_dict(self) -> dict:
        """Plain-dict summary (JSON-able)."""
        return {"coefficient": self.coefficient, "correlation": self.correlation,
                "standard_error": self.standard_error, "bootstrap_mean": self.bootstrap_mean,
                "test_statistic": self.test_statistic, "pvalue": self.pvalue,
                "n_systems": self.n_systems, "n_resamples": self.n_resamples}


@renamed_parameters(method="coefficient", statistic="summary", statistic_b="summary_b")
def rank_correlation_se(scores_a: Any, scores_b: Any, *, coefficient: str = "kendall", variant: str = "b",
                        summary: str = "mean", summary_b: str | None = None,
                        n_resamples: int = 1000, rng: Any = None, resamples: Any = None,
                        offset: float = GM_OFFSET) -> RankCorrelationResult:
    """Rank correlation between two metrics' system rankings with its bootstrap SE.

    Both matrices must have the same topics and systems (aligned by label).
    For each topic sample Q*b (the same for both metrics) the systems are
    summarised by each metric and the correlation tau*b computed.

    Parameters
    ----------
    scores_a, scores_b : DataFrame or array_like, shape (n, s)
    coefficient : {"kendall", "spearman"}, default "kendall"
        Which rank correlation (formerly ``method=``).
    variant : {"b", "a"}
        Kendall tau-b (ties-corrected, scipy's default) or tau-a.
    summary, summary_b : {"mean", "gmean"}
        Summary of metric a (and of b; default: same as a), e.g. AveP with "mean"
        vs G_AveP = AveP with "gmean" (formerly ``statistic``, ``statistic_b``).

    Examples
    --------
    >>> import numpy as np
    >>> from agreekit.ireval.bootstrap import rank_correlation_se
    >>> rng = np.random.default_rng(0)
    >>> A = rng.uniform(size=(25, 8)) + np.linspace(0, 1, 8)
    >>> res = rank_correlation_se(A, A + rng.normal(0, .2, A.shape), rng=1)
    >>> res.correlation > 0.5, 0 < res.standard_error < 0.3
    (True, True)
    """
    da = check_scores(scores_a, parameter="scores_a")
    db = check_scores(scores_b, parameter="scores_b")
    if isinstance(scores_a, pd.DataFrame) and isinstance(scores_b, pd.DataFrame):
        db = align_scores(da, db)
    elif db.shape != da.shape:
        raise InputError("scores_b", f"must have the shape of `scores_a` {da.shape}; got {db.shape}")
    method = check_choice("coefficient", coefficient, ("kendall", "spearman"))
    variant = check_choice("variant", variant, ("b", "a"))
    sa = _statistic_name(summary, allow_callable=False)
    sb = sa if summary_b is None else _statistic_name(summary_b, allow_callable=False, parameter="summary_b")
    A, Bv = da.to_numpy(), db.to_numpy()
    n, s = A.shape
    if method == "spearman" and s < 3:
        raise InputError("scores_a", "Spearman's test needs at least 3 systems")
    idx = _topic_resamples(resamples, n, n_resamples, rng, bytes_per_resample=32.0 * s + 8.0,
                           what="system summaries of both metrics")
    obs = _correlation_rows(_summary(A, sa, offset)[None, :], _summary(Bv, sb, offset)[None, :],
                            method, variant)[0]
    boot = _correlation_rows(_summaries(A, idx, sa, offset), _summaries(Bv, idx, sb, offset),
                             method, variant)
    finite = boot[np.isfinite(boot)]
    se = float(np.std(finite, ddof=1)) if finite.size > 1 else float("nan")
    if method == "kendall":
        stat, p = kendall_normal_test(obs, s) if np.isfinite(obs) else (float("nan"), float("nan"))
    else:
        stat, p = spearman_t_test(obs, s) if np.isfinite(obs) else (float("nan"), float("nan"))
    return RankCorrelationResult(correlation=float(obs), standard_error=se,
                                 bootstrap_mean=float(finite.mean()) if finite.size else float("nan"),
                                 bootstrap_distribution=boot, test_statistic=stat, pvalue=p,
                                 coefficient=method if method == "spearman" else f"kendall-tau-{variant}",
                                 n_systems=s, n_resamples=idx.shape[0])


@dataclass(frozen=True)
class DifferenceSEResult(ResultBase):
    """Result of :func:`difference_se`: observed difference, bootstrap SE (Eq. 13), replicates D_b."""

    difference: float
    standard_error: float
    bootstrap_distribution: np.ndarray = field(repr=False)


@renamed_parameters(statistic="summary")
def difference_se(x: Any, y: Any, *, summary: str = "mean", n_resamples: int = 1000, rng: Any = None,
                  resamples: Any = None, offset: float = GM_OFFSET) -> DifferenceSEResult:
    """Bootstrap SE of the performance difference M(x) - M(y) over topic samples (Eq. 13).

    ``summary`` ("mean" or "gmean"; formerly ``statistic``) is M.

    Examples
    --------
    >>> from agreekit.ireval.bootstrap import difference_se
    >>> res = difference_se([0.2, 0.4, 0.6], [0.1, 0.1, 0.4], resamples=[[0, 1, 2], [0, 0, 0]])
    >>> round(res.difference, 4), round(res.standard_error, 4)
    (0.2, 0.0707)
    """
    X = check_scores(np.column_stack([np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)])
                     if np.ndim(x) == 1 and np.ndim(y) == 1 and np.size(x) == np.size(y) else
                     _raise_len(x, y), parameter="x").to_numpy()
    stat = _statistic_name(summary, allow_callable=False)
    idx = _topic_resamples(resamples, X.shape[0], n_resamples, rng, bytes_per_resample=40.0,
                           what="summaries and differences")
    M = _summaries(X, idx, stat, offset)
    D = M[:, 0] - M[:, 1]
    obs = _summary(X, stat, offset)
    se = float(np.std(D, ddof=1)) if D.size > 1 else float("nan")
    return DifferenceSEResult(difference=float(obs[0] - obs[1]), standard_error=se, bootstrap_distribution=D)


def _raise_len(x, y):
    if np.ndim(x) != 1:
        raise InputError("x", "must be 1-D")
    if np.ndim(y) != 1:
        raise InputError("y", "must be 1-D")
    raise InputError("y", f"must have the same length as `x` ({np.size(x)}); got {np.size(y)}")


# --------------------------------------------------------------------------- everything


@dataclass(frozen=True)
class MetaEvaluation(ResultBase):
    """All analyses of one metric on shared bootstrap samples (see :func:`meta_evaluate`)."""

    paired: DiscriminativePowerResult | None
    unpaired: DiscriminativePowerResult | None
    stability: StabilityResult | None
    swap: SwapResult | None

    def to_dict(self) -> dict:
        """Plain-dict summary of every analysis (JSON-able)."""
        out = {}
        if self.paired is not None:
            out["paired"] = self.paired.to_dict()
        if self.unpaired is not None:
            out["unpaired"] = self.unpaired.to_dict()
        if self.stability is not None:
            out["stability"] = self.stability.to_frame().to_dict(orient="list")
        if self.swap is not None:
            out["swap"] = self.swap.to_dict()
        return out


@renamed_parameters(statistic="summary", paired_statistic="paired_summary")
def meta_evaluate(scores: Any, *, alpha: float = 0.05, n_resamples: int = 1000, rng: Any = None,
                  summary: str = "mean", paired_summary: str | None = None,
                  fuzziness: Sequence[float] = DEFAULT_FUZZINESS, bin_width: float = 0.01,
                  n_bins: int = 21, swap_threshold: float = 0.05,
                  analyses: Sequence[str] = ("paired", "unpaired", "stability", "swap"),
                  offset: float = GM_OFFSET, batch_size: int | None = None) -> MetaEvaluation:
    """Paired and unpaired tests, discriminative power, required differences, stability and swap.

    One set of topic samples Q*b serves the paired test, the stability and the
    swap method; the swap method's Q'*b and the unpaired pooled indices come
    from independent streams of the same seed.

    Parameters
    ----------
    scores : DataFrame or array_like, shape (n topics, s systems)
    alpha : float, default 0.05
        The significance level: discriminative power counts pairs with Sakai's
        ASL = b / B < alpha (the seed's count).
    n_resamples, rng
        B and the seed of the three shared sets of samples.
    summary : {"mean", "gmean"}
        The metric's summary (``"gmean"`` for G_AveP etc.; formerly ``statistic``).
    paired_summary : {"mean", "gmean"}, optional
        Summary of the paired test (formerly ``paired_statistic``); defaults to
        ``summary``, i.e. "gmean" runs the AG paired test.

    Examples
    --------
    >>> import numpy as np
    >>> from agreekit.ireval.bootstrap import meta_evaluate
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(20, 1)) + np.linspace(0, 0.3, 5) + rng.normal(0, .1, (20, 5))
    >>> ev = meta_evaluate(X, rng=7)
    >>> ev.paired.n_significant >= ev.unpaired.n_significant
    True
    """
    df = check_scores(scores)
    n = df.shape[0]
    bad = set(analyses) - {"paired", "unpaired", "stability", "swap"}
    if bad:
        raise InputError("analyses", f"unknown analyses {sorted(bad)}")
    B = check_int("n_resamples", n_resamples, minimum=1)
    s = df.shape[1]
    check_memory("n_resamples", B * (8.0 * 4 * n + 8.0 * (4 * s + 8)),
                 f"the three sets of {B} bootstrap samples of {n} topics shared by the analyses")
    if isinstance(rng, np.random.Generator):
        idx = bootstrap_indices(n, n_resamples=n_resamples, rng=rng)
        idx_swap = bootstrap_indices(n, n_resamples=n_resamples, rng=rng)
        idx_pool = bootstrap_indices(2 * n, n_resamples=n_resamples, rng=rng)
    else:
        if isinstance(rng, np.random.BitGenerator):
            rng = np.random.default_rng(rng)
        elif not (rng is None or isinstance(rng, np.random.SeedSequence)):
            _generator(rng, 0)   # the same InputError for a bad rng as everywhere
        ss = rng if isinstance(rng, np.random.SeedSequence) else (
            np.random.SeedSequence() if rng is None else np.random.SeedSequence(check_int("rng", rng, minimum=0)))
        idx = bootstrap_indices(n, n_resamples=n_resamples, rng=ss, stream=_STREAM_TOPICS)
        idx_swap = bootstrap_indices(n, n_resamples=n_resamples, rng=ss, stream=_STREAM_SWAP)
        idx_pool = bootstrap_indices(2 * n, n_resamples=n_resamples, rng=ss, stream=_STREAM_POOLED)
    pstat = summary if paired_summary is None else paired_summary
    paired = unpaired = stab = swap = None
    if "paired" in analyses:
        paired = discriminative_power(df, alpha=alpha, test="paired", resamples=idx, summary=pstat,
                                      offset=offset, batch_size=batch_size)
    if "unpaired" in analyses:
        unpaired = discriminative_power(df, alpha=alpha, test="unpaired", resamples=idx_pool,
                                        summary=summary, offset=offset, batch_size=batch_size)
    if "stability" in analyses:
        stab = stability(df, fuzziness=fuzziness, summary=summary, resamples=idx, offset=offset)
    if "swap" in analyses:
        swap = swap_rates(df, summary=summary, bin_width=bin_width, n_bins=n_bins,
                          threshold=swap_threshold, resamples=idx, resamples_prime=idx_swap, offset=offset)
    return MetaEvaluation(paired=paired, unpaired=unpaired, stability=stab, swap=swap)
