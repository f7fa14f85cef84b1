"""Studies and benchmarks: experiment programs that measure puzzlekit, not part of its API."""
