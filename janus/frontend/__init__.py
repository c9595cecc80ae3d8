"""Bytecode profiler and speculative graph generator (not built yet: see the frontend issue)."""
