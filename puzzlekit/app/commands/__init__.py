"""CLI subcommands; each module defines ``register(subparsers)`` (see :mod:`puzzlekit.app.cli`)."""
