"""Is this weighted correlation significant?  The null distribution of ρ_w / τ_w and p-values.

Seed 000 gives the null *moments* of a weighted rank correlation Γ; the same machinery
gives its whole null distribution, the distribution of Γ(x, y) when the two rankings are
independent (y a uniform random permutation of x), which ``scipy.stats.weightedtau`` does
not offer (it returns ``pvalue = nan``).  :func:`weighted_correlation_test` computes it

* exactly, from all n! permutations (``method="exact"``, n <= 12; the enumeration kernel
  of :mod:`agreekit.ranking.moments`, the sorted null cached in memory for n <= 10),
* from the null quantiles stored in a coefficient table (``method="table"``: O(1) per call
  for any n covered by the table),
* by Monte Carlo at the exact n (``method="monte-carlo"``: any weigher, also a Python
  callable without a table),

and ``method="auto"`` picks exact for n <= 10, else the table when one with quantiles
covers n, else Monte Carlo.

Ties: rank vectors with repeated values are tested under the permutation null that keeps both
tie patterns fixed (y's values permuted over the positions, x fixed) with the tie-aware
coefficient (``ties="average"``), exactly over the distinct arrangements when there are at most
10! of them, else by Monte Carlo (:mod:`agreekit.ranking._tied_null`); ``method="table"`` needs
untied rankings.

Sequential Monte Carlo (``sequential=True``; the default for the Monte Carlo fallback of
``method="auto"``): each tail is sampled until it has seen h = 20 resamples at least as extreme
as γ, or ``n_resamples`` in all (Besag and Clifford [3]_): p = h / L if the h-th exceedance came
at resample L, else (g + 1)/(n_resamples + 1) with g < h exceedances.  Each tail p-value is
valid, P(p <= u) <= u (with equality at its support points for a continuous null), and the
two-sided p = min(1, 2 · min of the tails) is valid by the Bonferroni bound, as for a fixed
number of resamples.  A p-value near 0.5 settles after about 2h/p resamples.

p-value conventions (those of ``scipy.stats.permutation_test``)
------------------------------------------------------------------
Under H0 (y a uniform random permutation), with γ the observed Γ:

* ``alternative="greater"``: P(Γ >= γ); ``"less"``: P(Γ <= γ);
* ``"two-sided"``: min(1, 2·min(P(Γ >= γ), P(Γ <= γ))) (the null is not symmetric, so this
  doubles the smaller tail rather than using |Γ|);
* null values within a relative tolerance of γ (``max(1e-12·|γ|, 1e-14)``) count as ties
  (Γ >= γ and Γ <= γ both hold), so values equal in exact arithmetic but different in
  floating point are not split;
* Monte Carlo uses (b + 1)/(B + 1) per tail (b of B resamples at least as extreme), so
  the p-value is never 0 and the test is valid at any B [1]_.

References
----------
.. [1] B. Phipson and G. K. Smyth, "Permutation P-values Should Never Be Zero",
       Statistical Applications in Genetics and Molecular Biology 9(1), 2010.
.. [2] P. Lombardo et al., "Standardization of Weighted Ranking Correlation
       Coefficients" (seed 000 of this project).
.. [3] J. Besag and P. Clifford, "Sequential Monte Carlo p-values", Biometrika 78(2),
       301-304, 1991.
"""
from __future__ import annotations

import math
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numba import njit, prange

from agreekit._api import TestResultBase, check_rng
from agreekit._memory import check_memory
from agreekit._validation import InputError, check_choice, check_int, check_same_length
from agreekit._jit import pick
from agreekit.ranking import _kernels as _k
from agreekit.ranking.correlation import KINDS, as_ranks
from agreekit.ranking.weighting import (check_coefficient, check_scheme, log_batch_identity, log_coefficient,
                                       log_exact_chunk_counts, parse_weigher, scheme_id, scratch_table)
from agreekit.ranking._kernels import random_permutations
from agreekit.ranking.moments import _prefix_length, _sweep, exact_moments
from agreekit.ranking.standardization import BoundConsistencyError, StandardizationFunction
from agreekit.ranking.tables import CoefficientTable, _resolve_table, available_tables
from agreekit.ranking._tied_null import MAX_EXACT_ARRANGEMENTS
from agreekit.ranking._tied_null import tied_null
from agreekit.ranking.tables import _tied_moments
from agreekit.ranking import _cache

__all__ = ["WeightedCorrelationResult", "weighted_correlation_test", "exact_null_distribution"]

METHODS = ("auto", "exact", "table", "monte-carlo")
ALTERNATIVES = ("two-sided", "greater", "less")
#: ``method="auto"`` enumerates up to this n; ``method="exact"`` allows up to MAX_EXACT_N
AUTO_EXACT_MAX_N = 10
MAX_EXACT_N = 12
#: exceedances per tail after which a sequential Monte Carlo p-value stops (Besag & Clifford's h)
SEQUENTIAL_H = 20
#: up to this n the sorted null is stored (10! values = 29 MB) and cached
_STORE_MAX_N = 10
_CACHE_BYTES = 128 * 2**20
_TIE_RTOL = 1e-12
_TIE_ATOL = 1e-14
_COEF = {"spearman": _k.SPEARMAN, "kendall": _k.KENDALL}


@dataclass(frozen=True)
class WeightedCorrelationResult(TestResultBase):
    """Result of :func:`weighted_correlation_test`; unpacks like scipy's, ``statistic, pvalue = res``.

    Attributes
    ----------
    statistic : float
        The observed coefficient Γ (ρ_w or τ_w).
    standardized : float
        g(Γ), the standardized coefficient with zero expected value under H0, built from
        ``null_mean``, ``null_var``, ``null_left_var`` (NaN if no valid g exists).
    pvalue : float
        The p-value for ``alternative`` (see the module docstring for the conventions).
    alternative : {'two-sided', 'greater', 'less'}
    method : {'exact', 'table', 'monte-carlo'}
        The method used (``"auto"`` resolved).
    n : int
        Ranking length.
    null_mean, null_var, null_left_var : float
        Γ̄, V, V^ℓ of the null distribution: exact (``method="exact"``), from the table
        (``"table"``, and ``"monte-carlo"`` when a table covers n), or estimated from the
        Monte Carlo sample (``"monte-carlo"`` without a table).
    pvalue_se : float
        Monte Carlo standard error of ``pvalue``; 0 for ``"exact"``.  For ``"table"``, the
        Monte Carlo error of the table's own samples: the binomial standard error with the
        effective number of permutations behind the stored quantiles it uses
        (``1 / Σ c_k² / N_k`` for a fit Σ c_k y_k over stored lengths with N_k permutations each);
        it leaves out the interpolation error between stored lengths (see the README).
    coefficient, scheme, weigher : str
        The configuration (``weigher`` as its canonical spec).
    n_resamples_used : int
        Monte Carlo resamples drawn (<= ``n_resamples``; fewer when a sequential p-value
        settled early); 0 for ``"exact"`` and ``"table"``.
    moments_source : str
        Where ``null_mean``, ``null_var``, ``null_left_var`` came from: ``"exact"`` (enumeration,
        or an exact table row), ``"fit"`` (a table's fits), ``"monte-carlo"`` (a Monte Carlo
        sample at n: computed and cached by :func:`agreekit.ranking.tables.null_moments`, or the
        test's own sample).
    null_mean_se, null_var_se, null_left_var_se : float
        Their standard errors (0 when exact).
    tied : bool
        Whether x or y has ties (then the null keeps both tie patterns fixed; see the module
        docstring).
    """

    statistic: float
    standardized: float
    pvalue: float
    alternative: str
    method: str
    n: int
    null_mean: float
    null_var: float
    null_left_var: float
    pvalue_se: float
    coefficient: str = "kendall"
    scheme: str = "additive"
    weigher: str = "harmonic"
    n_resamples_used: int = 0
    moments_source: str = "exact"
    null_mean_se: float = 0.0
    null_var_se: float = 0.0
    null_left_var_se: float = 0.0
    tied: bool = False


# --------------------------------------------------------------------------------------
# tails of a null distribution
# --------------------------------------------------------------------------------------
def _tie_tol(gamma: float) -> float:
    return max(_TIE_RTOL * abs(gamma), _TIE_ATOL)


def _combine(p_ge: float, p_le: float, alternative: str) -> float:
    if alternative == "greater":
        return min(1.0, p_ge)
    if alternative == "less":
        return min(1.0, p_le)
    return min(1.0, 2.0 * min(p_ge, p_le))


# --------------------------------------------------------------------------------------
# exact: all n! permutations
# --------------------------------------------------------------------------------------
@njit(cache=True, parallel=True)
def _exact_chunk_counts(n, k, F, coef, mult, lo, hi, c_start, c_end):
    """Counts of Γ >= lo and Γ <= hi over the permutations in chunks [c_start, c_end).

    The enumeration of :func:`agreekit.ranking._kernels.exact_chunk_sums` (same chunking,
    same depth-first descent with the sums carried down the tree), counting instead of
    summing, for n = 11, 12 where the n! values are not stored.
    """
    out = np.zeros((c_end - c_start, 2), np.int64)
    for c in prange(c_start, c_end):
        rem, idx, state, B = _k.chunk_start(F, coef, mult, n, k, c)
        n_ge = 0
        n_le = 0
        d = k
        idx[k] = 0
        while True:
            if d == n - 2:
                a = rem[d, 0]
                b = rem[d, 1]
                g = _k._last_two(F, coef, mult, n, state[d], B[d], a, b)
                g2 = _k._last_two(F, coef, mult, n, state[d], B[d], b, a)
                n_ge += int(g >= lo) + int(g2 >= lo)  # int(): bools add as bools in numpy
                n_le += int(g <= hi) + int(g2 <= hi)
                if d == k:
                    break
                d -= 1
                continue
            if idx[d] < n - d:
                j = idx[d]
                idx[d] += 1
                _k._descend(F, coef, mult, n, d, j, state, B, rem)
                d += 1
                idx[d] = 0
            else:
                if d == k:
                    break
                d -= 1
        out[c - c_start, 0] = n_ge
        out[c - c_start, 1] = n_le
    return out


def _exact_counts(n, F, coef, mult, lo, hi, progress):
    """(#Γ >= lo, #Γ <= hi) over all n! permutations without storing them."""
    k = _prefix_length(n)
    n_blocks = math.perm(n, k)
    n_slices = 1 if not progress else min(n_blocks, 50)
    edges = np.linspace(0, n_blocks, n_slices + 1).astype(np.int64)
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=n_blocks, desc=f"exact p-value n={n}", unit="block", leave=False)
    n_ge = n_le = 0
    lf = scratch_table(F, n, coef, one_pass=True)  # extreme / ill-conditioned weighers: each permutation on its own
    kernel = pick(_exact_chunk_counts if lf is None else log_exact_chunk_counts, 4 * math.factorial(n))
    F = F if lf is None else lf
    for a, b in zip(edges[:-1], edges[1:]):
        part = kernel(n, k, F, coef, mult, lo, hi, a, b)
        n_ge += int(part[:, 0].sum())
        n_le += int(part[:, 1].sum())
        if bar is not None:
            bar.update(int(b - a))
    if bar is not None:
        bar.close()
    return n_ge, n_le


#: buckets of the exact null over [-1, 1] (a counting sort: O(N) to build, O(N / buckets) per query)
_BUCKETS = 1 << 16


@njit(cache=True)
def _bucket_sort(values, nb):
    """Values grouped by bucket floor((v + 1)/2 · nb) (clipped to [0, nb)), bucket offsets, and the
    moments [mean, var, left var] (per-bucket partial sums, combined by the caller's pairwise sum)."""
    N = values.size
    idx = np.empty(N, np.int32)
    offsets = np.zeros(nb + 1, np.int64)
    part = np.zeros((3, nb))
    for i in range(N):
        b = int((values[i] + 1.0) * 0.5 * nb)
        b = min(max(b, 0), nb - 1)
        idx[i] = b
        offsets[b + 1] += 1
        part[0, b] += values[i]
    for b in range(nb):
        offsets[b + 1] += offsets[b]
    mean = np.sum(part[0]) / N
    pos = offsets[:-1].copy()
    out = np.empty(N)
    for i in range(N):
        b = idx[i]
        v = values[i]
        out[pos[b]] = v
        pos[b] += 1
        d = v - mean
        part[1, b] += d
        part[2, b] += d * d
    return out, offsets, mean, part


@njit(cache=True)
def _bucket_count(bucketed, offsets, t, strict):
    """Number of values < t (``strict``) or <= t."""
    nb = offsets.size - 1
    b = int((t + 1.0) * 0.5 * nb) if t > -1.0 else 0
    b = min(max(b, 0), nb - 1)
    c = offsets[b]
    for k in range(offsets[b], offsets[b + 1]):
        v = bucketed[k]
        if v < t or (not strict and v == t):
            c += 1
    return c


@dataclass(frozen=True)
class _ExactNull:
    values: np.ndarray  # Γ over all n! permutations, grouped by bucket (see _bucket_sort)
    offsets: np.ndarray
    mean: float
    var: float
    left_var: float

    def tails(self, lo, hi):
        """(#Γ >= lo, #Γ <= hi)."""
        N = self.values.size
        return (N - _bucket_count(self.values, self.offsets, lo, True),
                _bucket_count(self.values, self.offsets, hi, False))


_EXACT_CACHE: "OrderedDict[tuple, _ExactNull]" = OrderedDict()


def _exact_null(n, F, coef, mult, progress) -> _ExactNull:
    key = (coef, bool(mult), n, F.tobytes())
    hit = _EXACT_CACHE.get(key)
    if hit is not None:
        _EXACT_CACHE.move_to_end(key)
        return hit

    total = math.factorial(n)
    values = np.empty(total)
    _sweep(n, _prefix_length(n), F, coef, mult, 0.0, progress, values)
    nb = _BUCKETS if total > 4 * _BUCKETS else 1
    bucketed, offsets, mean, part = _bucket_sort(values, nb)
    del values
    # V and V^l as in exact_moments (divided by n!); buckets below the mean hold the left part, and the
    # one bucket containing the mean is split exactly
    d2 = part[2]
    bm = min(max(int((mean + 1.0) * 0.5 * nb), 0), nb - 1)
    var = float(np.sum(d2)) / total
    seg = bucketed[offsets[bm]:offsets[bm + 1]] - mean
    left_var = (float(np.sum(d2[:bm])) + float(np.sum(seg[seg < 0] ** 2))) / total
    mean = float(mean + np.sum(part[1]) / total)  # refinement: Σ(Γ - mean)/N
    bucketed.flags.writeable = False
    null = _ExactNull(bucketed, offsets, mean, var, left_var)
    _EXACT_CACHE[key] = null
    while sum(v.values.nbytes for v in _EXACT_CACHE.values()) > _CACHE_BYTES and len(_EXACT_CACHE) > 1:
        _EXACT_CACHE.popitem(last=False)
    return null


def exact_null_distribution(coefficient="kendall", *, n, weigher="harmonic", scheme="additive") -> np.ndarray:
    """The sorted values of Γ(id, π) over all n! permutations π (n <= 10).

    This is the exact null distribution used by ``weighted_correlation_test(method="exact")``
    (cached in memory per configuration and n; 10! values take 29 MB).

    Examples
    --------
    >>> from agreekit.ranking.significance import exact_null_distribution
    >>> v = exact_null_distribution("kendall", n=4, weigher="harmonic", scheme="additive")
    >>> v.size, float(v[0]), float(v[-1])
    (24, -1.0, 1.0)
    """
    coefficient = check_coefficient(coefficient)
    scheme = check_scheme(scheme)
    n = check_int("n", n, minimum=2, maximum=_STORE_MAX_N)
    F = parse_weigher(weigher).table(n)
    return np.sort(_exact_null(n, F, _COEF[coefficient], scheme == "multiplicative", False).values)


def _exact_test(gamma, n, F, coef, mult, alternative, progress):
    tol = _tie_tol(gamma)
    if n <= _STORE_MAX_N:
        null = _exact_null(n, F, coef, mult, bool(progress))
        n_ge, n_le = null.tails(gamma - tol, gamma + tol)
        N = null.values.size
        return _combine(n_ge / N, n_le / N, alternative), (null.mean, null.var, null.left_var)
    progress = True if progress is None else progress
    n_ge, n_le = _exact_counts(n, F, coef, mult, gamma - tol, gamma + tol, progress)
    N = math.factorial(n)
    return _combine(n_ge / N, n_le / N, alternative), None


# --------------------------------------------------------------------------------------
# Monte Carlo at the exact n
# --------------------------------------------------------------------------------------
def _monte_carlo_null(n, F, coef, mult, n_resamples, rng, progress, batch_elements=4_000_000):
    """Γ(id, π) for ``n_resamples`` uniform random permutations π (batched, parallel numba).

    Permutations come from :func:`agreekit.ranking._kernels.random_permutations`
    (Fisher-Yates on the generator's float64 stream), so the sample depends on the
    generator only, not on the batch size or the number of threads.
    """
    check_memory("n_resamples", 8.0 * n_resamples, f"{n_resamples} Monte Carlo null values",
                 hint="lower n_resamples (100000 gives a p-value SE below 0.0016)")
    rows = max(1, min(n_resamples, batch_elements // n))
    out = np.empty(n_resamples)
    perms = np.empty((rows, n), dtype=np.int64)
    u = np.empty((rows, n), dtype=np.float64)
    starts = range(0, n_resamples, rows)
    if progress:
        from tqdm.auto import tqdm
        starts = tqdm(starts, desc=f"monte-carlo n={n}", unit="batch", leave=False)
    lf = scratch_table(F, n, coef)  # extreme weighers: each permutation's weights rescaled on their own
    kernel = pick(_k.batch_identity if lf is None else log_batch_identity,
                  n_resamples * n * max(1, int(math.log2(n))))  # on the whole work
    F = F if lf is None else lf
    for s in starts:
        k = min(rows, n_resamples - s)
        p = random_permutations(rng, k, n, out=perms[:k], _u=u[:k])
        out[s:s + k] = kernel(p, F, coef, mult)
    return out


def _mc_test(gamma, null, alternative):
    tol = _tie_tol(gamma)
    B = null.size
    b_ge = int(np.count_nonzero(null >= gamma - tol))
    b_le = int(np.count_nonzero(null <= gamma + tol))
    p_ge = (b_ge + 1) / (B + 1)
    p_le = (b_le + 1) / (B + 1)
    p = _combine(p_ge, p_le, alternative)
    return p, _tail_se(p_ge, p_le, p, alternative, B)


def _tail_se(p_ge, p_le, p, alternative, size):
    """Binomial standard error of the tail estimate(s) that p is made of, from ``size`` draws."""
    if alternative == "greater":
        return math.sqrt(p_ge * (1 - p_ge) / size)
    if alternative == "less":
        return math.sqrt(p_le * (1 - p_le) / size)
    q = min(p_ge, p_le)
    return 0.0 if p >= 1.0 else 2.0 * math.sqrt(q * (1 - q) / size)


def _sample_moments(null):
    mean = float(np.mean(null))
    dev = null - mean
    dev2 = dev * dev
    return mean, float(np.mean(dev2)), float(np.sum(dev2[dev < 0]) / null.size)


def _sample_moment_ses(null, moments):
    """Delta-method SEs of the plug-in mean, var, left var of a sample (as :class:`_tied_null.NullSample`)."""
    dev = null - moments[0]
    dev2 = dev * dev
    r = math.sqrt(null.size)
    return (math.sqrt(moments[1]) / r, float(np.std(dev2)) / r, float(np.std(np.where(dev < 0, dev2, 0.0))) / r)


# --------------------------------------------------------------------------------------
# table: null quantiles stored per training n
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _StoredQuantiles:
    """Null quantiles of raw Γ stored in a coefficient table (schema >= 1.1).

    ``values[i][j]`` is the ``probs[j]`` quantile (``numpy.quantile``, method "linear")
    of the Monte Carlo sample of size ``size[i]`` at ranking length ``n[i]``; ``mean`` and
    ``sd`` are that sample's mean and standard deviation (schema >= 1.2; None before).
    """

    probs: np.ndarray
    n: np.ndarray
    size: np.ndarray
    values: np.ndarray
    mean: np.ndarray | None = None
    sd: np.ndarray | None = None


def quantile_probs() -> np.ndarray:
    """The table's probability grid: 201 points, uniform in logit(p) from 1e-4 to 1 - 1e-4."""
    from scipy.special import expit, logit

    return expit(np.linspace(logit(1e-4), logit(1 - 1e-4), 201))


def null_quantile_block(samples: dict) -> dict:
    """The ``null_quantiles`` JSON block of a table from Monte Carlo samples {n: array of Γ}."""
    probs = quantile_probs()
    ns = sorted(samples)
    return {"probs": probs.tolist(), "n": [int(k) for k in ns], "size": [int(np.size(samples[k])) for k in ns],
            "values": [np.quantile(samples[k], probs, method="linear").tolist() for k in ns],
            "mean": [float(np.mean(samples[k])) for k in ns], "sd": [float(np.std(samples[k])) for k in ns]}


def _table_quantiles(tab) -> _StoredQuantiles | None:
    block = tab.data.get("null_quantiles")
    if block is None:
        return None
    arr = lambda k, t=np.float64: None if k not in block else np.asarray(block[k], dtype=t)  # noqa: E731
    return _StoredQuantiles(arr("probs"), arr("n", np.int64), arr("size", np.int64), arr("values"),
                            arr("mean"), arr("sd"))


#: local fit of the standardized quantiles across n between stored lengths: (n_upto, points per side,
#: polynomial degree in log n).  One point per side and degree 1 is linear interpolation between the
#: neighbours (n <= 1500, where the default config stores >= 2e5 permutations per length and the nulls
#: of multiplicative / steep weights still change shape quickly); beyond, a quadratic over 8 stored
#: lengths on each side (a factor ~3 in n each way at the default grid ratio 1.15) pools the Monte Carlo
#: noise of the smaller samples there.  Chosen with the held-out checks of
#: benchmarks/bench_significance_table_accuracy.py (at n = 5400: 8/8 Spearman tables within target with
#: this window, 6/8 with linear interpolation, 5/8 with 3 points per side; 10 per side biased n = 2000).
_WINDOWS = ((1500, 1, 1), (math.inf, 8, 2))
#: the same for the "vertical" scheme (logit P(Γ <= γ) at fixed γ, weighted least squares linear in 1/n):
#: (n_upto, stored lengths per side).  One per side is interpolation between the neighbours.
_VERTICAL_WINDOWS = ((1500, 1), (math.inf, 2))
#: probabilities separating the tails from the body, where the interpolation scheme may differ, and the
#: number of stored lengths on each side whose leave-one-out scores choose the scheme for an n
_REGIONS = (0.01, 0.99)
_MODE_HALF_WINDOW = 2


class _QuantileModel:
    """Null quantile function Q(p; n) of a table, for any n in its quantile range.

    At each stored length n_k the quantiles are standardized with the sample's own mean m_k
    and standard deviation s_k, z_kj = (Q_kj - m_k)/s_k, which removes the location and
    scale noise that all quantiles of one sample share.  At a stored n the stored quantiles are
    used as they are.  Between stored lengths, m_k, log s_k and z_kj are fitted across the
    nearest stored lengths by a weighted polynomial in log n (weights = sample sizes; window and
    degree from ``_WINDOWS``) and combined: Q(p; n) = m(n) + s(n) z(p; n), at fixed p
    ("horizontal").

    That fails where the null has clusters whose *probability* moves with n at a fixed
    location (under multiplicative or steep weights, the permutations that keep the top item
    in place form a cluster of mass ~1/n near Γ = 1).  There the "vertical" scheme is
    used instead: logit P(Γ <= γ) at fixed γ, linear in 1/n between the neighbouring
    stored lengths.  The scheme is chosen per half of the distribution (below / above the
    median) by leave-one-out prediction of the stored lengths outside the dense range from
    their neighbours.
    """

    def __init__(self, tab, nq: _StoredQuantiles):
        self.tab = tab
        self.nq = nq
        self.logit = np.log(nq.probs) - np.log1p(-nq.probs)
        self.n_lo = int(nq.n.min())
        self.n_hi = int(tab.n_max)
        #: the end of the run of consecutive stored lengths (n_lo, n_lo + 1, ...)
        steps = np.flatnonzero(np.diff(nq.n) != 1)
        self.n_dense = int(nq.n[steps[0]] if steps.size else nq.n[-1])
        m, s = self._training_moments()
        self.z = (nq.values - m[:, None]) / s[:, None]
        # columns: m, log s, z_1..z_P (fitted together, one least-squares solve)
        self.y = np.column_stack([m, np.log(s), self.z])
        self.u = np.log(nq.n.astype(np.float64))
        self.sw = np.sqrt(nq.size.astype(np.float64))
        self.index = {int(v): k for k, v in enumerate(nq.n)}
        self._cache: dict = {}
        #: interpolation scheme per region: lower tail, lower body, upper body, upper tail (see _REGIONS)
        P = nq.probs
        self._region_index = (int(np.searchsorted(P, _REGIONS[0])), P.size // 2, int(np.searchsorted(P, _REGIONS[1])))
        self.modes = self._choose_modes()

    def _training_moments(self):
        nq, d = self.nq, self.tab.data
        if nq.mean is not None and nq.sd is not None:
            return nq.mean, nq.sd
        smp = d.get("samples", {})
        if list(smp.get("n", [])) == nq.n.tolist():
            mean = np.asarray(smp["mean"], dtype=np.float64)
            # Eq. 38's v is around the fitted mean: v = var_pop + (mean - fitted_mean)^2
            v = np.asarray(smp["var"], dtype=np.float64) - (mean - np.asarray(smp["fitted_mean"])) ** 2
            return mean, np.sqrt(v)
        # moments of the quantile function itself (trapezoid in p over the stored grid)
        P = nq.probs
        mean = np.trapezoid(nq.values, P, axis=1) / (P[-1] - P[0])
        v = np.trapezoid((nq.values - mean[:, None]) ** 2, P, axis=1) / (P[-1] - P[0])
        return mean, np.sqrt(v)

    @staticmethod
    def _window(n):
        return next((h, d) for upto, h, d in _WINDOWS if n <= upto)

    def _pooled(self, n) -> bool:
        """Whether the quantiles at n come from the horizontal fit: always between stored lengths; at a
        stored length only where the fit pools (its pooled estimate, which includes the stored length
        itself, is the more accurate one there too); where it interpolates, a stored length is used as stored."""
        return int(n) not in self.index or (n > self.n_dense and self._window(n)[0] > 1)

    def _horizontal_design(self, n, exclude=None):
        """(stored indices, design matrix in log n - log n0) of the horizontal fit at n."""
        u0 = math.log(n)
        K = self.u.size
        idx = np.arange(K) if exclude is None else np.delete(np.arange(K), exclude)
        pos = int(np.searchsorted(self.u[idx], u0))
        half, deg = self._window(n)
        lo = max(0, min(pos - half, idx.size - 2 * half))
        sel = idx[lo:min(idx.size, lo + 2 * half)]
        deg = min(deg, sel.size - 1)
        return sel, np.vander(self.u[sel] - u0, deg + 1, increasing=True)

    def _horizontal(self, n, exclude=None):
        """Q(p; n) at the stored probabilities from the stored lengths around n (``exclude``: one index left out)."""
        sel, X = self._horizontal_design(n, exclude)
        X = X * self.sw[sel, None]
        coef, *_ = np.linalg.lstsq(X, self.y[sel] * self.sw[sel, None], rcond=None)
        at = coef[0]
        q = at[0] + math.exp(at[1]) * at[2:]
        return np.maximum.accumulate(np.clip(q, -1.0, 1.0))

    def quantiles(self, n: int):
        hit = self._cache.get(n)
        if hit is not None:
            return hit
        q = self._horizontal(n) if self._pooled(n) else self.nq.values[self.index[int(n)]]
        mom = self.tab.moments(n)
        out = (q, mom)
        if len(self._cache) > 4096:
            self._cache.clear()
        self._cache[n] = out
        return out

    def _vertical_weights(self, n, exclude=None):
        """(stored indices, weights) of the vertical scheme at n: logit P(Γ <= γ) = Σ c_k logit F_k(γ)."""
        key = ("v", n, exclude)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        ns = self.nq.n
        K = ns.size
        idx = np.arange(K) if exclude is None else np.delete(np.arange(K), exclude)
        half = next(h for upto, h in _VERTICAL_WINDOWS if n <= upto)
        pos = min(max(int(np.searchsorted(ns[idx], n)), 1), idx.size - 1)
        lo = max(0, min(pos - half, idx.size - 2 * half))
        sel = idx[lo:min(idx.size, lo + 2 * half)]
        x = 1.0 / ns[sel].astype(np.float64) - 1.0 / n
        out = (sel, _intercept_weights(np.column_stack([np.ones_like(x), x]), self.nq.size[sel]))
        self._cache[key] = out
        return out

    def _vertical(self, n, gamma, exclude=None):
        """logit P(Γ <= γ) at fixed γ: weighted least squares, linear in 1/n, over the stored lengths
        around n (``_VERTICAL_WINDOWS``; one per side is interpolation between the neighbours)."""
        sel, c = self._vertical_weights(n, exclude)
        return float(sum(ck * _logit_cdf(self.nq.values[k], self.logit, gamma) for k, ck in zip(sel, c)))

    def _choose_modes(self):
        """Per region of the distribution and per stretch of n, 'horizontal' or 'vertical' by leave-one-out error.

        Regions (by probability): lower tail P < 0.01, lower body 0.01 .. 0.5, upper body, upper
        tail P > 0.99 (a cluster of mass ~1/n matters where the tail probability is ~1/n, so the
        better scheme can change with n).  Each stored length k outside the dense range (whose
        neighbours are more than 5 % away) is predicted from the other stored lengths by both
        schemes, and the predicted tail probabilities at its stored quantiles are compared with the
        stored probabilities (mean |log ratio| over each region, tail probabilities >= 0.001).  For
        n between stored lengths j-1 and j the scores of the stored lengths j-1-w .. j+w
        (w = ``_MODE_HALF_WINDOW``) decide; returns a (K, 4) array of modes (True = vertical).
        """
        nq, L, P = self.nq, self.logit, self.nq.probs
        K = nq.n.size
        masks = [(P >= 1e-3) & (P < _REGIONS[0]), (P >= _REGIONS[0]) & (P <= 0.5),
                 (P >= 0.5) & (P <= _REGIONS[1]), (P > _REGIONS[1]) & (P <= 1 - 1e-3)]
        diff = np.zeros((K, 4))   # score(vertical) - score(horizontal) at stored length k
        valid = np.zeros(K, bool)
        for k in range(1, K - 1):
            n = int(nq.n[k])
            if nq.n[k + 1] <= 1.05 * nq.n[k - 1] or (k + 2 >= K and _WINDOWS[-1][1] > 1):
                continue
            valid[k] = True
            qh = self._horizontal(n, exclude=k)
            lh = np.interp(nq.values[k], qh, L)
            lv = np.array([self._vertical(n, g, exclude=k) for g in nq.values[k]])
            for sign, l in ((-1.0, lh), (1.0, lv)):
                F = 1.0 / (1.0 + np.exp(-l))
                for h, m in enumerate(masks):
                    if h < 2:
                        diff[k, h] += sign * np.mean(np.abs(np.log(np.maximum(F[m], 1e-12) / P[m])))
                    else:
                        diff[k, h] += sign * np.mean(np.abs(np.log(np.maximum(1 - F[m], 1e-12) / (1 - P[m]))))
        total = diff[valid].sum(axis=0) if valid.any() else np.zeros(4)
        modes = np.zeros((K + 1, 4), bool)
        w = _MODE_HALF_WINDOW
        for j in range(K + 1):
            sel = slice(max(0, j - 1 - w), min(K, j + w + 1))
            d = diff[sel][valid[sel]].sum(axis=0) if valid[sel].any() else total
            modes[j] = d < 0
        return modes

    def vertical_at(self, n: int, gamma: float, q=None) -> bool:
        """Whether P(Γ <= γ) at n is interpolated at fixed γ ('vertical'); never at a stored n."""
        if int(n) in self.index:
            return False
        if q is None:
            q = self.quantiles(n)[0]
        i_lo, i_mid, i_hi = self._region_index
        region = 0 if gamma < q[i_lo] else 1 if gamma <= q[i_mid] else 2 if gamma <= q[i_hi] else 3
        return bool(self.modes[int(np.searchsorted(self.nq.n, n)), region])

    def tails(self, n: int, gamma: float):
        """(P(Γ >= γ), P(Γ <= γ)) at ranking length n."""
        return self.tails_and_size(n, gamma)[:2]

    def tails_and_size(self, n: int, gamma: float):
        """(P(Γ >= γ), P(Γ <= γ), N_eff): N_eff is the effective number of permutations behind them."""
        q, _ = self.quantiles(n)
        vertical = self.vertical_at(n, gamma, q)
        if not vertical:
            l = _logit_cdf(q, self.logit, gamma)
        else:
            l = self._vertical(n, gamma)
        # P(Γ <= γ) = expit(l), P(Γ >= γ) = expit(-l) (continuous null)
        return _expit(-l), _expit(l), self.effective_size(n, vertical)

    def effective_size(self, n: int, vertical: bool = False) -> float:
        """N_eff = 1 / Σ_k c_k² / N_k of the linear smoother Σ_k c_k y_k that gives the p-values at n.

        The stored values y_k of length n_k rest on N_k permutations (variance ∝ 1/N_k), so a tail
        probability p from the fit has the binomial variance p (1 - p) / N_eff; at a stored length
        used as stored, N_eff = N_k.  This is the Monte Carlo noise of the table only, not the
        interpolation error between stored lengths.
        """
        key = ("N", n, vertical)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        if vertical:
            sel, c = self._vertical_weights(n)
        elif not self._pooled(n):
            sel, c = np.array([self.index[int(n)]]), np.ones(1)
        else:
            sel, X = self._horizontal_design(n)
            c = _intercept_weights(X, self.nq.size[sel])
        out = float(1.0 / np.sum(c * c / self.nq.size[sel]))
        self._cache[key] = out
        return out


def _intercept_weights(X, w):
    """c with c @ y = the intercept of the weighted least-squares fit of y on X (weights w)."""
    Xw = X * np.asarray(w, dtype=np.float64)[:, None]
    return np.linalg.solve(X.T @ Xw, Xw.T)[0]


def _logit_cdf(q, L, gamma):
    """logit P(Γ <= γ) from a quantile curve q at logit-probabilities L (exponential tails outside)."""
    if gamma < q[0]:
        return L[0] - (q[0] - gamma) * _edge_slope(q[:8], L[:8])
    if gamma > q[-1]:
        return L[-1] + (gamma - q[-1]) * _edge_slope(q[-8:], L[-8:])
    return float(np.interp(gamma, q, L))


def _edge_slope(q, L):
    """d logit(p) / dΓ over the outermost grid points (exponential tail beyond the grid)."""
    dq = q[-1] - q[0]
    return (L[-1] - L[0]) / dq if dq > 0 else 1e6


def _expit(l: float) -> float:
    return 1.0 / (1.0 + math.exp(-l)) if l >= 0 else math.exp(l) / (1.0 + math.exp(l))


@lru_cache(maxsize=64)
def _quantile_model(tab) -> _QuantileModel | None:
    nq = _table_quantiles(tab)
    return None if nq is None else _QuantileModel(tab, nq)


# --------------------------------------------------------------------------------------
# the test
# --------------------------------------------------------------------------------------
def _check_rng(rng):
    """``rng`` validated as :func:`agreekit._api.check_rng` does, without building a Generator (that
    happens only when Monte Carlo runs, so the O(1) table path pays nothing)."""
    if rng is None or isinstance(rng, (np.random.Generator, np.random.SeedSequence, np.random.BitGenerator)):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)) and rng >= 0:
        return int(rng)
    return check_rng(rng)  # raises the one InputError of the library


@njit(cache=True)
def _checked_coefficient(x, y, F, coef, mult):  # pragma: no cover - compiled
    """(True, Γ(x, y)) if x and y (int64, same length n) are both permutations of 1..n, else (False, nan).

    The fast path of :func:`weighted_correlation_test`: the permutation check is fused into the
    loop that builds the item weights of :func:`agreekit.ranking._kernels.coefficient_pair`
    (same weights, same kernel, so the same Γ).
    """
    n = x.size
    seen = np.zeros(n + 1, np.int32)
    w = np.empty(n)
    W = 0.0  # the first pass of spearman_weighted, in its order (the same bits)
    sx = 0.0
    sy = 0.0
    for i in range(n):
        a = x[i]
        b = y[i]
        if a < 1 or a > n or b < 1 or b > n:
            return False, np.nan
        seen[a] += 1
        seen[b] += n + 1
        wi = F[a - 1] * F[b - 1] if mult else F[a - 1] + F[b - 1]
        w[i] = wi
        W += wi
        sx += wi * a
        sy += wi * b
    # every value exactly once in x and once in y  <=>  seen[v] == n + 2 for all v
    for v in range(1, n + 1):
        if seen[v] != n + 2:
            return False, np.nan
    if coef == _k.SPEARMAN:
        return True, _k.spearman_second_pass(x, y, w, W, sx, sy)
    return True, _k.coefficient_weighted(x, y, w, coef)


@lru_cache(maxsize=256)
def _options(coefficient, weigher, scheme, alternative, method):
    """Validated (coefficient, Weigher, scheme, alternative, method) for hashable option values."""
    return (check_coefficient(coefficient), parse_weigher(weigher), check_scheme(scheme),
            check_choice("alternative", alternative, ALTERNATIVES), check_choice("method", method, METHODS))


def _ranks(parameter, values, kind="ranks"):
    """Validated ranks and whether they have ties (average ranks, float, if so)."""
    return as_ranks(parameter, values, kind=kind, ties="average")


def _test_iv(x, y, coefficient, weigher, scheme, alternative, method, n_resamples, rng):
    try:
        coefficient, w, scheme, alternative, method = _options(coefficient, weigher, scheme, alternative, method)
    except TypeError:  # an unhashable option (e.g. a callable weigher that is not hashable)
        coefficient = check_coefficient(coefficient)
        scheme = check_scheme(scheme)
        alternative = check_choice("alternative", alternative, ALTERNATIVES)
        method = check_choice("method", method, METHODS)
        w = parse_weigher(weigher)
    if type(n_resamples) is not int or n_resamples < 1:
        n_resamples = check_int("n_resamples", n_resamples, minimum=1)
    rng = _check_rng(rng)
    return x, y, coefficient, w, scheme, alternative, method, n_resamples, rng


def _is_int64_vector(a):
    return type(a) is np.ndarray and a.dtype == np.int64 and a.ndim == 1 and a.flags.c_contiguous


def _checked_gamma(x, y, w, coef, mult, kind="ranks"):
    """(x, y, F, Γ) with x, y validated rank vectors (permutations of 1..n) and F = f(1..n); F is None
    and Γ NaN when x or y has ties (x, y are then average ranks; see :func:`_tied_test`)."""
    if kind == "scores":
        x, tx = _ranks("x", x, kind)
        y, ty = _ranks("y", y, kind)
        if tx or ty:
            check_same_length(("x", "y"), x, y)
            return x, y, None, math.nan
    if _is_int64_vector(x) and _is_int64_vector(y) and x.size == y.size and x.size >= 2 and w.family != "callable":
        # the fast path of int64 input; anything else (or a failed check) gets the full validation,
        # which names the problem
        F = _weight_table(w, x.size)
        ok, gamma = (pick(_checked_coefficient, _k.pair_work(x.size, coef))(x, y, F, coef, mult)
                     if scratch_table(F, x.size, coef) is None else (False, math.nan))  # else: the path below
        if ok:
            return x, y, F, float(gamma)
    x, tx = _ranks("x", x)
    y, ty = _ranks("y", y)
    check_same_length(("x", "y"), x, y)
    if tx or ty:
        return x, y, None, math.nan
    n = x.size
    F = w.table(n) if w.family == "callable" else _weight_table(w, n)
    lf = scratch_table(F, n, coef)
    if lf is not None:  # an extreme weigher: this pair's weights rescaled on their own, in log space
        return x, y, F, float(log_coefficient(x, y, lf, coef, mult))
    return x, y, F, float(pick(_k.coefficient_pair, _k.pair_work(n, coef))(x, y, F, coef, mult))


def _find_table(table, coefficient, scheme, w, *, required):
    if isinstance(table, CoefficientTable) and w.family != "callable":
        # a table object cannot change: its check against the configuration is memoized (the
        # entry holds the table, so its id is not reused while the entry lives)
        key = (id(table), coefficient, scheme, w.spec)
        hit = _TABLE_MEMO.get(key)
        if hit is not None and hit[0] is table:
            return table
        tab = _find_table_uncached(table, coefficient, scheme, w, required=required)
        if len(_TABLE_MEMO) > 256:
            _TABLE_MEMO.clear()
        _TABLE_MEMO[key] = (table,)
        return tab
    return _find_table_uncached(table, coefficient, scheme, w, required=required)


_TABLE_MEMO: dict = {}


def _find_table_uncached(table, coefficient, scheme, w, *, required):
    if table is not None:
        return _resolve_table(table, coefficient, scheme, w if w.family != "callable" else w.func)
    if w.family == "callable":
        if required:
            raise InputError("table", "is required with method='table' for a Python callable weigher")
        return None
    if not required and scheme_id(coefficient, scheme, w) not in _shipped():
        return None
    return _resolve_table(None, coefficient, scheme, w.spec)


@lru_cache(maxsize=1)
def _shipped():
    return frozenset(available_tables())


@lru_cache(maxsize=64)
def _weight_table(w, n):
    """f(1..n) of a named weigher, cached (callers must not modify it; a callable is not cached)."""
    return w.table(n)


@lru_cache(maxsize=256)
def _g_cached(mean, var, left_var, g0_rule):
    return StandardizationFunction.from_moments(mean, var, left_var, g0_rule=g0_rule)


def _standardized(gamma, moments, g0_rule):
    try:
        g = _g_cached(float(moments[0]), float(moments[1]), float(moments[2]), g0_rule)
    except BoundConsistencyError as exc:
        warnings.warn(f"no standardization function for these null moments ({exc}); standardized = nan",
                      RuntimeWarning, stacklevel=3)
        return math.nan
    return float(g(gamma))


# --------------------------------------------------------------------------------------
# sequential Monte Carlo (Besag & Clifford 1991) and the tied null
# --------------------------------------------------------------------------------------
def _untied_batches(n, F, coef, mult, rng, size, first=128, batch_elements=4_000_000):
    """Γ(id, π) for ``size`` random permutations in batches of growing size (the first ``first`` rows,
    then doubling up to the memory bound); the concatenation is :func:`_monte_carlo_null`'s sample."""
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


def _sequential_test(gamma, batches, alternative, n_max, h=None):
    """Besag-Clifford p-value from a stream of null batches -> (p, se, resamples used).

    Each tail needed by ``alternative`` stops at the resample L that brings its count of values at
    least as extreme as γ to h: p_tail = h / L, SE ≈ p sqrt((1 - p)/h) (negative binomial); a tail
    that never reaches h within ``n_max`` resamples has p_tail = (g + 1)/(n_max + 1) with the
    binomial SE.  Two-sided: min(1, 2 · min of the tails), the tail SE doubled.
    """
    h = SEQUENTIAL_H if h is None else h
    tol = _tie_tol(gamma)
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
            p_t[t], se_t[t] = p, p * math.sqrt(max(1.0 - p, 0.0) / h)
        else:
            p = (count[t] + 1) / (n_max + 1)
            p_t[t], se_t[t] = p, math.sqrt(p * (1.0 - p) / n_max)
    used = max(stop.get(t, n_max) for t in tails)
    if alternative != "two-sided":
        t = tails[0]
        return min(1.0, p_t[t]), se_t[t], used
    t = min(tails, key=lambda k: p_t[k])
    p = min(1.0, 2.0 * p_t[t])
    return p, (0.0 if p >= 1.0 else 2.0 * se_t[t]), used


def _tied_test(x, y, w, coefficient, scheme, alternative, method, n_resamples, rng, sequential, g0_rule,
               progress):
    """The test for rankings with ties under the permutation null that keeps both tie patterns fixed."""

    coef = _COEF[coefficient]
    mult = scheme == "multiplicative"
    for name, v in (("x", x), ("y", y)):
        if v.min() == v.max():
            raise InputError(name, "has all ranks tied: the correlation (and its p-value) is undefined")
    fx, fy = w(x), w(y)
    if not (np.all(np.isfinite(fx)) and np.all(np.isfinite(fy)) and fx.min() > 0 and fy.min() > 0):
        raise InputError("weigher", f"{w.spec!r} must give finite positive weights at the (average) ranks")
    null = tied_null(x, y, w, coef, mult)
    gamma = null.observed(x, y, w)
    n = null.n
    auto = method == "auto"
    if auto:
        method = "exact" if null.n_arrangements <= MAX_EXACT_ARRANGEMENTS else "monte-carlo"
    if method == "table":
        raise InputError("method", "'table' needs untied rankings (the table's null quantiles are those of "
                                   "permutations of 1..n); x or y has ties: use 'exact', 'monte-carlo' or 'auto'")
    used = 0
    if method == "exact":
        if null.n_arrangements > MAX_EXACT_ARRANGEMENTS:
            raise InputError("method", f"'exact' enumerates the {null.n_arrangements} distinct arrangements of "
                                       f"these ties; at most {MAX_EXACT_ARRANGEMENTS} (10!) are allowed "
                                       "(use 'monte-carlo' or 'auto')")
        vals = null.exact().values   # sorted
        tol = _tie_tol(gamma)
        N = vals.size
        n_ge = N - int(np.searchsorted(vals, gamma - tol, side="left"))
        n_le = int(np.searchsorted(vals, gamma + tol, side="right"))
        p, se = _combine(n_ge / N, n_le / N, alternative), 0.0
    else:
        if progress is None:
            progress = n_resamples * n >= 10**8
        gen = check_rng(rng)
        seq = auto if sequential is None else bool(sequential)
        if seq:
            p, se, used = _sequential_test(gamma, null.batches(gen, n_resamples, first=128, progress=progress),
                                           alternative, n_resamples)
        else:
            sample = null.sample(gen, n_resamples, progress=progress).values
            p, se = _mc_test(gamma, sample, alternative)
            used = n_resamples
    m = _tied_moments(coefficient, scheme, w, x, y, None)
    moments = (m.mean, m.var, m.left_var)
    std = _standardized(gamma, moments, g0_rule)
    return WeightedCorrelationResult(
        statistic=float(gamma), standardized=std, pvalue=float(p), alternative=alternative, method=method, n=int(n),
        null_mean=float(m.mean), null_var=float(m.var), null_left_var=float(m.left_var), pvalue_se=float(se),
        coefficient=coefficient, scheme=scheme, weigher=w.spec, n_resamples_used=int(used),
        moments_source=m.source, null_mean_se=float(m.mean_se), null_var_se=float(m.var_se),
        null_left_var_se=float(m.left_var_se), tied=True)


def weighted_correlation_test(x, y, *, coefficient="kendall", weigher="harmonic", scheme="additive",
                              alternative="two-sided", method="auto", n_resamples=100_000, rng=None,
                              table=None, g0_rule=None, progress=None, kind="ranks",
                              sequential=None) -> WeightedCorrelationResult:
    """Test whether two rankings, given as rank vectors (1 = top) or, with ``kind="scores"``, as scores (higher = better), are correlated under a weighted rank correlation.

    H0: the rankings are independent, i.e. ``y`` is a uniform random permutation relative
    to ``x``.  The statistic is Γ = ρ_w (``coefficient="spearman"``) or τ_w (``"kendall"``)
    of :func:`agreekit.weighted_correlation`; its null distribution is not symmetric and
    depends on n, the weigher and the scheme [2]_.  With ties, Γ is the tie-aware coefficient
    (``ties="average"``) and the null permutes y's values over the positions with x fixed, so
    both tie patterns are kept.

    Parameters
    ----------
    x, y : array_like of int
        Rank vectors (``x[i]`` = position of item i, 1 = top): permutations of 1..n, or
        with ties as repeated values (``[1, 2, 2, 4]``; average ranks are used).  0,
        negative, non-integral or NaN values raise :class:`~agreekit.InputError` naming the
        parameter, and so does a vector with all ranks tied.  With ``kind="scores"``:
        scores, higher = better (equal scores are ties).
    coefficient : {'kendall', 'spearman'}, optional
        Default ``'kendall'`` (as :func:`agreekit.weighted_correlation`,
        :func:`agreekit.exact_moments`, :func:`agreekit.standardize` and the CLI).
    weigher : str, Weigher or callable, optional
        Weighting function f of the **1-based** rank (default ``"harmonic"``; spec or
        callable).  A scipy 0-based weigher ``scipy_w`` is ``lambda i: scipy_w(i - 1)``.  A
        callable works with ``method="exact"`` and ``"monte-carlo"`` (and ``"table"`` with
        ``table=``).
    scheme : {'additive', 'multiplicative'}, optional
        Default ``'additive'``.
    alternative : {'two-sided', 'greater', 'less'}, optional
        ``'greater'``: positive correlation, p = P(Γ >= γ); ``'less'``: P(Γ <= γ);
        ``'two-sided'``: min(1, 2·min of the two).
    method : {'auto', 'exact', 'table', 'monte-carlo'}, optional
        * ``'exact'``: all n! permutations (n <= 12; n = 11, 12 take seconds to minutes,
          with a progress bar).  The sorted null is cached in memory for n <= 10.  With
          ties: the distinct arrangements of the permuted vector (at most 10!; the vector
          with fewer is permuted, which gives the same null).
        * ``'table'``: the null quantiles stored in the coefficient table (schema >= 1.1),
          interpolated between its stored lengths; O(1) per call.  Untied rankings only
          (ties raise :class:`~agreekit.InputError`).  Available for
          n from the table's first training length to its ``n_max``.  Beyond the stored
          probability range [1e-4, 1 - 1e-4] the tail is extrapolated exponentially.
        * ``'monte-carlo'``: ``n_resamples`` uniform random permutations at the exact n.
        * ``'auto'`` (default): ``'exact'`` for n <= 10; else ``'table'`` if the table
          (``table=`` or the shipped one) has quantiles and covers n; else ``'monte-carlo'``
          (sequential, see ``sequential``).  With ties: ``'exact'`` when there are at most
          10! distinct arrangements, else ``'monte-carlo'``.
    n_resamples : int, optional
        Monte Carlo resamples (default 100 000); the maximum when ``sequential``.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Randomness of the Monte Carlo method (scipy SPEC 7): an int seed gives reproducible
        results (the same at any number of threads); an int and ``SeedSequence(int)`` give
        the same draws.
    table : CoefficientTable, path or scheme id, optional
        Coefficient table for ``'table'`` and for the null moments; default: the shipped
        table of the configuration.
    g0_rule : {None, 'max_min_slope', 'closest_to_zero'}, optional
        How g0 of the standardization function behind ``standardized`` is chosen, passed to
        :meth:`~agreekit.StandardizationFunction.from_moments` (None: its default,
        ``'max_min_slope'``).
    progress : bool, optional
        Progress bar on stderr; default: for exact n >= 11 and Monte Carlo with
        n_resamples·n >= 10⁸.
    kind : {'ranks', 'scores'}, optional
        ``'ranks'`` (default): 1 = top.  ``'scores'``: higher = better, ranked by
        ``scipy.stats.rankdata(-x)`` (the best item gets rank 1 and the largest weight).
    sequential : bool, optional
        Stop the Monte Carlo sampling when the p-value is settled (Besag & Clifford [3]_:
        each tail stops after h = 20 resamples at least as extreme as the observed value;
        ``n_resamples`` is the maximum, ``n_resamples_used`` what was drawn).  Default
        (None): sequential when ``method="auto"`` falls back to Monte Carlo, a fixed
        ``n_resamples`` for an explicit ``method="monte-carlo"``.  A sequential test takes
        its null moments from the table, else from :func:`agreekit.ranking.tables.null_moments`
        (computed once per configuration and cached), not from its few resamples.

    Returns
    -------
    WeightedCorrelationResult
        ``statistic``, ``standardized``, ``pvalue``, ``alternative``, ``method``, ``n``,
        ``null_mean``, ``null_var``, ``null_left_var``, ``pvalue_se``, ``n_resamples_used``,
        ``moments_source`` and the moments' SEs, ``ties``; unpacks as
        ``statistic, pvalue = res``.

    Raises
    ------
    InputError
        Invalid rankings, unknown option, ``method='exact'`` with n > 12 (with ties: more
        than 10! distinct arrangements), ``method='table'`` with ties or without a table
        with quantiles covering n.

    See Also
    --------
    agreekit.weighted_kendall, agreekit.weighted_spearman, agreekit.standardize

    Notes
    -----
    Exact: the enumeration kernel of :func:`agreekit.exact_moments` stores the 10! = 3.6 M
    values at n = 10 (29 MB), grouped into 2¹⁶ buckets by a counting sort; a cached call counts
    one bucket.  Monte Carlo:
    O(n_resamples · n) for ρ_w, O(n_resamples · n log n) for τ_w, memory bounded by batches
    of 4·10⁶ ranks plus 8 bytes per resample.  Table: the stored quantiles at a stored n
    (schema 1.2: every n up to 60, then a geometric grid of ratio 1.15 up to n_max), else the
    standardized quantiles at fixed p fitted across the neighbouring stored lengths in log n
    and rescaled with the fitted sample mean and standard deviation (cached per n), then a
    logit-linear interpolation in p; O(1) per call after the first call at an n (about 30 µs
    at n = 10⁴ for ρ_w, most of it the statistic itself).  Measured accuracy and timings:
    ``benchmarks/`` and the README.

    References
    ----------
    .. [1] B. Phipson and G. K. Smyth, "Permutation P-values Should Never Be Zero", 2010.
    .. [2] P. Lombardo et al., "Standardization of Weighted Ranking Correlation Coefficients".
    .. [3] J. Besag and P. Clifford, "Sequential Monte Carlo p-values", Biometrika 78, 1991.

    Examples
    --------
    >>> from agreekit import weighted_correlation_test
    >>> res = weighted_correlation_test([1, 2, 3, 4, 5, 6, 7, 8], [1, 3, 2, 4, 6, 5, 8, 7])
    >>> res.method, round(res.statistic, 6), round(res.pvalue, 6)
    ('exact', 0.846672, 0.008929)
    >>> stat, p = res
    >>> (stat, p) == (res.statistic, res.pvalue)
    True

    The weighted null is not centred at 0 (here Γ̄ < 0); ``standardized`` is g(Γ):

    >>> round(res.null_mean, 6), round(res.standardized, 6)
    (-0.097284, 0.862181)

    Monte Carlo at the exact n, reproducible with a seed:

    >>> import numpy as np
    >>> x = np.arange(1, 41)
    >>> y = x.copy(); y[:6] = [2, 1, 4, 3, 6, 5]
    >>> mc = weighted_correlation_test(x, y, method="monte-carlo", n_resamples=9999, rng=0,
    ...                                alternative="greater")
    >>> mc.method, mc.pvalue
    ('monte-carlo', 0.0001)

    Sequential: a p-value far from 0 settles after a few hundred of the 100 000 resamples:

    >>> z = np.random.default_rng(1).permutation(40) + 1
    >>> sq = weighted_correlation_test(x, z, method="monte-carlo", rng=0, sequential=True)
    >>> sq.pvalue > 0.05, sq.n_resamples_used < 1000
    (True, True)

    Ties (repeated ranks): the null keeps both tie patterns; exact over the 8!/(2!·2!)
    distinct arrangements of y here:

    >>> t = weighted_correlation_test([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 3, 4, 5, 5, 7, 8])
    >>> t.tied, t.method, round(t.pvalue, 6)
    (True, 'exact', 0.000198)
    """
    x, y, coefficient, w, scheme, alternative, method, n_resamples, rng = _test_iv(
        x, y, coefficient, weigher, scheme, alternative, method, n_resamples, rng)
    if kind != "ranks":
        kind = check_choice("kind", kind, KINDS)
    if sequential is not None and not isinstance(sequential, (bool, np.bool_)):
        raise InputError("sequential", f"must be None, True or False; got {sequential!r}")
    coef = _COEF[coefficient]
    mult = scheme == "multiplicative"
    x, y, F, gamma = _checked_gamma(x, y, w, coef, mult, kind)
    if F is None:
        if table is not None:
            raise InputError("table", "holds the null of untied rankings; x or y has ties (leave table=None: the "
                                      "null then keeps both tie patterns fixed)")
        return _tied_test(x, y, w, coefficient, scheme, alternative, method, n_resamples, rng, sequential, g0_rule,
                          progress)
    n = x.size
    auto = method == "auto"
    tab = None
    model = None
    if method == "auto":
        if n <= AUTO_EXACT_MAX_N:
            method = "exact"
        else:
            tab = _find_table(table, coefficient, scheme, w, required=False)
            model = None if tab is None else _quantile_model(tab)
            method = "table" if model is not None and model.n_lo <= n <= model.n_hi else "monte-carlo"
    if method == "exact":
        if n > MAX_EXACT_N:
            raise InputError("method", f"'exact' enumerates n! permutations and allows n <= {MAX_EXACT_N}; "
                                       f"got n = {n} (use 'table' or 'monte-carlo')")
        p, moments = _exact_test(gamma, n, F, coef, mult, alternative, progress)
        if moments is None:  # n = 11, 12: moments by a separate enumeration
            m = exact_moments(coefficient, n=n, weigher=w, scheme=scheme, progress=progress)
            moments = (m.mean, m.var, m.left_var)
        se = 0.0
        used, source, mse = 0, "exact", (0.0, 0.0, 0.0)
    elif method == "table":
        if tab is None:
            tab = _find_table(table, coefficient, scheme, w, required=True)
            model = _quantile_model(tab)
        if model is None:
            raise InputError("table", f"{tab.scheme_id!r} stores no null quantiles (schema "
                                      f"{tab.data.get('schema_version')}); regenerate it with the pipeline "
                                      "or use method='monte-carlo'")
        if not model.n_lo <= n <= model.n_hi:
            raise InputError("n", f"= {n} is outside the quantile range of table {tab.scheme_id!r} "
                                  f"({model.n_lo} <= n <= {model.n_hi}); use method='exact' or 'monte-carlo'")
        p_ge, p_le, n_eff = model.tails_and_size(n, gamma)
        p = _combine(p_ge, p_le, alternative)
        mom = model.quantiles(n)[1]
        moments = (mom.mean, mom.var, mom.left_var)
        se = _tail_se(p_ge, p_le, p, alternative, n_eff)
        used, source, mse = 0, mom.source, (mom.mean_se, mom.var_se, mom.left_var_se)
    else:
        if tab is None and table is not None:
            tab = _find_table(table, coefficient, scheme, w, required=True)
        if progress is None:
            progress = n_resamples * n >= 10**8
        gen = check_rng(rng)
        seq = auto if sequential is None else bool(sequential)
        if seq:
            p, se, used = _sequential_test(gamma, _untied_batches(n, F, coef, mult, gen, n_resamples), alternative,
                                           n_resamples)
            null = None
        else:
            null = _monte_carlo_null(n, F, coef, mult, n_resamples, gen, progress)
            p, se = _mc_test(gamma, null, alternative)
            used = n_resamples
        moments = None
        if tab is None:
            tab = _find_table(None, coefficient, scheme, w, required=False)
        if tab is not None and n <= tab.n_max:
            mom = tab.moments(n)
            moments = (mom.mean, mom.var, mom.left_var)
            source, mse = mom.source, (mom.mean_se, mom.var_se, mom.left_var_se)
        elif null is not None:
            moments = _sample_moments(null)
            source, mse = "monte-carlo", _sample_moment_ses(null, moments)
        else:

            c = _cache.computed_moments(coefficient, scheme, w, n, progress=progress)
            moments, mse, source = c[:3], c[3:6], c[6]
    std = _standardized(gamma, moments, g0_rule)
    return WeightedCorrelationResult(
        statistic=gamma, standardized=std, pvalue=float(p), alternative=alternative, method=method, n=int(n),
        null_mean=float(moments[0]), null_var=float(moments[1]), null_left_var=float(moments[2]),
        pvalue_se=float(se), coefficient=coefficient, scheme=scheme, weigher=w.spec, n_resamples_used=int(used),
        moments_source=source, null_mean_se=float(mse[0]), null_var_se=float(mse[1]),
        null_left_var_se=float(mse[2]))
