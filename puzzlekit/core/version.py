"""The version of puzzlekit, where every floor can read it (``puzzlekit.__version__`` re-exports
it; records name it in their provenance). Imports nothing."""

__version__ = "0.1.0"
