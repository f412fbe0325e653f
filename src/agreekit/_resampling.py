"""Bootstrap resampling core shared by :mod:`agreekit.ireval` and :mod:`agreekit.metaeval`.

Named seed streams (an integer seed gives independent streams: topic samples 0, the swap
method's second samples 1, the unpaired pooled indices 2; :mod:`agreekit.metaeval` adds 3),
B x n matrices of topic indices (drawn at once, drawn in batches, or injected and checked),
and the system summaries (``"mean"`` or ``"gmean"``, Sakai's Eq. 7) of a topics x systems
matrix over all topics or over each bootstrap sample.  The public name of
:func:`bootstrap_indices` is :func:`agreekit.ireval.bootstrap_indices`; the rest are helpers of
the two areas (this module sits below both and imports neither).

Confidence intervals from resamples (:class:`ConfidenceInterval`, :func:`bca_bounds`,
:func:`percentile_bounds`, :func:`jackknife_bounds`) and the bootstrap interval of a mean over
units (:func:`unit_mean_interval`: topics, trials) live here too, below every area that attaches a
``confidence_interval`` method to its results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from dataclasses import dataclass

from agreekit._api import ResultBase, check_rng
from agreekit._jit import numpy_version, pick
from agreekit._memory import check_memory
from agreekit._validation import InputError, check_choice, check_int

__all__ = [
    "STREAM_TOPICS",
    "STREAM_SWAP",
    "STREAM_POOLED",
    "STREAM_BATCH_ELEMENTS",
    "stream_generator",
    "bootstrap_indices",
    "resample_batches",
    "check_resamples",
    "topic_resamples",
    "summary_name",
    "log_values",
    "bootstrap_summaries",
    "system_summaries",
    "ConfidenceInterval",
    "check_confidence_level",
    "bca_bounds",
    "percentile_bounds",
    "jackknife_bounds",
    "unit_mean_interval",
    "UNIT_METHODS",
]


STREAM_TOPICS, STREAM_SWAP, STREAM_POOLED = 0, 1, 2
STREAM_BATCH_ELEMENTS = 1 << 21  # topic indices per streamed batch of resamples (16 MB)


# --------------------------------------------------------------------------- helpers


def stream_generator(rng: Any, stream: int) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, np.random.BitGenerator):
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.RandomState):
        raise InputError(
            "rng",
            "must be None, a non-negative int, a numpy.random.SeedSequence or a "
            "numpy.random.Generator, not RandomState",
        )
    if rng is None:
        ss = np.random.SeedSequence()
    elif isinstance(rng, np.random.SeedSequence):
        ss = rng
    else:
        try:
            ss = np.random.SeedSequence(check_int("rng", rng, minimum=0))
        except InputError:
            raise InputError(
                "rng", f"must be None, a non-negative int, a SeedSequence or a Generator; got {rng!r}"
            ) from None
    return np.random.default_rng(np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (stream,)))


def bootstrap_indices(n: int, *, n_resamples: int = 1000, rng: Any = None, stream: int = STREAM_TOPICS) -> np.ndarray:
    """Draw a B x n matrix of indices in [0, n), uniformly with replacement.

    Row b is a bootstrap sample Q*b of n topics (Sakai Fig. 1).  With an int
    seed, ``stream`` selects an independent named stream (0 = topic samples,
    1 = the swap method's second samples, 2 = unpaired pooled indices).

    Parameters
    ----------
    n : int
        Number of topics (the indices are 0 .. n - 1).
    n_resamples : int, default 1000
        B, the number of samples (rows).
    rng : None, int, SeedSequence or Generator
        The seed (scipy's SPEC 7); a ``Generator`` is drawn from as is.
    stream : int, default 0
        The named stream of an int / ``SeedSequence`` seed.

    Returns
    -------
    ndarray of int64, shape (n_resamples, n)
        The topic samples, row b = Q*b.

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532
    (Fig. 1: bootstrap samples of topics). :doi:`10.1145/1148170.1148261`

    Examples
    --------
    The same seed gives the same samples in every function of the area (stream 0):

    >>> from agreekit.ireval.bootstrap import bootstrap_indices
    >>> bootstrap_indices(5, n_resamples=3, rng=1).tolist()
    [[0, 3, 4, 0, 4], [3, 2, 1, 1, 0], [2, 4, 3, 0, 0]]
    """
    n = check_int("n", n, minimum=1)
    B = check_int("n_resamples", n_resamples, minimum=1)
    stream = check_int("stream", stream, minimum=0, maximum=2**63 - 1)
    check_memory("n" if n > B else "n_resamples", 8.0 * B * n, f"a {B} x {n} matrix of resampled topic indices")
    return stream_generator(rng, stream).integers(0, n, size=(B, n), dtype=np.int64)


def resample_batches(resamples, n, n_resamples, rng, stream=STREAM_TOPICS, name="resamples"):
    """(B, batches): the topic samples as successive (offset, B_i x n index matrix) pairs.

    Drawn batch by batch from the same generator, they are the rows of
    :func:`bootstrap_indices` (numpy draws bounded integers without buffering), so
    streaming changes only the memory, never the samples."""
    if resamples is not None:
        idx = check_resamples(resamples, n, name)
        B = idx.shape[0]
        step = max(1, STREAM_BATCH_ELEMENTS // n)
        return B, ((lo, idx[lo : lo + step]) for lo in range(0, B, step))
    B = check_int("n_resamples", n_resamples, minimum=1)
    n = check_int("n", n, minimum=1)
    gen = stream_generator(rng, stream)
    step = max(1, STREAM_BATCH_ELEMENTS // n)

    def draw():
        for lo in range(0, B, step):
            yield lo, gen.integers(0, n, size=(min(step, B - lo), n), dtype=np.int64)

    return B, draw()


def check_resamples(resamples: Any, width: int, name: str = "resamples") -> np.ndarray:
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


def topic_resamples(
    resamples,
    n,
    n_resamples,
    rng,
    stream=STREAM_TOPICS,
    name="resamples",
    bytes_per_resample: float = 0.0,
    what: str = "",
):
    """The B x n topic samples, drawn or injected; refused up front (InputError naming
    ``n_resamples``) if they and ``bytes_per_resample`` bytes per resample of the caller's
    own arrays would exceed the memory limit."""
    if resamples is not None:
        return check_resamples(resamples, n, name)
    B = check_int("n_resamples", n_resamples, minimum=1)
    check_memory(
        "n_resamples",
        B * (8.0 * n + bytes_per_resample),
        f"{B} bootstrap samples of {n} topics" + (f" ({what})" if what else ""),
    )
    return bootstrap_indices(n, n_resamples=B, rng=rng, stream=stream)


def summary_name(statistic, *, allow_callable: bool, parameter: str = "summary") -> str | Callable:
    """``summary`` checked: "mean", "gmean" (or a callable where ``allow_callable``)."""
    if callable(statistic):
        if not allow_callable:
            raise InputError(
                parameter,
                "the paired test supports 'mean' and 'gmean' (the AG "
                "variant); use the unpaired test for other summaries",
            )
        return statistic
    return check_choice(parameter, statistic, ("mean", "gmean"))


def log_values(X: np.ndarray, offset: float, name: str) -> np.ndarray:
    if np.any(X + offset <= 0):
        raise InputError(name, f"geometric mean needs values > -{offset}")
    return np.log(X + offset)


@njit(cache=True)
def gather_sum(idx, X):
    """S[b, s] = sum_j X[idx[b, j], s] (rows of ``idx`` outside X's range add nothing)."""
    B, n = idx.shape
    N, S = X.shape
    out = np.zeros((B, S))
    for b in range(B):
        o = out[b]
        for j in range(n):
            i = idx[b, j]
            if i < 0 or i >= N:
                continue
            row = X[i]
            for s in range(S):
                o[s] += row[s]
    return out


@numpy_version(gather_sum)
def _gather_sum_numpy(idx, X):
    """:func:`gather_sum` in numpy: topics added in sample order (the kernel's order)."""
    B, n = idx.shape
    N, S = X.shape
    out = np.zeros((B, S))
    for j in range(n):
        i = idx[:, j]
        ok = (i >= 0) & (i < N)
        out[ok] += X[i[ok]]
    return out


def bootstrap_summaries(X: np.ndarray, idx: np.ndarray, statistic: str, offset: float) -> np.ndarray:
    """B x s system summaries M(X, Q*b) over the topic samples ``idx``."""
    n = X.shape[0]
    gather = pick(gather_sum, idx.size * X.shape[1])
    if statistic == "mean":
        return gather(idx, np.ascontiguousarray(X)) / n
    L = log_values(X, offset, "scores")
    return np.exp(gather(idx, np.ascontiguousarray(L)) / n) - offset


def system_summaries(X: np.ndarray, statistic: str, offset: float) -> np.ndarray:
    if statistic == "mean":
        return X.mean(axis=0)
    return np.exp(log_values(X, offset, "scores").mean(axis=0)) - offset


# --------------------------------------------------------------------------- confidence intervals


@dataclass(frozen=True)
class ConfidenceInterval(ResultBase):
    """A confidence interval; unpacks like scipy's ``ConfidenceInterval``: ``low, high = ci``.

    Parameters
    ----------
    low, high : float or ndarray
        The bounds (arrays, one entry per column, for an interval of several means at once).
    confidence_level : float
        The nominal coverage.
    method : str
        The method used (``None`` resolved): ``"analytic"``, ``"u-statistic"``, ``"bootstrap"``
        (BCa), ``"percentile"`` or ``"jackknife"``.
    estimate : float or ndarray
        The point estimate the interval is built around.
    estimand : str
        The population quantity the interval is for.
    n_resamples : int
        Bootstrap resamples drawn (0 for the analytic and jackknife intervals).
    standard_error : float or ndarray
        The standard error behind an analytic or jackknife interval (on the scale stated in
        ``estimand``); NaN for the bootstrap.
    """

    low: Any
    high: Any
    confidence_level: float
    method: str
    estimate: Any = float("nan")
    estimand: str = ""
    n_resamples: int = 0
    standard_error: Any = float("nan")

    def __iter__(self):
        return iter((self.low, self.high))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i):
        return (self.low, self.high)[i]


def check_confidence_level(confidence_level) -> float:
    """``confidence_level`` as a float strictly between 0 and 1, else :class:`InputError`."""
    if isinstance(confidence_level, (bool, np.bool_)) or not isinstance(confidence_level, (int, float, np.number)):
        raise InputError("confidence_level", f"must be a number in (0, 1); got {confidence_level!r}")
    c = float(confidence_level)
    if not 0.0 < c < 1.0:
        raise InputError("confidence_level", f"must lie strictly between 0 and 1; got {confidence_level!r}")
    return c


def _column_quantile(theta_b: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Per column k, the q[k] quantile of theta_b[:, k] (numpy's 'linear' rule, scipy.stats.quantile's default);
    NaN resamples left out, NaN where q is NaN."""
    out = np.full(theta_b.shape[1], np.nan)
    for k in range(theta_b.shape[1]):
        col = theta_b[:, k]
        col = col[~np.isnan(col)]
        if col.size and np.isfinite(q[k]):
            out[k] = np.quantile(col, q[k])
    return out


def percentile_bounds(theta_b, confidence_level: float):
    """The percentile interval: the (1 - c)/2 and (1 + c)/2 quantiles of the bootstrap values (per column)."""
    t = np.asarray(theta_b, dtype=np.float64)
    t2 = t.reshape(t.shape[0], -1)
    a = (1.0 - confidence_level) / 2.0
    k = t2.shape[1]
    low = _column_quantile(t2, np.full(k, a))
    high = _column_quantile(t2, np.full(k, 1.0 - a))
    return low.reshape(t.shape[1:]), high.reshape(t.shape[1:])


def bca_bounds(theta_hat, theta_b, theta_jack, confidence_level: float):
    """The bias-corrected and accelerated (BCa) interval of Efron (1987) from the bootstrap values
    ``theta_b`` (B, ...) and the leave-one-out values ``theta_jack`` (n, ...), per column.

    The rules of ``scipy.stats.bootstrap(method="BCa")`` (Efron & Tibshirani 1993, 14.3 and Eq. 15.36):
    z0 = Φ⁻¹(#(θ* < θ̂)/(2B) + #(θ* <= θ̂)/(2B)) (values within 1e-12 of the scale of θ* count as equal to θ̂); â = Σ U³ / (6 (Σ U²)^{3/2}) with U_i = (n - 1)(θ̄_(·) - θ_(i));
    the bounds are the Φ(z0 + (z0 ± z)/(1 - â(z0 ± z))) quantiles of θ* (numpy's 'linear' rule).
    Resamples with an undefined statistic (NaN) are left out.  A column whose bootstrap values are all equal
    to θ̂ gets the interval [θ̂, θ̂].
    """
    from scipy.special import ndtr, ndtri

    th = np.atleast_1d(np.asarray(theta_hat, dtype=np.float64))
    tb = np.asarray(theta_b, dtype=np.float64).reshape(np.shape(theta_b)[0], -1)
    tj = np.asarray(theta_jack, dtype=np.float64).reshape(np.shape(theta_jack)[0], -1)
    valid = (~np.isnan(tb)).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        # values within 1e-12 of the scale of θ* count as equal to θ̂ (a resample that reproduces θ̂ in exact
        # arithmetic is not split by rounding)
        tol = 1e-12 * np.maximum(np.abs(th), np.nanmax(np.abs(tb), axis=0))
        pct = (np.sum(tb < th - tol, axis=0) + np.sum(tb <= th + tol, axis=0)) / (2.0 * valid)
        z0 = ndtri(pct)
        nj = tj.shape[0]
        U = (nj - 1) * (np.nanmean(tj, axis=0) - tj)
        num = np.nansum(U**3, axis=0) / nj**3
        den = np.nansum(U**2, axis=0) / nj**2
        a_hat = np.where(den > 0, num / den**1.5 / 6.0, 0.0)
        z = float(ndtri((1.0 - confidence_level) / 2.0))
        q1 = ndtr(z0 + (z0 + z) / (1 - a_hat * (z0 + z)))
        q2 = ndtr(z0 + (z0 - z) / (1 - a_hat * (z0 - z)))
    low = _column_quantile(tb, q1)
    high = _column_quantile(tb, q2)
    flat = np.all((tb == th) | np.isnan(tb), axis=0)
    low = np.where(flat, th, low)
    high = np.where(flat, th, high)
    shape = np.shape(theta_hat)
    return low.reshape(shape), high.reshape(shape)


def jackknife_bounds(theta_hat, theta_jack, confidence_level: float):
    """θ̂ ± t_{n-1, (1+c)/2} · se_jack with se_jack² = (n - 1)/n · Σ (θ_(i) - θ̄_(·))² (Efron & Stein 1981;
    Efron & Tibshirani 1993, Eq. 11.5); returns (low, high, se) per column."""
    from scipy.stats import t as student_t

    tj = np.asarray(theta_jack, dtype=np.float64)
    n = tj.shape[0]
    se = np.sqrt((n - 1) / n * np.sum((tj - tj.mean(axis=0)) ** 2, axis=0))
    q = float(student_t.ppf((1.0 + confidence_level) / 2.0, n - 1))
    th = np.asarray(theta_hat, dtype=np.float64)
    return th - q * se, th + q * se, se


UNIT_METHODS = ("bootstrap", "percentile", "jackknife")


def unit_mean_interval(
    values,
    confidence_level: float = 0.95,
    *,
    method=None,
    n_resamples: int = 9999,
    rng: Any = None,
    estimand: str = "the population mean over units",
) -> ConfidenceInterval:
    """Confidence interval of the mean over units (topics, trials) of ``values`` (units x columns), the units
    resampled with replacement (one resample of the units shared by all columns).

    ``method``: ``"bootstrap"`` (BCa, the default for ``None``), ``"percentile"`` or ``"jackknife"``
    (the mean's jackknife: the t interval with the standard error s/√n).  The resamples are those of
    ``scipy.stats.bootstrap`` with the same generator: ``rng.integers(0, n, size=(B, n))``.
    """
    confidence_level = check_confidence_level(confidence_level)
    method = "bootstrap" if method is None else check_choice("method", method, UNIT_METHODS)
    X = np.asarray(values, dtype=np.float64)
    if X.ndim not in (1, 2) or X.shape[0] < 2:
        raise InputError("values", f"must hold at least 2 units (rows); got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise InputError("values", "must be finite")
    squeeze = X.ndim == 1
    X2 = X.reshape(X.shape[0], -1)
    n = X2.shape[0]
    est = X2.mean(axis=0)
    total = X2.sum(axis=0)
    jack = (total - X2) / (n - 1)  # leave-one-out means
    B = 0
    se = np.full(est.shape, np.nan)
    if method == "jackknife":
        low, high, se = jackknife_bounds(est, jack, confidence_level)
    else:
        B = check_int("n_resamples", n_resamples, minimum=1)
        check_memory("n_resamples", 8.0 * B * X2.shape[1], f"{B} bootstrap means of {X2.shape[1]} column(s)")
        gen = check_rng(rng)
        theta_b = np.empty((B, X2.shape[1]))
        step = max(1, STREAM_BATCH_ELEMENTS // n)
        for lo in range(0, B, step):
            idx = gen.integers(0, n, size=(min(step, B - lo), n), dtype=np.int64)
            theta_b[lo : lo + idx.shape[0]] = bootstrap_summaries(X2, idx, "mean", 0.0)
        if method == "bootstrap":
            low, high = bca_bounds(est, theta_b, jack, confidence_level)
        else:
            low, high = percentile_bounds(theta_b, confidence_level)

    def out(a):
        a = np.asarray(a, dtype=np.float64)
        return float(a[0]) if squeeze else a

    return ConfidenceInterval(
        low=out(low),
        high=out(high),
        confidence_level=confidence_level,
        method=method,
        estimate=out(est),
        estimand=estimand,
        n_resamples=B,
        standard_error=out(se),
    )
