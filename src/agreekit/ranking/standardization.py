"""The standardization function g(Γ) with zero expected value (Lombardo 2025, Section 3).

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
* ``form="paper"``: B and C as printed in Eqs. 30/32 of Lombardo (2025), with (1-Γ̄²)V where
  (1+Γ̄)²V belongs, and Eq. 28 verbatim in the flat case.  E[g] is then biased
  (e.g. about -0.036 for Spearman/additive/harmonic at n = 3); kept so that users
  can see the published bias.

The constraints E[g] = 0, g(-1) = -1, g(1) = 1 leave one free parameter: (g0, g1) on a
line. Two rules pick the point on it (``g0_rule``):

* ``"max_min_slope"`` (default for ``form="corrected"``): the point that **maximizes the
  minimum slope of g on [-1, 1]**. g' is piecewise linear, so its minimum is
  min(g'(-1), g'(Γ̄), g'(1)) with g'(-1) = 2(1+g0)/(1+Γ̄) - g1, g'(Γ̄) = g1 and
  g'(1) = 2(1-g0)/(1-Γ̄) - g1, three affine functions of the line parameter; the
  maximum of their minimum is at an intersection of two of them or at an end of the
  feasible range (g0 in [-1, 1]), so it has a closed form. g is then strictly increasing
  whenever any feasible g is (``min_slope > 0``).
* ``"closest_to_zero"`` (Algorithm 1 of Lombardo (2025), default for ``form="paper"``): the g0
  closest to 0 satisfying the monotonicity inequalities (i) [2(1-Γ̄)-B] g0 ≥ C - 2(1-Γ̄),
  (ii) B g0 ≥ -C, (iii) [2(1+Γ̄)+B] g0 ≤ 2(1+Γ̄) - C. With the corrected B, C this lands
  on a bound, i.e. g' = 0 somewhere, in most cases: over the shipped tables at
  n ∈ {3, 5, 8, 10, 11, 20, 30, 50, 100, 300, 1000, 3000, 10⁴, 3.6·10⁴}, 176 of 208 cases
  have a minimum slope below 0.05 (g maps the bulk of the null distribution onto one value,
  or all strong correlations onto ≈ 1). The max-min-slope rule gives minimum slopes of
  about 0.5-0.9 on the same cases, and ≥ 0.57 on the exact moments of all 16 paper
  configurations at n = 3..10.

If no feasible g is monotone (best minimum slope < 0, or an empty interval in Algorithm 1),
:class:`BoundConsistencyError` is raised (the authors' code silently returns values
outside [-1, 1]).

References
----------
.. [1] P. Lombardo, "Standardization of Weighted Ranking Correlation
       Coefficients", arXiv:2504.08428, 2025, Section 3, Eqs. 22-32, Algorithm 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agreekit._api import ResultBase
from agreekit._validation import InputError, check_choice, check_float, check_real_values

__all__ = ["StandardizationFunction", "BoundConsistencyError", "standardize"]

FORMS = ("corrected", "paper")
G0_RULES = ("max_min_slope", "closest_to_zero")


class BoundConsistencyError(ValueError):
    """The monotonicity bounds on g0 (or g1) are inconsistent: no valid g exists.

    Raised by :meth:`StandardizationFunction.from_moments` (the authors' code builds this error
    but never raises it, and returns values outside [-1, 1]); a :class:`ValueError`.

    Examples
    --------
    At n = 3, Spearman / multiplicative / 1/i², the paper's printed B, C (``form="paper"``, which
    uses Algorithm 1) leave an empty interval for g0, while the corrected form with the default rule
    finds a strictly increasing g:

    >>> from agreekit.ranking import BoundConsistencyError, StandardizationFunction, exact_moments
    >>> m = exact_moments("spearman", n=3, weigher="inverse_square", scheme="multiplicative")
    >>> try:
    ...     StandardizationFunction.from_moments(m.mean, m.var, m.left_var, form="paper")
    ... except BoundConsistencyError as exc:
    ...     print(type(exc).__name__, isinstance(exc, ValueError))
    BoundConsistencyError True
    >>> round(StandardizationFunction.from_moments(m.mean, m.var, m.left_var).min_slope, 3)
    0.569
    """


def _g0_rule_iv(g0_rule, form):
    """``None`` → the form's default rule (max-min slope for 'corrected', Algorithm 1 for 'paper')."""
    if g0_rule is None:
        return "max_min_slope" if form == "corrected" else "closest_to_zero"
    return check_choice("g0_rule", g0_rule, G0_RULES)


def _moments_iv(mean, var, left_var, eps_flat, eps_bound):
    mean = check_float("mean", mean, minimum=-1.0, maximum=1.0, inclusive=False)
    var = check_float("var", var, minimum=0.0, inclusive=False)
    left_var = check_float("left_var", left_var, minimum=0.0)
    if left_var > var:
        raise InputError("left_var", f"must not exceed `var` ({var}); got {left_var}")
    eps_flat = check_float("eps_flat", eps_flat, minimum=0.0)
    eps_bound = check_float("eps_bound", eps_bound, minimum=0.0)
    return mean, var, left_var, eps_flat, eps_bound


@dataclass(frozen=True)
class StandardizationFunction(ResultBase):
    """g(x) = g0 + g1 (x-Γ̄) + {g2 if x < Γ̄ else h2} (x-Γ̄)², vectorized over arrays.

    Build with :meth:`from_moments` (the fields are its result); call it on a float or an array of
    Γ values.

    Parameters
    ----------
    mean, var, left_var : float
        The moments Γ̄, V, V^ℓ the function was built from.
    g0, g1, g2, h2 : float
        Coefficients of Eq. 22.
    flat : bool
        Whether the flat-variance-ratio branch (Eq. 27) was used.
    form : {'corrected', 'paper'}, optional
        The B, C used (see the module docstring).
    identity : bool, optional
        True for a symmetric null distribution (Γ̄ = 0, V^ℓ = V/2), where g(x) = x.
    g0_rule : {'max_min_slope', 'closest_to_zero'}, optional
        How the free parameter was chosen (see the module docstring).

    Attributes
    ----------
    min_slope : float
        min of g' on [-1, 1] (= min(g'(-1), g'(Γ̄), g'(1))); > 0 means strictly increasing.

    References
    ----------
    P. Lombardo (2025). Standardization of Weighted Ranking Correlation Coefficients.
    arXiv preprint arXiv:2504.08428.

    Examples
    --------
    >>> from agreekit import StandardizationFunction, exact_moments
    >>> m = exact_moments("kendall", n=6, weigher="harmonic", scheme="additive")
    >>> g = StandardizationFunction.from_moments(m.mean, m.var, m.left_var)
    >>> round(g(-1.0), 12), round(g(1.0), 12)
    (-1.0, 1.0)
    >>> g.g0_rule, round(g.min_slope, 4)
    ('max_min_slope', 0.9075)
    >>> round(g(-0.5), 6), round(g(0.5), 6)
    (-0.399497, 0.546234)
    >>> abs(g.expected_value()) < 1e-15
    True

    Algorithm 1 of Lombardo (2025) ("g0 closest to 0") gives a g that is flat at Γ̄ here:

    >>> a1 = StandardizationFunction.from_moments(m.mean, m.var, m.left_var, g0_rule="closest_to_zero")
    >>> round(a1.min_slope, 6), abs(a1.expected_value()) < 1e-15
    (0.0, True)
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
    g0_rule: str = "max_min_slope"

    @property
    def min_slope(self) -> float:
        """Minimum of g' on [-1, 1]: min(g'(-1), g'(Γ̄), g'(1)) (g' is piecewise linear)."""
        return float(min(self.derivative(-1.0), self.g1, self.derivative(1.0)))

    @classmethod
    def from_moments(
        cls, mean, var, left_var, *, form="corrected", g0_rule=None, eps_flat=1e-4, eps_bound=1e-8
    ) -> "StandardizationFunction":
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
            ``'corrected'`` (default) gives E[g(Γ)] = 0; ``'paper'`` uses Lombardo's (2025)
            printed Eqs. 30/32, which do not (see module docstring).
        g0_rule : {'max_min_slope', 'closest_to_zero'} or None, optional
            How the free parameter is chosen: the g with the largest minimum slope on
            [-1, 1] (strictly increasing whenever possible), or Algorithm 1's g0 closest
            to 0. ``None`` (default) means ``'max_min_slope'`` for ``form='corrected'`` and
            ``'closest_to_zero'`` for ``form='paper'`` (which then reproduces the paper).
        eps_flat : float, optional
            Tolerance ε_f of the flat test |V^ℓ/V - (1+Γ̄)/2| < ε_f (Eq. 27).
        eps_bound : float, optional
            Tolerance ε_b for the zero tests of Algorithm 1.

        Raises
        ------
        BoundConsistencyError
            If the monotonicity bounds admit no g0 (or, flat case, no g1); with
            ``'max_min_slope'``, if even the best minimum slope is negative.
        InputError
            For moments outside their domain or an unknown ``form`` / ``g0_rule``.
        """
        form = check_choice("form", form, FORMS)
        return cls._from_checked(mean, var, left_var, form, _g0_rule_iv(g0_rule, form), eps_flat, eps_bound)

    @classmethod
    def _from_checked(cls, mean, var, left_var, form, rule, eps_flat=1e-4, eps_bound=1e-8):
        """:meth:`from_moments` with ``form`` and ``rule`` already validated (the rule resolved, not None):
        the entry of the library's inner layers, which validate their options once at the public call."""
        G, V, L, eps_flat, eps_bound = _moments_iv(mean, var, left_var, eps_flat, eps_bound)
        if abs(G) <= eps_bound and abs(L - V / 2) <= eps_bound:
            # symmetric null distribution (e.g. any coefficient at n = 2): g is the identity
            return cls(G, V, L, 0.0, 1.0, 0.0, 0.0, True, form, True, rule)
        one_m = 1.0 - G * G
        A = 2.0 * L - V * (1.0 + G)
        flat = abs(L / V - (1.0 + G) / 2.0) < eps_flat
        if rule == "max_min_slope":
            g0, g1 = _max_min_slope(G, V, L, A, form, flat, eps_bound)
        elif flat:
            g0, g1 = _flat_coefficients(G, V, L, A, form, eps_bound)
        else:
            Vb = (1.0 + G) ** 2 * V if form == "corrected" else one_m * V
            B = (Vb - 4.0 * G * L - one_m**2) / A
            C = (2.0 * (1.0 + G * G) * L - Vb) / A
            g0 = _algorithm1(G, B, C, eps_bound)
            g1 = (B * g0 + C) / one_m
        g2 = -(1.0 + g0) / (1.0 + G) ** 2 + g1 / (1.0 + G)
        h2 = (1.0 - g0) / (1.0 - G) ** 2 - g1 / (1.0 - G)
        return cls(G, V, L, float(g0), float(g1), float(g2), float(h2), bool(flat), form, False, rule)

    def __call__(self, x):
        """g evaluated at ``x`` (float or array; values are expected in [-1, 1])."""
        if type(x) is float and not self.identity:  # scalar fast path: the same arithmetic as below
            if x < self.mean:
                lp = x + 1.0
                return -1.0 + (self.g1 - 2.0 * self.g2 * (1.0 + self.mean)) * lp + self.g2 * lp * lp
            rp = x - 1.0
            return 1.0 + (self.g1 + 2.0 * self.h2 * (1.0 - self.mean)) * rp + self.h2 * rp * rp
        arr = np.asarray(x, dtype=np.float64)
        if self.identity:
            return float(arr) if arr.ndim == 0 else arr.copy()
        # each quadratic piece expanded around its end point, so that g(-1) = -1 and g(1) = 1
        # hold exactly in floating point (same polynomial as g0 + g1 u + {g2|h2} u², u = x - Γ̄)
        lp, rp = arr + 1.0, arr - 1.0
        s_left = self.g1 - 2.0 * self.g2 * (1.0 + self.mean)
        s_right = self.g1 + 2.0 * self.h2 * (1.0 - self.mean)
        out = np.where(arr < self.mean, -1.0 + s_left * lp + self.g2 * lp * lp, 1.0 + s_right * rp + self.h2 * rp * rp)
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

    def to_dict(self) -> dict:
        """The parameters of g and the moments behind it (JSON-ready); ``as_dict()`` is a deprecated alias."""
        return {
            "g0": self.g0,
            "g1": self.g1,
            "g2": self.g2,
            "h2": self.h2,
            "flat": self.flat,
            "form": self.form,
            "g0_rule": self.g0_rule,
            "min_slope": self.min_slope,
            "mean": self.mean,
            "var": self.var,
            "left_var": self.left_var,
        }


def _slopes(G, g0, g1):
    """g'(-1), g'(Γ̄), g'(1) for g with g(±1) = ±1, g(Γ̄) = g0, g'(Γ̄) = g1 (Eq. 22-23)."""
    return (2.0 * (1.0 + g0) / (1.0 + G) - g1, g1, 2.0 * (1.0 - g0) / (1.0 - G) - g1)


def _constraint_line(G, V, L, A, form, flat):
    """The line of admissible (g0, g1): a point p and a unit direction d, (g0, g1) = p + t d.

    ``form='corrected'``: E[g] = 0, i.e. α g0 + β g1 + γ = 0 with α = 1 - a - b,
    β = A/(1-Γ̄²), γ = b - a, a = V^ℓ/(1+Γ̄)², b = (V-V^ℓ)/(1-Γ̄)²; this covers the flat
    ratio (β → 0: g0 fixed, g1 free) without a separate branch. ``form='paper'``: the
    printed g1 = (B g0 + C)/(1-Γ̄²) (Eqs. 30/32), or in the flat case g0 from Eq. 28 and g1 free.
    """
    one_m = 1.0 - G * G
    if form == "corrected":
        a = L / (1.0 + G) ** 2
        b = (V - L) / (1.0 - G) ** 2
        alpha, beta, gamma = 1.0 - a - b, A / one_m, b - a
    elif flat:
        g0 = -V * G / (one_m - V)
        alpha, beta, gamma = 1.0, 0.0, -g0
    else:
        Vb = one_m * V
        B = (Vb - 4.0 * G * L - one_m**2) / A
        C = (2.0 * (1.0 + G * G) * L - Vb) / A
        alpha, beta, gamma = B, -one_m, C  # B g0 - (1-Γ̄²) g1 + C = 0
    norm2 = alpha * alpha + beta * beta
    p = np.array([-gamma * alpha / norm2, -gamma * beta / norm2])
    d = np.array([beta, -alpha]) / np.sqrt(norm2)
    if d[1] < 0 or (d[1] == 0 and d[0] < 0):
        d = -d
    return p, d


def _max_min_slope(G, V, L, A, form, flat, eps_bound):
    """(g0, g1) on the constraint line maximizing min(g'(-1), g'(Γ̄), g'(1)), g0 in [-1, 1].

    The objective is the minimum of three affine functions of the line parameter t, hence
    concave and piecewise linear: its maximum over an interval lies at an end or at a
    pairwise intersection. Ties (a plateau) are broken by |g0| (Algorithm 1's preference).
    """
    p, d = _constraint_line(G, V, L, A, form, flat)
    # slopes as c + e t
    c = np.array(_slopes(G, p[0], p[1]))
    e = np.array(_slopes(G, p[0] + d[0], p[1] + d[1])) - c
    lo, hi = -np.inf, np.inf
    if abs(d[0]) > 1e-300:
        t1, t2 = (-1.0 - p[0]) / d[0], (1.0 - p[0]) / d[0]
        lo, hi = min(t1, t2), max(t1, t2)
    elif abs(p[0]) > 1.0 + eps_bound:
        raise BoundConsistencyError(f"g0 = {p[0]:.6g} is outside [-1, 1] (mean={G}): no valid g")
    cands = [t for t in (lo, hi) if np.isfinite(t)]
    for i in range(3):
        for j in range(i + 1, 3):
            if abs(e[i] - e[j]) > 1e-15:
                cands.append((c[j] - c[i]) / (e[i] - e[j]))
    if abs(d[0]) > 1e-300:
        cands.append(-p[0] / d[0])  # g0 = 0, for the tie-break on a plateau
    cands = [min(max(t, lo), hi) for t in cands if np.isfinite(t)] or [min(max(0.0, lo), hi)]
    ts = np.array(cands)
    vals = np.min(c[:, None] + e[:, None] * ts[None, :], axis=0)
    best = vals.max()
    near = np.flatnonzero(vals >= best - 1e-13 * max(1.0, abs(best)))
    t = ts[near[np.argmin(np.abs(p[0] + ts[near] * d[0]))]]
    if best < -eps_bound:
        raise BoundConsistencyError(
            f"no monotone g exists: the largest attainable minimum slope of g on [-1, 1] is {best:.6g} < 0 "
            f"(mean={G}, var={V}, left_var={L})"
        )
    g0, g1 = p + t * d
    return float(g0), float(g1)


def _flat_coefficients(G, V, L, A, form, eps_bound):
    """Flat variance ratio (Section 3.1): g1 from Eq. 29, g0 from zero expectation."""
    one_m = 1.0 - G * G
    den = one_m - V
    if den <= 0:
        raise BoundConsistencyError(f"flat case with 1 - mean² - var = {den:.3g} <= 0: no valid g")
    top = 2.0 * min(1.0 - G - V, 1.0 + G - V)
    if top < -eps_bound:
        raise BoundConsistencyError(f"flat case: Eq. 29 requires 0 <= g1 <= {top / den:.6g} < 0 (mean={G}, var={V})")
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
    """Algorithm 1 of Lombardo (2025): g0 closest to 0 within the monotonicity bounds."""
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
            f"monotonicity bounds on g0 are empty: [{low:.6g}, {up:.6g}] (mean={G}, B={B:.6g}, C={C:.6g})"
        )
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


def standardize(
    gamma,
    *,
    coefficient: str = "kendall",
    scheme: str = "additive",
    weigher="harmonic",
    n: int | None = None,
    form: str = "corrected",
    g0_rule: str | None = None,
    table=None,
    extrapolate: bool = False,
    compute: bool = True,
    x=None,
    y=None,
):
    """Standardized coefficient g(Γ) with zero expected value under uniform random rankings.

    Γ is a weighted correlation of two rankings of length ``n`` (rank vectors, 1 = top, or
    scores ranked descending with ``kind="scores"``: the null is the same).

    Parameters
    ----------
    gamma : float or array_like
        Raw weighted coefficient(s) Γ in [-1, 1] computed on rankings of length ``n``.
    coefficient : {'kendall', 'spearman'}, optional
        Default ``'kendall'`` (as :func:`~agreekit.weighted_correlation_test`, :func:`~agreekit.exact_moments`,
        :func:`~agreekit.weighted_correlation` and the CLI).
    scheme : {'additive', 'multiplicative'}, optional
        Default ``'additive'``.
    weigher : str, Weigher or callable, optional
        Weigher spec of the 1-based rank (default ``"harmonic"``; ``"inverse_square:n0=1"``,
        ``"dcg"``, ...) or a Python callable of the rank.
    n : int
        Ranking length (>= 2); may be omitted when ``x``, ``y`` are given.
    form : {'corrected', 'paper'}, optional
        ``'corrected'`` (default) uses B, C with (1+Γ̄)²V, which gives E[g(Γ)] = 0;
        ``'paper'`` uses the printed Eq. 30/32 (biased, for comparison).
    g0_rule : {'max_min_slope', 'closest_to_zero'} or None, optional
        How g's free parameter is chosen: ``'max_min_slope'`` (the g with the largest minimum
        slope on [-1, 1], strictly increasing) or ``'closest_to_zero'`` (Lombardo's (2025) Algorithm 1,
        which usually makes g flat somewhere). ``None`` (default): ``'max_min_slope'`` for
        ``form='corrected'``, ``'closest_to_zero'`` for ``form='paper'``.
    table : CoefficientTable, path or scheme id, optional
        Table to read the moments from; default: the shipped table of the configuration, and
        when there is none (another weigher, a callable) moments computed at the exact n
        (:func:`~agreekit.ranking.tables.null_moments`: enumeration for n <= 10, else seeded Monte Carlo with an on-disk
        cache).
    extrapolate : bool, optional
        Allow n above the table's ``n_max`` (with a :class:`RuntimeWarning`).
    compute : bool, optional
        ``False`` forbids computing moments: without a table, an error (the former behaviour).
    x, y : array_like, optional
        The rankings ``gamma`` was computed from (tie-aware coefficient, ``ties="average"``).
        With ties, g is built from the moments of the permutation null that keeps both tie
        patterns fixed (:func:`~agreekit.ranking.tables.null_moments` with ``x``, ``y``), so E[g(Γ)] = 0 under that null;
        without ties this is the usual g at n = len(x).

    Returns
    -------
    float or numpy.ndarray
        g(Γ), same shape as ``gamma``.

    Raises
    ------
    InputError
        Unknown coefficient/scheme/weigher, no table for the scheme with ``compute=False``,
        n out of range, Γ outside [-1, 1] or not finite, corrupt table.

    See Also
    --------
    null_moments : the moments behind g, where they came from and their standard errors.

    References
    ----------
    P. Lombardo (2025). Standardization of Weighted Ranking Correlation Coefficients.
    arXiv preprint arXiv:2504.08428.

    Examples
    --------
    >>> from agreekit.ranking.standardization import standardize
    >>> from agreekit.ranking.tables import standardization_function
    >>> g = standardize([-1.0, 0.0, 1.0], coefficient="spearman", scheme="additive",
    ...                 weigher="harmonic", n=8)
    >>> [round(float(v), 6) for v in g][0], [round(float(v), 6) for v in g][2]
    (-1.0, 1.0)
    >>> standardize(0.4, n=30) == standardize(0.4, coefficient="kendall", scheme="additive",
    ...                                       weigher="harmonic", n=30)
    True

    No shipped table for DCG weights: the moments are computed at n (here enumerated, n = 8):

    >>> standardize(0.3, weigher="dcg", n=8) == float(standardization_function(weigher="dcg", n=8)(0.3))
    True

    Tied rankings: g from the null of their own tie patterns

    >>> from agreekit import weighted_kendall
    >>> x, y = [1, 2, 2, 4, 5, 6, 7, 8], [1, 1, 3, 4, 6, 5, 8, 7]
    >>> 0 < standardize(weighted_kendall(x, y), x=x, y=y) < 1
    True
    """
    try:
        if isinstance(gamma, (str, bytes)):
            raise TypeError
        if not isinstance(gamma, (float, int)) or isinstance(gamma, bool):  # bool, complex, masked...
            check_real_values("gamma", gamma)
        arr = np.asarray(gamma, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("gamma", f"must be a real number or an array of them; got {gamma!r}") from None
    if not np.all(np.isfinite(arr)):
        raise InputError("gamma", "must be finite (no NaN or infinite values)")
    if np.any(np.abs(arr) > 1 + 1e-12):
        raise InputError("gamma", "must lie in [-1, 1]")
    arr = np.clip(arr, -1.0, 1.0)
    # imported here: agreekit.ranking.tables (the tables and the on-demand moments) imports this module
    from agreekit.ranking.tables import standardization_function

    g = standardization_function(
        coefficient=coefficient,
        scheme=scheme,
        weigher=weigher,
        n=n,
        form=form,
        g0_rule=g0_rule,
        table=table,
        extrapolate=extrapolate,
        compute=compute,
        x=x,
        y=y,
    )
    out = np.asarray(g(arr), dtype=np.float64)
    return float(out) if out.ndim == 0 else out
