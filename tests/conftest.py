import os

from hypothesis import HealthCheck, settings

# keep numba from oversubscribing when pytest-xdist runs 2 workers on 2 cores
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

# `make test` and .ci/run select the "ci" profile: hypothesis derives its examples from each test's
# name (derandomize), so a run is reproducible and a failure in CI fails again locally with
# `--hypothesis-profile=ci`; no deadline, since 2 shared cores make per-example timing meaningless.
# Without the option hypothesis keeps its default, randomized exploration.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
