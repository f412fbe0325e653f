"""The 16 configurations of the seed paper's Tables 2-5, shared by the ranking tests."""

import functools

from agreekit.ranking.moments import exact_moments

PAPER_CONFIGS = [
    (coef, scheme, weigher)
    for coef in ("spearman", "kendall")
    for scheme in ("additive", "multiplicative")
    for weigher in ("harmonic", "inverse_square:n0=0", "inverse_square:n0=1", "inverse_square:n0=2")
]


def csv_key(coef, scheme, f, n0):
    """Map a CSV row (coeff, scheme, f, n0) to our (coefficient, scheme, weigher spec)."""
    scheme = {"add": "additive", "mult": "multiplicative"}[scheme]
    weigher = "harmonic" if f == "inv" else f"inverse_square:n0={int(n0)}"
    return coef, scheme, weigher


@functools.lru_cache(maxsize=None)
def cached_exact(coef, scheme, weigher, n):
    return exact_moments(coef, n=n, weigher=weigher, scheme=scheme)
