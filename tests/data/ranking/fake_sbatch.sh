#!/usr/bin/env bash
# Stand-in for `sbatch` in the cluster-generic executor test: run the job script detached from the
# submitting Snakemake process (a fresh shell, like a cluster node would) and print a job id.
nohup bash "$1" > "$1.out" 2>&1 &
echo "$!"
