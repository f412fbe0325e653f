"""Polynomial regression of moments in a transformed ranking length x(n), with degree selection.

Section 4.2 of [1]_: a moment q(n) (mean Γ̄, variance V or left variance V^ℓ) sampled
on a training grid is fitted by a polynomial ``y(x) = sum_d c_d x**d`` in
``x = 1/n`` (Eq. 35, ``"inv_n"``) or ``x = 1/ln n`` (Eq. 36, ``"inv_log_n"``).  The mean
uses inverse-variance weights (Eq. 34); the variances are unweighted (Section 5.2).
Least squares is done by :class:`statsmodels.regression.linear_model.WLS` (QR) on a
column-scaled Vandermonde matrix, so high degrees stay well conditioned.

The degree is selected as in Section 4.2.3 (the rule the authors' code implements):
for each candidate degree D fit on the points at even 0-based positions of the grid,
compute the unweighted MSE over all points, then walk D upwards from ``min_degree``,
accepting D while ``MSE(D)/MSE(D-1) <= ratio_improve`` or
``MSE(D+1)/MSE(D-1) <= ratio_lookahead`` (a missing MSE counts as 1e8), and stop at the
first D that fails.  The final fit uses all points.

References
----------
.. [1] P. Lombardo, "Standardization of Weighted Ranking Correlation
   Coefficients", arXiv:2504.08428, 2025, Sections 4.2 and 5.2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from agreekit._optional import import_optional
from agreekit._validation import InputError, check_choice

# the runtime reads the fits through these; they live beside it (the runtime never imports tablegen)
from agreekit.ranking._fitmodel import TRANSFORMS, prediction_se, x_of_n

__all__ = [
    "TRANSFORMS",
    "x_of_n",
    "PolynomialFit",
    "fit_polynomial",
    "DegreeSelection",
    "choose_degree",
    "select_degree",
    "fit_with_covariance",
    "loo_score",
    "select_degree_held_out",
    "select_fit_held_out",
    "prediction_se",
]

_MSE_SENTINEL = 1e8  # stands for the missing MSE(min_degree - 1) and MSE(max_degree + 1)


@dataclass(frozen=True)
class PolynomialFit:
    """A fitted polynomial in x(n); ``coefficients`` in ascending powers of x."""

    coefficients: tuple[float, ...]
    transform: str

    @property
    def degree(self) -> int:
        return len(self.coefficients) - 1

    def __call__(self, n):
        """Evaluate at ranking length(s) ``n``."""
        x = x_of_n(n, self.transform)
        return np.polynomial.polynomial.polyval(x, np.asarray(self.coefficients))


def fit_polynomial(x, y, degree: int, *, weights=None) -> np.ndarray:
    """Least-squares polynomial coefficients (ascending) of ``y ~ x``; WLS when ``weights`` given.

    ``weights`` multiply squared residuals (inverse variances for Eq. 34).
    """
    WLS = import_optional("statsmodels.regression.linear_model", purpose="fit_polynomial").WLS

    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if degree < 0 or x.size < degree + 1:
        raise InputError("degree", f"needs at least degree + 1 = {degree + 1} points; got {x.size}")
    vander = np.vander(x, degree + 1, increasing=True)
    scale = np.sqrt((vander**2).sum(axis=0))
    scale[scale == 0] = 1.0
    design = vander / scale
    w = np.ones_like(y) if weights is None else np.asarray(weights, dtype=np.float64)
    res = WLS(y, design, weights=w).fit(method="qr")
    return np.asarray(res.params) / scale


@dataclass(frozen=True)
class DegreeSelection:
    """Result of :func:`select_degree`: the chosen degree, the MSE per candidate, the final fit."""

    degree: int
    degrees: tuple[int, ...]
    mse: tuple[float, ...]
    fit: PolynomialFit
    fit_positions: tuple[int, ...] = field(default=())


def choose_degree(
    mse: Sequence[float], *, min_degree: int = 1, ratio_improve: float = 0.8, ratio_lookahead: float = 0.5
) -> int:
    """The degree-walk of Section 4.2.3 given ``mse[k]`` = MSE of degree ``min_degree + k``.

    Start at ``min_degree``; for D = min_degree+1, ... accept D if
    ``MSE(D)/MSE(D-1) <= ratio_improve`` or ``MSE(D+1)/MSE(D-1) <= ratio_lookahead``
    (a missing MSE counts as 1e8), and stop at the first D that fails.
    """
    max_degree = min_degree + len(mse) - 1

    def m(d):
        return float(mse[d - min_degree]) if min_degree <= d <= max_degree else _MSE_SENTINEL

    chosen = min_degree
    for d in range(min_degree + 1, max_degree + 1):
        r1 = m(d) / m(d - 1) if m(d - 1) > 0 else np.inf
        r2 = m(d + 1) / m(d - 1) if m(d - 1) > 0 else np.inf
        if r1 <= ratio_improve or r2 <= ratio_lookahead:
            chosen = d
        else:
            break
    return chosen


def select_degree(
    n: Sequence[int],
    y: Sequence[float],
    *,
    transform: str,
    weights=None,
    min_degree: int = 1,
    max_degree: int = 7,
    ratio_improve: float = 0.8,
    ratio_lookahead: float = 0.5,
    fit_subset: str = "even",
) -> DegreeSelection:
    """Choose the polynomial degree of Section 4.2.3 and fit all points with it.

    Parameters
    ----------
    n, y : sequences
        Training ranking lengths (in grid order) and the sampled quantity.
    transform : {'inv_n', 'inv_log_n'}
    weights : array, optional
        Regression weights (inverse variances for the mean; None for V, V^ℓ).
    min_degree, max_degree : int
        Candidate degrees.
    ratio_improve, ratio_lookahead : float
        Thresholds of the acceptance rule (0.8 and 0.5 in the paper).
    fit_subset : {'even', 'all'}
        Points used for the candidate fits (``'even'``: 0-based even positions); the MSE
        always uses all points and is unweighted.
    """
    check_choice("fit_subset", fit_subset, ("even", "all"))
    n = np.asarray(n, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if n.shape != y.shape or n.ndim != 1:
        raise InputError("y", "must be 1-D and as long as `n`")
    if min_degree < 1 or max_degree < min_degree:
        raise InputError("max_degree", f"must be >= min_degree >= 1; got {min_degree}..{max_degree}")
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    x = x_of_n(n, transform)
    pos = np.arange(n.size) if fit_subset == "all" else np.arange(0, n.size, 2)
    if pos.size < max_degree + 1:
        raise InputError(
            "max_degree",
            f"{max_degree} needs at least {max_degree + 1} fitting points; the "
            f"{fit_subset!r} subset of the grid has {pos.size}",
        )
    degrees = tuple(range(min_degree, max_degree + 1))
    mse = []
    for d in degrees:
        c = fit_polynomial(x[pos], y[pos], d, weights=None if w is None else w[pos])
        resid = np.polynomial.polynomial.polyval(x, c) - y
        mse.append(float(np.mean(resid**2)))

    chosen = choose_degree(mse, min_degree=min_degree, ratio_improve=ratio_improve, ratio_lookahead=ratio_lookahead)
    coef = fit_polynomial(x, y, chosen, weights=w)
    return DegreeSelection(
        degree=chosen,
        degrees=degrees,
        mse=tuple(mse),
        fit=PolynomialFit(tuple(float(c) for c in coef), transform),
        fit_positions=tuple(int(p) for p in pos),
    )


# ------------------------------------------------------------------ held-out degree choice and prediction SE


def _design(x, degree):
    vander = np.vander(np.asarray(x, dtype=np.float64), degree + 1, increasing=True)
    scale = np.sqrt((vander**2).sum(axis=0))
    scale[scale == 0] = 1.0
    return vander, scale


def fit_with_covariance(x, y, degree: int, *, se, weights=None) -> tuple[np.ndarray, np.ndarray]:
    """Weighted least squares coefficients (ascending) and their covariance matrix.

    ``weights`` multiply squared residuals (default ``1/se**2``).  The covariance is the sandwich
    ``(X'WX)^-1 X'W diag(se^2) W X (X'WX)^-1`` (valid for any weights when the points' standard
    errors are ``se``), multiplied by ``max(1, chi2 / dof)`` with ``chi2 = sum((resid/se)^2)`` so
    that a lack of fit widens it.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    if np.any(~(se > 0)):
        raise InputError("se", "standard errors must be > 0")
    w = 1.0 / se**2 if weights is None else np.asarray(weights, dtype=np.float64)
    if x.size < degree + 1:
        raise InputError("degree", f"needs at least degree + 1 = {degree + 1} points; got {x.size}")
    vander, scale = _design(x, degree)
    Z = vander / scale
    sw = np.sqrt(w)
    q, r = np.linalg.qr(Z * sw[:, None])
    beta = np.linalg.solve(r, q.T @ (y * sw))
    rinv = np.linalg.inv(r)
    bread = rinv @ rinv.T  # (Z'WZ)^-1
    meat = (Z * (w**2 * se**2)[:, None]).T @ Z  # Z'W S W Z
    cov = bread @ meat @ bread
    resid = y - Z @ beta
    dof = x.size - degree - 1
    chi2 = float(np.sum((resid / se) ** 2))
    if dof > 0:
        cov = cov * max(1.0, chi2 / dof)
    coef = beta / scale
    cov = cov / np.outer(scale, scale)
    return coef, cov


def loo_score(x, y, degree: int, *, se) -> float:
    """Mean squared leave-one-out residual in units of the points' standard errors (inverse-variance WLS).

    Uses the hat-matrix identity ``r_(-i) = r_i / (1 - h_ii)``; the end points' terms are
    extrapolation errors, so a degree that bends outside the data is penalised.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    w = 1.0 / se**2
    vander, scale = _design(x, degree)
    Z = (vander / scale) * np.sqrt(w)[:, None]
    q, _ = np.linalg.qr(Z)
    h = np.sum(q**2, axis=1)
    beta = np.linalg.lstsq(Z, y * np.sqrt(w), rcond=None)[0]
    resid = y - (vander / scale) @ beta
    if np.any(h >= 1 - 1e-12):
        return np.inf
    return float(np.mean((resid / (1 - h) / se) ** 2))


def select_degree_held_out(
    n: Sequence[int],
    y: Sequence[float],
    *,
    se: Sequence[float],
    transform: str,
    min_degree: int = 1,
    max_degree: int = 7,
) -> DegreeSelection:
    """The degree with the smallest leave-one-out error (:func:`loo_score`), then an inverse-variance fit on all points.

    Ties (within 1e-12 relative) go to the smaller degree.  ``mse`` of the result holds the
    leave-one-out scores of the candidate degrees.
    """
    n = np.asarray(n, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    if n.shape != y.shape or se.shape != y.shape or n.ndim != 1:
        raise InputError("y", "must be 1-D and as long as `n` and `se`")
    if min_degree < 0 or max_degree < min_degree:
        raise InputError("max_degree", f"must be >= min_degree >= 0; got {min_degree}..{max_degree}")
    if n.size < max_degree + 2:
        raise InputError("max_degree", f"{max_degree} needs at least {max_degree + 2} training points; got {n.size}")
    x = x_of_n(n, transform)
    degrees = tuple(range(min_degree, max_degree + 1))
    scores = [loo_score(x, y, d, se=se) for d in degrees]
    best_score = min(scores)
    best = next(k for k in range(len(degrees)) if scores[k] <= best_score * (1 + 1e-12))
    coef, _ = fit_with_covariance(x, y, degrees[best], se=se)
    return DegreeSelection(
        degree=degrees[best],
        degrees=degrees,
        mse=tuple(float(s) for s in scores),
        fit=PolynomialFit(tuple(float(c) for c in coef), transform),
        fit_positions=tuple(range(n.size)),
    )


def select_fit_held_out(
    n: Sequence[int],
    y: Sequence[float],
    *,
    se: Sequence[float],
    transforms: Sequence[str],
    min_degree: int = 1,
    max_degree: int = 7,
) -> DegreeSelection:
    """Basis x(n) and degree with the smallest leave-one-out error over ``transforms`` x degrees.

    Ties go to the earlier transform in ``transforms`` and then to the smaller degree.
    ``mse`` of the result holds the leave-one-out scores of the chosen transform's degrees.
    """
    best = None
    for t in transforms:
        sel = select_degree_held_out(n, y, se=se, transform=t, min_degree=min_degree, max_degree=max_degree)
        score = min(sel.mse)
        if best is None or score < best[0] * (1 - 1e-12):
            best = (score, sel)
    return best[1]
