"""QUICK, FAST and exact side by side on one dataset (the report's Tables 9–12)."""

from __future__ import annotations

from agreekit._api import check_rng, renamed_parameters
from agreekit.consensus._kemeny import kemeny, warmup
from agreekit._validation import check_float, check_int
from agreekit.consensus._matrices import RankingData, as_rankings

__all__ = ["compare_methods", "methods_table"]


@renamed_parameters(seed="rng")
def compare_methods(data: RankingData, *, n_starts: int = 100, rng=None, exact_time_limit: float | None = None) -> dict:
    """Run QUICK, FAST (``n_starts`` random starts) and exact on ``data``.

    Parameters
    ----------
    data : RankingData
        The rankings (:func:`~agreekit.consensus.read_rankings`, :func:`~agreekit.consensus.as_rankings`).
    n_starts : int
        FAST starts (also seeds the exact solver for large blocks).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Randomness of FAST's starts (scipy's SPEC 7); one generator is drawn from it and used
        by FAST, then by the exact solver.  ``seed=`` is a deprecated alias.
    exact_time_limit : float, optional
        Seconds allowed to the exact solver.

    Returns
    -------
    dict
        ``{"n_items", "n_rankings", "total_weight", "methods": {name: result dict}}`` with
        each result as :meth:`KemenyResult.to_dict` (keys ``n_optima``, ``average_tau_x``,
        ``proven``, ``seconds``, …), plus FAST's and QUICK's ``n_starts`` and the number of
        exact optima they recovered (``exact_solutions_recovered``).

    Examples
    --------
    >>> from agreekit.consensus import as_rankings, compare_methods
    >>> data = as_rankings([[1, 2, 3], [2, 1, 3], [1, 3, 2]], labels=list("abc"))
    >>> out = compare_methods(data, n_starts=5, rng=0)
    >>> {k: (d["n_optima"], round(d["average_tau_x"], 4), d["proven"]) for k, d in out["methods"].items()}
    {'quick': (1, 0.5556, True), 'fast': (1, 0.5556, True), 'exact': (1, 0.5556, True)}
    """
    if not isinstance(data, RankingData):  # arrays and frames are validated (a wrong type names `data`)
        data = as_rankings(data, parameter="data")
    if exact_time_limit is not None:
        check_float("exact_time_limit", exact_time_limit, minimum=0.0, inclusive=False)
    warmup()  # JIT compilation is not part of the timings
    gen = check_rng(rng)
    n_starts = check_int("n_starts", n_starts, minimum=1)
    out = {
        "n_items": data.n_items,
        "n_rankings": int(data.X.shape[0]),
        "total_weight": data.total_weight,
        "methods": {},
    }
    results = {
        "quick": kemeny(data, method="quick"),
        "fast": kemeny(data, method="fast", n_starts=n_starts, rng=gen),
        "exact": kemeny(
            data, method="exact", n_starts=n_starts, rng=gen, time_limit=exact_time_limit, max_solutions=100000
        ),
    }
    opt = {tuple(s) for s in results["exact"].solutions} if results["exact"].exhaustive else None
    for name, res in results.items():
        d = res.to_dict()
        if name != "exact":
            d["n_starts"] = n_starts if name == "fast" else 4
            d["exact_solutions_recovered"] = None if opt is None else len({tuple(s) for s in res.solutions} & opt)
        out["methods"][name] = d
    return out


def methods_table(results: dict, report=None):
    """One row per (dataset, method): optima, average τ_x, proven, time, beside the report's figures.

    Parameters
    ----------
    results : dict
        Dataset name → :func:`compare_methods` output.
    report : pandas.DataFrame, optional
        The report's figures, columns ``dataset, method, report_n_solutions, report_tau_x,
        report_seconds``, merged on ``(dataset, method)`` (missing rows stay empty).

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, n_items, n_rankings, method, n_optima, average_tau_x`` (rounded
        to 6 decimals), ``proven, all_optima, exact_solutions_recovered, seconds`` (rounded
        to 4), ``solver`` and the report's columns.

    Examples
    --------
    >>> from agreekit.consensus import as_rankings, compare_methods, methods_table
    >>> data = as_rankings([[1, 2, 3], [2, 1, 3], [1, 3, 2]], labels=list("abc"))
    >>> table = methods_table({"toy": compare_methods(data, n_starts=5, rng=0)})
    >>> print(table[["dataset", "method", "n_optima", "average_tau_x", "proven"]].to_string(index=False))
    dataset method  n_optima  average_tau_x  proven
        toy  quick         1       0.555556    True
        toy   fast         1       0.555556    True
        toy  exact         1       0.555556    True
    """
    import pandas as pd

    rows = []
    for name, res in results.items():
        for meth, d in res["methods"].items():
            rows.append(
                {
                    "dataset": name,
                    "n_items": res["n_items"],
                    "n_rankings": res["n_rankings"],
                    "method": meth,
                    "n_optima": d["n_optima"],
                    "average_tau_x": round(d["average_tau_x"], 6),
                    "proven": d["proven"],
                    "all_optima": d["exhaustive"],
                    "exact_solutions_recovered": d.get("exact_solutions_recovered"),
                    "seconds": round(d["seconds"], 4),
                    "solver": d["solver"],
                }
            )
    df = pd.DataFrame(rows)
    if report is not None:
        df = df.merge(report, on=["dataset", "method"], how="left")
        if "report_n_solutions" in df:
            df["report_n_solutions"] = df["report_n_solutions"].astype("Int64")
    return df
