"""Snakemake adapter: QUICK, FAST and exact on one reference dataset -> JSON."""
import sys

import numpy as np

from agreekit._io import write_json
from agreekit.consensus._io import read_rankings
from agreekit.consensus.comparison import compare_methods

sm = snakemake  # noqa: F821
with open(sm.log[0], "w") as log:
    sys.stderr = log
    name = sm.wildcards.dataset
    data = read_rankings(sm.input.csv, ordinal=True)  # ConsRank data as distributed (usa_ranks holds a 0)
    seed = np.random.SeedSequence([int(sm.params.seed), *map(ord, name)])
    res = compare_methods(data, n_starts=int(sm.params.fast_starts), seed=seed,
                          exact_time_limit=float(sm.params.exact_time_limit))
    res = {"dataset": name, **res}
    write_json(sm.output.json, res)
    for meth, d in res["methods"].items():
        print(f"{name} {meth}: {d['n_solutions']} solutions, tau_x={d['tau_x']:.6f}, "
              f"optimal={d['optimal']}, {d['elapsed']:.3f}s", file=log)
