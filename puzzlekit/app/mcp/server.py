"""An MCP server: the verifier, the generator and the game solver as tools for agents.

``puzzlekit mcp`` serves six tools (:class:`~mcp.server.mcpserver.MCPServer`), stdio or HTTP:

- ``puzzle_schema_list``: the registered schemas (family, params, clue kinds, description);
- ``puzzle_verify``: a puzzle (a JSON instance, or family + params + the family's text format)
  -> the ``VerifierReport`` JSON, ``rejectDetail`` with coordinates included;
- ``puzzle_generate``: the closed loop of :mod:`puzzlekit.loop.batch` -> accepted puzzles with
  their verdicts; one seed gives the same bytes (the JSON Lines ``puzzlekit generate`` prints);
- ``puzzle_check_answer`` (an answer judged by the rules), ``game_verdict`` (a game's values);
- ``stopping_condition_run``: audit steps -> the stopping-condition outcome, optionally anchored
  in the server's ledger (:mod:`puzzlekit.app.mcp.stopping`).

Every call's work (:mod:`puzzlekit.app.mcp.work`) runs in one of a few long-lived worker processes
(a :class:`WorkerPool`, :mod:`puzzlekit.app.mcp.pool`) under a deadline, so calls run side by side,
first-in first-out, with a share of the workers kept for calls that declare a short limit (a fast
call behind slow ones is answered within its own limit); a call that runs too long is stopped (its
worker is killed and started again) and answered with a tool error; the server itself never blocks
on it. Every tool refuses arguments it does not know, by name, and declares its output schema (from
the shipped ``schemas/``); ``puzzle_verify`` returns 3 solutions unless ``solution_cap`` asks for
more. Transports (stdio that answers every line, HTTP with Host checks and a token off loopback):
:mod:`puzzlekit.app.mcp.transport`. Bad arguments are answered with a tool error that names the
field; a puzzle that is wrong in itself (a clue out of its domain, a malformed line) is not an
argument error but an ``INVALID_SPEC`` report whose violations carry coordinates.
"""

import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

from puzzlekit.app.mcp.answers import add_check_answer
from puzzlekit.app.mcp.args import declare_tools, output_schemas
from puzzlekit.app.mcp.pool import SHORT_SECONDS, WorkerPool

# the work and its worker process live in mcp.work; their names stay importable from here
from puzzlekit.app.mcp.work import (
    COORDINATES_DOC,
    DEFAULT_SOLUTION_CAP,
    GAMES,
    MAX_CAP,
    ArgumentError,
    Limits,
    Worker,
    WorkFailed,
    WorkTimeout,
    game_work,
    generate_work,
    schema_list,
    verify_work,
)
from puzzlekit.audit.ledger import Ledger

__all__ = [
    "COORDINATES_DOC",
    "GAMES",
    "MAX_CAP",
    "REJECT_DETAIL_DOC",
    "ArgumentError",
    "Limits",
    "WorkFailed",
    "WorkTimeout",
    "Worker",
    "WorkerPool",
    "build_server",
    "game_work",
    "games_available",
    "output_schemas",
    "generate_work",
    "schema_list",
    "serve",
    "verify_work",
]

DEFAULT_LIMITS = Limits()
#: calls the server holds at once, waiting or running (each in a thread of its own)
THREADS = 1024

REJECT_DETAIL_DOC = (
    "`uniquenessVerdict` is UNIQUE, MULTIPLE, UNSOLVABLE, DOMAIN_TOO_LARGE, INVALID_SPEC or "
    "UNDECIDED. `rejectDetail` is absent for UNIQUE; otherwise its `case` equals the verdict "
    "and: MULTIPLE -> `discriminativeGap`, the cells whose values differ across the found "
    "solutions (`coord`, `fieldName`, `valuesInSolutions`, `discriminativePower` = distinct "
    "values / solutions), most discriminative first: adding a given at the first one is the "
    "best repair; UNSOLVABLE -> `conflict`, a minimal set of clues (`clueId`, `coords`) that "
    "cannot hold together under the rules, and the rules involved: drop one of them; "
    "DOMAIN_TOO_LARGE -> `fieldCardinalities` and `culprits`, the variables that blow the search "
    "up; INVALID_SPEC -> `violations` (`violationType` such as out-of-domain, unknown-field, "
    "shape-mismatch, malformed; `coord`, `fieldName`, `detail`); UNDECIDED -> `budget`, what "
    "ran out and the solutions found so far. `solutions` maps each variable name (r1c1, ...) to "
    "its value, at most `solutionCap` of them; `solutionCount` is exact below the cap."
)

# --- the MCP server -------------------------------------------------------------------------------


def games_available() -> bool:
    """Whether the games module (and its solver) import, so ``game_verdict`` can be offered."""
    try:
        import puzzlekit.families.games  # noqa: F401
        from puzzlekit.verifiers.gametree import game_verdict  # noqa: F401
    except ImportError:
        return False
    return True


def build_server(
    limits: Limits = DEFAULT_LIMITS,
    worker: Worker | WorkerPool | None = None,
    ledger: Ledger | None = None,
) -> Any:
    """An :class:`mcp.server.mcpserver.MCPServer` with the puzzlekit tools, run by ``worker``
    (default: a :class:`WorkerPool`); ``stopping_condition_run`` anchors into ``ledger``."""
    from mcp.server.mcpserver import MCPServer

    import puzzlekit
    from puzzlekit.app.mcp.many import add_verify_many
    from puzzlekit.app.mcp.stopping import add_stopping_condition_run

    work = worker or WorkerPool()
    server = MCPServer(
        name="puzzlekit",
        version=puzzlekit.__version__,
        instructions=(
            "Verify puzzles and read where they fail: puzzle_verify returns a report whose "
            "rejectDetail says which cells are ambiguous or which clues conflict. "
            + COORDINATES_DOC
        ),
    )
    run = _runner(work)
    _add_schema_list(server, run, limits)
    _add_verify(server, run, limits)
    add_verify_many(server, run, limits)
    _add_generate(server, run, limits)
    add_check_answer(server, run, limits)
    if games_available():
        _add_game_verdict(server, run, limits)
    add_stopping_condition_run(server, ledger)
    declare_tools(server)
    server.puzzlekit_worker = work  # type: ignore[attr-defined]
    return server


#: ``run(op, kwargs, timeout)``: one call's work in the worker, its failures as tool errors
Run = Callable[[str, dict[str, Any], float], Awaitable[dict[str, Any]]]


def _runner(work: Worker) -> Run:
    """The coroutine each tool awaits: ``op`` in ``work`` off the event loop, under ``timeout``;
    bad arguments, a timeout and a crash of the worker each become a one-line tool error."""
    import anyio
    from mcp.server.mcpserver.exceptions import ToolError

    # one thread per call waiting or running: the pool, not anyio's default of 40 threads,
    # decides the order (a call past the 40th would otherwise wait unseen by the pool's queue)
    threads = anyio.CapacityLimiter(THREADS)

    async def run(op: str, kwargs: dict[str, Any], timeout: float) -> dict[str, Any]:
        try:
            return await anyio.to_thread.run_sync(work.call, op, kwargs, timeout, limiter=threads)
        except ArgumentError as exc:
            raise ToolError(str(exc)) from None
        except WorkTimeout as exc:
            raise ToolError(f"time limit: {exc}") from None
        except WorkFailed as exc:
            raise ToolError(f"internal error: {exc}") from None

    return run


def _result(text: str, structured: dict[str, Any]) -> Any:
    """A tool's answer: ``text`` for the reader, ``structured`` for the program."""
    from mcp_types import CallToolResult, TextContent

    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=structured
    )


def _read_only() -> Any:
    """The annotations of every tool here: reads only, same answer twice, no outside world."""
    from mcp_types import ToolAnnotations

    return ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False)


def _add_schema_list(server: Any, run: Run, limits: Limits) -> None:
    """Register ``puzzle_schema_list`` on ``server``."""
    from mcp_types import CallToolResult

    @server.tool(
        name="puzzle_schema_list",
        title="List puzzle schemas",
        annotations=_read_only(),
        description=(
            "List every registered puzzle schema: `family`, `params` (pass them to "
            "puzzle_verify / puzzle_generate), `clueKinds`, number of `variables`, "
            "`domainSize` and a one-line `description`; also the verifier backend names. "
            + COORDINATES_DOC
        ),
    )
    async def puzzle_schema_list() -> CallToolResult:
        out = await run("schemas", {}, limits.max_seconds)
        return _result(json.dumps(out, ensure_ascii=False), out)


VERIFY_DOC = (
    "Verify one puzzle: does it have exactly one solution? Give either `instance` (a "
    'JSON object {"family", "params", "clues"}) or `family` + `params` + `text` in the '
    "family's text format (sudoku: one line of size*size characters, digits for givens, "
    "'.' or '0' for blanks, row by row from the top-left). Returns the VerifierReport "
    "JSON. "
    + REJECT_DETAIL_DOC
    + " "
    + COORDINATES_DOC
    + " A puzzle that is itself malformed gives an INVALID_SPEC report (not an error); "
    "unusable arguments give a tool error that names the field."
)


def _none_or_string(value: Any, handler: Any) -> Any:
    return None if value is None else handler(value)


def _optional_text() -> Any:
    """An optional string argument kept as the client sent it. The SDK parses a string argument
    as JSON unless its type is exactly ``str`` (for clients that send objects as strings), which
    turned a logicgrid or toolcall line into an object and refused it ("Input should be a valid
    string"); typed ``str`` with None let through by hand, the line reaches the family intact."""
    from pydantic import WithJsonSchema, WrapValidator

    schema = {"anyOf": [{"type": "string"}, {"type": "null"}]}
    return Annotated[str, WrapValidator(_none_or_string), WithJsonSchema(schema)]


def _add_verify(server: Any, run: Run, limits: Limits) -> None:
    """Register ``puzzle_verify`` on ``server``."""
    from mcp_types import CallToolResult
    from pydantic import Field

    optional_text = _optional_text()

    @server.tool(
        name="puzzle_verify",
        title="Verify a puzzle",
        annotations=_read_only(),
        description=VERIFY_DOC,
    )
    async def puzzle_verify(
        instance: Annotated[
            dict[str, Any] | str | None,
            Field(description='The puzzle as a JSON instance {"family", "params", "clues"}.'),
        ] = None,
        family: Annotated[
            str | None, Field(description="Family of `text`, e.g. sudoku (see puzzle_schema_list).")
        ] = None,
        params: Annotated[
            dict[str, Any] | None,
            Field(description='Family params for `text`, e.g. {"size": 4, "box": [2, 2]}.'),
        ] = None,
        text: Annotated[
            optional_text,
            Field(
                description="The puzzle in the family's text format (a JSON line for the "
                "families whose format is one, e.g. logicgrid, toolcall)."
            ),
        ] = None,
        verifier: Annotated[
            str | None,
            Field(description="Backend: sat, enumerative, gametree, ... (default: best fit)."),
        ] = None,
        solution_cap: Annotated[
            int,
            Field(
                description="Solutions to find and return at most (>= 2: 2 tells UNIQUE from "
                "MULTIPLE); raise it to see more of them (a 9x9 solution is about 1 kB).",
                ge=2,
                le=MAX_CAP,
            ),
        ] = DEFAULT_SOLUTION_CAP,
        budget_seconds: Annotated[
            float,
            Field(
                description="Search time budget; when it runs out the verdict is UNDECIDED.",
                gt=0,
                le=limits.max_seconds,
            ),
        ] = limits.default_seconds(10.0),
        budget_nodes: Annotated[
            int | None, Field(description="Search-node budget (deterministic).", ge=1)
        ] = None,
        extras: Annotated[
            list[Literal["forcedCells", "fieldVerdicts"]] | None,
            Field(
                description="Report extras to compute: forcedCells (the cells with one value "
                "in every solution of a MULTIPLE puzzle, in stats); fieldVerdicts (toolcall: "
                "the verdict distribution by hidden field and value, in stats). Default: none."
            ),
        ] = None,
    ) -> CallToolResult:
        kwargs = {
            "instance": instance,
            "family": family,
            "params": params,
            "text": text,
            "verifier": verifier,
            "solution_cap": solution_cap,
            "budget_seconds": budget_seconds,
            "budget_nodes": budget_nodes,
            "extras": tuple(extras or ()),
            "limits": limits,
        }
        out = await run("verify", kwargs, budget_seconds + limits.grace_seconds)
        return _result(out["json"], out["report"])


FILTER_DOC = (
    "Filter verifier the strategy reads (default: the family's own, else bitmask for "
    "all-different rules that compile, as Sudoku's, else sat; gametree for games)."
)


def _add_generate(server: Any, run: Run, limits: Limits) -> None:
    """Register ``puzzle_generate`` on ``server``."""
    from mcp_types import CallToolResult
    from pydantic import Field

    @server.tool(
        name="puzzle_generate",
        title="Generate puzzles",
        description=(
            "Generate puzzles in the closed loop: a strategy proposes clues, the `filter` "
            "verifier's rejectDetail steers it (adaptive adds a clue at the most discriminative "
            "cell of a MULTIPLE, drops a conflicting clue of an UNSOLVABLE) until a UNIQUE "
            "puzzle is accepted; an independent `holdout` verifier checks each accepted one. "
            f"`count` is at most {limits.max_count}. One `seed` gives the same bytes every "
            "time: the text is JSON Lines, one record per loop, with `status`, `instance`, "
            "`text`, `clueCount`, `filterVerdict`, `holdoutVerdict`, `solution`. " + COORDINATES_DOC
        ),
        annotations=_read_only(),
    )
    async def puzzle_generate(
        family: Annotated[str, Field(description="Family name, e.g. sudoku.")],
        params: Annotated[
            dict[str, Any] | None,
            Field(description='Family params, e.g. {"size": 4, "box": [2, 2]}.'),
        ] = None,
        strategy: Annotated[
            str,
            Field(
                description="adaptive reads rejectDetail; blind is generate-and-test; or a "
                "strategy a plugin registers."
            ),
        ] = "adaptive",
        count: Annotated[
            int, Field(description="Accepted puzzles wanted.", ge=1, le=limits.max_count)
        ] = 1,
        seed: Annotated[int, Field(description="Seed; one seed, one output.", ge=0)] = 0,
        minimize: Annotated[
            bool, Field(description="Drop clues while the puzzle stays UNIQUE.")
        ] = False,
        clues: Annotated[
            int | None, Field(description="Clue count: exact for blind, the start for adaptive.")
        ] = None,
        filter: Annotated[str | None, Field(description=FILTER_DOC)] = None,
        holdout: Annotated[
            str | None,
            Field(
                description="Holdout verifier (default: the exact backend independent of the "
                "filter), or 'none'."
            ),
        ] = None,
        max_calls: Annotated[
            int, Field(description="Filter calls per loop.", ge=1, le=10_000)
        ] = 200,
        time_limit_seconds: Annotated[
            float,
            Field(description="Wall-time limit of the call.", gt=0, le=limits.max_seconds),
        ] = limits.default_seconds(60.0),
    ) -> CallToolResult:
        kwargs = {
            "family": family,
            "params": params,
            "strategy": strategy,
            "count": count,
            "seed": seed,
            "minimize": minimize,
            "clues": clues,
            "filter": filter,
            "holdout": holdout,
            "max_calls": max_calls,
            "limits": limits,
        }
        out = await run("generate", kwargs, time_limit_seconds)
        structured = {"accepted": out["accepted"], "puzzles": out["puzzles"], "trust": out["trust"]}
        return _result(out["jsonl"], structured)


def _add_game_verdict(server: Any, run: Run, limits: Limits) -> None:
    """Register ``game_verdict`` on ``server`` (only when :func:`games_available`)."""
    from mcp_types import CallToolResult
    from pydantic import Field

    @server.tool(
        name="game_verdict",
        title="Solve a game position",
        annotations=_read_only(),
        description=(
            "The exact value of a game position under perfect play for the side to move: "
            "`value` WIN, DRAW or LOSS, `distance` in plies to the end, and `moves`, one per "
            "legal move with its `value` and `distance` for the mover, `coord`, `fieldName` "
            "and `move` (how a player writes it). `game` is one of "
            + ", ".join(GAMES)
            + ". `position` is the rows from top to bottom joined by '/' with x, o and '.', "
            "e.g. 'x.o/.x./...'; Nim: heap sizes '3,4,5' (moves h2-3 take 3 from heap 2). "
            "The side to move comes from the piece counts (x first) unless `to_move` is set. "
            "A position that cannot be played (a stray character, a row of the wrong length, "
            "impossible piece counts, a piece floating in Connect) is answered with an "
            "INVALID_SPEC report (`uniquenessVerdict`, `rejectDetail.violations` with the "
            "`coord` and `fieldName` of each offending cell), not an error. " + COORDINATES_DOC
        ),
    )
    async def game_verdict(
        game: Annotated[
            str, Field(description="tictactoe, mnk, connect or nim (or a plugin's game).")
        ],
        position: Annotated[str, Field(description="Rows joined by '/', or Nim heaps.")],
        to_move: Annotated[
            Literal["x", "o"] | None, Field(description="Side to move (default: counts).")
        ] = None,
        k: Annotated[int | None, Field(description="k in a row (mnk 3, connect 4).", ge=1)] = None,
        solver: Annotated[
            Literal["auto", "compiled", "alphabeta", "minimax"],
            Field(description="Search algorithm (auto: compiled for Connect Four 7x6)."),
        ] = "auto",
        budget_seconds: Annotated[
            float, Field(description="Search time budget.", gt=0, le=limits.max_seconds)
        ] = limits.default_seconds(10.0),
    ) -> CallToolResult:
        kwargs = {
            "game": game,
            "position": position,
            "to_move": to_move,
            "k": k,
            "solver": solver,
            "budget_seconds": budget_seconds,
            "limits": limits,
        }
        out = await run("game", kwargs, budget_seconds + limits.grace_seconds)
        return _result(json.dumps(out, ensure_ascii=False), out)


def serve(
    *,
    http_port: int | None = None,
    host: str = "127.0.0.1",
    limits: Limits = DEFAULT_LIMITS,
    workers: int = 3,
    token: str | None = None,
    ledger: Ledger | None = None,
    short_seconds: float = SHORT_SECONDS,
) -> None:
    """Serve until the client goes away: stdio, or streamable HTTP on ``host:http_port`` (see
    :mod:`puzzlekit.app.mcp.transport`: a non-loopback ``host`` needs ``token``), with
    ``workers`` worker processes so that calls run side by side; ``ledger`` is where
    ``stopping_condition_run`` anchors escalations; calls whose limit is at most
    ``short_seconds`` are short (a share of the workers is kept for them)."""
    import anyio

    from puzzlekit.app.mcp.transport import is_loopback, serve_http, serve_stdio
    from puzzlekit.core.lifeline import stop_on_signals

    if http_port is not None and not is_loopback(host) and not token:
        raise ValueError(f"serving on {host} (not loopback) needs a token")
    pool = WorkerPool(workers, short_seconds=short_seconds)
    # SIGINT, SIGTERM: the workers (and what they started) killed, this process ended at once
    with stop_on_signals(pool.stop, "puzzlekit mcp"):
        try:
            pool.start()  # warm the imports while the client connects
            server = build_server(limits, pool, ledger)
            if http_port is None:
                anyio.run(serve_stdio, server)
            else:
                anyio.run(serve_http, server, host, http_port, token)
        finally:
            pool.stop()
