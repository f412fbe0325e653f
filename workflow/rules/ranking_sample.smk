# Monte Carlo samples of Gamma at every training n (Sections 4.1, 4.2.1, 5.1); one SeedSequence per
# (seed, scheme, n), so the numbers do not depend on threads or batching. One job per unit: a scheme alone
# (`{unit}` = its id) or several schemes of one coefficient on one shared permutation stream (config
# `batch:`; `{unit}` = batch/<name>). The fused kernel draws every permutation from its own row stream, so
# the numbers do not depend on threads; numba's prange follows the rule's threads.


rule ranking_sample:
    output:
        "results/ranking/samples/{unit}.npz",
    params:
        settings=ranking_unit_settings,
        batch_elements=config["ranking"]["batch_elements"],
    threads: ranking_threads()
    resources:
        mem_mb=2000,
        runtime=60,
    log:
        "logs/ranking/sample/{unit}.log",
    benchmark:
        "results/ranking/benchmarks/sample/{unit}.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_sample.py"


# null quantiles for the table p-values: their own stream (purpose "quantiles") and sizes, at every n up to
# ranking.quantiles.dense_upto and on a geometric grid beyond; one job per unit


rule ranking_quantiles:
    output:
        "results/ranking/quantiles/{unit}.npz",
    params:
        settings=ranking_unit_settings,
        batch_elements=config["ranking"]["batch_elements"],
    threads: ranking_threads()
    resources:
        mem_mb=3000,
        runtime=60,
    log:
        "logs/ranking/quantiles/{unit}.log",
    benchmark:
        "results/ranking/benchmarks/quantiles/{unit}.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_quantiles.py"


# the default run (ranking.quantiles.source: shipped): the null quantiles of a unit whose shipped tables were
# built with the same quantile settings are copied from those tables after a bit-for-bit regeneration at
# ranking.quantiles.verify.n; the job fails (writing nothing) if any regenerated row differs


rule ranking_quantiles_shipped:
    input:
        tables=lambda w: ranking_shipped_tables(RANKING_UNITS[w.shipped_unit]),
    output:
        quantiles="results/ranking/quantiles/shipped/{shipped_unit}.npz",
        verify="results/ranking/quantiles/shipped/{shipped_unit}.verify.json",
    params:
        settings=lambda w: [RANKING_SETTINGS[s] for s in RANKING_UNITS[w.shipped_unit]],
        verify_n=lambda w: ranking_quantile_verify_n(RANKING_UNITS[w.shipped_unit][0]),
        batch_elements=config["ranking"]["batch_elements"],
    threads: ranking_threads()
    resources:
        mem_mb=1000,
        runtime=10,
    log:
        "logs/ranking/quantiles_shipped/{shipped_unit}.log",
    benchmark:
        "results/ranking/benchmarks/quantiles_shipped/{shipped_unit}.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_quantiles_shipped.py"
