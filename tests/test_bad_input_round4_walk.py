"""Bad input, round 4 (issue 36): a walk of every public callable with wrong types per parameter.

Every public function of every area (``__all__`` of the area packages; result and data classes are
containers and skipped, ``Weigher`` is walked) is called from a small valid baseline call with ONE
parameter replaced by a wrong value: None, a bool, a str, a complex, a datetime64, a masked array, NaN,
inf, a 2-D array, a negative int and a huge int.  A call may

* raise :class:`agreekit.InputError` naming that parameter (or ``TypeError`` raised by agreekit's own
  validation naming it) — clean;
* succeed — accepted only where the docs say the value is valid: the rules of :func:`_accepted_reason`
  (None for an option whose default is None, a bool for a flag, SPEC 7's ``rng``, ...) and the reviewed
  :data:`ACCEPTED` list, each with its reason; any other success is a failure (a wrong value taken
  silently);
* raise anything else (a raw ``ValueError``/``IndexError``/numba error, an ``InputError`` naming another
  parameter, a call that does not return within the time limit) — a failure, listed with the value.

Every public function must walk clean (no xfail).
"""

from __future__ import annotations

import importlib
import inspect
import math
import signal
import traceback
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agreekit._validation import InputError

AREA_MODULES = (
    "agreekit",
    "agreekit.ranking",
    "agreekit.consensus",
    "agreekit.clustering",
    "agreekit.ireval",
    "agreekit.metaeval",
    "agreekit.consensus.simulation",
)
CALL_SECONDS = 10

BAD = {
    "None": None,
    "bool": True,
    "str": "abc",
    "complex": 1 + 2j,
    "datetime64": np.datetime64("2020-01-01"),
    "masked": np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0]),
    "nan": math.nan,
    "inf": math.inf,
    "2-D": np.ones((2, 3)),
    "negative": -3,
    "huge": 10**30,
}

SC = pd.DataFrame(
    {"A": [0.1, 0.4, 0.3, 0.5, 0.2], "B": [0.2, 0.5, 0.3, 0.1, 0.4], "C": [0.3, 0.1, 0.2, 0.4, 0.6]},
    index=pd.Index(["1", "2", "3", "4", "5"], name="topic"),
)
SC2 = SC.iloc[:, ::-1].set_axis(SC.columns, axis=1)
R3 = np.array([[1, 2, 3, 4], [2, 1, 3, 4], [1, 3, 2, 4]])
X5, Y5 = [1, 2, 3, 4, 5], [2, 1, 3, 5, 4]
U6, V6 = [0, 0, 1, 1, 2, 2], [0, 0, 0, 1, 1, 1]
EDGES6 = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (0, 5)]


def _files(tmp: Path) -> dict:
    (tmp / "qrels.txt").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n")
    (tmp / "run.txt").write_text("1 Q0 d1 1 2.0 A\n1 Q0 d2 2 1.0 A\n2 Q0 d3 1 1.0 A\n")
    (tmp / "labels.txt").write_text("0\n0\n1\n1\n")
    (tmp / "graph.txt").write_text("0 1\n1 2\n")
    (tmp / "rankings.csv").write_text("a,b,c\n1,2,3\n2,1,3\n")
    (tmp / "scores.csv").write_text("topic,A,B\n1,0.1,0.2\n2,0.3,0.1\n")
    return {
        k: tmp / v
        for k, v in {
            "qrels": "qrels.txt",
            "run": "run.txt",
            "labels": "labels.txt",
            "graph": "graph.txt",
            "rankings": "rankings.csv",
            "scores": "scores.csv",
        }.items()
    }


def _baselines(f: dict) -> dict:
    """name -> (positional args, keyword args): a small valid call of each public function."""
    small = {"n_resamples": 20}
    return {
        "Weigher": ((), {"family": "harmonic"}),
        "parse_weigher": (("harmonic",), {}),
        "weighted_spearman": ((X5, Y5), {}),
        "weighted_kendall": ((X5, Y5), {}),
        "weighted_correlation": ((X5, Y5), {}),
        "exact_moments": ((), {"n": 6}),
        "standardize": ((0.3,), {"n": 6}),
        "load_table": (("kendall_additive_harmonic",), {}),
        "table_checksum": (({"schema_version": 1, "n": [2, 3], "checksum": "sha256:0"},), {}),
        "weighted_correlation_test": ((X5, Y5), {"method": "exact"}),
        "scheme_id": (("kendall", "additive", "harmonic"), {}),
        "standardization_function": ((), {"n": 6}),
        "find_table": (("kendall", "additive", "harmonic"), {}),
        "null_moments": ((), {"n": 6}),
        "exact_null_distribution": ((), {"n": 5}),
        "kemeny": ((R3,), {"method": "quick"}),
        "as_rankings": ((R3,), {}),
        "read_rankings": ((f["rankings"],), {}),
        "score_matrix": (([1, 2, 3],), {}),
        "combined_input_matrix": ((R3,), {}),
        "tau_x": (([1, 2, 3, 4], [2, 1, 3, 4]), {}),
        "kemeny_distance": (([1, 2, 3, 4], [2, 1, 3, 4]), {}),
        "average_tau_x": (([1, 2, 3, 4], R3), {}),
        "penalty": (([1, 2, 3, 4], R3), {}),
        "ordering_string": (([2, 1, 2], ["a", "b", "c"]), {}),
        "compare_methods": ((RankingDataOf(R3),), {"n_starts": 5, "rng": 1, "exact_time_limit": 5.0}),
        "as_clustering": ((U6,), {}),
        "as_graph": ((EDGES6, ClusteringOf(U6)), {}),
        "read_clustering": ((f["labels"],), {}),
        "read_graph": ((f["graph"],), {}),
        "contingency_table": ((U6, V6), {}),
        "generalized_distance": ((U6, V6), {"phi": "x(x-1)/2"}),
        "agreement_with_graph": ((U6, EDGES6), {}),
        "comembership_stats": ((U6, V6), {}),
        "get_measure": (("ari",), {}),
        "list_measures": ((), {}),
        "lfr_benchmark": (
            (60,),
            {"average_degree": 6, "max_degree": 12, "min_community": 10, "max_community": 30, "mu": 0.2, "rng": 1},
        ),
        "realized_mixing": ((4, [[0, 1], [1, 2], [2, 3]], [[0, 1], [2, 3]]), {}),
        "powerlaw_exponent_mle": (([2, 2, 3, 4, 5],), {}),
        "evaluate": ((f["qrels"], [f["run"]]), {"metrics": ["AP"]}),
        "read_qrels": ((f["qrels"],), {}),
        "read_run": ((f["run"],), {}),
        "load_scores": ((f["scores"],), {}),
        "parse_metric": (("AP",), {}),
        "align_scores": ((SC, SC2), {}),
        "arithmetic_mean": ((SC,), {}),
        "geometric_mean": ((SC,), {}),
        "round_significant": (([0.12345],), {}),
        "bootstrap_indices": ((5,), {"n_resamples": 3, "rng": 1}),
        "paired_test": ((SC["A"].to_numpy(), SC["B"].to_numpy()), {**small, "rng": 1}),
        "unpaired_test": ((SC["A"].to_numpy(), SC["B"].to_numpy()), {**small, "rng": 1}),
        "discriminative_power": ((SC,), {**small, "rng": 1}),
        "stability": ((SC,), {**small, "rng": 1}),
        "swap_rates": ((SC,), {**small, "rng": 1}),
        "rank_correlation_se": ((SC, SC2), {**small, "rng": 1}),
        "difference_se": ((SC["A"].to_numpy(), SC["B"].to_numpy()), {**small, "rng": 1}),
        "meta_evaluate": ((SC,), {**small, "rng": 1}),
        "critical_rank": ((100, 0.05), {}),
        "difference_bin": (([0.01, 0.05],), {}),
        "format_difference": ((0.0123,), {}),
        "kendall_normal_test": ((0.5, 10), {}),
        "kendall_critical_value": ((10,), {}),
        "spearman_t_test": ((0.5, 10), {}),
        "metric_agreement": (({"AP": SC, "P": SC2},), {**small, "rng": 1, "pvalue": False}),
        "consensus_ranking": (({"AP": SC, "P": SC2},), {}),
        "mallows_rankings": (([1, 2, 3, 4], 0.5, 3), {"rng": 1}),
        "merge_ties": ((R3, 0.2), {"rng": 1}),
        "mask_missing": ((R3, 0.2), {"rng": 1}),
        "simulate_profile": ((5, 0.5, 4, "complete"), {"rng": 1}),
        "run_cell": (
            (),
            {
                "m": 5,
                "theta": 0.5,
                "variant": "complete",
                "n_profiles": 2,
                "n_judges": 4,
                "n_starts": 5,
                "rng": 1,
                "exact_time_limit": 5.0,
                "progress": False,
            },
        ),
        "available_tables": ((), {}),
        "rank_biased_overlap": ((["a", "b", "c", "d"], ["b", "a", "d", "e"]), {}),
        "rank_biased_overlap_test": ((["a", "b", "c", "d"], ["b", "a", "d", "e"]), {"n_items": 8, **small, "rng": 1}),
        "ap_correlation": ((X5, Y5), {}),
        "ap_correlation_test": ((X5, Y5), {**small, "rng": 1}),
        "kendall_w": ((R3,), {**small, "rng": 1}),
        "top_down_concordance": ((R3,), {**small, "rng": 1}),
        "top_down_correlation": (([1, 2, 3, 4], [2, 1, 3, 4]), {}),
        "savage_scores": (([1, 2, 3, 4],), {}),
        "bootstrap_consensus": ((R3,), {**small, "rng": 1}),
        "topic_metrics": (([1.0, 0.0, 1.0], [1.0, 1.0, 0.0], [ParsedMetric("AP")]), {}),
        **{name: ((U6, V6), {}) for name in PAIR_MEASURES},
    }


PAIR_MEASURES = (
    "rand_index",
    "adjusted_rand_index",
    "adjusted_rand_index_approx",
    "variation_of_information",
    "normalized_mutual_info",
    "jaccard_index",
    "f_measure",
    "mirkin_index",
    "mutual_info",
    "expected_mutual_info",
    "adjusted_mutual_info",
    "fowlkes_mallows",
    "homogeneity",
    "completeness",
    "v_measure",
    "overlapping_nmi",
    "ri_delta",
    "ari_delta",
    "i_norm",
    "i_sqrt_tr",
    "omega",
    "omega_unadjusted",
)


def ParsedMetric(name):
    from agreekit.ireval import parse_metric

    return parse_metric(name)


def RankingDataOf(X):
    from agreekit.consensus import as_rankings

    return as_rankings(X)


def ClusteringOf(labels):
    from agreekit.clustering import as_clustering

    return as_clustering(labels)


def _public():
    seen, out = set(), []
    for modname in AREA_MODULES:
        mod = importlib.import_module(modname)
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if inspect.ismodule(obj) or not callable(obj) or id(obj) in seen:
                continue
            if inspect.isclass(obj) and name != "Weigher":  # result / data containers
                continue
            seen.add(id(obj))
            out.append((modname, name))
    return out


PUBLIC = _public()
NO_BASELINE = {"summarize_recovery", "summarize_times", "plot_times", "methods_table"}

#: (function or "*", parameter, wrong value) -> why the call rightly succeeds (reviewed one by one)
ACCEPTED: dict[tuple[str, str, str], str] = {
    # a matrix where the baseline gives one: 2-D is the input's own shape
    **{
        (f, p, "2-D"): "a 2-D input of this parameter is a matrix of the documented shape"
        for f, p in [
            ("kemeny", "rankings"),
            ("as_rankings", "rankings"),
            ("combined_input_matrix", "rankings"),
            ("bootstrap_consensus", "rankings"),
            ("compare_methods", "data"),
            ("merge_ties", "X"),
            ("mask_missing", "X"),
            ("as_clustering", "clustering"),
            ("as_graph", "graph"),
            ("comembership_stats", "graph"),
            ("realized_mixing", "communities"),
            ("discriminative_power", "scores"),
            ("stability", "scores"),
            ("swap_rates", "scores"),
            ("meta_evaluate", "scores"),
            ("arithmetic_mean", "x"),
            ("geometric_mean", "x"),
            ("round_significant", "x"),
            ("difference_bin", "d"),
            ("standardize", "gamma"),
        ]
    },
    # values that are ordinary real numbers for these parameters
    **{
        (f, p, v): "a finite real number is a valid value (the function is elementwise on real values)"
        for f, p in [("round_significant", "x"), ("difference_bin", "d"), ("format_difference", "value")]
        for v in ("negative", "huge")
    },
    **{
        ("format_difference", "value", v): "documented: None, NaN or an infinite value format as 'nan'"
        for v in ("None", "nan", "inf")
    },
    # large but valid magnitudes
    **{
        (f, p, "huge"): "any finite value above the lower bound is valid (10**30 as a float)"
        for f, p in [
            ("mallows_rankings", "theta"),
            ("simulate_profile", "theta"),
            ("run_cell", "theta"),
            ("f_measure", "beta"),
            ("v_measure", "beta"),
            ("lfr_benchmark", "beta"),
            ("evaluate", "beta"),
            ("evaluate", "log_base"),
            ("topic_metrics", "beta"),
            ("topic_metrics", "log_base"),
            ("swap_rates", "bin_width"),
            ("meta_evaluate", "bin_width"),
            ("difference_bin", "width"),
            ("stability", "fuzziness"),
            ("meta_evaluate", "fuzziness"),
            ("*", "offset"),
            ("kemeny", "time_limit"),
            ("consensus_ranking", "time_limit"),
            ("compare_methods", "exact_time_limit"),
            ("run_cell", "exact_time_limit"),
        ]
    },
    **{
        (f, p, "huge"): "a count with no upper bound in the docs; the call does not do that much work (an exact "
        "method, a cut-off beyond the list, or a batch larger than the work)"
        for f, p in [
            ("weighted_correlation_test", "n_resamples"),
            ("ap_correlation_test", "n_resamples"),
            ("rank_biased_overlap_test", "n_resamples"),
            ("kendall_w", "n_resamples"),
            ("top_down_concordance", "n_resamples"),
            ("critical_rank", "n_resamples"),
            ("metric_agreement", "pvalue_resamples"),
            ("metric_agreement", "top_k"),
            ("evaluate", "depth"),
            ("topic_metrics", "depth"),
            ("discriminative_power", "batch_size"),
            ("meta_evaluate", "batch_size"),
            ("rank_biased_overlap_test", "n_items"),
        ]
    },
    ("*", "resamples", "None"): "None: draw the topic samples (documented default)",
    ("*", "resamples_prime", "None"): "None: draw the topic samples (documented default)",
    ("arithmetic_mean", "axis", "None"): "documented: None averages over all values (numpy's axis=None)",
    ("geometric_mean", "axis", "None"): "documented: None averages over all values (numpy's axis=None)",
    ("format_difference", "significant", "None"): "documented default (decimal places are used)",
    ("consensus_ranking", "summary", "None"): "documented: None = the metrics' own summaries",
    ("read_rankings", "weights_column", "None"): "documented: None uses no weights column",
    **{
        (f, "graph", "2-D"): "a 2-D array is a graph (here an edge list u, v, weight of two weighted self-loops); "
        "checked though eta='overlap' does not use it"
        for f in ("contingency_table", "generalized_distance")
    },
}


def _accepted_reason(func_name: str, p: inspect.Parameter, label: str) -> str | None:
    """Why calling ``func_name`` with ``p`` = BAD[label] rightly succeeds, or None (a silent acceptance)."""
    for key in ((func_name, p.name, label), ("*", p.name, label)):
        if key in ACCEPTED:
            return ACCEPTED[key]
    if label == "None" and p.default is None:
        return "None is the documented default"
    if label == "bool" and (isinstance(p.default, bool) or p.name in ("progress", "sequential")):
        return "a flag given True"
    if p.name in ("name", "parameter") and label == "str":
        return "a display name (how messages or results name the input): any non-empty string"
    if p.name == "rng" and label in ("None", "huge"):
        return "SPEC 7: None (fresh entropy) or any non-negative int (a SeedSequence's entropy)"
    return None


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _names(exc: BaseException, param: str, alias: str | None = None) -> bool:
    """The message names ``param`` (or the display name ``alias`` a reader was given for it)."""
    import re

    text = str(exc)
    names = {param} | ({alias} if alias else set())
    if isinstance(exc, InputError) and exc.parameter in names:
        return True
    return any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", text) for n in names)


#: functions whose first argument is named in errors as what the user typed (a CLI option, a file role)
DISPLAY_NAMES = {
    "parse_weigher": "weigher",
    "get_measure": "measure",
    "read_qrels": "qrels",
    "read_run": "run",
    "parse_metric": "metrics",
}


def _alias(sig: inspect.Signature, name: str = "") -> str | None:
    """Readers take the name their errors use (``parameter="FILE"``, ``name="U"``) for their first argument."""
    if name in DISPLAY_NAMES:
        return DISPLAY_NAMES[name]
    for key in ("parameter", "name"):
        p = sig.parameters.get(key)
        if p is not None and isinstance(p.default, str):
            return p.default
    return None


def _from_agreekit(exc: BaseException) -> bool:
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and "agreekit" in frames[-1].filename


#: (function, parameter, wrong value) whose error rightly names another parameter: a 2-D U is a valid
#: membership matrix (of 2 nodes), and the graph's edges then name nodes it does not have
ANOTHER_PARAMETER_OK = {("agreement_with_graph", "U", "2-D")}


def walk(func, args, kwargs) -> tuple[list[str], list[str]]:
    """(failures, accepted) of ``func`` with each parameter replaced by each wrong value."""
    sig = inspect.signature(func)
    bound = sig.bind_partial(*args, **kwargs)
    first = next(iter(sig.parameters), None)
    alias = _alias(sig, getattr(func, "__name__", ""))
    failures, accepted = [], []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name.startswith("_"):
            continue
        for label, bad in BAD.items():
            call = dict(bound.arguments)
            call[p.name] = bad
            pos = [call.pop(q.name) for q in sig.parameters.values() if q.kind == q.POSITIONAL_ONLY and q.name in call]
            old = signal.signal(signal.SIGALRM, _alarm)
            signal.alarm(CALL_SECONDS)
            try:
                func(*pos, **call)
            except _Timeout:
                failures.append(f"{p.name}={label}: no answer within {CALL_SECONDS} s")
            except InputError as exc:
                if (getattr(func, "__name__", ""), p.name, label) in ANOTHER_PARAMETER_OK:
                    continue
                if not _names(exc, p.name, alias if p.name == first else None):
                    failures.append(f"{p.name}={label}: InputError naming another parameter: {str(exc)[:120]}")
            except TypeError as exc:
                if not (_from_agreekit(exc) and _names(exc, p.name, alias if p.name == first else None)):
                    failures.append(f"{p.name}={label}: raw TypeError: {str(exc)[:120]}")
            except Exception as exc:  # noqa: BLE001 - the point of the walk
                failures.append(f"{p.name}={label}: raw {type(exc).__name__}: {str(exc)[:120]}")
            else:
                if _accepted_reason(getattr(func, "__name__", ""), p, label) is None:
                    failures.append(f"{p.name}={label}: accepted silently (the docs do not allow it)")
                else:
                    accepted.append(f"{p.name}={label}")
            finally:
                signal.alarm(0)
                signal.signal(signal.SIGALRM, old)
    return failures, accepted


def test_every_public_callable_has_a_baseline_or_a_reason(tmp_path):
    base = _baselines(_files(tmp_path))
    missing = [name for _, name in PUBLIC if name not in base and name not in NO_BASELINE]
    assert not missing, missing


@pytest.mark.parametrize("modname,name", PUBLIC, ids=[f"{m}.{n}" for m, n in PUBLIC])
def test_public_callable_walk(tmp_path, monkeypatch, modname, name):
    if name in NO_BASELINE:
        pytest.skip("takes a results frame of another function (no wrong-type walk)")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGREEKIT_MAX_MEMORY", "512M")
    func = getattr(importlib.import_module(modname), name)
    args, kwargs = _baselines(_files(tmp_path))[name]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        func(*args, **kwargs)  # the baseline itself is valid
        failures, accepted = walk(func, args, kwargs)
    print(f"{modname}.{name}: {len(failures)} failures, {len(accepted)} accepted: {accepted}")
    assert not failures, "\n".join(failures)


def _flag_parameters(func) -> list[str]:
    sig = inspect.signature(func)
    return [
        p.name for p in sig.parameters.values() if isinstance(p.default, bool) or p.name in ("progress", "sequential")
    ]


@pytest.mark.parametrize("modname,name", PUBLIC, ids=[f"{m}.{n}" for m, n in PUBLIC])
def test_flags_refuse_yes_and_2(tmp_path, monkeypatch, modname, name):
    """A switch given ``'yes'``, ``2`` or ``0`` is an InputError naming it, also where the call does not
    use it (``bool('no')`` is True: a truthy value must never silently flip a switch)."""
    if name in NO_BASELINE:
        pytest.skip("takes a results frame of another function")
    func = getattr(importlib.import_module(modname), name)
    flags = _flag_parameters(func)
    if not flags:
        pytest.skip("no flag parameter")
    monkeypatch.chdir(tmp_path)
    args, kwargs = _baselines(_files(tmp_path))[name]
    import warnings

    for flag in flags:
        for value in ("yes", "no", 2, 0, np.array([True, False])):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises(InputError) as info:
                    func(*args, **{**kwargs, flag: value})
            assert info.value.parameter == flag, (flag, value, str(info.value))


def test_difference_bin_refuses_nan_and_bins_by_the_definition():
    """Issue finding: ``difference_bin([nan])`` was -9223372036854775808.  Finite values keep Sakai's
    bins min(floor(|d| / width), n_bins - 1), written out here."""
    from agreekit.ireval import difference_bin

    for bad in ([math.nan], [0.1, math.inf], [1 + 0j], [True], ["0.1"], np.ma.masked_array([0.1], mask=[1])):
        with pytest.raises(InputError, match="`d`"):
            difference_bin(bad)
    d = [0.0, -0.004, 0.0149, 0.05, -0.199, 0.2, 5.0, 1e300]
    want = [min(math.floor(abs(v) / 0.01 + 1e-9), 20) for v in d]
    assert difference_bin(d).tolist() == want
    assert difference_bin([0.031 - 0.021]).tolist() == [1]  # round-off: 0.01 is bin 1


def test_ireval_helpers_refuse_non_real_numbers():
    """complex, datetime64, masked, booleans and numeric strings are not numbers for the public helpers."""
    from agreekit.ireval import (
        arithmetic_mean,
        format_difference,
        geometric_mean,
        kendall_normal_test,
        round_significant,
        spearman_t_test,
    )

    bads = [
        [1 + 2j, 0.5],
        np.array(["2020-01-01"], dtype="datetime64[D]"),
        np.ma.masked_array([0.1, 0.2], mask=[0, 1]),
        [True, False],
        ["0.1", "0.2"],
    ]
    for f in (arithmetic_mean, geometric_mean, round_significant):
        for bad in bads:
            with pytest.raises(InputError, match="`x`"):
                f(bad)
    for bad in (True, "0.5", 0.5 + 0j, np.datetime64("2020-01-01"), math.nan, 1.5):
        with pytest.raises(InputError, match="`tau`"):
            kendall_normal_test(bad, 10)
        with pytest.raises(InputError, match="`rho`"):
            spearman_t_test(bad, 10)
        if not isinstance(bad, float):
            with pytest.raises(InputError, match="`value`"):
                format_difference(bad)
    # valid input keeps its value: the plain mean and Sakai's Eq. 7 written out
    X = np.array([[0.1, 0.4], [0.3, 0.0]])
    assert arithmetic_mean(X).tolist() == pytest.approx([(0.1 + 0.3) / 2, (0.4 + 0.0) / 2])
    gm = [
        math.exp((math.log(0.1 + 1e-5) + math.log(0.3 + 1e-5)) / 2) - 1e-5,
        math.exp((math.log(0.4 + 1e-5) + math.log(0.0 + 1e-5)) / 2) - 1e-5,
    ]
    assert geometric_mean(X).tolist() == pytest.approx(gm, rel=1e-12)


#: areas whose array inputs are numbers (ranks, scores, weights); clustering's label vectors are categories
#: (any hashable label, as in scikit-learn), so a complex or string label is a label there
NUMERIC_AREAS = (
    "agreekit",
    "agreekit.ranking",
    "agreekit.consensus",
    "agreekit.ireval",
    "agreekit.metaeval",
    "agreekit.consensus.simulation",
)
NUMERIC_PUBLIC = [(m, n) for m, n in PUBLIC if m in NUMERIC_AREAS and n not in NO_BASELINE]


def _same_shape_variants(value) -> dict:
    """Wrong-typed arrays of the baseline's own shape (the walk above replaces a whole argument by a scalar)."""
    if not isinstance(value, (list, tuple, np.ndarray)) or isinstance(value, pd.DataFrame):
        return {}
    try:
        a = np.asarray(value)
    except (TypeError, ValueError):
        return {}
    if a.dtype.kind not in "iuf" or a.size == 0:
        return {}
    mask = np.zeros(a.shape, dtype=bool)
    mask.flat[0] = True
    return {
        "complex": a.astype(complex) + 1j,
        "datetime64": a.astype(np.int64).astype("datetime64[D]"),
        "masked": np.ma.masked_array(a, mask=mask),
        "bool": a.astype(bool),
        "numeric str": a.astype(str).tolist(),
    }


@pytest.mark.parametrize("modname,name", NUMERIC_PUBLIC, ids=[f"{m}.{n}" for m, n in NUMERIC_PUBLIC])
def test_numbers_are_real_numbers(tmp_path, monkeypatch, modname, name):
    """complex, datetime64, masked, boolean and numeric-string arrays of the right shape are refused by the
    ranking, consensus and ireval functions, naming the parameter."""
    monkeypatch.chdir(tmp_path)
    func = getattr(importlib.import_module(modname), name)
    args, kwargs = _baselines(_files(tmp_path))[name]
    bound = inspect.signature(func).bind_partial(*args, **kwargs)
    cases = [(p, label, bad) for p, v in bound.arguments.items() for label, bad in _same_shape_variants(v).items()]
    if not cases:
        pytest.skip("no numeric array argument in the baseline")
    import warnings

    bad_calls = []
    for p, label, bad in cases:
        call = {**bound.arguments, p: bad}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                func(**call)
            except InputError as exc:
                if not _names(exc, p):
                    bad_calls.append(f"{p}={label}: InputError naming another parameter: {exc}")
            except Exception as exc:  # noqa: BLE001
                bad_calls.append(f"{p}={label}: raw {type(exc).__name__}: {str(exc)[:120]}")
            else:
                bad_calls.append(f"{p}={label}: accepted silently")
    assert not bad_calls, "\n".join(bad_calls)
