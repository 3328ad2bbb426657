"""Human-readable output: plan tables, explanations, headroom tables."""
