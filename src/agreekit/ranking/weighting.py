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

Combination schemes (seed 000, Eqs. 12-13) for item i with ranks a_i, b_i:

* ``additive``:       w_i ∝ f(a_i) + f(b_i)
* ``multiplicative``: w_i ∝ f(a_i) · f(b_i)

Both coefficients are invariant to the scale of w, so the normalisations of
Eqs. 12-13 are immaterial and not applied.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from agreekit._api import ResultBase
from agreekit._validation import InputError, check_choice

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
    return str(int(x)) if float(x).is_integer() else repr(float(x))


@dataclass(frozen=True)
class Weigher(ResultBase):
    """A weighting function f of the 1-based rank i = 1, 2, ... (1 = top).

    Callables take 1-based ranks: scipy's 0-based ``weigher`` ``scipy_w`` (as passed to
    ``scipy.stats.weightedtau``) is ``lambda i: scipy_w(i - 1)`` here.

    >>> import numpy as np
    >>> scipy_w = lambda r: 1.0 / (r + 1.0)                    # scipy's hyperbolic weigher, r = 0, 1, ...
    >>> w = parse_weigher(lambda i: scipy_w(i - 1))
    >>> bool(np.array_equal(w.table(5), scipy_w(np.arange(5))))  # f(1..5) = scipy_w(0..4)
    True
    >>> bool(np.array_equal(w.table(5), parse_weigher("harmonic").table(5)))
    True

    Attributes
    ----------
    family : str
        Family name (``"callable"`` for a user function).
    params : tuple of (str, float)
        Parameters in canonical order.
    spec : str
        Canonical spec string, e.g. ``"inverse_square:n0=1"``.
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
        """Return ``f(1), ..., f(n)`` as a float64 array, checking it is finite and positive.

        Ordinary weighers give their values unchanged.  Values beyond ``2**100`` or below ``2**-240``
        (``power:p=300``, ``inverse_square:n0=1e80``, a callable ``1e200 * i``) are rescaled so the
        largest is in [0.5, 1): by a power of two when the values are representable (exact), else
        from the logarithms.  The coefficients are invariant to the scale of the weights.  A table
        whose smallest value is below ``2**-240`` times its largest even then cannot carry the pair
        weights of every permutation in float64 and raises :class:`InputError` (the coefficient of
        two given rankings is still computed, see :func:`item_weights`).
        """
        return weigher_table(self, n)


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


def _safe(vals: np.ndarray) -> bool:
    return bool(vals.size and np.all(np.isfinite(vals)) and vals.min() >= _LOW and vals.max() <= _HIGH)


def weigher_table(weigher: Weigher, n: int, *, strict: bool = True) -> np.ndarray | None:
    """Values f(1..n), rescaled if their magnitude needs it (see :meth:`Weigher.table`).

    A span too wide for float64 raises :class:`InputError`, or returns None if not ``strict``.
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
    if np.all(np.isfinite(vals)) and np.all(vals >= np.finfo(np.float64).tiny):
        # representable: scale by a power of two (exact: every later product and ratio has the same bits
        # as without the scaling, as long as nothing under- or overflows)
        out = np.ldexp(vals, -int(np.frexp(vals.max())[1]))
    else:
        logs = weigher.log(ranks)
        if not np.all(np.isfinite(logs)):
            raise InputError("weigher", f"{weigher.spec!r} must give finite positive weights for ranks 1..{n}")
        out = np.exp(logs - logs.max())
    if not out.min() >= _LOW * out.max():
        if not strict:
            return None
        span = (float(np.max(weigher.log(ranks)) - np.min(weigher.log(ranks)))) / math.log(10.0)
        raise InputError("weigher", f"{weigher.spec!r}: f(1..{n}) spans a factor of 10^{span:.0f}; the pair "
                                    "weights of every permutation (null distributions, moments, tables) need "
                                    "at most 10^72 in float64 (the coefficient of two given rankings is "
                                    "computed for any span)")
    return np.ascontiguousarray(out, dtype=np.float64)


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
