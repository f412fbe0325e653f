"""Shipped coefficient tables and the runtime that consumes them (load_table, standardize, CLI)."""

import csv
import itertools
import json
import math
import subprocess
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import yaml

import agreekit.ranking.tables as T
from agreekit._validation import InputError
from agreekit.ranking.moments import exact_moments
from agreekit.ranking.correlation import batch_coefficient
from agreekit.ranking.tablegen.generation import config_hash, scheme_settings, schemes_from_config

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "src" / "agreekit" / "data" / "tables"
PAPER_IDS = [
    s.id for s in schemes_from_config(yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["ranking"])
]


def _default_config():
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


def test_all_16_paper_schemes_are_shipped():
    assert len(PAPER_IDS) == 16
    assert sorted(T.available_tables()) == sorted(PAPER_IDS)


@pytest.mark.parametrize("sid", PAPER_IDS)
def test_shipped_table_validates_and_carries_default_config_provenance(sid):
    cfg = _default_config()
    spec = next(s for s in schemes_from_config(cfg["ranking"]) if s.id == sid)
    settings = scheme_settings(cfg["ranking"], spec, cfg["seed"])
    data = json.loads((SHIPPED / f"{sid}.json").read_text())
    schema = json.loads((ROOT / "src" / "agreekit" / "schemas" / "table.schema.json").read_text())
    jsonschema.validate(data, schema)
    assert data["checksum"] == T.table_checksum(data)
    assert data["provenance"]["config_hash"] == config_hash(settings)
    assert data["provenance"]["settings"] == json.loads(json.dumps(settings))
    tab = T.load_table(sid)
    assert tab.scheme_id == sid and tab.n_exact == 10
    # the accurate default config: both coefficients to n = 36119 (n_max 40000), sizes set by the target SE
    assert tab.data["samples"]["n"][-1] == 36119 and tab.n_max == 40000
    rule = settings["sample_size"]
    assert tab.data["samples"]["size"][0] == math.ceil(0.3 / rule["target_se"] ** 2)
    assert all(s >= m for s, m in zip(tab.data["samples"]["size"], rule["min_size"]))


def _paper_exact():
    rows = {}
    with open(ROOT / "resources" / "ranking" / "exact_moments_n3_10.csv") as fh:
        for r in csv.DictReader(fh):
            w = "harmonic" if r["f"] == "inv" else f"inverse_square:n0={r['n0']}"
            sch = {"add": "additive", "mult": "multiplicative"}[r["scheme"]]
            q = {"G": "mean", "V": "var", "Vl": "left_var"}[r["qty"]]
            rows[(r["coeff"], sch, w, int(r["n"]), q)] = (float(r["paper"]), float(r["ours"]))
    return rows


def test_shipped_exact_values_match_the_papers_384_printed_values():
    ref = _paper_exact()
    assert len(ref) == 384
    matched = 0
    for (coef, sch, w, n, q), (printed, brute) in ref.items():
        m = T.find_table(coef, sch, w).moments(n)
        assert m.source == "exact"
        val = getattr(m, q)
        assert val == pytest.approx(brute, rel=1e-9, abs=1e-11)
        matched += float(f"{val:.7f}") == printed
    assert matched == 384


def test_moments_exact_fit_and_range():
    tab = T.load_table("spearman_additive_harmonic")
    assert tab.moments(2) == T.TableMoments(
        2, pytest.approx(0.0, abs=1e-12), pytest.approx(1.0), pytest.approx(0.5), "exact"
    )
    assert tab.moments(10).source == "exact"
    m = tab.moments(11)
    assert m.source == "fit"
    # the fit at n = 11 against the exact n = 11 mean (11! permutations, ~5 s of the exact enumerator,
    # itself checked against a plain enumeration for n <= 10 in test_ranking_moments.py); measured
    # 5.1e-5 = 0.17 fit SE apart, the fit's own SE is the justified tolerance: <= 3 SE
    exact11 = exact_moments("spearman", n=11, weigher="harmonic", scheme="additive")
    assert abs(m.mean - exact11.mean) <= 3 * m.mean_se and 0 < m.mean_se < 1e-3
    assert 0 < m.left_var < m.var < 1
    with pytest.raises(InputError, match="`n` .*above the range"):
        tab.moments(40001)
    with pytest.warns(RuntimeWarning, match="extrapolating"):
        tab.moments(50000, extrapolate=True)
    with pytest.raises(InputError, match="`n`"):
        tab.moments(1)


def test_standardize_boundaries_and_shapes():
    kw = dict(coefficient="kendall", scheme="multiplicative", weigher="inverse_square:n0=1")
    for n in (5, 30, 2000):
        out = T.standardize(np.array([[-1.0, 1.0]]), n=n, **kw)
        assert out.shape == (1, 2)
        np.testing.assert_allclose(out, [[-1.0, 1.0]], atol=1e-12)
    assert isinstance(T.standardize(0.1, n=30, **kw), float)
    xs = np.linspace(-1, 1, 201)
    assert np.all(np.diff(T.standardize(xs, n=300, **kw)) >= -1e-12)


@pytest.mark.parametrize("sid", ["spearman_multiplicative_inverse_square-n0=0", "kendall_additive_harmonic"])
def test_standardize_has_zero_mean_over_all_permutations(sid):
    tab = T.load_table(sid)
    n = 7
    perms = np.array(list(itertools.permutations(range(1, n + 1))), dtype=np.int64)
    gam = batch_coefficient(perms, coefficient=tab.coefficient, weigher=tab.weigher, scheme=tab.scheme)
    g = T.standardize(gam, coefficient=tab.coefficient, scheme=tab.scheme, weigher=tab.weigher, n=n)
    assert abs(g.mean()) < 1e-12
    gp = T.standardize(gam, coefficient=tab.coefficient, scheme=tab.scheme, weigher=tab.weigher, n=n, form="paper")
    assert abs(gp.mean()) > 1e-3  # the printed Eq. 30/32 leave a bias


def test_standardize_input_errors():
    kw = dict(coefficient="spearman", scheme="additive", weigher="harmonic", n=30)
    with pytest.raises(InputError, match="`gamma`"):
        T.standardize(1.5, **kw)
    with pytest.raises(InputError, match="`gamma`"):
        T.standardize("abc", **kw)
    with pytest.raises(InputError, match="`gamma`"):
        T.standardize([0.1, np.nan], **kw)
    with pytest.raises(InputError, match="`scheme`"):
        T.standardize(0.1, **{**kw, "scheme": "geometric"})
    # without a table the moments are computed at n (issue 24); compute=False keeps the error
    with pytest.raises(InputError, match="`weigher`"):
        T.standardize(0.1, **{**kw, "weigher": "power:p=3,n0=0"}, compute=False)
    with pytest.raises(InputError, match="`weigher`.*callable"):
        T.standardize(0.1, **{**kw, "weigher": lambda i: 1 / i}, compute=False)
    with pytest.raises(InputError, match="`form`"):
        T.standardize(0.1, **kw, form="exact")
    with pytest.raises(InputError, match="`coefficient`"):
        T.standardize(0.1, **{**kw, "coefficient": "kendall"}, table="spearman_additive_harmonic")
    with pytest.raises(InputError, match="`path_or_scheme_id`"):
        T.load_table("spearman_additive_nonexistent")


def _write(tmp_path, data, name="t.json"):
    p = tmp_path / name
    p.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return p


def test_corrupt_tables_are_rejected(tmp_path):
    good = json.loads((SHIPPED / "spearman_additive_harmonic.json").read_text())
    assert T.load_table(_write(tmp_path, good, "ok.json")).scheme_id == "spearman_additive_harmonic"
    with pytest.raises(InputError, match="not valid JSON"):
        T.load_table(_write(tmp_path, '{"schema": ', "trunc.json"))
    bad = json.loads(json.dumps(good))
    bad["fits"]["mean"]["coefficients"][0] += 1e-9
    with pytest.raises(InputError, match="checksum mismatch"):
        T.load_table(_write(tmp_path, bad, "tampered.json"))
    bad = json.loads(json.dumps(good))
    bad["schema_version"] = "2.0"
    with pytest.raises(InputError, match="schema_version"):
        T.load_table(_write(tmp_path, bad, "v2.json"))
    bad = json.loads(json.dumps(good))
    del bad["fits"]["var"]
    bad["checksum"] = T.table_checksum(bad)
    with pytest.raises(InputError, match="table schema"):
        T.load_table(_write(tmp_path, bad, "nofit.json"))
    with pytest.raises(InputError, match="no such table file"):
        T.load_table(tmp_path / "missing.json")


def _cli(*args, subprocess_run=False):
    """Run the CLI; in-process (fast) unless ``subprocess_run`` (a real process: exit code, no traceback)."""
    if subprocess_run:
        r = subprocess.run([sys.executable, "-m", "agreekit", *args], capture_output=True, text=True)
        return r.returncode, (json.loads(r.stdout) if r.returncode == 0 else None), r.stderr
    import contextlib
    import io

    from agreekit.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(args))
        except SystemExit as exc:  # argparse usage errors
            rc = exc.code
    return rc, (json.loads(out.getvalue()) if rc == 0 else None), err.getvalue()


def test_cli_standardize_and_correlate(tmp_path):
    rc, out, _ = _cli(
        "standardize",
        "--coefficient",
        "spearman",
        "--scheme",
        "additive",
        "--weigher",
        "harmonic",
        "--n",
        "500",
        "--gamma",
        "0.25",
    )
    assert rc == 0
    assert set(out) >= {"gamma", "standardized", "g0", "g1", "g2", "h2", "mean", "var", "left_var", "source"}
    assert out["source"] == "fit" and out["gamma"] == 0.25
    assert out["standardized"] == pytest.approx(
        T.standardize(0.25, coefficient="spearman", scheme="additive", weigher="harmonic", n=500), abs=1e-15
    )
    rc, out, _ = _cli(
        "standardize",
        "--coefficient",
        "spearman",
        "--scheme",
        "additive",
        "--weigher",
        "harmonic",
        "--n",
        "8",
        "--gamma",
        "0.25",
        "--form",
        "paper",
    )
    assert rc == 0 and out["source"] == "exact" and out["form"] == "paper"
    x = tmp_path / "x.txt"
    y = tmp_path / "y.txt"
    x.write_text("\n".join(map(str, range(1, 13))) + "\n")
    y.write_text("\n".join(map(str, [2, 1, 3, 5, 4, 6, 7, 9, 8, 10, 12, 11])) + "\n")
    rc, out, _ = _cli(
        "correlate",
        "--coefficient",
        "kendall",
        "--scheme",
        "additive",
        "--weigher",
        "harmonic",
        str(x),
        str(y),
        "--standardize",
        subprocess_run=True,
    )
    assert rc == 0 and {"value", "standardized", "source"} <= set(out)
    assert out["standardized"] == pytest.approx(
        T.standardize(out["value"], coefficient="kendall", scheme="additive", weigher="harmonic", n=12), abs=1e-15
    )


def test_cli_errors_exit_2_one_line(tmp_path):
    base = ["standardize", "--coefficient", "spearman", "--scheme", "additive", "--weigher", "harmonic"]
    for extra, word in (
        (["--n", "50000", "--gamma", "0.1"], "`n`"),
        (["--n", "30", "--gamma", "1.1"], "`gamma`"),
        (["--n", "30", "--gamma", "nan"], "`gamma`"),
    ):
        rc, _, err = _cli(*base, *extra)
        assert rc == 2 and word in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    corrupt = _write(tmp_path, '{"schema": "agreekit-coefficient-table"', "c.json")
    rc, _, err = _cli(*base, "--n", "30", "--gamma", "0.1", "--table", str(corrupt), subprocess_run=True)
    assert rc == 2 and "not valid JSON" in err and "Traceback" not in err
    rc, _, err = _cli(
        "standardize",
        "--coefficient",
        "spearman",
        "--scheme",
        "additive",
        "--weigher",
        "dcg",
        "--n",
        "30",
        "--gamma",
        "0.1",
    )
    assert rc == 2 and "no table for scheme" in err
    rc, out, _ = _cli(*base, "--n", "50000", "--gamma", "0.1", "--extrapolate")
    assert rc == 0 and "extrapolating" in out["warning"]
    rc, out, _ = _cli("table")
    assert rc == 0 and len(out["tables"]) == 16


def test_g0_rule_through_table_standardize_and_cli(tmp_path):
    """`g0_rule` reaches g through CoefficientTable.standardization_function, standardize and the CLI
    (`standardize` and `correlate --standardize`); the JSON reports g0_rule and min_slope."""
    from agreekit.ranking.standardization import StandardizationFunction

    kw = dict(coefficient="kendall", scheme="additive", weigher="harmonic")
    tab = T.load_table("kendall_additive_harmonic")
    m = tab.moments(30)
    for rule in ("max_min_slope", "closest_to_zero"):
        ref = StandardizationFunction.from_moments(m.mean, m.var, m.left_var, g0_rule=rule)
        g = tab.standardization_function(30, g0_rule=rule)
        assert (g.g0, g.g1, g.g0_rule) == (ref.g0, ref.g1, rule)
        assert T.standardize(0.4, n=30, g0_rule=rule, **kw) == ref(0.4)
        rc, out, _ = _cli(
            "standardize",
            "--coefficient",
            "kendall",
            "--scheme",
            "additive",
            "--weigher",
            "harmonic",
            "--n",
            "30",
            "--gamma",
            "0.4",
            "--g0-rule",
            rule,
        )
        assert rc == 0 and out["g0_rule"] == rule and out["min_slope"] == pytest.approx(ref.min_slope, abs=1e-15)
        assert out["standardized"] == ref(0.4)
    # default: max-min slope for the corrected form (strictly increasing), Algorithm 1 for the paper form
    assert tab.standardization_function(30).g0_rule == "max_min_slope"
    assert tab.standardization_function(30).min_slope > 0.5
    assert tab.standardization_function(30, g0_rule="closest_to_zero").min_slope < 1e-9
    assert tab.standardization_function(30, form="paper").g0_rule == "closest_to_zero"
    with pytest.raises(InputError, match="`g0_rule`"):
        T.standardize(0.4, n=30, g0_rule="zero", **kw)
    x = tmp_path / "x.txt"
    y = tmp_path / "y.txt"
    x.write_text("\n".join(map(str, range(1, 13))) + "\n")
    y.write_text("\n".join(map(str, [2, 1, 3, 5, 4, 6, 7, 9, 8, 10, 12, 11])) + "\n")
    rc, out, _ = _cli(
        "correlate",
        "--coefficient",
        "kendall",
        "--scheme",
        "additive",
        "--weigher",
        "harmonic",
        str(x),
        str(y),
        "--standardize",
        "--g0-rule",
        "closest_to_zero",
    )
    assert rc == 0 and out["g0_rule"] == "closest_to_zero"
    assert out["standardized"] == T.standardize(out["value"], n=12, g0_rule="closest_to_zero", **kw)
    rc, _, err = _cli(
        "standardize",
        "--coefficient",
        "kendall",
        "--scheme",
        "additive",
        "--weigher",
        "harmonic",
        "--n",
        "30",
        "--gamma",
        "0.4",
        "--g0-rule",
        "zero",
    )
    assert rc == 2 and "--g0-rule" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "where,value", [((3, 7), "x"), ((3, 7), True), ((2,), 5.0), ((0, 0), None), ((0, 0), [1.0]), ((1, 4), {"a": 1})]
)
def test_null_quantile_values_checked_like_the_schema(tmp_path, where, value):
    """null_quantiles.values is checked outside jsonschema (speed): the same refusals, same location and
    message as jsonschema gives for the whole table."""
    import copy
    import json

    import jsonschema

    from agreekit._validation import InputError
    from agreekit.ranking.tables import _schema, load_table, table_checksum

    data = copy.deepcopy(load_table("kendall_additive_harmonic").data)
    target = data["null_quantiles"]["values"]
    for k in where[:-1]:
        target = target[k]
    target[where[-1]] = value
    data["checksum"] = table_checksum(data)
    with pytest.raises(jsonschema.ValidationError) as ref:
        jsonschema.validate(data, _schema())
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError) as exc:
        load_table(path)
    loc = "/".join(str(p) for p in ref.value.absolute_path)
    assert f"at {loc}: {ref.value.message}" in str(exc.value)
