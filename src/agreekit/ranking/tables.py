"""Runtime side of the coefficient tables: load a table, get moments for any n, standardize Γ.

A *coefficient table* (JSON, schema ``agreekit/schemas/table.schema.json``) holds, for one
(coefficient, combination scheme, weigher) configuration, the exact moments Γ̄, V, V^ℓ
for n = 2..n_exact and polynomial fits in x(n) for larger n (Sections 4–6 of [1]_).
Tables for the paper's 16 configurations ship with the package (``agreekit/data/tables``);
the pipeline (``make results``) regenerates them and can add new schemes.

The moments follow ``scipy.stats.kendalltau``'s ``method='auto'`` pattern: exact for
n ≤ n_exact (``source="exact"``), the fitted polynomials above (``source="fit"``), and an
error above the table's ``n_max`` unless ``extrapolate=True`` (then a warning).

References
----------
.. [1] P. Lombardo, "Standardization of Weighted Ranking Correlation
   Coefficients", arXiv:2504.08428, 2025, Section 6.1.

Examples
--------
>>> import agreekit.ranking.tables as T
>>> tab = T.load_table("kendall_additive_harmonic")
>>> m = tab.moments(10)
>>> m.source, round(m.mean, 7)
('exact', -0.1076337)
>>> float(T.standardize(1.0, coefficient="kendall", scheme="additive", weigher="harmonic", n=30))
1.0
"""

from __future__ import annotations

import hashlib
import math
import json
import os
import warnings
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from agreekit._api import ResultBase
from agreekit._validation import InputError, check_choice, check_flag, check_int, check_same_length
from agreekit._io import read_text
from agreekit.ranking._config import Config, configuration
from agreekit.ranking._fitmodel import _prediction_se, _x_of_n
from agreekit.ranking.standardization import StandardizationFunction, _g0_rule_iv
from agreekit.ranking.standardization import standardize  # its import path of old (the function lives there)
from agreekit.ranking.correlation import _as_ranks
from agreekit.ranking import _cache
from agreekit.ranking._tied_null import MAX_EXACT_ARRANGEMENTS
from agreekit.ranking._tied_null import tied_null
from agreekit.ranking.moments import _exact_moments

__all__ = [
    "TableMoments",
    "NullQuantiles",
    "CoefficientTable",
    "load_table",
    "available_tables",
    "find_table",
    "table_checksum",
    "standardize",
    "standardization_function",
    "null_moments",
]

#: version written by this package; readers accept any 1.x
SCHEMA_VERSION = "1.2"
_SCHEMA_MAJOR = 1
FORMS = ("corrected", "paper")


def table_checksum(table: dict) -> str:
    """``"sha256:<hex>"`` of the canonical JSON of ``table`` without its ``checksum`` member.

    Parameters
    ----------
    table : dict
        A coefficient table as parsed from its JSON.

    Returns
    -------
    str
        ``"sha256:"`` followed by 64 hex digits; equal to the table's ``checksum`` when it is intact.

    Examples
    --------
    >>> import json
    >>> from pathlib import Path
    >>> from agreekit.ranking.tables import load_table, table_checksum
    >>> doc = json.loads(Path(load_table("kendall_additive_harmonic").path).read_text())
    >>> table_checksum(doc) == doc["checksum"]
    True
    """
    if not isinstance(table, dict):
        raise InputError("table", f"must be a dict (a coefficient table parsed from JSON); got {type(table).__name__}")
    body = {k: v for k, v in table.items() if k != "checksum"}
    try:
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InputError(
            "table", f"is not JSON data (string keys; numbers, strings, lists, dicts; no NaN): {exc}"
        ) from None
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@lru_cache(maxsize=1)
def _schema() -> dict:
    return json.loads(resources.files("agreekit").joinpath("schemas/table.schema.json").read_text("utf-8"))


@lru_cache(maxsize=1)
def _validator():
    import jsonschema

    schema = _schema()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def _tables_dir():
    return resources.files("agreekit").joinpath("data/tables")


def shipped_tables_dir():
    """The folder of the shipped coefficient tables (``agreekit/data/tables``, an importlib resource)."""
    return _tables_dir()


def available_tables() -> list[str]:
    """Scheme ids of the tables shipped with the package.

    Returns
    -------
    list of str
        The ids, sorted (16: the paper's configurations).

    Examples
    --------
    >>> from agreekit.ranking.tables import available_tables
    >>> len(available_tables()), available_tables()[0]
    (16, 'kendall_additive_harmonic')
    """
    d = _tables_dir()
    return sorted(p.name[:-5] for p in d.iterdir() if p.name.endswith(".json"))


@dataclass(frozen=True)
class TableMoments(ResultBase):
    """Γ̄, V, V^ℓ at ranking length ``n``, where they came from, and their SEs.

    Returned by :func:`null_moments` and :meth:`CoefficientTable.moments`.

    Parameters
    ----------
    n : int
        Ranking length.
    mean, var, left_var : float
        Γ̄, V and V^ℓ of the null distribution of Γ at n.
    source : {'exact', 'fit', 'monte-carlo'}
        ``"exact"`` (an exact row of a table, or an enumeration at n), ``"fit"`` (a table's fitted
        polynomials) or ``"monte-carlo"`` (a seeded Monte Carlo sample at n, see :func:`null_moments`).
    mean_se, var_se, left_var_se : float, optional
        Standard errors: of the fitted values (from the covariance of each fit's coefficients,
        schema 1.1; NaN for fits of a schema-1.0 table, which stores no covariance), of the Monte
        Carlo estimates, 0 for exact values.
    table : str or None, optional
        Scheme id of the table they were read from (None: computed at n, or read by
        :meth:`CoefficientTable.moments`, which knows its own table).
    size : int, optional
        Number of permutations (or distinct arrangements) behind computed values (0 for table values).

    Examples
    --------
    >>> from agreekit.ranking import null_moments
    >>> m = null_moments(coefficient="spearman", scheme="additive", weigher="harmonic", n=10)
    >>> m.source, m.table, round(m.mean, 7), round(m.var, 7), round(m.left_var, 7)
    ('exact', 'spearman_additive_harmonic', -0.1156932, 0.1536211, 0.0698778)

    Above the exact rows a table's fits give the moments, with their standard errors:

    >>> f = null_moments(coefficient="spearman", scheme="additive", weigher="harmonic", n=1000)
    >>> f.source, round(f.mean, 6), f.mean_se > 0
    ('fit', -0.335314, True)
    """

    n: int
    mean: float
    var: float
    left_var: float
    source: str
    mean_se: float = 0.0
    var_se: float = 0.0
    left_var_se: float = 0.0
    table: str | None = None
    size: int = 0


@dataclass(frozen=True, eq=False)
class NullQuantiles(ResultBase):
    """Quantiles of the raw statistic Γ under uniform random permutations, per Monte Carlo training n.

    The ``null_quantiles`` block of a coefficient table (schema >= 1.1), read by
    :attr:`CoefficientTable.null_quantiles`; ``method="table"`` of
    :func:`~agreekit.ranking.weighted_correlation_test` interpolates it across n.

    Parameters
    ----------
    probs : numpy.ndarray
        The 201 logit-spaced probabilities from 1e-4 to 1 - 1e-4
        (``expit(linspace(logit(1e-4), logit(1 - 1e-4), 201))``).
    n : numpy.ndarray of int
        The ranking lengths of the stored samples.
    size : numpy.ndarray of int
        The sample sizes (permutations drawn at each length).
    values : numpy.ndarray, shape (len(n), len(probs))
        ``values[i, j]`` = ``numpy.quantile(sample_i, probs[j], method="linear")`` of the sample of
        size ``size[i]`` drawn at ranking length ``n[i]``.

    Examples
    --------
    >>> from agreekit.ranking import load_table
    >>> q = load_table("kendall_additive_harmonic").null_quantiles
    >>> q.values.shape == (q.n.size, q.probs.size), q.probs.size
    (True, 201)
    >>> i = int(q.n.tolist().index(30))                 # the stored sample at n = 30
    >>> int(q.size[i]), round(float(q.values[i, 100]), 4)  # its size and its median
    (1000000, -0.1772)
    """

    probs: np.ndarray
    n: np.ndarray
    size: np.ndarray
    values: np.ndarray


@dataclass(frozen=True, eq=False)
class CoefficientTable(ResultBase):
    """A validated coefficient table of one (coefficient, scheme, weigher) configuration.

    Made by :func:`load_table` / :func:`find_table`, which check its schema and checksum; its
    properties (``coefficient``, ``scheme``, ``weigher``, ``scheme_id``, ``n_exact``, ``n_max``,
    ``config_hash``, ``null_quantiles``) read ``data``.

    Parameters
    ----------
    data : dict
        The parsed JSON document (schema ``agreekit/schemas/table.schema.json``).
    path : str or None, optional
        The file it was read from (None for a table read from stdin).

    References
    ----------
    P. Lombardo (2025). Standardization of Weighted Ranking Correlation Coefficients.
    arXiv preprint arXiv:2504.08428.

    Examples
    --------
    >>> from agreekit.ranking import load_table
    >>> tab = load_table("spearman_multiplicative_harmonic")
    >>> tab.coefficient, tab.scheme, tab.weigher, tab.n_exact
    ('spearman', 'multiplicative', 'harmonic', 10)
    >>> m = tab.moments(10)                    # an exact row (Table 3 of Lombardo (2025))
    >>> m.source, round(m.mean, 7)
    ('exact', -0.1233591)
    >>> g = tab.standardization_function(10)
    >>> float(g(-1.0)), float(g(1.0)), round(float(g(m.mean)), 6)
    (-1.0, 1.0, 0.027002)
    """

    data: dict
    path: str | None = None

    def to_dict(self) -> dict:
        """The table's JSON document (a copy of ``data``, the form :func:`load_table` reads)."""
        return json.loads(json.dumps(self.data))

    coefficient = property(lambda self: self.data["coefficient"])
    scheme = property(lambda self: self.data["scheme"])
    weigher = property(lambda self: self.data["weigher"])
    scheme_id = property(lambda self: self.data["scheme_id"])
    n_exact = property(lambda self: int(self.data["n_exact"]))
    n_max = property(lambda self: int(self.data["n_max"]))
    config_hash = property(lambda self: self.data["provenance"]["config_hash"])

    @property
    def null_quantiles(self) -> NullQuantiles | None:
        """The table's :class:`NullQuantiles` (schema >= 1.1), or None for a schema-1.0 table."""
        nq = self.data.get("null_quantiles")
        if nq is None:
            return None
        return NullQuantiles(
            probs=np.asarray(nq["probs"], dtype=float),
            n=np.asarray(nq["n"], dtype=np.int64),
            size=np.asarray(nq["size"], dtype=np.int64),
            values=np.asarray(nq["values"], dtype=float),
        )

    def moments(self, n: int, *, extrapolate: bool = False) -> TableMoments:
        """Moments at ranking length ``n`` (exact for n ≤ n_exact, else the fitted polynomials).

        Raises
        ------
        InputError
            ``n < 2``, ``n > n_max`` without ``extrapolate=True``, or an n so far above ``n_max`` that the
            extrapolated fits give impossible moments (the message says up to which n they do not).
        """
        n = check_int("n", n, minimum=2)
        ex = self.data["exact"]
        if n <= self.n_exact and n in ex["n"]:
            i = ex["n"].index(n)
            return TableMoments(n, float(ex["mean"][i]), float(ex["var"][i]), float(ex["left_var"][i]), "exact")
        if n > self.n_max:
            where = f"is above the range of table {self.scheme_id!r} (n <= {self.n_max})"
            if not extrapolate:
                raise InputError("n", f"= {n} {where}; pass extrapolate=True to evaluate the fits beyond it")
            self._check_extrapolation(n)
            warnings.warn(
                f"n = {n} {where}: extrapolating the fitted polynomials (less reliable)", RuntimeWarning, stacklevel=2
            )

        vals = self._fitted(n)
        ses = []
        for q in ("mean", "var", "left_var"):
            f = self.data["fits"][q]
            cov = f.get("covariance")
            ses.append(float("nan") if cov is None else _prediction_se(n, f["transform"], cov))
        return TableMoments(n, vals[0], vals[1], vals[2], "fit", *ses)

    def _check_extrapolation(self, n: int) -> None:
        """Refuse an n so far above n_max that the fitted polynomials give impossible moments (var < 0 at
        n = 10**18), naming ``n`` and how far the fits stay possible."""
        vals = self._fitted(n)
        if _possible(*vals):
            return
        lo, hi = self.n_max, n  # bisection for the last n whose extrapolated moments are still possible
        while hi - lo > max(1, lo // 1000):
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if _possible(*self._fitted(mid)) else (lo, mid)
        raise InputError(
            "n",
            f"= {n} is too far above the range of table {self.scheme_id!r} (n <= "
            f"{self.n_max}): its extrapolated fits give impossible moments there (mean "
            f"{vals[0]:.4g}, var {vals[1]:.4g}, left_var {vals[2]:.4g}; they stay possible up "
            f"to about n = {lo}); use a smaller n or moments computed for this n",
        )

    def _fitted(self, n: int) -> list:
        """The fitted polynomials' mean, var, left_var at n."""
        vals = []
        for q in ("mean", "var", "left_var"):
            f = self.data["fits"][q]
            x = _x_of_n(n, f["transform"])  # the schema checked the transform at load
            vals.append(float(np.polynomial.polynomial.polyval(x, np.asarray(f["coefficients"], dtype=float))))
        return vals

    def standardization_function(
        self, n: int, *, form: str = "corrected", g0_rule: str | None = None, extrapolate: bool = False
    ):
        """The :class:`agreekit.ranking.standardization.StandardizationFunction` g for ranking length ``n``.

        ``g0_rule`` as in :meth:`StandardizationFunction.from_moments
        <agreekit.ranking.standardization.StandardizationFunction.from_moments>` (default: maximal
        minimum slope for ``form='corrected'``, Algorithm 1 for ``form='paper'``).
        """
        form = check_choice("form", form, FORMS)
        return self._function(n, form, _g0_rule_iv(g0_rule, form), extrapolate)

    def _function(self, n, form, rule, extrapolate):
        """:meth:`standardization_function` with ``form`` and ``rule`` validated (and the rule resolved)."""
        m = self.moments(n, extrapolate=extrapolate)
        return StandardizationFunction._from_checked(m.mean, m.var, m.left_var, form, rule)

    def __repr__(self) -> str:
        return f"CoefficientTable({self.scheme_id!r}, n_exact={self.n_exact}, n_max={self.n_max}, path={self.path!r})"


#: a table file larger than this is refused before it is parsed (the shipped tables are < 1 MiB)
MAX_TABLE_BYTES = 16 * 2**20
_NONFINITE = object()
#: exact rows n = 3.._RECOMPUTED_N are enumerated again when a table is loaded
_RECOMPUTED_N = 5
#: the longest integer literal a table may hold (its sizes and seeds have at most 10 digits)
_MAX_INT_DIGITS = 30


def _parse_table_json(text: str, where: str, parameter: str) -> Any:
    """``json.loads`` bounded (size, nesting depth) and strict about numbers: NaN, Infinity and
    numbers that overflow to inf (``1e400``) are errors naming the file and the field."""
    import math

    if len(text) > MAX_TABLE_BYTES:
        raise InputError(
            parameter,
            f"{where}: {len(text)} characters, more than a table's limit of {MAX_TABLE_BYTES} (is it a table file?)",
        )

    def number(s):
        v = float(s)
        return v if math.isfinite(v) else _NONFINITE

    def integer(s):
        if len(s.lstrip("-")) > _MAX_INT_DIGITS:  # Python's own limit (4300 digits) words it as a conversion
            raise InputError(
                parameter,
                f"{where}: an integer with {len(s.lstrip('-'))} digits (a table's "
                f"integers have at most {_MAX_INT_DIGITS}; is it a table file?)",
            )
        return int(s)

    def unique_keys(pairs):
        out = dict(pairs)
        if len(out) != len(pairs):  # json.loads keeps the last of a repeated key silently
            seen: set = set()
            dup = next(k for k, _ in pairs if k in seen or seen.add(k))
            raise InputError(
                parameter, f"{where}: key {dup!r} is given twice in one JSON object (a table holds each field once)"
            )
        return out

    try:
        data = json.loads(
            text,
            parse_constant=lambda s: _NONFINITE,
            parse_float=number,
            parse_int=integer,
            object_pairs_hook=unique_keys,
        )
    except json.JSONDecodeError as exc:
        raise InputError(parameter, f"{where}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    except RecursionError:
        raise InputError(parameter, f"{where}: JSON nested too deeply (not a table file)") from None
    stack = [(data, "")]
    while stack:
        node, path = stack.pop()
        if node is _NONFINITE:
            raise InputError(
                parameter,
                f"{where}: field {path or '(top level)'} is NaN or infinite (a table holds finite numbers only)",
            )
        if isinstance(node, dict):
            stack.extend((v, f"{path}/{k}" if path else str(k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, f"{path}/{i}") for i, v in enumerate(node))
    return data


def _validate_table(data: Any, where: str, parameter: str = "table") -> dict:
    import jsonschema

    if not isinstance(data, dict):
        raise InputError(parameter, f"{where}: not a JSON object")
    version = data.get("schema_version")
    if not isinstance(version, str) or version.split(".")[0] != str(_SCHEMA_MAJOR):
        raise InputError(
            parameter, f"{where}: unsupported schema_version {version!r} (this agreekit reads {_SCHEMA_MAJOR}.x)"
        )
    # the checksum first: it is linear and cheap, and a modified file (an extra 8-million-element list
    # took 80 s in the schema validation) is refused by it
    if not isinstance(data.get("checksum"), str):
        raise InputError(parameter, f"{where}: has no checksum field")
    if table_checksum(data) != data["checksum"]:
        raise InputError(parameter, f"{where}: checksum mismatch (the file was modified or corrupted)")
    # null_quantiles.values (~20 000 numbers, 95 % of a table) is checked here against its schema
    # (an array of arrays of numbers) in one pass; jsonschema, item by item, took 0.25 s per table
    checked = data
    nq = data.get("null_quantiles")
    if isinstance(nq, dict) and isinstance(nq.get("values"), list):
        for i, row in enumerate(nq["values"]):
            if not isinstance(row, list):
                raise InputError(
                    parameter,
                    f"{where}: does not match the table schema at "
                    f"null_quantiles/values/{i}: {row!r} is not of type 'array'",
                )
            for j, v in enumerate(row):
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise InputError(
                        parameter,
                        f"{where}: does not match the table schema at "
                        f"null_quantiles/values/{i}/{j}: {v!r} is not of type 'number'",
                    )
        checked = dict(data, null_quantiles=dict(nq, values=[]))
    try:
        _validator().validate(checked)
    except jsonschema.ValidationError as exc:
        loc = "/".join(str(p) for p in exc.absolute_path) or "(top level)"
        raise InputError(parameter, f"{where}: does not match the table schema at {loc}: {exc.message}") from None
    ex = data["exact"]
    if not (len(ex["n"]) == len(ex["mean"]) == len(ex["var"]) == len(ex["left_var"])):
        raise InputError(parameter, f"{where}: exact columns differ in length")
    _check_consistency(data, lambda msg: InputError(parameter, f"{where}: {msg}"))
    return data


def _check_consistency(data: dict, bad) -> None:
    """What a schema cannot say: the columns of a table agree with each other and with the definition.

    A table whose checksum was recomputed after an edit (a shifted column, a repeated n, reversed
    quantiles, an ``n_exact`` beyond its rows) passes the schema and the checksum and gives wrong
    values; these checks refuse it.  ``bad(message)`` makes the exception.  Linear in the table's size
    (numpy over the quantile matrix).
    """
    ex = data["exact"]
    n_exact = data["n_exact"]
    if ex["n"] != list(range(2, n_exact + 1)):
        raise bad(f"exact/n must be 2, 3, ..., n_exact = {n_exact} (one row per n, in order); got {_clip(ex['n'])}")
    mean, var, left = (np.asarray(ex[k], dtype=np.float64) for k in ("mean", "var", "left_var"))
    # n = 2: Γ = +1 or -1 with probability 1/2 for every coefficient and weighting
    if not (abs(mean[0]) <= 1e-12 and abs(var[0] - 1.0) <= 1e-12 and abs(left[0] - 0.5) <= 1e-12):
        raise bad(
            f"exact row n = 2 must be mean 0, var 1, left_var 0.5 (Γ = ±1 with probability 1/2); got "
            f"{mean[0]!r}, {var[0]!r}, {left[0]!r}"
        )
    # Γ lies in [-1, 1]: |mean| <= 1, 0 < V <= 1 - mean², 0 < V^l < V
    tol = 1e-12
    for name, ok in (
        ("mean", np.abs(mean) <= 1 + tol),
        ("var", (var > 0) & (var + mean * mean <= 1 + tol)),
        ("left_var", (left > 0) & (left < var)),
    ):
        if not ok.all():
            i = int(np.argmin(ok))
            value = {"mean": mean, "var": var, "left_var": left}[name][i]
            raise bad(
                f"exact/{name} at n = {ex['n'][i]} ({value!r}) is impossible for a coefficient in [-1, 1] (need |mean| <= 1, 0 < var <= 1 - mean², "
                "0 < left_var < var)"
            )
    # the first rows against the definition: all n! permutations enumerated again (interpreted kernels:
    # 150 permutations, ~1 ms a table, and no compiled kernel to load)
    from agreekit._jit import forced

    try:
        config = configuration(data["coefficient"], data["scheme"], data["weigher"])
    except InputError as exc:
        raise bad(f"its configuration is unusable: {exc}") from None
    with forced("interpreted"):
        for n in range(3, min(n_exact, _RECOMPUTED_N) + 1):
            m = _exact_moments(config, n, progress=False)
            i = n - 2
            for name, want, got in (
                ("mean", m.mean, mean[i]),
                ("var", m.var, var[i]),
                ("left_var", m.left_var, left[i]),
            ):
                if not abs(got - want) <= 1e-9 * max(1.0, abs(want)):
                    raise bad(
                        f"exact/{name} at n = {n} is {got!r}; enumerating the {math.factorial(n)} "
                        f"permutations gives {want!r} (the column was changed)"
                    )
    sm = data["samples"]
    _increasing(sm["n"], "samples/n", bad)
    lengths = {k: len(v) for k, v in sm.items() if isinstance(v, list)}
    if len(set(lengths.values())) > 1:
        raise bad(f"samples columns differ in length: {lengths}")
    if sm["n"] and sm["n"][0] <= n_exact:
        raise bad(f"samples/n starts at {sm['n'][0]}, not above n_exact = {n_exact}")
    nq = data.get("null_quantiles")
    if isinstance(nq, dict):
        _increasing(nq["n"], "null_quantiles/n", bad)
        probs = np.asarray(nq["probs"], dtype=np.float64)
        if not (np.all(np.diff(probs) > 0) and probs[0] > 0 and probs[-1] < 1):
            raise bad("null_quantiles/probs must be strictly increasing inside (0, 1)")
        lengths = {k: len(v) for k, v in nq.items() if isinstance(v, list) and k != "probs"}
        if len(set(lengths.values())) > 1:
            raise bad(f"null_quantiles columns differ in length: {lengths}")
        rows = nq["values"]
        if any(len(r) != len(probs) for r in rows):
            i = next(i for i, r in enumerate(rows) if len(r) != len(probs))
            raise bad(f"null_quantiles/values/{i} has {len(rows[i])} values for {len(probs)} probs")
        v = np.asarray(rows, dtype=np.float64).reshape(len(rows), len(probs))
        if v.size and not np.all(np.abs(v) <= 1 + 1e-9):
            raise bad("null_quantiles/values must lie in [-1, 1] (quantiles of the coefficient)")
        down = np.diff(v, axis=1) < 0
        if down.any():
            i, j = (int(x) for x in np.argwhere(down)[0])
            raise bad(
                f"null_quantiles/values/{i} (n = {nq['n'][i]}) decreases at prob {probs[j + 1]:.6g}: "
                "quantiles must be non-decreasing in the probability"
            )


def _possible(mean: float, var: float, left_var: float) -> bool:
    """Moments a coefficient in [-1, 1] can have: |mean| <= 1, 0 < var <= 1 - mean², 0 < left_var < var."""
    return bool(abs(mean) <= 1 and 0 < var <= 1 - mean * mean and 0 < left_var < var)


def _increasing(seq, name, bad) -> None:
    if any(b <= a for a, b in zip(seq, seq[1:])):
        i = next(i for i, (a, b) in enumerate(zip(seq, seq[1:])) if b <= a)
        raise bad(f"{name} must be strictly increasing; {seq[i + 1]} follows {seq[i]} (a repeated or out-of-order n)")


def _clip(seq, k: int = 12) -> str:
    return str(seq[:k])[:-1] + (", ...]" if len(seq) > k else "]")


@lru_cache(maxsize=64)
def _load_cached(path: str, mtime_ns: int, size: int, parameter: str = "table") -> CoefficientTable:
    if size > MAX_TABLE_BYTES:
        raise InputError(
            parameter, f"{path}: {size} bytes, more than a table's limit of {MAX_TABLE_BYTES} (is it a table file?)"
        )
    text = read_text(path, parameter=parameter)  # UTF-8 (BOM allowed), gzip; errors name the file
    data = _parse_table_json(text, path, parameter)
    return CoefficientTable(_validate_table(data, path, parameter), path)


def load_table(path_or_scheme_id: str | os.PathLike | CoefficientTable) -> CoefficientTable:
    """Load and validate a coefficient table.

    Parameters
    ----------
    path_or_scheme_id : str or path-like
        A JSON file, or the id of a shipped table such as ``"spearman_additive_harmonic"`` or
        ``"kendall_multiplicative_inverse_square-n0=1"`` (see :func:`available_tables`).

    Returns
    -------
    CoefficientTable
        The table (a ``CoefficientTable`` argument is returned as it is).

    Raises
    ------
    InputError
        Unreadable file, invalid JSON (also a key given twice in one object, an integer literal of more
        than 30 digits), wrong schema version, schema violation, checksum mismatch, columns that
        disagree (exact rows other than n = 2..n_exact, exact rows n <= 5 other than the moments
        enumerated again, impossible moments, repeated or unsorted n, decreasing quantiles), or no
        shipped table with that id.  A path may be a pipe (``/dev/fd/N``) or a FIFO; it is read once.

    Examples
    --------
    >>> from agreekit.ranking.tables import load_table
    >>> t = load_table("kendall_additive_harmonic")
    >>> t.coefficient, t.n_exact, t.n_max
    ('kendall', 10, 40000)
    """
    return open_table(path_or_scheme_id, parameter="path_or_scheme_id")


def open_table(source, *, parameter: str) -> CoefficientTable:
    """:func:`load_table` with errors naming ``parameter`` (the CLI's ``table``, the API's ``table=``)."""
    if isinstance(source, CoefficientTable):
        return source
    if isinstance(source, bytes) or not isinstance(source, (str, os.PathLike)):
        raise InputError(
            parameter,
            f"must be a table file path, a shipped scheme id or a CoefficientTable; got {type(source).__name__}",
        )
    arg = os.fspath(source)
    if arg == "-":  # stdin (not cached: it can be read once)
        text = read_text("-", parameter=parameter)
        data = _parse_table_json(text, "<stdin>", parameter)
        return CoefficientTable(_validate_table(data, "<stdin>", parameter), None)
    p = Path(arg)
    if not (p.suffix == ".json" or os.sep in arg or p.exists()):
        cand = _tables_dir().joinpath(arg + ".json")
        if not cand.is_file():
            raise InputError(parameter, f"no table for scheme {arg!r}; shipped tables: {', '.join(available_tables())}")
        p = Path(str(cand))
    if _is_stream(p):  # a pipe (`<(cat t.json)` is /dev/fd/N), a FIFO: read once, not cached
        text = read_text(arg, parameter=parameter)
        data = _parse_table_json(text, arg, parameter)
        return CoefficientTable(_validate_table(data, arg, parameter), None)
    if not p.is_file():
        raise InputError(parameter, f"no such table file: {arg}" + (" (it is a directory)" if p.is_dir() else ""))
    st = p.stat()
    return _load_cached(str(p.resolve()), st.st_mtime_ns, st.st_size, parameter)


def _is_stream(p: Path) -> bool:
    import stat

    try:
        return stat.S_ISFIFO(p.stat().st_mode)
    except OSError:
        return False


def find_table(coefficient: str, scheme: str, weigher) -> CoefficientTable:
    """The shipped table of (coefficient, scheme, weigher spec), or a clear error.

    Parameters
    ----------
    coefficient, scheme, weigher : str
        The configuration whose table is looked up by its :func:`~agreekit.ranking.scheme_id`
        (``weigher`` a spec such as ``"inverse_square:n0=1"`` or a
        :class:`~agreekit.ranking.Weigher`; a Python callable has no shipped table).

    Returns
    -------
    CoefficientTable
        The loaded, validated table.

    Raises
    ------
    InputError
        No shipped table for the configuration (a callable weigher has none).

    Examples
    --------
    >>> from agreekit.ranking.tables import find_table
    >>> find_table("spearman", "additive", "harmonic").scheme_id
    'spearman_additive_harmonic'
    """
    return _shipped_table(configuration(coefficient, scheme, weigher))


def _shipped_table(config: Config) -> CoefficientTable:
    if config.is_callable:
        raise InputError(
            "weigher",
            "is a Python callable: there is no shipped table for it; build one with the pipeline and pass table=",
        )
    sid = config.scheme_id
    if not _tables_dir().joinpath(sid + ".json").is_file():
        raise InputError(
            "weigher",
            f"no table for scheme {sid!r}; shipped tables: {', '.join(available_tables())}. "
            "Add the scheme to config/config.yaml, run the pipeline and pass table=",
        )
    return load_table(sid)


def resolve_table(table, config: Config) -> CoefficientTable:
    """The table of a parsed configuration (:func:`agreekit.ranking.correlation.configuration`): ``table``
    (a table, path or scheme id; an error naming the option that differs from the configuration) or,
    for None, the shipped one (:func:`find_table`).  A Python callable weigher trusts the table given."""
    if table is None:
        return _shipped_table(config)
    tab = open_table(table, parameter="table")
    spec = None if config.is_callable else config.weigher.spec  # a custom callable: trust the table the caller passed
    for name, want, have in (
        ("coefficient", config.coefficient, tab.coefficient),
        ("scheme", config.scheme, tab.scheme),
        ("weigher", spec, tab.weigher),
    ):
        if want is not None and want != have:
            raise InputError(name, f"is {want!r} but the table {tab.scheme_id!r} is for {have!r}")
    return tab


def _has_shipped(config: Config) -> bool:
    """Whether a table for the configuration ships with the package."""
    return not config.is_callable and _tables_dir().joinpath(config.scheme_id + ".json").is_file()


def null_moments(
    *,
    coefficient: str = "kendall",
    scheme: str = "additive",
    weigher="harmonic",
    n: int | None = None,
    table=None,
    compute: bool = True,
    x=None,
    y=None,
    extrapolate: bool = False,
    progress: bool | None = None,
) -> TableMoments:
    """Null moments Γ̄, V, V^ℓ of a weighted correlation at ranking length n, from a table or computed at n.

    Without ``x``, ``y``: the null of Γ(id, π) under uniform random permutations π.  The moments
    come from ``table`` if given, else from the shipped table of the configuration; when no
    shipped table covers (coefficient, scheme, weigher) — another weigher, a Python callable —
    they are computed at the exact n (``compute=True``, default): by enumeration of all n!
    permutations for n <= 10, else from 100 000 seeded Monte Carlo permutations (the seed is
    derived from the configuration, so the values are reproducible), with their standard errors,
    a progress bar on long runs and an on-disk cache (see Notes).

    With ``x``, ``y`` (rank vectors, repeated values = ties, as in :func:`agreekit.weighted_kendall`):
    the permutation null that keeps both tie patterns fixed (y's values permuted over the positions,
    x fixed) of the tie-aware coefficient (``ties="average"``): exact over the distinct
    arrangements when there are at most 10! of them, else 20 000 seeded Monte Carlo permutations.
    Without ties this is the null above at n = len(x).

    Parameters
    ----------
    coefficient : {'kendall', 'spearman'}, optional
        Default ``'kendall'``.
    scheme : {'additive', 'multiplicative'}, optional
        Default ``'additive'``.
    weigher : str, Weigher or callable, optional
        Weighting function f of the 1-based rank (default ``"harmonic"``).
    n : int, optional
        Ranking length (>= 2); required without ``x``, ``y`` (with them it must equal their length).
    table : CoefficientTable, path or scheme id, optional
        Read the moments from this table (an error if it does not match the configuration or n).
    compute : bool, optional
        ``False`` forbids computing: without a table covering the configuration an
        :class:`~agreekit.InputError` is raised.
    x, y : array_like, optional
        Data whose tie patterns define the null (see above).
    extrapolate : bool, optional
        Allow n above a table's ``n_max`` (with a :class:`RuntimeWarning`).
    progress : bool, optional
        Progress bar on stderr for a computation; default: when it draws >= 10⁸ ranks.

    Returns
    -------
    TableMoments
        ``mean``, ``var``, ``left_var``, ``source`` (``"exact"``, ``"fit"`` or ``"monte-carlo"``),
        ``mean_se``, ``var_se``, ``left_var_se``, ``table`` (scheme id or None) and ``size``.

    Raises
    ------
    InputError
        Unknown option, n out of range, ``table`` not matching, or no table with ``compute=False``.

    Notes
    -----
    Computed untied moments are cached in memory and as one small JSON file per configuration in
    ``platformdirs.user_cache_dir("agreekit")`` (``$AGREEKIT_CACHE_DIR`` overrides it), keyed by the
    coefficient, scheme, n, the weights f(1..n), the Monte Carlo size and the library version; a
    repeated call reads the cache (timed in ``benchmarks/bench_sequential_pvalue.py``).  A damaged
    cache file is recomputed.

    Examples
    --------
    >>> from agreekit.ranking.tables import null_moments
    >>> m = null_moments(coefficient="kendall", scheme="additive", weigher="harmonic", n=10)
    >>> m.source, m.table, round(m.mean, 7)
    ('exact', 'kendall_additive_harmonic', -0.1076337)
    >>> m = null_moments(weigher="dcg", n=8)          # no shipped table: enumerated at n = 8
    >>> m.source, m.table, m.size
    ('exact', None, 40320)

    Ties: the null of the data's own tie patterns (exact here: the 8!/3! distinct arrangements of y):

    >>> t = null_moments(x=[1, 2, 2, 4, 5, 6, 7, 8], y=[1, 1, 1, 4, 5, 6, 7, 8])
    >>> t.source, t.size, t.n
    ('exact', 6720, 8)
    """
    _check_flags(compute=compute, extrapolate=extrapolate, progress=progress)
    return _null_moments(configuration(coefficient, scheme, weigher), n, table, compute, x, y, extrapolate, progress)


def _check_flags(*, compute, extrapolate, progress=None) -> None:
    """The switches of the public entries (also where the call does not use them)."""
    check_flag("compute", compute)
    check_flag("extrapolate", extrapolate)
    check_flag("progress", progress, allow_none=True)


def _null_moments(config: Config, n, table, compute, x, y, extrapolate, progress) -> TableMoments:
    """:func:`null_moments` of a parsed configuration (every other argument validated here)."""
    if not isinstance(compute, (bool, np.bool_)):
        raise InputError("compute", f"must be True or False; got {compute!r}")
    if (x is None) != (y is None):
        raise InputError(
            "y" if y is None else "x", "is missing: x and y are given together (their tie patterns define the null)"
        )
    if x is not None:
        rx, tx = _as_ranks("x", x, ties="average")
        ry, ty = _as_ranks("y", y, ties="average")
        check_same_length(("x", "y"), rx, ry)
        if n is not None and check_int("n", n, minimum=2) != rx.size:
            raise InputError("n", f"= {n} differs from the length of x and y ({rx.size})")
        n = int(rx.size)
        if tx or ty:
            if table is not None:
                raise InputError(
                    "table",
                    "holds the null of untied rankings; x, y have ties (leave table=None "
                    "for the null of their tie patterns)",
                )
            return _tied_moments(config, rx, ry, progress)
    if n is None:
        _missing_n()
    n = check_int("n", n, minimum=2)
    if table is not None or not compute or _has_shipped(config):
        tab = resolve_table(table, config)
        return replace(tab.moments(n, extrapolate=extrapolate), table=tab.scheme_id)

    mean, var, left, se_m, se_v, se_l, source, size = _cache.computed_moments(config, n, progress=progress)
    return TableMoments(n, mean, var, left, source, se_m, se_v, se_l, None, size)


#: Monte Carlo permutations behind the moments of a tied null too large to enumerate
TIED_MC_SIZE = 20_000
_TIED_MOMENTS: dict = {}


def _tied_moments(config: Config, rx, ry, progress) -> TableMoments:
    """Moments of the permutation null that keeps the tie patterns of rx, ry fixed (memoized)."""
    null = tied_null(rx, ry, config.weigher, config.coef, config.mult)
    key = null.key()
    hit = _TIED_MOMENTS.get(key)
    if hit is not None:
        return hit
    if null.n_arrangements <= MAX_EXACT_ARRANGEMENTS:
        (mean, var, left), ses = null.exact().moments()
        m = TableMoments(null.n, mean, var, left, "exact", *ses, None, null.n_arrangements)
    else:
        if progress is None:
            progress = TIED_MC_SIZE * null.n >= 10**8
        sample = null.sample(np.random.default_rng(null.seed()), TIED_MC_SIZE, progress=progress)
        (mean, var, left), ses = sample.moments()
        m = TableMoments(null.n, mean, var, left, "monte-carlo", *ses, None, TIED_MC_SIZE)
    if len(_TIED_MOMENTS) > 256:
        _TIED_MOMENTS.clear()
    _TIED_MOMENTS[key] = m
    return m


def standardization_function(
    *,
    coefficient: str = "kendall",
    scheme: str = "additive",
    weigher="harmonic",
    n: int | None = None,
    form: str = "corrected",
    g0_rule: str | None = None,
    table=None,
    extrapolate: bool = False,
    compute: bool = True,
    x=None,
    y=None,
):
    """The standardization function g for a configuration and ranking length (see :func:`standardize`).

    Parameters
    ----------
    coefficient : {'kendall', 'spearman'}, optional
        The coefficient (default ``"kendall"``).
    scheme : {'additive', 'multiplicative'}, optional
        How the two ranks' weights combine (default ``"additive"``).
    weigher : str, Weigher or callable, optional
        The weigher (default ``"harmonic"``); a callable needs ``table=``.
    n : int
        The ranking length.
    form : {'corrected', 'paper'}, optional
        The corrected B, C (default) or the paper's printed Eq. 30/32.
    g0_rule : {'max_min_slope', 'closest_to_zero'}, optional
        How the free parameter of g is chosen (default: ``"max_min_slope"`` for the corrected form,
        ``"closest_to_zero"``, Algorithm 1, for the paper's).
    table : CoefficientTable, str or path-like, optional
        The table to read the moments from (default: the shipped one of the configuration).
    extrapolate : bool, optional
        Allow n above the table's ``n_max`` (with a RuntimeWarning).
    compute : bool, optional
        ``False`` forbids computing moments: without a table, an error (the former behaviour).
    x, y : array_like, optional
        The two rankings (tie-aware, ``ties="average"``): with ties, g is built from the moments of
        the permutation null that keeps both tie patterns fixed (see :func:`null_moments`).

    Returns
    -------
    StandardizationFunction
        g, vectorized over Γ.

    Examples
    --------
    >>> g = standardization_function(n=30)       # kendall, additive, harmonic (the defaults)
    >>> float(g(1.0)), float(g(-1.0))
    (1.0, -1.0)
    """
    form = check_choice("form", form, FORMS)
    rule = _g0_rule_iv(g0_rule, form)
    _check_flags(compute=compute, extrapolate=extrapolate)
    return _standardization_function(
        configuration(coefficient, scheme, weigher), n, form, rule, table, extrapolate, compute, x, y
    )


def _standardization_function(config: Config, n, form, rule, table, extrapolate, compute, x, y):
    """:func:`standardization_function` with the configuration parsed and ``form``, ``rule`` validated."""
    if x is None and y is None and (table is not None or not compute or _has_shipped(config)):
        tab = resolve_table(table, config)  # the table path, unchanged
        if n is None:
            _missing_n()
        return tab._function(n, form, rule, extrapolate)
    m = _null_moments(config, n, table, compute, x, y, extrapolate, None)
    return StandardizationFunction._from_checked(m.mean, m.var, m.left_var, form, rule)


def _missing_n():
    raise InputError("n", "is required (or pass x and y)")
