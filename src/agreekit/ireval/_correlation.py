"""Rank correlation between two metrics' system rankings with its bootstrap SE (Eqs. 11-12),
the classical Kendall / Spearman tests, and the bootstrap SE of a difference (Eq. 13).
Public through :mod:`agreekit.ireval.bootstrap`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from agreekit._api import ResultBase, TestResultBase, deprecated_attribute, renamed_parameters
from agreekit._resampling import bootstrap_summaries, summary_name, system_summaries, topic_resamples
from agreekit._validation import InputError, check_choice, check_float, check_int, check_real_values
from agreekit.ireval import _kernels as _k
from agreekit.ireval._tests import _align_paired, _check_alternative
from agreekit.ireval._scores import align_scores, check_scores
from agreekit.ireval._summaries import GM_OFFSET

__all__ = [
    "kendall_normal_test",
    "kendall_critical_value",
    "spearman_t_test",
    "RankCorrelationResult",
    "rank_correlation_se",
    "DifferenceSEResult",
    "difference_se",
]


# --------------------------------------------------------------------------- rank correlation


def _normal_pvalue(z: float, alternative: str, dist) -> float:
    """p-value of a signed statistic z under ``dist`` (symmetric) for ``alternative``."""
    if alternative == "two-sided":
        return float(2 * dist.sf(abs(z)))
    return float(dist.sf(z) if alternative == "greater" else dist.cdf(z))


#: largest number of systems of the correlation tests (exact in float64)
_MAX_SYSTEMS = 2**53


def kendall_normal_test(tau: float, n_systems: int, *, alternative: str = "two-sided") -> tuple[float, float]:
    """Eq. 11: Z0 = |tau| / sqrt((4 ns + 10) / (9 ns (ns - 1))) and its p-value.

    ``alternative="two-sided"`` (Sakai's test) gives 2 (1 - Phi(Z0)); "greater" / "less"
    use the signed z = tau / sqrt(...) (H1: positive / negative association) and return it.

    Parameters
    ----------
    tau : float
        Kendall's tau between two rankings of the same systems, in [-1, 1].
    n_systems : int
        ns, the number of systems ranked (2 to 2**53).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The alternative hypothesis.

    Returns
    -------
    z : float
        Z0 (two-sided) or the signed z.
    pvalue : float
        Its normal p-value.

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532
    (Eq. 11: the normal test of no association for Kendall's tau). :doi:`10.1145/1148170.1148261`

    Examples
    --------
    Sakai's critical tau for 30 systems at alpha = 0.01, and a one-sided test of a negative tau:

    >>> from agreekit.ireval.bootstrap import kendall_normal_test
    >>> z, p = kendall_normal_test(0.332, 30)
    >>> round(z, 3), round(p, 4)
    (2.577, 0.01)
    >>> z, p = kendall_normal_test(-0.332, 30, alternative="greater")
    >>> round(z, 3), round(p, 4)
    (-2.577, 0.995)
    """
    ns = check_int("n_systems", n_systems, minimum=2, maximum=_MAX_SYSTEMS)
    alternative = _check_alternative(alternative)
    tau = check_float("tau", tau, minimum=-1.0, maximum=1.0)
    from scipy import stats as _stats

    z = tau / math.sqrt((4 * ns + 10) / (9 * ns * (ns - 1)))
    p = _normal_pvalue(z, alternative, _stats.norm)
    return (abs(z) if alternative == "two-sided" else z), p


def kendall_critical_value(n_systems: int, alpha: float = 0.01) -> float:
    """Smallest |tau| significant at ``alpha`` (two-sided) under Eq. 11.

    Parameters
    ----------
    n_systems : int
        ns, the number of systems ranked (at least 2).
    alpha : float, default 0.01
        The significance level (two-sided).

    Returns
    -------
    float
        The critical |tau|: |tau| above it is significant at ``alpha``.

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532
    (Section 6: for 30 systems, a tau over 0.34 is significant at 0.01). :doi:`10.1145/1148170.1148261`

    Examples
    --------
    >>> from agreekit.ireval.bootstrap import kendall_critical_value
    >>> round(kendall_critical_value(30, 0.01), 3)   # Sakai rounds this up to "0.34"
    0.332
    """
    ns = check_int("n_systems", n_systems, minimum=2, maximum=_MAX_SYSTEMS)
    alpha = check_float("alpha", alpha, minimum=0.0, maximum=1.0, inclusive=False)
    from scipy import stats as _stats

    return float(_stats.norm.isf(alpha / 2) * math.sqrt((4 * ns + 10) / (9 * ns * (ns - 1))))


def spearman_t_test(rho: float, n_systems: int, *, alternative: str = "two-sided") -> tuple[float, float]:
    """t0 = |rho| sqrt(ns - 2) / sqrt(1 - rho^2) with ns - 2 df and its p-value.

    ``alternative="two-sided"`` gives the two-sided p-value of t0 (the p-value of
    :func:`scipy.stats.spearmanr`); "greater" / "less" use the signed t and return it.

    Parameters
    ----------
    rho : float
        Spearman's rho between two rankings of ``n_systems`` systems, in [-1, 1].
    n_systems : int
        ns, 3 to 2**53; the t distribution has ns - 2 degrees of freedom.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        As in :func:`kendall_normal_test`.

    Returns
    -------
    t, pvalue : float
        t0 (two-sided) or the signed t (infinite for |rho| = 1), and its p-value.

    Examples
    --------
    The same p-value as :func:`scipy.stats.spearmanr` for 8 systems:

    >>> from scipy import stats
    >>> from agreekit.ireval.bootstrap import spearman_t_test
    >>> res = stats.spearmanr([1, 2, 3, 4, 5, 6, 7, 8], [2, 1, 4, 3, 6, 5, 8, 7])
    >>> t, p = spearman_t_test(res.statistic, 8)
    >>> round(t, 4), round(p, 6), bool(abs(p - res.pvalue) < 1e-12)
    (5.2034, 0.002008, True)
    """
    ns = check_int("n_systems", n_systems, minimum=3, maximum=_MAX_SYSTEMS)
    alternative = _check_alternative(alternative)
    rho = check_float("rho", rho, minimum=-1.0, maximum=1.0)
    if abs(rho) >= 1:
        t = math.copysign(float("inf"), rho)
    else:
        t = rho * math.sqrt(ns - 2) / math.sqrt(1 - rho * rho)
    from scipy import stats as _stats

    p = _normal_pvalue(t, alternative, _stats.t(ns - 2))
    return (abs(t) if alternative == "two-sided" else t), p


def _correlation_rows(A: np.ndarray, Bm: np.ndarray, coefficient: str, variant: str) -> np.ndarray:
    if coefficient == "kendall":
        return _k.kendall_rows(np.ascontiguousarray(A), np.ascontiguousarray(Bm), variant == "b")
    from scipy import stats as _stats

    ra = _stats.rankdata(A, axis=1)
    rb = _stats.rankdata(Bm, axis=1)
    ra = ra - ra.mean(axis=1, keepdims=True)
    rb = rb - rb.mean(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (ra * rb).sum(axis=1) / np.sqrt((ra * ra).sum(axis=1) * (rb * rb).sum(axis=1))


@dataclass(frozen=True)
class RankCorrelationResult(TestResultBase):
    """Result of :func:`rank_correlation_se`; ``statistic, pvalue = result`` (statistic =
    the correlation, as in :func:`scipy.stats.kendalltau`).

    Parameters
    ----------
    correlation : float
        Kendall's tau (tau-b by default) or Spearman's rho between the
        system rankings by the two metrics (summaries over all topics).
    standard_error : float
        Bootstrap SE, sqrt(sum_b (tau*b - m)^2 / (B - 1)) (Eq. 12).
    bootstrap_mean : float
        m, the mean of the finite replicates tau*b.
    bootstrap_distribution : ndarray, shape (B,)
        The replicates tau*b (NaN where a ranking is all tied).
    test_statistic, pvalue : float
        Z0 of Eq. 11 (Kendall) or Spearman's t0, and its two-sided normal / t p-value.
    coefficient : str
        ``"kendall-tau-b"``, ``"kendall-tau-a"`` or ``"spearman"`` (formerly ``method``).
    n_systems : int
        ns, the number of systems ranked.
    n_resamples : int
        B, the number of bootstrap samples.
    statistic : float
        Set to ``correlation`` (what ``stat, p = result`` unpacks first); not a constructor
        argument to pass.

    Examples
    --------
    AP ranks A > B > C > D, P@10 ties A and B: 5 of the 6 pairs are concordant and one is
    tied, so tau-a = 5/6 and tau-b = 5 / sqrt(6 * 5).  Four injected topic samples give the
    replicates behind the SE:

    >>> import pandas as pd
    >>> from agreekit.ireval.bootstrap import rank_correlation_se
    >>> ap = pd.DataFrame({"A": [0.5, 0.75, 0.5], "B": [0.25, 0.5, 0.25], "C": [0.25, 0.0, 0.5], "D": [0.0, 0.5, 0.0]})
    >>> p10 = pd.DataFrame({"A": [0.5, 0.75, 0.25], "B": [0.75, 0.5, 0.25], "C": [0.0, 0.25, 0.5],
    ...                     "D": [0.25, 0.0, 0.25]})
    >>> samples = [[0, 1, 2], [1, 1, 2], [0, 0, 2], [2, 2, 2]]
    >>> tau_b = rank_correlation_se(ap, p10, resamples=samples)
    >>> tau_a = rank_correlation_se(ap, p10, variant="a", resamples=samples)
    >>> round(tau_b.correlation, 4), round(tau_a.correlation, 4), tau_b.coefficient
    (0.9129, 0.8333, 'kendall-tau-b')
    >>> tau_b.bootstrap_distribution.round(4).tolist(), round(tau_b.standard_error, 4)
    ([0.9129, 0.6667, 0.0, 0.5164], 0.3857)
    """

    correlation: float
    standard_error: float
    bootstrap_mean: float
    bootstrap_distribution: np.ndarray = field(repr=False)
    test_statistic: float
    pvalue: float
    coefficient: str
    n_systems: int
    n_resamples: int
    statistic: float = field(default=float("nan"), repr=False)

    method = deprecated_attribute("coefficient", "method")

    def __post_init__(self):
        object.__setattr__(self, "statistic", self.correlation)  # what `stat, p = result` unpacks first

    def to_dict(self) -> dict:
        """Plain-dict summary (JSON-able)."""
        return {
            "coefficient": self.coefficient,
            "correlation": self.correlation,
            "standard_error": self.standard_error,
            "bootstrap_mean": self.bootstrap_mean,
            "test_statistic": self.test_statistic,
            "pvalue": self.pvalue,
            "n_systems": self.n_systems,
            "n_resamples": self.n_resamples,
        }


@renamed_parameters(method="coefficient", statistic="summary", statistic_b="summary_b")
def rank_correlation_se(
    scores_a: Any,
    scores_b: Any,
    *,
    coefficient: str = "kendall",
    variant: str = "b",
    summary: str = "mean",
    summary_b: str | None = None,
    n_resamples: int = 1000,
    rng: Any = None,
    resamples: Any = None,
    offset: float = GM_OFFSET,
) -> RankCorrelationResult:
    """Rank correlation between two metrics' system rankings with its bootstrap SE.

    Both matrices must have the same topics and systems (aligned by label).
    For each topic sample Q*b (the same for both metrics) the systems are
    summarised by each metric and the correlation tau*b computed.

    Parameters
    ----------
    scores_a, scores_b : DataFrame or array_like, shape (n, s)
    coefficient : {"kendall", "spearman"}, default "kendall"
        Which rank correlation (formerly ``method=``).
    variant : {"b", "a"}
        Kendall tau-b (ties-corrected, scipy's default) or tau-a.
    summary, summary_b : {"mean", "gmean"}
        Summary of metric a (and of b; default: same as a), e.g. AveP with "mean"
        vs G_AveP = AveP with "gmean" (formerly ``statistic``, ``statistic_b``).
    n_resamples : int, default 1000
        B (ignored when ``resamples`` is given).
    rng : None, int, SeedSequence or Generator
        Source of the topic samples (stream 0 with an int seed: the Q*b of the paired test).
    resamples : array_like of int, shape (B, n), optional
        Injected topic samples, the same for both metrics.
    offset : float, default 1e-5
        Geometric-mean offset.

    Returns
    -------
    RankCorrelationResult
        The correlation, its bootstrap SE and replicates, and the classical test (Eq. 11 or t).

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532
    (Eqs. 11-12: Kendall's tau between two metrics and its bootstrap SE). :doi:`10.1145/1148170.1148261`

    Examples
    --------
    >>> import numpy as np
    >>> from agreekit.ireval.bootstrap import rank_correlation_se
    >>> rng = np.random.default_rng(0)
    >>> A = rng.uniform(size=(25, 8)) + np.linspace(0, 1, 8)
    >>> res = rank_correlation_se(A, A + rng.normal(0, .2, A.shape), rng=1)
    >>> res.correlation > 0.5, 0 < res.standard_error < 0.3
    (True, True)
    """
    da = check_scores(scores_a, parameter="scores_a")
    db = check_scores(scores_b, parameter="scores_b")
    if isinstance(scores_a, pd.DataFrame) and isinstance(scores_b, pd.DataFrame):
        db = align_scores(da, db)
    elif db.shape != da.shape:
        raise InputError("scores_b", f"must have the shape of `scores_a` {da.shape}; got {db.shape}")
    method = check_choice("coefficient", coefficient, ("kendall", "spearman"))
    variant = check_choice("variant", variant, ("b", "a"))
    sa = summary_name(summary, allow_callable=False)
    sb = sa if summary_b is None else summary_name(summary_b, allow_callable=False, parameter="summary_b")
    offset = check_float("offset", offset, minimum=0.0)
    A, Bv = da.to_numpy(), db.to_numpy()
    n, s = A.shape
    if method == "spearman" and s < 3:
        raise InputError("scores_a", "Spearman's test needs at least 3 systems")
    idx = topic_resamples(
        resamples, n, n_resamples, rng, bytes_per_resample=32.0 * s + 8.0, what="system summaries of both metrics"
    )
    obs = _correlation_rows(
        system_summaries(A, sa, offset)[None, :], system_summaries(Bv, sb, offset)[None, :], method, variant
    )[0]
    boot = _correlation_rows(
        bootstrap_summaries(A, idx, sa, offset), bootstrap_summaries(Bv, idx, sb, offset), method, variant
    )
    finite = boot[np.isfinite(boot)]
    se = float(np.std(finite, ddof=1)) if finite.size > 1 else float("nan")
    if method == "kendall":
        stat, p = kendall_normal_test(obs, s) if np.isfinite(obs) else (float("nan"), float("nan"))
    else:
        stat, p = spearman_t_test(obs, s) if np.isfinite(obs) else (float("nan"), float("nan"))
    return RankCorrelationResult(
        correlation=float(obs),
        standard_error=se,
        bootstrap_mean=float(finite.mean()) if finite.size else float("nan"),
        bootstrap_distribution=boot,
        test_statistic=stat,
        pvalue=p,
        coefficient=method if method == "spearman" else f"kendall-tau-{variant}",
        n_systems=s,
        n_resamples=idx.shape[0],
    )


@dataclass(frozen=True)
class DifferenceSEResult(ResultBase):
    """Result of :func:`difference_se`: observed difference, bootstrap SE (Eq. 13), replicates D_b.

    Parameters
    ----------
    difference : float
        M(x) - M(y) over all topics.
    standard_error : float
        sqrt(sum_b (D_b - mean(D))^2 / (B - 1)); NaN for B = 1.
    bootstrap_distribution : ndarray, shape (B,)
        The replicates D_b = M(x, Q*b) - M(y, Q*b).

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532.
    :doi:`10.1145/1148170.1148261`

    Examples
    --------
    With the geometric mean (Sakai's G_AveP) a topic where one system scores 0 weighs heavily:

    >>> from agreekit.ireval.bootstrap import difference_se
    >>> x, y = [0.4, 0.5, 0.0, 0.3], [0.2, 0.3, 0.1, 0.2]
    >>> am = difference_se(x, y, n_resamples=500, rng=0)
    >>> gm = difference_se(x, y, summary="gmean", n_resamples=500, rng=0)
    >>> round(am.difference, 4), round(am.standard_error, 4), round(gm.difference, 4), round(gm.standard_error, 4)
    (0.1, 0.0619, -0.1583, 0.1463)
    """

    difference: float
    standard_error: float
    bootstrap_distribution: np.ndarray = field(repr=False)


@renamed_parameters(statistic="summary")
def difference_se(
    x: Any,
    y: Any,
    *,
    summary: str = "mean",
    n_resamples: int = 1000,
    rng: Any = None,
    resamples: Any = None,
    offset: float = GM_OFFSET,
) -> DifferenceSEResult:
    """Bootstrap SE of the performance difference M(x) - M(y) over topic samples (Eq. 13).

    Parameters
    ----------
    x, y : array_like, shape (n,)
        Per-topic values of systems X and Y on the same topics, in the same order; two
        :class:`pandas.Series` are paired by their labels (different label sets are an error).
    summary : {"mean", "gmean"}
        M, how a system is summarised over a topic sample (formerly ``statistic``).
    n_resamples : int, default 1000
        B (ignored when ``resamples`` is given).
    rng : None, int, SeedSequence or Generator
        Source of the topic samples (stream 0 with an int seed).
    resamples : array_like of int, shape (B, n), optional
        Injected topic samples (0-based).
    offset : float, default 1e-5
        Geometric-mean offset.

    Returns
    -------
    DifferenceSEResult
        The observed difference, its bootstrap SE and the replicates D_b.

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532
    (Eq. 13: the bootstrap standard error of a difference). :doi:`10.1145/1148170.1148261`

    Examples
    --------
    Two injected topic samples, Q*1 = all topics and Q*2 = topic 0 three times, give
    D = (0.2, 0.1) and the SE sqrt(0.005):

    >>> from agreekit.ireval.bootstrap import difference_se
    >>> res = difference_se([0.2, 0.4, 0.6], [0.1, 0.1, 0.4], resamples=[[0, 1, 2], [0, 0, 0]])
    >>> round(res.difference, 4), round(res.standard_error, 4)
    (0.2, 0.0707)
    """
    check_real_values("x", x)
    check_real_values("y", y)
    x, y = _align_paired(x, y)
    X = check_scores(
        np.column_stack([np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)])
        if np.ndim(x) == 1 and np.ndim(y) == 1 and np.size(x) == np.size(y)
        else _raise_len(x, y),
        parameter="x",
    ).to_numpy()
    stat = summary_name(summary, allow_callable=False)
    offset = check_float("offset", offset, minimum=0.0)
    idx = topic_resamples(
        resamples, X.shape[0], n_resamples, rng, bytes_per_resample=40.0, what="summaries and differences"
    )
    M = bootstrap_summaries(X, idx, stat, offset)
    D = M[:, 0] - M[:, 1]
    obs = system_summaries(X, stat, offset)
    se = float(np.std(D, ddof=1)) if D.size > 1 else float("nan")
    return DifferenceSEResult(difference=float(obs[0] - obs[1]), standard_error=se, bootstrap_distribution=D)


def _raise_len(x, y):
    if np.ndim(x) != 1:
        raise InputError("x", "must be 1-D")
    if np.ndim(y) != 1:
        raise InputError("y", "must be 1-D")
    raise InputError("y", f"must have the same length as `x` ({np.size(x)}); got {np.size(y)}")
