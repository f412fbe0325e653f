# Monte Carlo samples of Gamma at every training n (Sections 4.1, 4.2.1, 5.1); one job per scheme,
# one SeedSequence per (seed, scheme, n), so the numbers do not depend on threads or batching.


rule ranking_sample:
    output:
        "results/ranking/samples/{single}.npz",
    params:
        settings=lambda w: [RANKING_SETTINGS[w.single]],
        batch_elements=config["ranking"]["batch_elements"],
    # the fused kernel draws every permutation from its own row stream, so the numbers do not
    # depend on threads; numba's prange follows the rule's threads
    threads: ranking_threads()
    resources:
        mem_mb=2000,
        runtime=60,
    log:
        "logs/ranking/sample/{single}.log",
    benchmark:
        "results/ranking/benchmarks/sample/{single}.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_sample.py"


# several schemes of one coefficient on one shared permutation stream (config `batch:`), one job


rule ranking_sample_batch:
    output:
        "results/ranking/samples/batch/{bid}.npz",
    params:
        settings=ranking_batch_settings,
        batch_elements=config["ranking"]["batch_elements"],
    threads: ranking_threads()
    resources:
        mem_mb=2000,
        runtime=60,
    log:
        "logs/ranking/sample/batch-{bid}.log",
    benchmark:
        "results/ranking/benchmarks/sample/batch-{bid}.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_sample.py"

# null quantiles for the table p-values: their own stream (purpose "quantiles") and sizes,
# at every n up to ranking.quantiles.dense_upto and on a geometric grid beyond; one job per batch / scheme


rule ranking_quantiles:
    output:
        "results/ranking/quantiles/{single}.npz",
    params:
        settings=lambda w: [RANKING_SETTINGS[w.single]],
        batch_elements=config["ranking"]["batch_elements"],
    threads: ranking_threads()
    resources:
        mem_mb=3000,
        runtime=60,
    log:
        "logs/ranking/quantiles/{single}.log",
    benchmark:
        "results/ranking/benchmarks/quantiles/{single}.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_quantiles.py"


rule ranking_quantiles_batch:
    output:
        "results/ranking/quantiles/batch/{bid}.npz",
    params:
        settings=ranking_batch_settings,
        batch_elements=config["ranking"]["batch_elements"],
    threads: ranking_threads()
    resources:
        mem_mb=3000,
        runtime=60,
    log:
        "logs/ranking/quantiles/batch-{bid}.log",
    benchmark:
        "results/ranking/benchmarks/quantiles/batch-{bid}.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_quantiles.py"


# the default run (ranking.quantiles.source: shipped): the null quantiles of a unit whose shipped tables were
# built with the same quantile settings are copied from those tables after a bit-for-bit regeneration at
# ranking.quantiles.verify.n; the job fails (writing nothing) if any regenerated row differs


rule ranking_quantiles_shipped:
    input:
        tables=lambda w: ranking_shipped_tables([w.shipped_single]),
    output:
        quantiles="results/ranking/quantiles/shipped/{shipped_single}.npz",
        verify="results/ranking/quantiles/shipped/{shipped_single}.verify.json",
    params:
        settings=lambda w: [RANKING_SETTINGS[w.shipped_single]],
        verify_n=lambda w: ranking_quantile_verify_n(w.shipped_single),
        batch_elements=config["ranking"]["batch_elements"],
    threads: ranking_threads()
    resources:
        mem_mb=1000,
        runtime=10,
    log:
        "logs/ranking/quantiles_shipped/{shipped_single}.log",
    benchmark:
        "results/ranking/benchmarks/quantiles_shipped/{shipped_single}.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_quantiles_shipped.py"


rule ranking_quantiles_shipped_batch:
    input:
        tables=lambda w: ranking_shipped_tables(RANKING_BATCHES[w.shipped_bid]),
    output:
        quantiles="results/ranking/quantiles/shipped/batch/{shipped_bid}.npz",
        verify="results/ranking/quantiles/shipped/batch/{shipped_bid}.verify.json",
    params:
        settings=lambda w: [RANKING_SETTINGS[s] for s in RANKING_BATCHES[w.shipped_bid]],
        verify_n=lambda w: ranking_quantile_verify_n(RANKING_BATCHES[w.shipped_bid][0]),
        batch_elements=config["ranking"]["batch_elements"],
    threads: ranking_threads()
    resources:
        mem_mb=1000,
        runtime=10,
    log:
        "logs/ranking/quantiles_shipped/batch-{shipped_bid}.log",
    benchmark:
        "results/ranking/benchmarks/quantiles_shipped/batch-{shipped_bid}.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_quantiles_shipped.py"
