"""The standardization function g(Γ) with zero expected value (seed 000, Section 3).

g is piecewise quadratic around Γ̄ (Eq. 22) with continuous value and slope at Γ̄,
g(-1) = -1 and g(1) = 1 (Eq. 23), monotone on [-1, 1], and E[g(Γ)] = 0 given the
three moments Γ̄, V, V^ℓ of the null distribution.

Two forms are offered:

* ``form="corrected"`` (default): zero expectation requires, with
  A = 2V^ℓ - V(1+Γ̄),

      B = [(1+Γ̄)² V - 4 Γ̄ V^ℓ - (1-Γ̄²)²] / A,   C = [2(1+Γ̄²) V^ℓ - (1+Γ̄)² V] / A,

  and g1 = (B g0 + C)/(1 - Γ̄²).  In the flat case (Eq. 27) g1 follows Eq. 29
  and g0 solves E[g] = 0 exactly; it reduces to Eq. 28, g0 = -VΓ̄/(1-V-Γ̄²), when
  A = 0 exactly.
* ``form="paper"``: B and C as printed in Eqs. 30/32 of the seed, with (1-Γ̄²)V where
  (1+Γ̄)²V belongs, and Eq. 28 verbatim in the flat case.  E[g] is then biased
  (e.g. about -0.036 for Spearman/additive/harmonic at n = 3); kept so that users
  can see the published bias.

g0 is chosen by Algorithm 1 (the value closest to 0 satisfying the monotonicity
inequalities (i) [2(1-Γ̄)-B] g0 ≥ C - 2(1-Γ̄), (ii) B g0 ≥ -C,
(iii) [2(1+Γ̄)+B] g0 ≤ 2(1+Γ̄) - C); an empty interval raises
:class:`BoundConsistencyError` (the authors' code silently returns values outside
[-1, 1]).

References
----------
.. [1] P. Lombardo et al., "Standardization of Weighted Ranking Correlation
       Coefficients", Section 3, Eqs. 22-32, Algorithm 1.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agreekit._validation import InputError, check_choice, check_float

__all__ = ["StandardizationFunction", "BoundConsistencyError", "FORMS"]

FORMS = ("corrected", "paper")


class BoundConsistencyError(ValueError):
    """The monotonicity bounds on g0 (or g1) are inconsistent: no valid g exists."""


def _moments_iv(mean, var, left_var, form, eps_flat, eps_bound):
    mean = check_float("mean", mean, minimum=-1.0, maximum=1.0, inclusive=False)
    var = check_float("var", var, minimum=0.0, inclusive=False)
    left_var = check_float("left_var", left_var, minimum=0.0)
    if left_var > var:
        raise InputError("left_var", f"must not exceed `var` ({var}); got {left_var}")
    form = check_choice("form", form, FORMS)
    eps_flat = check_float("eps_flat", eps_flat, minimum=0.0)
    eps_bound = check_float("eps_bound", eps_bound, minimum=0.0)
    return mean, var, left_var, form, eps_flat, eps_bound


@dataclass(frozen=True)
class StandardizationFunction:
    """g(x) = g0 + g1 (x-Γ̄) + {g2 if x < Γ̄ else h2} (x-Γ̄)², vectorized over arrays.

    Build with :meth:`from_moments`; call it on a float or an array of Γ values.

    Attributes
    ----------
    mean, var, left_var : float
        The moments Γ̄, V, V^ℓ the function was built from.
    g0, g1, g2, h2 : float
        Coefficients of Eq. 22.
    flat : bool
        Whether the flat-variance-ratio branch (Eq. 27) was used.
    form : {'corrected', 'paper'}
    identity : bool
        True for a symmetric null distribution (Γ̄ = 0, V^ℓ = V/2), where g(x) = x.

    Examples
    --------
    >>> from agreekit import StandardizationFunction, exact_moments
    >>> m = exact_moments("kendall", n=6, weigher="harmonic", scheme="additive")
    >>> g = StandardizationFunction.from_moments(m.mean, m.var, m.left_var)
    >>> round(g(-1.0), 12), round(g(1.0), 12)
    (-1.0, 1.0)
    >>> round(g(-0.5), 6), round(g(0.5), 6)
    (-0.204408, 0.29191)
    >>> abs(g.expected_value()) < 1e-15
    True
    """

    mean: float
    var: float
    left_var: float
    g0: float
    g1: float
    g2: float
    h2: float
    flat: bool
    form: str = "corrected"
    identity: bool = False

    @classmethod
    def from_moments(cls, mean, var, left_var, *, form="corrected", eps_flat=1e-4,
                     eps_bound=1e-8) -> "StandardizationFunction":
        """Construct g from the null moments Γ̄ (``mean``), V (``var``), V^ℓ (``left_var``).

        Parameters
        ----------
        mean : float
            Γ̄ in (-1, 1).
        var : float
            V > 0.
        left_var : float
            V^ℓ in [0, V].
        form : {'corrected', 'paper'}, optional
            ``'corrected'`` (default) gives E[g(Γ)] = 0; ``'paper'`` uses the seed's
            printed Eqs. 30/32, which do not (see module docstring).
        eps_flat : float, optional
            Tolerance ε_f of the flat test |V^ℓ/V - (1+Γ̄)/2| < ε_f (Eq. 27).
        eps_bound : float, optional
            Tolerance ε_b for the zero tests of Algorithm 1.

        Raises
        ------
        BoundConsistencyError
            If the monotonicity bounds admit no g0 (or, flat case, no g1).
        InputError
            For moments outside their domain or an unknown ``form``.
        """
        G, V, L, form, eps_flat, eps_bound = _moments_iv(mean, var, left_var, form, eps_flat, eps_bound)
        if abs(G) <= eps_bound and abs(L - V / 2) <= eps_bound:
            # symmetric null distribution (e.g. any coefficient at n = 2): g is the identity
            return cls(G, V, L, 0.0, 1.0, 0.0, 0.0, True, form, True)
        one_m = 1.0 - G * G
        A = 2.0 * L - V * (1.0 + G)
        flat = abs(L / V - (1.0 + G) / 2.0) < eps_flat
        if flat:
            g0, g1 = _flat_coefficients(G, V, L, A, form, eps_bound)
        else:
            Vb = (1.0 + G) ** 2 * V if form == "corrected" else one_m * V
            B = (Vb - 4.0 * G * L - one_m ** 2) / A
            C = (2.0 * (1.0 + G * G) * L - Vb) / A
            g0 = _algorithm1(G, B, C, eps_bound)
            g1 = (B * g0 + C) / one_m
        g2 = -(1.0 + g0) / (1.0 + G) ** 2 + g1 / (1.0 + G)
        h2 = (1.0 - g0) / (1.0 - G) ** 2 - g1 / (1.0 - G)
        return cls(G, V, L, float(g0), float(g1), float(g2), float(h2), bool(flat), form, False)

    def __call__(self, x):
        """g evaluated at ``x`` (float or array; values are expected in [-1, 1])."""
        arr = np.asarray(x, dtype=np.float64)
        u = arr - self.mean
        out = self.g0 + self.g1 * u + np.where(u < 0, self.g2, self.h2) * u * u
        return float(out) if out.ndim == 0 else out

    def derivative(self, x):
        """g'(x) (piecewise linear)."""
        arr = np.asarray(x, dtype=np.float64)
        u = arr - self.mean
        out = self.g1 + 2.0 * np.where(u < 0, self.g2, self.h2) * u
        return float(out) if out.ndim == 0 else out

    def expected_value(self) -> float:
        """E[g(Γ)] implied by the moments: g0 + g2 V^ℓ + h2 (V - V^ℓ) (exact for Eq. 22)."""
        return self.g0 + self.g2 * self.left_var + self.h2 * (self.var - self.left_var)

    def as_dict(self) -> dict:
        return {"g0": self.g0, "g1": self.g1, "g2": self.g2, "h2": self.h2, "flat": self.flat,
                "form": self.form, "mean": self.mean, "var": self.var, "left_var": self.left_var}


def _flat_coefficients(G, V, L, A, form, eps_bound):
    """Flat variance ratio (Section 3.1): g1 from Eq. 29, g0 from zero expectation."""
    one_m = 1.0 - G * G
    den = one_m - V
    if den <= 0:
        raise BoundConsistencyError(f"flat case with 1 - mean² - var = {den:.3g} <= 0: no valid g")
    top = 2.0 * min(1.0 - G - V, 1.0 + G - V)
    if top < -eps_bound:
        raise BoundConsistencyError(
            f"flat case: Eq. 29 requires 0 <= g1 <= {top / den:.6g} < 0 (mean={G}, var={V})")
    g1 = min(1.0, max(top, 0.0) / den)
    if form == "paper":
        return -V * G / den, g1
    # E[g] = g0 [1 - L/(1+G)² - (V-L)/(1-G)²] + L/(1+G)² ... solved exactly for g0;
    # with A = 0 this is Eq. 28.
    a = L / (1.0 + G) ** 2
    b = (V - L) / (1.0 - G) ** 2
    g0 = (b - a + g1 * A / one_m) / (a + b - 1.0)
    # monotonicity at the ends for this g0 (Eq. 29 assumed A = 0 exactly)
    if 2.0 * (1.0 + g0) / (1.0 + G) - g1 < -eps_bound or 2.0 * (1.0 - g0) / (1.0 - G) - g1 < -eps_bound:
        raise BoundConsistencyError(f"flat case: g1 = {g1:.6g} violates monotonicity at ±1 (mean={G})")
    return g0, g1


def _algorithm1(G, B, C, eps_bound):
    """Algorithm 1 of the seed: g0 closest to 0 within the monotonicity bounds."""
    lows = [-1.0]
    ups = [1.0]
    # (i) [2(1-G) - B] g0 >= C - 2(1-G)
    k1 = 2.0 * (1.0 - G) - B
    r1 = C - 2.0 * (1.0 - G)
    _add_bound(k1, r1, lows, ups, ">=", "i", eps_bound)
    # (ii) B g0 >= -C
    _add_bound(B, -C, lows, ups, ">=", "ii", eps_bound)
    # (iii) [2(1+G) + B] g0 <= 2(1+G) - C
    k3 = 2.0 * (1.0 + G) + B
    r3 = 2.0 * (1.0 + G) - C
    _add_bound(k3, r3, lows, ups, "<=", "iii", eps_bound)
    low, up = max(lows), min(ups)
    if up < low:
        raise BoundConsistencyError(
            f"monotonicity bounds on g0 are empty: [{low:.6g}, {up:.6g}] (mean={G}, B={B:.6g}, C={C:.6g})")
    return min(max(0.0, low), up)


def _add_bound(k, r, lows, ups, sense, name, eps_bound):
    """Add the bound from k·g0 (>= or <=) r."""
    if abs(k) < eps_bound:
        ok = (r <= eps_bound) if sense == ">=" else (r >= -eps_bound)
        if not ok:
            raise BoundConsistencyError(f"inequality ({name}) cannot hold: 0·g0 {sense} {r:.6g}")
        return
    bound = r / k
    if (k > 0) == (sense == ">="):
        lows.append(bound)
    else:
        ups.append(bound)
