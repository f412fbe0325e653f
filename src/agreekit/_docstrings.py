"""Shared docstring parts, filled in one way that also works under ``python -OO``.

Several measures of an area share whole paragraphs of their docstrings (the parameters they all
take, a reference). The shared text is written once, in a mapping, and each docstring names the
parts it uses as ``%(name)s`` (scipy's convention; numpydoc and ``help()`` see the full text)::

    _PARTS = {"ranks": '''x, y : array_like
            The two rankings.'''}

    @docfill(_PARTS)
    def measure(x, y):
        '''One line.

        Parameters
        ----------
        %(ranks)s
        '''

``docfill(parts)`` is a decorator; for a function defined elsewhere, or after the fact, call
``docfill(parts)(func)`` (it returns ``func``). Under ``python -OO`` docstrings are ``None`` and
left so. A name missing from ``parts`` raises :class:`KeyError` at import (a template error
shows up at once, not in the rendered docs); a literal percent sign is written ``%%``.

Bottom layer: imports nothing from agreekit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

__all__ = ["docfill"]

_T = TypeVar("_T")


def docfill(parts: Mapping[str, str]) -> Callable[[_T], _T]:
    """A decorator that fills the ``%(name)s`` parts of an object's docstring from ``parts``.

    The object (a function or a class) is returned itself, its ``__doc__`` replaced by the
    filled text; a ``None`` docstring (``python -OO``) stays ``None``.
    """

    def fill(obj: _T) -> _T:
        doc = getattr(obj, "__doc__", None)
        if doc is not None:  # None under python -OO
            obj.__doc__ = doc % parts
        return obj

    return fill
