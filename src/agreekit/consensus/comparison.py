"""QUICK, FAST and exact side by side on one dataset (the report's Tables 9–12)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from agreekit.consensus._kemeny import kemeny, warmup
from agreekit.consensus._matrices import RankingData

__all__ = ["compare_methods", "methods_table"]


def compare_methods(data: RankingData, *, n_starts: int = 100, seed=None,
                    exact_time_limit: float | None = None) -> dict:
    """Run QUICK, FAST (``n_starts`` seeded starts) and exact on ``data``.

    Returns ``{"n_items", "n_rankings", "total_weight", "methods": {name: result dict}}``
    with each result as :meth:`KemenyResult.to_dict`, plus FAST's and QUICK's share of
    the exact optimal set they recovered.
    """
    warmup()  # JIT compilation is not part of the timings
    rng = np.random.default_rng(seed)
    out = {"n_items": data.n_items, "n_rankings": int(data.X.shape[0]),
           "total_weight": data.total_weight, "methods": {}}
    results = {
        "quick": kemeny(data, method="quick"),
        "fast": kemeny(data, method="fast", n_starts=n_starts, rng=rng),
        "exact": kemeny(data, method="exact", n_starts=n_starts, rng=rng,
                        time_limit=exact_time_limit, max_solutions=100000),
    }
    opt = {tuple(s) for s in results["exact"].solutions} if results["exact"].exhaustive else None
    for name, res in results.items():
        d = res.to_dict()
        if name != "exact":
            d["n_starts"] = n_starts if name == "fast" else 4
            d["exact_solutions_recovered"] = (None if opt is None else
                                              len({tuple(s) for s in res.solutions} & opt))
        out["methods"][name] = d
    return out


def methods_table(results: dict, report: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (dataset, method): solutions, τ_x, proven, time, beside the report's figures.

    ``results`` maps dataset name → :func:`compare_methods` output; ``report`` has columns
    ``dataset, method, report_n_solutions, report_tau_x, report_seconds``.
    """
    rows = []
    for name, res in results.items():
        for meth, d in res["methods"].items():
            rows.append({
                "dataset": name, "n_items": res["n_items"], "n_rankings": res["n_rankings"],
                "method": meth, "n_solutions": d["n_solutions"], "tau_x": round(d["tau_x"], 6),
                "optimal": d["optimal"], "all_optima": d["exhaustive"],
                "exact_solutions_recovered": d.get("exact_solutions_recovered"),
                "seconds": round(d["elapsed"], 4), "solver": d["solver"],
            })
    df = pd.DataFrame(rows)
    if report is not None:
        df = df.merge(report, on=["dataset", "method"], how="left")
        if "report_n_solutions" in df:
            df["report_n_solutions"] = df["report_n_solutions"].astype("Int64")
    return df
