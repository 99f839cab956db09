"""Helpers shared by tests and benchmarks (importable because pytest puts tests/ on sys.path)."""
