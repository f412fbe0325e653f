"""Discriminative power (Sakai Figs. 5-8): the bootstrap test over every system pair.

Four ways to the same table: the paired test over all pairs in one kernel call, the same
streamed over batches of resamples, a numpy path for the paired test (small problems) and the
unpaired test over all pairs.  Public through :mod:`agreekit.ireval.bootstrap`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from agreekit import _jit
from agreekit._api import ResultBase, deprecated_attribute, renamed_parameters
from agreekit._jit import pick
from agreekit._memory import check_memory
from agreekit._resampling import (
    STREAM_BATCH_ELEMENTS,
    STREAM_POOLED,
    log_values,
    resample_batches,
    summary_name,
    topic_resamples,
)
from agreekit._validation import InputError, check_choice, check_flag, check_float, check_int, real_array
from agreekit.ireval import _kernels as _k
from agreekit.ireval._tests import _REL_TOL, _ZERO_VAR_TOL, _apply_statistic, _asl, _kth_largest, critical_rank
from agreekit.ireval._evaluate import _progress
from agreekit.ireval._scores import check_scores
from agreekit.ireval._summaries import GM_OFFSET

__all__ = ["format_difference", "DiscriminativePowerResult", "discriminative_power"]


_DEFAULT_BATCH_ELEMENTS = 4_000_000  # B x pairs doubles per temporary array (32 MB)


def format_difference(value: float, *, decimals: int | None = 2, significant: int | None = None) -> str:
    """Format an estimated difference like Sakai's Table 2 (two decimals by default).

    The paper's text says "two significant figures" but its Table 2 prints two
    decimal places (1.42, 1.76); pass ``significant=2`` for the former.

    Parameters
    ----------
    value : float
        The difference (e.g. :attr:`DiscriminativePowerResult.estimated_difference`).
    decimals : int, default 2
        Decimal places, 0 to 20 (Table 2's format); ignored (but checked) when ``significant`` is
        given, when it may also be None.
    significant : int, optional
        Significant figures, 1 to 17, instead of decimal places (the text's "two significant
        figures").

    Returns
    -------
    str
        The formatted number; ``"nan"`` for None, NaN or an infinite value.

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532
    (Table 2). :doi:`10.1145/1148170.1148261`

    Examples
    --------
    >>> from agreekit.ireval.bootstrap import format_difference
    >>> format_difference(1.4249), format_difference(1.4249, significant=2), format_difference(float("nan"))
    ('1.42', '1.4', 'nan')
    """
    if significant is not None:
        significant = check_int("significant", significant, minimum=1, maximum=17)
    if decimals is not None or significant is None:
        decimals = check_int("decimals", decimals, minimum=0, maximum=20)
    if value is None:
        return "nan"
    value = real_array("value", value, finite=False, max_ndim=0)[()]
    if not np.isfinite(value):
        return "nan"
    if significant is not None:
        return f"{value:.{significant}g}"
    return f"{value:.{decimals}f}"


def _pairs(s: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.triu_indices(s, 1)
    return a.astype(np.int64), b.astype(np.int64)


def _batch(n_resamples: int, batch_size: int | None) -> int:
    if batch_size is None:
        return max(1, _DEFAULT_BATCH_ELEMENTS // n_resamples)
    return check_int("batch_size", batch_size, minimum=1)


# --------------------------------------------------------------------------- all pairs


@dataclass(frozen=True)
class DiscriminativePowerResult(ResultBase):
    """Result of :func:`discriminative_power` (Sakai Table 2, Figs. 5-8).

    Parameters
    ----------
    n_pairs, n_significant : int
        |C| and #{pairs with ASL < alpha} (Sakai's ASL = b / B, not the (b + 1) / (B + 1)
        p-value: Sakai's (2006) count).
    proportion : float
        n_significant / n_pairs (the "sensitivity").
    estimated_difference : float
        Maximum over pairs of the per-pair required difference (Figs. 5-6);
        NaN if every pair is degenerate.  In log units for the paired test
        with ``summary="gmean"`` (AG).
    alpha : float
        The significance level.
    k : int
        The critical rank k = B alpha (rounded down; :func:`critical_rank`).
    test : str
        ``"paired"`` or ``"unpaired"``.
    summary_name : str
        The summary ("mean", "gmean" or the callable's name; formerly ``statistic``).
    n_resamples : int
        B, the number of bootstrap samples.
    table : DataFrame
        One row per pair (i < j in column order): ``system_a``, ``system_b``,
        ``difference`` (observed M(a) - M(b); mean log difference for AG),
        ``statistic`` (t or dhat), ``asl``, ``significant``,
        ``critical_value`` (k-th largest |t*| or |d*|), ``required_difference``
        (the pair's contribution; NaN for degenerate paired pairs).

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532.
    :doi:`10.1145/1148170.1148261`

    Examples
    --------
    The unpaired test over the three pairs of three systems: the per-pair table, and the
    ASL curve of Figs. 7-8 (the ASLs sorted):

    >>> from agreekit.ireval.bootstrap import discriminative_power
    >>> X = [[0.9, 0.5, 0.45], [0.8, 0.4, 0.5], [0.85, 0.6, 0.5], [0.7, 0.3, 0.35], [0.95, 0.5, 0.4]]
    >>> res = discriminative_power(X, test="unpaired", rng=2)
    >>> res.table[["system_a", "system_b", "asl", "significant"]]
      system_a system_b    asl  significant
    0     sys1     sys2  0.005         True
    1     sys1     sys3  0.002         True
    2     sys2     sys3  0.790        False
    >>> res.asl_curve.tolist(), res.k, res.to_dict()["n_significant"]
    ([0.002, 0.005, 0.79], 50, 2)
    """

    n_pairs: int
    n_significant: int
    proportion: float
    estimated_difference: float
    alpha: float
    k: int
    test: str
    summary_name: str
    n_resamples: int
    table: pd.DataFrame = field(repr=False)

    statistic = deprecated_attribute("summary_name", "statistic")

    @property
    def asl(self) -> np.ndarray:
        """Per-pair ASLs (upper-triangle order)."""
        return self.table["asl"].to_numpy()

    @property
    def asl_curve(self) -> np.ndarray:
        """ASLs sorted ascending (the curves of Figs. 7-8)."""
        return np.sort(self.asl)

    def to_frame(self) -> pd.DataFrame:
        """The per-pair table (a copy)."""
        return self.table.copy()

    def to_dict(self) -> dict:
        """Plain-dict summary (JSON-able; the keys of the pipeline's summary.json, where
        ``statistic`` is the summary name)."""
        return {
            "test": self.test,
            "statistic": self.summary_name,
            "alpha": self.alpha,
            "k": self.k,
            "n_resamples": self.n_resamples,
            "n_pairs": self.n_pairs,
            "n_significant": self.n_significant,
            "proportion": self.proportion,
            "estimated_difference": self.estimated_difference,
        }


def _paired_all_pairs(X, pa, pb, idx, k):
    """Paired test of every pair on one in-memory B x n sample matrix (kept as the reference
    of the streamed :func:`_paired_all_pairs_stream`)."""
    CT = np.ascontiguousarray(_k.counts_matrix(idx, X.shape[0]).T)
    t, asl, crit, contrib, degen = _k.paired_all_pairs(np.ascontiguousarray(X), pa, pb, CT, k, _REL_TOL, _ZERO_VAR_TOL)
    contrib[degen] = np.nan
    return t, asl, crit, contrib


def _paired_all_pairs_stream(X, pa, pb, B, batches, k):
    """The same results as :func:`_paired_all_pairs`, with the topic samples streamed in
    batches: memory O(pairs x k) for the k = B alpha largest |t*| per pair (needed for the
    critical value and the required difference), not O(B x n).

    Small analyses whose kernel is not compiled yet run :func:`_paired_stream_numpy` instead
    (the same operations in the same order, vectorised over pairs: the same bits, no compile)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    P = pa.size
    work = 4.0 * P * n * B
    kernel = _k.paired_pairs_batch
    mode = _jit._mode()
    if mode == "interpreted" or (
        mode == "auto"
        and P * B <= _NUMPY_PAIRED_MAX_ELEMENTS
        and work <= _jit.INTERPRET_BUDGET * 1000
        and not _jit.available(_jit.serial(kernel))
        and not _jit.available(kernel)
    ):
        return _paired_stream_numpy(X, pa, pb, B, batches, k)
    t = np.empty(P)
    degen = np.zeros(P, dtype=bool)
    empty = np.zeros((n, 0))
    one = pick(_k.paired_one, 4 * n * P)
    for p in range(P):
        tt, _, _, const = one(np.ascontiguousarray(X[:, pa[p]] - X[:, pb[p]]), empty, _ZERO_VAR_TOL)
        t[p] = tt
        degen[p] = const
    thr = np.abs(t) * (1.0 - _REL_TOL)
    cap = k + min(B, max(k // 4, 1024))
    count = np.zeros(P, dtype=np.int64)
    vals = np.empty((P, cap))
    idxs = np.empty((P, cap), dtype=np.int64)
    wbs = np.empty((P, cap))
    fill = np.zeros(P, dtype=np.int64)
    kth = np.full(P, -1.0)
    batch_kernel = pick(kernel, work)
    for lo, idx in batches:
        CT = np.ascontiguousarray(pick(_k.counts_matrix, idx.size)(idx, n).T)
        batch_kernel(X, pa, pb, CT, lo, thr, count, vals, idxs, wbs, fill, kth, k, _ZERO_VAR_TOL)
    crit = np.empty(P)
    contrib = np.empty(P)
    prune = pick(_k._prune_top, P * cap * 8)
    for p in range(P):
        f = prune(vals[p], idxs[p], wbs[p], fill[p], k)
        crit[p] = vals[p, f - 1]
        contrib[p] = abs(wbs[p, f - 1])
    contrib[degen] = np.nan
    return t, count / B, crit, contrib


#: the numpy paired test keeps B x P values (|t*| and wbar) in memory: at most this many
_NUMPY_PAIRED_MAX_ELEMENTS = 4_000_000


def _paired_one_numpy(Z, zero_tol):
    """:func:`agreekit.ireval._kernels.paired_one` for every column of Z (n x P) at once,
    without the replicates: (t, w, w2, const), sums over topics in topic order."""
    n, P = Z.shape
    s = np.zeros(P)
    sq = np.zeros(P)
    for i in range(n):
        s += Z[i]
        sq += Z[i] * Z[i]
    zbar = s / n
    dev = np.zeros(P)
    for i in range(n):
        d = Z[i] - zbar
        dev += d * d
    const = dev / (n - 1) <= zero_tol * (sq / n)
    W = np.where(const[None, :], 0.0, Z - zbar[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = np.sqrt(dev / (n - 1))
        t = zbar / (sd / np.sqrt(n))
    t = np.where(const, np.where(sq == 0.0, 0.0, np.where(zbar > 0, np.inf, -np.inf)), t)
    return t, W, W * W, const


def _replicate_sums_numpy(C, W, W2):
    """(C @ W, C @ W2) summed as :func:`agreekit.ireval._kernels._replicate_sums` sums: the
    topics added one after the other (C: B x n counts, W, W2: n x P)."""
    Bb, n = C.shape
    s1 = np.zeros((Bb, W.shape[1]))
    s2 = np.zeros((Bb, W.shape[1]))
    for i in range(n):
        c = C[:, i, None]
        s1 += c * W[i]
        s2 += c * W2[i]
    return s1, s2


def _paired_stream_numpy(X, pa, pb, B, batches, k):
    """:func:`_paired_all_pairs_stream` in numpy, for small analyses (B x P within
    :data:`_NUMPY_PAIRED_MAX_ELEMENTS`): the kernels' operations in the kernels' order,
    vectorised over pairs and replicates, so the results are the same bits."""
    n = X.shape[0]
    P = pa.size
    Z = X[:, pa] - X[:, pb]
    t, W, W2, degen = _paired_one_numpy(Z, _ZERO_VAR_TOL)
    thr = np.abs(t) * (1.0 - _REL_TOL)
    absT = np.empty((B, P))
    wbar = np.empty((B, P))
    for lo, idx in batches:
        Bb = idx.shape[0]
        C = np.zeros((Bb, n))
        np.add.at(C, (np.repeat(np.arange(Bb), idx.shape[1]), idx.ravel()), 1.0)
        s1, s2 = _replicate_sums_numpy(C, W, W2)
        mean = s1 / n
        var = (s2 - s1 * mean) / (n - 1)
        var[var < 0.0] = 0.0
        flat = var <= _ZERO_VAR_TOL * (s2 / n)
        with np.errstate(divide="ignore", invalid="ignore"):
            ts = mean / np.sqrt(var / n)
        edge = np.where(s2 == 0.0, 0.0, np.where(mean > 0, np.inf, np.where(mean < 0, -np.inf, 0.0)))
        absT[lo : lo + Bb] = np.abs(np.where(flat, edge, ts))
        wbar[lo : lo + Bb] = mean
    count = (absT >= thr[None, :]).sum(axis=0)
    # the k-th largest |t*| in a stable descending order (ties: the earlier replicate first)
    order = np.argsort(-absT, axis=0, kind="stable")
    kth = order[k - 1]
    cols = np.arange(P)
    crit = absT[kth, cols]
    contrib = np.abs(wbar[kth, cols])
    contrib[degen] = np.nan
    return t, count / B, crit, contrib


def _unpaired_all_pairs(X, pa, pb, idx2, k, batch, statistic, offset):
    """Unpaired test for all pairs; idx2 is B x 2n over the pooled (x_a, x_b)."""
    n = X.shape[0]
    P = pa.size
    if callable(statistic):
        fn = statistic
        obs = _apply_statistic(fn, X.T)
        dhat = obs[pa] - obs[pb]
        small = max(1, batch // max(1, 2 * n))
        crit = np.empty(P)
        asl = np.empty(P)
        for lo in range(0, P, small):
            sl = slice(lo, min(P, lo + small))
            V = np.concatenate([X[:, pa[sl]], X[:, pb[sl]]], axis=0)  # 2n x p
            S = V[idx2]  # B x 2n x p
            S = np.moveaxis(S, 2, 1)  # B x p x 2n
            d = _apply_statistic(fn, S[:, :, :n]) - _apply_statistic(fn, S[:, :, n:])
            if not np.all(np.isfinite(d)):
                raise InputError("summary", "returned NaN or infinite values")
            ad = np.abs(d)
            asl[sl] = _asl(np.abs(dhat[sl]), ad)
            crit[sl] = _kth_largest(ad, k)[0]
        return dhat, asl, crit
    # mean / gmean: the pooled sums decompose into per-system sums
    V = X if statistic == "mean" else log_values(X, offset, "scores")
    Z0 = np.zeros_like(V)
    top = np.ascontiguousarray(np.vstack([V, Z0]))  # pooled index < n  -> system a
    bot = np.ascontiguousarray(np.vstack([Z0, V]))  # pooled index >= n -> system b
    F, S = np.ascontiguousarray(idx2[:, :n]), np.ascontiguousarray(idx2[:, n:])
    sums = [np.ascontiguousarray(_k.gather_sum(I, M).T) for I in (F, S) for M in (top, bot)]
    obs = V.mean(axis=0)
    if statistic == "gmean":
        obs = np.exp(obs) - offset
    dhat = obs[pa] - obs[pb]
    asl, crit = _k.unpaired_all_pairs(
        sums[0],
        sums[1],
        sums[2],
        sums[3],
        pa,
        pb,
        float(n),
        float(n),
        np.ascontiguousarray(dhat),
        statistic == "gmean",
        k,
        _REL_TOL,
    )
    return dhat, asl, crit


@renamed_parameters(statistic="summary")
def discriminative_power(
    scores: Any,
    *,
    alpha: float = 0.05,
    test: str = "paired",
    n_resamples: int = 1000,
    rng: Any = None,
    resamples: Any = None,
    summary: str | Callable = "mean",
    offset: float = GM_OFFSET,
    batch_size: int | None = None,
    progress: bool | None = None,
) -> DiscriminativePowerResult:
    """Bootstrap test over all system pairs: discriminative power and required difference.

    Parameters
    ----------
    scores : DataFrame or array_like, shape (n topics, s systems)
        Per-topic values of one metric (see :func:`agreekit.ireval.metrics.load_scores`).
    alpha : float, default 0.05
        Significance level; a pair is significant iff Sakai's ASL = b / B < alpha
        (Sakai's (2006) count, not the (b + 1) / (B + 1) p-value).  k = B alpha
        (Figs. 5-6) is rounded down with a warning when it is not an integer.
    test : {"paired", "unpaired"}
    n_resamples, rng, resamples
        As in :func:`paired_test`; the same topic samples serve every pair.
        For the unpaired test ``resamples`` has shape (B, 2n).
    summary : {"mean", "gmean"} or callable
        Summary statistic (formerly ``statistic=``); ``"gmean"`` with the paired test is
        the AG variant; callables only with the unpaired test.
    offset : float, default 1e-5
        Geometric-mean offset (Sakai Eq. 7).
    batch_size : int, optional
        Only for a callable statistic of the unpaired test, which needs the
        resampled values themselves: pairs per batch (memory about
        B * batch_size doubles; default about 32 MB).  "mean" and "gmean" run in
        compiled kernels with memory O(B) per pair and per thread.
    progress : bool, optional
        A progress bar over the batches of topic samples of the paired test on stderr
        (default: only when stderr is a terminal and there is more than one batch).

    Returns
    -------
    DiscriminativePowerResult
        The per-pair table (statistic, ASL, critical value, required difference), the number and
        share of pairs with ASL < alpha and the estimated difference required for it.

    References
    ----------
    T. Sakai, "Evaluating evaluation metrics based on the bootstrap", SIGIR 2006, pp. 525-532
    (Section 4: discriminative power, Figs. 5-8, Table 2). :doi:`10.1145/1148170.1148261`

    Examples
    --------
    Six systems 0.1 apart on 30 topics with per-topic noise: how many of the 15 pairs the
    paired test tells apart, and the estimated difference that ASL < 0.05 requires (Table 2):

    >>> import numpy as np
    >>> from agreekit.ireval.bootstrap import discriminative_power, format_difference
    >>> gen = np.random.default_rng(0)
    >>> X = gen.uniform(size=(30, 1)) + np.linspace(0, 0.5, 6) + gen.normal(0, .1, (30, 6))
    >>> res = discriminative_power(X, rng=1)
    >>> f"{res.n_significant}/{res.n_pairs}", format_difference(res.estimated_difference)
    ('15/15', '0.07')
    """
    df = check_scores(scores)
    X = df.to_numpy()
    n, s = X.shape
    test = check_choice("test", test, ("paired", "unpaired"))
    stat = summary_name(summary, allow_callable=(test == "unpaired"))
    offset = check_float("offset", offset, minimum=0.0)
    progress = check_flag("progress", progress, allow_none=True)
    if batch_size is not None:
        batch_size = check_int("batch_size", batch_size, minimum=1)
    pa, pb = _pairs(s)
    P = pa.size
    if test == "paired":
        # streamed: the topic samples are drawn (or read) in batches; what stays in memory is
        # the k = B alpha largest |t*| of every pair, with their replicate index and wbar
        B, batches = resample_batches(resamples, n, n_resamples, rng)
        step = max(1, STREAM_BATCH_ELEMENTS // n)
        batches = _progress(batches, progress, total=-(-B // step), desc="bootstrap: resamples")
        k = critical_rank(B, alpha)
        cap = k + min(B, max(k // 4, 1024))
        check_memory(
            "n_resamples",
            24.0 * P * cap + 16.0 * min(B, STREAM_BATCH_ELEMENTS // n + 1) * n,
            f"the {k} = n_resamples * alpha largest bootstrap statistics of each of the {P} system pairs (B = {B})",
            hint="use fewer resamples, a smaller alpha or fewer systems",
        )
        Xs = log_values(X, offset, "scores") if stat == "gmean" else X
        t, asl, crit, contrib = _paired_all_pairs_stream(Xs, pa, pb, B, batches, k)
        diff = Xs.mean(axis=0)[pa] - Xs.mean(axis=0)[pb]
    else:
        idx = topic_resamples(
            resamples,
            2 * n,
            n_resamples,
            rng,
            stream=STREAM_POOLED,
            bytes_per_resample=8.0 * (4 * s + 2 * n + 8),
            what="pooled indices and per-system sums of the unpaired test",
        )
        B = idx.shape[0]
        k = critical_rank(B, alpha)
    batch = _batch(B, batch_size)
    if test != "paired":
        t, asl, crit = _unpaired_all_pairs(X, pa, pb, idx, k, batch, stat, offset)
        diff = t
        contrib = crit.copy()
    sig = asl < alpha
    table = pd.DataFrame(
        {
            "system_a": df.columns[pa].astype(str),
            "system_b": df.columns[pb].astype(str),
            "difference": diff,
            "statistic": t,
            "asl": asl,
            "significant": sig,
            "critical_value": crit,
            "required_difference": contrib,
        }
    )
    est = float(np.nanmax(contrib)) if np.any(np.isfinite(contrib)) else float("nan")
    return DiscriminativePowerResult(
        n_pairs=int(pa.size),
        n_significant=int(sig.sum()),
        proportion=float(sig.mean()),
        estimated_difference=est,
        alpha=float(alpha),
        k=k,
        test=test,
        summary_name=stat if isinstance(stat, str) else getattr(stat, "__name__", "callable"),
        n_resamples=B,
        table=table,
    )
