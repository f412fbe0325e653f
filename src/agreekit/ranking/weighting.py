"""Weighting functions f(i) of the 1-based rank i, and how per-item weights combine.

A *weigher* is a named family with parameters, written with one spec grammar used
everywhere (library, CLI, config, table names)::

    spec   := family [":" param ("," param)*]
    param  := name "=" number

=================  ===========================  ==================
family             f(i), i = 1, 2, ...          parameters
=================  ===========================  ==================
``harmonic``       1 / i                        none
``inverse_square`` 1 / (i + n0)^2               ``n0`` (default 0)
``power``          1 / (i + n0)^p               ``p`` (required), ``n0`` (default 0)
``dcg``            1 / log2(i + 1)              none
=================  ===========================  ==================

A parameter given twice (``power:p=1,p=2``), an unknown parameter or a missing
required one (``power``) is an error.  User strings are parsed, never evaluated.  In the Python API any callable
``f(i)`` (vectorised over a numpy array of 1-based ranks) is accepted too.

Ranks are **1-based** here (i = 1 is the top item).  ``scipy.stats.weightedtau``'s
``weigher`` takes 0-based ranks (r = 0 is the top): a scipy weigher ``scipy_w`` is
``lambda i: scipy_w(i - 1)`` here, and scipy's hyperbolic ``lambda r: 1 / (r + 1)`` is
``"harmonic"``.  Passing scipy's callable unchanged shifts every weight by one rank.

:data:`WEIGHER_FAMILIES` is the registry of the named families above; :data:`SCHEMES`
lists the combination schemes and :data:`COEFFICIENTS` the coefficients.

Combination schemes (Lombardo et al., Eqs. 12-13) for item i with ranks a_i, b_i:

* ``additive``:       w_i ∝ f(a_i) + f(b_i)
* ``multiplicative``: w_i ∝ f(a_i) · f(b_i)

Both coefficients are invariant to the scale of w, so the normalisations of
Eqs. 12-13 are immaterial and not applied.
"""
from __future__ import annotations

import math
import re
import weakref
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from numba import njit, prange

from agreekit._api import ResultBase
from agreekit._validation import InputError, check_choice
from agreekit.ranking import _kernels as _k

__all__ = [
    "Weigher",
    "parse_weigher",
    "WEIGHER_FAMILIES",
    "SCHEMES",
    "COEFFICIENTS",
    "scheme_id",
]

SCHEMES = ("additive", "multiplicative")
COEFFICIENTS = ("spearman", "kendall")


def _harmonic(i, *, _params):
    return 1.0 / i


def _inverse_square(i, *, _params):
    return 1.0 / (i + _params["n0"]) ** 2


def _power(i, *, _params):
    return 1.0 / (i + _params["n0"]) ** _params["p"]


def _dcg(i, *, _params):
    return 1.0 / np.log2(i + 1.0)


@dataclass(frozen=True)
class _Family:
    func: Callable
    defaults: dict
    doc: str
    required: tuple = ()


#: registry of named weigher families: name -> (f, default parameters)
WEIGHER_FAMILIES: dict[str, _Family] = {
    "harmonic": _Family(_harmonic, {}, "1/i"),
    "inverse_square": _Family(_inverse_square, {"n0": 0.0}, "1/(i+n0)^2"),
    "power": _Family(_power, {"p": None, "n0": 0.0}, "1/(i+n0)^p", required=("p",)),
    "dcg": _Family(_dcg, {}, "1/log2(i+1)"),
}

_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")


def _fmt(x: float) -> str:
    # integers as integers up to 2^53; beyond, repr ("1e+308", not a 309-digit integer)
    return str(int(x)) if float(x).is_integer() and abs(x) <= 2.0 ** 53 else repr(float(x))


@dataclass(frozen=True)
class Weigher(ResultBase):
    """A weighting function f of the 1-based rank i = 1, 2, ... (1 = top).

    Built by :func:`parse_weigher` from a spec string (``"inverse_square:n0=1"``) or a Python
    callable; calling it evaluates f on an array of ranks, :meth:`log` gives log f (in log space
    for the named families, so ``power:p=300`` works where f itself under- or overflows) and
    :meth:`table` the values f(1..n) that the coefficients' kernels use, rescaled where their
    magnitude needs it (the coefficients are invariant to the scale of the weights).

    Callables take 1-based ranks: scipy's 0-based ``weigher`` ``scipy_w`` (as passed to
    ``scipy.stats.weightedtau``) is ``lambda i: scipy_w(i - 1)`` here.

    Parameters
    ----------
    family : str
        Family name, a key of :data:`WEIGHER_FAMILIES` (``"harmonic"``, ``"inverse_square"``,
        ``"power"``, ``"dcg"``), or ``"callable"`` for a user function.
    params : tuple of (str, float), optional
        The family's parameters in canonical order, e.g. ``(("n0", 1.0),)``; empty for
        ``harmonic``, ``dcg`` and callables.
    func : callable, optional
        The user function f(i) of a ``"callable"`` weigher (vectorised over a numpy array of
        1-based ranks, or scalar); None for the named families.  Not part of ``==``.

    Attributes
    ----------
    spec : str
        Canonical spec string, e.g. ``"inverse_square:n0=1"`` (``"callable:<name>"`` for a
        Python function).
    slug : str
        Filesystem-safe form of ``spec`` (``"inverse_square-n0=1"``), used in table names.

    See Also
    --------
    parse_weigher : Build a weigher from a spec string or a callable.
    scheme_id : The identifier of a (coefficient, scheme, weigher) configuration.

    Examples
    --------
    >>> import numpy as np
    >>> from agreekit.ranking import Weigher, parse_weigher
    >>> w = parse_weigher("inverse_square:n0=1")
    >>> w == Weigher("inverse_square", (("n0", 1.0),))
    True
    >>> w.spec, w.slug, w([1, 2, 3]).round(4).tolist()
    ('inverse_square:n0=1', 'inverse_square-n0=1', [0.25, 0.1111, 0.0625])

    scipy's 0-based hyperbolic weigher, shifted to 1-based ranks, is ``"harmonic"``:

    >>> scipy_w = lambda r: 1.0 / (r + 1.0)                    # r = 0, 1, ...
    >>> h = parse_weigher(lambda i: scipy_w(i - 1))
    >>> bool(np.array_equal(h.table(5), scipy_w(np.arange(5))))  # f(1..5) = scipy_w(0..4)
    True
    >>> bool(np.array_equal(h.table(5), parse_weigher("harmonic").table(5)))
    True

    An extreme weigher: f(1..3) = 1, 2^-300, 3^-300 is computed from its logarithms:

    >>> p = parse_weigher("power:p=300")
    >>> p.log([1, 2, 3]).round(2).tolist()
    [-0.0, -207.94, -329.58]
    """

    family: str
    params: tuple = ()
    func: Callable = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict:
        """``{"spec", "family", "params"}`` (JSON-ready)."""
        return {"spec": self.spec, "family": self.family, "params": {k: float(v) for k, v in self.params}}

    @property
    def spec(self) -> str:
        """Canonical spec string (``"callable:<name>"`` for a Python function)."""
        if self.family == "callable":
            name = getattr(self.func, "__name__", "f")
            return f"callable:{name}"
        if not self.params:
            return self.family
        return self.family + ":" + ",".join(f"{k}={_fmt(v)}" for k, v in self.params)

    @property
    def slug(self) -> str:
        """Filesystem-safe id (``inverse_square-n0=1``)."""
        return self.spec.replace(":", "-").replace(",", "_").replace("<", "").replace(">", "")

    def __call__(self, ranks) -> np.ndarray:
        """f evaluated on an array of 1-based ranks (float64 array).

        A callable must return one real number per rank (vectorised, or called once per rank if it
        is scalar-only); anything else (a wrong length, strings, None) raises :class:`InputError`
        naming ``weigher``.
        """
        i = np.asarray(ranks, dtype=np.float64)
        if self.family == "callable":
            return _call_user_weigher(self, i)
        with np.errstate(over="ignore", divide="ignore", under="ignore"):  # inf / 0 are checked by the callers
            return np.asarray(WEIGHER_FAMILIES[self.family].func(i, _params=dict(self.params)),
                              dtype=np.float64)

    def log(self, ranks) -> np.ndarray:
        """log f at an array of 1-based ranks, computed in log space for the named families.

        ``power:p=300`` or ``inverse_square:n0=1e80`` have values that overflow or underflow
        float64 while their logarithms do not; the coefficients depend only on ratios of weights,
        so the log is what the rescaling of extreme weighers uses.  For a callable it is the log
        of its (finite, positive) values.
        """
        i = np.asarray(ranks, dtype=np.float64)
        prm = dict(self.params)
        with np.errstate(all="ignore"):
            if self.family == "harmonic":
                return -np.log(i)
            if self.family == "inverse_square":
                return -2.0 * np.log(i + prm["n0"])
            if self.family == "power":
                return -prm["p"] * np.log(i + prm["n0"])
            if self.family == "dcg":
                return -np.log(np.log2(i + 1.0))
            vals = self(i)
        _check_positive(self, vals, "at the ranks")
        return np.log(vals)

    def table(self, n: int) -> np.ndarray:
        """The weights f(1), ..., f(n), rescaled where float64 needs it (see :func:`weigher_table`).

        Parameters
        ----------
        n : int
            Ranking length.

        Returns
        -------
        numpy.ndarray
            Ordinary weighers: ``f(1..n)`` unchanged, shape (n,).  Values beyond ``2**100`` or
            below ``2**-240`` (``inverse_square:n0=1e80``, a callable ``1e200 * i``) rescaled so
            the largest is in [0.5, 1), shape (n,).  A span wider than ``2**240``
            (``power:p=300``): ``exp(l)`` with the log-weights ``l = log f - max log f``, shape (n,),
            where values below float64's range are 0; the coefficients, moments and p-values of
            such weighers do not use this table but rescale every permutation's weights on their
            own, from the log-weights.

        Raises
        ------
        InputError
            Naming ``weigher`` if a value is NaN, infinite, zero or negative (where log f is not
            finite).

        Examples
        --------
        >>> from agreekit.ranking import parse_weigher
        >>> parse_weigher("harmonic").table(4).tolist()
        [1.0, 0.5, 0.3333333333333333, 0.25]
        >>> t = parse_weigher("power:p=300").table(3)
        >>> t.shape, float(t[0]), bool(0 < t[1] < 1e-90), bool(0 < t[2] < t[1] * 1e-50)
        ((3,), 1.0, True, True)
        """
        t = weigher_table(self, n)
        return t[:n].copy() if t.size != n else t


def _call_user_weigher(weigher: Weigher, i: np.ndarray) -> np.ndarray:
    func = weigher.func
    name = getattr(func, "__name__", "f")

    def bad(what):
        return InputError("weigher", f"callable {name!r} must return one real number per rank "
                                     f"(a float array of the ranks' shape {i.shape}); {what}")

    try:
        raw = func(i)
    except (TypeError, ValueError):  # a scalar-only function such as math.log
        raw = None
    if raw is not None:
        arr = np.asarray(raw) if not isinstance(raw, (str, bytes)) else np.asarray(object)
        if arr.dtype.kind in "iuf" and arr.shape == i.shape:
            return np.asarray(arr, dtype=np.float64)
        if arr.dtype.kind in "US" or (arr.dtype.kind == "O" and any(isinstance(v, (str, bytes))
                                                                     for v in arr.ravel().tolist())):
            raise bad("it returned strings")
        if arr.dtype.kind == "O" and any(v is None for v in arr.ravel().tolist()):
            raise bad("it returned None values")
        if arr.dtype.kind not in "iufO" or arr.ndim > i.ndim:
            raise bad(f"it returned {_describe(raw)}")
        if arr.shape != i.shape and arr.ndim == i.ndim:
            raise bad(f"it returned shape {arr.shape}")
    out = np.empty(i.size)
    for k, v in enumerate(i.ravel().tolist()):
        try:
            r = func(v)
        except (TypeError, ValueError) as exc:
            raise bad(f"f({_fmt(v)}) raised {type(exc).__name__}: {exc}") from None
        if isinstance(r, (bool, np.bool_, str, bytes)) or r is None or np.ndim(r) != 0:
            raise bad(f"f({_fmt(v)}) returned {_describe(r)}")
        try:
            out[k] = float(r)
        except (TypeError, ValueError):
            raise bad(f"f({_fmt(v)}) returned {_describe(r)}") from None
    return out.reshape(i.shape)


def _describe(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, (str, bytes)):
        return f"a string {value[:20]!r}"
    arr = np.asarray(value, dtype=object) if not isinstance(value, np.ndarray) else value
    if arr.ndim:
        return f"{type(value).__name__} of shape {arr.shape}"
    return f"{type(value).__name__} {str(value)[:30]}"


def _check_positive(weigher: Weigher, vals: np.ndarray, where: str) -> None:
    if not (np.all(np.isfinite(vals)) and np.all(vals > 0)):
        bad = vals[~(np.isfinite(vals) & (vals > 0))]
        raise InputError("weigher", f"{weigher.spec!r} must give finite positive weights {where}; got "
                                    f"{float(bad[0])!r}")


#: a table in [_LOW, _HIGH] is used as it is (ordinary weighers): the products of four weights of
#: the multiplicative scheme's pairs stay within float64's normal range
_HIGH = 2.0 ** 100
_LOW = 2.0 ** -240
#: clip of the log gap between the largest and second-largest item weight (see item_weights)
_LOG_GAP = 400.0
#: log f(1..n) may span at most this many nats: the log item weights (sums of two log-weights) and their
#: differences (up to four) stay finite in float64.  Any representable weight vector spans < 1500.
_MAX_LOG_SPAN = 1e300
#: Spearman's enumeration (tree-carried raw moments, Σwx² - (Σwx)²/W) is used up to this ratio of the
#: largest to the smallest table value; above it the coefficient of every permutation is computed on its
#: own by the two-pass formula (no cancellation), see :func:`scratch_table`
_SPEARMAN_ONE_PASS_RATIO = 2.0 ** 8
#: ... and the two-pass weighted Pearson formula up to this bound of dominance times n^2
_SPEARMAN_DOMINANCE = 2.0 ** 66


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
        raise InputError("weigher", f"{weigher.spec!r}: log f(1..{n}) spans more than 10^300 (its values are "
                                    "not representable in float64 even as logarithms)")
    return np.ascontiguousarray(np.concatenate([np.exp(lf), lf]), dtype=np.float64)


def _finite_logs(weigher: Weigher, ranks: np.ndarray) -> np.ndarray:
    logs = np.asarray(weigher.log(ranks), dtype=np.float64)
    if not np.all(np.isfinite(logs)):
        raise InputError("weigher", f"{weigher.spec!r} must give finite positive weights for ranks "
                                    f"1..{ranks.size}")
    return logs


def scratch_table(F: np.ndarray, n: int, coef: int | None = None, *, one_pass: bool = False) -> np.ndarray | None:
    """The log table for the per-permutation kernels of this module, or None for the standard ones.

    ``F`` is a :func:`weigher_table` of length n.  A (2n,) table (an extreme weigher) returns its
    log-weights: its permutations' weights are rescaled one permutation at a time
    (:func:`log_batch_identity`, :func:`log_exact_chunk_sums`, :func:`log_exact_chunk_counts`,
    :func:`log_coefficient`).

    With ``coef`` = Spearman (the code of :mod:`agreekit.ranking._kernels`) a (n,) table also
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
    if coef != _k.SPEARMAN or F.size != n or n < 2:
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


# ------------------------------------------------------------------ per-permutation kernels (extreme weighers)

@njit(cache=True)
def _log_item_weights(lf, x, y, mult, w):
    """Item weights of the rank vectors x, y from the log table ``lf``, rescaled into ``w`` (as
    :func:`_rescaled_weights`): the largest log weight clipped to ``_LOG_GAP`` above the second,
    then all divided by the geometric mean of the two largest (largest pair weight = 1).  Returns
    the index of the largest."""
    n = x.size
    top = 0
    l1 = -np.inf
    for i in range(n):
        la = lf[x[i] - 1]
        lb = lf[y[i] - 1]
        if mult:
            v = la + lb
        else:
            hi = la if la > lb else lb
            v = hi + np.log1p(np.exp(-abs(la - lb)))
        w[i] = v
        if v > l1:
            l1 = v
            top = i
    l2 = -np.inf
    for i in range(n):
        if i != top and w[i] > l2:
            l2 = w[i]
    l1 = min(l1, l2 + _LOG_GAP)
    c = 0.5 * (l1 + l2)
    for i in range(n):
        w[i] = np.exp((l1 if i == top else w[i]) - c)
    return top


@njit(cache=True)
def _log_gamma(x, y, lf, coef, mult, w, u, v):
    """Γ(x, y) with the item weights rescaled in log space into the buffer ``w``.

    Spearman is the weighted Pearson correlation of the data centred at the item of the largest
    weight first (``u = x - x_t``, ``v = y - y_t`` into the buffers ``u``, ``v``): those differences
    are exact, their weighted mean is small and accurate relative to the other items' weights, so a
    weight 10^-100 times the largest still counts at full precision (centring at the weighted mean
    itself would bury it; see :func:`scratch_table`).
    """
    t = _log_item_weights(lf, x, y, mult, w)
    if coef != _k.SPEARMAN:
        return _k.coefficient_weighted(x, y, w, coef)
    for i in range(x.size):
        u[i] = x[i] - x[t]
        v[i] = y[i] - y[t]
    return _k.spearman_weighted(u, v, w)


@njit(cache=True)
def log_coefficient(x, y, lf, coef, mult):
    """Γ(x, y) for two 1-based int64 rank vectors from the log table ``lf`` (see :func:`scratch_table`)."""
    n = x.size
    return _log_gamma(x, y, lf, coef, mult, np.empty(n), np.empty(n), np.empty(n))


@njit(cache=True, parallel=True)
def log_batch_identity(perms, lf, coef, mult):
    """Γ(id, perms[r]) for every row r from the log table ``lf`` (:func:`agreekit.ranking._kernels.
    batch_identity` with each permutation's weights rescaled on their own)."""
    k, n = perms.shape
    out = np.empty(k)
    for r in prange(k):
        ident = np.arange(1, n + 1)
        w = np.empty(n)
        u = np.empty(n)
        v = np.empty(n)
        out[r] = _log_gamma(ident, perms[r], lf, coef, mult, w, u, v)
    return out


@njit(cache=True)
def _chunk_first(n, k, c, perm):
    """``perm`` = the first permutation of chunk ``c``: its first k entries decoded in mixed radix as
    :func:`agreekit.ranking._kernels.chunk_start` does, the remaining values ascending after them."""
    rem = np.arange(1, n + 1)
    m = n
    cc = c
    for d in range(k):
        j = cc % (n - d)
        cc //= n - d
        perm[d] = rem[j]
        for q in range(j, m - 1):
            rem[q] = rem[q + 1]
        m -= 1
    for q in range(m):
        perm[k + q] = rem[q]


@njit(cache=True)
def _next_suffix(perm, k):
    """Next lexicographic permutation of ``perm[k:]`` in place; False after the last one."""
    n = perm.size
    i = n - 2
    while i >= k and perm[i] > perm[i + 1]:
        i -= 1
    if i < k:
        return False
    j = n - 1
    while perm[j] < perm[i]:
        j -= 1
    perm[i], perm[j] = perm[j], perm[i]
    lo = i + 1
    hi = n - 1
    while lo < hi:
        perm[lo], perm[hi] = perm[hi], perm[lo]
        lo += 1
        hi -= 1
    return True


@njit(cache=True, parallel=True)
def _log_chunks(n, k, lf, coef, mult, center, lo, hi, c_start, c_end, values):
    """Over the permutations of chunks [c_start, c_end) (the chunks of
    :func:`agreekit.ranking._kernels.exact_chunk_sums`), Γ computed on its own for each from the log
    table ``lf``: one row per chunk of [Σ(Γ-c), Σ(Γ-c)², Σ_{Γ<c}(Γ-c)², #Γ >= lo, #Γ <= hi]; if
    ``values`` is not empty, every Γ is stored there in the layout of ``exact_chunk_sums``.  Both the
    sums and the counts are kept at every leaf: a leaf costs O(n^2) here, the two comparisons nothing."""
    per_chunk = np.prod(np.arange(2, n - k + 1))
    out = np.zeros((c_end - c_start, 5))
    for c in prange(c_start, c_end):
        perm = np.empty(n, np.int64)
        ident = np.arange(1, n + 1)
        buf = np.empty((3, n))
        _chunk_first(n, k, c, perm)
        pos = (c - c_start) * per_chunk
        row = np.zeros(5)
        while True:
            g = _log_gamma(ident, perm, lf, coef, mult, buf[0], buf[1], buf[2])
            if values.size:
                values[pos] = g
                pos += 1
            row[3] += g >= lo
            row[4] += g <= hi
            g -= center
            row[0] += g
            row[1] += g * g
            if g < 0:
                row[2] += g * g
            if not _next_suffix(perm, k):
                break
        out[c - c_start] = row
    return out


@njit(cache=True)
def log_exact_chunk_sums(n, k, lf, coef, mult, center, c_start, c_end, values):
    """:func:`agreekit.ranking._kernels.exact_chunk_sums` (same chunks, output and ``values`` layout)
    with every permutation's Γ computed on its own from the log table ``lf`` (see :func:`_log_chunks`)."""
    return _log_chunks(n, k, lf, coef, mult, center, np.inf, -np.inf, c_start, c_end, values)[:, :3]


@njit(cache=True)
def log_exact_chunk_counts(n, k, lf, coef, mult, lo, hi, c_start, c_end):
    """Counts of Γ >= lo and Γ <= hi over the permutations in chunks [c_start, c_end) (the counts of
    :mod:`agreekit.ranking.significance` for n = 11, 12), Γ from the log table ``lf``."""
    return _log_chunks(n, k, lf, coef, mult, 0.0, lo, hi, c_start, c_end, np.empty(0))[:, 3:].astype(np.int64)


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


def parse_weigher(spec) -> Weigher:
    """Parse a weigher spec string (or wrap a callable) into a :class:`Weigher`.

    Parameters
    ----------
    spec : str, Weigher or callable
        ``"harmonic"``, ``"inverse_square:n0=1"``, ``"power:p=1.5,n0=2"``, ``"dcg"``,
        an existing :class:`Weigher`, or a Python callable f(i) of the **1-based** rank
        i = 1..n (vectorised over a numpy array, or scalar).  A scipy
        ``weightedtau`` weigher ``scipy_w`` takes 0-based ranks: pass
        ``lambda i: scipy_w(i - 1)``.

    Returns
    -------
    Weigher
        The weigher: callable on 1-based ranks, with its canonical ``spec`` (None for a callable).

    Examples
    --------
    >>> from agreekit.ranking.weighting import parse_weigher
    >>> w = parse_weigher("inverse_square:n0=1")
    >>> w.spec, w([1, 2]).round(4).tolist()
    ('inverse_square:n0=1', [0.25, 0.1111])

    scipy's 0-based weigher ``1 / (r + 1)`` shifted to 1-based ranks is ``"harmonic"``:

    >>> scipy_w = lambda r: 1.0 / (r + 1.0)
    >>> parse_weigher(lambda i: scipy_w(i - 1))([1, 2, 3, 4]).tolist() == parse_weigher("harmonic")([1, 2, 3, 4]).tolist()
    True
    """
    if isinstance(spec, Weigher):
        return spec
    if callable(spec):
        return Weigher("callable", (), spec)
    if not isinstance(spec, str):
        raise InputError("weigher", f"must be a spec string or a callable; got {type(spec).__name__}")
    text = spec.strip()
    family, _, rest = text.partition(":")
    family = family.strip()
    if family not in WEIGHER_FAMILIES:
        raise InputError("weigher", f"unknown family {family!r} in {spec!r}; known families: "
                                    f"{', '.join(WEIGHER_FAMILIES)}")
    fam = WEIGHER_FAMILIES[family]
    params = dict(fam.defaults)
    given: set[str] = set()
    if rest.strip():
        for item in rest.split(","):
            name, eq, value = (s.strip() for s in item.partition("="))
            if not eq or not _NAME.match(name) or not _NUMBER.match(value):
                raise InputError("weigher", f"malformed parameter {item.strip()!r} in {spec!r}; "
                                            "expected name=number")
            if name not in fam.defaults:
                allowed = ", ".join(fam.defaults) or "none"
                raise InputError("weigher", f"family {family!r} has no parameter {name!r} "
                                            f"(parameters: {allowed})")
            if name in given:
                raise InputError("weigher", f"parameter {name!r} is given twice in {spec!r}")
            given.add(name)
            params[name] = float(value)
    elif _ and not rest.strip():
        raise InputError("weigher", f"malformed spec {spec!r}: nothing after ':'")
    missing = [k for k in fam.required if k not in given]
    if missing:
        example = ",".join(f"{k}=1.5" for k in missing)
        raise InputError("weigher", f"family {family!r} needs parameter(s) {', '.join(missing)} "
                                    f"(e.g. '{family}:{example}'); got {spec!r}")
    if "n0" in params and not params["n0"] > -1:
        raise InputError("weigher", f"n0 must be > -1 so that f(1) is finite; got {_fmt(params['n0'])}")
    if "p" in params and not (params["p"] > 0 and math.isfinite(params["p"])):
        raise InputError("weigher", f"p must be a positive number; got {_fmt(params['p'])}")
    ordered = tuple((k, params[k]) for k in fam.defaults)
    # canonical form drops nothing: inverse_square always shows n0
    return Weigher(family, ordered)


def check_scheme(scheme) -> str:
    return check_choice("scheme", scheme, SCHEMES)


def check_coefficient(coefficient) -> str:
    return check_choice("coefficient", coefficient, COEFFICIENTS)


def scheme_id(coefficient, scheme, weigher) -> str:
    """Identifier of a (coefficient, scheme, weigher) configuration, used for table names.

    Parameters
    ----------
    coefficient : {'kendall', 'spearman'}
        The coefficient.
    scheme : {'additive', 'multiplicative'}
        How the two ranks' weights combine.
    weigher : str or Weigher
        The weigher spec; its canonical form gives the id's last part.

    Returns
    -------
    str
        ``<coefficient>_<scheme>_<weigher slug>``.

    Examples
    --------
    >>> scheme_id("kendall", "multiplicative", "inverse_square:n0=1")
    'kendall_multiplicative_inverse_square-n0=1'
    """
    return f"{check_coefficient(coefficient)}_{check_scheme(scheme)}_{parse_weigher(weigher).slug}"
