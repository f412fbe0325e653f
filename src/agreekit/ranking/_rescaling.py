"""The rescaling policy of weigher values: the tables f(1..n) the kernels use, rescaled where float64
needs it, and the log tables of extreme weighers (see :func:`weigher_table`).

Public through :mod:`agreekit.ranking.weighting`.
"""

from __future__ import annotations

import weakref

import numpy as np

from agreekit._validation import InputError
from agreekit.ranking._spec import Weigher, _check_positive
from agreekit.ranking._vocabulary import SPEARMAN, check_code

#: a table in [_LOW, _HIGH] is used as it is (ordinary weighers): the products of four weights of
#: the multiplicative scheme's pairs stay within float64's normal range
_HIGH = 2.0**100
_LOW = 2.0**-240
#: clip of the log gap between the largest and second-largest item weight (see item_weights)
_LOG_GAP = 400.0
#: log f(1..n) may span at most this many nats: the log item weights (sums of two log-weights) and their
#: differences (up to four) stay finite in float64.  Any representable weight vector spans < 1500.
_MAX_LOG_SPAN = 1e300
#: Spearman's enumeration (tree-carried raw moments, Σwx² - (Σwx)²/W) is used up to this ratio of the
#: largest to the smallest table value; above it the coefficient of every permutation is computed on its
#: own by the two-pass formula (no cancellation), see :func:`scratch_table`
_SPEARMAN_ONE_PASS_RATIO = 2.0**8
#: ... and the two-pass weighted Pearson formula up to this bound of dominance times n^2
_SPEARMAN_DOMINANCE = 2.0**66


def _safe(vals: np.ndarray) -> bool:
    return bool(vals.size and np.all(np.isfinite(vals)) and vals.min() >= _LOW and vals.max() <= _HIGH)


def weigher_table(weigher: Weigher, n: int, *, strict: bool = True) -> np.ndarray | None:
    """Values f(1..n) as the coefficients' kernels use them, rescaled if their magnitude needs it.

    Both coefficients depend only on the pair weights ``w_i w_j`` of a permutation up to a common
    factor, so any rescaling of the weights that keeps their ratios leaves them unchanged.

    * Ordinary weighers (every value in ``[2**-240, 2**100]``) give ``f(1..n)`` unchanged (the same
      bits as before: this fast path is not touched).
    * Otherwise the values are divided by a power of two (exact: every later product and ratio has
      the bits it would have without the scaling) when they are representable, else computed as
      ``exp(l - max l)`` from the logarithms ``l = log f`` (:meth:`Weigher.log`), so the largest is
      in [0.5, 1].  If the smallest is then at least ``2**-240`` times the largest, this shape (n,)
      table is returned: a multiplicative pair weight is a product of four values, at least
      ``2**-960``, so every pair weight of every permutation is a normal float64 and the kernels
      compute the coefficients exactly as for ordinary weighers.
    * A wider span (``power:p=300``: f(7) = 7^-300 = 2^-842 f(1)) cannot be carried by one table:
      the largest pair weight of some permutations (the reversal's, ``(f(1) f(n))**2``) lies below
      float64's range once the table's largest value is 1, and no fixed compression of the table
      (clipping it, raising a floor) keeps the ratios of the pair weights that matter in every
      permutation.  The table then has shape (2n,): ``exp(l)`` (rescaled values, those below float64's
      range 0) followed by the log-weights ``l = log f - max log f``.  The kernels that enumerate or
      sample permutations (:func:`scratch_table` picks them) rescale each permutation's item weights
      on their own, in log space, as :func:`item_weights` does for one pair: the log item weights
      ``l(a_i) + l(b_i)`` (multiplicative) or ``logaddexp(l(a_i), l(b_i))`` (additive), the largest
      clipped to at most ``_LOG_GAP`` = 400 above the second largest, then divided by the geometric
      mean of the two largest.  The permutation's largest pair weight is then 1 (the top item's
      weight at most e^200), every pair weight above ``e^-500`` of it is a product of two normal
      float64 (each factor above e^-700), and those below it (which may underflow) contribute less
      than float64's precision, 2^-53, relative to it, even summed over 10^100 pairs and times the
      Spearman factors ``(x_i - x_j)^2 < n^2``; the pairs without the top item after a clip stay
      below e^-400 of it, as before the clip.  The sums are accumulated as sums of non-negative pair weights
      (Kendall: concordant and discordant weight, ``Σ_j w_j Σ_{i<j} w_i``; never ``(Σw)² - Σw²``)
      or by the two-pass weighted Pearson formula (Spearman), so nothing cancels.

    Refused (:class:`InputError` naming ``weigher``): a value that is NaN, infinite, zero or negative
    where the logarithm is not finite (named families are evaluated in log space, so ``power:p=1000``
    is fine), and log-weights spanning more than 10^300 nats.  With ``strict=False`` a (2n,) table is
    not built and None is returned (the caller computes the coefficient of its two rankings from
    :func:`item_weights`).
    """
    ranks = np.arange(1, n + 1)
    with np.errstate(all="ignore"):  # overflow / division shows up as inf or 0, handled below
        vals = weigher(ranks)
    if vals.shape != (n,):
        raise InputError("weigher", f"{weigher.spec!r} must give one weight per rank 1..{n}")
    if _safe(vals):
        return np.ascontiguousarray(vals, dtype=np.float64)
    if weigher.family == "callable":
        _check_positive(weigher, vals, f"for ranks 1..{n}")
    logs = None
    if np.all(np.isfinite(vals)) and np.all(vals >= np.finfo(np.float64).tiny):
        # representable: scale by a power of two (exact: every later product and ratio has the same bits
        # as without the scaling, as long as nothing under- or overflows)
        out = np.ldexp(vals, -int(np.frexp(vals.max())[1]))
    else:
        logs = _finite_logs(weigher, ranks)
        out = np.exp(logs - logs.max())
    if out.min() >= _LOW * out.max():
        return np.ascontiguousarray(out, dtype=np.float64)
    if not strict:
        return None
    lf = _finite_logs(weigher, ranks) if logs is None else logs
    lf = lf - lf.max()
    if not lf.min() >= -_MAX_LOG_SPAN:
        raise InputError(
            "weigher",
            f"{weigher.spec!r}: log f(1..{n}) spans more than 10^300 (its values are "
            "not representable in float64 even as logarithms)",
        )
    return np.ascontiguousarray(np.concatenate([np.exp(lf), lf]), dtype=np.float64)


def _finite_logs(weigher: Weigher, ranks: np.ndarray) -> np.ndarray:
    logs = np.asarray(weigher.log(ranks), dtype=np.float64)
    if not np.all(np.isfinite(logs)):
        raise InputError("weigher", f"{weigher.spec!r} must give finite positive weights for ranks 1..{ranks.size}")
    return logs


def scratch_table(F: np.ndarray, n: int, coef: int | None = None, *, one_pass: bool = False) -> np.ndarray | None:
    """The log table for the per-permutation kernels of this module, or None for the standard ones.

    ``F`` is a :func:`weigher_table` of length n.  A (2n,) table (an extreme weigher) returns its
    log-weights: its permutations' weights are rescaled one permutation at a time
    (:func:`log_batch_identity`, :func:`log_exact_chunk_sums`, :func:`log_exact_chunk_counts`,
    :func:`log_coefficient`).

    With ``coef`` = Spearman (the code of :data:`agreekit.ranking._vocabulary.COEFFICIENT_REGISTRY`) a (n,) table also
    returns its logarithms when one item's weight can dominate the others so much that the weighted
    Pearson formula loses precision: centred at the weighted mean, whose rounding (relative 2^-53)
    leaves the dominant item a deviation of about ``2^-53 n``, that item adds ``w_top (2^-53 n)^2``
    to sums that are only about ``w_rest``.  The dominance ``w_top / w_rest`` is at most
    ``D = (F_(1) / F_(2)) (F_max / F_min)`` (the largest item weight is at most ``F_(1)^2``, the
    item with the second-largest value at one of its ranks has at least ``F_(2) F_min``), so the
    standard kernels are kept while ``D n^2 <= 2^66`` (relative error below 4e-12 by this pessimistic
    bound): the eight weighers of the shipped tables (harmonic, 1/(i+n0)^2) up to n = 36 119, the
    largest n of the tables, keep their kernels and bits (1/i^2 reaches the bound at n ~ 65 000).
    Above it the per-permutation kernels centre each permutation at its dominant item (exact
    integer differences, see :func:`_log_gamma`).  ``one_pass=True`` (the exact
    enumeration, n <= 12, whose tree carries raw weighted moments, ``Σwx² - (Σwx)²/W``, and loses
    about ``log2 D`` bits) switches already when ``F_max > 2^8 F_min`` (shipped weighers: at most
    144 at n <= 12).
    """
    if F.size == 2 * n:
        return F[n:]
    if coef != SPEARMAN:
        if coef is not None:
            check_code(coef)  # Kendall's needs no log table; an unknown code raises
        return None
    if F.size != n or n < 2:
        return None
    # memoized per table object (the kernels' tables are cached and never modified): the fast path of
    # weighted_correlation_test pays a dict look-up, not O(n) per call
    key = (id(F), n, one_pass)
    hit = _SCRATCH_MEMO.get(key)
    if hit is not None and hit[0]() is F:
        return hit[1]
    lo, hi = float(F.min()), float(F.max())
    if one_pass:
        out = np.log(F) if hi > _SPEARMAN_ONE_PASS_RATIO * lo else None
    else:
        second = float(np.partition(F, n - 2)[n - 2])
        out = np.log(F) if (hi / second) * (hi / lo) * float(n) * float(n) > _SPEARMAN_DOMINANCE else None
    if len(_SCRATCH_MEMO) >= 256:
        _SCRATCH_MEMO.clear()
    _SCRATCH_MEMO[key] = (weakref.ref(F), out)
    return out


_SCRATCH_MEMO: dict = {}


def item_weights(weigher: Weigher, a, b, mult: bool) -> np.ndarray:
    """Item weights ``f(a_i) f(b_i)`` (``mult``) or ``f(a_i) + f(b_i)`` for 1-based ranks ``a``, ``b``.

    Ordinary weighers give exactly those products or sums.  Extreme ones (values or products outside
    float64's comfortable range) are combined in log space and rescaled, which leaves both
    coefficients unchanged because they depend only on the pair weights ``w_i w_j`` up to a common
    factor: the largest log weight is first clipped to at most ``_LOG_GAP`` (400) above the
    second largest — the pairs without the top item are then below e^-400 of the largest pair
    before and after, and the pairs with it keep their ratios — and the weights are then divided
    by the geometric mean of the two largest, so the largest pair weight is 1 and every pair
    weight that matters to float64 precision is representable.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    with np.errstate(all="ignore"):
        fa = weigher(a)
        fb = weigher(b)
    if weigher.family == "callable":
        _check_positive(weigher, fa, "at the ranks")
        _check_positive(weigher, fb, "at the ranks")
    if _safe(fa) and _safe(fb):
        return fa * fb if mult else fa + fb
    la, lb = weigher.log(a), weigher.log(b)
    if not (np.all(np.isfinite(la)) and np.all(np.isfinite(lb))):
        raise InputError("weigher", f"{weigher.spec!r} must give finite positive weights at the ranks")
    lw = la + lb if mult else np.logaddexp(la, lb)
    return _rescaled_weights(lw)


def _rescaled_weights(lw: np.ndarray) -> np.ndarray:
    """exp of log item weights, clipped and scaled as described in :func:`item_weights`."""
    lw = np.array(lw, dtype=np.float64)
    if lw.size < 2:
        return np.ones_like(lw)
    top = int(np.argmax(lw))
    l1 = lw[top]
    lw[top] = -np.inf
    l2 = float(lw.max())
    l1 = min(float(l1), l2 + _LOG_GAP)
    lw[top] = l1
    return np.exp(lw - 0.5 * (l1 + l2))
