"""The MCP tool ``puzzle_verify_many``: many puzzles of one family in one call, each report the
one ``puzzle_verify`` gives, the searches batched (``pk.verify_many``: the bitmask backend runs a
chunk of them in one compiled call).

The puzzles come as ``lines``: each in ``family``'s text format (or a JSON instance line), at
most ``Limits.max_lines`` of them and ``Limits.max_input_chars`` characters in all; a line that
does not read is its INVALID_SPEC report at its position. The whole call runs within
``budget_seconds`` (each puzzle's search budget too) and the grace the server allows. The work
runs in the server's worker processes like every tool (:mod:`puzzlekit.app.mcp.work`).
"""

from collections.abc import Mapping
from typing import Annotated, Any

from puzzlekit.app.mcp.args import (
    DEFAULT_LIMITS,
    MAX_CAP,
    ArgumentError,
    Limits,
    _check_verify_args,
    _family,
)

#: solutions each report holds unless the call asks for more (as ``puzzle_verify``)
DEFAULT_MANY_CAP = 3

VERIFY_MANY_DOC = (
    "Verify many puzzles of one family in one call: does each have exactly one solution? Give "
    "`family` (+ `params`) and `lines`, one puzzle each in the family's text format (sudoku: "
    "size*size characters, digits for givens, '.' or '0' for blanks, row by row). Returns "
    "`reports`, the VerifierReport JSON of each line in order, each the one puzzle_verify "
    "gives; a line that does not read is an INVALID_SPEC report at its position. The whole "
    "call must finish within `budget_seconds`: verify a puzzle that needs long on its own."
)


def verify_many_work(
    *,
    family: str | None = None,
    lines: Any = None,
    params: Mapping[str, Any] | None = None,
    verifier: str | None = None,
    solution_cap: int = DEFAULT_MANY_CAP,
    budget_seconds: float = 10.0,
    budget_nodes: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> dict[str, Any]:
    """The report of each of ``lines`` (module docstring); ``json`` is what ``puzzlekit verify
    --format json`` prints for them, a line each."""
    from puzzlekit.core.protocols import SearchBudget
    from puzzlekit.verifiers.many import verify_many

    if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
        raise ArgumentError("lines", "required, a list of strings (one puzzle each)")
    if not 1 <= len(lines) <= limits.max_lines:
        raise ArgumentError("lines", f"must hold 1..{limits.max_lines} puzzles, got {len(lines)}")
    if family is None:
        raise ArgumentError("family", "required with lines")
    if params is not None and not isinstance(params, Mapping):
        raise ArgumentError("params", "must be a JSON object")
    text = "\n".join(lines)
    _check_verify_args(
        None, family, params, text, verifier, solution_cap, budget_seconds, budget_nodes, limits
    )
    _family("family", family)
    budget = SearchBudget(
        nodes=budget_nodes if budget_nodes is not None else SearchBudget.nodes,
        seconds=budget_seconds,
    )
    reports = verify_many(
        lines, family, params, verifier=verifier, solution_cap=solution_cap, budget=budget
    )
    return {
        "json": "\n".join(r.to_json() for r in reports),
        "reports": [r.to_json_obj() for r in reports],
    }


def add_verify_many(server: Any, run: Any, limits: Limits) -> None:
    """Register ``puzzle_verify_many`` on ``server`` (``run``: the server's worker runner)."""
    from mcp_types import CallToolResult, TextContent, ToolAnnotations
    from pydantic import Field

    @server.tool(
        name="puzzle_verify_many",
        title="Verify many puzzles",
        annotations=ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False),
        description=VERIFY_MANY_DOC,
    )
    async def puzzle_verify_many(
        family: Annotated[str, Field(description="Family of the lines, e.g. sudoku.")],
        lines: Annotated[
            list[str],
            Field(
                description=f"The puzzles, one a string, at most {limits.max_lines}.",
                max_length=limits.max_lines,
            ),
        ],
        params: Annotated[
            dict[str, Any] | None,
            Field(description='Family params, e.g. {"size": 4, "box": [2, 2]}.'),
        ] = None,
        verifier: Annotated[
            str | None, Field(description="Backend (default: best fit per puzzle).")
        ] = None,
        solution_cap: Annotated[
            int,
            Field(description="Solutions per report at most (>= 2).", ge=2, le=MAX_CAP),
        ] = DEFAULT_MANY_CAP,
        budget_seconds: Annotated[
            float,
            Field(
                description="Time for the whole call (and each puzzle's search budget).",
                gt=0,
                le=limits.max_seconds,
            ),
        ] = limits.default_seconds(10.0),
        budget_nodes: Annotated[
            int | None, Field(description="Search-node budget per puzzle.", ge=1)
        ] = None,
    ) -> CallToolResult:
        kwargs = {
            "family": family,
            "lines": lines,
            "params": params,
            "verifier": verifier,
            "solution_cap": solution_cap,
            "budget_seconds": budget_seconds,
            "budget_nodes": budget_nodes,
            "limits": limits,
        }
        out = await run("verify_many", kwargs, budget_seconds + limits.grace_seconds)
        return CallToolResult(
            content=[TextContent(type="text", text=out["json"])],
            structured_content={"reports": out["reports"]},
        )
