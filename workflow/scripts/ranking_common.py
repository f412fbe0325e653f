"""Shared start-up for the ranking adapters: log redirection and numba threads = rule threads."""
import logging
import sys


def setup(snakemake, *, numba_threads=True):
    log = open(snakemake.log[0], "w")
    sys.stderr = log
    logging.basicConfig(stream=log, level=logging.INFO, format="%(asctime)s %(message)s")
    if numba_threads:
        import numba

        numba.set_num_threads(max(1, min(int(snakemake.threads), numba.config.NUMBA_NUM_THREADS)))
    return logging.getLogger("agreekit.pipeline")
