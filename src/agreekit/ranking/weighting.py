"""Weighting functions f(i) of the 1-based rank i, and how per-item weights combine.

A *weigher* is a named family with parameters, written with one spec grammar used
everywhere (library, CLI, config, table names)::

    spec   := family [":" param ("," param)*]
    param  := name "=" number

The families, their parameters (defaults and bounds) and formulas are the entries of
:data:`WEIGHER_FAMILIES` (the table of the user guide, *Weighted rank correlations*, lists them):
``harmonic`` (1/i), ``inverse_square:n0=K`` (1/(i+K)^2), ``power:p=P,n0=K`` (1/(i+K)^P), ``dcg``
(1/log2(i+1)) and more.  A parameter given twice (``power:p=1,p=2``), an unknown parameter, a
missing required one (``power``) or a value out of its bounds is an error.  User strings are
parsed, never evaluated.  In the Python API any callable ``f(i)`` (vectorised over a numpy array of
1-based ranks) is accepted too.

Ranks are **1-based** here (i = 1 is the top item).  ``scipy.stats.weightedtau``'s
``weigher`` takes 0-based ranks (r = 0 is the top): a scipy weigher ``scipy_w`` is
``lambda i: scipy_w(i - 1)`` here, and scipy's hyperbolic ``lambda r: 1 / (r + 1)`` is
``"harmonic"``.  Passing scipy's callable unchanged shifts every weight by one rank.

:data:`WEIGHER_FAMILIES` is the registry of the named families; :data:`SCHEME_REGISTRY` (names in
:data:`SCHEMES`) the combination schemes and :data:`COEFFICIENT_REGISTRY` (names in
:data:`COEFFICIENTS`) the coefficients.

Combination schemes (Lombardo 2025, Eqs. 12-13) for item i with ranks a_i, b_i:

* ``additive``:       w_i ∝ f(a_i) + f(b_i)
* ``multiplicative``: w_i ∝ f(a_i) · f(b_i)

Both coefficients are invariant to the scale of w, so the normalisations of
Eqs. 12-13 are immaterial and not applied.

The implementation is split along its seams: the spec grammar (:class:`Weigher`,
:func:`parse_weigher`) in ``_spec``, the rescaling policy of extreme weighers (``weigher_table``,
``item_weights``) in ``_rescaling``, their per-permutation numba kernels in ``_log_kernels`` and the
registries in ``_vocabulary``; this module is their public face.
"""

from __future__ import annotations

from agreekit.ranking._spec import COEFFICIENTS, SCHEMES, Weigher, parse_weigher, scheme_id
from agreekit.ranking._spec import check_coefficient as check_coefficient  # noqa: F401  (re-export)
from agreekit.ranking._spec import check_scheme as check_scheme  # noqa: F401  (re-export)
from agreekit.ranking._vocabulary import (
    COEFFICIENT_REGISTRY,
    SCHEME_REGISTRY,
    WEIGHER_FAMILIES,
    Coefficient,
    Parameter,
    Scheme,
    WeigherFamily,
)

__all__ = [
    "Weigher",
    "parse_weigher",
    "WEIGHER_FAMILIES",
    "SCHEMES",
    "COEFFICIENTS",
    "scheme_id",
    "COEFFICIENT_REGISTRY",
    "SCHEME_REGISTRY",
    "Coefficient",
    "Scheme",
    "WeigherFamily",
    "Parameter",
]

# check_scheme / check_coefficient: the configuration checks of agreekit.metaeval (a public name is the
# only way in from another area); the rest of agreekit.ranking imports them from _spec.
