"""Confidence intervals for a weighted rank correlation (:meth:`WeightedCorrelationResult.confidence_interval`).

Methods, and the quantity each interval is for (its *estimand*):

* ``"analytic"`` (constant weights only: Γ is Kendall's τ_b or Spearman's ρ_s): Fisher's z = atanh(Γ̂) with
  a normal-theory variance, back-transformed with tanh.  τ_b: Var(z) = 0.437/(n − 4) (Fieller, Hartley &
  Pearson 1957); ρ_s: Var(z) = (1 + ρ̂²/2)/(n − 3) (Bonett & Wright 2000).  Estimand: the population τ
  (or ρ_s) of the distribution the n items are an i.i.d. sample of; the variances are derived for
  bivariate normal data (where τ = (2/π)·asin ρ, ρ_s = (6/π)·asin(ρ/2)).
* ``"u-statistic"`` (constant weights, Kendall only): Fisher z with Var(z) = σ̂²/(1 − τ̂²)², σ̂² the
  consistent estimate of the variance of τ̂ as a U-statistic (Daniels & Kendall 1947; Cliff & Charlin
  1991; Long & Cliff 1997), σ̂² = [4(n − 2)·s₁² + 2·s₂²]/(n(n − 1)) with t_ij = c·sign(x_i − x_j)·sign(y_i − y_j)
  (c = n(n − 1)/(2·√((n₀ − n₁)(n₀ − n₂))), so that τ̂_b = mean of t_ij over i ≠ j),
  t_i· = Σ_{j≠i} t_ij/(n − 1), s₁² = Σ_i (t_i· − τ̂)²/(n − 1), s₂² = Σ_{i≠j} (t_ij − τ̂)²/(n(n − 1)).  Free
  of the normal model; computed in O(n log n) (per-item concordance counts with a Fenwick tree).  Same
  estimand.  With ties the tie denominator is treated as fixed.
* ``"bootstrap"`` (any weigher): the BCa interval (Efron 1987) over items: the n (x_i, y_i) pairs
  resampled with replacement, Γ recomputed on each resample with the tie-aware coefficient (a resample
  repeats items, so it has ties; its ranks are re-derived with average ties).  Estimand: the population
  value of the weighted coefficient Γ, i.e. the limit of Γ̂ for n i.i.d. items from the population.
* ``"jackknife"`` (any weigher): Γ̂ ± t_{n−1}·se_jack with the leave-one-out values (Efron & Stein
  1981), clipped to [−1, 1].  Same estimand as the bootstrap.

* ``"percentile"`` (any weigher): the percentile interval of the same resamples.

Cost: the analytic intervals are O(1) after Γ̂, the U-statistic one O(n log n).  BCa needs B resampled
coefficients and, for its acceleration, the n leave-one-out values: for τ_b both the jackknife and the
per-item counts take O(n log n) in all; with constant weights and n <= 2000 the B resampled τ_b / ρ_s come from
matrix products of the resamples' item counts with the n x n sign and tie matrices; otherwise each resampled
(and, but for τ_b, each leave-one-out) coefficient is one call of the tie-aware kernel, O(n log n) each, so a
weighted BCa at large n costs n + B coefficient evaluations (``"percentile"`` skips the n).

``method=None`` picks ``"analytic"`` for constant weights and ``"bootstrap"`` otherwise; the returned
:class:`~agreekit._resampling.ConfidenceInterval` says which.  Constant weights are detected from the
values f(1..n) of the weigher (all equal), e.g. ``weigher=lambda i: np.ones(len(i))``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy.special import ndtri

from agreekit._api import check_rng
from agreekit._jit import pick
from agreekit._memory import check_memory
from agreekit._resampling import (
    ConfidenceInterval,
    bca_bounds,
    check_confidence_level,
    jackknife_bounds,
    percentile_bounds,
)
from agreekit._validation import InputError, check_choice, check_int
from agreekit.ranking.correlation import configured_correlation
from agreekit.ranking._rescaling import weigher_table

__all__ = [
    "METHODS",
    "correlation_interval",
    "result_interval",
    "fisher_z_interval",
    "kendall_u_variance",
    "kendall_jackknife",
    "resampled_coefficients",
    "FIELLER_CONSTANT",
]

METHODS = ("analytic", "u-statistic", "bootstrap", "percentile", "jackknife")
#: Var(atanh τ̂) ≈ 0.437/(n − 4) (Fieller, Hartley & Pearson 1957)
FIELLER_CONSTANT = 0.437
#: the O(n²)-memory fast path of the constant-weight bootstrap (sign matrices n x n) up to this n
_DENSE_MAX_N = 2000

_ESTIMAND = {
    "kendall": "the population Kendall tau (tau_b) of the distribution the items are an i.i.d. sample of",
    "spearman": "the population Spearman rho_s of the distribution the items are an i.i.d. sample of",
    "weighted": "the population value of the weighted coefficient (the limit of its sample value for n i.i.d. items)",
}


# --------------------------------------------------------------------------- analytic
def fisher_z_interval(r: float, var_z: float, confidence_level: float) -> tuple[float, float]:
    """tanh(atanh r ∓ z_{(1+c)/2}·√var_z)."""
    q = float(ndtri((1.0 + confidence_level) / 2.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.arctanh(np.clip(r, -1.0, 1.0))
        h = q * math.sqrt(var_z)
        return float(np.tanh(z - h)), float(np.tanh(z + h))


@njit(cache=True)
def _item_concordance(order, xs, yd, m):  # pragma: no cover - compiled
    """d_i = Σ_j sign(x_i − x_j)·sign(y_i − y_j) for every item (``order`` sorts x ascending, ``xs`` = x[order],
    ``yd`` the dense 1-based ranks of y, m their maximum): two sweeps with a Fenwick tree over y, O(n log n)."""
    n = order.size
    d = np.zeros(n)
    tree = np.zeros(m + 1, np.int64)
    inserted = 0
    i = 0
    while i < n:  # items with a smaller x
        j = i
        while j < n and xs[j] == xs[i]:
            j += 1
        for k in range(i, j):
            r = yd[order[k]]
            below = 0
            p = r - 1
            while p > 0:
                below += tree[p]
                p -= p & -p
            upto = 0
            p = r
            while p > 0:
                upto += tree[p]
                p -= p & -p
            d[order[k]] += below - (inserted - upto)
        for k in range(i, j):
            p = yd[order[k]]
            while p <= m:
                tree[p] += 1
                p += p & -p
        inserted += j - i
        i = j
    tree[:] = 0
    inserted = 0
    i = n - 1
    while i >= 0:  # items with a larger x
        j = i
        while j >= 0 and xs[j] == xs[i]:
            j -= 1
        for k in range(i, j, -1):
            r = yd[order[k]]
            below = 0
            p = r - 1
            while p > 0:
                below += tree[p]
                p -= p & -p
            upto = 0
            p = r
            while p > 0:
                upto += tree[p]
                p -= p & -p
            d[order[k]] += (inserted - upto) - below
        for k in range(i, j, -1):
            p = yd[order[k]]
            while p <= m:
                tree[p] += 1
                p += p & -p
        inserted += i - j
        i = j
    return d


def _run_pairs(same) -> int:
    """Σ t(t − 1)/2 over the runs of equal neighbours of a sorted sequence (``same[k]``: item k equals k + 1)."""
    edges = np.flatnonzero(np.diff(np.r_[0, same.astype(np.int8), 0]))  # starts and ends of the runs of True
    t = edges[1::2] - edges[::2] + 1  # run lengths (items per tie group)
    return int((t * (t - 1) // 2).sum())


def kendall_u_variance(x, y) -> tuple[float, float]:
    """(τ̂_b, σ̂²): Kendall's τ_b and the consistent U-statistic estimate of its variance (module docstring),
    in O(n log n)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = x.size
    order = np.argsort(x, kind="stable").astype(np.int64)
    _, yd = np.unique(y, return_inverse=True)
    yd = (yd + 1).astype(np.int64)
    work = int(n * max(1.0, math.log2(max(n, 2))))
    d = pick(_item_concordance, work)(order, x[order], yd, int(yd.max()))
    n0 = n * (n - 1) // 2
    xs = x[order]
    ys_by_x = y[np.lexsort((y, x))]
    ys = np.sort(y)
    n1 = _run_pairs(xs[1:] == xs[:-1])
    n2 = _run_pairs(ys[1:] == ys[:-1])
    n3 = _run_pairs((xs[1:] == xs[:-1]) & (ys_by_x[1:] == ys_by_x[:-1]))
    den = math.sqrt(float(n0 - n1) * float(n0 - n2))
    if den == 0.0:
        raise InputError("x", "or y has all ranks tied: Kendall's tau is undefined")
    tau = float(d.sum()) / 2.0 / den
    c = n * (n - 1) / (2.0 * den)
    ti = c * d / (n - 1)
    s1 = float(((ti - tau) ** 2).sum()) / (n - 1)
    nonzero = n * (n - 1) - 2 * (n1 + n2 - n3)  # ordered pairs i != j with t_ij != 0
    s2 = c * c * nonzero / (n * (n - 1)) - tau * tau
    return tau, (4.0 * (n - 2) * s1 + 2.0 * s2) / (n * (n - 1))


def _group_sizes(v):
    _, inv, counts = np.unique(v, return_inverse=True, return_counts=True)
    return counts[inv]


def kendall_jackknife(x, y) -> np.ndarray:
    """The n leave-one-out values of τ_b in O(n log n): without item i the numerator loses d_i (its concordant
    minus discordant pairs) and each tie count loses the t − 1 pairs of i's tie group."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = x.size
    order = np.argsort(x, kind="stable").astype(np.int64)
    _, yd = np.unique(y, return_inverse=True)
    yd = (yd + 1).astype(np.int64)
    d = pick(_item_concordance, int(n * max(1.0, math.log2(max(n, 2)))))(order, x[order], yd, int(yd.max()))
    tx, ty = _group_sizes(x), _group_sizes(y)
    n1 = float((tx - 1).sum()) / 2.0  # Σ over groups t(t − 1)/2 = Σ over items (t_i − 1)/2
    n2 = float((ty - 1).sum()) / 2.0
    n0 = (n - 1) * (n - 2) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        return (d.sum() / 2.0 - d) / np.sqrt((n0 - (n1 - (tx - 1))) * (n0 - (n2 - (ty - 1))))


# --------------------------------------------------------------------------- resampling
def _sign(a):
    return np.sign(a[:, None] - a[None, :])


def _dense_coefficients(x, y, coefficient, counts_batches):
    """τ_b or ρ_s of each weighted resample, item i counted C[b, i] times (rows of the batches), from quadratic
    forms of the n x n sign / tie matrices: the tie-aware coefficient of the resample with average ranks."""
    # the products are integers below 2^24 (counts <= n <= 2000, entries of the matrices 0 or ±1): float32
    # matrix products are exact and twice as fast; everything after them is float64
    f32 = np.float32
    Ex = (x[:, None] == x[None, :]).astype(f32)
    Ey = (y[:, None] == y[None, :]).astype(f32)
    out = []
    if coefficient == "kendall":
        S = (_sign(x) * _sign(y)).astype(f32)
        for C in counts_batches:
            C32 = C.astype(f32)
            N = C.sum(axis=1)
            n0 = N * (N - 1) / 2.0
            num = np.einsum("bi,bi->b", (C32 @ S).astype(np.float64), C) / 2.0
            n1 = (np.einsum("bi,bi->b", (C32 @ Ex).astype(np.float64), C) - N) / 2.0
            n2 = (np.einsum("bi,bi->b", (C32 @ Ey).astype(np.float64), C) - N) / 2.0
            with np.errstate(divide="ignore", invalid="ignore"):
                out.append(num / np.sqrt((n0 - n1) * (n0 - n2)))
    else:
        # Gx = [x_j < x_i] + [x_j == x_i]/2, doubled to stay integral: C @ (2 Gx)ᵀ = 2·(average rank) − 1
        Gx = (2 * (x[None, :] < x[:, None]) + (x[None, :] == x[:, None])).astype(f32).T
        Gy = (2 * (y[None, :] < y[:, None]) + (y[None, :] == y[:, None])).astype(f32).T
        for C in counts_batches:
            C32 = C.astype(f32)
            N = C.sum(axis=1, keepdims=True)
            m = (N + 1) / 2.0
            rx = ((C32 @ Gx).astype(np.float64) + 1.0) / 2.0 - m  # average rank of item i in the resample, centred
            ry = ((C32 @ Gy).astype(np.float64) + 1.0) / 2.0 - m
            with np.errstate(divide="ignore", invalid="ignore"):
                out.append(
                    np.einsum("bi,bi,bi->b", C, rx, ry)
                    / np.sqrt(np.einsum("bi,bi,bi->b", C, rx, rx) * np.einsum("bi,bi,bi->b", C, ry, ry))
                )
    return np.concatenate(out) if out else np.empty(0)


def _generic_coefficient(xs, ys, config):
    """Γ of a subsample with the tie-aware coefficient, its ranks re-derived (average ties); NaN if undefined."""
    from scipy.stats import rankdata

    rx = rankdata(xs, method="min").astype(np.int64)
    ry = rankdata(ys, method="min").astype(np.int64)
    if rx.max() == 1 or ry.max() == 1:
        return math.nan
    return configured_correlation(rx, ry, config)


def resampled_coefficients(x, y, config, constant: bool, index_batches):
    """Γ on each subsample ``x[idx], y[idx]`` (rows of the index batches; rows may have any common length)."""
    n = x.size
    if constant and n <= _DENSE_MAX_N:

        def counts():
            for idx in index_batches:
                b, k = idx.shape
                C = np.bincount((np.arange(b)[:, None] * n + idx).ravel(), minlength=b * n).reshape(b, n)
                yield C.astype(np.float64)

        return _dense_coefficients(x, y, config.coefficient, counts())
    return np.concatenate([np.array([_generic_coefficient(x[r], y[r], config) for r in idx]) for idx in index_batches])


def _jackknife_indices(n):
    keep = ~np.eye(n, dtype=bool)
    idx = np.broadcast_to(np.arange(n), (n, n))[keep].reshape(n, n - 1)
    step = max(1, (1 << 18) // n)
    return [idx[lo : lo + step] for lo in range(0, n, step)]


def _bootstrap_indices(gen, n, B):
    step = max(1, (1 << 18) // n)  # rows per batch; the draws are those of one (B, n) call
    for lo in range(0, B, step):
        yield gen.integers(0, n, size=(min(step, B - lo), n), dtype=np.int64)


def is_constant(config, n) -> bool:
    """Whether the weigher gives equal weights to ranks 1..n (Γ is then Kendall's τ_b / Spearman's ρ_s)."""
    F = weigher_table(config.weigher, n)
    return bool(F.max() == F.min())


def correlation_interval(
    x, y, config, statistic: float, confidence_level=0.95, *, method=None, n_resamples=9999, rng=None
) -> ConfidenceInterval:
    """The interval of Γ(x, y) (x, y validated rank vectors, Γ̂ = ``statistic``); see the module docstring."""
    confidence_level = check_confidence_level(confidence_level)
    if method is not None:
        method = check_choice("method", method, METHODS)
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = x.size
    constant = is_constant(config, n)
    coef = config.coefficient
    if method is None:
        method = "analytic" if constant else "bootstrap"
    kind = coef if constant else "weighted"
    if method in ("analytic", "u-statistic"):
        if not constant:
            raise InputError(
                "method",
                f"{method!r} needs constant weights (Kendall's tau_b or Spearman's rho_s); "
                f"weigher {config.weigher.spec!r} is not constant: use 'bootstrap' or "
                "'jackknife'",
            )
        if method == "u-statistic" and coef != "kendall":
            raise InputError(
                "method", "'u-statistic' is the variance of Kendall's tau; for Spearman use 'analytic' (Bonett-Wright)"
            )
        min_n = 5 if coef == "kendall" else 4
        if n < min_n:
            raise InputError("x", f"the analytic interval needs n >= {min_n}; got n = {n}")
        if method == "u-statistic":
            tau, var = kendall_u_variance(x, y)
            with np.errstate(divide="ignore"):
                var_z = var / (1.0 - tau * tau) ** 2 if abs(tau) < 1 else 0.0
        elif coef == "kendall":
            var_z = FIELLER_CONSTANT / (n - 4)
        else:
            var_z = (1.0 + statistic * statistic / 2.0) / (n - 3)
        low, high = fisher_z_interval(statistic, var_z, confidence_level)
        return ConfidenceInterval(
            low=low,
            high=high,
            confidence_level=confidence_level,
            method=method,
            estimate=float(statistic),
            estimand=_ESTIMAND[kind] + " (Fisher z scale)",
            standard_error=math.sqrt(var_z),
        )
    if n < 3:
        raise InputError("x", f"resampling intervals need n >= 3; got n = {n}")
    if method == "percentile":
        jack = None
    elif constant and coef == "kendall":
        jack = kendall_jackknife(x, y)
    else:
        jack = resampled_coefficients(x, y, config, constant, _jackknife_indices(n))
    if method == "jackknife":
        low, high, se = jackknife_bounds(statistic, jack, confidence_level)
        return ConfidenceInterval(
            low=float(max(-1.0, low)),
            high=float(min(1.0, high)),
            confidence_level=confidence_level,
            method=method,
            estimate=float(statistic),
            estimand=_ESTIMAND[kind],
            standard_error=float(se),
        )
    B = check_int("n_resamples", n_resamples, minimum=1)
    check_memory("n_resamples", 8.0 * B, f"{B} bootstrap values")
    gen = check_rng(rng)
    theta_b = resampled_coefficients(x, y, config, constant, _bootstrap_indices(gen, n, B))
    if method == "bootstrap":
        low, high = bca_bounds(statistic, theta_b, jack, confidence_level)
    else:
        low, high = percentile_bounds(theta_b, confidence_level)
    return ConfidenceInterval(
        low=float(low),
        high=float(high),
        confidence_level=confidence_level,
        method=method,
        estimate=float(statistic),
        estimand=_ESTIMAND[kind],
        n_resamples=B,
    )


def result_interval(result, confidence_level, method, n_resamples, rng) -> ConfidenceInterval:
    """:meth:`WeightedCorrelationResult.confidence_interval`: the interval from the data the result keeps."""
    if result._data is None:
        raise InputError(
            "result",
            "holds no data (it was not made by weighted_correlation_test); call "
            "weighted_correlation_test(x, y, ...) again",
        )
    x, y, config = result._data
    return correlation_interval(
        x, y, config, result.statistic, confidence_level, method=method, n_resamples=n_resamples, rng=rng
    )
