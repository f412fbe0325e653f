"""Snakemake adapter: one LFR graph (one mu, one repeat), all algorithms, all measures -> JSON."""
import sys

import numpy as np

from agreekit._io import write_json
from agreekit.clustering.lfr import LFRParameters, lfr_trial

sm = snakemake  # noqa: F821 (injected by Snakemake)
with open(sm.log[0], "w") as log:
    sys.stderr = log
    lfr = dict(sm.params.lfr)
    params = LFRParameters(**{k: lfr[k] for k in ("n", "tau1", "tau2", "average_degree", "max_degree",
                                                    "min_community", "max_community")})
    # stream id: (global seed, seed 003, mu index, repeat) -> independent of --cores and job order
    seed = int(np.random.SeedSequence([int(sm.params.seed), 3, int(sm.params.mu_index),
                                       int(sm.wildcards.cl_rep)]).generate_state(1)[0])
    rec = lfr_trial(params, float(sm.wildcards.cl_mu), seed=seed, algorithms=lfr["algorithms"],
                    measures=lfr["measures"])
    write_json(sm.output[0], rec)
    print(f"mu={sm.wildcards.cl_mu} rep={sm.wildcards.cl_rep}: {rec['edges']} edges, "
          f"{rec['true_communities']} communities", file=log)
