# fits (Sections 4.2, 5.2): mean by inverse-variance WLS, V and V^l around the fitted mean (Eq. 38),
# degree selection (Section 4.2.3); then the versioned JSON table with provenance and checksum.
# Fit and table assembly share one job (one interpreter start-up per scheme instead of two).


rule ranking_fit:
    input:
        exact="results/ranking/exact/{sid}.json",
        samples=ranking_samples_file,
        quantiles=ranking_quantiles_file,
    output:
        fit="results/ranking/fits/{sid}.json",
        table="results/tables/{sid}.json",
    params:
        settings=ranking_settings,
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    log:
        "logs/ranking/fit/{sid}.log",
    benchmark:
        "results/ranking/benchmarks/fit/{sid}.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_fit.py"
