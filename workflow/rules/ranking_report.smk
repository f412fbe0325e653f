# checks and presentation: fresh Monte Carlo E[g] at held-out n, paper Tables 1-5, Figures 1-5,
# results/reproduction.md, and a summary of stage times from the benchmark files.



rule ranking_all:
    input:
        RANKING_TARGETS,


# one job per unit (a scheme alone or a batch): fails the run (naming scheme and n) if |E[g]| > threshold +
# 3 SE, unless validation.enforce is false
rule ranking_validate:
    input:
        tables=ranking_unit_tables,
    output:
        "results/ranking/validation/{unit}.json",
    params:
        n=lambda w: ranking_validation_n(RANKING_UNITS[w.unit][0]),
        validation=RANKING_VALIDATION_CFG,
        seed=config["seed"],
        batch_elements=config["ranking"]["batch_elements"],
    threads: ranking_threads()
    resources:
        mem_mb=1000,
        runtime=30,
    log:
        "logs/ranking/validate/{unit}.log",
    benchmark:
        "results/ranking/benchmarks/validate/{unit}.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_validate.py"


# table p-values (method="table") vs a fresh Monte Carlo at held-out n, reported in reproduction.md section 5
rule ranking_pvalue_check:
    input:
        tables=ranking_unit_tables,
    output:
        "results/ranking/pvalue_check/{unit}.json",
    params:
        n=lambda w: ranking_pvalue_check_n(RANKING_UNITS[w.unit][0]),
        size=ranking_pvalue_check_size,
        enforce=lambda w: config["ranking"]["quantiles"]["check"].get("enforce", True),
        seed=config["seed"],
        batch_elements=config["ranking"]["batch_elements"],
    threads: ranking_threads()
    resources:
        mem_mb=1000,
        runtime=30,
    log:
        "logs/ranking/pvalue_check/{unit}.log",
    benchmark:
        "results/ranking/benchmarks/pvalue_check/{unit}.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_pvalue_check.py"


rule ranking_paper_tables:
    input:
        tables=RANKING_TABLES,
        paper="resources/ranking/paper_tables2_5.csv",
        degrees="resources/ranking/paper_table1_degrees.csv",
    output:
        report(
            RANKING_PAPER_TABLES,
            caption="../report/ranking/paper_tables.rst",
            category="Ranking - paper tables",
        ),
    threads: 1
    log:
        "logs/ranking/paper_tables.log",
    benchmark:
        "results/ranking/benchmarks/render/paper_tables.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_paper_tables.py"


rule ranking_figures:
    input:
        tables=RANKING_TABLES,
    output:
        report(
            RANKING_FIGURES,
            caption="../report/ranking/figures.rst",
            category="Ranking - figures",
        ),
    params:
        figures=config["ranking"]["figures"],
        seed=config["seed"],
    threads: ranking_threads()
    log:
        "logs/ranking/figures.log",
    benchmark:
        "results/ranking/benchmarks/figures/figures.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_figures.py"


rule ranking_reproduction:
    input:
        tables=RANKING_TABLES,
        validation=RANKING_VALIDATION,
        pvalues=RANKING_PVALUE_CHECK,
        quantile_verify=RANKING_QUANTILE_VERIFY,
        paper="resources/ranking/paper_tables2_5.csv",
        degrees="resources/ranking/paper_table1_degrees.csv",
    output:
        report(
            "results/reproduction.md",
            caption="../report/ranking/reproduction.rst",
            category="Ranking - reproduction",
        ),
    threads: 1
    log:
        "logs/ranking/reproduction.log",
    benchmark:
        "results/ranking/benchmarks/render/reproduction.tsv"
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_reproduction.py"


rule ranking_stage_times:
    input:
        expand("results/ranking/benchmarks/{stage}/{sid}.tsv", stage=["exact", "fit"], sid=RANKING_IDS),
        expand(
            "results/ranking/benchmarks/{stage}/{sid}.tsv",
            stage=["sample", "validate"] + RANKING_QUANTILE_STAGES,
            sid=RANKING_SINGLE,
        ),
        expand(
            "results/ranking/benchmarks/{stage}/batch/{bid}.tsv",
            stage=["sample", "validate"] + RANKING_QUANTILE_STAGES,
            bid=list(RANKING_BATCHES),
        ),
        RANKING_QUANTILE_BENCHMARKS,
        "results/ranking/benchmarks/render/paper_tables.tsv",
        "results/ranking/benchmarks/render/reproduction.tsv",
        "results/ranking/benchmarks/figures/figures.tsv",
    output:
        report(
            "results/ranking/stage_times.md",
            caption="../report/ranking/stage_times.rst",
            category="Ranking - reproduction",
        ),
    threads: 1
    log:
        "logs/ranking/stage_times.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/ranking_stage_times.py"
