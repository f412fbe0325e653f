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
        """f evaluated on an array of 1-based ranks (float64 array)."""
        i = np.asarray(ranks, dtype=np.float64)
        if self.family == "callable":
            try:
                out = np.asarray(self.func(i), dtype=np.float64)
            except (TypeError, ValueError):  # a scalar-only function such as math.log
                out = None
            if out is None or out.shape != i.shape:
                out = np.array([float(self.func(float(v))) for v in i.ravel()]).reshape(i.shape)
            return out
        return np.asarray(WEIGHER_FAMILIES[self.family].func(i, _params=dict(self.params)),
                          dtype=np.float64)

    def table(self, n: int) -> np.ndarray:
        """Return ``f(1), ..., f(n)`` as a float64 array, checking it is finite and positive."""
        return weigher_table(self, n)


def weigher_table(weigher: Weigher, n: int) -> np.ndarray:
    """Values f(1..n); raises if any is non-finite or not positive."""
    with np.errstate(all="ignore"):  # overflow / division shows up as inf or 0, rejected below
        vals = weigher(np.arange(1, n + 1))
    if vals.shape != (n,) or not np.all(np.isfinite(vals)) or np.any(vals <= 0):
        raise InputError("weigher", f"{weigher.spec!r} must give finite positive weights for ranks 1..{n}")
    return np.ascontiguousarray(vals, dtype=np.float64)


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
