"""Benchmarks: items built or loaded, run against agents, scored and aggregated to the papers' tables."""
