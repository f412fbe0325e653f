"""Exact moments of a weighted rank correlation over all n! permutations.

For a coefficient Γ (weighted Spearman or Kendall), a weighting function f and a
combination scheme, the null distribution of Γ(id, π) over the n! permutations π
(Lombardo 2025, Section 2.3: ranking a = identity, ranking b = π) has

* mean       Γ̄  = (1/n!) Σ_π Γ(π)                       (Eq. 19)
* variance   V   = (1/n!) Σ_π (Γ(π) - Γ̄)²               (Eq. 24/37)
* left var.  V^ℓ = (1/n!) Σ_{Γ(π) < Γ̄} (Γ(π) - Γ̄)²     (Eq. 25/37)

V and V^ℓ divide by n! (not n! - 1).  Permutations are enumerated inside numba
kernels (parallel over blocks that share their first entries; depth-first
within a block, sums carried down the tree); per-block sums are combined with ``math.fsum`` in a
fixed order, so the result does not depend on the number of threads.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from agreekit._api import ResultBase, deprecated_attribute
from agreekit._jit import pick
from agreekit.ranking import _kernels as _k
from agreekit._validation import check_flag, check_int
from agreekit.ranking._config import Config, configuration
from agreekit.ranking._log_kernels import log_exact_chunk_sums
from agreekit.ranking._montecarlo import TimeEstimate
from agreekit.ranking._rescaling import scratch_table, weigher_table

__all__ = ["ExactMoments", "exact_moments"]

#: largest n for which enumeration is offered (12! = 479,001,600 permutations)
MAX_EXACT_N = 12
_TARGET_BLOCKS = 500
#: up to this many permutations (10! = 3,628,800; 29 MB) Γ values are kept for a one-pass computation
_STORE_MAX = math.factorial(10)
#: slices of an enumeration with a progress bar or a time estimate
_SLICES = 50
#: from this n on the enumeration's remaining time is estimated (one stderr line when it is long)
_ESTIMATE_MIN_N = 11


@dataclass(frozen=True)
class ExactMoments(ResultBase):
    """Exact null moments of Γ over all n! permutations (result of :func:`exact_moments`).

    Parameters
    ----------
    mean, var, left_var : float
        Γ̄, V and V^ℓ (Eqs. 19, 24, 25; V and V^ℓ divided by n!).
    n : int
        Ranking length.
    coefficient, scheme, weigher : str
        The configuration (``weigher`` is the canonical spec).
    n_permutations : int
        n!.
    seconds : float
        Wall-clock seconds of the enumeration (not part of ``==``).  ``elapsed`` is its
        deprecated alias.

    References
    ----------
    P. Lombardo (2025). Standardization of Weighted Ranking Correlation Coefficients.
    arXiv preprint arXiv:2504.08428.

    Examples
    --------
    >>> from agreekit.ranking import exact_moments
    >>> m = exact_moments("kendall", n=10, weigher="inverse_square:n0=1", scheme="multiplicative")
    >>> round(m.mean, 7), round(m.var, 7), round(m.left_var, 7), m.n_permutations   # Table 5 of Lombardo (2025)
    (-0.2378916, 0.2414456, 0.0686167, 3628800)
    >>> m.to_dict()["weigher"]
    'inverse_square:n0=1'
    """

    mean: float
    var: float
    left_var: float
    n: int
    coefficient: str
    scheme: str
    weigher: str
    n_permutations: int
    seconds: float = field(default=0.0, compare=False)

    elapsed = deprecated_attribute("seconds", "elapsed")


def _prefix_length(n: int) -> int:
    k = 0
    blocks = 1
    while k < n - 2 and blocks < _TARGET_BLOCKS:
        blocks *= n - k
        k += 1
    return k


def _sweep(n, k, F, coef, mult, center, progress, values=None, estimate=None):
    n_blocks = math.perm(n, k)
    per_block = math.factorial(n - k)
    # progress (and the time estimate) in slices so that a bar can move for n >= 11
    n_slices = 1 if not (progress or estimate) else min(n_blocks, _SLICES)
    edges = np.linspace(0, n_blocks, n_slices + 1).astype(np.int64)
    parts = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_blocks, desc=f"exact n={n}", unit="block", leave=False)
    empty = np.empty(0)
    lf = scratch_table(F, n, coef, one_pass=True)  # extreme / ill-conditioned weighers: each permutation on its own
    kernel = pick(_k.exact_chunk_sums if lf is None else log_exact_chunk_sums, 4 * math.factorial(n))
    F = F if lf is None else lf
    for a, b in zip(edges[:-1], edges[1:]):
        out = empty if values is None else values[a * per_block : b * per_block]
        parts.append(kernel(n, k, F, coef, mult, center, a, b, out))
        if bar is not None:
            bar.update(int(b - a))
        if estimate is not None:
            estimate.step(estimate.calls + 1)
    if bar is not None:
        bar.close()
    sums = np.concatenate(parts)
    return [math.fsum(sums[:, j]) for j in range(3)]


def exact_moments(coefficient="kendall", *, n, weigher="harmonic", scheme="additive", progress=None) -> ExactMoments:
    """Exact mean, variance and left variance of Γ by enumerating all n! permutations.

    The null distribution is that of Γ(id, π) for rank vectors (1 = top) with π uniform;
    it is the same for scores (higher = better), which are ranked descending.

    Parameters
    ----------
    coefficient : {'kendall', 'spearman'}, optional
        Default ``'kendall'`` (the default of :func:`weighted_correlation_test`,
        :func:`standardize` and :func:`weighted_correlation`); may be given positionally.
    n : int
        Ranking length, 2 <= n <= 12.  n = 2 gives (0, 1, 1/2).
    weigher : str, Weigher or callable, optional
        Weighting function f of the 1-based rank (default ``"harmonic"``; spec grammar of
        :mod:`agreekit.ranking.weighting`).  A scipy 0-based weigher ``scipy_w`` is
        ``lambda i: scipy_w(i - 1)``.
    scheme : {'additive', 'multiplicative'}, optional
        Default ``'additive'``.
    progress : bool, optional
        Show a tqdm bar; default: only for n >= 11.

    Returns
    -------
    ExactMoments
        With ``mean``, ``var``, ``left_var``.

    Raises
    ------
    InputError
        For n < 2 or n > 12, an unknown coefficient, scheme or weigher.

    Notes
    -----
    Depth-first enumeration with the coefficient's sums carried down the tree:
    O(1) amortised work per permutation for both coefficients.  Up to n = 10 one
    pass stores every Γ (≤ 29 MB); n = 11, 12 use two passes (mean, then centred sums).  Measured in
    ``benchmarks/bench_ranking.py``: all 16 paper configurations for n = 3..10 in a
    few seconds on 2 cores.  The values reproduce Tables 2-5 of [1]_ at every printed
    digit.

    References
    ----------
    .. [1] P. Lombardo, "Standardization of Weighted Ranking Correlation
           Coefficients", arXiv:2504.08428, 2025, Tables 2-5.

    Examples
    --------
    >>> from agreekit import exact_moments
    >>> m = exact_moments("spearman", n=3, weigher="harmonic", scheme="additive")
    >>> round(m.mean, 7), round(m.var, 7), round(m.left_var, 7)
    (-0.0351391, 0.5181185, 0.245896)
    >>> exact_moments(n=4) == exact_moments("kendall", n=4, weigher="harmonic", scheme="additive")
    True
    """
    config = configuration(coefficient, scheme, weigher)
    progress = check_flag("progress", progress, allow_none=True)
    return _exact_moments(config, check_int("n", n, minimum=2, maximum=MAX_EXACT_N), progress)


def _exact_moments(config: Config, n: int, progress=None) -> ExactMoments:
    """:func:`exact_moments` of a parsed configuration at a validated n (2 <= n <= MAX_EXACT_N)."""
    coefficient, scheme, w = config.coefficient, config.scheme, config.weigher
    F = weigher_table(w, n)
    announce = progress is not False and n >= _ESTIMATE_MIN_N  # the time estimate: off only with progress off
    if progress is None:
        progress = n >= 11
    if n == 2:
        # Γ(id, id) = 1 and Γ(id, (2 1)) = -1 for every weighting: the symmetric case, exactly
        return ExactMoments(
            mean=0.0,
            var=1.0,
            left_var=0.5,
            n=2,
            coefficient=coefficient,
            scheme=scheme,
            weigher=w.spec,
            n_permutations=2,
        )
    coef, mult = config.coef, config.mult
    k = _prefix_length(n)
    total = math.factorial(n)
    t0 = time.perf_counter()
    n_sweeps = 1 if total <= _STORE_MAX else 2
    est = None
    if announce:
        est = TimeEstimate(
            f"exact moments at n = {n} ({total} permutations)",
            n_sweeps * min(math.perm(n, k), _SLICES),
            True,
            "; each n costs about n times the n - 1 before it",
        )
    if total <= _STORE_MAX:
        # one enumeration pass storing every Γ; moments by numpy (pairwise summation)
        values = np.empty(total)
        _sweep(n, k, F, coef, mult, 0.0, progress, values, est)
        mean = float(np.mean(values))
        dev = values - mean
        dev2 = dev * dev
        var = float(np.mean(dev2))
        left_var = float(np.sum(dev2[dev < 0]) / total)
        mean += float(np.mean(dev))  # refinement: Σ(Γ - mean) / N, ~1e-17
    else:
        # n = 11, 12: two passes (mean, then centred sums) instead of 0.3-3.8 GB of values
        s1, _, _ = _sweep(n, k, F, coef, mult, 0.0, progress, estimate=est)
        mean = s1 / total
        d1, d2, dl = _sweep(n, k, F, coef, mult, mean, progress, estimate=est)
        mean += d1 / total
        var = (d2 - d1 * d1 / total) / total
        left_var = dl / total
    elapsed = time.perf_counter() - t0
    return ExactMoments(
        mean=float(mean),
        var=float(var),
        left_var=float(left_var),
        n=n,
        coefficient=coefficient,
        scheme=scheme,
        weigher=w.spec,
        n_permutations=total,
        seconds=elapsed,
    )
