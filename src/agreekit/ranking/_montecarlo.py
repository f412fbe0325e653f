"""Monte Carlo nulls at the exact n: a fixed number of resamples, and the sequential p-value of
Besag and Clifford (1991) that stops each tail after h exceedances (``method="monte-carlo"`` of
:func:`agreekit.weighted_correlation_test`; conventions in :mod:`agreekit.ranking.significance`).
"""

from __future__ import annotations

import math
import os
import sys
import time

import numpy as np

from agreekit._jit import pick
from agreekit._memory import check_memory
from agreekit.ranking import _kernels as _k
from agreekit.ranking._kernels import random_permutations
from agreekit.ranking._tails import binomial_se, combine, tail_se, tie_tol
from agreekit.ranking._log_kernels import log_batch_identity
from agreekit.ranking._rescaling import scratch_table

#: exceedances per tail after which a sequential Monte Carlo p-value stops (Besag & Clifford's h)
SEQUENTIAL_H = 20
#: estimated seconds of remaining work from which one line with the estimate is printed on stderr before
#: the rest of the work runs (Monte Carlo nulls, exact enumeration at n = 11, 12); the environment
#: variable ``AGREEKIT_LONG_WORK_SECONDS`` overrides it
LONG_WORK_SECONDS = 20.0


class TimeEstimate:
    """One stderr line estimating the remaining time of long work, printed once, early.

    ``step(done)`` is called after each of ``total`` equal units of work (batches, slices).  From the
    second unit on (the first also loads the compiled kernels) the time per unit gives the remaining
    time; when it reaches :data:`LONG_WORK_SECONDS` the line is printed (through ``tqdm.write``, so a
    progress bar stays intact).  ``announce=False`` (``progress=False``, the CLI's ``--quiet`` or a
    stderr that is not a terminal) prints nothing.
    """

    def __init__(self, what: str, total: int, announce: bool, hint: str = ""):
        self.what, self.total, self.hint = what, int(total), hint
        self.active = bool(announce) and self.total > 1
        self.t_last = time.perf_counter()
        self.calls = 0

    def step(self, done: int) -> None:
        if not self.active:
            return
        now = time.perf_counter()
        per_unit, self.t_last = now - self.t_last, now
        self.calls += 1
        if self.calls < min(2, self.total - 1) and done < self.total:
            return
        self.active = False  # one estimate per piece of work
        remaining = per_unit * (self.total - done)
        if done < self.total and remaining >= _long_work_seconds():
            from tqdm.auto import tqdm

            tqdm.write(
                f"agreekit: {self.what}: about {_duration(remaining)} to go (estimated from the first "
                f"{done} of {self.total} parts; no time limit{self.hint})",
                file=sys.stderr,
            )


def _long_work_seconds() -> float:
    env = os.environ.get("AGREEKIT_LONG_WORK_SECONDS")
    if env:
        try:
            return float(env)
        except ValueError:
            pass
    return LONG_WORK_SECONDS


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 3 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.0f} days"


def monte_carlo_null(n, F, coef, mult, n_resamples, rng, progress, batch_elements=4_000_000, announce=None):
    """Γ(id, π) for ``n_resamples`` uniform random permutations π (batched, parallel numba).

    Permutations come from :func:`agreekit.ranking._kernels.random_permutations`
    (Fisher-Yates on the generator's float64 stream), so the sample depends on the
    generator only, not on the batch size or the number of threads.
    """
    check_memory(
        "n_resamples",
        8.0 * n_resamples,
        f"{n_resamples} Monte Carlo null values",
        hint="lower n_resamples (100000 gives a p-value SE below 0.0016)",
    )
    rows = max(1, min(n_resamples, batch_elements // n))
    out = np.empty(n_resamples)
    perms = np.empty((rows, n), dtype=np.int64)
    u = np.empty((rows, n), dtype=np.float64)
    starts = range(0, n_resamples, rows)
    if progress:
        from tqdm.auto import tqdm

        starts = tqdm(starts, desc=f"monte-carlo n={n}", unit="batch", leave=False)
    lf = scratch_table(F, n, coef)  # extreme weighers: each permutation's weights rescaled on their own
    kernel = pick(
        _k.batch_identity if lf is None else log_batch_identity, n_resamples * n * max(1, int(math.log2(n)))
    )  # on the whole work
    F = F if lf is None else lf
    est = TimeEstimate(
        f"Monte Carlo null of {n_resamples} permutations at n = {n}",
        len(range(0, n_resamples, rows)),
        progress if announce is None else announce,
        "; fewer resamples (n_resamples, --n-resamples) take proportionally less",
    )
    for i, s in enumerate(starts):
        k = min(rows, n_resamples - s)
        p = random_permutations(rng, k, n, out=perms[:k], _u=u[:k])
        out[s : s + k] = kernel(p, F, coef, mult)
        est.step(i + 1)
    return out


def mc_test(gamma, null, alternative):
    """(p, se) from a Monte Carlo sample of the null: (b + 1)/(B + 1) per tail, its SE :func:`binomial_se`."""
    tol = tie_tol(gamma)
    B = null.size
    b_ge = int(np.count_nonzero(null >= gamma - tol))
    b_le = int(np.count_nonzero(null <= gamma + tol))
    p_ge = (b_ge + 1) / (B + 1)
    p_le = (b_le + 1) / (B + 1)
    p = combine(p_ge, p_le, alternative)
    return p, tail_se(p_ge, p_le, alternative, B, single=binomial_se)


def sample_moments(null):
    """Plug-in (mean, var, left var) of a sample of the null."""
    mean = float(np.mean(null))
    dev = null - mean
    dev2 = dev * dev
    return mean, float(np.mean(dev2)), float(np.sum(dev2[dev < 0]) / null.size)


def sample_moment_ses(null, moments):
    """Delta-method SEs of the plug-in mean, var, left var of a sample (as :class:`_tied_null.NullSample`)."""
    dev = null - moments[0]
    dev2 = dev * dev
    r = math.sqrt(null.size)
    return (math.sqrt(moments[1]) / r, float(np.std(dev2)) / r, float(np.std(np.where(dev < 0, dev2, 0.0))) / r)


def untied_batches(n, F, coef, mult, rng, size, first=128, batch_elements=4_000_000):
    """Γ(id, π) for ``size`` random permutations in batches of growing size (the first ``first`` rows,
    then doubling up to the memory bound); the concatenation is :func:`monte_carlo_null`'s sample."""
    cap = max(1, batch_elements // n)
    rows = max(1, min(first, cap))
    lf = scratch_table(F, n, coef)  # extreme weighers: each permutation's weights rescaled on their own
    kernel = pick(_k.batch_identity if lf is None else log_batch_identity, size * n * max(1, int(math.log2(n))))
    F = F if lf is None else lf
    done = 0
    while done < size:
        k = min(rows, size - done)
        yield kernel(random_permutations(rng, k, n), F, coef, mult)
        done += k
        rows = min(2 * rows, cap)


def sequential_test(gamma, batches, alternative, n_max, h=None):
    """Besag-Clifford p-value from a stream of null batches -> (p, se, resamples used).

    Each tail needed by ``alternative`` stops at the resample L that brings its count of values at
    least as extreme as γ to h: p_tail = h / L, SE ≈ p sqrt((1 - q)/h) (negative binomial, delta
    method) with 1 - q = 1 - h/(L + 1), which stays positive at L = h, where every resample was as
    extreme (probability p^h; the plug-in 1 - h/L would give SE 0 there); a tail that never reaches h
    within ``n_max`` resamples has p_tail = (g + 1)/(n_max + 1) with the binomial SE
    (:func:`~agreekit.ranking._tails.binomial_se`).  Two-sided: min(1, 2 · min of the tails), the
    tail SE doubled (also where the p-value is cut at 1).
    """
    h = SEQUENTIAL_H if h is None else h
    tol = tie_tol(gamma)
    tails = {"greater": ("ge",), "less": ("le",)}.get(alternative, ("ge", "le"))
    count = {"ge": 0, "le": 0}
    stop = {}
    done = 0
    for null in batches:
        for t in tails:
            if t in stop:
                continue
            hit = null >= gamma - tol if t == "ge" else null <= gamma + tol
            c = np.cumsum(hit)
            if count[t] + (int(c[-1]) if c.size else 0) >= h:
                stop[t] = done + int(np.searchsorted(c, h - count[t])) + 1
            count[t] += int(c[-1]) if c.size else 0
        done += null.size
        if len(stop) == len(tails):
            break
    p_t, se_t = {}, {}
    for t in tails:
        if t in stop:
            p = h / stop[t]
            p_t[t], se_t[t] = p, p * math.sqrt((1.0 - h / (stop[t] + 1)) / h)
        else:
            p = (count[t] + 1) / (n_max + 1)
            p_t[t], se_t[t] = p, binomial_se(p, n_max)
    used = max(stop.get(t, n_max) for t in tails)
    if alternative != "two-sided":
        t = tails[0]
        return min(1.0, p_t[t]), se_t[t], used
    t = min(tails, key=lambda k: p_t[k])
    return min(1.0, 2.0 * p_t[t]), 2.0 * se_t[t], used
