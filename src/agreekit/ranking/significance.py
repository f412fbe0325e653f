"""Is this weighted correlation significant?  The null distribution of ρ_w / τ_w and p-values.

Lombardo (2025) gives the null *moments* of a weighted rank correlation Γ; the same machinery
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
at resample L, else (g + 1)/(n_resamples + 1) with g < h exceedances; its standard error is
p sqrt((1 − h/(L + 1))/h), which stays above 0 at L = h.  Each tail p-value is
valid, P(p <= u) <= u (with equality at its support points for a continuous null), and the
two-sided p = min(1, 2 · min of the tails) is valid by the Bonferroni bound, as for a fixed
number of resamples.  A p-value near 0.5 settles after about 2h/p resamples.

Layout: this module holds the public API and the test's orchestration; the nulls live in private
modules, one responsibility each: :mod:`~agreekit.ranking._exact_null` (all n! permutations),
:mod:`~agreekit.ranking._montecarlo` (fixed and sequential Monte Carlo),
:mod:`~agreekit.ranking._quantile_model` (the tables' null quantiles across n),
:mod:`~agreekit.ranking._table_lookup` (which table, memoized), :mod:`~agreekit.ranking._tails`
(tie tolerance and the two-sided combination) and :mod:`~agreekit.ranking._tied_null` (ties).

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
       :doi:`10.2202/1544-6115.1585`
.. [2] P. Lombardo, "Standardization of Weighted Ranking Correlation
       Coefficients", arXiv:2504.08428, 2025.
.. [3] J. Besag and P. Clifford, "Sequential Monte Carlo p-values", Biometrika 78(2),
       301-304, 1991. :doi:`10.1093/biomet/78.2.301`
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from numba import njit

from agreekit._api import TestResultBase, check_rng
from agreekit._jit import pick
from agreekit._validation import InputError, check_choice, check_flag, check_int, check_same_length
from agreekit.ranking import _cache
from agreekit.ranking import _kernels as _k
from agreekit.ranking._config import Config, configuration
from agreekit.ranking._log_kernels import log_coefficient
from agreekit.ranking._rescaling import scratch_table, weigher_table
from agreekit.ranking._exact_null import STORE_MAX_N, exact_null, exact_test
from agreekit.ranking._montecarlo import (
    mc_test,
    monte_carlo_null,
    sample_moment_ses,
    sample_moments,
    sequential_test,
    untied_batches,
)
from agreekit.ranking._quantile_model import quantile_model

# public names that moved to the private modules, kept at their import path (agreekit.ranking.significance.X)
from agreekit.ranking._montecarlo import SEQUENTIAL_H  # noqa: F401
from agreekit.ranking._quantile_model import null_quantile_block, quantile_probs  # noqa: F401
from agreekit.ranking._table_lookup import find_table_for
from agreekit.ranking._tails import combine, tail_se, tie_tol
from agreekit.ranking._tied_null import MAX_EXACT_ARRANGEMENTS, tied_null
from agreekit.ranking.correlation import KINDS, _as_ranks
from agreekit.ranking.moments import _exact_moments
from agreekit.ranking.standardization import BoundConsistencyError, StandardizationFunction, _g0_rule_iv
from agreekit.ranking.tables import _tied_moments

__all__ = ["WeightedCorrelationResult", "weighted_correlation_test", "exact_null_distribution"]

METHODS = ("auto", "exact", "table", "monte-carlo")
ALTERNATIVES = ("two-sided", "greater", "less")
#: ``method="auto"`` enumerates up to this n; ``method="exact"`` allows up to MAX_EXACT_N
AUTO_EXACT_MAX_N = 10
MAX_EXACT_N = 12


@dataclass(frozen=True)
class WeightedCorrelationResult(TestResultBase):
    """Result of :func:`weighted_correlation_test`; unpacks like scipy's, ``statistic, pvalue = res``.

    Parameters
    ----------
    statistic : float
        The observed coefficient Γ (ρ_w or τ_w).
    standardized : float
        g(Γ), the standardized coefficient with zero expected value under H0, built from
        ``null_mean``, ``null_var``, ``null_left_var`` (NaN if no valid g exists).
    pvalue : float
        The p-value for ``alternative`` (see the module docstring for the conventions).
    alternative : {'two-sided', 'greater', 'less'}
        The alternative hypothesis the p-value is for.
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
    _data : tuple, optional
        ``(x, y, config)``: the rank vectors and the configuration as tested, kept for
        :meth:`confidence_interval` (not exported by ``to_dict``, not compared).

    Examples
    --------
    >>> from agreekit.ranking import weighted_correlation_test
    >>> res = weighted_correlation_test([1, 2, 3, 4, 5, 6, 7], [2, 1, 3, 4, 5, 7, 6], alternative="greater")
    >>> res.method, round(res.statistic, 6), round(res.pvalue, 6), res.pvalue_se
    ('exact', 0.560414, 0.078571, 0.0)
    >>> stat, p = res                       # unpacks like scipy's results
    >>> sorted(res.to_dict())[:4]
    ['alternative', 'coefficient', 'method', 'moments_source']
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
    #: (x, y, config) as tested: the rank vectors and the configuration, kept for confidence_interval
    _data: tuple | None = field(default=None, repr=False, compare=False)

    def confidence_interval(self, confidence_level=0.95, *, method=None, n_resamples=9999, rng=None):
        """A confidence interval for the coefficient; ``low, high = res.confidence_interval()``.

        Estimand: the population value of the coefficient (τ_b, ρ_s or the weighted Γ) of the distribution
        the n items are an i.i.d. sample of (details: :mod:`agreekit.ranking._intervals`).

        Parameters
        ----------
        confidence_level : float, optional
            Nominal coverage in (0, 1) (default 0.95).
        method : {None, 'analytic', 'u-statistic', 'bootstrap', 'percentile', 'jackknife'}, optional
            ``'analytic'`` (constant weights only; Fisher z: τ_b with Var = 0.437/(n − 4) of Fieller, Hartley
            & Pearson 1957, ρ_s with (1 + r²/2)/(n − 3) of Bonett & Wright 2000); ``'u-statistic'`` (τ_b:
            Fisher z with the consistent U-statistic variance, O(n log n)); ``'bootstrap'`` (BCa over items,
            any weigher); ``'percentile'``; ``'jackknife'``.  None: analytic for constant weights, else BCa.
        n_resamples : int, optional
            Bootstrap resamples (default 9999).
        rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
            Randomness of the bootstrap (scipy SPEC 7).

        Returns
        -------
        ConfidenceInterval
            ``low``, ``high`` (unpacks as a pair), ``method`` (None resolved), ``confidence_level``,
            ``estimate``, ``estimand``.

        Examples
        --------
        >>> import numpy as np
        >>> from agreekit.ranking import weighted_correlation_test
        >>> x, y = np.arange(1, 31), np.r_[2, 1, 4, 3, np.arange(5, 31)]
        >>> res = weighted_correlation_test(x, y, weigher=lambda i: np.ones(len(i)), method="monte-carlo",
        ...                                 n_resamples=99, rng=0)
        >>> ci = res.confidence_interval()
        >>> ci.method, ci.low < res.statistic < ci.high
        ('analytic', True)
        """
        from agreekit.ranking._intervals import (
            result_interval,
        )  # its numba kernels load only when an interval is asked for

        return result_interval(self, confidence_level, method, n_resamples, rng)


def exact_null_distribution(coefficient="kendall", *, n, weigher="harmonic", scheme="additive") -> np.ndarray:
    """The sorted values of Γ(id, π) over all n! permutations π (n <= 10): the exact null distribution.

    Γ of the identity ranking (rank vectors, 1 = top) against every permutation: the null of
    ``weighted_correlation_test(method="exact")`` (cached in memory per configuration and n;
    10! values take 29 MB).

    Parameters
    ----------
    coefficient : {'kendall', 'spearman'}, optional
        The coefficient (default ``'kendall'``); may be given positionally.
    n : int
        Ranking length, 2 <= n <= 10.
    weigher : str, Weigher or callable, optional
        Weighting function f of the 1-based rank (default ``"harmonic"``; a spec or a callable).
    scheme : {'additive', 'multiplicative'}, optional
        How f at the two ranks combine into an item weight (default ``'additive'``).

    Returns
    -------
    numpy.ndarray
        The n! values of Γ (float64), ascending; equal values repeat.

    Raises
    ------
    InputError
        n outside 2..10, or an unknown coefficient, scheme or weigher.

    See Also
    --------
    weighted_correlation_test, agreekit.ranking.exact_moments

    Examples
    --------
    >>> from agreekit.ranking.significance import exact_null_distribution
    >>> v = exact_null_distribution("kendall", n=4, weigher="harmonic", scheme="additive")
    >>> v.size, float(v[0]), float(v[-1])
    (24, -1.0, 1.0)

    Its mean is Γ̄ of :func:`~agreekit.ranking.exact_moments`, and an exact p-value is a tail fraction:

    >>> import numpy as np
    >>> from agreekit.ranking import exact_moments, weighted_correlation_test, weighted_kendall
    >>> v = exact_null_distribution("kendall", n=7)
    >>> round(float(v.mean()), 9) == round(exact_moments("kendall", n=7).mean, 9)
    True
    >>> x, y = [1, 2, 3, 4, 5, 6, 7], [2, 1, 3, 4, 5, 7, 6]
    >>> g = weighted_kendall(x, y)
    >>> p = float(np.mean(v >= g - 1e-12))
    >>> round(p, 6), p == weighted_correlation_test(x, y, alternative="greater").pvalue
    (0.078571, True)
    """
    config = configuration(coefficient, scheme, weigher)
    n = check_int("n", n, minimum=2, maximum=STORE_MAX_N)
    F = weigher_table(config.weigher, n)
    return np.sort(exact_null(n, F, config.coef, config.mult, False).values)


# --------------------------------------------------------------------------------------
# the test: validation, the statistic, the orchestration of the nulls
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
    return True, _k.coefficient_weighted(x, y, w, coef)  # Kendall; it raises on an unknown code


def _ranks(parameter, values, kind="ranks"):
    """Validated ranks and whether they have ties (average ranks, float, if so)."""
    return _as_ranks(parameter, values, kind=kind, ties="average")


def _is_int64_vector(a):
    return type(a) is np.ndarray and a.dtype == np.int64 and a.ndim == 1 and a.flags.c_contiguous


def _checked_gamma(x, y, config: Config, kind="ranks"):
    """(x, y, F, Γ) with x, y validated rank vectors (permutations of 1..n) and F = f(1..n); F is None
    and Γ NaN when x or y has ties (x, y are then average ranks; see :func:`_tied_test`)."""
    w, coef, mult = config.weigher, config.coef, config.mult
    if kind == "scores":
        x, tx = _ranks("x", x, kind)
        y, ty = _ranks("y", y, kind)
        if tx or ty:
            check_same_length(("x", "y"), x, y)
            return x, y, None, math.nan
    if _is_int64_vector(x) and _is_int64_vector(y) and x.size == y.size and x.size >= 2 and not config.is_callable:
        # the fast path of int64 input; anything else (or a failed check) gets the full validation,
        # which names the problem
        F = _weight_table(w, x.size)
        ok, gamma = (
            pick(_checked_coefficient, _k.pair_work(x.size, coef))(x, y, F, coef, mult)
            if scratch_table(F, x.size, coef) is None
            else (False, math.nan)
        )  # else: the path below
        if ok:
            return x, y, F, float(gamma)
    x, tx = _ranks("x", x)
    y, ty = _ranks("y", y)
    check_same_length(("x", "y"), x, y)
    if tx or ty:
        return x, y, None, math.nan
    n = x.size
    F = weigher_table(w, n) if config.is_callable else _weight_table(w, n)
    lf = scratch_table(F, n, coef)
    if lf is not None:  # an extreme weigher: this pair's weights rescaled on their own, in log space
        return x, y, F, float(log_coefficient(x, y, lf, coef, mult))
    return x, y, F, float(pick(_k.coefficient_pair, _k.pair_work(n, coef))(x, y, F, coef, mult))


@lru_cache(maxsize=64)
def _weight_table(w, n):
    """f(1..n) of a named weigher, cached (callers must not modify it; a callable is not cached)."""
    return weigher_table(w, n)


@lru_cache(maxsize=256)
def _g_cached(mean, var, left_var, rule):
    return StandardizationFunction._from_checked(mean, var, left_var, "corrected", rule)


def _standardized(gamma, moments, rule):
    try:
        g = _g_cached(float(moments[0]), float(moments[1]), float(moments[2]), rule)
    except BoundConsistencyError as exc:
        warnings.warn(
            f"no standardization function for these null moments ({exc}); standardized = nan",
            RuntimeWarning,
            stacklevel=3,
        )
        return math.nan
    return float(g(gamma))


def _tied_test(x, y, config, alternative, method, n_resamples, rng, sequential, rule, progress):
    """The test for rankings with ties under the permutation null that keeps both tie patterns fixed."""
    w, coef, mult = config.weigher, config.coef, config.mult
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
        raise InputError(
            "method",
            "'table' needs untied rankings (the table's null quantiles are those of "
            "permutations of 1..n); x or y has ties: use 'exact', 'monte-carlo' or 'auto'",
        )
    used = 0
    if method == "exact":
        if null.n_arrangements > MAX_EXACT_ARRANGEMENTS:
            raise InputError(
                "method",
                f"'exact' enumerates the {null.n_arrangements} distinct arrangements of "
                f"these ties; at most {MAX_EXACT_ARRANGEMENTS} (10!) are allowed "
                "(use 'monte-carlo' or 'auto')",
            )
        vals = null.exact().values  # sorted
        tol = tie_tol(gamma)
        N = vals.size
        n_ge = N - int(np.searchsorted(vals, gamma - tol, side="left"))
        n_le = int(np.searchsorted(vals, gamma + tol, side="right"))
        p, se = combine(n_ge / N, n_le / N, alternative), 0.0
    else:
        if progress is None:
            progress = n_resamples * n >= 10**8
        gen = check_rng(rng)
        seq = auto if sequential is None else bool(sequential)
        if seq:
            p, se, used = sequential_test(
                gamma, null.batches(gen, n_resamples, first=128, progress=progress), alternative, n_resamples
            )
        else:
            sample = null.sample(gen, n_resamples, progress=progress).values
            p, se = mc_test(gamma, sample, alternative)
            used = n_resamples
    m = _tied_moments(config, x, y, None)
    moments = (m.mean, m.var, m.left_var)
    std = _standardized(gamma, moments, rule)
    return WeightedCorrelationResult(
        statistic=float(gamma),
        standardized=std,
        pvalue=float(p),
        alternative=alternative,
        method=method,
        n=int(n),
        null_mean=float(m.mean),
        null_var=float(m.var),
        null_left_var=float(m.left_var),
        pvalue_se=float(se),
        coefficient=config.coefficient,
        scheme=config.scheme,
        weigher=w.spec,
        n_resamples_used=int(used),
        moments_source=m.source,
        null_mean_se=float(m.mean_se),
        null_var_se=float(m.var_se),
        null_left_var_se=float(m.left_var_se),
        tied=True,
        _data=(x.copy(), y.copy(), config),
    )


def weighted_correlation_test(
    x,
    y,
    *,
    coefficient="kendall",
    weigher="harmonic",
    scheme="additive",
    alternative="two-sided",
    method="auto",
    n_resamples=100_000,
    rng=None,
    table=None,
    g0_rule=None,
    progress=None,
    kind="ranks",
    sequential=None,
) -> WeightedCorrelationResult:
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
    .. [1] B. Phipson and G. K. Smyth, "Permutation P-values Should Never Be Zero",
           Statistical Applications in Genetics and Molecular Biology 9(1), 2010.
           :doi:`10.2202/1544-6115.1585`
    .. [2] P. Lombardo, "Standardization of Weighted Ranking Correlation Coefficients",
           arXiv:2504.08428, 2025.
    .. [3] J. Besag and P. Clifford, "Sequential Monte Carlo p-values", Biometrika 78(2), 301-304, 1991.
           :doi:`10.1093/biomet/78.2.301`

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
    return configured_test(
        x,
        y,
        configuration(coefficient, scheme, weigher),
        alternative=alternative,
        method=method,
        n_resamples=n_resamples,
        rng=rng,
        table=table,
        g0_rule=g0_rule,
        progress=progress,
        kind=kind,
        sequential=sequential,
    )


def configured_test(
    x,
    y,
    config: Config,
    *,
    alternative="two-sided",
    method="auto",
    n_resamples=100_000,
    rng=None,
    table=None,
    g0_rule=None,
    progress=None,
    kind="ranks",
    sequential=None,
) -> WeightedCorrelationResult:
    """:func:`weighted_correlation_test` on a parsed configuration (``config`` from
    :func:`agreekit.ranking.correlation.configuration`, taken as it is); every other argument is validated
    here, once.  The entry of the CLI, which parses the configuration at its boundary."""
    alternative = check_choice("alternative", alternative, ALTERNATIVES)
    method = check_choice("method", method, METHODS)
    if type(n_resamples) is not int or n_resamples < 1:
        n_resamples = check_int("n_resamples", n_resamples, minimum=1)
    rng = _check_rng(rng)
    if kind.__class__ is not str or kind != "ranks":
        kind = check_choice("kind", kind, KINDS)
    if sequential is not None and not isinstance(sequential, (bool, np.bool_)):
        raise InputError("sequential", f"must be None, True or False; got {sequential!r}")
    progress = check_flag("progress", progress, allow_none=True)
    rule = _g0_rule_iv(g0_rule, "corrected")
    if table is not None:  # checked also where the method does not read it (exact, tied rankings)
        find_table_for(table, config, required=True)
    x, y, F, gamma = _checked_gamma(x, y, config, kind)
    if F is None:
        if table is not None:
            raise InputError(
                "table",
                "holds the null of untied rankings; x or y has ties (leave table=None: the "
                "null then keeps both tie patterns fixed)",
            )
        return _tied_test(x, y, config, alternative, method, n_resamples, rng, sequential, rule, progress)
    n = x.size
    auto = method == "auto"
    method, tab, model = _resolve_method(method, n, table, config)
    if method == "exact":
        p, se, moments, used, source, mse = _exact_branch(gamma, n, F, config, alternative, progress)
    elif method == "table":
        p, se, moments, used, source, mse = _table_branch(gamma, n, config, alternative, table, tab, model)
    else:
        seq = auto if sequential is None else bool(sequential)
        p, se, moments, used, source, mse = _monte_carlo_branch(
            gamma, n, F, config, alternative, table, tab, n_resamples, rng, progress, seq
        )
    std = _standardized(gamma, moments, rule)
    return WeightedCorrelationResult(
        statistic=gamma,
        standardized=std,
        pvalue=float(p),
        alternative=alternative,
        method=method,
        n=int(n),
        null_mean=float(moments[0]),
        null_var=float(moments[1]),
        null_left_var=float(moments[2]),
        pvalue_se=float(se),
        coefficient=config.coefficient,
        scheme=config.scheme,
        weigher=config.weigher.spec,
        n_resamples_used=int(used),
        moments_source=source,
        null_mean_se=float(mse[0]),
        null_var_se=float(mse[1]),
        null_left_var_se=float(mse[2]),
        _data=(x.copy(), y.copy(), config),
    )


# the seams of configured_test: which method, then one function per method, each returning
# (p, se, moments, resamples used, moments source, moments' standard errors)


def _resolve_method(method, n, table, config):
    """``method`` with ``"auto"`` resolved: exact for n <= AUTO_EXACT_MAX_N, else the table's null quantiles
    if they cover n, else Monte Carlo; with the table and its quantile model when they were looked up."""
    tab = None
    model = None
    if method == "auto":
        if n <= AUTO_EXACT_MAX_N:
            method = "exact"
        else:
            tab = find_table_for(table, config, required=False)
            model = None if tab is None else quantile_model(tab)
            method = "table" if model is not None and model.n_lo <= n <= model.n_hi else "monte-carlo"
    return method, tab, model


def _exact_branch(gamma, n, F, config, alternative, progress):
    """The exact test: the n! permutations enumerated."""
    if n > MAX_EXACT_N:
        raise InputError(
            "method",
            f"'exact' enumerates n! permutations and allows n <= {MAX_EXACT_N}; "
            f"got n = {n} (use 'table' or 'monte-carlo')",
        )
    p, moments = exact_test(gamma, n, F, config.coef, config.mult, alternative, progress)
    if moments is None:  # n = 11, 12: moments by a separate enumeration
        m = _exact_moments(config, n, progress)
        moments = (m.mean, m.var, m.left_var)
    return p, 0.0, moments, 0, "exact", (0.0, 0.0, 0.0)


def _table_branch(gamma, n, config, alternative, table, tab, model):
    """The test from a table's null quantiles at n."""
    if tab is None:
        tab = find_table_for(table, config, required=True)
        model = quantile_model(tab)
    if model is None:
        raise InputError(
            "table",
            f"{tab.scheme_id!r} stores no null quantiles (schema "
            f"{tab.data.get('schema_version')}); regenerate it with the pipeline "
            "or use method='monte-carlo'",
        )
    if not model.n_lo <= n <= model.n_hi:
        raise InputError(
            "n",
            f"= {n} is outside the quantile range of table {tab.scheme_id!r} "
            f"({model.n_lo} <= n <= {model.n_hi}); use method='exact' or 'monte-carlo'",
        )
    p_ge, p_le, n_eff = model.tails_and_size(n, gamma)
    p = combine(p_ge, p_le, alternative)
    mom = model.quantiles(n)[1]
    moments = (mom.mean, mom.var, mom.left_var)
    se = tail_se(p_ge, p_le, alternative, n_eff)
    return p, se, moments, 0, mom.source, (mom.mean_se, mom.var_se, mom.left_var_se)


def _monte_carlo_branch(gamma, n, F, config, alternative, table, tab, n_resamples, rng, progress, seq):
    """The Monte Carlo test (sequential or of fixed size); the moments from the table if it covers n, else
    from the sample, else computed (and cached)."""
    coef, mult = config.coef, config.mult
    if tab is None and table is not None:
        tab = find_table_for(table, config, required=True)
    announce = progress is not False  # the time estimate of long work: off only when progress is turned off
    if progress is None:
        progress = n_resamples * n >= 10**8
    gen = check_rng(rng)
    if seq:
        p, se, used = sequential_test(
            gamma, untied_batches(n, F, coef, mult, gen, n_resamples), alternative, n_resamples
        )
        null = None
    else:
        null = monte_carlo_null(n, F, coef, mult, n_resamples, gen, progress, announce=announce)
        p, se = mc_test(gamma, null, alternative)
        used = n_resamples
    if tab is None:
        tab = find_table_for(None, config, required=False)
    if tab is not None and n <= tab.n_max:
        mom = tab.moments(n)
        moments = (mom.mean, mom.var, mom.left_var)
        source, mse = mom.source, (mom.mean_se, mom.var_se, mom.left_var_se)
    elif null is not None:
        moments = sample_moments(null)
        source, mse = "monte-carlo", sample_moment_ses(null, moments)
    else:
        c = _cache.computed_moments(config, n, progress=progress)
        moments, mse, source = c[:3], c[3:6], c[6]
    return p, se, moments, used, source, mse
