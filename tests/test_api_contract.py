"""The public API contract (issue 20, ``shared/notes/api_conventions.md``), enforced by walking it.

Every public callable and result class of every area is inspected (``inspect``), and every CLI
subcommand's parser; a new function or option that breaks a rule of the one dialect fails here:

* no ``seed=`` / ``random_state=`` parameter (randomness is ``rng``, SPEC 7; old spellings only as
  deprecated aliases, which do not appear in the signature);
* ``method`` is an algorithm, never a coefficient; ``coefficient`` is the coefficient;
* one name per input option: no ``statistic`` / ``statistic_b`` / ``paired_statistic`` (→ ``summary``),
  no ``average`` (→ ``average_method``), ``alpha`` only as a significance level, ``ties`` a policy string;
* test functions (``*_test``) take ``alternative`` and return results that unpack into (statistic, pvalue);
* every result class has ``to_dict``; timing fields do not take part in ``==``;
* every name in an area's ``__all__`` has its own docstring (data: described in the module docstring);
* CLI: one meaning per option name across subcommands; options named as the API parameter they feed
  (or CLI-only, with a reason in ``agreekit._cli._common.CLI_ONLY_OPTIONS``); ``-o`` is a file,
  ``--alpha`` a significance level, ``--format`` on every subcommand.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import re
import subprocess
import sys

import pytest

AREA_MODULES = (
    "agreekit",
    "agreekit.ranking",
    "agreekit.consensus",
    "agreekit.clustering",
    "agreekit.ireval",
    "agreekit.metaeval",
    "agreekit.consensus.simulation",
)
#: public classes that hold inputs or specifications, not results (no to_dict required)
INPUT_CLASSES = {
    "Clustering",
    "Graph",
    "RankingData",
    "Weigher",
    "MeasureSpec",
    "InputError",
    "BoundConsistencyError",
    "TimeLimitWarning",
    "LFRWarning",
}
FORBIDDEN_PARAMETERS = {
    "seed": "rng",
    "random_state": "rng",
    "statistic": "summary",
    "statistic_b": "summary_b",
    "paired_statistic": "paired_summary",
    "average": "average_method",
}
COEFFICIENTS = ("kendall", "spearman", "pearson")
TIMING = re.compile(r"^(elapsed|seconds|wall_time|runtime|time|.*_seconds|.*_elapsed)$")


def _public():
    seen = set()
    for modname in AREA_MODULES:
        mod = importlib.import_module(modname)
        for name in getattr(mod, "__all__", ()):
            if name.startswith("__"):
                continue
            obj = getattr(mod, name)
            if inspect.ismodule(obj):
                continue
            key = (modname, name)
            if key not in seen:
                seen.add(key)
                yield modname, name, obj


PUBLIC = list(_public())
CALLABLES = [(m, n, o) for m, n, o in PUBLIC if inspect.isfunction(inspect.unwrap(o)) or inspect.isclass(o)]
FUNCTIONS = [(m, n, o) for m, n, o in PUBLIC if inspect.isfunction(inspect.unwrap(o))]


def _ids(items):
    return [f"{m}.{n}" for m, n, _ in items]


def _parameters(obj):
    try:
        return inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return {}


def _param_doc(obj, name: str) -> str:
    """The numpydoc block of parameter ``name`` in ``obj``'s docstring ('' if absent)."""
    doc = inspect.getdoc(obj) or ""
    lines = doc.splitlines()
    for i, line in enumerate(lines):
        if re.match(rf"^\s*{re.escape(name)}\s*(,\s*\w+\s*)*:", line) or re.match(
            rf"^\s*(\w+\s*,\s*)+{name}\s*:", line
        ):
            block = [line]
            for nxt in lines[i + 1 :]:
                if nxt and not nxt.startswith(" "):
                    break
                block.append(nxt)
            return "\n".join(block)
    return ""


def _result_classes():
    """Dataclasses in ``__all__`` and every class a public function is annotated to return."""
    out = {}
    for modname, name, obj in PUBLIC:
        if inspect.isclass(obj) and dataclasses.is_dataclass(obj) and name not in INPUT_CLASSES:
            out[f"{obj.__module__}.{obj.__qualname__}"] = obj
    for modname, name, obj in FUNCTIONS:
        func = inspect.unwrap(obj)
        ann = func.__annotations__.get("return")
        if isinstance(ann, str):
            ann = func.__globals__.get(ann.strip("'\""))
        if inspect.isclass(ann) and ann.__module__.startswith("agreekit") and ann.__name__ not in INPUT_CLASSES:
            out[f"{ann.__module__}.{ann.__qualname__}"] = ann
    return sorted(out.items())


RESULTS = _result_classes()


# ----------------------------------------------------------------------------- docstrings
@pytest.mark.parametrize("modname,name,obj", PUBLIC, ids=_ids(PUBLIC))
def test_every_public_name_has_its_own_docstring(modname, name, obj):
    if callable(obj):
        doc = obj.__doc__ or ""
        assert doc.strip(), f"{modname}.{name} has no docstring"
        assert not doc.startswith(f"{getattr(obj, '__name__', name)}("), (
            f"{modname}.{name} has only the dataclass-generated docstring"
        )
    else:
        module_doc = importlib.import_module(modname).__doc__ or ""
        assert f":data:`{name}`" in module_doc or f":data:`~{modname}.{name}`" in module_doc, (
            f"data {modname}.{name} is in __all__ but not described (:data:`{name}`) in the module docstring"
        )


@pytest.mark.parametrize("modname", AREA_MODULES)
def test_all_holds_only_public_names(modname):
    mod = importlib.import_module(modname)
    bad = [n for n in mod.__all__ if n.startswith("_") and not n.startswith("__")]
    bad += [
        n
        for n in mod.__all__
        if n.startswith(("check_", "seed_table"))
        or n in {"warmup", "TIES", "batch_coefficient", "components", "dense_ranks", "SEED_TABLE_COLUMNS"}
    ]
    assert not bad, f"{modname}.__all__ lists internals: {bad}"
    missing = [n for n in mod.__all__ if not hasattr(mod, n)]
    assert not missing, f"{modname}.__all__ names missing attributes: {missing}"


# ----------------------------------------------------------------------------- parameters
@pytest.mark.parametrize("modname,name,obj", CALLABLES, ids=_ids(CALLABLES))
def test_parameter_names_have_one_meaning(modname, name, obj):
    params = _parameters(obj)
    for p in params:
        if p == "statistic" and inspect.isclass(obj):
            continue  # a result's `statistic` field is the statistic's value (the one allowed meaning)
        assert p not in FORBIDDEN_PARAMETERS, (
            f"{modname}.{name}({p}=...): use `{FORBIDDEN_PARAMETERS[p]}` (keep `{p}` only as a deprecated alias "
            "via agreekit._api.renamed_parameters)"
        )
    if "method" in params:
        default = params["method"].default
        assert default not in COEFFICIENTS, f"{modname}.{name}: `method` defaults to a coefficient ({default!r})"
        block = _param_doc(obj, "method").lower()
        assert not any(c in block for c in COEFFICIENTS), (
            f"{modname}.{name}: `method` lists coefficients; use `coefficient`"
        )
    if "ties" in params:
        default = params["ties"].default
        assert not isinstance(default, bool), f"{modname}.{name}: `ties` is a policy string, not a bool"
    if "alpha" in params:
        assert "significance" in _param_doc(obj, "alpha").lower(), (
            f"{modname}.{name}: `alpha` must be a significance level (documented as such)"
        )
    if "coefficient" in params and params["coefficient"].default is not inspect.Parameter.empty:
        assert params["coefficient"].default == "kendall", f"{modname}.{name}: coefficient default differs"


ALIGNED = {"coefficient": "kendall", "weigher": "harmonic", "scheme": "additive"}


def test_ranking_defaults_are_aligned():
    import agreekit.ranking as R

    for name in ("weighted_correlation", "weighted_correlation_test", "exact_moments", "standardize"):
        params = _parameters(getattr(R, name))
        for key, value in ALIGNED.items():
            assert params[key].default == value, f"{name}({key}=) defaults to {params[key].default!r}"


@pytest.mark.parametrize("modname,name,obj", FUNCTIONS, ids=_ids(FUNCTIONS))
def test_test_functions_take_alternative(modname, name, obj):
    if name.endswith("_test"):
        assert "alternative" in _parameters(obj), f"{modname}.{name} has no `alternative`"


def test_ranking_functions_take_kind():
    import agreekit.ranking as R

    lists = {"rank_biased_overlap", "rank_biased_overlap_test"}  # ranked lists of items: kind="lists"|"scores" or none
    for name in R.__all__:
        obj = getattr(R, name)
        params = list(_parameters(obj)) if inspect.isfunction(inspect.unwrap(obj)) else []
        if params[:2] == ["x", "y"] and name not in lists:
            assert "kind" in params, f"agreekit.ranking.{name}(x, y) has no `kind` (ranks or scores)"
            assert _parameters(obj)["kind"].default == "ranks"


def test_deprecated_aliases_are_not_in_signatures():
    from agreekit import _api

    for modname in AREA_MODULES:
        importlib.import_module(modname)
    assert _api.DEPRECATED_PARAMETERS, "no deprecated parameter aliases registered"
    for qualname, renames in _api.DEPRECATED_PARAMETERS.items():
        for old, new in renames.items():
            assert old != new
            assert old not in FORBIDDEN_PARAMETERS.values(), f"{qualname}: `{old}` is a current name"


# ----------------------------------------------------------------------------- results
@pytest.mark.parametrize("qualname,cls", RESULTS, ids=[q for q, _ in RESULTS])
def test_results_export_and_compare_like_one_library(qualname, cls):
    from agreekit._api import TestResultBase

    assert callable(getattr(cls, "to_dict", None)), f"{qualname} has no to_dict()"
    if dataclasses.is_dataclass(cls):
        names = {f.name for f in dataclasses.fields(cls)}
        for f in dataclasses.fields(cls):
            if TIMING.match(f.name):
                assert not f.compare, f"{qualname}.{f.name} is a timing and must be field(compare=False)"
        if "pvalue" in names:
            assert "statistic" in names, f"{qualname} has a pvalue but no statistic"
            assert issubclass(cls, TestResultBase), f"{qualname} has a pvalue but does not unpack (stat, p)"


def test_results_found_by_the_walk():
    names = {q.rsplit(".", 1)[1] for q, _ in RESULTS}
    assert {
        "WeightedCorrelationResult",
        "KemenyResult",
        "PairedTestResult",
        "MetricAgreement",
        "ConsensusRanking",
        "ExactMoments",
    } <= names


def test_test_results_unpack_like_scipy():
    import numpy as np

    import agreekit

    x = [1, 2, 3, 4, 5, 6, 7, 8]
    y = [2, 1, 4, 3, 6, 5, 8, 7]
    res = agreekit.weighted_correlation_test(x, y, method="exact")
    stat, p = res
    assert (stat, p) == (res.statistic, res.pvalue)
    rng = np.random.default_rng(0)
    a, b = rng.random(20), rng.random(20)
    for f in (agreekit.ireval.paired_test, agreekit.ireval.unpaired_test):
        r = f(a, b, n_resamples=99, rng=1)
        s, q = r
        assert (s, q) == (r.statistic, r.pvalue)
        assert 0 < q <= 1  # scipy's (b + 1) / (B + 1) rule: never 0


# ----------------------------------------------------------------------------- namespace
def test_import_agreekit_exposes_every_area_lazily():
    code = (
        "import sys, agreekit\n"
        "heavy = [m for m in ('scipy', 'pandas', 'numba', 'matplotlib', 'agreekit.clustering') "
        "if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "f = agreekit.clustering.adjusted_mutual_info\n"
        "assert 'agreekit.clustering' in sys.modules\n"
        "for a in ('ranking', 'consensus', 'clustering', 'ireval', 'metaeval'):\n"
        "    assert a in dir(agreekit) and getattr(agreekit, a).__name__ == 'agreekit.' + a\n"
        "from agreekit import weighted_kendall, standardize\n"
        "print(round(f([0, 0, 1, 1], [0, 0, 1, 1]), 6))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1.0"


def test_every_function_of_an_area_module_is_reachable_from_its_package():
    import pkgutil

    pipeline_modules = ("tablegen", "report", "experiments", "simulation", "figures", "reproduction")
    for area in ("ranking", "consensus", "clustering", "ireval", "metaeval"):
        pkg = importlib.import_module(f"agreekit.{area}")
        for info in pkgutil.iter_modules(pkg.__path__):
            if info.name in pipeline_modules or info.ispkg:
                continue
            mod = importlib.import_module(f"agreekit.{area}.{info.name}")
            for name in getattr(mod, "__all__", ()):
                obj = getattr(mod, name)
                if name.startswith("_") or not (inspect.isfunction(obj) or inspect.isclass(obj)):
                    continue
                if getattr(obj, "__module__", "") != mod.__name__ or name.startswith("check_"):
                    continue
                if info.name.startswith("_") and name not in pkg.__all__:
                    continue  # private module helpers need not be public
                assert hasattr(pkg, name), f"agreekit.{area}.{info.name}.{name} is not reachable from agreekit.{area}"


# ----------------------------------------------------------------------------- CLI
def _subcommands():
    from agreekit.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices


SUBCOMMANDS = _subcommands()


def _options(p):
    for action in p._actions:
        if not action.option_strings or isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            continue
        yield action


def _kind(action) -> str:
    return getattr(action, "inner", None) or type(action).__name__


def test_cli_options_have_one_meaning_across_subcommands():
    meanings: dict[str, dict[tuple, list[str]]] = {}
    for name, p in SUBCOMMANDS.items():
        for action in _options(p):
            old = set(getattr(action, "old", ()))
            for opt in action.option_strings:
                if opt in old:
                    continue
                typ = getattr(action.type, "__name__", repr(action.type))
                key = (action.dest, _kind(action), typ, action.metavar)
                meanings.setdefault(opt, {}).setdefault(key, []).append(name)
    clashes = {opt: m for opt, m in meanings.items() if len(m) > 1}
    assert not clashes, f"options with more than one meaning: {clashes}"


def test_cli_option_rules():
    for name, p in SUBCOMMANDS.items():
        opts = {o: a for a in _options(p) for o in a.option_strings}
        assert "--format" in opts, f"`agreekit {name}` has no --format"
        if "-o" in opts or "--output" in opts:
            a = opts.get("--output") or opts["-o"]
            assert a.metavar == "FILE" and a.dest == "output", f"`agreekit {name} -o` is not a FILE"
        if "--alpha" in opts and "--alpha" not in getattr(opts["--alpha"], "old", ()):
            assert "significance" in (opts["--alpha"].help or ""), f"`agreekit {name} --alpha` is not a level"
        if "--test" in opts and "--test" not in getattr(opts["--test"], "old", ()):
            assert opts["--test"].choices, f"`agreekit {name} --test` must be a choice (as in bootstrap)"


def test_cli_options_are_named_as_the_api():
    from agreekit._cli._common import CLI_ONLY_OPTIONS

    for name, p in SUBCOMMANDS.items():
        api = p.get_default("api")
        assert api is not None, f"`agreekit {name}` does not declare its API function (set_defaults(api=...))"
        funcs = api if isinstance(api, (tuple, list)) else (api,)
        api_params = set().union(*(set(_parameters(f)) for f in funcs))
        for action in _options(p):
            if action.dest in CLI_ONLY_OPTIONS or set(action.option_strings) <= set(getattr(action, "old", ())):
                continue  # CLI-only, or an action that exists only for a deprecated spelling
            assert action.dest in api_params, (
                f"`agreekit {name}` option {action.option_strings} (dest {action.dest!r}) is neither a parameter of "
                f"{[f.__name__ for f in funcs]} nor a CLI-only option"
            )
            canonical = "--" + action.dest.replace("_", "-")
            assert canonical in action.option_strings, (
                f"`agreekit {name}` {action.option_strings}: the API name is `{action.dest}`; add {canonical}"
            )


def test_renamed_cli_option_warns_once(tmp_path):
    x = tmp_path / "x.txt"
    x.write_text("1\n2\n3\n4\n5\n")
    y = tmp_path / "y.txt"
    y.write_text("2\n1\n3\n5\n4\n")
    base = [sys.executable, "-m", "agreekit", "correlate", str(x), str(y), "--method", "exact"]
    old = subprocess.run(base + ["--test"], capture_output=True, text=True)
    new = subprocess.run(base + ["--pvalue"], capture_output=True, text=True)
    assert old.returncode == new.returncode == 0, old.stderr
    assert old.stdout == new.stdout and new.stderr == ""
    lines = old.stderr.strip().splitlines()
    assert len(lines) == 1 and "DeprecationWarning" in lines[0] and "--pvalue" in lines[0]


STDIN_CASES = [
    ("correlate", ["-", "{y}"], "{x}"),
    ("consensus", ["-", "--method", "exact"], "resources/consensus/emond_mason.csv"),
    (
        "bootstrap",
        ["-", "--rng", "1", "--n-resamples", "50"],
        "resources/bootstrap/trec_topic_by_run_scores/adhoc8_ap.csv",
    ),
]


@pytest.mark.parametrize("command,argv,stdin", STDIN_CASES, ids=[c for c, _, _ in STDIN_CASES])
def test_cli_reads_stdin_as_dash(command, argv, stdin, tmp_path):
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    x = tmp_path / "x.txt"
    x.write_text("1\n2\n3\n4\n5\n")
    y = tmp_path / "y.txt"
    y.write_text("2\n1\n3\n5\n4\n")
    fmt = {"x": str(x), "y": str(y)}
    src = pathlib.Path(stdin.format(**fmt))
    src = src if src.is_absolute() else root / src
    argv = [a.format(**fmt) for a in argv]
    by_path = subprocess.run(
        [sys.executable, "-m", "agreekit", command, *[str(src) if a == "-" else a for a in argv]],
        capture_output=True,
        text=True,
        cwd=root,
    )
    by_stdin = subprocess.run(
        [sys.executable, "-m", "agreekit", command, *argv],
        input=src.read_text(),
        capture_output=True,
        text=True,
        cwd=root,
    )
    assert by_path.returncode == 0, by_path.stderr
    assert by_stdin.returncode == 0, by_stdin.stderr
    strip = re.compile(r'"(seconds|elapsed)": [0-9.e-]+')
    assert strip.sub("", by_stdin.stdout) == strip.sub("", by_path.stdout)
