"""The four recipes of the developer guide (docs/dev/recipes.md), each followed by a test.

A toy entry is put into a registry the way the recipe says (monkeypatched in, restored after the test),
and the test shows that what the recipe promises follows from the entry alone: the library parses and
computes it (against a value written here by hand or by brute force), the CLI lists it, the docs table
generator shows it.  Steps that edit a file (a config schema, a docs table) are checked for their target:
the file holds what the recipe says it holds, built from or equal to the registry.  The coefficient
recipe's list of dispatchers is checked against the source (every function that branches on a
coefficient code) and against the tests that make each of them fail closed, so that it cannot go stale.

Registries whose derived tables are built at import (the IR metric parser's patterns, the clustering
aliases) are extended by re-executing their module's source with the toy entry appended to the registry
literal (:func:`_with_entry`), so that every derived table is rebuilt by the module's own code.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import itertools
import math
import re
import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from agreekit import InputError

ROOT = Path(__file__).resolve().parents[1]
RECIPES = ROOT / "docs" / "dev" / "recipes.md"

sys.path.insert(0, str(Path(__file__).parent))


# ------------------------------------------------------------------ helpers


def _section(title: str) -> str:
    """The text of the recipe ``## title`` of docs/dev/recipes.md (up to the next ``## ``)."""
    text = RECIPES.read_text(encoding="utf-8")
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, flags=re.S | re.M)
    assert m, f"docs/dev/recipes.md has no section '## {title}'"
    return m.group(1)


def _paths_named(section: str) -> set[str]:
    """Every repository path written in backquotes in a recipe (``src/...``, ``tests/...``, ...)."""
    return set(re.findall(r"`((?:src|tests|config|docs|benchmarks|workflow)/[\w./-]+)`", section))


def _patch_everywhere(monkeypatch, old, new, name: str) -> None:
    """Replace ``old`` by ``new`` in every loaded agreekit module that holds it under ``name``."""
    for modname, mod in list(sys.modules.items()):
        if (modname == "agreekit" or modname.startswith("agreekit.")) and getattr(mod, name, None) is old:
            monkeypatch.setattr(mod, name, new)


def _with_entry(monkeypatch, module: types.ModuleType, registry: str, entry_name: str, entry) -> types.ModuleType:
    """Re-execute ``module``'s source with ``entry`` appended to the literal that builds ``registry`` (a list
    literal or a call such as ``_registry(...)``), then put every data table of the fresh copy that differs
    (the registry and what the module derives from it at import) into the original module and into every
    module that imported it by name.  Returns the fresh copy."""
    source = Path(module.__file__).read_text(encoding="utf-8")
    tree = ast.parse(source)
    for node in tree.body:
        target = (
            node.target
            if isinstance(node, ast.AnnAssign)
            else (node.targets[0] if isinstance(node, ast.Assign) else None)
        )
        if isinstance(target, ast.Name) and target.id == registry:
            value = node.value
            seq = value.elts if isinstance(value, ast.List) else value.args
            seq.append(ast.Name(entry_name, ast.Load()))
            break
    else:
        raise AssertionError(f"{module.__name__} has no '{registry} = ...' at module level")
    fresh = types.ModuleType(module.__name__ + "__recipe_copy")
    fresh.__dict__.update({"__file__": module.__file__, "__package__": module.__package__, entry_name: entry})
    monkeypatch.setitem(sys.modules, fresh.__name__, fresh)  # dataclasses look their module up
    exec(compile(ast.fix_missing_locations(tree), module.__file__, "exec"), fresh.__dict__)
    for name, value in fresh.__dict__.items():
        if name.startswith("__") or name == entry_name or not hasattr(module, name):
            continue
        if callable(value) and not isinstance(value, re.Pattern) or isinstance(value, types.ModuleType):
            continue  # functions and classes stay the original ones (they read the module's globals)
        old = getattr(module, name)
        if old is value or (type(old) is type(value) and _equal(old, value)):
            continue
        _patch_everywhere(monkeypatch, old, value, name)
    return fresh


def _equal(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - arrays and such: treat as different
        return False


def _cli_options(subcommand: str) -> dict:
    import argparse

    from agreekit.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[subcommand]
    return {a.dest: a for a in sub._actions}


def _fresh_copy(module_name: str) -> types.ModuleType:
    """A fresh execution of a module (its import-time tables rebuilt from the registries as they are now)."""
    original = importlib.import_module(module_name)
    spec = importlib.util.spec_from_file_location(module_name + "__recipe_copy", original.__file__)
    fresh = importlib.util.module_from_spec(spec)
    fresh.__package__ = original.__package__
    spec.loader.exec_module(fresh)
    return fresh


# ------------------------------------------------------------------ recipe: a weigher family


def _toy_family():
    from agreekit.ranking._vocabulary import Parameter, WeigherFamily

    # f(i) = h / (h + i - 1): 1 at the top, halving at rank h + 1 (a toy, not a published family)
    return WeigherFamily(
        "toy_halving",
        lambda i, h: h / (h + i - 1.0),
        lambda i, h: np.log(h) - np.log(h + i - 1.0),
        (Parameter("h", None, 0.0, math.inf, "must be a positive number", example=2.0),),
        label="{h}/({h}+i-1)",
        doc="a toy family of the developer guide's recipe test",
    )


def _kendall_by_definition(x, y, w):
    num = den = 0.0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            pw = w[i] * w[j]
            num += pw * np.sign((x[j] - x[i]) * (y[j] - y[i]))
            den += pw
    return num / den


def test_weigher_family_recipe(monkeypatch):
    from agreekit import exact_moments, weighted_kendall
    from agreekit.ranking import _spec, _vocabulary, weighting
    from agreekit.ranking.weighting import parse_weigher

    section = _section("A new weigher family")
    assert {
        "src/agreekit/ranking/_vocabulary.py",
        "config/config.schema.yaml",
        "config/metaeval.schema.yaml",
        "docs/guide/ranking.md",
        "tests/test_ranking_vocabulary.py",
        "tests/test_ranking_geometric.py",
    } <= _paths_named(section)
    for path in _paths_named(section):
        assert (ROOT / path).exists(), path
    # every reader of the registry holds the one dict that step 1 edits
    assert weighting.WEIGHER_FAMILIES is _spec.WEIGHER_FAMILIES is _vocabulary.WEIGHER_FAMILIES

    # step 1: the entry
    fam = _toy_family()
    monkeypatch.setitem(_vocabulary.WEIGHER_FAMILIES, fam.name, fam)

    # the parser, its bounds and its messages follow
    w = parse_weigher("toy_halving:h=2")
    assert w.family == "toy_halving" and w.params == (("h", 2.0),) and w.label == "2/(2+i-1)"
    np.testing.assert_array_equal(w(np.arange(1, 6)), [2 / 2, 2 / 3, 2 / 4, 2 / 5, 2 / 6])
    with pytest.raises(InputError, match="weigher.*h must be a positive number; got 0"):
        parse_weigher("toy_halving:h=0")
    with pytest.raises(InputError, match="weigher.*needs parameter"):
        parse_weigher("toy_halving")

    # the library computes with it: weighted Kendall by the definition written above
    rng = np.random.default_rng(11)
    for scheme in ("additive", "multiplicative"):
        x, y = rng.permutation(9) + 1, rng.permutation(9) + 1
        fx, fy = 2.0 / (2.0 + x - 1.0), 2.0 / (2.0 + y - 1.0)
        wts = fx * fy if scheme == "multiplicative" else fx + fy
        assert weighted_kendall(x, y, weigher="toy_halving:h=2", scheme=scheme) == pytest.approx(
            _kendall_by_definition(x, y, wts), rel=1e-13
        )

    # on-demand moments: exact mean and variance of Γ(id, π) against all 5! permutations
    n = 5
    ident = np.arange(1, n + 1)
    gammas = []
    for perm in itertools.permutations(range(1, n + 1)):
        y = np.array(perm)
        gammas.append(_kendall_by_definition(ident, y, 2.0 / (1.0 + ident) + 2.0 / (1.0 + y)))
    m = exact_moments("kendall", n=n, weigher="toy_halving:h=2", scheme="additive")
    assert m.mean == pytest.approx(np.mean(gammas), abs=1e-14)
    assert m.var == pytest.approx(np.var(gammas), rel=1e-12)

    # the CLI's --weigher help lists it (built from the registry when the parser is built)
    helptext = " ".join(_cli_options("correlate")["weigher"].help.split())
    assert "toy_halving:h=... (h/(h+i-1))" in helptext

    # step 3: the docs-table generator gives the row to paste into docs/guide/ranking.md
    table = _vocabulary.docs_table("weighers")
    assert "| `toy_halving:h=...` | h/(h+i-1) | `h` > 0, finite (required) | a toy family" in table
    guide = (ROOT / "docs" / "guide" / "ranking.md").read_text(encoding="utf-8")
    monkeypatch.delitem(_vocabulary.WEIGHER_FAMILIES, fam.name)
    assert _vocabulary.docs_table("weighers") in guide  # the table the row goes into is the registry's

    # step 2: each schema's weigher pattern starts with the alternation of the registry's family names
    for schema in ("config.schema.yaml", "metaeval.schema.yaml"):
        text = (ROOT / "config" / schema).read_text(encoding="utf-8")
        alternations = re.findall(r'pattern: "\^\(([a-z_|]+)\)', text)
        assert alternations, schema
        for alt in alternations:
            assert sorted(alt.split("|")) == sorted(_vocabulary.WEIGHER_FAMILIES), schema
            # adding the name there is all it takes: the edited pattern accepts the toy's spec
            edited = re.search(r'pattern: "(\^\(' + re.escape(alt) + r'\)[^"]*)"', text).group(1)
            edited = edited.replace(f"({alt})", f"({alt}|toy_halving)", 1)
            assert re.search(yaml.safe_load(f'"{edited}"'), "toy_halving:h=2"), schema


# ------------------------------------------------------------------ recipe: a clustering measure


def _toy_cluster_count_ratio(U, V, **options):
    """min(k_U, k_V) / max(k_U, k_V) of the numbers of clusters (a toy, not a published measure)."""
    from agreekit.clustering import as_clustering

    ku, kv = as_clustering(U, name="U").k, as_clustering(V, name="V").k
    return min(ku, kv) / max(ku, kv)


def test_clustering_measure_recipe(monkeypatch, tmp_path, capsys):
    from agreekit.cli import main
    from agreekit.clustering import _registry, get_measure, list_measures

    section = _section("A new clustering measure")
    assert {
        "src/agreekit/clustering/_registry.py",
        "src/agreekit/_cli/clustering.py",
        "src/agreekit/clustering/_trials.py",
        "config/clustering.schema.yaml",
        "tests/test_clustering_registry.py",
    } <= _paths_named(section)
    for path in _paths_named(section):
        assert (ROOT / path).exists(), path

    # step 1: one line in _SPECS (MEASURES, the aliases and the listing are derived from it)
    toy = _registry._spec(
        "toy_count_ratio", _toy_cluster_count_ratio, "ratio of the numbers of clusters (toy)", "toy_ratio"
    )
    _with_entry(monkeypatch, _registry, "_SPECS", "_TOY_SPEC", toy)

    import agreekit.clustering as clustering

    assert clustering.MEASURES["toy_count_ratio"] is toy and _registry.MEASURES is clustering.MEASURES
    assert get_measure("TOY-RATIO") is toy  # aliases, case and '-' as everywhere
    U, V = [0, 0, 1, 1, 2], [0, 0, 0, 1, 1]
    assert get_measure("toy_count_ratio")(U, V) == 2 / 3
    assert [r["name"] for r in list_measures()][-1] == "toy_count_ratio"
    with pytest.raises(InputError, match="unknown measure 'toy_nope'"):
        get_measure("toy_nope")

    # the CLI: -m takes it, --list shows it
    (tmp_path / "u.txt").write_text("\n".join(map(str, U)) + "\n")
    (tmp_path / "v.txt").write_text("\n".join(map(str, V)) + "\n")
    assert main(
        ["clustering", str(tmp_path / "u.txt"), str(tmp_path / "v.txt"), "-m", "toy_ratio", "--format", "csv"]
    ) in (0, None)
    out = capsys.readouterr().out
    assert out.splitlines() == ["measure,value", f"toy_count_ratio,{2 / 3!r}"]
    assert main(["clustering", "--list", "--format", "csv"]) in (0, None)
    assert any(
        line.startswith("toy_count_ratio,similarity,partition,false,") for line in capsys.readouterr().out.splitlines()
    )

    # step 3 (graph=True measures only): the CLI's list of graph-aware measures is the registry's
    from agreekit._cli import clustering as cli_clustering

    assert set(cli_clustering._GRAPH_MEASURES) == {s.name for s in _registry.MEASURES.values() if s.graph}

    # step 4 (a figure of the pipeline): each experiment's measure enum in the schema is its figure's keys
    from agreekit.clustering import _trials

    schema = yaml.safe_load((ROOT / "config" / "clustering.schema.yaml").read_text(encoding="utf-8"))
    enums = []
    for _, node in _walk(schema):
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        if isinstance(props.get("measures"), dict) and "enum" in props["measures"].get("items", {}):
            enums.append(props["measures"]["items"]["enum"])
    figures = [list(_trials.FIGURE7_MEASURES), list(_trials.FIGURE8_MEASURES), list(_trials.FIGURE9_MEASURES)]
    assert sorted(map(sorted, enums)) == sorted(map(sorted, figures))
    for key, (name, _label) in _trials.FIGURE7_MEASURES.items():
        assert get_measure(name).name == name, key  # Figure 7's keys map to registry names


def _walk(node):
    if isinstance(node, dict):
        yield "", node
        for v in node.values():
            yield from _walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v)


# ------------------------------------------------------------------ recipe: an IR metric


def _toy_hits(L, spec):
    """Number of relevant documents (gain > 0) in the top k (every retrieved document without @k)."""
    k = math.inf if spec.cutoff is None else spec.cutoff
    mask = (L.gain > 0) & (L.pos <= k)
    return np.bincount(L.seg[mask], minlength=L.n_topics).astype(np.float64)


def test_ir_metric_recipe(monkeypatch):
    from agreekit.ireval import _registry, evaluate, parse_metric

    section = _section("A new IR metric")
    assert {
        "src/agreekit/ireval/_registry.py",
        "src/agreekit/ireval/_kernels_ir.py",
        "tests/test_ireval_registry.py",
    } <= _paths_named(section)
    for path in _paths_named(section):
        assert (ROOT / path).exists(), path

    # step 1: a MetricDefinition in METRICS, its kernel a function (RankedLists, MetricSpec) -> per-topic values
    toy = _registry.MetricDefinition(
        "Hits",
        _toy_hits,
        "number of relevant documents in the top k (toy)",
        aliases=("NumRelRet",),
        trec_eval=("hits_{k}",),
    )
    with pytest.raises(InputError, match="unsupported metric 'Hits@2'"):
        parse_metric("Hits@2")  # before: fails closed
    _with_entry(monkeypatch, _registry, "METRICS", "_TOY_METRIC", toy)

    import agreekit.ireval as ireval
    from agreekit.ireval import _evaluate

    assert ireval.METRICS["Hits"] is toy and _evaluate.METRICS is _registry.METRICS
    # the parser: the name, its alias, its trec_eval spelling, the cut-off; "did you mean" knows it
    assert parse_metric("Hits@2") == _registry.MetricSpec("Hits@2", "Hits", 2)
    assert parse_metric("NumRelRet").kind == "Hits" and parse_metric("hits_5").cutoff == 5
    with pytest.raises(InputError, match="did you mean 'Hits@2'"):
        parse_metric("Hitz@2")
    assert "Hits@k (NumRelRet)" in _registry.supported_text()

    # evaluate on a tiny qrels + run, the values counted by hand
    qrels = {"1": {"d1": 1, "d2": 0, "d3": 2}, "2": {"d4": 1}}
    run = pd.DataFrame(
        {
            "topic": ["1", "1", "1", "1", "2", "2"],
            "docno": ["d2", "d1", "d3", "d5", "d6", "d4"],
            "score": [4.0, 3.0, 2.0, 1.0, 2.0, 1.0],
        }
    )
    res = evaluate(qrels, {"s": run}, ["Hits@2", "Hits", "hits_1"])
    np.testing.assert_array_equal(res["Hits@2"]["s"], [1.0, 1.0])  # topic 1: d2 (0), d1 (1); topic 2: d6, d4
    np.testing.assert_array_equal(res["Hits"]["s"], [2.0, 1.0])  # topic 1: d1 and d3
    np.testing.assert_array_equal(res["hits_1"]["s"], [0.0, 0.0])  # d2 and d6 are not relevant

    # the CLI's --metrics help is built from the registry
    from agreekit._cli import bootstrap as cli_bootstrap

    assert "Hits[@k] (NumRelRet)" in cli_bootstrap.supported_metric_names()
    assert "Hits[@k] (NumRelRet)" in " ".join(_cli_options("evaluate")["metrics"].help.split())


# ------------------------------------------------------------------ recipe: a coefficient


def _dispatchers_in_source() -> set[str]:
    """``module.function`` of every function of src/agreekit that compares a value with the SPEARMAN or
    KENDALL code (the branches a new coefficient must join)."""
    out = set()
    for path in sorted((ROOT / "src" / "agreekit").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = path.stem if path.parent.name != "tablegen" else f"tablegen/{path.stem}"

        def visit(node, func):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    visit(child, child.name if func is None else func)
                    continue
                if isinstance(child, ast.Compare):
                    for side in (child.left, *child.comparators):
                        name = side.id if isinstance(side, ast.Name) else getattr(side, "attr", None)
                        if name in ("SPEARMAN", "KENDALL"):
                            assert func is not None, f"{path}: a module-level branch on a coefficient code"
                            out.add(f"{module}.{func}")
                visit(child, func)

        visit(tree, None)
    return out


def _recipe_dispatchers() -> set[str]:
    section = _section("A new coefficient")
    m = re.search(r"<!-- dispatchers -->\n(.*?)<!-- /dispatchers -->", section, flags=re.S)
    assert m, "the coefficient recipe must list its dispatchers between <!-- dispatchers --> markers"
    return set(re.findall(r"`((?:tablegen/)?\w+\.\w+)`", m.group(1)))


def test_coefficient_recipe_lists_every_dispatcher_and_each_fails_closed():
    import test_ranking_vocabulary as tv

    recipe = _recipe_dispatchers()
    assert recipe == _dispatchers_in_source()
    # each one is made to fail closed by a test of tests/test_ranking_vocabulary.py: it is called there with
    # an unknown code, or every function of the ranking area that calls it is (transitively)
    covered = {k.replace("_fused.", "tablegen/_fused.") for k in tv.DISPATCHERS}
    vocabulary_tests = (ROOT / "tests" / "test_ranking_vocabulary.py").read_text(encoding="utf-8")
    callers: dict[str, set[str]] = {}
    for path in (ROOT / "src" / "agreekit" / "ranking").rglob("*.py"):
        module = path.stem if path.parent.name != "tablegen" else f"tablegen/{path.stem}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef):
                for c in ast.walk(node):
                    if isinstance(c, ast.Call) and c is not node:
                        callee = getattr(c.func, "attr", getattr(c.func, "id", None))
                        callers.setdefault(callee, set()).add(f"{module}.{node.name}")

    def fails_closed_in_a_test(name: str, seen=()) -> bool:
        if name in covered:
            return True
        up = callers.get(name.split(".")[-1], set()) - {name}
        return bool(up) and name not in seen and all(fails_closed_in_a_test(u, (*seen, name)) for u in up)

    for name in sorted(recipe):
        if name == "_kernels._last_two":  # inlined in parallel loops: returns a sentinel, tested by name
            assert "_kernels._last_two(" in vocabulary_tests and "returns_the_sentinel" in vocabulary_tests
            continue
        assert fails_closed_in_a_test(name), f"{name}: no test of tests/test_ranking_vocabulary.py makes it fail closed"


def test_coefficient_recipe_steps(monkeypatch):
    from agreekit.ranking import _kernels, _vocabulary
    from agreekit.ranking._vocabulary import Coefficient

    section = _section("A new coefficient")
    for path in _paths_named(section):
        assert (ROOT / path).exists(), path
    assert "test_known_codes_still_compute" in section and "test_unknown_code_raises" in section

    # step 1: the next code
    code = len(_vocabulary.COEFFICIENT_REGISTRY)
    toy = Coefficient("toy", code, "toy γ", "a toy coefficient of the developer guide's recipe test")
    monkeypatch.setitem(_vocabulary.COEFFICIENT_REGISTRY, "toy", toy)
    assert _vocabulary.coefficient_code("toy") == code
    # until step 2 the kernels refuse its code (fail closed), they never compute another coefficient
    x = np.arange(1, 9, dtype=np.int64)
    w = np.ones(8)
    with pytest.raises(ValueError, match="unknown coefficient code"):
        _kernels.coefficient_weighted(x, x[::-1].copy(), w, code)
    # step 3: the docs row comes from the registry; step 4: the CLI choices are built from it at import
    assert "| `toy` | toy γ | a toy coefficient" in _vocabulary.docs_table("coefficients")
    assert "toy" in _fresh_copy("agreekit._cli.ranking").COEFFICIENTS
    monkeypatch.delitem(_vocabulary.COEFFICIENT_REGISTRY, "toy")
    # step 3's targets: the schema's coefficient enums and per-coefficient objects are the registry's names
    names = list(_vocabulary.COEFFICIENT_REGISTRY)
    schema = yaml.safe_load((ROOT / "config" / "config.schema.yaml").read_text(encoding="utf-8"))
    enums, keyed = [], []
    for _, node in _walk(schema):
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        if isinstance(props.get("coefficient"), dict) and "enum" in props["coefficient"]:
            enums.append(props["coefficient"]["enum"])
        if props and set(props) & set(names):
            keyed.append(sorted(props))
    assert len(enums) >= 3 and all(e == names for e in enums), enums
    assert all(k == sorted(names) for k in keyed), keyed
