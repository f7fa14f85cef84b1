"""An MCP server: the verifier, the generator and the game solver as tools for agents.

``puzzlekit mcp`` serves four tools over the Model Context Protocol (the ``mcp`` SDK's
:class:`~mcp.server.mcpserver.MCPServer`), on stdio or on streamable HTTP:

- ``puzzle_schema_list``: the registered schemas (family, params, clue kinds, description);
- ``puzzle_verify``: a puzzle (a JSON instance, or family + params + the family's text format)
  -> the ``VerifierReport`` JSON, ``rejectDetail`` with coordinates included;
- ``puzzle_generate``: the closed loop of :mod:`puzzlekit.loop.batch` -> accepted puzzles with
  their verdicts; one seed gives the same bytes (the JSON Lines ``puzzlekit generate`` prints);
- ``game_verdict``: the exact value of a game position and of each legal move (present when the
  games module imports).

Every call's work runs in one long-lived worker process under a deadline, so a call that runs
too long is stopped (the worker is killed and started again) and answered with a tool error;
the server itself never blocks on it. Bad arguments are answered with a tool error that names
the field; a puzzle that is wrong in itself (a clue out of its domain, a malformed line) is not
an argument error but an ``INVALID_SPEC`` report whose violations carry coordinates.
"""

import json
import multiprocessing as mp
import os
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

COORDINATES_DOC = (
    "Coordinates: every `coord` is 0-based [row, col] (the top-left cell is [0, 0]); the "
    "`fieldName` beside it names the same cell 1-based as players write it, r{row}c{col} "
    "(r1c1 is [0, 0], r3c5 is [2, 4]). Variables that are not grid cells have other tuples, "
    "e.g. [heap] for Nim."
)

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

GAMES = ("tictactoe", "mnk", "connect", "nim")
MAX_CAP = 1000  # solutions in one report at most (a 9x9 solution is about 1 kB of JSON)


@dataclass(frozen=True)
class Limits:
    """What one call may ask for: input size, puzzles per generate call, and seconds."""

    max_input_chars: int = 100_000
    max_count: int = 20
    max_seconds: float = 300.0
    grace_seconds: float = 10.0  # over a verification budget before the worker is stopped


class ArgumentError(Exception):
    """A tool argument that cannot be used; the message starts with the field's name."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


# --- the work (runs in the worker process) -------------------------------------------------------


def _check_size(field: str, value: Any, limit: int) -> None:
    if value is None:
        return
    n = len(value) if isinstance(value, str) else len(json.dumps(value, default=str))
    if n > limit:
        raise ArgumentError(field, f"{n} characters, over the limit of {limit}")


def _lookup(field: str, registry: Any, name: str) -> Any:
    """``registry.get(name)``; an unknown name is an ArgumentError of ``field`` whose message is
    the one every command prints (``unknown verifier 'x'; closest: ...``)."""
    from puzzlekit.core.plugins import UnknownName

    try:
        return registry.get(name)
    except UnknownName as exc:
        raise ArgumentError(field, str(exc)) from None


def _family(field: str, name: str) -> Any:
    from puzzlekit.families import FAMILIES

    return _lookup(field, FAMILIES, name)


def schema_list() -> dict[str, Any]:
    """The registered schemas, the verifier names and how coordinates are written."""
    from puzzlekit.families import registered_schemas
    from puzzlekit.verifiers.registry import verifier_names

    return {
        "schemas": registered_schemas(),
        "verifiers": verifier_names(),
        "coordinates": COORDINATES_DOC,
    }


def verify_work(
    *,
    instance: Mapping[str, Any] | str | None = None,
    family: str | None = None,
    params: Mapping[str, Any] | None = None,
    text: str | None = None,
    verifier: str | None = None,
    cap: int = 100,
    budget_seconds: float = 10.0,
    budget_nodes: int | None = None,
    limits: Limits = Limits(),
) -> dict[str, Any]:
    """The report JSON of one puzzle; ``json`` is the exact line ``puzzlekit verify`` prints."""
    from puzzlekit.core.model import Instance, SpecError, sha256_digest
    from puzzlekit.verifiers.base import SearchBudget, invalid_report, source
    from puzzlekit.verifiers.registry import VERIFIERS, default_verifier_name, get_verifier

    for field, value in (("instance", instance), ("params", params), ("text", text)):
        _check_size(field, value, limits.max_input_chars)
    if instance is not None and text is not None:
        raise ArgumentError("instance", "give either instance or family + text, not both")
    if instance is None and text is None:
        raise ArgumentError("instance", "required (or family + text)")
    if instance is not None and params is not None:
        raise ArgumentError("params", "only with text; an instance carries its own params")
    if not 2 <= cap <= MAX_CAP:
        raise ArgumentError("cap", f"must be in 2..{MAX_CAP} (uniqueness needs 2), got {cap}")
    if not 0 < budget_seconds <= limits.max_seconds:
        raise ArgumentError(
            "budget_seconds", f"must be in (0, {limits.max_seconds:g}], got {budget_seconds}"
        )
    if budget_nodes is not None and budget_nodes < 1:
        raise ArgumentError("budget_nodes", f"must be at least 1, got {budget_nodes}")
    if verifier is not None:
        _lookup("verifier", VERIFIERS, verifier)
    budget = SearchBudget(
        nodes=budget_nodes if budget_nodes is not None else SearchBudget.nodes,
        seconds=budget_seconds,
    )
    inst: Instance | None = None
    violations: tuple = ()
    raw = ""
    if instance is not None:
        obj: Any = instance
        if isinstance(instance, str):
            raw = instance
            try:
                obj = json.loads(instance)
            except json.JSONDecodeError as exc:
                raise ArgumentError("instance", f"not JSON: {exc.msg} at {exc.pos}") from None
        if not isinstance(obj, dict):
            raise ArgumentError("instance", 'must be a JSON object {"family", "params", "clues"}')
        if not isinstance(obj.get("family"), str):
            raise ArgumentError("instance.family", "required, a family name")
        _family("instance.family", obj["family"])
        raw = raw or json.dumps(obj, sort_keys=True)
        try:
            inst = Instance.from_json_obj(obj)
        except SpecError as exc:
            violations = exc.violations
    else:
        if family is None:
            raise ArgumentError("family", "required with text")
        fam = _family("family", family)
        assert text is not None
        raw = text
        try:
            inst = fam.parse_text(text.strip(), dict(params) if params is not None else None)
        except SpecError as exc:
            violations = exc.violations
    if inst is None:
        rep = invalid_report(
            sha256_digest(raw.encode("utf-8")), violations, source("input", "1"), cap
        )
    else:
        name = verifier or default_verifier_name(inst)
        rep = get_verifier(name).verify(inst, solution_cap=cap, budget=budget)
    return {"json": rep.to_json(), "report": rep.to_json_obj()}


def generate_work(
    *,
    family: str,
    params: Mapping[str, Any] | None = None,
    strategy: str = "adaptive",
    count: int = 1,
    seed: int = 0,
    minimize: bool = False,
    clues: int | None = None,
    filter: str | None = None,
    holdout: str | None = None,
    max_calls: int = 200,
    limits: Limits = Limits(),
) -> dict[str, Any]:
    """Accepted puzzles of the closed loop; ``jsonl`` is what ``puzzlekit generate`` prints."""
    from puzzlekit.core.model import SpecError
    from puzzlekit.generators import STRATEGIES
    from puzzlekit.loop.batch import GenerateConfig, dumps, generate
    from puzzlekit.verifiers.registry import VERIFIERS, default_filter_name, default_holdout_name

    _check_size("params", params, limits.max_input_chars)
    fam = _family("family", family)
    try:
        schema = fam.schema(dict(params or {}))
    except SpecError as exc:
        raise ArgumentError("params", str(exc)) from None
    _lookup("strategy", STRATEGIES, strategy)
    if not 1 <= count <= limits.max_count:
        raise ArgumentError("count", f"must be in 1..{limits.max_count}, got {count}")
    if seed < 0:
        raise ArgumentError("seed", f"must be non-negative, got {seed}")
    n = len(schema.variables)
    if clues is not None and not 0 <= clues <= n:
        raise ArgumentError("clues", f"must be in 0..{n}, got {clues}")
    if not 1 <= max_calls <= 10_000:
        raise ArgumentError("max_calls", f"must be in 1..10000, got {max_calls}")
    filter = filter or default_filter_name(family)
    holdout = holdout or default_holdout_name(filter)
    for field, name in (("filter", filter), ("holdout", holdout)):
        if not (field == "holdout" and name == "none"):
            _lookup(field, VERIFIERS, name)
    config = GenerateConfig(
        family=family,
        params=dict(params or {}),
        count=count,
        strategy=strategy,
        clues=clues,
        minimize=minimize,
        filter=filter,
        holdout=None if holdout == "none" else holdout,
        seed=seed,
        max_calls=max_calls,
        holdout_in_process=True,
    )
    records = list(generate(config))
    return {
        "jsonl": "".join(dumps(rec) + "\n" for rec in records),
        "puzzles": records,
        "accepted": sum(1 for r in records if r["status"] == "accepted"),
    }


def game_work(
    *,
    game: str,
    position: str,
    to_move: str | None = None,
    k: int | None = None,
    solver: str = "alphabeta",
    budget_seconds: float = 10.0,
    limits: Limits = Limits(),
) -> dict[str, Any]:
    """The value of a game position for the side to move, and of every legal move."""
    from puzzlekit.app.commands.games import find_game
    from puzzlekit.core.model import SpecError
    from puzzlekit.core.plugins import UnknownName
    from puzzlekit.verifiers.base import BudgetExceeded, SearchBudget
    from puzzlekit.verifiers.gametree import game_verdict

    _check_size("position", position, limits.max_input_chars)
    if not 0 < budget_seconds <= limits.max_seconds:
        raise ArgumentError(
            "budget_seconds", f"must be in (0, {limits.max_seconds:g}], got {budget_seconds}"
        )
    try:
        family = find_game(game)
    except UnknownName as exc:
        raise ArgumentError("game", str(exc)) from None
    if to_move not in (None, "x", "o"):
        raise ArgumentError("to_move", f"'x' or 'o', got {to_move!r}")
    given = {"k": k} if k is not None else {}
    try:
        params = family.params_from_text(position, given)
        g = family.game(params)
        state = g.parse(position, to_move)
    except SpecError as exc:
        details = "; ".join(
            (f"{v.field_name} {list(v.coord)}" if v.coord is not None else v.field_name)
            + f" ({v.violation_type}): {v.detail}"
            for v in exc.violations
        )
        raise ArgumentError("position", details) from None
    try:
        verdict = game_verdict(
            g, state, solver=solver, budget=SearchBudget(nodes=None, seconds=budget_seconds)
        )
    except BudgetExceeded as exc:
        raise ArgumentError(
            "budget_seconds", f"the {exc.resource} budget of {exc.limit} ran out; undecided"
        ) from None
    obj = {"game": g.info.name, "params": dict(g.params), **verdict.to_json_obj()}
    obj["toMove"] = g.side_name(verdict.to_move)
    return obj


_OPS: dict[str, Callable[..., dict[str, Any]]] = {
    "schemas": schema_list,
    "verify": verify_work,
    "generate": generate_work,
    "game": game_work,
}


def _worker_main(conn: Any, plugins: tuple[str, ...] = ()) -> None:
    # stdout may be the MCP stdio channel of the parent: nothing of ours may write to it.
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    import puzzlekit.loop.batch  # noqa: F401  (warm the imports once)
    import puzzlekit.verifiers.registry
    from puzzlekit.core.plugins import use_plugins

    use_plugins(plugins)  # the server's --plugin modules (loaded there already, so they import)

    puzzlekit.verifiers.registry.verifier_names()
    while True:
        try:
            op, kwargs = conn.recv()
        except (EOFError, OSError):
            return
        try:
            out: tuple = ("ok", _OPS[op](**kwargs))
        except ArgumentError as exc:
            out = ("argument", str(exc))
        except Exception as exc:  # a bug must not end the worker: report it and go on
            out = ("error", f"{type(exc).__name__}: {exc}")
        try:
            conn.send(out)
        except (BrokenPipeError, OSError):
            return


class WorkTimeout(Exception):
    """The work of a call ran past its deadline (the worker was stopped)."""


class WorkFailed(Exception):
    """The work raised an unexpected exception, or the worker died."""


class Worker:
    """One long-lived worker process; :meth:`call` runs one operation under a deadline.

    A call past its deadline kills the process; the next call starts a fresh one. Calls are
    serialized (one at a time), so one call's state never leaks into the next. ``plugins``:
    modules the worker imports first (default: those loaded per use in this process, e.g. by
    ``puzzlekit mcp --plugin MODULE``).
    """

    def __init__(self, plugins: tuple[str, ...] | None = None) -> None:
        self._plugins = plugins
        self._lock = threading.Lock()
        self._proc: Any = None
        self._conn: Any = None

    def start(self) -> None:
        if self._proc is not None and self._proc.is_alive():
            return
        from puzzlekit.core.plugins import per_use_modules

        plugins = tuple(per_use_modules() if self._plugins is None else self._plugins)
        ctx = mp.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_worker_main, args=(child, plugins), daemon=True)
        self._proc.start()
        child.close()

    def stop(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.join(5)
            self._conn.close()
        self._proc = self._conn = None

    def call(self, op: str, kwargs: Mapping[str, Any], timeout: float) -> dict[str, Any]:
        """Run ``op`` with ``kwargs``; raises ArgumentError, WorkTimeout or WorkFailed."""
        with self._lock:
            self.start()
            try:
                self._conn.send((op, dict(kwargs)))
                ready = self._conn.poll(timeout)
            except (BrokenPipeError, OSError) as exc:
                self.stop()
                raise WorkFailed(f"the worker process ended ({exc})") from None
            if not ready:
                self.stop()
                raise WorkTimeout(f"over the time limit of {timeout:g} s; the work was stopped")
            try:
                status, payload = self._conn.recv()
            except (EOFError, OSError):
                self.stop()
                raise WorkFailed("the worker process ended during the call") from None
        if status == "ok":
            return payload
        if status == "argument":
            field, _, message = payload.partition(": ")
            raise ArgumentError(field, message)
        raise WorkFailed(payload)


# --- the MCP server -------------------------------------------------------------------------------


def games_available() -> bool:
    """Whether the games module (and its solver) import, so ``game_verdict`` can be offered."""
    try:
        import puzzlekit.families.games  # noqa: F401
        from puzzlekit.verifiers.gametree import game_verdict  # noqa: F401
    except ImportError:
        return False
    return True


def build_server(limits: Limits = Limits(), worker: Worker | None = None) -> Any:
    """An :class:`mcp.server.mcpserver.MCPServer` with the puzzlekit tools."""
    import anyio
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import CallToolResult, TextContent, ToolAnnotations
    from pydantic import Field

    import puzzlekit

    work = worker or Worker()
    server = MCPServer(
        name="puzzlekit",
        version=puzzlekit.__version__,
        instructions=(
            "Verify puzzles and read where they fail: puzzle_verify returns a report whose "
            "rejectDetail says which cells are ambiguous or which clues conflict. "
            + COORDINATES_DOC
        ),
    )
    read_only = ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False)

    async def run(op: str, kwargs: dict[str, Any], timeout: float) -> dict[str, Any]:
        try:
            return await anyio.to_thread.run_sync(work.call, op, kwargs, timeout)
        except ArgumentError as exc:
            raise ToolError(str(exc)) from None
        except WorkTimeout as exc:
            raise ToolError(f"time limit: {exc}") from None
        except WorkFailed as exc:
            raise ToolError(f"internal error: {exc}") from None

    def result(text: str, structured: dict[str, Any]) -> CallToolResult:
        return CallToolResult(
            content=[TextContent(type="text", text=text)], structured_content=structured
        )

    @server.tool(
        name="puzzle_schema_list",
        title="List puzzle schemas",
        annotations=read_only,
        description=(
            "List every registered puzzle schema: `family`, `params` (pass them to "
            "puzzle_verify / puzzle_generate), `clueKinds`, number of `variables`, "
            "`domainSize` and a one-line `description`; also the verifier backend names. "
            + COORDINATES_DOC
        ),
    )
    async def puzzle_schema_list() -> CallToolResult:
        out = await run("schemas", {}, limits.max_seconds)
        return result(json.dumps(out, ensure_ascii=False), out)

    @server.tool(
        name="puzzle_verify",
        title="Verify a puzzle",
        annotations=read_only,
        description=(
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
        ),
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
            str | None, Field(description="The puzzle in the family's text format.")
        ] = None,
        verifier: Annotated[
            str | None,
            Field(description="Backend: sat, enumerative, gametree, ... (default: best fit)."),
        ] = None,
        cap: Annotated[
            int, Field(description="Solutions to find at most (>= 2).", ge=2, le=MAX_CAP)
        ] = 100,
        budget_seconds: Annotated[
            float,
            Field(
                description="Search time budget; when it runs out the verdict is UNDECIDED.",
                gt=0,
                le=limits.max_seconds,
            ),
        ] = 10.0,
        budget_nodes: Annotated[
            int | None, Field(description="Search-node budget (deterministic).", ge=1)
        ] = None,
    ) -> CallToolResult:
        kwargs = {
            "instance": instance,
            "family": family,
            "params": params,
            "text": text,
            "verifier": verifier,
            "cap": cap,
            "budget_seconds": budget_seconds,
            "budget_nodes": budget_nodes,
            "limits": limits,
        }
        out = await run("verify", kwargs, budget_seconds + limits.grace_seconds)
        return result(out["json"], out["report"])

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
        annotations=ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False),
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
        filter: Annotated[
            str | None,
            Field(
                description="Filter verifier the strategy reads (default: the family's, sat "
                "for grid puzzles, gametree for games)."
            ),
        ] = None,
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
        ] = 60.0,
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
        return result(out["jsonl"], {"accepted": out["accepted"], "puzzles": out["puzzles"]})

    if games_available():

        @server.tool(
            name="game_verdict",
            title="Solve a game position",
            annotations=read_only,
            description=(
                "The exact value of a game position under perfect play for the side to move: "
                "`value` WIN, DRAW or LOSS, `distance` in plies to the end, and `moves`, one per "
                "legal move with its `value` and `distance` for the mover, `coord`, `fieldName` "
                "and `move` (how a player writes it). `game` is one of "
                + ", ".join(GAMES)
                + ". `position` is the rows from top to bottom joined by '/' with x, o and '.', "
                "e.g. 'x.o/.x./...'; Nim: heap sizes '3,4,5' (moves h2-3 take 3 from heap 2). "
                "The side to move comes from the piece counts (x first) unless `to_move` is set. "
                + COORDINATES_DOC
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
            k: Annotated[
                int | None, Field(description="k in a row (mnk 3, connect 4).", ge=1)
            ] = None,
            solver: Annotated[
                Literal["alphabeta", "minimax"], Field(description="Search algorithm.")
            ] = "alphabeta",
            budget_seconds: Annotated[
                float, Field(description="Search time budget.", gt=0, le=limits.max_seconds)
            ] = 10.0,
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
            return result(json.dumps(out, ensure_ascii=False), out)

    server.puzzlekit_worker = work  # type: ignore[attr-defined]
    return server


def serve(
    *,
    http_port: int | None = None,
    host: str = "127.0.0.1",
    limits: Limits = Limits(),
) -> None:
    """Serve until the client goes away: stdio, or streamable HTTP on ``host:http_port``."""
    worker = Worker()
    worker.start()  # warm the imports while the client connects
    server = build_server(limits, worker)
    try:
        if http_port is None:
            server.run("stdio")
        else:
            server.run("streamable-http", host=host, port=http_port)
    finally:
        worker.stop()
