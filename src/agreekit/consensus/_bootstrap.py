"""How sure is a consensus: the judge bootstrap of the Kemeny consensus."""

from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass, field

import numpy as np

from agreekit._api import ResultBase, check_rng, fieldwise_eq
from agreekit._memory import check_memory
from agreekit._validation import check_choice, check_float, check_int
from agreekit.consensus._kemeny import TimeLimitWarning, kemeny
from agreekit.consensus._matrices import RankingData, as_rankings, ordering_string

__all__ = ["bootstrap_consensus", "ConsensusBootstrap"]

#: Above this many (judges × items²) the per-judge τ_x of the full-data optima is computed in chunks.
_CHUNK_ELEMENTS = 1 << 22


@dataclass(frozen=True)
class ConsensusBootstrap(ResultBase):
    """Result of :func:`bootstrap_consensus`.

    Parameters
    ----------
    support : float
        Fraction of the resamples in which an optimum of the full data is optimal (a consensus
        of the full data that the resampled judges would still choose).
    consensus : numpy.ndarray, shape (k, n)
        The optima of the full data (the ``solutions`` of :func:`kemeny`), dense ranks.
    labels : tuple of str
        Item labels.
    precedence : numpy.ndarray, shape (n, n)
        ``precedence[i, j]``: the fraction of resamples whose consensus puts item i strictly
        before item j (a resample with several optima counts each with weight 1/k).
        ``precedence[i, j] + precedence[j, i]`` is 1 minus the fraction that ties them.
    positions : numpy.ndarray, shape (n_resamples, n)
        Each resample's position of each item in its consensus (1 = top; tied items share the
        mean of their positions; averaged over the resample's optima).
    orderings : dict
        ``{ordering: frequency}`` of every consensus found, as ``"a (b c) d"`` strings, most
        frequent first: the fraction of resamples in which it is optimal.
    n_resamples : int
        B.
    method : str
        What :func:`kemeny` ran on the full data (``"exact"``, ``"fast"``, ``"quick"``).
    proven : bool
        True when the full-data consensus and every resample's consensus are proven optimal
        (otherwise "optimal" reads "the best the heuristic found").
    message : str
        The full-data solver's message.
    seconds : float
        Wall-clock seconds (not part of ``==``).

    Examples
    --------
    >>> from agreekit.consensus import bootstrap_consensus
    >>> res = bootstrap_consensus([[1, 2, 3], [1, 2, 3], [1, 2, 3]], n_resamples=20, rng=0)
    >>> res.support, float(res.precedence[0, 1])      # unanimous judges: the consensus in every resample
    (1.0, 1.0)
    """

    support: float
    consensus: np.ndarray
    labels: tuple
    precedence: np.ndarray = field(repr=False)
    positions: np.ndarray = field(repr=False)
    orderings: dict = field(repr=False)
    n_resamples: int = 0
    method: str = ""
    proven: bool = False
    message: str = ""
    seconds: float = field(default=0.0, compare=False)

    __eq__ = fieldwise_eq
    __hash__ = None

    def position_interval(self, confidence_level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Percentile interval of each item's consensus position over the resamples.

        Parameters
        ----------
        confidence_level : float, default 0.95
            Central coverage: the ``(1 − level)/2`` and ``(1 + level)/2`` quantiles.

        Returns
        -------
        (low, high) : tuple of numpy.ndarray, shape (n,)
        """
        level = check_float("confidence_level", confidence_level, minimum=0.0, maximum=1.0, inclusive=False)
        a = (1.0 - level) / 2.0
        low, high = np.quantile(self.positions, [a, 1.0 - a], axis=0, method="inverted_cdf")
        return low, high

    def to_frame(self, confidence_level: float = 0.95):
        """One row per item, in the order of the first full-data consensus: ``item``, its
        ``consensus_rank``, ``mean_position`` over the resamples, ``position_low`` /
        ``position_high`` (the percentile interval) and ``p_first`` (the fraction of resamples
        in which it is ranked first, ties shared)."""
        import pandas as pd

        low, high = self.position_interval(confidence_level)
        first = self.consensus[0]
        order = np.lexsort((np.arange(first.size), first))
        top = np.mean(self.positions <= 1.0 + 1e-12, axis=0)
        return pd.DataFrame(
            {
                "item": np.asarray(self.labels, dtype=object)[order],
                "consensus_rank": first[order],
                "mean_position": self.positions.mean(axis=0)[order],
                "position_low": low[order],
                "position_high": high[order],
                "p_first": top[order],
            }
        )

    def to_dict(self) -> dict:
        """JSON-ready: the scalars, the full-data orderings, the distinct resampled orderings with
        their frequencies, the precedence matrix ``{i: {j: P(i before j)}}`` and the 95 % position
        intervals."""
        low, high = self.position_interval()
        labs = list(self.labels)
        return {
            "support": self.support,
            "n_resamples": self.n_resamples,
            "method": self.method,
            "proven": self.proven,
            "message": self.message,
            "seconds": self.seconds,
            "items": labs,
            "consensus": [ordering_string(s, self.labels) for s in self.consensus],
            "orderings": {k: float(v) for k, v in self.orderings.items()},
            "precedence": {
                a: {b: float(self.precedence[i, j]) for j, b in enumerate(labs)} for i, a in enumerate(labs)
            },
            "position_interval": {a: [float(low[i]), float(high[i])] for i, a in enumerate(labs)},
        }


def _ordering(ranks: np.ndarray, labels) -> str:
    """:func:`ordering_string` (best first, ties in parentheses in label order) in one pass."""
    order = np.lexsort((np.arange(ranks.size), ranks)).tolist()
    r = ranks.tolist()
    parts, i = [], 0
    while i < len(order):
        j = i + 1
        while j < len(order) and r[order[j]] == r[order[i]]:
            j += 1
        group = [labels[t] for t in order[i:j]]
        parts.append(group[0] if len(group) == 1 else "(" + " ".join(group) + ")")
        i = j
    return " ".join(parts)


def _positions(sol: np.ndarray) -> np.ndarray:
    """Mean position (1-based) of each item in a weak order: items ahead + (ties + 1)/2."""
    ahead = (sol[None, :] < sol[:, None]).sum(axis=1)
    tied = (sol[None, :] == sol[:, None]).sum(axis=1)
    return ahead + (tied + 1) / 2.0


def _judge_agreement(X: np.ndarray, sols: np.ndarray) -> np.ndarray:
    """``a[s, k] = Σ_ij A^(k)_ij s_ij``: each judge's unnormalised τ_x with each solution (k × n).

    The objective of solution s under row weights w is ``w @ a[s]``, so a resample's value of
    the full-data optima costs O(judges) instead of a new combined input matrix."""
    n, m = X.shape
    out = np.empty((sols.shape[0], n))
    chunk = max(1, _CHUNK_ELEMENTS // (m * m))
    for si, s in enumerate(sols):
        S = np.where(s[:, None] <= s[None, :], 1.0, -1.0)
        np.fill_diagonal(S, 0.0)
        for a in range(0, n, chunk):
            Xc = X[a : a + chunk]
            A = np.where(Xc[:, :, None] <= Xc[:, None, :], 1.0, -1.0)
            nan = np.isnan(Xc)
            A[nan[:, :, None] | nan[:, None, :]] = 0.0
            out[si, a : a + chunk] = np.einsum("kij,ij->k", A, S)
    return out


def _progress(total: int):
    if not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc="bootstrap_consensus", unit="resample", file=sys.stderr, leave=False)


def bootstrap_consensus(
    rankings, *, n_resamples: int = 200, rng=None, method: str = "auto", weights=None
) -> ConsensusBootstrap:
    """How sure is the Kemeny consensus: the judges resampled with replacement.

    The consensus (:func:`kemeny`) of the full data is compared with the consensus of
    ``n_resamples`` bootstrap samples of the judges (rows).  A resample is a vector of
    multinomial counts on the rows used as :func:`kemeny`'s row ``weights`` (the rankings are
    never copied).  Ranks are 1 = best, ties share a value, NaN = unranked.

    Parameters
    ----------
    rankings : array_like, pandas.DataFrame or RankingData, shape (m, n)
        Judges × items rank positions (see :func:`as_rankings`); a DataFrame's columns or a
        :func:`read_rankings` result give the labels.
    n_resamples : int, default 200
        Number of bootstrap resamples B.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Randomness of the resamples and of FAST's starts (scipy's SPEC 7); the same ``rng``
        gives the same result.
    method : {"auto", "quick", "fast", "exact"}
        The solver of every consensus (:func:`kemeny`'s ``method``).  ``"quick"`` for large
        profiles (Θ(n²) per resample); with ``"auto"`` a profile whose blocks are large tries a
        proof of up to ``AUTO_EXACT_BUDGET`` seconds per resample.
    weights : array_like, shape (m,), optional
        Row weights.  Integer weights are frequencies of identical rankings: the bootstrap then
        draws ``Σ w`` judges among the rows with probabilities ``w / Σ w`` (the same as
        resampling the individual judges).  Non-integer weights are importance weights: the m
        rows are drawn uniformly and each count is multiplied by its row's weight.

    Returns
    -------
    ConsensusBootstrap
        ``support``, ``precedence``, ``positions`` with ``position_interval()``,
        the distinct consensus ``orderings`` with their frequencies, ``to_frame()``, ``to_dict()``.

    Notes
    -----
    ``support`` is the fraction of resamples b for which some optimum o of the full data reaches
    the resample's optimal value, ``Σ_k w_bk τ_x(judge k, o) ≥ max_s Σ_k w_bk τ_x(judge k, s)``
    (to 1e-9 relative): not only "the resample returned the same ranking", so a resample
    with several optima counts when the full-data consensus is among them.  It is a bootstrap
    estimate of how reproducible the consensus is under a new sample of judges (Efron &
    Tibshirani 1993, ch. 6; for clusterings in phylogenetics, Felsenstein 1985), not a
    probability that the consensus is "true".  Unanimous judges give support 1 and a 0/1
    ``precedence``.  With a heuristic ``method`` (or a time limit) "optimal" means the best
    ranking the heuristic found; ``proven`` says whether every solve was proven.  A progress bar
    is shown on stderr (tqdm) when stderr is a terminal.

    References
    ----------
    .. [1] Efron, B., Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
       :doi:`10.1201/9780429246593`
    .. [2] Felsenstein, J. (1985). Confidence limits on phylogenies: an approach using the
       bootstrap. Evolution 39(4), 783–791. :doi:`10.1111/j.1558-5646.1985.tb00420.x`
    .. [3] Amodio, S., D'Ambrosio, A., Siciliano, R. (2016). Accurate algorithms for
       identifying the median ranking when dealing with weak and partial rankings under the
       Kemeny axiomatic approach. EJOR 249(2), 667–676. :doi:`10.1016/j.ejor.2015.08.048`

    Examples
    --------
    >>> from agreekit.consensus import bootstrap_consensus
    >>> import pandas as pd
    >>> X = pd.DataFrame([[1, 2, 3, 4], [1, 2, 3, 4], [2, 1, 3, 4], [1, 2, 4, 3], [1, 3, 2, 4]],
    ...                  columns=list("abcd"))
    >>> res = bootstrap_consensus(X, n_resamples=100, rng=0)
    >>> res.support, res.orderings
    (0.83, {'a b c d': 0.83, 'a c b d': 0.06, 'b a c d': 0.06, 'a b d c': 0.05})
    >>> res.to_frame()[["item", "consensus_rank", "position_low", "position_high"]]
      item  consensus_rank  position_low  position_high
    0    a               1           1.0            2.0
    1    b               2           1.0            3.0
    2    c               3           2.0            4.0
    3    d               4           3.0            4.0
    """
    import time

    t0 = time.perf_counter()
    B = check_int("n_resamples", n_resamples, minimum=1)
    method = check_choice("method", method, ("auto", "quick", "fast", "exact"))
    gen = check_rng(rng)
    data = as_rankings(rankings, weights=weights)
    X, w0, labels = data.X, data.weights, data.labels
    n_rows, n_items = X.shape
    check_memory(
        "n_resamples",
        8.0 * B * (n_rows + n_items),
        f"the resampled weights and consensus positions of {B} bootstrap resamples",
        hint="use fewer resamples",
    )

    full = kemeny(data, method=method, rng=gen, progress=False)
    opt = np.asarray(full.solutions)
    agree = _judge_agreement(X, opt)  # (k, judges)

    frequency = bool(np.all(w0 == np.floor(w0))) and float(w0.sum()) < 2**53
    if frequency:
        total = int(w0.sum())
        counts = gen.multinomial(total, w0 / w0.sum(), size=B).astype(np.float64)
    else:
        counts = gen.multinomial(n_rows, np.full(n_rows, 1.0 / n_rows), size=B) * w0

    precedence = np.zeros((n_items, n_items))
    positions = np.empty((B, n_items))
    found: dict[bytes, float] = {}
    hits = 0
    proven = bool(full.proven)
    norm = n_items * (n_items - 1)
    bar = _progress(B)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TimeLimitWarning)
            for b in range(B):
                wb = counts[b]
                res = kemeny(RankingData(X=X, weights=wb, labels=labels), method=method, rng=gen, progress=False)
                proven &= bool(res.proven)
                sols = np.asarray(res.solutions, dtype=np.int64)
                k = sols.shape[0]
                # the resample's optimum value and the full-data optima's, on one scale
                Wb = float(wb.sum())
                best = res.average_tau_x
                ours = (agree @ wb) / (Wb * norm)
                if np.any(ours >= best - 1e-9 * max(abs(best), 1.0)):
                    hits += 1
                if k == 1:
                    s = sols[0]
                    precedence += s[:, None] < s[None, :]
                    positions[b] = _positions(s)
                else:
                    precedence += (sols[:, :, None] < sols[:, None, :]).mean(axis=0)
                    positions[b] = np.mean([_positions(s) for s in sols], axis=0)
                for s in sols:
                    key = s.tobytes()
                    found[key] = found.get(key, 0.0) + 1.0
                if bar is not None:
                    bar.update()
    finally:
        if bar is not None:
            bar.close()
    named = {_ordering(np.frombuffer(key, dtype=np.int64), labels): v for key, v in found.items()}
    orderings = {key: v / B for key, v in sorted(named.items(), key=lambda kv: (-kv[1], kv[0]))}
    return ConsensusBootstrap(
        support=hits / B,
        consensus=opt,
        labels=labels,
        precedence=precedence / B,
        positions=positions,
        orderings=orderings,
        n_resamples=B,
        method=str(full.method),
        proven=proven,
        message=str(full.message),
        seconds=time.perf_counter() - t0,
    )
