"""Null quantiles of the tables (issue 10, schema 1.2): their own Monte Carlo stage (every n up to
ranking.quantiles.dense_upto, then a geometric grid), batch invariance, the shipped blocks against a
regeneration from the quantile stream, and method="table" against an independent Monte Carlo at held-out n."""
import copy
from pathlib import Path

import numpy as np
import pytest
import yaml

from agreekit._validation import InputError
from agreekit.ranking import significance as S
from agreekit.ranking import tables as T
from agreekit.ranking.tablegen.generation import (check_ranking_config, quantile_batch_stage, quantile_grid,
                                                  quantile_settings, scheme_settings, schemes_from_config)
from agreekit.ranking.tablegen.reproduction import pvalue_accuracy_row, pvalue_reference_rows
from agreekit.ranking.tablegen.sampling import quantile_probs, sample_lanes, sample_stream, stream_key

ROOT = Path(__file__).resolve().parents[1]
CFG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


def test_quantile_grid():
    assert quantile_grid(11, 14, 1.5, 40) == [11, 12, 13, 14, 17, 26, 38, 40]
    g = quantile_grid(11, 60, 1.15, 40000)
    assert g[:50] == list(range(11, 61)) and g[-1] == 40000 and g[50] == 66
    assert np.all(np.diff(g) > 0) and np.all(np.array(g[51:]) / np.array(g[50:-1]) < 1.16)
    with pytest.raises(InputError, match="quantiles.q"):
        quantile_grid(11, 14, 1.0, 40)


def test_quantile_sizes_follow_the_rules():
    qs = quantile_settings(CFG["ranking"], "kendall", [11, 14])
    size = dict(zip(qs["n"], qs["size"]))
    assert size[11] == size[60] == 1_000_000 and size[66] == 500_000
    assert size[1648] == 500_000 and size[2180] == 1_000_000_000 // 2180
    assert size[5042] == 1_000_000_000 // 5042 and size[7668] == 1_000_000_000 // 7668
    # beyond n = 8000 the element cap would go below min_size: min_size applies
    assert size[8818] == size[31020] == size[40000] == 125_000
    sp = dict(zip(*(lambda q: (q["n"], q["size"]))(quantile_settings(CFG["ranking"], "spearman", [11, 14]))))
    assert sp[5042] == 500_000 and sp[7668] == 3_000_000_000 // 7668 and sp[40000] == 75_000


def _small(coef, scheme, weigher, seed=4):
    return {"coefficient": coef, "scheme": scheme, "weigher": weigher, "seed": seed,
            "quantiles": {"n": [11, 12, 17, 40], "size": [3000, 2000, 2500, 1500], "stream": "quantiles",
                          "round": 9}}


def test_quantile_stage_batch_equals_single_and_is_the_stream():
    a = _small("spearman", "additive", "harmonic")
    b = _small("spearman", "multiplicative", "inverse_square:n0=1")
    b["quantiles"]["size"] = [1000, 4000, 2500, 1200]
    batch = quantile_batch_stage([a, b])
    single = quantile_batch_stage([b])
    sid = "spearman_multiplicative_inverse_square-n0=1"
    assert batch[sid] == single[sid]
    blk = single[sid]
    assert blk["n"] == [11, 12, 17, 40] and blk["size"] == [1000, 4000, 2500, 1200]
    for k, n in enumerate(blk["n"]):
        g = sample_stream("spearman", n=n, size=blk["size"][k], weigher="inverse_square:n0=1",
                          scheme="multiplicative", seed=4, purpose="quantiles")
        np.testing.assert_array_equal(blk["values"][k], np.round(np.quantile(g, quantile_probs()), 9))
        assert blk["mean"][k] == pytest.approx(g.mean(), abs=1e-12)
        assert blk["sd"][k] == pytest.approx(g.std(), abs=1e-12)
    # the quantile stream is not the training stream
    t = sample_stream("spearman", n=11, size=1000, weigher="inverse_square:n0=1", scheme="multiplicative", seed=4)
    assert not np.array_equal(np.round(np.quantile(t, quantile_probs()), 9), blk["values"][0])


def test_check_n_must_be_held_out():
    cfg = copy.deepcopy(CFG["ranking"])
    cfg["quantiles"]["check"]["n"]["kendall"] = [125, 66]
    with pytest.raises(InputError, match="ranking.quantiles.check.n.kendall"):
        check_ranking_config(cfg)
    cfg["quantiles"]["check"]["n"]["kendall"] = [125]
    cfg["quantiles"]["dense_upto"] = 5
    with pytest.raises(InputError, match="ranking.quantiles.dense_upto"):
        check_ranking_config(cfg)


@pytest.mark.parametrize("sid", ["kendall_multiplicative_inverse_square-n0=2", "spearman_additive_harmonic"])
def test_shipped_quantiles_are_the_configured_stream(sid):
    tab = T.load_table(sid)
    assert tab.data["schema_version"] == "1.2"
    spec = next(s for s in schemes_from_config(CFG["ranking"]) if s.id == sid)
    settings = scheme_settings(CFG["ranking"], spec, CFG["seed"])
    assert tab.data["provenance"]["settings"] == settings
    nq = tab.data["null_quantiles"]
    assert nq["n"] == settings["quantiles"]["n"] and nq["size"] == settings["quantiles"]["size"]
    k = nq["n"].index(66)
    g = sample_stream(tab.coefficient, n=66, size=nq["size"][k], weigher=tab.weigher, scheme=tab.scheme,
                      seed=CFG["seed"], purpose="quantiles")
    np.testing.assert_array_equal(nq["values"][k], np.round(np.quantile(g, quantile_probs()), 9))


# method="table" against an independent Monte Carlo (its own key, not a pipeline stream) at held-out n
# (not stored lengths), 4e6 permutations: the issue-10 targets, |p_table - p_MC| <= 0.005 for p >= 0.05
# and <= 10 % relative for 0.001 <= p < 0.05 (max over 15 probabilities x 2 tails), no allowance added
@pytest.mark.parametrize("coef,n", [("kendall", 70), ("spearman", 125)])
def test_table_pvalues_meet_the_target_at_held_out_n(coef, n):
    tabs = [T.load_table(s) for s in T.available_tables() if s.startswith(coef)]
    for t in tabs:
        assert n not in S._quantile_model(t).index
    B = 4_000_000
    refs = sample_lanes(coef, n=n, sizes=[B] * len(tabs), lanes=[(t.weigher, t.scheme) for t in tabs],
                        key=stream_key(987654321, coef, n, "test-reference"))
    for t, ref in zip(tabs, refs):
        row = pvalue_accuracy_row(t, n, B, pvalue_reference_rows(ref))
        assert row["max_abs_err"] <= 0.005 and row["max_rel_err"] <= 0.10, (t.scheme_id, row["max_abs_err"],
                                                                           row["max_rel_err"])
