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
.. [1] P. Lombardo et al., "Standardization of Weighted Ranking Correlation
   Coefficients", Section 6.1.

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
import json
import os
import warnings
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from agreekit._api import ResultBase
from agreekit._validation import InputError, check_choice, check_int

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
    body = {k: v for k, v in table.items() if k != "checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@lru_cache(maxsize=1)
def _schema() -> dict:
    return json.loads(resources.files("agreekit").joinpath("schemas/table.schema.json").read_text("utf-8"))


def _tables_dir():
    return resources.files("agreekit").joinpath("data/tables")


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
    """Γ̄, V, V^ℓ at ranking length ``n``, where they came from (``"exact"`` or ``"fit"``), and their SEs.

    ``mean_se``, ``var_se``, ``left_var_se`` are the standard errors of the fitted values (from
    the covariance of each fit's coefficients, schema 1.1); 0 for exact rows, NaN for fits of a
    schema-1.0 table (which stores no covariance).
    """

    n: int
    mean: float
    var: float
    left_var: float
    source: str
    mean_se: float = 0.0
    var_se: float = 0.0
    left_var_se: float = 0.0


@dataclass(frozen=True, eq=False)
class NullQuantiles(ResultBase):
    """Quantiles of the raw statistic Γ under uniform random permutations, per Monte Carlo training n.

    ``values[i, j]`` = ``numpy.quantile(sample_i, probs[j], method="linear")`` of the sample of
    size ``size[i]`` drawn at ranking length ``n[i]``; ``probs`` are 201 logit-spaced
    probabilities from 1e-4 to 1 - 1e-4 (``expit(linspace(logit(1e-4), logit(1 - 1e-4), 201))``).
    """

    probs: np.ndarray
    n: np.ndarray
    size: np.ndarray
    values: np.ndarray


@dataclass(frozen=True, eq=False)
class CoefficientTable(ResultBase):
    """A validated coefficient table.  ``data`` is the parsed JSON; ``path`` where it was read."""

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
        return NullQuantiles(probs=np.asarray(nq["probs"], dtype=float), n=np.asarray(nq["n"], dtype=np.int64),
                             size=np.asarray(nq["size"], dtype=np.int64),
                             values=np.asarray(nq["values"], dtype=float))

    def moments(self, n: int, *, extrapolate: bool = False) -> TableMoments:
        """Moments at ranking length ``n`` (exact for n ≤ n_exact, else the fitted polynomials).

        Raises
        ------
        InputError
            ``n < 2``, or ``n > n_max`` without ``extrapolate=True``.
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
            warnings.warn(f"n = {n} {where}: extrapolating the fitted polynomials (less reliable)",
                          RuntimeWarning, stacklevel=2)
        from agreekit.ranking.tablegen.fitting import prediction_se, x_of_n

        vals, ses = [], []
        for q in ("mean", "var", "left_var"):
            f = self.data["fits"][q]
            x = x_of_n(n, f["transform"])
            vals.append(float(np.polynomial.polynomial.polyval(x, np.asarray(f["coefficients"], dtype=float))))
            cov = f.get("covariance")
            ses.append(float("nan") if cov is None else prediction_se(n, f["transform"], cov))
        return TableMoments(n, vals[0], vals[1], vals[2], "fit", *ses)

    def standardization_function(self, n: int, *, form: str = "corrected", g0_rule: str | None = None,
                                 extrapolate: bool = False):
        """The :class:`agreekit.ranking.standardization.StandardizationFunction` g for ranking length ``n``.

        ``g0_rule`` as in :meth:`StandardizationFunction.from_moments
        <agreekit.ranking.standardization.StandardizationFunction.from_moments>` (default: maximal
        minimum slope for ``form='corrected'``, Algorithm 1 for ``form='paper'``).
        """
        from agreekit.ranking.standardization import G0_RULES, StandardizationFunction

        check_choice("form", form, FORMS)
        if g0_rule is not None:
            check_choice("g0_rule", g0_rule, G0_RULES)
        m = self.moments(n, extrapolate=extrapolate)
        return StandardizationFunction.from_moments(m.mean, m.var, m.left_var, form=form, g0_rule=g0_rule)

    def __repr__(self) -> str:
        return (f"CoefficientTable({self.scheme_id!r}, n_exact={self.n_exact}, n_max={self.n_max}, "
                f"path={self.path!r})")


def _validate_table(data: Any, where: str, parameter: str = "table") -> dict:
    import jsonschema

    if not isinstance(data, dict):
        raise InputError(parameter, f"{where}: not a JSON object")
    version = data.get("schema_version")
    if not isinstance(version, str) or version.split(".")[0] != str(_SCHEMA_MAJOR):
        raise InputError(parameter, f"{where}: unsupported schema_version {version!r} (this agreekit reads "
                                  f"{_SCHEMA_MAJOR}.x)")
    try:
        jsonschema.validate(data, _schema())
    except jsonschema.ValidationError as exc:
        loc = "/".join(str(p) for p in exc.absolute_path) or "(top level)"
        raise InputError(parameter, f"{where}: does not match the table schema at {loc}: {exc.message}") from None
    if table_checksum(data) != data["checksum"]:
        raise InputError(parameter, f"{where}: checksum mismatch (the file was modified or corrupted)")
    ex = data["exact"]
    if not (len(ex["n"]) == len(ex["mean"]) == len(ex["var"]) == len(ex["left_var"])):
        raise InputError(parameter, f"{where}: exact columns differ in length")
    return data


@lru_cache(maxsize=64)
def _load_cached(path: str, mtime_ns: int, size: int, parameter: str = "table") -> CoefficientTable:
    from agreekit._io import read_text

    text = read_text(path, parameter=parameter)  # UTF-8 (BOM allowed), gzip; errors name the file
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(parameter, f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
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
        Unreadable file, invalid JSON, wrong schema version, schema violation, checksum
        mismatch, or no shipped table with that id.

    Examples
    --------
    >>> from agreekit.ranking.tables import load_table
    >>> t = load_table("kendall_additive_harmonic")
    >>> t.coefficient, t.n_exact, t.n_max
    ('kendall', 10, 40000)
    """
    return _load_table(path_or_scheme_id, parameter="path_or_scheme_id")


def _load_table(source, *, parameter: str) -> CoefficientTable:
    if isinstance(source, CoefficientTable):
        return source
    if isinstance(source, bytes) or not isinstance(source, (str, os.PathLike)):
        raise InputError(parameter, "must be a table file path, a shipped scheme id or a CoefficientTable; "
                                    f"got {type(source).__name__}")
    arg = os.fspath(source)
    if arg == "-":  # stdin (not cached: it can be read once)
        from agreekit._io import read_text

        text = read_text("-", parameter=parameter)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(parameter, f"<stdin>: not valid JSON ({exc.msg}, line {exc.lineno})") from None
        return CoefficientTable(_validate_table(data, "<stdin>", parameter), None)
    p = Path(arg)
    if not (p.suffix == ".json" or os.sep in arg or p.exists()):
        cand = _tables_dir().joinpath(arg + ".json")
        if not cand.is_file():
            raise InputError(parameter, f"no table for scheme {arg!r}; shipped tables: "
                                        f"{', '.join(available_tables())}")
        p = Path(str(cand))
    if not p.is_file():
        raise InputError(parameter, f"no such table file: {arg}" + (" (it is a directory)" if p.is_dir() else ""))
    st = p.stat()
    return _load_cached(str(p.resolve()), st.st_mtime_ns, st.st_size, parameter)


def find_table(coefficient: str, scheme: str, weigher) -> CoefficientTable:
    """The shipped table of (coefficient, scheme, weigher spec), or a clear error.

    Parameters
    ----------
    coefficient : {'kendall', 'spearman'}
        The coefficient.
    scheme : {'additive', 'multiplicative'}
        How the two ranks' weights combine.
    weigher : str or Weigher
        The weigher spec (``"harmonic"``, ``"inverse_square:n0=1"``, ...).

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
    from agreekit.ranking.tablegen.generation import scheme_id
    from agreekit.ranking.weighting import COEFFICIENTS, SCHEMES

    check_choice("coefficient", coefficient, COEFFICIENTS)
    check_choice("scheme", scheme, SCHEMES)
    if callable(weigher) and not hasattr(weigher, "spec"):
        raise InputError("weigher", "is a Python callable: there is no shipped table for it; build one with the "
                                    "pipeline and pass table=")
    spec = weigher.spec if hasattr(weigher, "spec") else weigher
    sid = scheme_id(coefficient, scheme, spec)
    if not _tables_dir().joinpath(sid + ".json").is_file():
        raise InputError("weigher", f"no table for scheme {sid!r}; shipped tables: {', '.join(available_tables())}. "
                                    "Add the scheme to config/config.yaml, run the pipeline and pass table=")
    return load_table(sid)


def _resolve_table(table, coefficient, scheme, weigher) -> CoefficientTable:
    if table is None:
        return find_table(coefficient, scheme, weigher)
    tab = _load_table(table, parameter="table")
    from agreekit.ranking.weighting import parse_weigher

    if callable(weigher) and not hasattr(weigher, "spec"):
        spec = None  # a custom callable: trust the table the caller passed
    else:
        spec = parse_weigher(weigher).spec
    for name, want, have in (("coefficient", coefficient, tab.coefficient), ("scheme", scheme, tab.scheme),
                             ("weigher", spec, tab.weigher)):
        if want is not None and want != have:
            raise InputError(name, f"is {want!r} but the table {tab.scheme_id!r} is for {have!r}")
    return tab


def standardization_function(*, coefficient: str = "kendall", scheme: str = "additive", weigher="harmonic", n: int,
                             form: str = "corrected", g0_rule: str | None = None, table=None,
                             extrapolate: bool = False):
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
    tab = _resolve_table(table, coefficient, scheme, weigher)
    return tab.standardization_function(n, form=form, g0_rule=g0_rule, extrapolate=extrapolate)


def standardize(gamma, *, coefficient: str = "kendall", scheme: str = "additive", weigher="harmonic", n: int,
                form: str = "corrected", g0_rule: str | None = None, table=None, extrapolate: bool = False):
    """Standardized coefficient g(Γ) with zero expected value under uniform random rankings.

    Γ is a weighted correlation of two rankings of length ``n`` (rank vectors, 1 = top, or
    scores ranked descending with ``kind="scores"``: the null is the same).

    Parameters
    ----------
    gamma : float or array_like
        Raw weighted coefficient(s) Γ in [-1, 1] computed on rankings of length ``n``.
    coefficient : {'kendall', 'spearman'}, optional
        Default ``'kendall'`` (as :func:`weighted_correlation_test`, :func:`exact_moments`,
        :func:`weighted_correlation` and the CLI).
    scheme : {'additive', 'multiplicative'}, optional
        Default ``'additive'``.
    weigher : str or Weigher, optional
        Weigher spec of the 1-based rank (default ``"harmonic"``; ``"inverse_square:n0=1"``,
        ...).  A Python callable is accepted only together with ``table=``.
    n : int
        Ranking length (>= 2).
    form : {'corrected', 'paper'}, optional
        ``'corrected'`` (default) uses B, C with (1+Γ̄)²V, which gives E[g(Γ)] = 0;
        ``'paper'`` uses the printed Eq. 30/32 (biased, for comparison).
    g0_rule : {'max_min_slope', 'closest_to_zero'} or None, optional
        How g's free parameter is chosen: ``'max_min_slope'`` (the g with the largest minimum
        slope on [-1, 1], strictly increasing) or ``'closest_to_zero'`` (the seed's Algorithm 1,
        which usually makes g flat somewhere). ``None`` (default): ``'max_min_slope'`` for
        ``form='corrected'``, ``'closest_to_zero'`` for ``form='paper'``.
    table : CoefficientTable, path or scheme id, optional
        Table to read the moments from; default: the shipped table of the configuration.
    extrapolate : bool, optional
        Allow n above the table's ``n_max`` (with a :class:`RuntimeWarning`).

    Returns
    -------
    float or numpy.ndarray
        g(Γ), same shape as ``gamma``.

    Raises
    ------
    InputError
        Unknown coefficient/scheme/weigher, no table for the scheme, n out of range,
        Γ outside [-1, 1] or not finite, corrupt table.

    Examples
    --------
    >>> from agreekit.ranking.tables import standardize
    >>> g = standardize([-1.0, 0.0, 1.0], coefficient="spearman", scheme="additive",
    ...                 weigher="harmonic", n=8)
    >>> [round(float(v), 6) for v in g][0], [round(float(v), 6) for v in g][2]
    (-1.0, 1.0)
    >>> standardize(0.4, n=30) == standardize(0.4, coefficient="kendall", scheme="additive",
    ...                                       weigher="harmonic", n=30)
    True
    """
    try:
        if isinstance(gamma, (str, bytes)):
            raise TypeError
        arr = np.asarray(gamma, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("gamma", f"must be a real number or an array of them; got {gamma!r}") from None
    if not np.all(np.isfinite(arr)):
        raise InputError("gamma", "must be finite (no NaN or infinite values)")
    if np.any(np.abs(arr) > 1 + 1e-12):
        raise InputError("gamma", "must lie in [-1, 1]")
    arr = np.clip(arr, -1.0, 1.0)
    g = standardization_function(coefficient=coefficient, scheme=scheme, weigher=weigher, n=n, form=form,
                                 g0_rule=g0_rule, table=table, extrapolate=extrapolate)
    out = np.asarray(g(arr), dtype=np.float64)
    return float(out) if out.ndim == 0 else out
