"""Studies and benchmarks: programs that measure puzzlekit, not part of it (not installed).

They run from a clone of the repository, from its root: ``python -m benchmarks.NAME`` (each
module's docstring says what it measures and how to run it); ``puzzlekit bench CONFIG`` runs the
config-driven ones (``experiments/bench_*.toml``) from the clone the package is imported from.
"""
