"""The one dialect of the public API (keyword-only options, ``rng``, ``kind``, ``alternative``, results), as code.

Shared by every area (bottom layer: imports only numpy and :mod:`agreekit._validation`):

* :func:`check_rng` — scipy SPEC 7 randomness (``None``, int, ``SeedSequence``, ``Generator``)
  with one error message that names the parameter;
* :func:`renamed_parameters` — old keyword spellings kept for one release, each raising a
  :class:`DeprecationWarning` that names the new one (scipy's style);
* :func:`deprecated_alias` — an old *function* name kept for one release;
* :class:`ResultBase` — the export protocol of every result (``to_dict()``; ``to_frame()``
  where tabular) with deprecated ``as_dict()`` / ``summary()`` aliases;
* :class:`TestResultBase` — hypothesis-test results unpack like scipy's, ``stat, p = res``;
* :func:`monte_carlo_pvalue` — scipy's ``(b + 1) / (B + 1)`` rule for resampling p-values.
"""

from __future__ import annotations

import dataclasses
import math
import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from agreekit._io import to_jsonable as _jsonable  # one converter for results and JSON output
from agreekit._validation import InputError

__all__ = [
    "check_rng",
    "renamed_parameters",
    "deprecated_alias",
    "deprecated_attribute",
    "ResultBase",
    "TestResultBase",
    "monte_carlo_pvalue",
    "DEPRECATED_PARAMETERS",
]

#: ``{qualified function name: {old keyword: new keyword}}`` for every alias made by
#: :func:`renamed_parameters` (the contract test walks it: one warning per alias).
DEPRECATED_PARAMETERS: dict[str, dict[str, str]] = {}


def _warn(message: str, stacklevel: int = 3) -> None:
    warnings.warn(
        message + " (the old spelling is removed in the next release)", DeprecationWarning, stacklevel=stacklevel
    )


# ----------------------------------------------------------------------------- randomness
def check_rng(rng: Any, *, parameter: str = "rng") -> np.random.Generator:
    """A :class:`numpy.random.Generator` from anything SPEC 7 allows, or :class:`InputError`.

    ``None`` (fresh OS entropy), a non-negative int, a :class:`numpy.random.SeedSequence`,
    a :class:`numpy.random.BitGenerator` or a :class:`numpy.random.Generator` (used as it is).

    >>> int(check_rng(0).integers(10)) == int(check_rng(np.random.SeedSequence(0)).integers(10))
    True
    >>> check_rng("abc")
    Traceback (most recent call last):
    ...
    agreekit.InputError: `rng` must be None, a non-negative int, a numpy.random.SeedSequence or a numpy.random.Generator; got 'abc'
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (np.random.SeedSequence, np.random.BitGenerator)):
        return np.random.default_rng(rng)
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)) and rng >= 0:
        return np.random.default_rng(int(rng))
    shown = repr(rng)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    raise InputError(
        parameter,
        f"must be None, a non-negative int, a numpy.random.SeedSequence or a numpy.random.Generator; got {shown}",
    )


# ----------------------------------------------------------------------------- renames
def renamed_parameters(**old_to_new: str) -> Callable:
    """Decorator: accept ``old=`` keywords as deprecated aliases of ``new=`` for one release.

    Each old spelling raises one :class:`DeprecationWarning` naming the new one; giving both
    is an :class:`InputError`.  A value may be rewritten on the way with ``new:func`` — no:
    keep it simple, values are passed as they are (translate values inside the function).

    >>> @renamed_parameters(seed="rng")
    ... def f(*, rng=None):
    ...     return rng
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     f(seed=3), len(w), w[0].category.__name__
    (3, 1, 'DeprecationWarning')
    """

    def decorate(func: Callable) -> Callable:
        name = f"{func.__module__}.{func.__qualname__}"
        DEPRECATED_PARAMETERS.setdefault(name, {}).update(old_to_new)
        public = func.__qualname__.replace(".__init__", "")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise InputError(old, f"is the deprecated spelling of `{new}`; give only `{new}`")
                    _warn(f"{public}(): `{old}=` is deprecated, use `{new}=`")
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        wrapper.__deprecated_parameters__ = dict(old_to_new)
        return wrapper

    return decorate


def deprecated_alias(func: Callable, old_name: str, *, module: str | None = None) -> Callable:
    """``old_name`` as a deprecated alias of ``func`` (one :class:`DeprecationWarning` per call)."""

    @functools.wraps(func)
    def alias(*args, **kwargs):
        _warn(f"{old_name}() is deprecated, use {func.__name__}()")
        return func(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old_name
    alias.__doc__ = f"Deprecated alias of :func:`{func.__module__}.{func.__name__}` (removed in the next release)."
    alias.__deprecated_alias_of__ = func
    if module is not None:
        alias.__module__ = module
    return alias


def deprecated_attribute(new: str, old: str) -> property:
    """A read-only property ``old`` of a result class that returns ``self.new`` with a warning."""

    def getter(self):
        _warn(f"{type(self).__name__}.{old} is deprecated, use .{new}", stacklevel=2)
        return getattr(self, new)

    prop = property(getter, doc=f"Deprecated alias of :attr:`{new}`.")
    prop.fget.__deprecated_attribute_of__ = new
    return prop


# ----------------------------------------------------------------------------- results
class ResultBase:
    """Mixin of every public result dataclass: ``to_dict()`` (JSON-ready) and the deprecated
    ``as_dict()`` / ``summary()`` spellings.

    ``to_dict`` exports the dataclass fields with ``repr=True`` (NaN/inf become ``None``,
    arrays lists); a class overrides it where a flatter form is more useful.  Timing fields
    are declared ``field(compare=False)`` so that equality ignores them.
    """

    __slots__ = ()

    def to_dict(self) -> dict:
        """The result as a JSON-ready ``dict`` (NaN → ``None``)."""
        return {f.name: _jsonable(getattr(self, f.name)) for f in dataclasses.fields(self) if f.repr}

    def as_dict(self) -> dict:
        """Deprecated alias of :meth:`to_dict`."""
        _warn(f"{type(self).__name__}.as_dict() is deprecated, use .to_dict()", stacklevel=2)
        return self.to_dict()

    def summary(self) -> dict:
        """Deprecated alias of :meth:`to_dict`."""
        _warn(f"{type(self).__name__}.summary() is deprecated, use .to_dict()", stacklevel=2)
        return self.to_dict()


def fieldwise_eq(self, other):
    """Equality of result dataclasses that hold arrays or pandas objects (the generated ``==`` raises on them).

    Compares the fields with ``compare=True``: objects with ``.equals`` (pandas) by value, arrays with
    :func:`numpy.array_equal` (NaN equal to NaN), floats with NaN equal to NaN, anything else with ``==``.
    Use it as ``__eq__ = fieldwise_eq`` (and ``__hash__ = None``) in the class body.
    """
    if type(other) is not type(self):
        return NotImplemented
    for f in dataclasses.fields(self):
        if not f.compare:
            continue
        x, y = getattr(self, f.name), getattr(other, f.name)
        if hasattr(x, "equals") and not isinstance(x, (str, bytes)):
            if not (type(y) is type(x) and x.equals(y)):
                return False
        elif isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            try:
                if not np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True):
                    return False
            except TypeError:  # object arrays: NaN-aware comparison does not apply
                if not np.array_equal(np.asarray(x), np.asarray(y)):
                    return False
        elif isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
            continue
        elif not bool(x == y):
            return False
    return True


class TestResultBase(ResultBase):
    """Mixin of hypothesis-test results: ``statistic, pvalue = result`` (like scipy's)."""

    __slots__ = ()
    __test__ = False  # not a pytest test class

    def __iter__(self):
        return iter((self.statistic, self.pvalue))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i):
        return (self.statistic, self.pvalue)[i]


def monte_carlo_pvalue(n_extreme, n_resamples):
    """scipy's resampling p-value ``(b + 1) / (B + 1)`` (never 0; :func:`scipy.stats.permutation_test`).

    >>> monte_carlo_pvalue(0, 999)
    0.001
    """
    return (
        (np.asarray(n_extreme, dtype=np.float64) + 1.0) / (float(n_resamples) + 1.0)
        if np.ndim(n_extreme)
        else (float(n_extreme) + 1.0) / (float(n_resamples) + 1.0)
    )


def signature_parameters(func: Callable) -> list[str]:
    """Parameter names of ``func`` (unwrapping decorators)."""
    return list(inspect.signature(inspect.unwrap(func)).parameters)
