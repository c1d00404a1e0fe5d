"""Calculators for the warp, latency, divergence, grid and memory-bound engine (seed 000, 001, 004)."""
