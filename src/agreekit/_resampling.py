"""Bootstrap resampling core shared by :mod:`agreekit.ireval` and :mod:`agreekit.metaeval`.

Named seed streams (an integer seed gives independent streams: topic samples 0, the swap
method's second samples 1, the unpaired pooled indices 2; :mod:`agreekit.metaeval` adds 3),
B x n matrices of topic indices (drawn at once, drawn in batches, or injected and checked),
and the system summaries (``"mean"`` or ``"gmean"``, Sakai's Eq. 7) of a topics x systems
matrix over all topics or over each bootstrap sample.  The public name of
:func:`bootstrap_indices` is :func:`agreekit.ireval.bootstrap_indices`; the rest are helpers of
the two areas (this module sits below both and imports neither).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from agreekit._jit import numpy_version, pick
from agreekit._memory import check_memory
from agreekit._validation import InputError, check_choice, check_int

__all__ = ["STREAM_TOPICS", "STREAM_SWAP", "STREAM_POOLED", "STREAM_BATCH_ELEMENTS", "stream_generator",
    "bootstrap_indices", "resample_batches", "check_resamples", "topic_resamples", "summary_name", "log_values",
    "bootstrap_summaries", "system_summaries"]


STREAM_TOPICS, STREAM_SWAP, STREAM_POOLED = 0, 1, 2
STREAM_BATCH_ELEMENTS = 1 << 21      # topic indices per streamed batch of resamples (16 MB)


# --------------------------------------------------------------------------- helpers


def stream_generator(rng: Any, stream: int) -> np.random.Generator:
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
                      stream: int = STREAM_TOPICS) -> np.ndarray:
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
    (Fig. 1: bootstrap samples of topics).

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
        return B, ((lo, idx[lo:lo + step]) for lo in range(0, B, step))
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


def topic_resamples(resamples, n, n_resamples, rng, stream=STREAM_TOPICS, name="resamples",
                     bytes_per_resample: float = 0.0, what: str = ""):
    """The B x n topic samples, drawn or injected; refused up front (InputError naming
    ``n_resamples``) if they and ``bytes_per_resample`` bytes per resample of the caller's
    own arrays would exceed the memory limit."""
    if resamples is not None:
        return check_resamples(resamples, n, name)
    B = check_int("n_resamples", n_resamples, minimum=1)
    check_memory("n_resamples", B * (8.0 * n + bytes_per_resample),
                 f"{B} bootstrap samples of {n} topics" + (f" ({what})" if what else ""))
    return bootstrap_indices(n, n_resamples=B, rng=rng, stream=stream)


def summary_name(statistic, *, allow_callable: bool, parameter: str = "summary") -> str | Callable:
    """``summary`` checked: "mean", "gmean" (or a callable where ``allow_callable``)."""
    if callable(statistic):
        if not allow_callable:
            raise InputError(parameter, "the paired test supports 'mean' and 'gmean' (the AG "
                                        "variant); use the unpaired test for other summaries")
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
