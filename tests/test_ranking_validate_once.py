"""Options are validated once per call (issue 21 §2), at the boundary where a call enters the library.

Before, following ``agreekit correlate --test`` from the CLI down, the weigher spec was parsed 8 times and
``check_choice`` ran 9 times before the first number (correlation -> test -> table lookup -> moments each
re-checked coefficient, scheme and weigher).  Now the CLI and every public function parse
(coefficient, scheme, weigher) once into a frozen :class:`agreekit.ranking._config.Config` that the
inner layers take as it is.  The counts are taken by wrapping the parser and ``check_choice`` in every
loaded agreekit module (a wrapper that sees nothing fails the test, see ``_counting``), on a cold memo.
"""

from __future__ import annotations

import collections
import sys

import numpy as np
import pytest

import agreekit._validation as V
import agreekit.ranking.weighting as W
from agreekit.cli import main
from agreekit.ranking import (
    exact_moments,
    null_moments,
    standardization_function,
    standardize,
    weighted_correlation,
    weighted_correlation_test,
    weighted_kendall,
)
from agreekit.ranking import _config
from agreekit.ranking.tables import available_tables, load_table


class Calls:
    def __init__(self):
        self.parse = 0
        self.choice = collections.Counter()

    def assert_once(self):
        assert self.parse == 1, f"weigher parsed {self.parse} times"
        assert self.choice, "check_choice was never seen: the wrapper is not in place"
        assert max(self.choice.values()) == 1, f"check_choice per option: {dict(self.choice)}"


@pytest.fixture
def calls(monkeypatch, tmp_path):
    """Wrap parse_weigher and check_choice wherever an agreekit module holds them; clear the memo."""
    monkeypatch.setenv("AGREEKIT_CACHE_DIR", str(tmp_path / "cache"))
    c = Calls()
    real_parse, real_choice = W.parse_weigher, V.check_choice

    def parse(spec):
        c.parse += 1
        return real_parse(spec)

    def choice(parameter, value, allowed):
        c.choice[parameter] += 1
        return real_choice(parameter, value, allowed)

    for name, mod in list(sys.modules.items()):
        if not name.startswith("agreekit") or mod is None:
            continue
        for attr, wrapper, real in (("parse_weigher", parse, real_parse), ("check_choice", choice, real_choice)):
            if getattr(mod, attr, None) is real:
                monkeypatch.setattr(mod, attr, wrapper)
    _config._memo.cache_clear()
    return c


def _files(tmp_path, x, y):
    fx, fy = tmp_path / "x.txt", tmp_path / "y.txt"
    fx.write_text("".join(f"{v}\n" for v in x))
    fy.write_text("".join(f"{v}\n" for v in y))
    return str(fx), str(fy)


X40 = np.arange(1, 41)
Y40 = X40.copy()
Y40[:6] = [2, 1, 4, 3, 6, 5]


@pytest.mark.parametrize(
    "n, extra, method",
    [
        (8, ["--test"], "exact"),  # exact null, n <= 10 (--test: the spelling, now deprecated)
        (40, ["--pvalue"], "table"),  # the shipped table's quantiles
        (40, ["--pvalue", "--method", "monte-carlo", "--n-resamples", "999", "--rng", "3"], "monte-carlo"),
        (40, ["--pvalue", "--standardize", "--form", "paper"], "table"),  # and g from the table
    ],
)
def test_correlate_test_parses_once(calls, tmp_path, capsys, n, extra, method):
    import json

    y = Y40[:n] if n == 40 else [1, 3, 2, 4, 6, 5, 8, 7]
    fx, fy = _files(tmp_path, np.arange(1, n + 1), y)
    assert main(["correlate", fx, fy, *extra]) == 0
    calls.assert_once()
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == method
    _config._memo.cache_clear()
    ref = weighted_correlation_test(
        np.arange(1, n + 1),
        np.asarray(y),
        method=method,
        **({"n_resamples": 999, "rng": 3} if method == "monte-carlo" else {}),
    )
    assert out["pvalue"] == ref.pvalue and out["value"] == weighted_kendall(np.arange(1, n + 1), y)


XT, YT = [1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 3, 4, 5, 5, 7, 8]


@pytest.mark.parametrize(
    "call",
    [
        lambda: weighted_correlation_test([1, 2, 3, 4, 5, 6, 7, 8], [1, 3, 2, 4, 6, 5, 8, 7]),
        lambda: weighted_correlation_test(
            X40,
            Y40,
            coefficient="spearman",
            scheme="multiplicative",
            weigher="inverse_square:n0=1",
            alternative="greater",
        ),
        lambda: weighted_correlation_test(
            X40, Y40, method="monte-carlo", n_resamples=999, rng=0, g0_rule="max_min_slope"
        ),
        lambda: weighted_correlation_test(
            np.arange(1, 16), np.r_[2, 1, np.arange(3, 16)], weigher="dcg", rng=0, n_resamples=2000
        ),  # no table: computed moments, sequential
        lambda: weighted_correlation_test(XT, YT, kind="scores"),  # ties (scores)
        lambda: weighted_correlation_test(
            X40, Y40, weigher=lambda i: 1.0 / (i + 0.5), method="monte-carlo", n_resamples=500, rng=1
        ),
        lambda: standardize(0.3, n=30),  # table path
        lambda: standardize(0.3, weigher="dcg", n=8, form="paper"),  # moments computed at n
        lambda: standardize(0.3, x=XT, y=YT, g0_rule="closest_to_zero"),  # the tie patterns' null
        lambda: standardization_function(coefficient="spearman", n=500),
        lambda: null_moments(weigher="inverse_square:n0=2", n=7),
        lambda: exact_moments("spearman", n=6, weigher="power:p=1.5,n0=1"),
        lambda: weighted_correlation([1, 2, 3, 4], [2, 1, 4, 3], coefficient="kendall", ties="raise"),
    ],
    ids=[
        "exact",
        "table",
        "monte-carlo",
        "sequential-computed",
        "ties",
        "callable",
        "standardize-table",
        "standardize-computed",
        "standardize-ties",
        "standardization_function",
        "null_moments",
        "exact_moments",
        "weighted_correlation",
    ],
)
def test_public_functions_validate_once(calls, call):
    value = call()
    calls.assert_once()
    assert value is not None


def test_the_memo_skips_the_parse_on_a_repeated_call(calls):
    """The O(1) table path pays for no parsing on a repeated call with string options."""
    first = weighted_correlation_test(X40, Y40)
    assert calls.parse == 1
    assert weighted_correlation_test(X40, Y40) == first and calls.parse == 1


@pytest.mark.parametrize("weigher", ["harmonic", "inverse_square:n0=1", "power:p=1.5,n0=2", "dcg"])
def test_config_scheme_id_is_weightings(weigher):
    for coefficient in ("kendall", "spearman"):
        for scheme in ("additive", "multiplicative"):
            assert _config.configuration(coefficient, scheme, weigher).scheme_id == W.scheme_id(
                coefficient, scheme, weigher
            )


def test_config_scheme_id_names_every_shipped_table():
    for sid in available_tables():
        tab = load_table(sid)
        assert _config.configuration(tab.coefficient, tab.scheme, tab.weigher).scheme_id == sid


def test_config_is_frozen_and_validated_once_into_canonical_form():
    cfg = _config.configuration("spearman", "multiplicative", W.parse_weigher("inverse_square:n0=1"))
    with pytest.raises(Exception):
        cfg.scheme = "additive"
    assert (cfg.coef, cfg.mult, cfg.is_callable, cfg.weigher.spec) == (0, True, False, "inverse_square:n0=1")
    with pytest.raises(V.InputError, match="`coefficient`"):
        _config.configuration("pearson", "additive", "harmonic")
