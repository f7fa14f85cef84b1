"""The MCP server (``puzzlekit mcp``): ``server`` (the tools and :func:`~.server.serve`),
``work`` (each call's work and its worker processes), ``pool`` (the workers, first-in first-out,
a share kept for short calls), ``transport`` (stdio and streamable HTTP), ``args`` (reading a
tool's arguments, what each tool declares), ``answers`` (``puzzle_check_answer``), ``many``
(``puzzle_verify_many``) and ``stopping`` (``stopping_condition_run``).

Imports none of them: ``puzzlekit --version`` and ``--help`` never load the server.
"""
