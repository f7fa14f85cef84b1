"""The work behind the MCP tools, and the long-lived worker process that runs it.

:func:`schema_list`, :func:`verify_work`, :func:`generate_work` and :func:`game_work` check their
arguments (an unusable one raises :class:`ArgumentError` naming the field; an unknown family,
verifier, strategy or game is named with the closest known names, as every command does) and
return plain JSON objects. :class:`Worker` runs them in one spawned process under a deadline,
which ends with the server (:mod:`puzzlekit.core.lifeline`).
:class:`~puzzlekit.app.mcp.pool.WorkerPool` holds a few workers, so calls run side by side.

A worker starts as a judging process (docs/security.md): the plugins named to the server
(``puzzlekit mcp --plugin``) and the installed ones are only named there, for the loop process of
``generate``, which runs a holdout (:func:`judges`). Any other call that names what only a plugin
provides (a family, verifier, strategy or game; the list of schemas always) lets them in and runs
again: it runs no holdout. A worker that let them in is replaced by a fresh one before its next
judging call, so no plugin module is ever imported in a process that
runs a holdout, unless the holdout (or the family it checks) is a plugin's the caller named; the
answer's ``trust`` says which (:func:`~puzzlekit.app.experiment.manifest.trust_record`).

Not for: the MCP protocol, tool descriptions or transports (:mod:`puzzlekit.app.mcp.server`).
"""

import json
import multiprocessing as mp
import os
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any

from puzzlekit.app.mcp.answers import check_answer_work
from puzzlekit.app.mcp.args import (
    DEFAULT_LIMITS,
    MAX_CAP,
    ArgumentError,
    Limits,
    UnknownArgument,
    _check_extras,
    _check_size,
    _check_verify_args,
    _family,
)
from puzzlekit.app.mcp.many import verify_many_work

__all__ = ["ArgumentError", "Limits", "MAX_CAP", "UnknownArgument"]

COORDINATES_DOC = (
    "Coordinates: every `coord` is 0-based [row, col] (the top-left cell is [0, 0]); the "
    "`fieldName` beside it names the same cell 1-based as players write it, r{row}c{col} "
    "(r1c1 is [0, 0], r3c5 is [2, 4]). Variables that are not grid cells have other tuples, "
    "e.g. [heap] for Nim."
)

GAMES = ("tictactoe", "mnk", "connect", "nim")
#: solutions an agent gets unless it asks for more: enough for UNIQUE vs MULTIPLE and a
#: discriminative gap, a few kB where a cap of 100 gave 92 kB on an empty 9x9
DEFAULT_SOLUTION_CAP = 3


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
    solution_cap: int = DEFAULT_SOLUTION_CAP,
    budget_seconds: float = 10.0,
    budget_nodes: int | None = None,
    extras: tuple[str, ...] = (),
    limits: Limits = DEFAULT_LIMITS,
) -> dict[str, Any]:
    """The report JSON of one puzzle; ``json`` is the exact line ``puzzlekit verify`` prints.
    ``extras``: report extras to compute (``forcedCells``)."""
    from puzzlekit.core.model import Instance, SpecError, sha256_digest
    from puzzlekit.core.protocols import SearchBudget
    from puzzlekit.core.reading import ReadError, loads
    from puzzlekit.verifiers.base import invalid_report, source
    from puzzlekit.verifiers.registry import (
        choice_seconds,
        default_verifier_name,
        kept_verifier,
        verify_or_decline,
    )

    cap = solution_cap
    _check_verify_args(
        instance, family, params, text, verifier, cap, budget_seconds, budget_nodes, limits
    )
    _check_extras(extras)
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
                obj = loads(instance, "instance")
            except ReadError as exc:
                raise ArgumentError(exc.field, exc.detail) from None
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
        if params is not None and not isinstance(params, Mapping):
            raise ArgumentError("params", "must be a JSON object")
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
        name = verifier or default_verifier_name(inst, choice_seconds(budget))
        with kept_verifier(name) as kept:
            rep = verify_or_decline(kept, inst, solution_cap=cap, budget=budget, extras=extras)
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
    limits: Limits = DEFAULT_LIMITS,
) -> dict[str, Any]:
    """Accepted puzzles of the closed loop; ``jsonl`` is what ``puzzlekit generate`` prints."""
    from puzzlekit.app.cli import UsageError
    from puzzlekit.app.experiment.manifest import trust_record
    from puzzlekit.app.judging import loop_names
    from puzzlekit.core.model import SpecError
    from puzzlekit.loop.batch import GenerateConfig, dumps, generate
    from puzzlekit.verifiers.registry import default_filter_name

    _check_size("params", params, limits.max_input_chars)
    fam = _judged_family(family)
    try:
        schema = fam.schema(dict(params or {}))
    except SpecError as exc:
        raise ArgumentError("params", str(exc)) from None
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
    try:
        holdout, unknown = loop_names(strategy, filter, holdout, "holdout")
    except UsageError as exc:  # a plugin filter's declared holdout: name it
        raise ArgumentError("holdout", str(exc)) from None
    if unknown:
        raise UnknownArgument(*unknown[0])
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
    )  # the strategy and the filter in a loop process of their own, as under `generate`
    records = list(generate(config))
    return {
        "jsonl": "".join(dumps(rec) + "\n" for rec in records),
        "puzzles": records,
        "accepted": sum(1 for r in records if r["status"] == "accepted"),
        "trust": trust_record(),
    }


def _judged_family(name: str) -> Any:
    """The family ``name``, known here: a plugin's family admits the plugins, since the holdout
    checks its puzzles (:func:`puzzlekit.app.judging.need_family`)."""
    from puzzlekit.app.cli import UsageError
    from puzzlekit.app.judging import need_family

    try:
        need_family(name)
    except UsageError as exc:
        raise UnknownArgument("family", str(exc)) from None
    return _family("family", name)


def game_work(
    *,
    game: str,
    position: str,
    to_move: str | None = None,
    k: int | None = None,
    solver: str = "auto",
    budget_seconds: float = 10.0,
    limits: Limits = DEFAULT_LIMITS,
) -> dict[str, Any]:
    """The value of a game position for the side to move, and of every legal move; the
    INVALID_SPEC report (violations at the offending cells) of a position that cannot be
    played."""
    from puzzlekit.app.commands.games import find_game, read_position
    from puzzlekit.core.plugins import UnknownName
    from puzzlekit.core.protocols import SearchBudget
    from puzzlekit.verifiers.gametree import GameBudgetExceeded, game_verdict

    _check_size("position", position, limits.max_input_chars)
    if not 0 < budget_seconds <= limits.max_seconds:
        raise ArgumentError(
            "budget_seconds", f"must be in (0, {limits.max_seconds:g}], got {budget_seconds}"
        )
    try:
        family = find_game(game)
    except UnknownName as exc:
        raise UnknownArgument("game", str(exc)) from None
    if to_move not in (None, "x", "o"):
        raise ArgumentError("to_move", f"'x' or 'o', got {to_move!r}")
    read = read_position(family, position, to_move, k)
    if not isinstance(read, tuple):  # a position that cannot be played: its report
        return read.to_json_obj()
    g, state = read
    try:
        verdict = game_verdict(
            g, state, solver=solver, budget=SearchBudget(nodes=None, seconds=budget_seconds)
        )
    except GameBudgetExceeded as exc:
        raise ArgumentError(
            "budget_seconds",
            f"the {exc.resource} budget of {exc.limit} ran out after {exc.nodes} nodes and "
            f"{exc.seconds:.2f} s; undecided",
        ) from None
    except ValueError as exc:  # solver "compiled" on a game without one
        raise ArgumentError("solver", str(exc)) from None
    obj = {"game": g.info.name, "params": dict(g.params), **verdict.to_json_obj()}
    obj["toMove"] = g.side_name(verdict.to_move)
    return obj


_OPS: dict[str, Callable[..., dict[str, Any]]] = {
    "schemas": schema_list,
    "verify": verify_work,
    "verify_many": verify_many_work,
    "generate": generate_work,
    "game": game_work,
    "check_answer": check_answer_work,
}


def judges(op: str, kwargs: Mapping[str, Any]) -> bool:
    """Whether the call runs a holdout: ``generate`` unless its holdout is ``none`` (as for the
    command ``generate``); its worker must be one that never imported a plugin."""
    return op == "generate" and kwargs.get("holdout") != "none"


def _admit(op: str, kwargs: Mapping[str, Any]) -> bool:
    """Let the named and installed plugins in for a call that runs no holdout (when there are
    any and they are still out); True when they came in now."""
    from puzzlekit.core.plugins import admit_plugins, entry_points_declared, judging, kept_out

    if judging() and not judges(op, kwargs) and (kept_out() or entry_points_declared()):
        return admit_plugins(f"puzzlekit mcp: {op} runs no holdout")
    return False


def _run_op(op: str, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """``op`` with the built-ins only; again with the plugins in when it named something only
    a plugin may provide (a family, verifier, strategy or game) and runs no holdout. The list of
    schemas always takes them in (it lists theirs too)."""
    from puzzlekit.core.plugins import UnknownName

    if op == "schemas":
        _admit(op, kwargs)
    try:
        return _OPS[op](**kwargs)
    except (UnknownArgument, UnknownName):  # not another ArgumentError: no plugin answers it
        if not _admit(op, kwargs):
            raise
    return _OPS[op](**kwargs)


def _worker_main(conn: Any, plugins: tuple[str, ...] = (), parent: Any = None) -> None:
    from puzzlekit.core.lifeline import follow_parent

    if parent is not None:
        follow_parent(parent)  # ends with the server, leaves Ctrl-C to it
    # stdout may be the MCP stdio channel of the parent: nothing of ours may write to it.
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    from puzzlekit.core.plugins import judge_without_plugins, judging

    judge_without_plugins(plugins)  # named for the loop process; let in by a call that judges not
    import puzzlekit.loop.batch  # noqa: F401  (warm the imports once)
    import puzzlekit.verifiers.registry

    puzzlekit.verifiers.registry.verifier_names()
    while True:
        try:
            op, kwargs = conn.recv()
        except (EOFError, OSError):
            return
        try:
            out: tuple = ("ok", _run_op(op, kwargs))
        except ArgumentError as exc:
            out = ("argument", str(exc))
        except Exception as exc:  # a bug must not end the worker: report it and go on
            out = ("error", f"{type(exc).__name__}: {exc}")
        try:
            conn.send((*out, judging()))  # False: a plugin may be here now, so no holdout
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
    the plugin modules the worker names (default: those named or loaded per use in this process,
    e.g. by ``puzzlekit mcp --plugin MODULE``); it imports them only for a call that runs no
    holdout, and a call that does (:func:`judges`) gets a fresh process if they were imported.
    """

    def __init__(self, plugins: tuple[str, ...] | None = None) -> None:
        self._plugins = plugins
        self._lock = threading.Lock()
        self._proc: Any = None
        self._conn: Any = None
        self.clean = True  # the process imported no plugin: it may run a holdout
        self._admittable = False  # plugins are named or installed: a call may let them in

    def start(self) -> None:
        if self._proc is not None and self._proc.is_alive():
            return
        from puzzlekit.core.lifeline import in_lasting_thread, parent_token, sigint_ignored
        from puzzlekit.core.plugins import entry_points_declared, per_use_modules

        plugins = tuple(per_use_modules() if self._plugins is None else self._plugins)
        ctx = mp.get_context("spawn")
        self._conn, child = ctx.Pipe()

        def launch() -> Any:  # a call's thread ends; the server's starter thread lasts
            proc = ctx.Process(target=_worker_main, args=(child, plugins, parent_token()))
            proc.daemon = True
            with sigint_ignored():
                proc.start()
            return proc

        self._proc = in_lasting_thread(launch)
        self.clean = True
        # decided here, never by the worker: a plugin let into it could say it is clean
        self._admittable = bool(plugins) or entry_points_declared(outside=True)
        child.close()

    def stop(self) -> None:
        """Kill the process with everything under it, its loop process and whatever that started
        (:func:`~puzzlekit.core.lifeline.end_tree`); a call in progress ends with WorkFailed."""
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        if proc is not None and proc.pid is not None:
            from puzzlekit.core.lifeline import end_tree

            end_tree(proc.pid)
            proc.join(5)
        if conn is not None:
            conn.close()

    def call(self, op: str, kwargs: Mapping[str, Any], timeout: float) -> dict[str, Any]:
        """Run ``op`` with ``kwargs``; raises ArgumentError, WorkTimeout or WorkFailed."""
        with self._lock:
            if not self.clean and judges(op, kwargs):
                self.stop()  # a plugin was let into this process: the holdout runs in a fresh one
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
                status, payload, reported = self._conn.recv()
            except (EOFError, OSError, TypeError, ValueError):
                self.stop()
                raise WorkFailed("the worker process ended during the call") from None
            # a call that runs no holdout may have let the plugins in (:func:`_run_op`): the
            # worker is clean no more, whatever it reports
            admitted = self._admittable and not judges(op, kwargs)
            self.clean = self.clean and bool(reported) and not admitted
        if status == "ok":
            return payload
        if status == "argument":
            field, _, message = payload.partition(": ")
            raise ArgumentError(field, message)
        raise WorkFailed(payload)
