# Stage: clustering (see README). Appends its final outputs to FINAL_TARGETS.
