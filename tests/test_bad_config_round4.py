"""Invalid pipeline configs, round 4 (issue 36): ``n_resamples × alpha`` not an integer is refused (it only
warned), bootstrap collection names and metric keys are pattern-checked at parse time (``../../etc`` failed
late with a MissingInputException).

In the style of ``tests/test_bad_config.py``: each case is checked in-process on the config merged as
``snakemake --configfile config/config.yaml extra.yaml`` merges it; one real dry run proves the wiring.
"""

from __future__ import annotations

import re
import warnings

import pytest
from test_bad_config import _assert_fails_before_any_job, _check, _dry_run

ALPHA_CASES = [
    # (alpha, n_resamples): B * alpha, written out
    (0.0333, 1000),  # 33.3 (the finding)
    (0.05, 999),  # 49.95
    (0.07, 1010),  # 70.7
    (0.001, 1500),  # 1.5
    (0.025, 20),  # 0.5: below 1 as well
    (0.3, 21),  # 6.3
    (0.123456, 1000),  # 123.456
]


@pytest.mark.parametrize("alpha,B", ALPHA_CASES, ids=[f"{a}x{b}" for a, b in ALPHA_CASES])
def test_alpha_times_n_resamples_not_integer_is_refused(tmp_path, alpha, B):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # refused, not warned about
        exc = _check(tmp_path, {"bootstrap": {"alpha": alpha, "n_resamples": B}})
    assert exc is not None, "accepted"
    text = str(exc)
    assert "bootstrap.n_resamples * bootstrap.alpha" in text and "must be an integer" in text, text
    assert f"= {B * alpha:g}" in text, text
    assert exc.parameter == "bootstrap.alpha"
    # every fix it suggests passes
    fixes = dict(re.findall(r"bootstrap\.(alpha|n_resamples) = ([0-9.e-]+)", text.split("e.g. ")[1]))
    assert "n_resamples" in fixes, text
    cfg = {"alpha": alpha, "n_resamples": B}
    for i, (key, value) in enumerate(fixes.items()):
        fixed = dict(cfg, **{key: float(value) if key == "alpha" else int(value)})
        (tmp_path / f"fix{i}").mkdir()
        assert _check(tmp_path / f"fix{i}", {"bootstrap": fixed}) is None, (key, value)


@pytest.mark.parametrize("alpha,B", [(0.05, 1000), (0.01, 1000), (0.1, 30), (0.05, 20), (0.2, 35), (0.001, 2000)])
def test_alpha_times_n_resamples_integer_passes_without_warning(tmp_path, alpha, B):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _check(tmp_path, {"bootstrap": {"alpha": alpha, "n_resamples": B}}) is None


def _collections(**extra):
    base = {"adhoc5": ["ap", "p10", "rr"]}
    base.update(extra)
    return {"bootstrap": {"score_matrices": {"collections": base}}}


BAD_NAMES = ["../../etc", "a/b", "..", "adhoc.5", "adhoc 5", "", "ädhoc", "adhoc5\n", "-rf", "a*", "$HOME", "x:y"]


@pytest.mark.parametrize("name", BAD_NAMES, ids=[f"name{i}" for i in range(len(BAD_NAMES))])
def test_collection_name_is_pattern_checked(tmp_path, name):
    exc = _check(tmp_path, _collections(**{name: ["ap"]}))
    assert exc is not None, "accepted"
    assert "does not match '^[A-Za-z0-9_]+$'" in str(exc), str(exc)[-2000:]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config", "extra.yaml", "resources"]  # no output


@pytest.mark.parametrize("key,where", [("../ap", "geometric"), ("a/p", "labels"), ("ap.csv", "labels")])
def test_metric_keys_in_labels_and_geometric_are_pattern_checked(tmp_path, key, where):
    sm = {"geometric": [key]} if where == "geometric" else {"labels": {key: "AP"}}
    exc = _check(tmp_path, {"bootstrap": {"score_matrices": sm}})
    assert exc is not None, "accepted"
    assert "does not match" in str(exc), str(exc)[-2000:]


def test_valid_collection_names_pass(tmp_path):
    assert _check(tmp_path, _collections(web_2014=["ndcg20"], TREC8=["ap"])) is None


def test_dry_run_refuses_collection_path_and_alpha_before_any_job(tmp_path):
    (tmp_path / "a").mkdir()
    r = _dry_run(tmp_path / "a", _collections(**{"../../etc": ["ap"]}))
    _assert_fails_before_any_job(tmp_path / "a", r, ["does not match", "../../etc"])
    (tmp_path / "b").mkdir()
    r = _dry_run(tmp_path / "b", {"bootstrap": {"alpha": 0.0333}})
    _assert_fails_before_any_job(tmp_path / "b", r, ["invalid config: ", "must be an integer"])
