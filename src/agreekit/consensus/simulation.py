"""The report's simulation study: Mallows profiles, QUICK/FAST/exact, recovery of optima.

Profiles are drawn from a Mallows model under Kendall's distance by repeated insertion
around a random central permutation, then optionally turned into weak rankings (adjacent
positions merged into ties) or partial rankings (cells masked).  For every profile QUICK,
FAST and the exact solver are run; FAST and QUICK are scored by the share of the exact
optimal set they recover.

Randomness follows scipy's SPEC 7 everywhere: ``rng`` may be ``None``, an int, a
:class:`numpy.random.SeedSequence` or a :class:`numpy.random.Generator`.

:data:`VARIANTS` is the tuple of profile variants, ``("complete", "tied", "incomplete")``.
"""

from __future__ import annotations


import numpy as np
import pandas as pd

from agreekit._optional import import_optional
from agreekit._api import check_rng, renamed_parameters
from agreekit._memory import check_memory
from agreekit._validation import InputError, check_choice, check_float, check_int
from agreekit.consensus._matrices import _as_float_matrix

from agreekit.consensus._kemeny import kemeny, warmup

#: largest count of items / judges / rankings a simulation takes (beyond it a count is a typo)
MAX_SIZE = 10**9

__all__ = [
    "mallows_rankings",
    "merge_ties",
    "mask_missing",
    "simulate_profile",
    "run_cell",
    "summarize_recovery",
    "summarize_times",
    "plot_times",
    "VARIANTS",
]

VARIANTS = ("complete", "tied", "incomplete")


def mallows_rankings(center, theta: float, n: int, rng=None) -> np.ndarray:
    """n rankings (rank vectors, 1 = best) from a Mallows model with Kendall distance.

    Repeated insertion: the items are inserted in the order of ``center``; the i-th
    (0-based) goes to position j ∈ {0..i} with probability ∝ exp(−θ (i − j)), i.e. each
    of the ``i − j`` items it jumps over costs one discordant pair.  ``rng``: SPEC 7
    (``None``, int, ``SeedSequence`` or ``Generator``; a Generator is advanced in place).

    Examples
    --------
    >>> import numpy as np
    >>> from agreekit.consensus.simulation import mallows_rankings
    >>> X = mallows_rankings([1, 2, 3, 4], 50.0, 3, np.random.default_rng(0))
    >>> X.tolist()
    [[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4]]
    >>> (mallows_rankings([1, 2, 3, 4], 0.5, 5, 7) == mallows_rankings([1, 2, 3, 4], 0.5, 5, np.random.default_rng(7))).all()
    np.True_
    """
    rng = check_rng(rng)
    center = _as_float_matrix("center", center, ndim=1)
    if np.isnan(center).any():
        raise InputError("center", "must rank every item (no NaN)")
    theta = check_float("theta", theta, minimum=0.0)
    n = check_int("n", n, minimum=1, maximum=MAX_SIZE)
    m = center.size
    check_memory("n", 8.0 * n * m, f"{n} x {m} simulated rankings")
    items_by_rank = np.argsort(center, kind="stable")
    out = np.empty((n, m), dtype=np.int64)
    for k in range(n):
        order: list[int] = []
        for i in range(m):
            p = np.exp(-theta * (i - np.arange(i + 1)))
            j = int(rng.choice(i + 1, p=p / p.sum()))
            order.insert(j, int(items_by_rank[i]))
        out[k, order] = np.arange(1, m + 1)
    return out


def merge_ties(X: np.ndarray, prob: float, rng=None) -> np.ndarray:
    """Weak rankings: each adjacent pair of positions is merged into a tie with ``prob``.

    ``rng``: SPEC 7 (``None``, int, ``SeedSequence`` or ``Generator``).

    Examples
    --------
    >>> from agreekit.consensus.simulation import merge_ties
    >>> merge_ties([[1, 2, 3], [3, 2, 1]], 1.0, 0).tolist()
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """
    rng = check_rng(rng)
    X = _as_float_matrix("X", X, ndim=2)
    prob = check_float("prob", prob, minimum=0.0, maximum=1.0)
    out = np.empty_like(X)
    for k, row in enumerate(X):
        order = np.argsort(row, kind="stable")
        vals = np.arange(1, row.size + 1, dtype=float)
        for t in range(1, row.size):
            if rng.random() < prob:
                vals[t:] -= 1
        out[k, order] = vals
    return out


def mask_missing(X: np.ndarray, prob: float, rng=None) -> np.ndarray:
    """Partial rankings: each cell is set to NaN with ``prob`` (at least 2 stay ranked).

    ``rng``: SPEC 7 (``None``, int, ``SeedSequence`` or ``Generator``).

    Examples
    --------
    >>> import numpy as np
    >>> from agreekit.consensus.simulation import mask_missing
    >>> int(np.isnan(mask_missing([[1, 2, 3, 4]], 1.0, 0)).sum())
    2
    """
    rng = check_rng(rng)
    X = _as_float_matrix("X", X, ndim=2).copy()
    prob = check_float("prob", prob, minimum=0.0, maximum=1.0)
    if X.shape[1] < 2:
        raise InputError("X", f"needs at least 2 items per ranking (2 stay ranked); got {X.shape[1]}")
    for row in X:
        mask = rng.random(row.size) < prob
        if (~mask).sum() < 2:
            keep = rng.choice(row.size, 2, replace=False)
            mask[keep] = False
        row[mask] = np.nan
    return X


def simulate_profile(
    m: int, theta: float, n_judges: int, variant: str, rng=None, *, tie_prob: float = 0.3, missing_prob: float = 0.2
) -> np.ndarray:
    """One judges × items profile of the given ``variant`` (complete, tied, incomplete).

    A random central permutation, ``n_judges`` Mallows rankings around it
    (:func:`mallows_rankings`), then ties (:func:`merge_ties`, ``tie_prob``) or missing
    cells (:func:`mask_missing`, ``missing_prob``).  ``rng``: SPEC 7 (``None``, int,
    ``SeedSequence`` or ``Generator``; one generator feeds all draws in that order).

    Examples
    --------
    >>> from agreekit.consensus.simulation import simulate_profile
    >>> simulate_profile(5, 1.0, 4, "tied", 3).shape
    (4, 5)
    """
    variant = check_choice("variant", variant, VARIANTS)
    m = check_int("m", m, minimum=2, maximum=MAX_SIZE)
    n_judges = check_int("n_judges", n_judges, minimum=1, maximum=MAX_SIZE)
    tie_prob = check_float("tie_prob", tie_prob, minimum=0.0, maximum=1.0)
    missing_prob = check_float("missing_prob", missing_prob, minimum=0.0, maximum=1.0)
    check_memory("m", 8.0 * m * n_judges, f"{n_judges} x {m} simulated rankings")
    rng = check_rng(rng)
    center = rng.permutation(m) + 1
    X = mallows_rankings(center, theta, n_judges, rng).astype(float)
    if variant == "tied":
        X = merge_ties(X, tie_prob, rng)
    elif variant == "incomplete":
        X = mask_missing(X, missing_prob, rng)
    return X


def _profile_streams(rng, n: int) -> list:
    """``n`` independent child streams of ``rng`` (SPEC 7, or a sequence of ints as
    :class:`numpy.random.SeedSequence` entropy, which the former ``seed=`` accepted)."""
    if (
        isinstance(rng, (list, tuple))
        and rng
        and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 0 for v in rng)
    ):
        rng = np.random.SeedSequence([int(v) for v in rng])
    if rng is None or isinstance(rng, (int, np.integer, np.random.SeedSequence)) and not isinstance(rng, bool):
        check_rng(rng)  # the same InputError as everywhere for a negative int
        ss = (
            rng
            if isinstance(rng, np.random.SeedSequence)
            else np.random.SeedSequence(None if rng is None else int(rng))
        )
        return [np.random.default_rng(c) for c in ss.spawn(n)]
    return check_rng(rng).spawn(n)


@renamed_parameters(seed="rng")
def run_cell(
    *,
    m: int,
    theta: float,
    variant: str,
    n_profiles: int,
    n_judges: int,
    n_starts: int,
    rng=None,
    tie_prob: float = 0.3,
    missing_prob: float = 0.2,
    exact_time_limit=None,
    progress: bool = False,
) -> pd.DataFrame:
    """Run QUICK, FAST and exact on ``n_profiles`` profiles; one row per profile.

    Parameters
    ----------
    m, theta, variant
        Items, Mallows dispersion and variant (:data:`VARIANTS`) of the cell.
    n_profiles, n_judges : int
        Profiles of the cell and judges (rankings) per profile.
    n_starts : int
        FAST starts.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        scipy's SPEC 7 (``seed=`` is a deprecated alias; a sequence of ints is taken as
        :class:`~numpy.random.SeedSequence` entropy, as before).  Profile *p* uses the *p*-th
        spawned child stream (``SeedSequence.spawn`` or ``Generator.spawn``), so results do
        not depend on how cells are scheduled; an int ``s`` gives the same numbers as
        ``SeedSequence(s)``.
    tie_prob, missing_prob : float
        See :func:`simulate_profile`.
    exact_time_limit : float, optional
        Seconds for the exact solver per profile.
    progress : bool
        A tqdm bar on stderr.

    Returns
    -------
    pandas.DataFrame
        One row per profile; columns ``exact_n_solutions`` (the number of optima,
        :attr:`KemenyResult.n_optima`), ``exact_tau_x`` (``average_tau_x``), ``exact_optimal``
        (``proven``), ``exact_exhaustive``, ``exact_solver``, ``largest_block``, ``exact_time``
        (``seconds``) and per heuristic ``{quick,fast}_n_solutions``, ``_tau_x``,
        ``_found_optimum``, ``_n_recovered``, ``_share_recovered``, ``_time``.

    Examples
    --------
    >>> from agreekit.consensus.simulation import run_cell
    >>> df = run_cell(m=5, theta=1.0, variant="complete", n_profiles=2, n_judges=8, n_starts=5, rng=0)
    >>> df["exact_optimal"].tolist(), bool((df["fast_tau_x"] <= df["exact_tau_x"] + 1e-12).all())
    ([True, True], True)
    """
    from tqdm.auto import tqdm

    n_profiles = check_int("n_profiles", n_profiles, minimum=1, maximum=MAX_SIZE)
    n_starts = check_int("n_starts", n_starts, minimum=1)
    if exact_time_limit is not None:
        check_float("exact_time_limit", exact_time_limit, minimum=0.0, inclusive=False)
    if not isinstance(progress, (bool, np.bool_)):
        raise InputError("progress", f"must be True or False; got {progress!r}"[:200])

    streams = _profile_streams(rng, n_profiles)
    warmup()  # JIT compilation is not part of the timings
    rows = []
    for p in tqdm(range(n_profiles), disable=not progress, desc=f"m={m} theta={theta} {variant}"):
        rng = streams[p]
        X = simulate_profile(m, theta, n_judges, variant, rng, tie_prob=tie_prob, missing_prob=missing_prob)
        ex = kemeny(X, method="exact", rng=rng, time_limit=exact_time_limit, max_solutions=100000)
        opt = {tuple(s) for s in ex.solutions}
        row = {
            "m": m,
            "theta": theta,
            "variant": variant,
            "profile": p,
            "exact_n_solutions": ex.n_optima,
            "exact_tau_x": ex.average_tau_x,
            "exact_optimal": ex.proven,
            "exact_exhaustive": ex.exhaustive,
            "exact_solver": ex.solver,
            "largest_block": max(ex.blocks),
            "exact_time": ex.seconds,
        }
        for name, kwargs in (("quick", {}), ("fast", {"n_starts": n_starts, "rng": rng})):
            res = kemeny(X, method=name, **kwargs)
            found = {tuple(s) for s in res.solutions}
            row[f"{name}_n_solutions"] = res.n_optima
            row[f"{name}_tau_x"] = res.average_tau_x
            row[f"{name}_found_optimum"] = bool(res.average_tau_x >= ex.average_tau_x - 1e-12)
            row[f"{name}_n_recovered"] = len(found & opt)
            row[f"{name}_share_recovered"] = len(found & opt) / len(opt)
            row[f"{name}_time"] = res.seconds
        rows.append(row)
    return pd.DataFrame(rows)


def summarize_recovery(df: pd.DataFrame) -> pd.DataFrame:
    """Tables 6–7: per cell, exact solutions (mean, max) and share recovered by QUICK/FAST."""
    g = df.groupby(["variant", "m", "theta"], sort=True)
    out = g.agg(
        profiles=("profile", "size"),
        exact_solutions_mean=("exact_n_solutions", "mean"),
        exact_solutions_max=("exact_n_solutions", "max"),
        exact_all_proven=("exact_exhaustive", "all"),
        quick_found_optimum=("quick_found_optimum", "mean"),
        quick_share_recovered=("quick_share_recovered", "mean"),
        fast_found_optimum=("fast_found_optimum", "mean"),
        fast_share_recovered=("fast_share_recovered", "mean"),
        fast_all_recovered=("fast_share_recovered", lambda s: float((s >= 1.0).mean())),
    )
    return out.reset_index()


def summarize_times(df: pd.DataFrame) -> pd.DataFrame:
    """Table 8: time distribution (median, quartiles, max) per cell and algorithm."""
    long = df.melt(
        id_vars=["variant", "m", "theta", "profile"],
        value_vars=["quick_time", "fast_time", "exact_time"],
        var_name="algorithm",
        value_name="seconds",
    )
    long["algorithm"] = long["algorithm"].str.replace("_time", "", regex=False)
    g = long.groupby(["variant", "m", "theta", "algorithm"], sort=True)["seconds"]
    out = g.describe(percentiles=[0.25, 0.5, 0.75])[["count", "mean", "min", "25%", "50%", "75%", "max"]]
    return out.reset_index()


def plot_times(df: pd.DataFrame):
    """Box-plots of computing time per algorithm, one panel per (variant, m) (Figures 2–4)."""
    plt = import_optional("matplotlib.pyplot", purpose="plot_times")

    variants = [v for v in VARIANTS if v in set(df["variant"])]
    ms = sorted(df["m"].unique())
    fig, axes = plt.subplots(len(variants), len(ms), figsize=(4.2 * len(ms), 3.0 * len(variants)), squeeze=False)
    for row, variant in enumerate(variants):
        for col, m in enumerate(ms):
            ax = axes[row][col]
            sub = df[(df["variant"] == variant) & (df["m"] == m)]
            thetas = sorted(sub["theta"].unique())
            data, labels = [], []
            for alg in ("quick", "fast", "exact"):
                for th in thetas:
                    data.append(sub.loc[sub["theta"] == th, f"{alg}_time"].to_numpy())
                    labels.append(f"{alg[0].upper()} {th:g}")
            ax.boxplot(data)
            ax.set_xticks(range(1, len(labels) + 1), labels, rotation=90, fontsize=7)
            ax.set_yscale("log")
            ax.set_title(f"{variant}, m = {m}", fontsize=9)
            ax.set_ylabel("seconds")
    fig.suptitle("Computing time by algorithm\n(Q = QUICK, F = FAST, E = exact) and theta", fontsize=10)
    fig.tight_layout()
    return fig
