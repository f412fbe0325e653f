"""The :func:`kemeny` front end and its :class:`KemenyResult`."""

from __future__ import annotations

import functools
import itertools
import math
import sys
import time
import warnings
from dataclasses import dataclass, field, fields, replace

import numpy as np

from agreekit._api import ResultBase, check_rng, deprecated_attribute, renamed_parameters
from agreekit._memory import check_memory, format_bytes
from agreekit._validation import InputError, check_choice, check_float, check_int
from agreekit.consensus import _exact, _heuristics
from agreekit.consensus._matrices import (
    _cim_and_transpose,
    _in_user_scale,
    _penalty_of,
    as_rankings,
    dense_ranks,
    ordering_string,
)
from agreekit._jit import INTERPRET_BUDGET, compile_notice, forced

__all__ = [
    "kemeny",
    "KemenyResult",
    "TimeLimitWarning",
    "AUTO_EXACT_MAX_BLOCK",
    "AUTO_EXACT_BUDGET",
    "AUTO_EXACT_TRY_MAX_BLOCK",
    "AUTO_FAST_MAX_ITEMS",
    "BB_MAX_BLOCK",
]

#: ``method="auto"`` solves exactly when the largest block (see :func:`components`) has at
#: most this many items; up to ``AUTO_EXACT_TRY_MAX_BLOCK`` items it tries the exact solver
#: for ``AUTO_EXACT_BUDGET`` seconds (or half of ``time_limit`` if smaller) and falls back to
#: FAST when the proof does not finish; larger blocks go straight to FAST (m ≤
#: ``AUTO_FAST_MAX_ITEMS`` items, Θ(n_starts · m²) time) or QUICK (Θ(m²) time).  No size
#: makes ``auto`` allocate more than O(m²) memory.
AUTO_EXACT_MAX_BLOCK = 16
AUTO_EXACT_BUDGET = 10.0
AUTO_EXACT_TRY_MAX_BLOCK = 100
AUTO_FAST_MAX_ITEMS = 2000
#: ``solver="auto"`` uses the Emond–Mason branch and bound for blocks up to this size and
#: the HiGHS MIP above.
BB_MAX_BLOCK = 20
DEFAULT_STARTS = 100
#: bounds of the counts (beyond them a count is a typo, and numba's int64 overflows)
MAX_STARTS = 2**62
MAX_SOLUTIONS = 10**7
#: FAST work (starts x items**2 pair visits) above which a call without ``time_limit`` warns before it starts
LONG_FAST_WORK = 2e11


class TimeLimitWarning(UserWarning):
    """A solver stopped at ``time_limit``: the result is the best found, not proven optimal.

    :func:`kemeny` issues it once per call; the result's ``message`` says where the search
    stopped.  Turn it into an error with ``warnings.simplefilter("error", TimeLimitWarning)``.

    Examples
    --------
    >>> import warnings
    >>> from agreekit.consensus import TimeLimitWarning, kemeny
    >>> X = [[1, 2, 3], [2, 3, 1], [3, 1, 2]]  # a Condorcet cycle
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     res = kemeny(X, method="exact", time_limit=1e-9)  # no time for the proof
    >>> [w.category.__name__ for w in caught], res.proven
    (['TimeLimitWarning'], False)
    >>> res.message
    'time limit reached: best found, not proven optimal'
    """


@dataclass(frozen=True)
class KemenyResult(ResultBase):
    """Result of :func:`kemeny`.

    The attribute names are those of :class:`agreekit.metaeval.ConsensusRanking` for the same
    facts (``proven``, ``seconds``, ``n_optima``, ``average_tau_x``); the former names
    ``optimal``, ``elapsed``, ``n_solutions`` and ``tau_x`` are deprecated aliases.

    Parameters
    ----------
    solutions : ndarray, shape (k, m)
        Every consensus found, as dense rank vectors (1 = best, ties share a value),
        rows sorted lexicographically.  For ``method="exact"`` with ``exhaustive`` True
        these are *all* the optimal rankings.
    labels : tuple of str
        Item labels (columns of ``solutions``).
    average_tau_x : float
        Average τ_x of the solutions with the input rankings, ``Σ c_ij s_ij / (W m(m−1))``.
    penalty : float
        ``Σ|c_ij| − Σ c_ij s_ij`` of the solutions, in the scale of the weights given
        (weights ``[2, 2, 2]`` give twice the penalty of ``[1, 1, 1]``, the same solutions and
        ``average_tau_x``); :func:`kemeny` raises :class:`~agreekit.InputError`
        naming ``weights`` when it exceeds float64's range.
    method : str
        What was run: ``"quick"``, ``"fast"`` or ``"exact"``.
    proven : bool
        True only when optimality of ``average_tau_x`` is proven.
    exhaustive : bool
        True when ``solutions`` is proven to be the complete set of optima.
    solver : str
        Exact solver(s) used per block (``"bb"``, ``"mip"``), or the heuristic.
    blocks : tuple of int
        Sizes of the blocks the exact solver decomposed the items into.
    message : str
        What ``method="auto"`` decided, limits hit, trivial cases.
    total_weight : float
        ``Σ w_k`` in the scale of the weights (``inf`` when the sum exceeds float64's range;
        ``average_tau_x`` is computed from rescaled weights and does not depend on it).
        Not shown in the repr.
    seconds : float
        Wall-clock seconds (not part of ``==``).

    Attributes
    ----------
    n_optima : int
        Number of rankings in ``solutions`` (all optima when ``exhaustive``).
    orderings : list of str
        The solutions as orderings, best first, ties in parentheses.

    Examples
    --------
    >>> from agreekit.consensus import kemeny
    >>> X = [[1, 2, 3], [2, 3, 1], [3, 1, 2]]  # a Condorcet cycle: three optima
    >>> res = kemeny(X, labels=list("abc"), method="exact")
    >>> res.orderings, round(res.average_tau_x, 6), res.penalty, res.proven, res.exhaustive
    (['a b c', 'c a b', 'b c a'], 0.111111, 4.0, True, True)
    >>> res.solutions.tolist()
    [[1, 2, 3], [2, 3, 1], [3, 1, 2]]

    Only the ratios of the weights matter; the penalty is in their scale:

    >>> small = kemeny(X, weights=[1e-300] * 3, labels=list("abc"), method="exact")
    >>> small.orderings == res.orderings, round(small.average_tau_x, 6), small.penalty
    (True, 0.111111, 4e-300)
    """

    solutions: np.ndarray
    labels: tuple
    average_tau_x: float
    penalty: float
    method: str
    proven: bool
    exhaustive: bool = False
    solver: str = ""
    blocks: tuple = ()
    message: str = ""
    total_weight: float = field(default=float("nan"), repr=False)
    seconds: float = field(default=0.0, compare=False)

    def __eq__(self, other):
        """Field-wise equality (``solutions`` by value; ``seconds`` is not compared)."""
        if type(other) is not type(self):
            return NotImplemented
        return all(_same(getattr(self, f.name), getattr(other, f.name)) for f in fields(self) if f.compare)

    __hash__ = None

    optimal = deprecated_attribute("proven", "optimal")
    elapsed = deprecated_attribute("seconds", "elapsed")
    n_solutions = deprecated_attribute("n_optima", "n_solutions")
    tau_x = deprecated_attribute("average_tau_x", "tau_x")

    @property
    def n_optima(self) -> int:
        """Number of rankings in :attr:`solutions` (all optima when ``exhaustive``)."""
        return int(self.solutions.shape[0])

    @property
    def orderings(self) -> list[str]:
        """Solutions as orderings, best first, ties in parentheses: ``"D J (E K) A …"``."""
        return [ordering_string(s, self.labels) for s in self.solutions]

    def to_frame(self):
        """Solutions as a pandas DataFrame (one row per solution, one column per item)."""
        import pandas as pd

        return pd.DataFrame(self.solutions, columns=list(self.labels))

    def rank_dicts(self) -> list[dict]:
        """Solutions as ``{label: rank}`` dictionaries."""
        return [{lab: int(r) for lab, r in zip(self.labels, s)} for s in self.solutions]

    def to_dict(self) -> dict:
        """A JSON-able summary (what the CLI prints), with the attribute names as keys."""
        return {
            "items": list(self.labels),
            "method": self.method,
            "solver": self.solver,
            "n_optima": self.n_optima,
            "solutions": self.rank_dicts(),
            "orderings": self.orderings,
            "average_tau_x": self.average_tau_x,
            "penalty": self.penalty,
            "proven": self.proven,
            "exhaustive": self.exhaustive,
            "blocks": list(self.blocks),
            "seconds": self.seconds,
            "message": self.message,
        }


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.shape(a) == np.shape(b) and bool(np.array_equal(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _objective(r, C, CT=None):
    return _heuristics.score(np.asarray(r), C, CT)


def _unique_rows(rows):
    return _heuristics.unique_rows(np.asarray(rows, dtype=np.int64))


def _progress_bar(progress, n_starts):
    """A tqdm bar on stderr for FAST's starts, or None: ``progress`` True shows it, False
    hides it, None (auto) shows it only when stderr is a terminal."""
    if (progress is not None and not progress) or (
        progress is None and not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty())
    ):
        return None
    from tqdm import tqdm

    return tqdm(total=n_starts, desc="kemeny: FAST starts", unit="start", file=sys.stderr, leave=False)


def _heuristic(C, CT, method, full, n_starts, rng, deadline, max_solutions=None, progress=False):
    """Run QUICK or FAST on C.

    Returns (distinct best candidates, best objective, finished, note): ``finished`` is
    False when the deadline stopped the search early, ``note`` says what was done.
    """
    V, _ = _heuristics.abs_sum(C)
    eps = 1e-9 * max(V, 1.0)
    if method == "quick":
        cands, scores, finished = _heuristics.quick(C, full=full, CT=CT, deadline=deadline)
        sols, top = _heuristics.best_unique(cands, scores, eps)
        note = "" if finished else f"time limit reached during QUICK ({len(cands)} of 4 passes started)"
        return sols, top, finished, note
    bar = _progress_bar(progress, n_starts)
    try:
        sols, top, n_done, capped = _heuristics.fast_stream(
            C,
            n_starts,
            rng,
            full=full,
            CT=CT,
            deadline=deadline,
            max_solutions=max_solutions,
            progress=None if bar is None else bar.update,
        )
    finally:
        if bar is not None:
            bar.close()
    finished = n_done >= n_starts
    notes = []
    if not finished:
        notes.append(f"time limit reached after {n_done} of {n_starts} FAST starts")
    if capped:
        notes.append(
            f"more than max_solutions={max_solutions} distinct best rankings found; "
            f"the first {max_solutions} are returned"
        )
    return sols, top, finished, "; ".join(notes)


def _solve_block(Cb, init, solver, full, max_solutions, remaining):
    """Solve one block; returns (solutions, objective, proven optimal, all optima, stopped, name)."""
    k = Cb.shape[0]
    if k == 1:
        return np.ones((1, 1), dtype=np.int64), 0.0, True, True, None, "trivial"
    use = solver if solver != "auto" else ("bb" if k <= BB_MAX_BLOCK else "mip")
    if use == "bb":
        sols, val, proven, complete, _ = _exact.branch_and_bound(
            Cb, init, full=full, max_solutions=max_solutions, time_limit=remaining
        )
        stopped = None if complete else ("time_limit" if not proven else "max_solutions")
        return sols, val, proven, complete, stopped, "bb"
    sols, val, optimal, complete, stopped = _exact.mip_all_optima(
        Cb, init, full=full, max_solutions=max_solutions, time_limit=remaining
    )
    if len(sols) == 0:
        sols, val = np.asarray(init)[None, :], _objective(init, Cb)
    return sols, val, optimal, complete, stopped, "mip"


@renamed_parameters(ties="allow_ties")
def kemeny(
    rankings,
    *,
    weights=None,
    method: str = "auto",
    n_starts: int | None = None,
    rng=None,
    allow_ties: bool = True,
    time_limit: float | None = None,
    labels=None,
    solver: str = "auto",
    max_solutions: int = 1000,
    progress: bool | None = None,
) -> KemenyResult:
    """Kemeny consensus (median) ranking of complete, weak or partial rankings.

    Maximises the weighted average Emond–Mason τ_x with the input rankings, i.e.
    minimises the weighted sum of Kemeny distances, over all weak orders of the items
    (all permutations with ``allow_ties=False``).

    Parameters
    ----------
    rankings : array_like or pandas.DataFrame, shape (n, m)
        Judges × items rank positions: 1 = best, ties share a value, NaN = unranked.
        Only the order of the values in a row matters.
    weights : array_like, shape (n,), optional
        Non-negative row weights (e.g. frequencies of identical rankings).
    method : {"auto", "quick", "fast", "exact"}
        ``"quick"``: QUICK (greedy insertion passes from the start vector Q, again from
        the result, from reverse Q and again; full penalty after each move).
        ``"fast"``: FAST, two QUICK passes from each of ``n_starts`` random starts
        (random permutations and random weak orders alternately), all distinct
        max-τ results.  ``"exact"``: all optimal rankings with a proof (decomposition
        into blocks, then per block the Emond–Mason branch and bound seeded with
        QUICK/FAST, or a HiGHS MIP with lazy transitivity rows; the heuristic solution
        is the fallback if a time limit stops the MIP).  ``"auto"``: exact when the largest block has at most
        ``AUTO_EXACT_MAX_BLOCK`` items; up to ``AUTO_EXACT_TRY_MAX_BLOCK`` items exact if its
        proof finishes within ``AUTO_EXACT_BUDGET`` seconds (half of ``time_limit`` if
        smaller), else FAST; larger blocks FAST (up to ``AUTO_FAST_MAX_ITEMS`` items) or
        QUICK, so that no size allocates more than O(m²); ``message`` says which.
    n_starts : int, optional
        FAST starts (default 100, at most ``2**62``).  Also used to seed the exact solver for
        large blocks.  Without ``time_limit``, a FAST run of more than ``LONG_FAST_WORK`` pair
        visits (``n_starts * m**2``) warns before it starts.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Randomness of FAST's random starts (scipy's SPEC 7: ``None`` draws fresh OS entropy,
        an int or ``SeedSequence`` seeds a new generator, a ``Generator`` is used as it is).
        The same seed gives the same result, whatever the threads.
    allow_ties : bool
        Allow ties in the consensus (weak orders, default).  False: permutations only.
        (Formerly ``ties``, a deprecated alias; ``ties`` names an input tie *policy*
        elsewhere in agreekit.)
    time_limit : float, optional
        Seconds, honoured by every method: QUICK and FAST stop inside a pass, the exact
        solvers stop their search; the best ranking found is returned with ``proven``
        False — unless the bound proves it optimal — ``message`` saying
        where it stopped, and a :class:`TimeLimitWarning`.
    labels : sequence of str, optional
        Item labels for array input (a DataFrame's columns are used otherwise).
    solver : {"auto", "bb", "mip"}
        Exact solver per block: Emond–Mason branch and bound, HiGHS MIP, or ``auto``
        (bb up to ``BB_MAX_BLOCK`` items, mip above).
    max_solutions : int
        Cap (at most ``10**7``) on the number of optimal rankings returned (``exhaustive`` False if hit);
        also caps the distinct best rankings FAST keeps, so that its memory does not
        grow with ``n_starts``.
    progress : bool, optional
        A progress bar of FAST's starts on stderr (tqdm): True shows it, False hides it,
        None (default) shows it only when stderr is a terminal.

    Returns
    -------
    KemenyResult

    Notes
    -----
    QUICK costs Θ(m²) time per pass (every insertion position is scored with running
    sums) and FAST Θ(n_starts · m²); their memory is O(m²) (the combined input matrix and
    its transpose) and FAST draws and solves its starts in batches, so ``n_starts`` does
    not change the memory.  Average τ_x is ``Σ_ij c_ij s_ij / (W · m(m−1))`` with C the combined input matrix
    and W the total weight of *all* rows (ConsRank's convention): partial rankings add 0
    for their unranked pairs, so they lower τ_x.

    References
    ----------
    .. [1] Amodio, S., D'Ambrosio, A., Siciliano, R. (2016). Accurate algorithms for
       identifying the median ranking when dealing with weak and partial rankings under
       the Kemeny axiomatic approach. EJOR 249(2), 667–676. :doi:`10.1016/j.ejor.2015.08.048`
    .. [2] Emond, E. J., Mason, D. W. (2002). A new rank correlation coefficient with
       application to the consensus ranking problem. J. Multi-Criteria Decis. Anal. 11, 17–28.
       :doi:`10.1002/mcda.313`

    Examples
    --------
    >>> import numpy as np
    >>> from agreekit.consensus import kemeny
    >>> X = np.array([[1, 2, 3, 4], [2, 1, 3, 4], [1, 2, 4, 3], [1, 1, 2, np.nan]])
    >>> res = kemeny(X, labels=list("abcd"), method="exact")
    >>> res.orderings, round(res.average_tau_x, 6), res.proven, res.n_optima
    (['(a b) c d', 'a b c d'], 0.666667, True, 2)
    >>> kemeny(X, labels=list("abcd"), method="exact", allow_ties=False).orderings
    ['a b c d']
    """
    t0 = time.perf_counter()
    opt = _kemeny_iv(method, solver, n_starts, max_solutions, time_limit, progress, allow_ties, rng)
    prob = _Problem.build(as_rankings(rankings, weights=weights, labels=labels), opt, t0)
    if prob.trivial:
        res, timed_out = prob.trivial_result(opt.method)
    else:
        method, message, res = _dispatch(prob, opt)
        if res is not None:  # method="auto" whose exact attempt proved optimality
            return res
        if method == "fast" and opt.time_limit is None and opt.n_starts * prob.m**2 > LONG_FAST_WORK:
            warnings.warn(
                f"kemeny: n_starts={opt.n_starts} FAST starts on {prob.m} items without time_limit: "
                f"about {opt.n_starts * prob.m**2:.2g} pair visits, which can take from minutes to "
                "years; set time_limit (the best ranking found by then is returned) or fewer n_starts",
                UserWarning,
                stacklevel=3,
            )
        if method in ("quick", "fast"):
            res, timed_out = _solve_heuristic(prob, opt, method, message)
        else:
            res, timed_out = _solve_exact(prob, opt, message)
    if timed_out:
        warnings.warn(
            f"kemeny: time_limit={opt.time_limit:g} s reached; returning the best ranking found"
            + ("" if res.proven else " (not proven optimal)"),
            TimeLimitWarning,
            stacklevel=3,
        )  # kemeny, the renamed_parameters wrapper, the caller
    return res


# ----------------------------------------------------------------------------- validation


@dataclass(frozen=True)
class _Options:
    """The validated options of one :func:`kemeny` call."""

    method: str
    solver: str
    n_starts: int
    max_solutions: int
    time_limit: float | None
    progress: bool | None
    allow_ties: bool
    full: bool  # permutations only (not allow_ties)
    gen: np.random.Generator


def _kemeny_iv(method, solver, n_starts, max_solutions, time_limit, progress, allow_ties, rng) -> _Options:
    method = check_choice("method", method, ("auto", "quick", "fast", "exact"))
    solver = check_choice("solver", solver, ("auto", "bb", "mip"))
    n_starts = check_int("n_starts", DEFAULT_STARTS if n_starts is None else n_starts, minimum=1, maximum=MAX_STARTS)
    max_solutions = check_int("max_solutions", max_solutions, minimum=1, maximum=MAX_SOLUTIONS)
    if time_limit is not None:
        time_limit = check_float("time_limit", time_limit, minimum=0.0, inclusive=False)
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise InputError("progress", f"must be True, False or None; got {progress!r}")
    if not isinstance(allow_ties, (bool, np.bool_)):
        raise InputError("allow_ties", f"must be True or False; got {allow_ties!r}")
    return _Options(
        method,
        solver,
        n_starts,
        max_solutions,
        time_limit,
        progress,
        bool(allow_ties),
        not bool(allow_ties),
        check_rng(rng),
    )


# ----------------------------------------------------------------------------- the problem and its results


@dataclass(frozen=True)
class _Problem:
    """The combined input matrix of the rankings and what every solver and the result need."""

    data: object  # the checked rankings (agreekit.consensus._matrices.RankingData)
    C: np.ndarray  # built from the weights times 2**-exponent (RankingData._scaled_weights)
    CT: np.ndarray
    V: float  # sum |c_ij|: the upper bound of the objective
    eps: float
    trivial: bool  # C is all zeros: every ranking is a median ranking
    full: bool
    t0: float
    deadline: float | None
    W: float  # total weight, scaled as C
    exponent: int  # C, V, W times 2**exponent are in the user's scale of the weights

    @classmethod
    def build(cls, data, opt: _Options, t0: float) -> "_Problem":
        w, e = data._scaled_weights()
        m = int(data.X.shape[1])
        need = 3 * 8 * m * m  # C, its transpose, and the solvers' O(m^2) work arrays
        hint = "a consensus of this many items needs an m x m matrix; reduce the items (e.g. the top ones)"
        check_memory("rankings", need, f"{m} x {m} float64 pairwise matrices of {m} items", hint=hint)
        try:
            C, CT = _cim_and_transpose(data.X, w)
        except MemoryError:
            raise InputError(
                "rankings",
                f"ran out of memory building the {m} x {m} pairwise matrices of {m} items "
                f"(about {format_bytes(need)}); {hint}",
            ) from None
        V, cmax = _heuristics.abs_sum(C)
        W = float(w.sum())
        return cls(
            data,
            C,
            CT,
            V,
            1e-9 * max(V, 1.0),
            bool(cmax <= 1e-12 * W),
            opt.full,
            t0,
            None if opt.time_limit is None else t0 + opt.time_limit,
            W,
            e,
        )

    @property
    def m(self) -> int:
        return self.C.shape[0]

    @functools.cached_property
    def blocks(self) -> list:
        """The strongly connected blocks of C (:func:`agreekit.consensus.components`), computed once."""
        return _exact.components(self.C, full=self.full, CT=self.CT)

    def result(self, sols, meth, optimal, exhaustive, solver_name, blocks=(), message="") -> KemenyResult:
        """Result assembly: distinct dense solutions, τ_x and penalty of the first, timing."""
        sols = _unique_rows([dense_ranks(s) for s in sols])
        obj = _objective(sols[0], self.C, self.CT)
        W, e = self.W, self.exponent
        with np.errstate(over="ignore"):
            total = float(np.ldexp(W, e))  # inf beyond float64 (documented; τ_x is a ratio, scale-free)
        return KemenyResult(
            solutions=sols,
            labels=self.data.labels,
            average_tau_x=obj / (W * self.m * (self.m - 1)),
            penalty=_in_user_scale("penalty of the consensus", _penalty_of(sols[0], self.C), e),
            method=meth,
            proven=bool(optimal),
            seconds=time.perf_counter() - self.t0,
            exhaustive=bool(exhaustive),
            solver=solver_name,
            blocks=tuple(blocks),
            message=message,
            total_weight=total,
        )

    def trivial_result(self, method: str) -> tuple[KemenyResult, bool]:
        base = np.arange(1, self.m + 1) if self.full else np.ones(self.m, dtype=np.int64)
        return self.result(
            [base],
            "exact" if method in ("exact", "auto") else method,
            True,
            False,
            "trivial",
            message="combined input matrix is all zeros: every ranking is a median ranking; "
            "one representative returned",
        ), False


# ----------------------------------------------------------------------------- dispatch


def _dispatch(prob: _Problem, opt: _Options) -> tuple[str, str, KemenyResult | None]:
    """(method, message, result): ``method="auto"`` resolved by block sizes (the result of a
    finished exact attempt is returned as it is)."""
    if opt.method != "auto":
        return opt.method, "", None
    sizes = [len(b) for b in prob.blocks]
    big = max(sizes)
    if big <= AUTO_EXACT_MAX_BLOCK:
        return "exact", f"auto: exact (largest of {len(sizes)} blocks has {big} items <= {AUTO_EXACT_MAX_BLOCK})", None
    if big <= AUTO_EXACT_TRY_MAX_BLOCK:
        tl = opt.time_limit
        budget = AUTO_EXACT_BUDGET if tl is None else min(tl / 2, AUTO_EXACT_BUDGET)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TimeLimitWarning)
            ex = kemeny(
                prob.data,
                method="exact",
                n_starts=opt.n_starts,
                rng=opt.gen,
                allow_ties=opt.allow_ties,
                time_limit=budget,
                solver=opt.solver,
                max_solutions=opt.max_solutions,
            )
        if ex.proven:
            return (
                "exact",
                "",
                replace(
                    ex,
                    seconds=time.perf_counter() - prob.t0,
                    message=(
                        f"auto: exact (largest block has {big} items > {AUTO_EXACT_MAX_BLOCK}, "
                        f"proof finished within {budget:g} s)" + (f"; {ex.message}" if ex.message else "")
                    ),
                ),
            )
        return (
            "fast",
            (
                f"auto: fast with {opt.n_starts} starts (largest block has {big} items and "
                f"the exact proof did not finish in {budget:g} s; use method='exact' with a "
                f"larger time_limit)"
            ),
            None,
        )
    if prob.m <= AUTO_FAST_MAX_ITEMS:
        return (
            "fast",
            (
                f"auto: fast with {opt.n_starts} starts (largest block has {big} items > "
                f"{AUTO_EXACT_TRY_MAX_BLOCK}: no exact attempt)"
            ),
            None,
        )
    return (
        "quick",
        (
            f"auto: quick ({prob.m} items > {AUTO_FAST_MAX_ITEMS}; largest block has {big} items); "
            f"use method='fast' for more starts"
        ),
        None,
    )


# ----------------------------------------------------------------------------- the solvers


#: CPU seconds the first QUICK call of a fresh install spends compiling (1000 items;
#: ``benchmarks/bench_cold_compile.py``): said on stderr before it starts
_QUICK_COMPILE_SECONDS = 3


def _solve_heuristic(prob: _Problem, opt: _Options, method: str, message: str) -> tuple[KemenyResult, bool]:
    if method == "quick" and 2 * prob.m**2 > INTERPRET_BUDGET:  # large enough to compile (agreekit._jit.pick)
        compile_notice(
            "the Kemeny QUICK kernels", _QUICK_COMPILE_SECONDS, (_heuristics.quick_pass, _exact._strong_components)
        )
    sizes = tuple(len(b) for b in prob.blocks)
    sols, top, finished, note = _heuristic(
        prob.C,
        prob.CT,
        method,
        prob.full,
        opt.n_starts,
        opt.gen,
        prob.deadline,
        opt.max_solutions,
        progress=opt.progress,
    )
    proven = prob.V - top <= prob.eps  # C itself is a score matrix: the upper bound is reached
    if note:
        message = "; ".join(x for x in (message, note) if x)
    if not finished and not proven:
        message += "; best found, not proven optimal"
    return prob.result(sols, method, proven, False, method, sizes, message), not finished


def _solve_exact(prob: _Problem, opt: _Options, message: str) -> tuple[KemenyResult, bool]:
    """Blocks solved one by one, seeded with the best heuristic ranking; optima combined."""
    C, CT, full, deadline, max_solutions = prob.C, prob.CT, prob.full, prob.deadline, opt.max_solutions
    blocks = prob.blocks
    sizes = tuple(len(b) for b in blocks)
    qs, qtop, q_finished, _ = _heuristic(C, CT, "quick", full, opt.n_starts, opt.gen, deadline)
    init = qs[0]
    if max(sizes) > BB_MAX_BLOCK:
        fs, ftop, _, _ = _heuristic(C, CT, "fast", full, opt.n_starts, opt.gen, deadline, max_solutions)
        if ftop > qtop + prob.eps:
            init = fs[0]
    per_block, optimal, exhaustive, used, reasons = [], True, True, set(), set()
    for b in blocks:
        if len(b) > 1 and deadline is not None and time.perf_counter() >= deadline:
            # no time left for this block: keep the heuristic's order of its items
            per_block.append(dense_ranks(init[b])[None, :])
            optimal = exhaustive = False
            reasons.add("time_limit")
            used.add("heuristic")
            continue
        remaining = None if deadline is None else max(deadline - time.perf_counter(), 1e-3)
        sols, _, opt_b, complete, stopped, name = _solve_block(
            C[np.ix_(b, b)], init[b], opt.solver, full, max_solutions, remaining
        )
        per_block.append(sols)
        optimal &= bool(opt_b)
        exhaustive &= bool(complete)
        used.add(name)
        if stopped:
            reasons.add(stopped)
    n_total = math.prod(len(s) for s in per_block)
    if n_total > max_solutions:
        exhaustive = False
        message = (message + "; " if message else "") + (
            f"{n_total} optimal rankings; the first {max_solutions} returned (max_solutions)"
        )
    notes = _exact_notes(optimal, reasons, n_total, max_solutions)
    if notes:
        message = "; ".join([message, *notes] if message else notes)
    solver_name = "+".join(sorted(used - {"trivial"})) or "trivial"
    res = prob.result(
        _combine(blocks, per_block, prob.m, max_solutions),
        "exact",
        optimal,
        exhaustive and optimal,
        solver_name,
        sizes,
        message,
    )
    return res, "time_limit" in reasons or not q_finished


def _combine(blocks, per_block, m: int, max_solutions: int) -> list[np.ndarray]:
    """Full rankings from the blocks' optima (blocks in order, each ranked after the previous)."""
    combos = []
    for choice in itertools.islice(itertools.product(*per_block), max_solutions):
        r = np.empty(m, dtype=np.int64)
        offset = 0
        for b, s in zip(blocks, choice):
            r[b] = s + offset
            offset += int(s.max())
        combos.append(r)
    return combos


def _exact_notes(optimal: bool, reasons: set, n_total: int, max_solutions: int) -> list[str]:
    notes = []
    if not optimal:
        notes.append("time limit reached: best found, not proven optimal")
    elif "time_limit" in reasons:
        notes.append("optimal value proven, but the time limit stopped the enumeration of all optima")
    if "max_solutions" in reasons and n_total <= max_solutions:
        notes.append(f"more optimal rankings exist than max_solutions={max_solutions}; not all are listed")
    other = reasons - {"time_limit", "max_solutions"}
    if other:
        notes.append("solver stopped: " + ", ".join(sorted(other)))
    return notes


def warmup() -> None:
    """(Internal, not in ``__all__``.)  Compile (or load from numba's cache) every kernel, serial and parallel, so later
    timings measure work only."""
    X = np.array([[1, 2, 3, 4], [2, 1, 3, 4], [1, 1, 2, np.nan], [4, 3, 2, 1]])
    for mode in ("compiled", "serial"):
        with forced(mode):
            kemeny(X, method="quick")
            kemeny(X, method="fast", n_starts=4, rng=0)
            for solver in ("bb", "mip"):
                kemeny(X, method="exact", solver=solver)
