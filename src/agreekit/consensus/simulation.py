"""The report's simulation study: Mallows profiles, QUICK/FAST/exact, recovery of optima.

Profiles are drawn from a Mallows model under Kendall's distance by repeated insertion
around a random central permutation, then optionally turned into weak rankings (adjacent
positions merged into ties) or partial rankings (cells masked).  For every profile QUICK,
FAST and the exact solver are run; FAST and QUICK are scored by the share of the exact
optimal set they recover.
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from agreekit._validation import InputError, check_choice, check_float, check_int
from agreekit.consensus._kemeny import kemeny, warmup

__all__ = ["mallows_rankings", "merge_ties", "mask_missing", "simulate_profile",
           "run_cell", "summarize_recovery", "summarize_times", "plot_times", "VARIANTS"]

VARIANTS = ("complete", "tied", "incomplete")


def mallows_rankings(center, theta: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """n rankings (rank vectors, 1 = best) from a Mallows model with Kendall distance.

    Repeated insertion: the items are inserted in the order of ``center``; the i-th
    (0-based) goes to position j ∈ {0..i} with probability ∝ exp(−θ (i − j)), i.e. each
    of the ``i − j`` items it jumps over costs one discordant pair.

    Examples
    --------
    >>> import numpy as np
    >>> from agreekit.consensus.simulation import mallows_rankings
    >>> X = mallows_rankings([1, 2, 3, 4], 50.0, 3, np.random.default_rng(0))
    >>> X.tolist()
    [[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4]]
    """
    center = np.asarray(center)
    theta = check_float("theta", theta, minimum=0.0)
    n = check_int("n", n, minimum=1)
    m = center.size
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


def merge_ties(X: np.ndarray, prob: float, rng: np.random.Generator) -> np.ndarray:
    """Weak rankings: each adjacent pair of positions is merged into a tie with ``prob``."""
    X = np.asarray(X, dtype=float)
    out = np.empty_like(X)
    for k, row in enumerate(X):
        order = np.argsort(row, kind="stable")
        vals = np.arange(1, row.size + 1, dtype=float)
        for t in range(1, row.size):
            if rng.random() < prob:
                vals[t:] -= 1
        out[k, order] = vals
    return out


def mask_missing(X: np.ndarray, prob: float, rng: np.random.Generator) -> np.ndarray:
    """Partial rankings: each cell is set to NaN with ``prob`` (at least 2 stay ranked)."""
    X = np.asarray(X, dtype=float).copy()
    for row in X:
        mask = rng.random(row.size) < prob
        if (~mask).sum() < 2:
            keep = rng.choice(row.size, 2, replace=False)
            mask[keep] = False
        row[mask] = np.nan
    return X


def simulate_profile(m: int, theta: float, n_judges: int, variant: str, rng: np.random.Generator,
                     *, tie_prob: float = 0.3, missing_prob: float = 0.2) -> np.ndarray:
    """One judges × items profile of the given ``variant`` (complete, tied, incomplete)."""
    variant = check_choice("variant", variant, VARIANTS)
    center = rng.permutation(m) + 1
    X = mallows_rankings(center, theta, n_judges, rng).astype(float)
    if variant == "tied":
        X = merge_ties(X, tie_prob, rng)
    elif variant == "incomplete":
        X = mask_missing(X, missing_prob, rng)
    return X


def run_cell(*, m: int, theta: float, variant: str, n_profiles: int, n_judges: int, n_starts: int,
             seed, tie_prob: float = 0.3, missing_prob: float = 0.2, exact_time_limit=None,
             progress: bool = False) -> pd.DataFrame:
    """Run QUICK, FAST and exact on ``n_profiles`` profiles; one row per profile.

    ``seed`` is anything :class:`numpy.random.SeedSequence` accepts; profile *p* uses the
    p-th spawned child, so results do not depend on how cells are scheduled.
    """
    from tqdm.auto import tqdm

    warmup()  # JIT compilation is not part of the timings
    children = np.random.SeedSequence(seed).spawn(n_profiles)
    rows = []
    for p in tqdm(range(n_profiles), disable=not progress, desc=f"m={m} theta={theta} {variant}"):
        rng = np.random.default_rng(children[p])
        X = simulate_profile(m, theta, n_judges, variant, rng, tie_prob=tie_prob, missing_prob=missing_prob)
        ex = kemeny(X, method="exact", rng=rng, time_limit=exact_time_limit, max_solutions=100000)
        opt = {tuple(s) for s in ex.solutions}
        row = {"m": m, "theta": theta, "variant": variant, "profile": p,
               "exact_n_solutions": ex.n_solutions, "exact_tau_x": ex.tau_x,
               "exact_optimal": ex.optimal, "exact_exhaustive": ex.exhaustive,
               "exact_solver": ex.solver, "largest_block": max(ex.blocks), "exact_time": ex.elapsed}
        for name, kwargs in (("quick", {}), ("fast", {"n_starts": n_starts, "rng": rng})):
            res = kemeny(X, method=name, **kwargs)
            found = {tuple(s) for s in res.solutions}
            row[f"{name}_n_solutions"] = res.n_solutions
            row[f"{name}_tau_x"] = res.tau_x
            row[f"{name}_found_optimum"] = bool(res.tau_x >= ex.tau_x - 1e-12)
            row[f"{name}_n_recovered"] = len(found & opt)
            row[f"{name}_share_recovered"] = len(found & opt) / len(opt)
            row[f"{name}_time"] = res.elapsed
        rows.append(row)
    return pd.DataFrame(rows)


def summarize_recovery(df: pd.DataFrame) -> pd.DataFrame:
    """Tables 6–7: per cell, exact solutions (mean, max) and share recovered by QUICK/FAST."""
    g = df.groupby(["variant", "m", "theta"], sort=True)
    out = g.agg(profiles=("profile", "size"),
                exact_solutions_mean=("exact_n_solutions", "mean"),
                exact_solutions_max=("exact_n_solutions", "max"),
                exact_all_proven=("exact_exhaustive", "all"),
                quick_found_optimum=("quick_found_optimum", "mean"),
                quick_share_recovered=("quick_share_recovered", "mean"),
                fast_found_optimum=("fast_found_optimum", "mean"),
                fast_share_recovered=("fast_share_recovered", "mean"),
                fast_all_recovered=("fast_share_recovered", lambda s: float((s >= 1.0).mean())))
    return out.reset_index()


def summarize_times(df: pd.DataFrame) -> pd.DataFrame:
    """Table 8: time distribution (median, quartiles, max) per cell and algorithm."""
    long = df.melt(id_vars=["variant", "m", "theta", "profile"],
                   value_vars=["quick_time", "fast_time", "exact_time"],
                   var_name="algorithm", value_name="seconds")
    long["algorithm"] = long["algorithm"].str.replace("_time", "", regex=False)
    g = long.groupby(["variant", "m", "theta", "algorithm"], sort=True)["seconds"]
    out = g.describe(percentiles=[0.25, 0.5, 0.75])[["count", "mean", "min", "25%", "50%", "75%", "max"]]
    return out.reset_index()


def plot_times(df: pd.DataFrame):
    """Box-plots of computing time per algorithm, one panel per (variant, m) (Figures 2–4)."""
    import matplotlib.pyplot as plt

    variants = [v for v in VARIANTS if v in set(df["variant"])]
    ms = sorted(df["m"].unique())
    fig, axes = plt.subplots(len(variants), len(ms), figsize=(4.2 * len(ms), 3.0 * len(variants)),
                             squeeze=False)
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
    fig.suptitle("Computing time by algorithm (Q = QUICK, F = FAST, E = exact) and theta")
    fig.tight_layout()
    return fig
