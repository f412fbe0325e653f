"""Kemeny consensus of the system rankings induced by several evaluation metrics."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from agreekit._api import ResultBase, check_rng, fieldwise_eq, renamed_parameters
from agreekit._memory import check_memory
from agreekit._resampling import bootstrap_indices
from agreekit._validation import check_choice, check_float, check_int
from agreekit.ireval.metrics import GM_OFFSET
from agreekit.metaeval._inputs import check_metric_scores, ranks_from_summaries
from agreekit.consensus import combined_input_matrix, dense_ranks, kemeny, tau_x

#: the bounds of kemeny's counts (agreekit.consensus.kemeny refuses larger ones too)
MAX_STARTS, MAX_SOLUTIONS = 2**62, 10**7

__all__ = ["consensus_ranking", "ConsensusRanking"]


@dataclass(frozen=True)
class ConsensusRanking(ResultBase):
    """Result of :func:`consensus_ranking`.

    Parameters
    ----------
    ranking : pandas.Series
        Consensus rank per system (index = systems in input order), 1 = best; tied
        systems share a rank (dense ranks).
    tau_x : pandas.Series
        Emond–Mason τ_x of each metric's ranking with the consensus (index = metrics).
    average_tau_x : float
        Mean of ``tau_x`` — the quantity the Kemeny consensus maximises.
    proven : bool
        True when ``average_tau_x`` is proven optimal.
    gap : float
        Upper bound on the optimal average τ_x minus ``average_tau_x`` (0 when proven).
        The bound of an unproven run is the per-pair optimum Σ|c_ij| / (W m(m−1)).
    bound : float
        That upper bound (``average_tau_x`` when proven).
    seconds : float
        Wall-clock time of the solver (not part of ``==``).
    n_optima : int
        Number of optimal rankings found (all of them when ``exhaustive``; at most
        ``max_solutions``); ``ranking``
        is the one closest to the metrics' mean rank (largest Kendall τ_b, first on ties).
    exhaustive : bool
        True when every optimal ranking was enumerated.
    method : str
        What :func:`agreekit.consensus.kemeny` ran (``"exact"``, ``"fast"``, ``"quick"``), or
        ``"bound"`` when a metric's own ranking reaches the upper bound Σ|c_ij| (every pair
        at its best value; always so for two metrics) and is therefore optimal.
    message : str
        The solver's account of what it decided.
    metric_ranks : pandas.DataFrame
        Systems × metrics ranks that were aggregated (competition ranks: 1 + the number of
        systems with a strictly higher summary).
    solutions : pandas.DataFrame
        Every consensus found (one row per solution, one column per system).
    support : float
        With ``n_resamples > 0``: the fraction of topic resamples in which one of
        ``solutions`` is optimal (NaN when no resampling was asked for).

    Examples
    --------
    AP ties systems a and b, RR puts b first.  With two metrics the consensus is one of
    their own rankings, proven optimal by the bound without a search; ``to_frame()`` is the
    table of ``consensus.csv``:

    >>> import pandas as pd
    >>> from agreekit.metaeval import consensus_ranking
    >>> ap = pd.DataFrame({"a": [.6, .4], "b": [.5, .5], "c": [.1, .2]})
    >>> rr = pd.DataFrame({"a": [.5, .5], "b": [1., .5], "c": [.2, .1]})
    >>> res = consensus_ranking({"AP": ap, "RR": rr})
    >>> res.method, res.proven, res.gap
    ('bound', True, 0.0)
    >>> res.to_frame()
         kind label  rank     tau_x  rank[AP]  rank[RR]
    0  system     b     1       NaN       1.0       1.0
    1  system     a     2       NaN       1.0       2.0
    2  system     c     3       NaN       3.0       3.0
    3  metric    AP  <NA>  0.666667       NaN       NaN
    4  metric    RR  <NA>  1.000000       NaN       NaN
    """

    ranking: pd.Series
    tau_x: pd.Series
    average_tau_x: float
    proven: bool
    gap: float
    bound: float
    seconds: float = field(compare=False)
    n_optima: int
    exhaustive: bool
    method: str
    message: str
    metric_ranks: pd.DataFrame = field(repr=False)
    solutions: pd.DataFrame = field(repr=False)
    support: float = float("nan")

    __eq__ = fieldwise_eq  # pandas fields by value, NaN equal to NaN; ``seconds`` ignored
    __hash__ = None

    def to_frame(self) -> pd.DataFrame:
        """Tidy table (what ``consensus.csv`` holds): one row per system (``kind="system"``,
        its consensus ``rank`` and each metric's rank) followed by one row per metric
        (``kind="metric"``, its ``tau_x`` with the consensus)."""
        order = np.argsort(self.ranking.to_numpy(), kind="stable")
        sys = pd.DataFrame(
            {
                "kind": "system",
                "label": self.ranking.index[order],
                "rank": self.ranking.to_numpy()[order],
                "tau_x": np.nan,
            }
        )
        for m in self.metric_ranks.columns:
            sys[f"rank[{m}]"] = self.metric_ranks[m].to_numpy()[order]
        met = pd.DataFrame({"kind": "metric", "label": self.tau_x.index, "rank": pd.NA, "tau_x": self.tau_x.to_numpy()})
        out = pd.concat([sys, met], ignore_index=True)
        out["rank"] = out["rank"].astype("Int64")
        return out

    def to_dict(self) -> dict:
        """A JSON-ready ``dict``: ``ranking`` and ``tau_x`` as ``{label: value}``, then the scalars
        (``support`` only when topics were resampled)."""
        out = {
            "ranking": {str(k): int(v) for k, v in self.ranking.items()},
            "tau_x": {str(k): float(v) for k, v in self.tau_x.items()},
            "average_tau_x": self.average_tau_x,
            "proven": self.proven,
            "gap": self.gap,
            "bound": self.bound,
            "seconds": self.seconds,
            "n_optima": self.n_optima,
            "exhaustive": self.exhaustive,
            "method": self.method,
            "message": self.message,
        }
        if not math.isnan(self.support):  # only when topics were resampled (n_resamples > 0)
            out["support"] = self.support
        return out


def _signs(r: np.ndarray) -> np.ndarray:
    """Emond–Mason score matrix of a rank vector: +1 ahead or tied, −1 behind, 0 on the diagonal."""
    r = np.asarray(r)
    s = np.where(r[:, None] <= r[None, :], 1.0, -1.0)
    np.fill_diagonal(s, 0.0)
    return s


def _tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b (as ``scipy.stats.kendalltau``), O(s²) in numpy: no scipy.stats import
    (0.5–0.8 s) for a tie-break among a few consensus rankings."""
    sx = np.sign(x[:, None] - x[None, :])
    sy = np.sign(y[:, None] - y[None, :])
    iu = np.triu_indices(x.size, 1)
    sx, sy = sx[iu], sy[iu]
    den = np.sqrt(float(np.count_nonzero(sx)) * float(np.count_nonzero(sy)))
    return float(np.dot(sx, sy) / den) if den > 0 else float("nan")


def _closest_to_mean_rank(solutions: np.ndarray, ranks: np.ndarray) -> int:
    if solutions.shape[0] == 1:
        return 0
    mean_rank = ranks.mean(axis=0)
    best, best_i = -np.inf, 0
    for i, sol in enumerate(solutions):
        t = _tau_b(np.asarray(sol, dtype=float), mean_rank)
        t = -np.inf if not np.isfinite(t) else t
        if t > best + 1e-12:
            best, best_i = t, i
    return best_i


def _competition_ranks(avg: np.ndarray) -> np.ndarray:
    """Competition ranks (1 + number of strictly better systems) of each row: integers, same weak orders."""
    return np.array([1 + (r[None, :] < r[:, None]).sum(axis=1) for r in avg], dtype=np.int64)


def _solve(R, C, method, systems, *, time_limit, rng, n_starts, max_solutions):
    """(solutions, proven, method, exhaustive, message) of the consensus of the rankings R (metrics x systems)."""
    V = float(np.abs(C).sum())
    # a metric's own ranking that reaches the per-pair bound Σ|c_ij| is a proven optimum (always the
    # case for two metrics, where the exact enumeration of the huge set of optima is hopeless)
    own = [
        r
        for r in np.unique(np.array([dense_ranks(r) for r in R]), axis=0)
        if V - float((C * _signs(r)).sum()) <= 1e-9 * max(V, 1.0)
    ]
    if own and method in ("auto", "exact"):
        return (
            np.array(own, dtype=np.int64),
            True,
            "bound",
            False,
            "a metric's own ranking reaches the upper bound sum|c_ij| (every pair at its best "
            "value): proven optimal; other optima are not enumerated",
        )
    res = kemeny(
        R, method=method, labels=systems, time_limit=time_limit, rng=rng, n_starts=n_starts, max_solutions=max_solutions
    )
    return np.asarray(res.solutions), bool(res.proven), str(res.method), bool(res.exhaustive), str(res.message)


def _topic_support(data, sols, method, systems, *, n_resamples, rng, time_limit, n_starts, max_solutions) -> float:
    """Fraction of topic resamples whose optimal value is reached by one of the full-data optima ``sols``."""
    idx = bootstrap_indices(data.n_topics, n_resamples=n_resamples, rng=rng)
    ranks = ranks_from_summaries(data.resampled_summaries(idx))  # (M, B, s)
    signs = [_signs(o) for o in sols]
    hits = 0
    for b in range(idx.shape[0]):
        Rb = _competition_ranks(ranks[:, b, :])
        Cb = combined_input_matrix(Rb)
        sb, _, _, _, _ = _solve(
            Rb, Cb, method, systems, time_limit=time_limit, rng=rng, n_starts=n_starts, max_solutions=max_solutions
        )
        best = float((Cb * _signs(sb[0])).sum())
        eps = 1e-9 * max(float(np.abs(Cb).sum()), 1.0)
        if any(float((Cb * S).sum()) >= best - eps for S in signs):
            hits += 1
    return hits / idx.shape[0]


@renamed_parameters(statistic="summary")
def consensus_ranking(
    scores,
    *,
    method: str = "auto",
    summary="mean",
    time_limit: float | None = None,
    rng=0,
    n_starts: int | None = None,
    max_solutions: int = 100,
    offset: float = GM_OFFSET,
    n_resamples: int = 0,
) -> ConsensusRanking:
    """Kemeny consensus (median) of the system rankings induced by several metrics.

    Each metric ranks the systems by their summary score (ties where summaries are
    equal up to a relative 1e-12); the consensus is the weak order maximising the
    average Emond–Mason τ_x with these rankings ([1]_; Amodio, D'Ambrosio & Siciliano 2016), found with
    :func:`agreekit.consensus.kemeny`.

    Parameters
    ----------
    scores : mapping str -> pandas.DataFrame
        Metric name -> topics × systems scores (aligned by label; at least two metrics).
    method : {"auto", "exact", "fast", "quick"}
        Passed to :func:`agreekit.consensus.kemeny`: ``"exact"`` proves optimality (up to
        ``time_limit``), ``"auto"`` is exact when the largest block is small or its proof
        finishes within the solver's budget, else FAST.
    summary : {"mean", "gmean"} or mapping metric -> summary
        How each metric's topic scores are summarized into one score per system
        (``statistic=`` is a deprecated alias).
    time_limit : float, optional
        Seconds for the solver; when it stops early ``proven`` is False and ``gap`` > 0.
    rng : None, int, SeedSequence or Generator, default 0
        Randomness of FAST's random starts (scipy's SPEC 7).  Unlike most of agreekit the
        default is the fixed seed 0, not fresh entropy, so that the consensus of the same
        scores is the same ranking on every call; pass ``rng=None`` for fresh OS entropy.
    n_starts, max_solutions : int, optional
        Passed to :func:`agreekit.consensus.kemeny` (``max_solutions`` caps how many optima
        are enumerated; optimality is proven either way).
    offset : float, default 1e-5
        Offset of the geometric mean (``summary="gmean"``, Sakai 2006 Eq. 7).
    n_resamples : int, default 0
        When positive, the topics are resampled with replacement this many times (the same
        topics for every metric; :func:`agreekit.ireval.bootstrap_indices` with ``rng``), the
        consensus of each resample is solved the same way, and ``support`` is the fraction of
        resamples in which an optimum of the full data is optimal — the topic-bootstrap
        counterpart of :func:`agreekit.consensus.bootstrap_consensus`'s judge bootstrap.

    Returns
    -------
    ConsensusRanking
        The consensus ranking, each metric's tau_x with it and whether it is proven optimal.

    References
    ----------
    .. [1] S. Amodio, A. D'Ambrosio, R. Siciliano (2016). Accurate algorithms for
       identifying the median ranking when dealing with weak and partial rankings under
       the Kemeny axiomatic approach. EJOR 249(2), 667–676. :doi:`10.1016/j.ejor.2015.08.048`
    .. [2] T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532.
       :doi:`10.1145/1148170.1148261`

    Examples
    --------
    >>> import pandas as pd
    >>> from agreekit.metaeval import consensus_ranking
    >>> a = pd.DataFrame({"s1": [.9, .8], "s2": [.5, .6], "s3": [.1, .2]})
    >>> b = pd.DataFrame({"s1": [.4, .5], "s2": [.9, .8], "s3": [.1, .1]})
    >>> c = pd.DataFrame({"s1": [.7, .9], "s2": [.3, .2], "s3": [.2, .1]})
    >>> res = consensus_ranking({"A": a, "B": b, "C": c}, method="exact")
    >>> res.ranking.tolist(), res.proven, round(res.average_tau_x, 4)
    ([1, 2, 3], True, 0.7778)
    """
    method = check_choice("method", method, ("auto", "exact", "fast", "quick"))
    n_resamples = check_int("n_resamples", n_resamples, minimum=0)
    # every option is checked, also when the bound proves the answer without calling kemeny
    if time_limit is not None:
        check_float("time_limit", time_limit, minimum=0.0, inclusive=False)
    check_rng(rng)
    if n_starts is not None:
        check_int("n_starts", n_starts, minimum=1, maximum=MAX_STARTS)
    check_int("max_solutions", max_solutions, minimum=1, maximum=MAX_SOLUTIONS)
    # check_metric_scores (metaeval/_inputs.py) still spells the summary `statistic`
    data = check_metric_scores(scores, statistic=summary, offset=offset)
    avg = ranks_from_summaries(data.summaries())  # (M, s) average ranks, 1 = best
    R = _competition_ranks(avg)
    systems = [str(c) for c in data.systems]
    t0 = time.perf_counter()
    m = len(systems)
    M = R.shape[0]
    check_memory("scores", 3 * 8.0 * m * m, f"{m} x {m} float64 pairwise matrices of {m} systems")
    C = combined_input_matrix(R)
    V = float(np.abs(C).sum())
    denom = M * m * (m - 1)
    sols, proven_by_bound, kem_method, exhaustive, message = _solve(
        R, C, method, systems, time_limit=time_limit, rng=rng, n_starts=n_starts, max_solutions=max_solutions
    )
    seconds = time.perf_counter() - t0
    support = float("nan")
    if n_resamples:
        support = _topic_support(
            data,
            sols,
            method,
            systems,
            n_resamples=n_resamples,
            rng=rng,
            time_limit=time_limit,
            n_starts=n_starts,
            max_solutions=max_solutions,
        )
    pick = _closest_to_mean_rank(sols, R)
    best = sols[pick]
    taus = pd.Series([tau_x(R[k], best) for k in range(M)], index=list(data.names), name="tau_x")
    avg = float((C * _signs(best)).sum() / denom)
    if not math.isclose(avg, float(taus.mean()), rel_tol=1e-9, abs_tol=1e-12):
        raise AssertionError("consensus: average τ_x differs from the mean of the per-metric τ_x")
    if proven_by_bound:
        bound, gap = avg, 0.0
    else:
        bound = V / denom
        gap = max(bound - avg, 0.0)
    return ConsensusRanking(
        ranking=pd.Series(best.astype(np.int64), index=pd.Index(systems, name="system"), name="rank"),
        tau_x=taus,
        average_tau_x=avg,
        proven=proven_by_bound,
        gap=float(gap),
        bound=float(bound),
        seconds=float(seconds),
        n_optima=int(sols.shape[0]),
        exhaustive=exhaustive,
        method=kem_method,
        message=message,
        metric_ranks=pd.DataFrame(R.T, index=pd.Index(systems, name="system"), columns=list(data.names)),
        solutions=pd.DataFrame(sols, columns=systems),
        support=support,
    )
