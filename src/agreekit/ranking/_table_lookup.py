"""Which coefficient table a test of one configuration reads, memoized per table object.

:func:`find_table_for` is the lookup of :func:`agreekit.weighted_correlation_test`: the ``table=``
argument checked against the configuration (once per table object and configuration: a
:class:`~agreekit.ranking.tables.CoefficientTable` cannot change), or the shipped table of the
configuration, or None where none ships and none is required.
"""

from __future__ import annotations

from functools import lru_cache

from agreekit._validation import InputError
from agreekit.ranking._config import Config
from agreekit.ranking.tables import CoefficientTable, available_tables, resolve_table

_TABLE_MEMO: dict = {}


def find_table_for(table, config: Config, *, required: bool) -> CoefficientTable | None:
    """The table for ``config``: ``table`` (a table, path or scheme id, checked against ``config``), else
    the shipped one; None when none ships and ``required`` is False."""
    if isinstance(table, CoefficientTable) and not config.is_callable:
        # a table object cannot change: its check against the configuration is memoized (the
        # entry holds the table, so its id is not reused while the entry lives)
        key = (id(table), config.coefficient, config.scheme, config.weigher.spec)
        hit = _TABLE_MEMO.get(key)
        if hit is not None and hit[0] is table:
            return table
        tab = _find_uncached(table, config, required=required)
        if len(_TABLE_MEMO) > 256:
            _TABLE_MEMO.clear()
        _TABLE_MEMO[key] = (table,)
        return tab
    return _find_uncached(table, config, required=required)


def _find_uncached(table, config: Config, *, required: bool) -> CoefficientTable | None:
    if table is not None:
        return resolve_table(table, config)
    if config.is_callable:
        if required:
            raise InputError("table", "is required with method='table' for a Python callable weigher")
        return None
    if not required and config.scheme_id not in _shipped():
        return None
    return resolve_table(None, config)


@lru_cache(maxsize=1)
def _shipped() -> frozenset:
    return frozenset(available_tables())
