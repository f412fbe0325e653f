import os

# keep numba from oversubscribing when pytest-xdist runs 2 workers on 2 cores
os.environ.setdefault("NUMBA_NUM_THREADS", "1")
