"""The ranking vocabularies: one registry each, the single source of the CLI choices, the config schema
and the docs tables (checked here against the registry), and every dispatcher on a coefficient code or
name fails closed (an unknown one raises; it is never computed as Kendall)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from agreekit import InputError
from agreekit.ranking import _config, _exact_null, _kernels, _log_kernels, _rescaling, _tied_null, _vocabulary
from agreekit.ranking import correlation, significance
from agreekit.ranking.tablegen import _fused, sampling
from agreekit.ranking.weighting import (
    COEFFICIENT_REGISTRY,
    COEFFICIENTS,
    SCHEME_REGISTRY,
    SCHEMES,
    WEIGHER_FAMILIES,
    Weigher,
    parse_weigher,
)

ROOT = Path(__file__).resolve().parents[1]
BAD = 7  # not a code of COEFFICIENT_REGISTRY


# ------------------------------------------------------------------ the registries' faces


def _cli_parser():
    from agreekit.cli import build_parser

    return build_parser()


def _options(subcommand):
    parser = _cli_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[subcommand]
    return {a.dest: a for a in sub._actions}


@pytest.mark.parametrize("subcommand", ["moments", "correlate", "standardize"])
def test_cli_choices_are_the_registries(subcommand):
    opts = _options(subcommand)
    assert set(opts["coefficient"].choices) == set(COEFFICIENT_REGISTRY) == set(COEFFICIENTS)
    assert len(opts["coefficient"].choices) == len(COEFFICIENT_REGISTRY)
    assert opts["coefficient"].choices[0] == opts["coefficient"].default == "kendall"
    assert set(opts["scheme"].choices) == set(SCHEME_REGISTRY) == set(SCHEMES)
    assert len(opts["scheme"].choices) == len(SCHEME_REGISTRY)
    assert opts["scheme"].choices[0] == opts["scheme"].default == "additive"
    helptext = " ".join(opts["weigher"].help.split())
    for fam in WEIGHER_FAMILIES.values():
        assert fam.synopsis in helptext, fam.name
    # and no family the registry does not have: every "name (" / "name:" listed is a registry key
    listed = re.findall(r"(?:: |, )([a-z_]+)(?::| \()", helptext)
    assert listed == list(WEIGHER_FAMILIES)


def test_metaeval_cli_scheme_choices_are_the_registry():
    opts = _options("metaeval")
    assert list(opts["scheme"].choices) == list(SCHEME_REGISTRY)


def _walk(node, path=""):
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from _walk(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, f"{path}[{i}]")


def _family_alternation(pattern):
    m = re.match(r"^\^\(([a-z_|]+)\)", pattern)
    assert m, pattern
    return m.group(1).split("|")


@pytest.mark.parametrize("schema", ["config.schema.yaml", "metaeval.schema.yaml"])
def test_config_schema_is_the_registries(schema):
    doc = yaml.safe_load((ROOT / "config" / schema).read_text(encoding="utf-8"))
    seen = {"coefficient": 0, "scheme": 0, "weigher": 0}
    for path, node in _walk(doc):
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        # the enums of coefficient / scheme fields
        if isinstance(props.get("coefficient"), dict) and "enum" in props["coefficient"]:
            assert props["coefficient"]["enum"] == list(COEFFICIENT_REGISTRY), path
            seen["coefficient"] += 1
        if isinstance(props.get("scheme"), dict) and "enum" in props["scheme"]:
            assert props["scheme"]["enum"] == list(SCHEME_REGISTRY), path
            seen["scheme"] += 1
        # the family alternation of every weigher pattern
        if isinstance(props.get("weigher"), dict) and "pattern" in props["weigher"]:
            assert sorted(_family_alternation(props["weigher"]["pattern"])) == sorted(WEIGHER_FAMILIES), path
            seen["weigher"] += 1
        # objects keyed by coefficient (per-coefficient sizes, limits): exactly the registry's names
        if props and set(props) & set(COEFFICIENT_REGISTRY):
            assert set(props) == set(COEFFICIENT_REGISTRY), path
            if "required" in node:
                assert set(node["required"]) == set(COEFFICIENT_REGISTRY), path
    assert seen["scheme"] and seen["weigher"], seen  # the walk found the fields
    if schema == "config.schema.yaml":
        assert seen["coefficient"] >= 3, seen


def test_schema_pattern_accepts_every_family_spec():
    """The schema's weigher pattern accepts the canonical spec of every family (and refuses a stranger)."""
    doc = yaml.safe_load((ROOT / "config" / "config.schema.yaml").read_text(encoding="utf-8"))
    pattern = doc["properties"]["ranking"]["properties"]["schemes"]["items"]["properties"]["weigher"]["pattern"]
    for fam in WEIGHER_FAMILIES.values():
        spec = fam.name + (
            ":" + ",".join(f"{p.name}={p.example if p.default is None else p.default}" for p in fam.params)
            if fam.params
            else ""
        )
        assert parse_weigher(spec).family == fam.name
        assert re.search(pattern, spec), spec
    assert not re.search(pattern, "exponential:p=2")


@pytest.mark.parametrize("vocabulary", ["coefficients", "schemes", "weighers"])
def test_docs_table_is_the_registry(vocabulary):
    guide = (ROOT / "docs" / "guide" / "ranking.md").read_text(encoding="utf-8")
    table = _vocabulary.docs_table(vocabulary)
    assert table in guide, f"docs/guide/ranking.md must hold this table (paste it):\n{table}"
    # one row per entry, none more: the table in the guide ends where the registry's does
    first_row = table.splitlines()[2]
    start = guide.index(table.splitlines()[0])
    rows = []
    for line in guide[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    assert rows == table.splitlines()[2:] and rows[0] == first_row


def test_docs_table_rows_name_each_entry():
    """Independent of docs_table's formatting: each family's row has its name, f(i) with the parameter
    names and every parameter with its default."""
    guide = (ROOT / "docs" / "guide" / "ranking.md").read_text(encoding="utf-8")
    rows = {m.group(1): line for line in guide.splitlines() if (m := re.match(r"^\| `([a-z_]+)[:`]", line))}
    assert set(WEIGHER_FAMILIES) <= set(rows)
    assert set(COEFFICIENT_REGISTRY) <= set(rows) and set(SCHEME_REGISTRY) <= set(rows)
    for fam in WEIGHER_FAMILIES.values():
        assert fam.label.replace("{", "").replace("}", "") in rows[fam.name]
        for p in fam.params:
            assert f"`{p.name}`" in rows[fam.name]
            assert ("required" if p.default is None else "default") in rows[fam.name]


def test_registry_entries_are_complete():
    for name, c in COEFFICIENT_REGISTRY.items():
        assert c.name == name and c.label and c.doc
    assert sorted(c.code for c in COEFFICIENT_REGISTRY.values()) == list(range(len(COEFFICIENT_REGISTRY)))
    assert (_kernels.SPEARMAN, _kernels.KENDALL) == (_fused.SPEARMAN, _fused.KENDALL) == (0, 1)
    for name, s in SCHEME_REGISTRY.items():
        assert s.name == name and s.formula and s.doc
    i = np.arange(1.0, 31.0)
    for name, fam in WEIGHER_FAMILIES.items():
        assert fam.name == name and fam.label and fam.doc and callable(fam.func) and callable(fam.log)
        prm = {p.name: (p.example if p.default is None else p.default) for p in fam.params}
        # the log form is the log of the function (where both are finite)
        np.testing.assert_allclose(fam.log(i, **prm), np.log(fam.func(i, **prm)), rtol=1e-13, atol=1e-13)


# ------------------------------------------------------------------ fail closed: names


def test_unknown_names_raise():
    with pytest.raises(InputError, match="coefficient"):
        _vocabulary.coefficient_code("pearson")
    with pytest.raises(InputError, match="scheme"):
        _vocabulary.scheme_flag("geometric")
    with pytest.raises(InputError, match="weigher.*unknown family 'nope'"):
        parse_weigher("nope:p=1")
    with pytest.raises(InputError, match="weigher.*unknown family 'nope'"):
        Weigher("nope")  # a Weigher built by hand fails closed too
    with pytest.raises(InputError, match="coefficient"):
        sampling.sample_lanes("pearson", n=20, sizes=[4], lanes=[("harmonic", "additive")], key=(1, 2))


def test_config_codes_fail_closed():
    good = _config.configuration("kendall", "additive", "harmonic")
    assert (good.coef, good.mult) == (_kernels.KENDALL, False)
    forged = _config.Config("pearson", "sideways", good.weigher)  # bypassing configuration()
    with pytest.raises(KeyError):
        forged.coef
    with pytest.raises(KeyError):
        forged.mult


# ------------------------------------------------------------------ fail closed: kernel codes

X = np.arange(1, 9, dtype=np.int64)
Y = np.array([2, 1, 4, 3, 6, 5, 8, 7], dtype=np.int64)
F = 1.0 / np.arange(1.0, 9.0)
W = F[X - 1] + F[Y - 1]


@pytest.mark.parametrize("good", [_kernels.SPEARMAN, _kernels.KENDALL])
def test_known_codes_still_compute(good):
    """The guards do not change what the two codes compute (Kendall by its definition, written here)."""
    g = _kernels.coefficient_weighted(X, Y, W, good)
    if good == _kernels.KENDALL:
        num = den = 0.0
        for i in range(8):
            for j in range(i + 1, 8):
                p = W[i] * W[j]
                num += p * np.sign((X[j] - X[i]) * (Y[j] - Y[i]))
                den += p
        assert g == pytest.approx(num / den, rel=1e-14)
    else:
        mx, my = np.average(X, weights=W), np.average(Y, weights=W)
        ref = np.sum(W * (X - mx) * (Y - my)) / np.sqrt(np.sum(W * (X - mx) ** 2) * np.sum(W * (Y - my) ** 2))
        assert g == pytest.approx(ref, rel=1e-14)


DISPATCHERS = {
    "_kernels.pair_work": lambda: _kernels.pair_work(8, BAD),
    "_kernels.coefficient_weighted": lambda: _kernels.coefficient_weighted(X, Y, W, BAD),
    "_kernels.coefficient_pair": lambda: _kernels.coefficient_pair(X, Y, F, BAD, False),
    "_kernels._identity_coefficient": lambda: _kernels._identity_coefficient(Y, X, np.empty(8), F, BAD, False),
    "_kernels.batch_identity": lambda: _kernels.batch_identity(np.array([Y]), F, BAD, False),
    "_kernels._place": lambda: _kernels._place(
        F, BAD, False, 0, 1, np.zeros(6), np.zeros(6), np.zeros(9), np.zeros(9), X, 8
    ),
    "_kernels.exact_chunk_sums": lambda: _kernels.exact_chunk_sums(5, 2, F[:5], BAD, False, 0.0, 0, 20, np.empty(0)),
    "_exact_null._exact_chunk_counts": lambda: _exact_null._exact_chunk_counts(
        5, 2, F[:5], BAD, False, 0.0, 0.0, 0, 20
    ),
    "_log_kernels._log_gamma": lambda: _log_kernels._log_gamma(
        X, Y, np.log(F), BAD, False, np.empty(8), np.empty(8), np.empty(8)
    ),
    "_log_kernels.log_coefficient": lambda: _log_kernels.log_coefficient(X, Y, np.log(F), BAD, False),
    "_log_kernels.log_batch_identity": lambda: _log_kernels.log_batch_identity(np.array([Y]), np.log(F), BAD, False),
    "_log_kernels.log_exact_chunk_sums": lambda: _log_kernels.log_exact_chunk_sums(
        5, 2, np.log(F[:5]), BAD, False, 0.0, 0, 20, np.empty(0)
    ),
    "_log_kernels.log_exact_chunk_counts": lambda: _log_kernels.log_exact_chunk_counts(
        5, 2, np.log(F[:5]), BAD, False, 0.0, 0.0, 0, 20
    ),
    "significance._checked_coefficient": lambda: significance._checked_coefficient(X, Y, F, BAD, False),
    "_tied_null._gamma": lambda: _tied_null._gamma(
        X.astype(float), F, Y.astype(float), Y, F, 8, BAD, False, np.arange(8), np.empty(8)
    ),
    "_tied_null.TiedNull": lambda: _tied_null.TiedNull(
        [1, 1, 2, 3], [1, 2, 2, 3], parse_weigher("harmonic"), BAD, False
    ),
    "_rescaling.scratch_table": lambda: _rescaling.scratch_table(F, 8, BAD),
    "correlation._tied_coefficient": lambda: correlation._tied_coefficient(
        [1, 1, 2, 3], [1, 2, 2, 3], parse_weigher("harmonic"), BAD, False
    ),
    "_fused.fused_sample": lambda: _fused.fused_sample(
        BAD,
        8,
        np.uint64(1),
        np.uint64(2),
        0,
        2,
        np.ascontiguousarray(np.tile(F[:, None], (1, 4))),
        np.ones((2, 4), np.int64),
        np.empty((2, 4, 2)),
    ),
}


@pytest.mark.parametrize("name", list(DISPATCHERS))
def test_unknown_code_raises(name):
    with pytest.raises(ValueError, match="unknown coefficient code"):
        DISPATCHERS[name]()


def test_inlined_last_two_returns_the_sentinel():
    """The one helper inlined into parallel loops (a raise there would serialise them) returns NaN for an
    unknown code; its callers (exact_chunk_sums, the exact counts) raise before the loop (above)."""
    st = np.zeros(6)
    B = np.zeros(4)
    assert np.isnan(_kernels._last_two(F[:3], BAD, False, 3, st, B, 1, 2))
