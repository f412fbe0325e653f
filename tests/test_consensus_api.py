"""Issue 20 in the consensus area: one dialect (names, SPEC 7 rng, aliases, CLI options).

Numbers are checked against the brute-force oracle (all weak orders / permutations) and
against the new spelling of the same call; every deprecated spelling warns exactly once.
"""

import csv
import dataclasses
import io
import json
import runpy
import subprocess
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from _consensus_oracle import brute_force, random_profile
from agreekit._validation import InputError
from agreekit.cli import main
from agreekit.consensus import KemenyResult, compare_methods, kemeny, read_rankings
from agreekit.consensus import simulation
from agreekit.consensus.simulation import mallows_rankings, mask_missing, merge_ties, run_cell, simulate_profile
from agreekit.metaeval import ConsensusRanking, consensus_ranking

ROOT = Path(__file__).resolve().parents[1]
RES = ROOT / "resources" / "consensus"


def _profile(seed=3, n=9, m=5):
    return random_profile(np.random.default_rng(seed), n, m, weighted=True)


def _one_warning(w, needle):
    dep = [x for x in w if issubclass(x.category, DeprecationWarning)]
    assert len(dep) == 1, [str(x.message) for x in dep]
    assert needle in str(dep[0].message)


# ----------------------------------------------------------------------------- KemenyResult names
def test_kemeny_result_new_names_match_brute_force():
    X, w = _profile()
    opt, tau = brute_force(X, w)
    res = kemeny(X, weights=w, method="exact", max_solutions=10**5)
    assert res.proven and res.exhaustive
    assert res.average_tau_x == pytest.approx(tau, abs=1e-12)
    assert res.n_optima == len(opt) == res.solutions.shape[0]
    assert {tuple(s) for s in res.solutions} == opt
    assert isinstance(res.seconds, float) and res.seconds > 0


@pytest.mark.parametrize(
    "old, new", [("optimal", "proven"), ("elapsed", "seconds"), ("n_solutions", "n_optima"), ("tau_x", "average_tau_x")]
)
def test_kemeny_result_old_attribute_warns_once_same_value(old, new):
    X, w = _profile()
    res = kemeny(X, weights=w, method="exact")
    with pytest.warns(DeprecationWarning) as w_:
        value = getattr(res, old)
    assert len(w_) == 1 and f".{new}" in str(w_[0].message)
    assert value == getattr(res, new)


def test_kemeny_result_to_dict_new_keys_json_ready():
    X, w = _profile(seed=5)
    _, tau = brute_force(X, w)
    res = kemeny(X, weights=w, method="exact")
    d = res.to_dict()
    assert {"n_optima", "average_tau_x", "proven", "seconds"} <= set(d)
    assert not {"n_solutions", "tau_x", "optimal", "elapsed"} & set(d)
    assert d["average_tau_x"] == pytest.approx(tau, abs=1e-12) and d["n_optima"] == res.n_optima
    assert json.loads(json.dumps(d)) == d
    assert res.to_frame().shape == (res.n_optima, X.shape[1])
    with pytest.warns(DeprecationWarning) as w_:
        assert res.as_dict() == d
    assert len(w_) == 1


def test_timings_do_not_take_part_in_equality():
    X, w = _profile(seed=7)
    a = kemeny(X, weights=w, method="fast", n_starts=10, rng=1)
    b = kemeny(X, weights=w, method="fast", n_starts=10, rng=1)
    assert a == dataclasses.replace(b, seconds=b.seconds + 100.0)
    assert a != dataclasses.replace(b, penalty=b.penalty + 1.0)
    assert a != dataclasses.replace(b, solutions=b.solutions[:, ::-1] if b.solutions.shape[1] > 1 else b.solutions + 1)
    for cls in (KemenyResult, ConsensusRanking):
        f = {x.name: x for x in dataclasses.fields(cls)}["seconds"]
        assert f.compare is False
    cons = consensus_ranking(_metric_scores(), method="exact")
    assert cons == dataclasses.replace(cons, seconds=cons.seconds + 5.0)
    assert cons != dataclasses.replace(cons, average_tau_x=cons.average_tau_x - 0.1)


# ----------------------------------------------------------------------------- allow_ties
def test_allow_ties_false_is_brute_force_over_permutations():
    X, w = _profile(seed=11)
    opt, tau = brute_force(X, w, ties=False)
    res = kemeny(X, weights=w, method="exact", allow_ties=False, max_solutions=10**5)
    assert {tuple(s) for s in res.solutions} == opt and res.average_tau_x == pytest.approx(tau, abs=1e-12)
    assert all(len(set(s)) == X.shape[1] for s in res.solutions)


def test_ties_alias_warns_once_same_result():
    X, w = _profile(seed=11)
    new = kemeny(X, weights=w, method="exact", allow_ties=False)
    with pytest.warns(DeprecationWarning) as w_:
        old = kemeny(X, weights=w, method="exact", ties=False)
    assert len(w_) == 1 and "allow_ties" in str(w_[0].message)
    assert old == new
    with pytest.raises(InputError, match="allow_ties"):
        kemeny(X, ties=False, allow_ties=False)
    with pytest.raises(InputError, match="`allow_ties`"):
        kemeny(X, allow_ties="no")


# ----------------------------------------------------------------------------- rng (SPEC 7)
def test_kemeny_rng_int_seedsequence_generator_identical():
    X = read_rankings(RES / "emond_mason.csv")
    a = kemeny(X, method="fast", n_starts=30, rng=12)
    b = kemeny(X, method="fast", n_starts=30, rng=np.random.SeedSequence(12))
    c = kemeny(X, method="fast", n_starts=30, rng=np.random.default_rng(12))
    assert a == b == c
    # and an int seed is numpy's default_rng(int): the pipeline's numbers do not move
    g = np.random.default_rng(12)
    assert kemeny(X, method="fast", n_starts=30, rng=g) == a


@pytest.mark.parametrize("bad", ["abc", -1, 1.5, True, np.random.RandomState(0), [1, 2]])
def test_bad_rng_is_an_input_error_naming_rng(bad):
    X, w = _profile()
    with pytest.raises(InputError, match="`rng`"):
        kemeny(X, method="fast", n_starts=2, rng=bad)
    with pytest.raises(InputError, match="`rng`"):
        mallows_rankings([1, 2, 3], 1.0, 2, bad)
    with pytest.raises(InputError, match="`rng`"):
        simulate_profile(4, 1.0, 3, "tied", bad)
    with pytest.raises(InputError, match="`rng`"):
        consensus_ranking(_metric_scores(), method="fast", rng=bad)
    if not isinstance(bad, list):  # run_cell also takes a list of ints (SeedSequence entropy)
        with pytest.raises(InputError, match="`rng`"):
            run_cell(m=4, theta=1.0, variant="complete", n_profiles=1, n_judges=3, n_starts=2, rng=bad)


def test_simulation_helpers_take_spec7_values():
    for f, args in (
        (mallows_rankings, ([3, 1, 2, 4], 0.7, 6)),
        (merge_ties, ([[1, 2, 3, 4], [4, 3, 2, 1]], 0.5)),
        (mask_missing, ([[1, 2, 3, 4, 5]] * 3, 0.4)),
    ):
        a = f(*args, 9)
        b = f(*args, np.random.SeedSequence(9))
        c = f(*args, np.random.default_rng(9))
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    p = simulate_profile(6, 0.5, 5, "incomplete", 4)
    np.testing.assert_array_equal(p, simulate_profile(6, 0.5, 5, "incomplete", np.random.default_rng(4)))
    assert p.shape == (5, 6) and (np.sum(~np.isnan(p), axis=1) >= 2).all()


def _drop_times(df):
    return df.drop(columns=[c for c in df if c.endswith("_time")])


def test_run_cell_rng_forms_and_seed_alias():
    kw = dict(m=5, theta=0.5, variant="tied", n_profiles=2, n_judges=8, n_starts=5)
    a = _drop_times(run_cell(**kw, rng=5))
    for other in (np.random.SeedSequence(5), np.random.default_rng(5)):
        pd.testing.assert_frame_equal(a, _drop_times(run_cell(**kw, rng=other)))
    with pytest.warns(DeprecationWarning) as w_:
        old = run_cell(**kw, seed=5)
    assert len(w_) == 1 and "rng" in str(w_[0].message)
    pd.testing.assert_frame_equal(a, _drop_times(old))
    # the former seed= took anything SeedSequence takes; the workflow now passes the SeedSequence
    with pytest.warns(DeprecationWarning) as w_:
        lst = run_cell(**kw, seed=[7, 5, 500, 1])
    assert len(w_) == 1
    pd.testing.assert_frame_equal(
        _drop_times(lst), _drop_times(run_cell(**kw, rng=np.random.SeedSequence([7, 5, 500, 1])))
    )
    # each row: the exact optimum is the brute-force one for the profile the stream draws
    rng0 = np.random.default_rng(np.random.SeedSequence(5).spawn(2)[0])
    X = simulate_profile(5, 0.5, 8, "tied", rng0)
    _, tau = brute_force(X)
    assert a.loc[0, "exact_tau_x"] == pytest.approx(tau, abs=1e-12)


def test_compare_methods_rng_and_seed_alias():
    data = read_rankings(RES / "brook_upton.csv")
    _, tau = brute_force(data.X, data.weights)
    new = compare_methods(data, n_starts=8, rng=3)
    with pytest.warns(DeprecationWarning) as w_:
        old = compare_methods(data, n_starts=8, seed=3)
    assert len(w_) == 1 and "rng" in str(w_[0].message)
    strip = lambda out: {k: {kk: vv for kk, vv in d.items() if kk != "seconds"} for k, d in out["methods"].items()}  # noqa: E731
    assert strip(new) == strip(old)
    for d in new["methods"].values():
        assert d["average_tau_x"] == pytest.approx(tau, abs=1e-12) and d["proven"]


# ----------------------------------------------------------------------------- metaeval consensus_ranking
def _metric_scores(seed=2, m=6, n_metrics=3):
    rng = np.random.default_rng(seed)
    q = rng.uniform(0.1, 1.0, size=m)
    return {
        f"M{k}": pd.DataFrame(np.clip(q + rng.normal(0, 0.3, (8, m)), 0.01, None), columns=[f"s{i}" for i in range(m)])
        for k in range(n_metrics)
    }


def test_consensus_ranking_summary_and_statistic_alias():
    scores = _metric_scores()
    new = consensus_ranking(scores, method="exact", summary="gmean")
    with pytest.warns(DeprecationWarning) as w_:
        old = consensus_ranking(scores, method="exact", statistic="gmean")
    assert len(w_) == 1 and "summary" in str(w_[0].message)
    assert old == new
    # gmean summaries rank differently from means: the option is really passed on
    from scipy import stats

    R = np.array([stats.rankdata(-stats.gmean(scores[k].to_numpy(), axis=0)) for k in scores])
    _, tau = brute_force(R)
    assert new.average_tau_x == pytest.approx(tau, abs=1e-12) and new.proven
    d = new.to_dict()
    assert d["average_tau_x"] == new.average_tau_x and d["seconds"] == new.seconds


def test_consensus_ranking_default_rng_is_zero():
    scores = _metric_scores(seed=4, m=7, n_metrics=4)
    a = consensus_ranking(scores, method="fast", n_starts=5)
    b = consensus_ranking(scores, method="fast", n_starts=5, rng=0)
    c = consensus_ranking(scores, method="fast", n_starts=5, rng=np.random.default_rng(0))
    assert a == b == c


# ----------------------------------------------------------------------------- namespace
def test_public_namespace():
    import agreekit.consensus as cons
    from agreekit.consensus._exact import components  # noqa: F401  still importable
    from agreekit.consensus._kemeny import warmup  # noqa: F401
    from agreekit.consensus._matrices import dense_ranks  # noqa: F401

    assert not {"components", "warmup", "dense_ranks"} & set(cons.__all__)
    assert cons.compare_methods is compare_methods and "compare_methods" in cons.__all__
    for mod in (cons, simulation):
        for name in mod.__all__:
            obj = getattr(mod, name)
            if callable(obj):
                assert (obj.__doc__ or "").strip(), name
            else:
                assert f":data:`{name}`" in mod.__doc__, name
    assert "run_cell" in simulation.__all__ and "VARIANTS" in simulation.__all__


# ----------------------------------------------------------------------------- progress
def test_progress_bar_on_stderr_only_when_asked(capsys):
    data = read_rankings(RES / "sports.csv")
    shown = kemeny(data, method="fast", n_starts=40, rng=2, progress=True)
    err = capsys.readouterr().err
    assert "FAST starts" in err
    quiet = kemeny(data, method="fast", n_starts=40, rng=2, progress=False)
    assert capsys.readouterr().err == "" and shown == quiet
    auto = kemeny(data, method="fast", n_starts=40, rng=2)  # stderr is not a terminal here
    assert capsys.readouterr().err == "" and auto == quiet
    with pytest.raises(InputError, match="`progress`"):
        kemeny(data, progress="yes")


# ----------------------------------------------------------------------------- CLI
def _cli(capsys, args):
    assert main(args) == 0
    cap = capsys.readouterr()
    return cap.out, cap.err


def test_cli_new_options_and_csv_columns(capsys):
    X = read_rankings(RES / "sports.csv")
    opt, tau = brute_force(X.X, X.weights, ties=False)
    out, _ = _cli(
        capsys,
        ["consensus", str(RES / "sports.csv"), "--method", "exact", "--no-allow-ties", "--format", "csv", "--quiet"],
    )
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {"average_tau_x", "proven", "seconds"} <= set(rows[0])
    assert {tuple(int(r[lab]) for lab in X.labels) for r in rows} == opt
    assert float(rows[0]["average_tau_x"]) == pytest.approx(tau, abs=1e-12) and rows[0]["proven"] == "True"


_BASE = ["consensus", str(RES / "emond_mason.csv"), "--method", "fast", "--quiet"]


def _strip(text):
    return {k: v for k, v in json.loads(text).items() if k != "seconds"}


@pytest.mark.parametrize("old, new", [(["--starts", "15"], ["--n-starts", "15"]), (["--no-ties"], ["--no-allow-ties"])])
def test_cli_old_option_warns_once_same_output(capsys, old, new):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        a, _ = _cli(capsys, _BASE + ["--rng", "9"] + new)
    with pytest.warns(DeprecationWarning) as w_:
        b, _ = _cli(capsys, _BASE + ["--rng", "9"] + old)
    _one_warning(w_, f"{old[0]} is deprecated, use {new[0]}")
    assert _strip(a) == _strip(b)


def test_cli_seed_is_the_rng_synonym(capsys):
    a, _ = _cli(capsys, _BASE + ["--rng", "4", "--n-starts", "12"])
    b, _ = _cli(capsys, _BASE + ["--seed", "4", "--n-starts", "12"])
    assert _strip(a) == _strip(b) and json.loads(a)["seed"] == 4
    # the API's numbers: the same as kemeny(rng=4)
    res = kemeny(read_rankings(RES / "emond_mason.csv"), method="fast", n_starts=12, rng=4)
    assert json.loads(a)["orderings"] == res.orderings and json.loads(a)["average_tau_x"] == res.average_tau_x


def test_cli_stdin_and_stdout_dash(tmp_path):
    src = (RES / "german.csv").read_text()
    r = subprocess.run(
        [sys.executable, "-m", "agreekit", "consensus", "-", "--method", "exact", "-o", "-"],
        input=src,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    data = read_rankings(RES / "german.csv")
    opt, tau = brute_force(data.X, data.weights)
    assert out["average_tau_x"] == pytest.approx(tau, abs=1e-12)
    assert {tuple(s[lab] for lab in data.labels) for s in out["solutions"]} == opt
    assert list(tmp_path.iterdir()) == []  # no file named '-'


def test_cli_parser_declares_its_api():
    from agreekit._cli._common import CLI_ONLY_OPTIONS
    from agreekit.cli import build_parser
    import inspect

    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices["consensus"]
    api = sub.get_default("api")
    params = set()
    for f in api if isinstance(api, tuple) else (api,):
        params |= set(inspect.signature(inspect.unwrap(f)).parameters)
    for action in sub._actions:
        if action.dest in ("help",):
            continue
        assert action.dest in params or action.dest in CLI_ONLY_OPTIONS, action.dest
        if action.option_strings and action.dest not in CLI_ONLY_OPTIONS:
            assert "--" + action.dest.replace("_", "-") in action.option_strings, action.option_strings


# ----------------------------------------------------------------------------- workflow scripts
def test_workflow_scripts_keep_the_shipped_keys_and_columns(tmp_path):
    """consensus_dataset.py / consensus_datasets_table.py write the seed's keys and columns
    (n_solutions, tau_x, optimal, elapsed), now filled from the new attributes."""
    js = tmp_path / "brook_upton.json"
    sm = SimpleNamespace(
        log=[str(tmp_path / "a.log")],
        wildcards=SimpleNamespace(dataset="brook_upton"),
        input=SimpleNamespace(csv=str(RES / "brook_upton.csv")),
        params=SimpleNamespace(seed=20250101, fast_starts=10, exact_time_limit=60),
        output=SimpleNamespace(json=str(js)),
    )
    stderr = sys.stderr
    try:
        runpy.run_path(str(ROOT / "workflow" / "scripts" / "consensus_dataset.py"), init_globals={"snakemake": sm})
    finally:
        sys.stderr = stderr
    out = json.loads(js.read_text())
    data = read_rankings(RES / "brook_upton.csv", ordinal=True)
    _, tau = brute_force(data.X, data.weights)
    want = compare_methods(data, n_starts=10, rng=np.random.SeedSequence([20250101, *map(ord, "brook_upton")]))
    for meth, d in out["methods"].items():
        assert {"n_solutions", "tau_x", "optimal", "elapsed"} <= set(d)
        assert not {"n_optima", "average_tau_x", "proven", "seconds"} & set(d)
        assert d["tau_x"] == want["methods"][meth]["average_tau_x"] == pytest.approx(tau, abs=1e-12)
        assert d["optimal"] == want["methods"][meth]["proven"]
        assert d["n_solutions"] == want["methods"][meth]["n_optima"]
    sm2 = SimpleNamespace(
        log=[str(tmp_path / "b.log")],
        input=SimpleNamespace(jsons=[str(js)], report=str(RES / "report_results.csv")),
        output=SimpleNamespace(csv=str(tmp_path / "t.csv"), md=str(tmp_path / "t.md")),
    )
    try:
        runpy.run_path(
            str(ROOT / "workflow" / "scripts" / "consensus_datasets_table.py"), init_globals={"snakemake": sm2}
        )
    finally:
        sys.stderr = stderr
    table = pd.read_csv(tmp_path / "t.csv")
    assert list(table.columns[:11]) == [
        "dataset",
        "n_items",
        "n_rankings",
        "method",
        "n_solutions",
        "tau_x",
        "optimal",
        "all_optima",
        "exact_solutions_recovered",
        "seconds",
        "solver",
    ]
    assert (table["tau_x"] == round(tau, 6)).all()
    assert "| dataset | n_items | method | n_solutions | tau_x | optimal |" in (tmp_path / "t.md").read_text()


def test_cli_deprecated_option_is_one_stderr_line():
    r = subprocess.run(
        [sys.executable, "-m", "agreekit", "consensus", str(RES / "german.csv"), "--no-ties", "--method", "exact"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "DeprecationWarning" in lines[0] and "--no-allow-ties" in lines[0]
    data = read_rankings(RES / "german.csv")
    opt, tau = brute_force(data.X, data.weights, ties=False)
    assert json.loads(r.stdout)["average_tau_x"] == pytest.approx(tau, abs=1e-12)
