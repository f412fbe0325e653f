"""The weigher spec grammar: :class:`Weigher`, :func:`parse_weigher` and the configuration checks.

A spec is ``family [":" name "=" number ("," name "=" number)*]``; the families, their parameters,
defaults and bounds are the entries of :data:`agreekit.ranking._vocabulary.WEIGHER_FAMILIES` (nothing
here names a family).  Public through :mod:`agreekit.ranking.weighting`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from agreekit._api import ResultBase
from agreekit._validation import InputError, check_choice, check_float, did_you_mean
from agreekit.ranking._vocabulary import COEFFICIENT_REGISTRY, SCHEME_REGISTRY, WEIGHER_FAMILIES, _fmt

SCHEMES = tuple(SCHEME_REGISTRY)
COEFFICIENTS = tuple(COEFFICIENT_REGISTRY)

# ASCII only: ``\d`` would also match Arabic-Indic or fullwidth digits, which ``float`` then reads
# (``power:p=\u0661`` as p=1); ``\Z`` refuses a trailing newline that ``$`` lets through.
_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?\Z", re.ASCII)
_NAME = re.compile(r"[a-z_][a-z0-9_]*\Z", re.ASCII)


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
        Family name, a key of ``agreekit.ranking.weighting.WEIGHER_FAMILIES`` (``"harmonic"``,
        ``"inverse_square"``, ...), or ``"callable"`` for a user function.
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

    def __post_init__(self):
        if not isinstance(self.family, str):
            raise InputError("family", f"must be a weigher family name (a string); got {type(self.family).__name__}")
        if self.family != "callable" and self.family not in WEIGHER_FAMILIES:  # fail closed
            raise InputError(
                "weigher", f"unknown family {self.family!r}; known families: {', '.join(WEIGHER_FAMILIES)}"
            )
        object.__setattr__(self, "params", _check_params(self.family, self.params))
        if self.family == "callable" and not callable(self.func):
            raise InputError("func", f"must be a callable f(i) for family 'callable'; got {type(self.func).__name__}")
        if self.family != "callable" and self.func is not None:
            raise InputError(
                "func",
                f"is only for family 'callable' (family {self.family!r} has its own f); got {type(self.func).__name__}",
            )

    @property
    def label(self) -> str:
        """f(i) as a formula (``"1/(i+1)^2"``), the family's label with its parameters; the spec for a
        callable."""
        if self.family == "callable":
            return self.spec
        return WEIGHER_FAMILIES[self.family].formula(self.params)

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
            return np.asarray(WEIGHER_FAMILIES[self.family].func(i, **dict(self.params)), dtype=np.float64)

    def log(self, ranks) -> np.ndarray:
        """log f at an array of 1-based ranks, computed in log space for the named families.

        ``power:p=300`` or ``inverse_square:n0=1e80`` have values that overflow or underflow
        float64 while their logarithms do not; the coefficients depend only on ratios of weights,
        so the log is what the rescaling of extreme weighers uses.  For a callable it is the log
        of its (finite, positive) values.
        """
        i = np.asarray(ranks, dtype=np.float64)
        if self.family != "callable":
            with np.errstate(all="ignore"):
                return np.asarray(WEIGHER_FAMILIES[self.family].log(i, **dict(self.params)), dtype=np.float64)
        with np.errstate(all="ignore"):
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
        from agreekit.ranking._rescaling import weigher_table  # the policy module imports this one

        t = weigher_table(self, n)
        return t[:n].copy() if t.size != n else t


def _check_params(family: str, params) -> tuple:
    """``params`` of a hand-built :class:`Weigher`: (name, real number) pairs of the family's
    parameters, each once and within its bounds, in canonical order (defaults filled in)."""
    if not isinstance(params, (tuple, list)) or not all(
        isinstance(p, (tuple, list)) and len(p) == 2 and isinstance(p[0], str) for p in params
    ):
        raise InputError("params", f"must be a tuple of (name, number) pairs; got {params!r}"[:200])
    if family == "callable":
        if params:
            raise InputError("params", f"must be empty for family 'callable'; got {params!r}")
        return ()
    fam = WEIGHER_FAMILIES[family]
    names = [p[0] for p in params]
    unknown = [k for k in names if k not in fam.defaults]
    if unknown or len(set(names)) != len(names):
        raise InputError(
            "params", f"family {family!r} takes each of ({', '.join(fam.defaults) or 'none'}) at most once; got {names}"
        )
    values = dict(fam.defaults)
    for k, v in params:
        values[k] = check_float("params", v)
    missing = [k for k in fam.required if k not in names]
    if missing:
        raise InputError("params", f"family {family!r} needs parameter(s) {', '.join(missing)}")
    for prm in fam.params:
        prm.check(values[prm.name])
    return tuple((k, values[k]) for k in fam.defaults)


def _call_user_weigher(weigher: Weigher, i: np.ndarray) -> np.ndarray:
    func = weigher.func
    name = getattr(func, "__name__", "f")

    def bad(what):
        return InputError(
            "weigher",
            f"callable {name!r} must return one real number per rank "
            f"(a float array of the ranks' shape {i.shape}); {what}",
        )

    try:
        raw = func(i)
    except (TypeError, ValueError):  # a scalar-only function such as math.log
        raw = None
    if raw is not None:
        arr = np.asarray(raw) if not isinstance(raw, (str, bytes)) else np.asarray(object)
        if arr.dtype.kind in "iuf" and arr.shape == i.shape:
            return np.asarray(arr, dtype=np.float64)
        if arr.dtype.kind in "US" or (
            arr.dtype.kind == "O" and any(isinstance(v, (str, bytes)) for v in arr.ravel().tolist())
        ):
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
        raise InputError(
            "weigher", f"{weigher.spec!r} must give finite positive weights {where}; got {float(bad[0])!r}"
        )


def parse_weigher(spec) -> Weigher:
    """Parse a weigher spec string (or wrap a callable) into a :class:`Weigher`.

    Parameters
    ----------
    spec : str, Weigher or callable
        ``"harmonic"``, ``"inverse_square:n0=1"``, ``"power:p=1.5,n0=2"``, ``"dcg"``,
        ``"geometric:p=0.9"`` (a family of ``agreekit.ranking.weighting.WEIGHER_FAMILIES`` and its
        parameters), an existing :class:`Weigher`, or a Python callable f(i) of the **1-based**
        rank i = 1..n (vectorised over a numpy array, or scalar).  A scipy ``weightedtau``
        weigher ``scipy_w`` takes 0-based ranks: pass ``lambda i: scipy_w(i - 1)``.

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
    if not spec.isascii():  # Unicode digits (Arabic-Indic, fullwidth) or spaces would be read as ASCII ones
        bad = next(c for c in spec if not c.isascii())
        raise InputError(
            "weigher",
            f"{spec!r} has the non-ASCII character {bad!r} (U+{ord(bad):04X}); "
            "write the spec in ASCII, numbers with the digits 0-9",
        )
    text = spec.strip()
    family, _, rest = text.partition(":")
    family = family.strip()
    if family not in WEIGHER_FAMILIES:
        raise InputError(
            "weigher",
            f"unknown family {family!r} in {spec!r}"
            f"{did_you_mean(family, WEIGHER_FAMILIES, fold=str.lower)} (known families: "
            f"{', '.join(WEIGHER_FAMILIES)})",
        )
    fam = WEIGHER_FAMILIES[family]
    params = dict(fam.defaults)
    given: set[str] = set()
    if rest.strip():
        for item in rest.split(","):
            name, eq, value = (s.strip() for s in item.partition("="))
            if not eq or not _NAME.match(name) or not _NUMBER.match(value):
                raise InputError("weigher", f"malformed parameter {item.strip()!r} in {spec!r}; expected name=number")
            if name not in fam.defaults:
                allowed = ", ".join(fam.defaults) or "none"
                raise InputError("weigher", f"family {family!r} has no parameter {name!r} (parameters: {allowed})")
            if name in given:
                raise InputError("weigher", f"parameter {name!r} is given twice in {spec!r}")
            given.add(name)
            params[name] = float(value)
    elif _ and not rest.strip():
        raise InputError("weigher", f"malformed spec {spec!r}: nothing after ':'")
    missing = [k for k in fam.required if k not in given]
    if missing:
        example = ",".join(f"{p.name}={_fmt(p.example)}" for p in fam.params if p.name in missing)
        raise InputError(
            "weigher",
            f"family {family!r} needs parameter(s) {', '.join(missing)} (e.g. '{family}:{example}'); got {spec!r}",
        )
    for prm in fam.params:  # the bounds of the family's parameters
        prm.check(params[prm.name])
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
