"""The top floor: the command line and its commands, the experiment runner, plots, the MCP
server and export (the benchmarks are not installed: ``benchmarks/`` in a clone)."""
