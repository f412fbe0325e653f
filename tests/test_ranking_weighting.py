import numpy as np
import pytest

from agreekit._validation import InputError
from agreekit.ranking.weighting import Weigher, parse_weigher


@pytest.mark.parametrize(
    "spec, canonical, ranks, expected",
    [
        ("harmonic", "harmonic", [1, 2, 4], [1.0, 0.5, 0.25]),
        ("inverse_square", "inverse_square:n0=0", [1, 2], [1.0, 0.25]),
        ("inverse_square:n0=2", "inverse_square:n0=2", [1, 2], [1 / 9, 1 / 16]),
        (" power:p=1.5, n0=1 ", "power:p=1.5,n0=1", [1, 3], [2**-1.5, 4**-1.5]),
        ("power:n0=0.5,p=1", "power:p=1,n0=0.5", [1], [1 / 1.5]),
        ("dcg", "dcg", [1, 3], [1.0, 0.5]),
    ],
)
def test_specs(spec, canonical, ranks, expected):
    w = parse_weigher(spec)
    assert w.spec == canonical
    np.testing.assert_allclose(w(np.array(ranks)), expected, rtol=1e-15)
    # canonical specs round-trip
    assert parse_weigher(w.spec) == w


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("bogus", "unknown family"),
        ("inverse_square:n0", "malformed parameter"),
        ("inverse_square:k=1", "no parameter 'k'"),
        ("inverse_square:n0=__import__('os')", "malformed parameter"),
        ("power:p=-2", "p must be a positive"),
        ("power:p=0", "p must be a positive"),
        ("inverse_square:n0=-1", "n0 must be > -1"),
        ("harmonic:", "nothing after"),
        ("harmonic:x=1", "no parameter 'x'"),
        ("power:p=1,p=2", "'p' is given twice"),  # issue 14: repeated key
        ("inverse_square:n0=1,n0=1", "'n0' is given twice"),
        ("power", "needs parameter\\(s\\) p"),  # issue 14: missing required parameter
        ("power:n0=1", "needs parameter\\(s\\) p"),
    ],
)
def test_bad_specs_name_the_parameter(spec, fragment):
    with pytest.raises(InputError, match=fragment) as exc:
        parse_weigher(spec)
    assert exc.value.parameter == "weigher"
    assert "`weigher`" in str(exc.value)


def test_callable_weigher():
    w = parse_weigher(lambda i: 1.0 / np.sqrt(i))
    assert isinstance(w, Weigher) and w.spec.startswith("callable:")
    np.testing.assert_allclose(w.table(4), 1 / np.sqrt([1, 2, 3, 4]))


def test_scalar_only_callable_is_vectorised():
    import math

    w = parse_weigher(lambda i: 1.0 / math.log(i + 1.0))  # math.log fails on arrays
    with pytest.raises(TypeError):
        math.log(np.arange(3) + 1.0)  # sanity: it really is scalar-only
    np.testing.assert_allclose(w.table(3), [1 / math.log(2), 1 / math.log(3), 1 / math.log(4)])


def test_nonpositive_weights_rejected():
    w = parse_weigher(lambda i: 2.0 - i)
    with pytest.raises(InputError, match="finite positive"):
        w.table(3)
