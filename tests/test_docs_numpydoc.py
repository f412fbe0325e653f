"""numpydoc's validator over every public object (the names in each area's ``__all__``, as the API reference
lists them): the checks the docs build enforces (docs/_ext/agreekit_apigen.py: CHECKS) pass for every object
outside the explicit pending lists, and an object on a pending list that passes now must leave it (the lists
only shrink).  Needs numpydoc (in the [test] extra as well as [docs]: a missing numpydoc fails, it does not skip)."""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
from numpydoc.validate import validate  # noqa: E402  (the [test] extra)
import agreekit_apigen as apigen  # noqa: E402


def public_objects() -> list[str]:
    names = ["agreekit.InputError"]
    for area in apigen.AREAS:
        importlib.import_module(f"agreekit.{area}")
        for name in apigen.public_names(area):
            names.append(f"agreekit.{area}.{name}")
    return names


NAMES = public_objects()
PENDING = set(apigen.PENDING_SPLIT) | set(apigen.PENDING_FIX)


def failures(name: str) -> list[str]:
    res = validate(name)
    return [f"{code}: {msg}" for code, msg in res["errors"] if code in apigen.CHECKS]


def _is_data(name: str) -> bool:
    module, _, attr = name.rpartition(".")
    obj = getattr(importlib.import_module(module), attr)
    return not (inspect.isclass(obj) or callable(obj))


@pytest.mark.parametrize("name", NAMES)
def test_docstring(name):
    if name in apigen.DATA:
        assert _is_data(name), f"{name} is listed as data but is callable: validate it"
        pytest.skip("data: documented by its #: comment")
    errors = failures(name)
    if name in PENDING:
        assert errors, (
            f"{name} passes numpydoc's {apigen.CHECKS} now: delete it from the pending list in docs/_ext/agreekit_apigen.py"
        )
        pytest.xfail(f"pending ({len(errors)} problems): " + "; ".join(errors))
    assert not errors, f"{name}:\n" + "\n".join(errors)


def test_pending_lists_name_public_objects():
    stray = sorted(PENDING - set(NAMES))
    assert not stray, f"pending entries that are not public objects: {stray}"
