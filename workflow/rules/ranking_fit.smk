# fits (Sections 4.2, 5.2): mean by inverse-variance WLS, V and V^l around the fitted mean (Eq. 38),
# degree selection (Section 4.2.3); then the versioned JSON table with provenance and checksum.


rule ranking_fit:
    input:
        samples="results/ranking/samples/{sid}.npz",
    output:
        "results/ranking/fits/{sid}.json",
    params:
        settings=ranking_settings,
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    log:
        "logs/ranking/fit/{sid}.log",
    benchmark:
        RANKING_BENCH + "/fit/{sid}.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_fit.py"


rule ranking_table:
    input:
        exact="results/ranking/exact/{sid}.json",
        fit="results/ranking/fits/{sid}.json",
    output:
        "results/tables/{sid}.json",
    params:
        settings=ranking_settings,
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    log:
        "logs/ranking/table/{sid}.log",
    benchmark:
        RANKING_BENCH + "/table/{sid}.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_table.py"
