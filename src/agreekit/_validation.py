"""Shared input-validation helpers (the ``_iv`` layer).

Every public function validates its arguments through these helpers, so error
messages have one shape: they name the offending parameter in backticks and,
where there is a fixed vocabulary, list the allowed values.  All of them raise
:class:`InputError`, a :class:`ValueError` subclass that carries the parameter
name; the CLI turns it into a one-line message and exit code 2.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "InputError",
    "check_choice",
    "check_int",
    "check_float",
    "check_finite_1d",
    "as_float_array",
    "float_matrix",
    "check_rectangular",
    "check_rank_vector",
    "numeric_vector",
    "integral_ranks",
    "check_positive_ranks",
    "check_same_length",
    "check_numeric_values",
    "parse_ascii_int",
    "parse_ascii_float",
    "is_ascii_int",
    "canonical_label",
    "check_flag",
    "real_array",
    "check_real_values",
    "check_not_masked",
    "check_name",
    "did_you_mean",
]


class InputError(ValueError):
    """Invalid user input.  ``parameter`` names the argument at fault.

    Every area raises it for bad input (a ``ValueError``, so ``except ValueError`` catches it too); the
    command line prints it as one line on stderr and exits with status 2.

    Parameters
    ----------
    parameter : str
        The argument (or file, or option) at fault; kept as the attribute ``parameter``.
    message : str
        What is wrong with it; the text of the error is ```parameter` message``.

    Examples
    --------
    >>> from agreekit import InputError, parse_weigher
    >>> try:
    ...     parse_weigher("power:p=1,p=2")
    ... except InputError as exc:
    ...     print(exc.parameter, "|", exc)
    weigher | `weigher` parameter 'p' is given twice in 'power:p=1,p=2'
    """

    def __init__(self, parameter: str, message: str):
        self.parameter = parameter
        self.message = message
        super().__init__(f"`{parameter}` {message}")

    def __reduce__(self):
        # the default pickles ``self.args`` (the one formatted string) and calls __init__ with it alone
        return (type(self), (self.parameter, self.message))


# shown (tracebacks, repr, pickles, the docs) where users import it from: ``agreekit.InputError``
InputError.__module__ = "agreekit"


def did_you_mean(word: Any, choices: Iterable[str], *, n: int = 3, cutoff: float = 0.6, fold: Any = None) -> str:
    """The "did you mean" of an unknown name: ``"; did you mean 'correlate'?"``, or ``""``.

    The one suggestion helper behind every "unknown name" message (subcommands, options and their
    choices on the command line, weigher families, clustering measures): up to ``n`` of the
    ``choices`` closest to ``word`` by :func:`difflib.get_close_matches`.

    Parameters
    ----------
    word : str
        What the user typed.
    choices : iterable of str
        The valid names.
    n : int, default 3
        At most this many suggestions.
    cutoff : float, default 0.6
        The similarity ratio (0 to 1) a suggestion needs, as in :func:`difflib.get_close_matches`.
    fold : callable, optional
        A ``str -> str`` normalization (e.g. :meth:`str.lower`): normalized spellings are compared as
        well, and the original choice is suggested.

    Returns
    -------
    str
        ``"; did you mean 'a' or 'b'?"`` (to append to an error message), or ``""`` when nothing is close.

    Examples
    --------
    >>> from agreekit._validation import did_you_mean
    >>> did_you_mean("corelate", ["moments", "correlate", "consensus"])
    "; did you mean 'correlate'?"
    >>> did_you_mean("amii", ["ri", "ari", "ami", "ami_max", "nmi_sum"])
    "; did you mean 'ami'?"
    >>> did_you_mean("HARMONIC", ["harmonic", "power"], fold=str.lower)
    "; did you mean 'harmonic'?"
    >>> did_you_mean("xyz", ["ari", "ami"])
    ''
    """
    import difflib

    if not isinstance(word, str) or not word:
        return ""
    choices = [c for c in dict.fromkeys(str(c) for c in choices)]
    close = difflib.get_close_matches(word, choices, n=n, cutoff=cutoff)
    if fold is not None and len(close) < n:
        folded: dict[str, str] = {}
        for c in choices:
            folded.setdefault(fold(c), c)
        more = difflib.get_close_matches(fold(word), list(folded), n=n, cutoff=cutoff)
        close = list(dict.fromkeys(close + [folded[m] for m in more]))[:n]
    close = [c for c in close if c != word]
    if not close:
        return ""

    # only the suggestions about as close as the best one ('correlate' for 'corelate', not also 'evaluate')
    def ratio(c):
        plain = difflib.SequenceMatcher(None, word, c).ratio()
        return plain if fold is None else max(plain, difflib.SequenceMatcher(None, fold(word), fold(c)).ratio())

    best = max(ratio(c) for c in close)
    close = [c for c in close if ratio(c) >= best - 0.1]
    return f"; did you mean {' or '.join(repr(c) for c in close)}?"


def check_choice(parameter: str, value: Any, allowed: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``allowed`` (case-sensitive)."""
    allowed = tuple(allowed)
    if not isinstance(value, str) or value not in allowed:
        raise InputError(parameter, f"must be one of {{{', '.join(map(repr, allowed))}}}; got {value!r}")
    return value


def check_int(parameter: str, value: Any, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as a Python int, checking type and range."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        # accept integral floats such as 5.0 only if exactly integral
        if isinstance(value, (float, np.floating)) and np.isfinite(value) and float(value).is_integer():
            value = int(value)
        else:
            raise InputError(parameter, f"must be an integer; got {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise InputError(parameter, f"must be >= {minimum}; got {value}")
    if maximum is not None and value > maximum:
        raise InputError(parameter, f"must be <= {maximum}; got {value}")
    return value


def check_float(
    parameter: str, value: Any, *, minimum: float | None = None, maximum: float | None = None, inclusive: bool = True
) -> float:
    """Return ``value`` as a finite Python float within an optional range.

    Only real numbers are accepted: ``True``/``False`` and strings such as ``'1'`` are not numbers here.
    """
    if isinstance(value, (bool, np.bool_, str, bytes)):
        raise InputError(parameter, f"must be a real number; got {value!r}")
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise InputError(parameter, f"must be a real number; got {value!r}") from None
    if not np.isfinite(out):
        raise InputError(parameter, f"must be finite; got {value!r}")
    if minimum is not None and (out < minimum if inclusive else out <= minimum):
        raise InputError(parameter, f"must be {'>=' if inclusive else '>'} {minimum}; got {out}")
    if maximum is not None and (out > maximum if inclusive else out >= maximum):
        raise InputError(parameter, f"must be {'<=' if inclusive else '<'} {maximum}; got {out}")
    return out


def check_numeric_values(parameter: str, values: Any, what: str = "numbers") -> None:
    """Raise :class:`InputError` if ``values`` holds booleans or strings (``True``, ``'1'``).

    numpy converts ``[True, 2, 3]`` to ints and ``['1', '2']`` to floats without complaint; rank and
    score vectors take real numbers only.
    """
    arr = values if isinstance(values, np.ndarray) else None
    if arr is not None:
        kinds = arr.dtype.kind
        if kinds in "iuf":
            return
        if kinds in "bUSV":
            raise InputError(parameter, f"must contain {what}; got an array of dtype {arr.dtype}")
        items = arr.ravel().tolist() if kinds == "O" else ()
    elif isinstance(values, (str, bytes, bool, np.bool_)):
        raise InputError(parameter, f"must contain {what}; got {values!r}")
    elif isinstance(values, (list, tuple)):
        items = values
    else:
        return
    for i, v in enumerate(items):
        if isinstance(v, (bool, np.bool_, str, bytes)) or v is None:
            raise InputError(parameter, f"must contain {what}; got {v!r} at position {i}")


def _ragged_row(values: Any) -> str | None:
    """Describe the first row of a nested sequence whose length differs from row 0, if any."""
    try:
        rows = list(values)
        lengths = [len(r) if hasattr(r, "__len__") and not isinstance(r, (str, bytes)) else None for r in rows]
    except TypeError:
        return None
    for i, k in enumerate(lengths[1:], start=1):
        if k != lengths[0]:

            def show(k):
                return "a scalar" if k is None else f"{k} entr{'y' if k == 1 else 'ies'}"

            return f"row {i} has {show(k)} but row 0 has {show(lengths[0])}"
    return None


def as_float_array(parameter: str, values: Any, *, what: str = "numbers") -> np.ndarray:
    """``np.asarray(values, dtype=float64)``, or :class:`InputError` naming ``parameter``.

    A ragged nested sequence is reported with the first row whose length differs; a
    non-numeric entry (a string, None, an object) as such.  NaN/inf are left to the caller.

    >>> as_float_array("rankings", [[1, 2, 3], [2, 1]])
    Traceback (most recent call last):
    ...
    agreekit.InputError: `rankings` is ragged: row 1 has 2 entries but row 0 has 3 entries
    """
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        ragged = _ragged_row(values) if not isinstance(values, np.ndarray) else None
        if ragged is not None:
            raise InputError(parameter, f"is ragged: {ragged}") from None
        raise InputError(parameter, f"must contain only {what}") from None


def float_matrix(parameter: str, values: Any, *, what: str) -> np.ndarray:
    """``values`` as a 2-D float64 array (:func:`as_float_array`'s errors), or :class:`InputError`
    calling it a ``what`` (e.g. "membership matrix")."""
    arr = as_float_array(parameter, values, what=f"numbers (a numeric {what})")
    if arr.ndim != 2:
        raise InputError(parameter, f"must be a 2-D {what}; got shape {arr.shape}")
    return arr


def check_rectangular(parameter: str, values: Any) -> None:
    """Raise :class:`InputError` if ``values`` is a list/tuple of rows of different lengths.

    >>> check_rectangular("rankings", [[1, 2, 3], [2, 1]])
    Traceback (most recent call last):
    ...
    agreekit.InputError: `rankings` is ragged: row 1 has 2 entries but row 0 has 3 entries
    """
    if isinstance(values, (list, tuple)) and values:
        ragged = _ragged_row(values)
        if ragged is not None and any(hasattr(r, "__len__") and not isinstance(r, (str, bytes)) for r in values):
            raise InputError(parameter, f"is ragged: {ragged}")


def check_finite_1d(parameter: str, values: Any, *, dtype=np.float64, min_length: int = 0) -> np.ndarray:
    """Return ``values`` as a 1-D array of ``dtype`` without NaN/inf."""
    try:
        arr = np.asarray(values, dtype=dtype)
    except (TypeError, ValueError):
        raise InputError(parameter, "must be a 1-D array of numbers") from None
    if arr.ndim != 1:
        raise InputError(parameter, f"must be 1-D; got shape {arr.shape}")
    if arr.size < min_length:
        raise InputError(parameter, f"must have at least {min_length} elements; got {arr.size}")
    if np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr)):
        raise InputError(parameter, "must not contain NaN or infinite values")
    return arr


def numeric_vector(parameter: str, values: Any, *, what: str, min_length: int) -> np.ndarray:
    """``values`` as a 1-D integer or float array of at least ``min_length`` elements, or raise
    (the messages call the elements ``what``: "rank", "score"); booleans, strings, complex numbers,
    datetimes and masked arrays are refused."""
    check_numeric_values(parameter, values, f"numeric {what}s")
    if isinstance(values, np.ma.MaskedArray):
        raise InputError(parameter, "is a masked array; fill or drop the masked values first")
    arr = np.asarray(values)
    if arr.dtype.kind in "cmM":  # complex numbers and datetimes are not ranks or scores
        raise InputError(parameter, f"must contain numeric {what}s (real numbers); got an array of dtype {arr.dtype}")
    if arr.ndim != 1:
        raise InputError(parameter, f"must be a 1-D {what} vector; got shape {arr.shape}")
    if arr.size < min_length:
        raise InputError(parameter, f"must have at least {min_length} {what}s; got {arr.size}")
    if arr.dtype.kind not in "iuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise InputError(parameter, f"must contain numeric {what}s") from None
    return arr


def integral_ranks(parameter: str, values: Any, *, min_length: int) -> np.ndarray:
    """``values`` as a 1-D int64 array of integral numbers (ties and range are the caller's), or raise."""
    arr = numeric_vector(parameter, values, what="rank", min_length=min_length)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise InputError(parameter, "must not contain NaN or infinite values")
        if not np.all(arr == np.round(arr)):
            raise InputError(parameter, "must contain integer ranks (positive integers, 1 = top)")
    return np.ascontiguousarray(arr, dtype=np.int64)


def check_rank_vector(parameter: str, values: Any, *, min_length: int = 2) -> np.ndarray:
    """Return ``values`` as an int64 permutation of 1..n (1 = top), or raise.

    Accepts any array-like of integral numbers.  Ties, gaps, zeros, NaN,
    non-integral values, booleans and strings are rejected with a message naming ``parameter``.
    """
    ranks = integral_ranks(parameter, values, min_length=min_length)
    n = ranks.size
    seen = np.zeros(n + 1, dtype=bool)
    if ranks.min() < 1 or ranks.max() > n:
        raise InputError(
            parameter, f"must be a permutation of 1..{n} (1 = top); got values in [{ranks.min()}, {ranks.max()}]"
        )
    seen[ranks] = True
    if not seen[1:].all():
        raise InputError(parameter, f"must be a permutation of 1..{n}; it has ties (repeated ranks)")
    return ranks


def check_positive_ranks(
    parameter: str, values: Any, *, labels: Sequence[str] | None = None, min_length: int = 1
) -> np.ndarray:
    """Return ``values`` as int64 ranks if every value is a positive integer, or raise.

    The value rule of agreekit's rankings: rank values are positive integers, 1 = top;
    a repeated value is a tie (allowed here; whether a measure accepts ties is its own
    check).  0, negative, non-integral (2.5), NaN/inf and non-numeric values raise
    :class:`InputError` naming ``parameter`` and, if ``labels`` is given (one per value,
    e.g. ``"line 3"``), where the first bad value is.

    >>> check_positive_ranks("x", [1, 2, 2, 4]).tolist()
    [1, 2, 2, 4]
    >>> check_positive_ranks("x", [1, 0, 3], labels=["line 1", "line 2", "line 3"])
    Traceback (most recent call last):
    ...
    agreekit.InputError: `x` line 2: rank 0 is not a positive integer (ranks are 1, 2, ... with 1 = top; repeated values are ties)
    """
    arr = np.asarray(values, dtype=object if not isinstance(values, np.ndarray) else None)
    if arr.ndim != 1:
        raise InputError(parameter, f"must be a 1-D rank vector; got shape {arr.shape}")
    if arr.size < min_length:
        raise InputError(parameter, f"must have at least {min_length} ranks; got {arr.size}")
    out = np.empty(arr.size, dtype=np.int64)
    for i, v in enumerate(arr.tolist()):
        ok, finite = False, True
        if not isinstance(v, (bool, np.bool_)):
            try:
                f = float(v)
                finite = bool(np.isfinite(f))
                ok = bool(finite and 1 <= f < 2**53 and f == int(f))
            except (TypeError, ValueError, OverflowError):
                ok = False
        if not ok:
            where = f"{labels[i]}: rank {v!r}" if labels is not None else f"value {v!r} at position {i}"
            what = "is NaN or infinite, not" if not finite else "is not"
            raise InputError(
                parameter,
                f"{where} {what} a positive integer (ranks are 1, 2, ... with 1 = top; repeated values are ties)",
            )
        out[i] = int(f)
    return out


def check_same_length(names: Sequence[str], *arrays: np.ndarray) -> None:
    """Raise if the arrays differ in length, naming both parameters."""
    n0 = len(arrays[0])
    for name, arr in zip(names[1:], arrays[1:]):
        if len(arr) != n0:
            raise InputError(name, f"must have the same length as `{names[0]}` ({n0}); got {len(arr)}")


# --------------------------------------------------------------------------- ASCII numbers
#
# One rule for numbers read from text (files, command-line options, config strings): ASCII
# decimal digits only.  Python's int()/float() also accept Arabic-Indic and full-width digits
# and ``1_0``; agreekit's readers do not (a score matrix never did, via pandas), so the same
# text means the same thing in every file.

_ASCII_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_ASCII_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_SPECIAL_FLOAT = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE | re.ASCII)


def is_ascii_int(text: str) -> bool:
    """True if ``text`` (stripped) is an ASCII decimal integer such as ``12``, ``-3``, ``007``."""
    return isinstance(text, str) and _ASCII_INT.fullmatch(text.strip()) is not None


def parse_ascii_int(text: str) -> int | None:
    """``int(text)`` if ``text`` (stripped) is an ASCII decimal integer, else None.

    >>> parse_ascii_int("042"), parse_ascii_int("1_0"), parse_ascii_int("\u0661\u0660")
    (42, None, None)
    """
    if not isinstance(text, str):
        return None
    s = text.strip()
    if _ASCII_INT.fullmatch(s) is None or len(s) > 4300:
        return None
    return int(s)


def parse_ascii_float(text: str, *, special: bool = True) -> float | None:
    """``float(text)`` if ``text`` (stripped) is an ASCII decimal number, else None.

    ``special=True`` also accepts ``nan``, ``inf``, ``infinity`` (any case, optional sign),
    which the caller then refuses or uses; full-width or Arabic-Indic digits, ``1_0``,
    ``0x1``, ``1e`` are never numbers.

    >>> parse_ascii_float("2.5e-3"), parse_ascii_float("1_0"), parse_ascii_float("\uff11")
    (0.0025, None, None)
    """
    if not isinstance(text, str):
        return None
    s = text.strip()
    if _ASCII_FLOAT.fullmatch(s) is None and not (special and _SPECIAL_FLOAT.fullmatch(s)):
        return None
    try:
        return float(s)
    except (ValueError, OverflowError):  # pragma: no cover - the patterns exclude both
        return None


def canonical_label(token: str) -> Any:
    """The one rule for labels and node ids read from text: an ASCII decimal integer is that
    integer (``1``, ``01`` and ``+1`` are one label), any other token is the string itself.

    A token that is a number but not an integer (``1.0``, ``2.5``, ``1e3``) is ambiguous —
    is ``1.0`` the label ``1``? — and is returned as None so that the reader can refuse it
    naming the line.

    >>> canonical_label("01"), canonical_label("x1"), canonical_label("1.0")
    (1, 'x1', None)
    """
    v = parse_ascii_int(token)
    if v is not None:
        return v
    if parse_ascii_float(token, special=False) is not None:
        return None
    return token


# --------------------------------------------------------------------------- flags and real arrays


def check_flag(parameter: str, value: Any, *, allow_none: bool = False) -> bool | None:
    """Return ``value`` as a Python bool if it is ``True``/``False`` (or ``None`` with ``allow_none``).

    ``'yes'``, ``1``, ``2`` or an array are not flags: a truthy value is not silently a switch.

    >>> check_flag("progress", False), check_flag("progress", None, allow_none=True)
    (False, None)
    >>> check_flag("progress", "yes")
    Traceback (most recent call last):
    ...
    agreekit.InputError: `progress` must be True or False; got 'yes'
    """
    if value is None and allow_none:
        return None
    if not isinstance(value, (bool, np.bool_)):
        allowed = "True, False or None" if allow_none else "True or False"
        raise InputError(parameter, f"must be {allowed}; got {_short(value)}")
    return bool(value)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"a {type(value).__name__}"


def real_array(
    parameter: str, values: Any, *, finite: bool = True, min_ndim: int = 0, max_ndim: int | None = None
) -> np.ndarray:
    """``values`` as a float64 array of real numbers, or :class:`InputError` naming ``parameter``.

    Refused: None, booleans, strings (also numeric strings such as ``'1'``), complex numbers,
    datetimes, masked arrays (fill or drop the masked entries first) and object arrays holding any
    of these; with ``finite=True`` also NaN and infinite values; arrays of fewer than ``min_ndim``
    or more than ``max_ndim`` dimensions.

    >>> real_array("x", [1, 2.5]).tolist()
    [1.0, 2.5]
    >>> real_array("x", [1 + 2j])
    Traceback (most recent call last):
    ...
    agreekit.InputError: `x` must contain real numbers; got an array of dtype complex128
    """
    if isinstance(values, np.ma.MaskedArray):
        raise InputError(parameter, "is a masked array; fill or drop the masked values first")
    if values is None or isinstance(
        values, (str, bytes, bool, np.bool_, complex, np.complexfloating, np.datetime64, np.timedelta64)
    ):
        raise InputError(parameter, f"must contain real numbers; got {_short(values)}")
    check_rectangular(parameter, values)
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):
        raise InputError(parameter, "must contain real numbers") from None
    if arr.dtype.kind == "O":
        for v in arr.ravel().tolist():
            if v is None or isinstance(
                v, (str, bytes, bool, np.bool_, complex, np.complexfloating, np.datetime64, np.timedelta64)
            ):
                raise InputError(parameter, f"must contain real numbers; got {_short(v)}")
    elif arr.dtype.kind not in "iuf":
        raise InputError(parameter, f"must contain real numbers; got an array of dtype {arr.dtype}")
    try:
        arr = arr.astype(np.float64)
    except (TypeError, ValueError, OverflowError):
        raise InputError(parameter, "must contain real numbers") from None
    if arr.ndim < min_ndim:
        raise InputError(parameter, f"must have at least {min_ndim} dimension(s); got shape {arr.shape}")
    if max_ndim is not None and arr.ndim > max_ndim:
        raise InputError(parameter, f"must have at most {max_ndim} dimension(s); got shape {arr.shape}")
    if finite and not np.all(np.isfinite(arr)):
        raise InputError(parameter, "must not contain NaN or infinite values")
    return arr


def check_real_values(parameter: str, values: Any) -> None:
    """Raise :class:`InputError` if ``values`` is a masked array or holds booleans, strings (also
    numeric strings), complex numbers or datetimes; convert nothing (the caller does, with its own
    messages)."""
    if isinstance(values, np.ma.MaskedArray):
        raise InputError(parameter, "is a masked array; fill or drop the masked values first")
    if isinstance(values, (complex, np.complexfloating, np.datetime64, np.timedelta64)):
        raise InputError(parameter, f"must contain real numbers; got {_short(values)}")
    kind = getattr(getattr(values, "dtype", None), "kind", None)
    if kind is not None and kind in "cmM":
        raise InputError(parameter, f"must contain real numbers; got an array of dtype {values.dtype}")
    if kind is None and isinstance(values, (list, tuple)):
        for i, v in enumerate(
            np.ravel(np.asarray(values, dtype=object)).tolist()
            if values and isinstance(values[0], (list, tuple, np.ndarray))
            else values
        ):
            if isinstance(v, (complex, np.complexfloating, np.datetime64, np.timedelta64)):
                raise InputError(parameter, f"must contain real numbers; got {_short(v)} at position {i}")
    check_numeric_values(parameter, values, "real numbers")


def check_not_masked(**values: Any) -> None:
    """Raise :class:`InputError` naming the first keyword whose value is a masked array (whose
    masked entries would silently count as items or numbers)."""
    for parameter, value in values.items():
        if isinstance(value, np.ma.MaskedArray):
            raise InputError(parameter, "is a masked array; fill or drop the masked values first")


def check_name(parameter: str, value: Any, *, allow_none: bool = False) -> str | None:
    """Return ``value`` if it is a non-empty string (a name used in messages or results), or raise."""
    if value is None and allow_none:
        return None
    if not isinstance(value, str) or not value:
        raise InputError(parameter, f"must be a non-empty string; got {_short(value)}")
    return value
