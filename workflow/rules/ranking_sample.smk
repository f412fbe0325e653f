# Monte Carlo samples of Gamma at every training n (Sections 4.1, 4.2.1, 5.1); one job per scheme,
# one SeedSequence per (seed, scheme, n), so the numbers do not depend on threads or batching.


rule ranking_sample:
    output:
        "results/ranking/samples/{sid}.npz",
    params:
        settings=ranking_settings,
        batch_elements=config["ranking"]["batch_elements"],
    # one thread per job: numpy's generator is serial, so two 1-thread jobs use 2 cores better than
    # one 2-thread job; numba's prange follows the rule's threads (results do not depend on it)
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    log:
        "logs/ranking/sample/{sid}.log",
    benchmark:
        "results/ranking/benchmarks/sample/{sid}.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_sample.py"
