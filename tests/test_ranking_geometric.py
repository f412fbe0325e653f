"""The ``geometric:p=…`` weigher family (f(i) = p^(i-1), the weights of rank-biased overlap; Webber, Moffat
and Zobel 2010), added through its registry entry only: parsed, evaluated, correlated, tested and
standardized by the library, the CLI and a pipeline config, against references written here."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from agreekit import (
    InputError,
    exact_moments,
    standardize,
    weighted_correlation,
    weighted_correlation_test,
    weighted_kendall,
)
from agreekit.cli import main
from agreekit.ranking import exact_null_distribution
from agreekit.ranking.weighting import WEIGHER_FAMILIES, parse_weigher

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ references written here


def _weights(x, y, p, scheme):
    fx = np.array([p ** (int(r) - 1) for r in x])
    fy = np.array([p ** (int(r) - 1) for r in y])
    return fx * fy if scheme == "multiplicative" else fx + fy


def _kendall(x, y, w):
    num = den = 0.0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            pw = w[i] * w[j]
            num += pw * np.sign((x[j] - x[i]) * (y[j] - y[i]))
            den += pw
    return num / den


def _spearman(x, y, w):
    mx, my = np.sum(w * x) / np.sum(w), np.sum(w * y) / np.sum(w)
    return np.sum(w * (x - mx) * (y - my)) / np.sqrt(np.sum(w * (x - mx) ** 2) * np.sum(w * (y - my) ** 2))


def _brute_null(coefficient, scheme, p, n):
    """Γ(id, π) for all n! permutations π, by the definitions above."""
    ident = np.arange(1, n + 1)
    out = []
    for perm in itertools.permutations(range(1, n + 1)):
        y = np.array(perm)
        w = _weights(ident, y, p, scheme)
        out.append(_kendall(ident, y, w) if coefficient == "kendall" else _spearman(ident, y, w))
    return np.array(out)


# ------------------------------------------------------------------ the family


@pytest.mark.parametrize("p", [0.5, 0.9, 0.123, 1e-3])
def test_weights_are_p_to_the_i_minus_1(p):
    w = parse_weigher(f"geometric:p={p!r}")
    assert w.family == "geometric" and w.params == (("p", p),) and w.spec == f"geometric:p={p!r}"
    ranks = np.arange(1, 41)
    # numpy's vectorised pow may differ from C's pow by an ulp
    np.testing.assert_allclose(w(ranks), [p ** (i - 1) for i in range(1, 41)], rtol=1e-15, atol=0)
    np.testing.assert_allclose(w.log(ranks), [(i - 1) * math.log(p) for i in range(1, 41)], rtol=1e-15, atol=0)
    assert w.label == f"{p!r}^(i-1)"


@pytest.mark.parametrize(
    "spec, needle",
    [
        ("geometric", "needs parameter"),
        ("geometric:p=0", "p must be in (0, 1); got 0"),
        ("geometric:p=1", "p must be in (0, 1); got 1"),
        ("geometric:p=1.5", "in (0, 1)"),
        ("geometric:p=-0.2", "in (0, 1)"),
        ("geometric:n0=1", "no parameter 'n0'"),
        ("geometric:p=0.5,p=0.6", "given twice"),
    ],
)
def test_bad_parameters_are_refused(spec, needle):
    with pytest.raises(InputError, match="weigher") as exc:
        parse_weigher(spec)
    assert needle in str(exc.value)


def test_the_missing_parameter_example_is_valid():
    with pytest.raises(InputError) as exc:
        parse_weigher("geometric")
    example = str(exc.value).split("e.g. '")[1].split("'")[0]
    assert parse_weigher(example).family == "geometric"


# ------------------------------------------------------------------ the coefficients


@pytest.mark.parametrize("scheme", ["additive", "multiplicative"])
@pytest.mark.parametrize("p, n", [(0.5, 6), (0.5, 47), (0.8, 47), (0.8, 300), (0.97, 300)])
def test_kendall_matches_scipy_weightedtau(scheme, p, n):
    """Where scipy's pair weights are normal float64 (p^(2(n-1)) >= 2^-600 at most); below that scipy
    loses pairs to underflow and the reference is exact arithmetic (next test)."""
    rng = np.random.default_rng([n, int(p * 100), len(scheme)])
    for _ in range(3):
        x = rng.permutation(n) + 1
        y = rng.permutation(n) + 1
        w = _weights(x, y, p, scheme)
        ours = weighted_correlation(x, y, coefficient="kendall", weigher=f"geometric:p={p}", scheme=scheme)
        ref = stats.weightedtau(x, y, rank=np.arange(n), weigher=lambda i: w[i], additive=False)[0]
        assert ours == pytest.approx(ref, abs=1e-12)
        # the spec and the same function as a Python callable: the same number, bit for bit
        assert ours == weighted_correlation(
            x, y, coefficient="kendall", weigher=lambda i: p ** (i - 1.0), scheme=scheme
        )


@pytest.mark.parametrize("scheme", ["additive", "multiplicative"])
def test_spearman_matches_the_definition(scheme):
    rng = np.random.default_rng(7)
    for n in (5, 60, 400):
        x = rng.permutation(n) + 1
        y = rng.permutation(n) + 1
        ours = weighted_correlation(x, y, coefficient="spearman", weigher="geometric:p=0.9", scheme=scheme)
        assert ours == pytest.approx(_spearman(x, y, _weights(x, y, 0.9, scheme)), abs=1e-12)


@pytest.mark.parametrize("n, p", [(90, Fraction(1, 100_000)), (300, Fraction(1, 2))])
def test_extreme_geometric_weights_keep_full_precision(n, p):
    """p = 1e-5 at n = 90: f(90) = 1e-445 underflows float64 (the log form rescales it); p = 1/2 at n = 300
    (multiplicative pair weights down to 2^-1196, where scipy's weightedtau is off by 5e-10); the
    reference is the definition in exact rational arithmetic."""
    rng = np.random.default_rng(3)
    x = rng.permutation(n) + 1
    y = rng.permutation(n) + 1
    for scheme in ("additive", "multiplicative"):
        fx = [p ** (int(r) - 1) for r in x]
        fy = [p ** (int(r) - 1) for r in y]
        w = [a * b if scheme == "multiplicative" else a + b for a, b in zip(fx, fy)]
        num = den = Fraction(0)
        for i in range(n):
            for j in range(i + 1, n):
                s = (x[j] - x[i]) * (y[j] - y[i])
                num += w[i] * w[j] * (1 if s > 0 else -1)
                den += w[i] * w[j]
        ours = weighted_kendall(x, y, weigher=f"geometric:p={float(p)!r}", scheme=scheme)
        assert ours == pytest.approx(float(num / den), rel=1e-12, abs=1e-15)


# ------------------------------------------------------------------ null moments, test, standardization


@pytest.mark.parametrize("coefficient", ["kendall", "spearman"])
@pytest.mark.parametrize("scheme", ["additive", "multiplicative"])
@pytest.mark.parametrize("p, n", [(0.5, 4), (0.8, 6), (0.3, 7)])
def test_exact_moments_match_enumeration(coefficient, scheme, p, n):
    g = _brute_null(coefficient, scheme, p, n)
    mean = math.fsum(g) / g.size
    var = math.fsum((g - mean) ** 2) / g.size
    left = math.fsum(((g - mean) ** 2)[g < mean]) / g.size
    m = exact_moments(coefficient, n=n, weigher=f"geometric:p={p}", scheme=scheme)
    assert (m.mean, m.var, m.left_var) == pytest.approx((mean, var, left), rel=1e-11, abs=1e-14)
    np.testing.assert_allclose(
        exact_null_distribution(coefficient, n=n, weigher=f"geometric:p={p}", scheme=scheme),
        np.sort(g),
        rtol=0,
        atol=1e-13,
    )


def test_exact_pvalue_matches_enumeration():
    n, p = 7, 0.7
    g = _brute_null("kendall", "multiplicative", p, n)
    x = np.arange(1, n + 1)
    y = np.array([2, 1, 3, 5, 4, 7, 6])
    res = weighted_correlation_test(
        x,
        y,
        coefficient="kendall",
        weigher=f"geometric:p={p}",
        scheme="multiplicative",
        alternative="greater",
        method="exact",
    )
    gamma = _kendall(x, y, _weights(x, y, p, "multiplicative"))
    assert res.statistic == pytest.approx(gamma, abs=1e-13)
    assert res.pvalue == pytest.approx(np.mean(g >= gamma - 1e-12), abs=1e-15)


def test_standardize_on_demand_has_mean_zero():
    """No table ships for geometric: standardize computes the moments at n on demand; E[g(Γ)] = 0 over
    the enumerated null (the defining property of g), g(-1) = -1, g(1) = 1."""
    n = 7
    for coefficient, scheme in (("kendall", "additive"), ("spearman", "multiplicative")):
        g = _brute_null(coefficient, scheme, 0.8, n)
        s = standardize(g, coefficient=coefficient, scheme=scheme, weigher="geometric:p=0.8", n=n)
        assert abs(math.fsum(s) / s.size) < 1e-12
        ends = standardize([-1.0, 1.0], coefficient=coefficient, scheme=scheme, weigher="geometric:p=0.8", n=n)
        assert ends.tolist() == pytest.approx([-1.0, 1.0], abs=1e-12)


# ------------------------------------------------------------------ CLI and pipeline config


def _run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_cli(tmp_path, capsys):
    n, p = 6, 0.5
    code, out, err = _run(capsys, "moments", "--weigher", "geometric:p=0.5", "--scheme", "multiplicative", "--n", "6")
    assert code == 0 and err == ""
    g = _brute_null("kendall", "multiplicative", p, n)
    res = json.loads(out)
    assert res["weigher"] == "geometric:p=0.5"
    assert res["mean"] == pytest.approx(math.fsum(g) / g.size, rel=1e-11)
    fx, fy = tmp_path / "x.txt", tmp_path / "y.txt"
    x = np.arange(1, 31)
    y = x.copy()
    y[:6] = [3, 1, 2, 6, 4, 5]
    fx.write_text("".join(f"{v}\n" for v in x))
    fy.write_text("".join(f"{v}\n" for v in y))
    code, out, err = _run(capsys, "correlate", "--weigher", "geometric:p=0.9", str(fx), str(fy))
    assert code == 0 and err == ""
    assert json.loads(out)["value"] == pytest.approx(_kendall(x, y, _weights(x, y, 0.9, "additive")), abs=1e-12)
    code, out, err = _run(capsys, "correlate", "--weigher", "geometric:p=1.2", str(fx), str(fy))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "p must be in (0, 1)" in err


def test_pipeline_config_accepts_geometric(tmp_path):
    """A quick config with a geometric scheme passes the schema and the parse-time checks of the pipeline."""
    yaml = pytest.importorskip("yaml")
    pytest.importorskip("snakemake")
    from agreekit._pipeline_config import PipelineConfigError, check_pipeline_config, merged_pipeline_config

    for name in ("config", "resources"):
        (tmp_path / name).symlink_to(ROOT / name)
    quick = yaml.safe_load((ROOT / "config" / "quick.yaml").read_text())
    schemes = quick["ranking"]["schemes"] + [
        {"coefficient": "kendall", "scheme": "additive", "weigher": "geometric:p=0.9"}
    ]
    (tmp_path / "extra.yaml").write_text(
        yaml.safe_dump({"ranking": {"schemes": schemes}, "metaeval": {"weigher": "geometric:p=0.95"}})
    )
    files = [tmp_path / "config" / "quick.yaml", tmp_path / "extra.yaml"]
    cfg = merged_pipeline_config(files, workflow_configfile=tmp_path / "config" / "config.yaml")
    check_pipeline_config(cfg, [tmp_path / "config" / "config.yaml", *files], ROOT / "config" / "config.schema.yaml")
    assert cfg["ranking"]["schemes"][-1]["weigher"] == "geometric:p=0.9"
    # and out-of-bounds parameters fail there, naming the weigher
    (tmp_path / "extra.yaml").write_text(
        yaml.safe_dump(
            {"ranking": {"schemes": [{"coefficient": "kendall", "scheme": "additive", "weigher": "geometric:p=2"}]}}
        )
    )
    cfg = merged_pipeline_config(files, workflow_configfile=tmp_path / "config" / "config.yaml")
    with pytest.raises((PipelineConfigError, InputError), match="in \\(0, 1\\)"):
        check_pipeline_config(
            cfg, [tmp_path / "config" / "config.yaml", *files], ROOT / "config" / "config.schema.yaml"
        )


def test_the_family_is_one_registry_entry():
    fam = WEIGHER_FAMILIES["geometric"]
    assert [p.name for p in fam.params] == ["p"] and fam.required == ("p",)
    assert fam.label == "{p}^(i-1)" and "rank-biased overlap" in fam.doc
