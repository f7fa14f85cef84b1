"""The MCP tool ``puzzle_check_answer``: a solver's answer judged against a puzzle's rules.

The puzzle comes as ``puzzle_verify`` takes it (``instance``, or ``family`` + ``params`` +
``text``); the answer as text (a grid line, the family's text line, a model's completion whose
last grid counts, JSON) or as an object cell name -> value; ``mode`` ``full`` (the default),
``partial`` (does a completion still exist; if not, the smallest dead set of placed cells) or
``moves`` (a list of ``[cell, value]`` judged move by move). The result is the
``AnswerReport`` JSON (:mod:`puzzlekit.answers`). The work runs in the server's worker processes
like every tool (:mod:`puzzlekit.app.mcp.work`); a puzzle that does not read is a tool error
naming the field; an answer that does not read is a MALFORMED report.
"""

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from puzzlekit.app.mcp.args import UnknownArgument

CHECK_DOC = (
    "Judge a solver's answer to one puzzle against the puzzle's rules (never against one stored "
    "solution: every valid solution of a puzzle with several is CORRECT, and `unique` says "
    "whether the puzzle has only this one). Give the puzzle as puzzle_verify takes it "
    "(`instance`, or `family` + `params` + `text`) and the `answer`: text (a line of the "
    "grid's values row by row, '.' for an unfilled cell; the family's text line; or a whole "
    "completion, whose last grid counts, code fences and separators allowed), or an object "
    'cell name -> value ({"r1c1": 5, ...}); for a game puzzle (owm-*) a move such as r2c3. '
    "Returns `verdict` (CORRECT, INCORRECT, INCOMPLETE, MALFORMED), `score` (share of cells "
    "right), `violations` (`violationType` rule-broken with its `rule` and `coords`, "
    "given-overwritten, out-of-domain, unfilled, not-winning, illegal-move, malformed; "
    "`coord` 0-based [row, col], `fieldName` r{row}c{col} 1-based). `mode` partial: is the "
    "partly filled board still completable, and if not `deadCells`, the smallest set of "
    "placed cells that makes it dead; `mode` moves: `answer` is a list of [cell, value] "
    "played on the puzzle, and `firstDeadMove` names the first move after which no "
    "completion exists."
)


def check_answer_work(
    *,
    instance: Mapping[str, Any] | str | None = None,
    family: str | None = None,
    params: Mapping[str, Any] | None = None,
    text: str | None = None,
    answer: Any = None,
    mode: str = "full",
    uniqueness: bool = True,
) -> dict[str, Any]:
    """The AnswerReport JSON of ``answer`` to the puzzle (module docstring)."""
    from puzzlekit.answers import check_answer, check_moves, check_partial
    from puzzlekit.app.mcp.args import ArgumentError
    from puzzlekit.core.model import SpecError

    puzzle = _puzzle(instance, family, params, text)
    if answer is None:
        raise ArgumentError("answer", "required: text, an object cell -> value, or moves")
    if mode not in ("full", "partial", "moves"):
        raise ArgumentError("mode", "one of full, partial, moves")
    try:
        if mode == "moves":
            rep = check_moves(puzzle, answer)
        elif mode == "partial":
            rep = check_partial(puzzle, answer)
        else:
            rep = check_answer(puzzle, answer, uniqueness=uniqueness)
    except SpecError as exc:
        error = UnknownArgument if _unknown_name(exc) else ArgumentError
        raise error("instance", f"the puzzle does not resolve: {exc}") from None
    return {"json": rep.to_json(), "report": rep.to_json_obj()}


def _puzzle(instance: Any, family: str | None, params: Any, text: str | None) -> Any:
    from puzzlekit.app.mcp.args import ArgumentError
    from puzzlekit.core.model import Instance, SpecError
    from puzzlekit.core.reading import ReadError, loads
    from puzzlekit.families import get_family

    try:
        if instance is not None:
            if family is not None or text is not None:
                raise ArgumentError("instance", "give instance, or family + text, not both")
            obj = loads(instance, "instance") if isinstance(instance, str) else instance
            if not isinstance(obj, dict):
                raise ArgumentError("instance", 'must be a JSON object {"family", "params", ...}')
            return Instance.from_json_obj(obj)
        if family is None or text is None:
            raise ArgumentError("family", "give instance, or family + text")
        if params is not None and not isinstance(params, Mapping):
            raise ArgumentError("params", "must be a JSON object")
        return get_family(family).parse_text(text.strip(), dict(params) if params else None)
    except ReadError as exc:
        raise ArgumentError(exc.field, exc.detail) from None
    except SpecError as exc:
        first = exc.violations[0] if exc.violations else None
        where = first.field_name if first else "instance"
        error = UnknownArgument if _unknown_name(exc) else ArgumentError
        raise error(where, first.detail if first else str(exc)) from None


def _unknown_name(exc: Exception) -> bool:
    """Whether ``exc`` says the puzzle's family, or a tool it names, is not registered here (a
    plugin's may be)."""
    kinds = ("unknown-family", "unknown-tool")
    return any(v.violation_type in kinds for v in getattr(exc, "violations", ()))


def add_check_answer(server: Any, run: Any, limits: Any) -> None:
    """Register ``puzzle_check_answer`` on ``server`` (``run``: the server's worker runner)."""
    from mcp_types import CallToolResult, TextContent, ToolAnnotations
    from pydantic import Field

    @server.tool(
        name="puzzle_check_answer",
        title="Check an answer to a puzzle",
        annotations=ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False),
        description=CHECK_DOC,
    )
    async def puzzle_check_answer(
        answer: Annotated[
            str | dict[str, Any] | list[Any],
            Field(
                description="The answer: text, an object cell -> value, or (mode moves) a "
                "list of [cell, value]."
            ),
        ],  # fmt: skip
        instance: Annotated[
            dict[str, Any] | None,
            Field(description='The puzzle as a JSON instance {"family", "params", "clues"}.'),
        ] = None,
        family: Annotated[str | None, Field(description="Family of `text`, e.g. sudoku.")] = None,
        params: Annotated[
            dict[str, Any] | None, Field(description="Family params for `text`.")
        ] = None,
        text: Annotated[
            str | None, Field(description="The puzzle in the family's text format.")
        ] = None,
        mode: Annotated[
            Literal["full", "partial", "moves"],
            Field(
                description="full: a finished answer; partial: a partly filled board; "
                "moves: placements judged one by one."
            ),
        ] = "full",  # fmt: skip
        uniqueness: Annotated[
            bool, Field(description="Also say whether a CORRECT answer's puzzle is unique.")
        ] = True,
    ) -> CallToolResult:
        kwargs = {
            "instance": instance,
            "family": family,
            "params": params,
            "text": text,
            "answer": answer,
            "mode": mode,
            "uniqueness": uniqueness,
        }
        out = await run("check_answer", kwargs, limits.max_seconds)
        return CallToolResult(
            content=[TextContent(type="text", text=out["json"])],
            structured_content=out["report"],
        )
