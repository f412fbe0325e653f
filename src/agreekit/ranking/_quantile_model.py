"""The table's null quantile model: Q(p; n) of raw Γ for any n in a table's quantile range
(``method="table"`` of :func:`agreekit.weighted_correlation_test`).

A coefficient table (schema >= 1.1) stores the quantiles of Monte Carlo samples of Γ at its training
lengths (:func:`null_quantile_block` writes that block, :func:`quantile_probs` is its probability
grid); :class:`QuantileModel` interpolates them across n (standardized quantiles at fixed p, or the
logit of the distribution function at fixed γ where the null's clusters move with n) and gives the
tail probabilities and their Monte Carlo effective sample size.  :func:`quantile_model` builds one per
table, memoized.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np


@dataclass(frozen=True)
class StoredQuantiles:
    """Null quantiles of raw Γ stored in a coefficient table (schema >= 1.1).

    ``values[i][j]`` is the ``probs[j]`` quantile (``numpy.quantile``, method "linear")
    of the Monte Carlo sample of size ``size[i]`` at ranking length ``n[i]``; ``mean`` and
    ``sd`` are that sample's mean and standard deviation (schema >= 1.2; None before).
    """

    probs: np.ndarray
    n: np.ndarray
    size: np.ndarray
    values: np.ndarray
    mean: np.ndarray | None = None
    sd: np.ndarray | None = None


def quantile_probs() -> np.ndarray:
    """The table's probability grid: 201 points, uniform in logit(p) from 1e-4 to 1 - 1e-4."""
    from scipy.special import expit, logit

    return expit(np.linspace(logit(1e-4), logit(1 - 1e-4), 201))


def null_quantile_block(samples: dict) -> dict:
    """The ``null_quantiles`` JSON block of a table from Monte Carlo samples {n: array of Γ}."""
    probs = quantile_probs()
    ns = sorted(samples)
    return {
        "probs": probs.tolist(),
        "n": [int(k) for k in ns],
        "size": [int(np.size(samples[k])) for k in ns],
        "values": [np.quantile(samples[k], probs, method="linear").tolist() for k in ns],
        "mean": [float(np.mean(samples[k])) for k in ns],
        "sd": [float(np.std(samples[k])) for k in ns],
    }


def table_quantiles(tab) -> StoredQuantiles | None:
    block = tab.data.get("null_quantiles")
    if block is None:
        return None
    arr = lambda k, t=np.float64: None if k not in block else np.asarray(block[k], dtype=t)  # noqa: E731
    return StoredQuantiles(
        arr("probs"), arr("n", np.int64), arr("size", np.int64), arr("values"), arr("mean"), arr("sd")
    )


#: local fit of the standardized quantiles across n between stored lengths: (n_upto, points per side,
#: polynomial degree in log n).  One point per side and degree 1 is linear interpolation between the
#: neighbours (n <= 1500, where the default config stores >= 2e5 permutations per length and the nulls
#: of multiplicative / steep weights still change shape quickly); beyond, a quadratic over 8 stored
#: lengths on each side (a factor ~3 in n each way at the default grid ratio 1.15) pools the Monte Carlo
#: noise of the smaller samples there.  Chosen with the held-out checks of
#: benchmarks/bench_significance_table_accuracy.py (at n = 5400: 8/8 Spearman tables within target with
#: this window, 6/8 with linear interpolation, 5/8 with 3 points per side; 10 per side biased n = 2000).
_WINDOWS = ((1500, 1, 1), (math.inf, 8, 2))
#: the same for the "vertical" scheme (logit P(Γ <= γ) at fixed γ, weighted least squares linear in 1/n):
#: (n_upto, stored lengths per side).  One per side is interpolation between the neighbours.
_VERTICAL_WINDOWS = ((1500, 1), (math.inf, 2))
#: probabilities separating the tails from the body, where the interpolation scheme may differ, and the
#: number of stored lengths on each side whose leave-one-out scores choose the scheme for an n
_REGIONS = (0.01, 0.99)
_MODE_HALF_WINDOW = 2


class QuantileModel:
    """Null quantile function Q(p; n) of a table, for any n in its quantile range.

    At each stored length n_k the quantiles are standardized with the sample's own mean m_k
    and standard deviation s_k, z_kj = (Q_kj - m_k)/s_k, which removes the location and
    scale noise that all quantiles of one sample share.  At a stored n the stored quantiles are
    used as they are.  Between stored lengths, m_k, log s_k and z_kj are fitted across the
    nearest stored lengths by a weighted polynomial in log n (weights = sample sizes; window and
    degree from ``_WINDOWS``) and combined: Q(p; n) = m(n) + s(n) z(p; n), at fixed p
    ("horizontal").

    That fails where the null has clusters whose *probability* moves with n at a fixed
    location (under multiplicative or steep weights, the permutations that keep the top item
    in place form a cluster of mass ~1/n near Γ = 1).  There the "vertical" scheme is
    used instead: logit P(Γ <= γ) at fixed γ, linear in 1/n between the neighbouring
    stored lengths.  The scheme is chosen per half of the distribution (below / above the
    median) by leave-one-out prediction of the stored lengths outside the dense range from
    their neighbours.
    """

    def __init__(self, tab, nq: StoredQuantiles):
        self.tab = tab
        self.nq = nq
        self.logit = np.log(nq.probs) - np.log1p(-nq.probs)
        self.n_lo = int(nq.n.min())
        self.n_hi = int(tab.n_max)
        #: the end of the run of consecutive stored lengths (n_lo, n_lo + 1, ...)
        steps = np.flatnonzero(np.diff(nq.n) != 1)
        self.n_dense = int(nq.n[steps[0]] if steps.size else nq.n[-1])
        m, s = self._training_moments()
        self.z = (nq.values - m[:, None]) / s[:, None]
        # columns: m, log s, z_1..z_P (fitted together, one least-squares solve)
        self.y = np.column_stack([m, np.log(s), self.z])
        self.u = np.log(nq.n.astype(np.float64))
        self.sw = np.sqrt(nq.size.astype(np.float64))
        self.index = {int(v): k for k, v in enumerate(nq.n)}
        self._cache: dict = {}
        #: interpolation scheme per region: lower tail, lower body, upper body, upper tail (see _REGIONS)
        P = nq.probs
        self._region_index = (int(np.searchsorted(P, _REGIONS[0])), P.size // 2, int(np.searchsorted(P, _REGIONS[1])))
        self.modes = self._choose_modes()

    def _training_moments(self):
        nq, d = self.nq, self.tab.data
        if nq.mean is not None and nq.sd is not None:
            return nq.mean, nq.sd
        smp = d.get("samples", {})
        if list(smp.get("n", [])) == nq.n.tolist():
            mean = np.asarray(smp["mean"], dtype=np.float64)
            # Eq. 38's v is around the fitted mean: v = var_pop + (mean - fitted_mean)^2
            v = np.asarray(smp["var"], dtype=np.float64) - (mean - np.asarray(smp["fitted_mean"])) ** 2
            return mean, np.sqrt(v)
        # moments of the quantile function itself (trapezoid in p over the stored grid)
        P = nq.probs
        mean = np.trapezoid(nq.values, P, axis=1) / (P[-1] - P[0])
        v = np.trapezoid((nq.values - mean[:, None]) ** 2, P, axis=1) / (P[-1] - P[0])
        return mean, np.sqrt(v)

    @staticmethod
    def _window(n):
        return next((h, d) for upto, h, d in _WINDOWS if n <= upto)

    def _pooled(self, n) -> bool:
        """Whether the quantiles at n come from the horizontal fit: always between stored lengths; at a
        stored length only where the fit pools (its pooled estimate, which includes the stored length
        itself, is the more accurate one there too); where it interpolates, a stored length is used as stored."""
        return int(n) not in self.index or (n > self.n_dense and self._window(n)[0] > 1)

    def _horizontal_design(self, n, exclude=None):
        """(stored indices, design matrix in log n - log n0) of the horizontal fit at n."""
        u0 = math.log(n)
        K = self.u.size
        idx = np.arange(K) if exclude is None else np.delete(np.arange(K), exclude)
        pos = int(np.searchsorted(self.u[idx], u0))
        half, deg = self._window(n)
        lo = max(0, min(pos - half, idx.size - 2 * half))
        sel = idx[lo : min(idx.size, lo + 2 * half)]
        deg = min(deg, sel.size - 1)
        return sel, np.vander(self.u[sel] - u0, deg + 1, increasing=True)

    def _horizontal(self, n, exclude=None):
        """Q(p; n) at the stored probabilities from the stored lengths around n (``exclude``: one index left out)."""
        sel, X = self._horizontal_design(n, exclude)
        X = X * self.sw[sel, None]
        coef, *_ = np.linalg.lstsq(X, self.y[sel] * self.sw[sel, None], rcond=None)
        at = coef[0]
        q = at[0] + math.exp(at[1]) * at[2:]
        return np.maximum.accumulate(np.clip(q, -1.0, 1.0))

    def quantiles(self, n: int):
        hit = self._cache.get(n)
        if hit is not None:
            return hit
        q = self._horizontal(n) if self._pooled(n) else self.nq.values[self.index[int(n)]]
        mom = self.tab.moments(n)
        out = (q, mom)
        if len(self._cache) > 4096:
            self._cache.clear()
        self._cache[n] = out
        return out

    def _vertical_weights(self, n, exclude=None):
        """(stored indices, weights) of the vertical scheme at n: logit P(Γ <= γ) = Σ c_k logit F_k(γ)."""
        key = ("v", n, exclude)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        ns = self.nq.n
        K = ns.size
        idx = np.arange(K) if exclude is None else np.delete(np.arange(K), exclude)
        half = next(h for upto, h in _VERTICAL_WINDOWS if n <= upto)
        pos = min(max(int(np.searchsorted(ns[idx], n)), 1), idx.size - 1)
        lo = max(0, min(pos - half, idx.size - 2 * half))
        sel = idx[lo : min(idx.size, lo + 2 * half)]
        x = 1.0 / ns[sel].astype(np.float64) - 1.0 / n
        out = (sel, _intercept_weights(np.column_stack([np.ones_like(x), x]), self.nq.size[sel]))
        self._cache[key] = out
        return out

    def _vertical(self, n, gamma, exclude=None):
        """logit P(Γ <= γ) at fixed γ: weighted least squares, linear in 1/n, over the stored lengths
        around n (``_VERTICAL_WINDOWS``; one per side is interpolation between the neighbours)."""
        return float(self._vertical_many(n, [gamma], exclude)[0])

    def _vertical_many(self, n, gammas, exclude=None):
        """``_vertical`` at each of ``gammas``."""
        sel, c = self._vertical_weights(n, exclude)
        out = np.zeros(len(gammas))
        for k, ck in zip(sel, c):
            out = out + ck * _logit_cdf_many(self.nq.values[k], self.logit, gammas)
        return out

    def _choose_modes(self):
        """Per region of the distribution and per stretch of n, 'horizontal' or 'vertical' by leave-one-out error.

        Regions (by probability): lower tail P < 0.01, lower body 0.01 .. 0.5, upper body, upper
        tail P > 0.99 (a cluster of mass ~1/n matters where the tail probability is ~1/n, so the
        better scheme can change with n).  Each stored length k outside the dense range (whose
        neighbours are more than 5 % away) is predicted from the other stored lengths by both
        schemes, and the predicted tail probabilities at its stored quantiles are compared with the
        stored probabilities (mean |log ratio| over each region, tail probabilities >= 0.001).  For
        n between stored lengths j-1 and j the scores of the stored lengths j-1-w .. j+w
        (w = ``_MODE_HALF_WINDOW``) decide; returns a (K, 4) array of modes (True = vertical).
        """
        nq, L, P = self.nq, self.logit, self.nq.probs
        K = nq.n.size
        masks = [
            (P >= 1e-3) & (P < _REGIONS[0]),
            (P >= _REGIONS[0]) & (P <= 0.5),
            (P >= 0.5) & (P <= _REGIONS[1]),
            (P > _REGIONS[1]) & (P <= 1 - 1e-3),
        ]
        diff = np.zeros((K, 4))  # score(vertical) - score(horizontal) at stored length k
        valid = np.zeros(K, bool)
        for k in range(1, K - 1):
            n = int(nq.n[k])
            if nq.n[k + 1] <= 1.05 * nq.n[k - 1] or (k + 2 >= K and _WINDOWS[-1][1] > 1):
                continue
            valid[k] = True
            qh = self._horizontal(n, exclude=k)
            lh = np.interp(nq.values[k], qh, L)
            lv = self._vertical_many(n, nq.values[k], exclude=k)
            for sign, l in ((-1.0, lh), (1.0, lv)):
                with np.errstate(over="ignore"):  # exp(-l) = inf for l << 0 gives F = 0, as intended
                    F = 1.0 / (1.0 + np.exp(-l))
                for h, m in enumerate(masks):
                    if h < 2:
                        diff[k, h] += sign * np.mean(np.abs(np.log(np.maximum(F[m], 1e-12) / P[m])))
                    else:
                        diff[k, h] += sign * np.mean(np.abs(np.log(np.maximum(1 - F[m], 1e-12) / (1 - P[m]))))
        total = diff[valid].sum(axis=0) if valid.any() else np.zeros(4)
        modes = np.zeros((K + 1, 4), bool)
        w = _MODE_HALF_WINDOW
        for j in range(K + 1):
            sel = slice(max(0, j - 1 - w), min(K, j + w + 1))
            d = diff[sel][valid[sel]].sum(axis=0) if valid[sel].any() else total
            modes[j] = d < 0
        return modes

    def vertical_at(self, n: int, gamma: float, q=None) -> bool:
        """Whether P(Γ <= γ) at n is interpolated at fixed γ ('vertical'); never at a stored n."""
        if int(n) in self.index:
            return False
        if q is None:
            q = self.quantiles(n)[0]
        i_lo, i_mid, i_hi = self._region_index
        region = 0 if gamma < q[i_lo] else 1 if gamma <= q[i_mid] else 2 if gamma <= q[i_hi] else 3
        return bool(self.modes[int(np.searchsorted(self.nq.n, n)), region])

    def tails(self, n: int, gamma: float):
        """(P(Γ >= γ), P(Γ <= γ)) at ranking length n."""
        return self.tails_and_size(n, gamma)[:2]

    def tails_and_size(self, n: int, gamma: float):
        """(P(Γ >= γ), P(Γ <= γ), N_eff): N_eff is the effective number of permutations behind them."""
        q, _ = self.quantiles(n)
        vertical = self.vertical_at(n, gamma, q)
        if not vertical:
            l = _logit_cdf(q, self.logit, gamma)
        else:
            l = self._vertical(n, gamma)
        # P(Γ <= γ) = expit(l), P(Γ >= γ) = expit(-l) (continuous null)
        return _expit(-l), _expit(l), self.effective_size(n, vertical)

    def effective_size(self, n: int, vertical: bool = False) -> float:
        """N_eff = 1 / Σ_k c_k² / N_k of the linear smoother Σ_k c_k y_k that gives the p-values at n.

        The stored values y_k of length n_k rest on N_k permutations (variance ∝ 1/N_k), so a tail
        probability p from the fit has the binomial variance p (1 - p) / N_eff; at a stored length
        used as stored, N_eff = N_k.  This is the Monte Carlo noise of the table only, not the
        interpolation error between stored lengths.
        """
        key = ("N", n, vertical)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        if vertical:
            sel, c = self._vertical_weights(n)
        elif not self._pooled(n):
            sel, c = np.array([self.index[int(n)]]), np.ones(1)
        else:
            sel, X = self._horizontal_design(n)
            c = _intercept_weights(X, self.nq.size[sel])
        out = float(1.0 / np.sum(c * c / self.nq.size[sel]))
        self._cache[key] = out
        return out


def _intercept_weights(X, w):
    """c with c @ y = the intercept of the weighted least-squares fit of y on X (weights w)."""
    Xw = X * np.asarray(w, dtype=np.float64)[:, None]
    return np.linalg.solve(X.T @ Xw, Xw.T)[0]


def _logit_cdf(q, L, gamma):
    """logit P(Γ <= γ) from a quantile curve q at logit-probabilities L (exponential tails outside)."""
    return float(_logit_cdf_many(q, L, [gamma])[0])


def _logit_cdf_many(q, L, gammas):
    """logit P(Γ <= γ) at each of ``gammas`` from a quantile curve q at logit-probabilities L
    (exponential tails outside the curve)."""
    g = np.asarray(gammas, dtype=np.float64)
    out = np.interp(g, q, L)
    lo, hi = g < q[0], g > q[-1]
    if lo.any():
        out[lo] = L[0] - (q[0] - g[lo]) * _edge_slope(q[:8], L[:8])
    if hi.any():
        out[hi] = L[-1] + (g[hi] - q[-1]) * _edge_slope(q[-8:], L[-8:])
    return out


def _edge_slope(q, L):
    """d logit(p) / dΓ over the outermost grid points (exponential tail beyond the grid)."""
    dq = q[-1] - q[0]
    return (L[-1] - L[0]) / dq if dq > 0 else 1e6


def _expit(l: float) -> float:
    return 1.0 / (1.0 + math.exp(-l)) if l >= 0 else math.exp(l) / (1.0 + math.exp(l))


@lru_cache(maxsize=64)
def quantile_model(tab) -> QuantileModel | None:
    nq = table_quantiles(tab)
    return None if nq is None else QuantileModel(tab, nq)
