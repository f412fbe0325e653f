"""Agreement between evaluation metrics: τ_b and standardized top-weighted τ_w with bootstrap SEs."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numba import njit, prange

import functools

from agreekit._api import ResultBase, _warn, fieldwise_eq, renamed_parameters
from agreekit._validation import InputError, check_float, check_int
from agreekit._resampling import check_resamples
from agreekit.ireval import bootstrap_indices
from agreekit.ireval.metrics import GM_OFFSET
from agreekit._jit import pick
from agreekit.metaeval import _kernels as _k
from agreekit.metaeval._inputs import check_metric_scores, ranks_from_summaries
from agreekit.ranking.weighting import check_scheme, parse_weigher
from agreekit._io import to_jsonable
from agreekit.ranking import standardize, weighted_correlation_test

__all__ = ["metric_agreement", "MetricAgreement", "COLUMNS"]

#: the columns of :meth:`MetricAgreement.to_frame`, in order
COLUMNS = (
    "metric_a",
    "metric_b",
    "tau_b",
    "tau_b_se",
    "tau_w",
    "tau_w_se",
    "tau_w_standardized",
    "tau_w_standardized_se",
    "tau_ap_b",
    "tau_ap_b_se",
    "pvalue",
    "top_k_overlap",
    "tau_b_ci_low",
    "tau_b_ci_high",
    "tau_w_standardized_ci_low",
    "tau_w_standardized_ci_high",
    "difference",
    "difference_se",
    "pvalue_method",
    "ties",
)

_STREAM_PVALUE = 3  # after the bootstrap module's topic (0), swap (1) and pooled (2) streams


@dataclass(frozen=True)
class MetricAgreement(ResultBase):
    """Result of :func:`metric_agreement`.

    Parameters
    ----------
    metrics : tuple of str
        Metric names, in input order; pairs are (metrics[i], metrics[j]) for i < j.
    systems : tuple of str
        System names, in the column order of the first metric's matrix.
    n_topics, n_resamples, top_k : int
        Topics, bootstrap samples B, and the size of the top set of ``top_k_overlap``.
    weigher, scheme : str
        Weighting of τ_w (the weigher's canonical spec).
    summary_names : tuple of str
        Summary per metric (``"mean"`` or ``"gmean"``; formerly ``statistic``).
    confidence_level : float
        Level of the percentile intervals ``*_ci_low`` / ``*_ci_high`` (formerly
        ``alpha`` = 1 − confidence_level).
    table : pandas.DataFrame
        One row per metric pair (see :meth:`to_frame` for the columns).
    summaries : pandas.DataFrame
        Systems × metrics summary values (over all topics).
    ranks : pandas.DataFrame
        Systems × metrics average ranks (1 = best, ties share the mean position).
    resamples : ndarray, shape (B, n_topics)
        The topic samples Q*b, shared by every metric and pair.
    bootstrap_tau_b, bootstrap_tau_w, bootstrap_tau_w_standardized, bootstrap_tau_ap_b : ndarray, shape (B, pairs)
        The replicates behind the standard errors.

    Examples
    --------
    AP and P@10 of five systems on four topics: the metrics swap the two best systems, which
    the top-weighted tau_w punishes more than tau_b, and their top 1 sets do not overlap.
    ``matrix`` gives one column as a metrics x metrics frame:

    >>> import pandas as pd
    >>> from agreekit.metaeval import metric_agreement
    >>> ap = pd.DataFrame({"s1": [.5, .6, .4, .7], "s2": [.45, .55, .5, .6], "s3": [.3, .35, .3, .4],
    ...                    "s4": [.2, .3, .25, .2], "s5": [.1, .15, .1, .2]})
    >>> p10 = ap[["s2", "s1", "s3", "s4", "s5"]].set_axis(ap.columns, axis=1) + 0.1
    >>> res = metric_agreement({"AP": ap, "P@10": p10}, n_resamples=50, rng=3, pvalue=False, top_k=1)
    >>> res.to_frame()[["tau_b", "tau_w", "top_k_overlap"]].round(4)
       tau_b   tau_w  top_k_overlap
    0    0.8  0.4194              0
    >>> res.ranks.T
    system   s1   s2   s3   s4   s5
    AP      1.0  2.0  3.0  4.0  5.0
    P@10    2.0  1.0  3.0  4.0  5.0
    >>> res.matrix("tau_w").round(4)
              AP    P@10
    AP    1.0000  0.4194
    P@10  0.4194  1.0000
    """

    metrics: tuple[str, ...]
    systems: tuple[str, ...]
    n_topics: int
    n_resamples: int
    top_k: int
    weigher: str
    scheme: str
    summary_names: tuple[str, ...]
    confidence_level: float
    table: pd.DataFrame = field(repr=False)
    summaries: pd.DataFrame = field(repr=False)
    ranks: pd.DataFrame = field(repr=False)
    resamples: np.ndarray = field(repr=False)
    bootstrap_tau_b: np.ndarray = field(repr=False)
    bootstrap_tau_w: np.ndarray = field(repr=False)
    bootstrap_tau_w_standardized: np.ndarray = field(repr=False)
    bootstrap_tau_ap_b: np.ndarray = field(repr=False, default=None)

    __eq__ = fieldwise_eq  # DataFrames and arrays by value (the generated == raises on them)
    __hash__ = None

    @property
    def n_systems(self) -> int:
        """Number of systems ranked."""
        return len(self.systems)

    @property
    def statistic(self) -> tuple:
        """Deprecated alias of :attr:`summary_names`."""
        _warn("MetricAgreement.statistic is deprecated, use .summary_names", stacklevel=2)
        return self.summary_names

    @property
    def alpha(self) -> float:
        """Deprecated: 1 − :attr:`confidence_level` (the interval's alpha)."""
        _warn("MetricAgreement.alpha is deprecated, use .confidence_level (alpha = 1 - confidence_level)", stacklevel=2)
        return _interval_alpha(self.confidence_level)

    def to_frame(self) -> pd.DataFrame:
        """The tidy table: one row per metric pair.

        Columns: ``metric_a``, ``metric_b``; ``tau_b`` (Kendall τ_b of the two system
        rankings) and ``tau_b_se`` (bootstrap SE, Sakai Eq. 12); ``tau_w`` (top-weighted
        τ_w, τ_b-style normalisation under ties) and ``tau_w_se``; ``tau_w_standardized``
        (g(τ_w) at n = number of systems, zero mean under independence) and its SE;
        ``tau_ap_b`` (Urbano & Marrero's symmetric AP correlation τ_AP_b, top-weighted, ties
        allowed in both rankings; :func:`agreekit.ranking.ap_correlation` with ``symmetric=True``)
        and ``tau_ap_b_se``;
        ``pvalue`` of τ_w under H0 (``weighted_correlation_test``); ``top_k_overlap``
        (systems in both top-k sets); percentile intervals at ``confidence_level``;
        ``difference`` = g(τ_w) − τ_b with its paired bootstrap SE; ``pvalue_method``;
        ``ties`` (True when either ranking has tied systems).
        """
        return self.table.copy()

    def matrix(self, column: str = "tau_w_standardized") -> pd.DataFrame:
        """A symmetric metrics × metrics DataFrame of one column (diagonal: the value for a
        metric with itself — 1 for the coefficients, 0 for SEs, ``top_k`` for the overlap)."""
        if column not in self.table.columns or column in ("metric_a", "metric_b", "pvalue_method", "ties"):
            raise InputError("column", f"must be a numeric column of the table; got {column!r}")
        diag = {"top_k_overlap": float(self.top_k), "pvalue": 0.0}.get(column)
        if diag is None:
            diag = 0.0 if column.endswith("_se") or column == "difference" else 1.0
        M = pd.DataFrame(
            np.full((len(self.metrics),) * 2, diag), index=list(self.metrics), columns=list(self.metrics), dtype=float
        )
        for row in self.table.itertuples(index=False):
            v = float(getattr(row, column))
            M.loc[row.metric_a, row.metric_b] = v
            M.loc[row.metric_b, row.metric_a] = v
        return M

    def to_dict(self) -> dict:
        """A JSON-able summary (what the CLI prints; ``statistic`` = the summary per metric and
        ``alpha`` = 1 − confidence_level, the keys of the pipeline's collection.json)."""
        rows = to_jsonable(self.table.to_dict(orient="records"))
        return {
            "metrics": list(self.metrics),
            "n_systems": self.n_systems,
            "n_topics": self.n_topics,
            "n_resamples": self.n_resamples,
            "weigher": self.weigher,
            "scheme": self.scheme,
            "statistic": dict(zip(self.metrics, self.summary_names)),
            "alpha": _interval_alpha(self.confidence_level),
            "top_k": self.top_k,
            "pairs": rows,
        }


@njit(cache=True, parallel=True)
def _tau_ap_b_pairs(RA, pa, pb):  # pragma: no cover - compiled
    """τ_AP_b = ½[τ*(a, b) + τ*(b, a)] for every replicate and metric pair (RA: ranks, 1 = best, ties shared).

    τ*(x, y) = 2/|{i: p_i ≠ 1}| Σ_{p_i ≠ 1} C(i)/(p_i − 1) − 1, p_i = 1 + #{j: y_j < y_i},
    C(i) = #{j: y_j < y_i and x_j < x_i} (Urbano & Marrero, ICTIR 2017); NaN when a ranking is all tied.
    """
    M, R, s = RA.shape
    P = pa.size
    out = np.empty((R, P))
    for r in prange(R):
        for q in range(P):
            total = 0.0
            for side in range(2):
                x = RA[pa[q], r] if side == 0 else RA[pb[q], r]
                y = RA[pb[q], r] if side == 0 else RA[pa[q], r]
                acc = 0.0
                m = 0
                for i in range(s):
                    above = 0
                    conc = 0
                    for j in range(s):
                        if y[j] < y[i]:
                            above += 1
                            if x[j] < x[i]:
                                conc += 1
                    if above > 0:
                        m += 1
                        acc += conc / above
                total += (2.0 * acc / m - 1.0) if m > 0 else np.nan
            out[r, q] = 0.5 * total
    return out


def _interval_alpha(confidence_level: float) -> float:
    """1 − confidence_level rounded to 12 decimals (1 − 0.95 is 0.05, not 0.050000000000000044)."""
    return round(1.0 - float(confidence_level), 12)


def _alpha_alias(func):
    """``alpha=`` (the interval's 1 − level) as a deprecated alias of ``confidence_level``."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if "alpha" in kwargs:
            if "confidence_level" in kwargs:
                raise InputError(
                    "alpha",
                    "is the deprecated spelling of `confidence_level` (= 1 - alpha); give only `confidence_level`",
                )
            _warn(
                "metric_agreement(): `alpha=` (the interval's 1 - level) is deprecated, use "
                "`confidence_level=` (= 1 - alpha)"
            )
            a = check_float("alpha", kwargs.pop("alpha"), minimum=0.0, maximum=1.0, inclusive=False)
            kwargs["confidence_level"] = round(1.0 - a, 12)
        return func(*args, **kwargs)

    return wrapper


def _se(boot: np.ndarray) -> np.ndarray:
    """Column-wise sqrt(sum_b (x_b - mean)^2 / (B - 1)) over the finite replicates (Eq. 12)."""
    out = np.full(boot.shape[1], np.nan)
    for p in range(boot.shape[1]):
        v = boot[:, p]
        v = v[np.isfinite(v)]
        if v.size > 1:
            out[p] = float(np.std(v, ddof=1))
    return out


def _percentile(boot: np.ndarray, q: float) -> np.ndarray:
    out = np.full(boot.shape[1], np.nan)
    for p in range(boot.shape[1]):
        v = boot[:, p]
        v = v[np.isfinite(v)]
        if v.size:
            out[p] = float(np.quantile(v, q))
    return out


def _standardize(values: np.ndarray, *, weigher, scheme: str, n: int, table) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64)
    out = np.full(v.shape, np.nan)
    ok = np.isfinite(v)
    if ok.any():
        out[ok] = standardize(
            np.clip(v[ok], -1.0, 1.0), coefficient="kendall", scheme=scheme, weigher=weigher, n=n, table=table
        )
    return out


def _pvalue_rng(rng, pair: int):
    """Independent generator per pair: stream (3, pair) of the seed; a Generator is used as is."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, np.random.SeedSequence):
        ss = rng
    elif rng is None:
        ss = np.random.SeedSequence()
    else:
        ss = np.random.SeedSequence(check_int("rng", rng, minimum=0))
    return np.random.default_rng(
        np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (_STREAM_PVALUE, pair))
    )


def _pvalue(ra, rb, fa, fb, observed, *, weigher, scheme, table, rng, n_resamples):
    """p-value of τ_w under H0 (independent rankings) -> (p, method), by
    :func:`agreekit.weighted_correlation_test` (``method="auto"``).

    Untied rankings: exact / table / (sequential) Monte Carlo.  Tied rankings: the same function's
    null that keeps both tie patterns fixed (exact over the distinct arrangements, else Monte
    Carlo), labelled ``"<method> (ties)"``.  An undefined τ_w (a ranking with every system tied)
    has an undefined p-value: NaN, method ``"undefined"``.
    """
    if not math.isfinite(observed) or np.all(ra == ra[0]) or np.all(rb == rb[0]):
        return float("nan"), "undefined"
    tied = len(np.unique(ra)) < ra.size or len(np.unique(rb)) < rb.size
    if tied:
        # average ranks (1 = best) are passed as scores -ra: rankdata(ra, "average") = ra
        res = weighted_correlation_test(
            -np.asarray(ra, dtype=np.float64),
            -np.asarray(rb, dtype=np.float64),
            coefficient="kendall",
            weigher=weigher,
            scheme=scheme,
            rng=rng,
            n_resamples=n_resamples,
            kind="scores",
        )
        return float(res.pvalue), f"{res.method} (ties)"
    res = weighted_correlation_test(
        ra.astype(np.int64),
        rb.astype(np.int64),
        coefficient="kendall",
        weigher=weigher,
        scheme=scheme,
        rng=rng,
        table=table,
        n_resamples=n_resamples,
    )
    return float(res.pvalue), str(res.method)


@_alpha_alias
@renamed_parameters(statistic="summary")
def metric_agreement(
    scores,
    *,
    weigher="harmonic",
    scheme="additive",
    n_resamples: int = 1000,
    rng=None,
    summary="mean",
    confidence_level: float = 0.95,
    top_k: int = 10,
    resamples=None,
    table=None,
    pvalue: bool = True,
    pvalue_resamples: int = 10_000,
    offset: float = GM_OFFSET,
) -> MetricAgreement:
    """Do evaluation metrics agree on the system ranking — and on its *top*?

    For every pair of metrics, compares the system rankings they induce with Kendall's τ_b
    (Sakai 2006) and with the top-weighted τ_w of [2]_ standardized by g (zero expected
    value under independence, so that τ_w values of different n and weighers compare),
    each with its bootstrap standard error; every bootstrap quantity uses the **same**
    topic samples Q*b for all metrics and pairs (common random numbers, as in [1]_).

    Parameters
    ----------
    scores : mapping str -> pandas.DataFrame
        Metric name -> topics × systems matrix of per-topic scores (higher = better).
        All matrices must have the same topics and systems; they are aligned by label.
        At least two metrics.
    weigher : str or Weigher, default "harmonic"
        Weighting function f of the 1-based rank for τ_w (``"harmonic"`` = 1/r, …).
    scheme : {"additive", "multiplicative"}
        How f at a system's two ranks combine into its weight.
    n_resamples : int, default 1000
        Number B of bootstrap topic samples.
    rng : int, SeedSequence or numpy.random.Generator, optional
        Seed; with an int the topic samples are stream 0 of :mod:`agreekit.ireval.bootstrap`
        (the same Q*b as the bootstrap stage for that seed) and the p-values use stream 3.
    summary : {"mean", "gmean"} or mapping metric -> summary
        System summary over topics (arithmetic or Sakai's geometric mean, Eq. 7;
        formerly ``statistic``).
    confidence_level : float, default 0.95
        Level of the percentile bootstrap intervals (formerly ``alpha`` = 1 − level,
        a deprecated alias; scipy's ``bootstrap`` spells it the same way).
    top_k : int, default 10
        Size of the top set for ``top_k_overlap``; system i is in the top k of a metric
        when fewer than k systems score strictly higher (ties at the cut are all in).
    resamples : array_like, shape (B, n_topics), optional
        Inject the topic samples (overrides ``n_resamples`` and ``rng`` for them).
    table : CoefficientTable, path or scheme id, optional
        Coefficient table for g (default: the shipped one for kendall/scheme/weigher).
    pvalue : bool, default True
        Compute the p-values (False: NaN, ``pvalue_method = "skipped"``).
    pvalue_resamples : int, default 10000
        Monte Carlo size (the maximum of a sequential one) for p-values without an exact or
        table null.
    offset : float
        Offset of the geometric mean.

    Returns
    -------
    MetricAgreement
        ``to_frame()`` gives one row per metric pair.

    Notes
    -----
    Rankings: systems are ranked by their summary (1 = best); summaries equal up to a
    relative 1e-12 are tied and get their average rank, which feeds f (issue-10 tie
    convention).  τ_w then uses sgn(0) = 0 and the τ_b-style normalisation
    √(Σ_{a untied} w_i w_j · Σ_{b untied} w_i w_j); without ties it is exactly τ_w of [2]_.
    g is defined for untied rankings; under ties it is applied to the tie-corrected τ_w
    (``ties`` says which rows this concerns).  p-values (two-sided): untied rankings use
    :func:`agreekit.weighted_correlation_test` (exact for n ≤ 10, else the table's null
    quantiles, else sequential Monte Carlo); tied rankings use the same function's permutation
    null that keeps both tie patterns fixed (exact over the distinct arrangements when there are
    at most 10!, else Monte Carlo with at most ``pvalue_resamples`` resamples; ``pvalue_method``
    e.g. ``"exact (ties)"``).  A pair where a metric ties every system has τ_w undefined and so
    its p-value: NaN (null in JSON), ``pvalue_method = "undefined"``.

    References
    ----------
    .. [1] T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006
       (Eq. 12: bootstrap SE of Kendall's τ between two metrics). :doi:`10.1145/1148170.1148261`
    .. [2] P. Lombardo, "Standardization of weighted ranking correlation coefficients",
       arXiv:2504.08428, 2025: τ_w, g(Γ).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from agreekit.metaeval import metric_agreement
    >>> rng = np.random.default_rng(0)
    >>> base = rng.uniform(size=(30, 12)) + np.linspace(1, 0, 12)
    >>> scores = {"A": pd.DataFrame(base), "B": pd.DataFrame(base + rng.normal(0, .3, base.shape))}
    >>> res = metric_agreement(scores, n_resamples=200, rng=1, pvalue=False)
    >>> row = res.to_frame().iloc[0]
    >>> row.metric_a, row.metric_b, bool(row.tau_b > 0.5), bool(0 < row.tau_b_se < 0.2)
    ('A', 'B', True, True)
    """
    data = check_metric_scores(scores, summary=summary, offset=offset)
    w = parse_weigher(weigher)
    scheme = check_scheme(scheme)
    confidence_level = check_float("confidence_level", confidence_level, minimum=0.0, maximum=1.0, inclusive=False)
    alpha = _interval_alpha(confidence_level)
    top_k = check_int("top_k", top_k, minimum=1)
    if not isinstance(pvalue, (bool, np.bool_)):
        raise InputError("pvalue", f"must be True or False; got {pvalue!r}")
    pvalue_resamples = check_int("pvalue_resamples", pvalue_resamples, minimum=1)
    n, s = data.n_topics, data.n_systems
    if s < 3:
        raise InputError("scores", f"needs at least 3 systems to rank; got {s}")
    if resamples is not None:
        idx = check_resamples(resamples, n)
    else:
        n_resamples = check_int("n_resamples", n_resamples, minimum=2)
        idx = bootstrap_indices(n, n_resamples=n_resamples, rng=rng)
    B = idx.shape[0]
    if B < 2:
        raise InputError("resamples", "needs at least 2 bootstrap samples for a standard error")

    M = len(data.names)
    pa, pb = np.triu_indices(M, 1)
    pa = pa.astype(np.int64)
    pb = pb.astype(np.int64)
    # observed (row 0) and bootstrap (rows 1..B) rankings of every metric: (M, B + 1, s)
    S_obs = data.summaries()
    S_all = np.concatenate([S_obs[:, None, :], data.resampled_summaries(idx)], axis=1)
    RA = ranks_from_summaries(S_all)
    FW = np.ascontiguousarray(w(RA))
    if not np.all(np.isfinite(FW)) or np.any(FW <= 0):
        raise InputError("weigher", f"{w.spec!r} must give finite positive weights for ranks 1..{s}")
    tb, tw = pick(_k.pair_correlations, pa.size * RA.shape[1] * RA.shape[2] ** 2)(
        RA, FW, pa, pb, scheme == "multiplicative"
    )
    k = min(top_k, s)  # every system is in the top s (and k fits the kernel's int64)
    overlap = pick(_k.top_k_overlap, RA.shape[0] * RA.shape[2] ** 2)(np.ascontiguousarray(RA[:, :1]), pa, pb, k)[0]
    g = _standardize(tw, weigher=w, scheme=scheme, n=s, table=table)
    tap = _tau_ap_b_pairs(np.ascontiguousarray(RA), pa, pb)

    boot_b, boot_w, boot_g = tb[1:], tw[1:], g[1:]
    lo, hi = alpha / 2, 1 - alpha / 2
    ties = [bool(len(np.unique(RA[a, 0])) < s or len(np.unique(RA[b, 0])) < s) for a, b in zip(pa, pb)]
    pvals, pmethods = [], []
    for p, (a, b) in enumerate(zip(pa, pb)):
        if not pvalue:
            pvals.append(float("nan"))
            pmethods.append("skipped")
            continue
        ss = _pvalue_rng(rng, p)
        pv, pm = _pvalue(
            RA[a, 0],
            RA[b, 0],
            FW[a, 0],
            FW[b, 0],
            float(tw[0, p]),
            weigher=w,
            scheme=scheme,
            table=table,
            rng=ss,
            n_resamples=pvalue_resamples,
        )
        pvals.append(pv)
        pmethods.append(pm)
    frame = pd.DataFrame(
        {
            "metric_a": [data.names[a] for a in pa],
            "metric_b": [data.names[b] for b in pb],
            "tau_b": tb[0],
            "tau_b_se": _se(boot_b),
            "tau_w": tw[0],
            "tau_w_se": _se(boot_w),
            "tau_w_standardized": g[0],
            "tau_w_standardized_se": _se(boot_g),
            "tau_ap_b": tap[0],
            "tau_ap_b_se": _se(tap[1:]),
            "pvalue": np.asarray(pvals, dtype=float),
            "top_k_overlap": overlap.astype(np.int64),
            "tau_b_ci_low": _percentile(boot_b, lo),
            "tau_b_ci_high": _percentile(boot_b, hi),
            "tau_w_standardized_ci_low": _percentile(boot_g, lo),
            "tau_w_standardized_ci_high": _percentile(boot_g, hi),
            "difference": g[0] - tb[0],
            "difference_se": _se(boot_g - boot_b),
            "pvalue_method": pmethods,
            "ties": ties,
        },
        columns=list(COLUMNS),
    )
    systems = [str(c) for c in data.systems]
    return MetricAgreement(
        metrics=data.names,
        systems=tuple(systems),
        n_topics=n,
        n_resamples=B,
        top_k=top_k,
        weigher=w.spec,
        scheme=scheme,
        summary_names=data.statistics,
        confidence_level=confidence_level,
        table=frame,
        summaries=pd.DataFrame(S_obs.T, index=pd.Index(systems, name="system"), columns=list(data.names)),
        ranks=pd.DataFrame(RA[:, 0].T, index=pd.Index(systems, name="system"), columns=list(data.names)),
        resamples=idx,
        bootstrap_tau_b=boot_b,
        bootstrap_tau_w=boot_w,
        bootstrap_tau_w_standardized=boot_g,
        bootstrap_tau_ap_b=tap[1:],
    )
