"""The docstring examples of the bootstrap area's modules run and give the printed results."""
import doctest

import pytest

import agreekit.bootstrap
import agreekit.ir


@pytest.mark.parametrize("module", [agreekit.ir, agreekit.bootstrap])
def test_docstring_examples(module):
    res = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 5 and res.failed == 0
