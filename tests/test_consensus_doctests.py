"""The docstring examples of agreekit.consensus run and give the printed output."""
import doctest

import pytest

import agreekit.consensus._io
import agreekit.consensus._kemeny
import agreekit.consensus._matrices
import agreekit.consensus.simulation


@pytest.mark.parametrize("module", [agreekit.consensus._matrices, agreekit.consensus._kemeny,
                                    agreekit.consensus.simulation, agreekit.consensus._io])
def test_doctests(module):
    res = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0
