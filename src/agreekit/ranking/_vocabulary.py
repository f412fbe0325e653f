"""The ranking vocabularies, one registry each: coefficients, combination schemes, weigher families.

Everything else is built from these three dicts or checked against them by a test: the kernels'
coefficient codes (:mod:`agreekit.ranking._kernels`, :mod:`agreekit.ranking.tablegen._fused`), the
scheme flag of the kernels (``mult``), the spec grammar of the weighers (:func:`parse_weigher`: the
family names, their parameters, defaults and bounds), the log-space weights of extreme weighers
(:meth:`Weigher.log`), the labels of the reproduction report and figures, the CLI choices, the
pipeline config's JSON schema and the tables of ``docs/guide/ranking.md``
(``tests/test_ranking_vocabulary.py`` checks the last three).  Every look-up fails closed: an unknown
name or kernel code raises, it is never taken for another one.

Adding a weigher family is one :class:`WeigherFamily` entry in :data:`WEIGHER_FAMILIES` (its
function, its log form, its parameters with bounds, its label and doc), plus its row in the docs
table and its name in the config schema's pattern (both checked by the test above).  The moments,
tests and standardization of a new family are computed on demand (exact enumeration for n <= 10,
Monte Carlo above); no table ships for it.

This module imports nothing from agreekit but :mod:`agreekit._validation`: the numba kernels read
their codes from it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from agreekit._validation import InputError

__all__ = [
    "Coefficient",
    "COEFFICIENT_REGISTRY",
    "SPEARMAN",
    "KENDALL",
    "coefficient_code",
    "check_code",
    "Scheme",
    "SCHEME_REGISTRY",
    "scheme_flag",
    "Parameter",
    "WeigherFamily",
    "WEIGHER_FAMILIES",
]


def _fmt(x: float) -> str:
    # integers as integers up to 2^53; beyond, repr ("1e+308", not a 309-digit integer)
    return str(int(x)) if float(x).is_integer() and abs(x) <= 2.0**53 else repr(float(x))


# ------------------------------------------------------------------ coefficients


@dataclass(frozen=True)
class Coefficient:
    """A weighted rank correlation coefficient.

    ``code`` is the integer the numba kernels dispatch on (every kernel handles exactly the codes of
    this registry and raises on any other), ``label`` the text of figures and reports.
    """

    name: str
    code: int
    label: str
    doc: str


#: registry of the coefficients: name -> :class:`Coefficient` (the order of ``COEFFICIENTS``)
COEFFICIENT_REGISTRY: dict[str, Coefficient] = {
    c.name: c
    for c in (
        Coefficient(
            "spearman", 0, "Spearman ρ_w", "weighted Pearson correlation of the two rank vectors with item weights w_i"
        ),
        Coefficient("kendall", 1, "Kendall τ_w", "weighted Kendall correlation, pair weight w_i·w_j"),
    )
}

#: the kernels' codes (module constants: numba freezes them into the compiled kernels)
SPEARMAN = COEFFICIENT_REGISTRY["spearman"].code
KENDALL = COEFFICIENT_REGISTRY["kendall"].code
_CODES = frozenset(c.code for c in COEFFICIENT_REGISTRY.values())


def coefficient_code(name: str) -> int:
    """The kernel code of a coefficient name; an unknown name raises :class:`~agreekit.InputError`."""
    entry = COEFFICIENT_REGISTRY.get(name) if isinstance(name, str) else None
    if entry is None:
        raise InputError(
            "coefficient", f"must be one of {{{', '.join(map(repr, COEFFICIENT_REGISTRY))}}}; got {name!r}"
        )
    return entry.code


def check_code(coef) -> int:
    """``coef`` if it is a kernel code of :data:`COEFFICIENT_REGISTRY`, else :class:`ValueError`
    (an internal error: codes come from the registry, never from users)."""
    if coef.__class__ is int and coef in _CODES:  # the common case, in the O(1) paths: no more than this
        return coef
    if isinstance(coef, bool) or not isinstance(coef, (int, np.integer)) or int(coef) not in _CODES:
        raise ValueError(f"unknown coefficient code {coef!r} (known: {sorted(_CODES)})")
    return int(coef)


# ------------------------------------------------------------------ schemes


@dataclass(frozen=True)
class Scheme:
    """How the weights of an item's two ranks combine: ``multiplicative`` is the kernels' ``mult`` flag."""

    name: str
    multiplicative: bool
    formula: str
    doc: str


#: registry of the combination schemes: name -> :class:`Scheme`
SCHEME_REGISTRY: dict[str, Scheme] = {
    s.name: s
    for s in (
        Scheme("additive", False, "f(a_i) + f(b_i)", "an item counts if it is near the top of either ranking"),
        Scheme("multiplicative", True, "f(a_i) * f(b_i)", "an item counts if it is near the top of both rankings"),
    )
}


def scheme_flag(name: str) -> bool:
    """The kernels' ``mult`` flag of a scheme name; an unknown name raises :class:`~agreekit.InputError`."""
    entry = SCHEME_REGISTRY.get(name) if isinstance(name, str) else None
    if entry is None:
        raise InputError("scheme", f"must be one of {{{', '.join(map(repr, SCHEME_REGISTRY))}}}; got {name!r}")
    return entry.multiplicative


# ------------------------------------------------------------------ weigher families


@dataclass(frozen=True)
class Parameter:
    """A weigher family's parameter: valid values are ``lower < value`` (and ``value < upper`` if
    ``upper`` is not None); ``rule`` says so in words for the error message, ``example`` is a valid
    value for the message that asks for a missing required parameter."""

    name: str
    default: float | None  # None: required
    lower: float
    upper: float | None
    rule: str
    example: float = 1.5

    def check(self, value: float) -> None:
        """:class:`~agreekit.InputError` naming ``weigher`` if ``value`` is out of bounds (NaN is)."""
        if not (value > self.lower and (self.upper is None or value < self.upper)):
            raise InputError("weigher", f"{self.name} {self.rule}; got {_fmt(value)}")

    @property
    def bounds(self) -> str:
        """The bounds as text (``"> -1"``, ``"in (0, 1)"``, ``"> 0, finite"``) for the docs table."""
        if self.upper is None:
            return f"> {_fmt(self.lower)}"
        if math.isinf(self.upper):
            return f"> {_fmt(self.lower)}, finite"
        return f"in ({_fmt(self.lower)}, {_fmt(self.upper)})"


@dataclass(frozen=True)
class WeigherFamily:
    """A named weigher family f(i) of the 1-based rank i.

    Attributes
    ----------
    name : str
        The family's name in specs (``"geometric:p=0.9"``).
    func : callable
        ``func(i, **params)``: f at a float64 array of ranks (vectorised numpy; overflow / underflow
        to inf / 0 is allowed, the callers check and fall back to ``log``).
    log : callable
        ``log(i, **params)``: log f computed in log space (finite where f itself under- or overflows:
        extreme weighers are rescaled from it, see ``agreekit.ranking._rescaling.weigher_table``).
    params : tuple of Parameter
        The parameters in canonical order (the order of the spec string), with default and bounds.
    label : str
        f(i) as a formula with ``{param}`` fields (``"1/(i+{n0})^2"``): the reports' and figures' text.
    doc : str
        One line for the docs table.
    """

    name: str
    func: Callable
    log: Callable
    params: tuple = ()
    label: str = ""
    doc: str = ""

    @property
    def defaults(self) -> dict:
        """``{parameter: default}`` in canonical order (None for a required parameter)."""
        return {p.name: p.default for p in self.params}

    @property
    def required(self) -> tuple:
        """Names of the parameters without a default."""
        return tuple(p.name for p in self.params if p.default is None)

    @property
    def synopsis(self) -> str:
        """The spec form and f(i) with the parameters' names: ``"inverse_square:n0=… (1/(i+n0)^2)"``."""
        spec = self.name + (":" + ",".join(f"{p.name}=..." for p in self.params) if self.params else "")
        return f"{spec} ({self.label.replace('{', '').replace('}', '')})"

    def formula(self, params) -> str:
        """:attr:`label` with the parameter values filled in (``"1/(i+1)^2"``)."""
        return self.label.format(**{k: _fmt(v) for k, v in dict(params).items()})


_N0 = Parameter("n0", 0.0, -1.0, None, "must be > -1 so that f(1) is finite")

#: registry of the named weigher families: name -> :class:`WeigherFamily`
WEIGHER_FAMILIES: dict[str, WeigherFamily] = {
    f.name: f
    for f in (
        WeigherFamily(
            "harmonic",
            lambda i: 1.0 / i,
            lambda i: -np.log(i),
            label="1/i",
            doc="hyperbolic, scipy.stats.weightedtau's default weigher",
        ),
        WeigherFamily(
            "inverse_square",
            lambda i, n0: 1.0 / (i + n0) ** 2,
            lambda i, n0: -2.0 * np.log(i + n0),
            (_N0,),
            label="1/(i+{n0})^2",
            doc="the shifted family of the tables of Lombardo (2025)",
        ),
        WeigherFamily(
            "power",
            lambda i, p, n0: 1.0 / (i + n0) ** p,
            lambda i, p, n0: -p * np.log(i + n0),
            (Parameter("p", None, 0.0, math.inf, "must be a positive number"), _N0),
            label="1/(i+{n0})^{p}",
            doc="polynomial decay of any order",
        ),
        WeigherFamily(
            "dcg",
            lambda i: 1.0 / np.log2(i + 1.0),
            lambda i: -np.log(np.log2(i + 1.0)),
            label="1/log2(i+1)",
            doc="the position discount of DCG (Järvelin and Kekäläinen, 2002)",
        ),
        WeigherFamily(
            "geometric",
            lambda i, p: p ** (i - 1.0),
            lambda i, p: (i - 1.0) * np.log(p),
            (Parameter("p", None, 0.0, 1.0, "must be in (0, 1)", example=0.9),),
            label="{p}^(i-1)",
            doc="the weights of rank-biased overlap (Webber, Moffat and Zobel, 2010)",
        ),
    )
}


# ------------------------------------------------------------------ the docs tables


def docs_table(vocabulary: str) -> str:
    """The Markdown table of a vocabulary (``"coefficients"``, ``"schemes"`` or ``"weighers"``) as the
    user guide (``docs/guide/ranking.md``) shows it; ``tests/test_ranking_vocabulary.py`` checks that the
    guide holds exactly this text, so a new registry entry shows in the failure message as the row to add."""
    if vocabulary == "coefficients":
        rows = [("coefficient", "statistic", "definition")]
        rows += [(f"`{c.name}`", c.label, c.doc) for c in COEFFICIENT_REGISTRY.values()]
    elif vocabulary == "schemes":
        rows = [("scheme", "item weight w_i", "meaning")]
        rows += [(f"`{s.name}`", s.formula, s.doc) for s in SCHEME_REGISTRY.values()]
    elif vocabulary == "weighers":
        rows = [("spec", "f(i), i = 1, 2, ...", "parameters", "notes")]
        for f in WEIGHER_FAMILIES.values():
            spec, formula = f.synopsis[:-1].split(" (", 1)
            params = (
                ", ".join(
                    f"`{p.name}` {p.bounds} " + ("(required)" if p.default is None else f"(default {_fmt(p.default)})")
                    for p in f.params
                )
                or "none"
            )
            rows.append((f"`{spec}`", formula, params, f.doc))
    else:
        raise ValueError(f"unknown vocabulary {vocabulary!r}")
    lines = ["| " + " | ".join(r) + " |" for r in rows]
    lines.insert(1, "|" + "---|" * len(rows[0]))
    return "\n".join(lines)
