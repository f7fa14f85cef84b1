"""The top floor: the command line and its commands, the experiment runner, plots, the MCP
server and the studies (benchmarks)."""
