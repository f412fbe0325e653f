# exact moments for n = 2..n_exact by enumeration of all n! permutations (Sections 4, 5.0.1)


rule ranking_exact:
    output:
        "results/ranking/exact/{sid}.json",
    params:
        settings=ranking_settings,
    threads: ranking_threads()
    resources:
        mem_mb=1000,
        runtime=30,
    log:
        "logs/ranking/exact/{sid}.log",
    benchmark:
        "results/ranking/benchmarks/exact/{sid}.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_exact.py"
