"""One validated (coefficient, scheme, weigher) configuration, parsed once where a call enters the library.

Every public function of :mod:`agreekit.ranking` that takes ``coefficient``, ``scheme`` and
``weigher`` validates them once, with :func:`configuration`, into a frozen :class:`Config`; the
layers below it (the test, the table lookup, the moments, the caches) take that object as it is and
validate nothing again.  The CLI builds the :class:`Config` at its own boundary and passes it to the
same inner functions (before, one ``agreekit correlate --test`` parsed the weigher spec 8
times and ran ``check_choice`` 9 times before the first number).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from agreekit.ranking._spec import Weigher, check_coefficient, check_scheme, parse_weigher
from agreekit.ranking._vocabulary import COEFFICIENT_REGISTRY, SCHEME_REGISTRY


@dataclass(frozen=True)
class Config:
    """A validated configuration: ``coefficient`` and ``scheme`` as their canonical strings, ``weigher``
    a :class:`~agreekit.ranking.weighting.Weigher`."""

    coefficient: str
    scheme: str
    weigher: Weigher

    @property
    def coef(self) -> int:
        """The kernels' coefficient code, from :data:`~agreekit.ranking.weighting.COEFFICIENT_REGISTRY`
        (a name that is not there raises ``KeyError``: the names were checked when the object was built)."""
        return COEFFICIENT_REGISTRY[self.coefficient].code

    @property
    def mult(self) -> bool:
        """Whether the item weights multiply (else they add), from
        :data:`~agreekit.ranking.weighting.SCHEME_REGISTRY` (an unknown name raises ``KeyError``)."""
        return SCHEME_REGISTRY[self.scheme].multiplicative

    @property
    def is_callable(self) -> bool:
        """Whether the weigher is a Python callable (no table ships for it, its values are not cached)."""
        return self.weigher.family == "callable"

    @property
    def scheme_id(self) -> str:
        """:func:`agreekit.ranking.weighting.scheme_id` of the configuration (without validating it again;
        ``tests/test_ranking_validate_once.py`` checks that the two agree)."""
        return f"{self.coefficient}_{self.scheme}_{self.weigher.slug}"


def configuration(coefficient, scheme, weigher) -> Config:
    """The :class:`Config` of public arguments: each validated once (an :class:`~agreekit.InputError`
    names the bad one).  String arguments are memoized (the O(1) table path of
    :func:`agreekit.weighted_correlation_test` pays for no parsing on a repeated call)."""
    if type(coefficient) is str and type(scheme) is str and type(weigher) is str:
        return _memo(coefficient, scheme, weigher)
    return _parse(coefficient, scheme, weigher)


def _parse(coefficient, scheme, weigher) -> Config:
    return Config(check_coefficient(coefficient), check_scheme(scheme), parse_weigher(weigher))


@lru_cache(maxsize=256)
def _memo(coefficient: str, scheme: str, weigher: str) -> Config:
    return _parse(coefficient, scheme, weigher)
