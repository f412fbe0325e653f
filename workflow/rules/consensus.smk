# Stage: consensus (see README). Appends its final outputs to FINAL_TARGETS.
# Kemeny median rankings: QUICK / FAST / exact on the reference datasets and the
# report's simulation study.
# config["consensus"] was validated against config/consensus.schema.yaml in common.smk

CONS = config["consensus"]
CONS_SIM = CONS["simulation"]
CONS_CELLS = [
    f"m{m}_theta{theta}_{variant}"
    for m in CONS_SIM["m"]
    for theta in CONS_SIM["theta"]
    for variant in CONS_SIM["variants"]
]


rule consensus_dataset:
    input:
        csv="resources/consensus/{dataset}.csv",
    output:
        json="results/consensus/datasets/{dataset}.json",
    params:
        fast_starts=CONS["fast_starts"],
        exact_time_limit=CONS["exact_time_limit"],
        seed=config["seed"],
    log:
        "logs/consensus/dataset_{dataset}.log",
    conda:
        AGREEKIT_ENV
    wildcard_constraints:
        dataset="[A-Za-z0-9_]+",
    script:
        "../scripts/consensus_dataset.py"


rule consensus_datasets_table:
    input:
        jsons=expand("results/consensus/datasets/{dataset}.json", dataset=CONS["datasets"]),
        report="resources/consensus/report_results.csv",
    output:
        csv="results/consensus/datasets.csv",
        md="results/consensus/datasets.md",
    log:
        "logs/consensus/datasets_table.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/consensus_datasets_table.py"


rule consensus_simulation_cell:
    output:
        csv="results/consensus/simulation/cells/m{m}_theta{theta}_{variant}.csv",
    params:
        sim=CONS_SIM,
        seed=config["seed"],
    log:
        "logs/consensus/sim_m{m}_theta{theta}_{variant}.log",
    conda:
        AGREEKIT_ENV
    wildcard_constraints:
        m="[0-9]+",
        theta="[0-9.]+",
        variant="complete|tied|incomplete",
    script:
        "../scripts/consensus_sim_cell.py"


rule consensus_simulation_summary:
    input:
        cells=expand("results/consensus/simulation/cells/{cell}.csv", cell=CONS_CELLS),
    output:
        profiles="results/consensus/simulation/profiles.csv",
        recovery="results/consensus/simulation/recovery.csv",
        times="results/consensus/simulation/times.csv",
        boxplot="results/consensus/simulation/times_boxplot.png",
    log:
        "logs/consensus/sim_summary.log",
    conda:
        AGREEKIT_ENV
    script:
        "../scripts/consensus_sim_summary.py"


FINAL_TARGETS += [
    "results/consensus/datasets.csv",
    "results/consensus/datasets.md",
    "results/consensus/simulation/recovery.csv",
    "results/consensus/simulation/times.csv",
    "results/consensus/simulation/times_boxplot.png",
]
