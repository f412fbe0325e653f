"""Snakemake adapter: QUICK, FAST and exact on one reference dataset -> JSON."""

import numpy as np

from agreekit.pipeline import script_log, write_json
from agreekit.consensus import compare_methods, read_rankings

# the original JSON keys, kept so that the shipped outputs do not change (library name -> JSON key)
JSON_KEYS = {"n_optima": "n_solutions", "average_tau_x": "tau_x", "proven": "optimal", "seconds": "elapsed"}

sm = snakemake  # noqa: F821 (injected by Snakemake)
with script_log(sm) as log:
    name = sm.wildcards.dataset
    data = read_rankings(sm.input.csv, ordinal=True)  # ConsRank data as distributed (usa_ranks holds a 0)
    rng = np.random.SeedSequence([int(sm.params.seed), *map(ord, name)])
    res = compare_methods(
        data, n_starts=int(sm.params.fast_starts), rng=rng, exact_time_limit=float(sm.params.exact_time_limit)
    )
    res["methods"] = {meth: {JSON_KEYS.get(k, k): v for k, v in d.items()} for meth, d in res["methods"].items()}
    res = {"dataset": name, **res}
    write_json(sm.output.json, res)
    for meth, d in res["methods"].items():
        log.info(
            f"{name} {meth}: {d['n_solutions']} solutions, tau_x={d['tau_x']:.6f}, "
            f"optimal={d['optimal']}, {d['elapsed']:.3f}s"
        )
