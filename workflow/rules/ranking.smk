# Stage: weighted rank correlations (exact moments; the full table pipeline is issue 3).
