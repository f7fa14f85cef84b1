"""The external strategy: any program, in any language, as the loop's strategy.

``External(k, cmd=..., cmd_timeout=...)`` starts ``cmd`` (split like a POSIX shell command, run
without a shell) once and keeps it for every loop of its driver (``across_loops``). They speak
JSON Lines, protocol 1 (docs/envs.md; the JSON Schema ships as
``puzzlekit/schemas/strategy-protocol.schema.json``, :func:`protocol_schema`):

- a ``start`` request opens each loop: the family and params, ``k``, a ``seed`` drawn from the
  loop's rng, the ``pool`` (the family's true clues of the loop's solution: what may be
  revealed) and the ids of the ``k`` clues the loop starts from;
- a ``propose`` request follows each filter reject: the call index, the revealed clue ids and
  the filter's report as JSON (``rejectDetail`` included);
- the program answers each request with one line ``{"reveal": [...], "hide": [...]}``, each item
  a clue id or a coordinate (``[r, c]``): the edits applied before the next filter call.

The program runs on the loop-process side, beside the filter: it sees the filter's reports,
never the holdout's. When it exits, stays silent past ``cmd_timeout`` seconds on a request,
answers with something that is not a protocol answer, or names a clue it cannot reveal or hide,
the strategy raises :class:`~puzzlekit.core.protocols.StrategyFailed` (``crashed``, ``hung``,
``garbage``, ``impossible-edit``) and the loop ends as ``strategy-failed``. A program that
crashed, hung or wrote garbage is stopped and started afresh for the next loop. Its stderr is
not passed through: the last line it wrote there goes into the failure's account.

Not for: strategies written in Python (subclass :class:`~puzzlekit.generators.base.FreshStart`).
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import weakref
from collections import deque
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from puzzlekit.core.jsondata import plain
from puzzlekit.core.model import Clue, Schema
from puzzlekit.core.protocols import Step, StrategyFailed
from puzzlekit.core.report import VerifierReport
from puzzlekit.families import get_family
from puzzlekit.generators.base import FreshStart, in_schema_order, solution_of

PROTOCOL = 1
SCHEMA_FILE = "schemas/strategy-protocol.schema.json"
#: seconds a program may take to answer one request, unless ``cmd_timeout`` says otherwise
DEFAULT_TIMEOUT = 10.0


@cache
def protocol_schema() -> dict[str, Any]:
    """The JSON Schema (Draft 2020-12) of the protocol's requests and answers."""
    return json.loads(resources.files("puzzlekit").joinpath(SCHEMA_FILE).read_text("utf-8"))


@cache
def _validator(name: str) -> Any:
    import jsonschema

    schema = {**protocol_schema(), "$ref": f"#/$defs/{name}"}
    schema.pop("oneOf")
    return jsonschema.Draft202012Validator(schema)


class _Program:
    """The running program: a line in, a line out within the time limit."""

    def __init__(self, argv: Sequence[str]) -> None:
        from puzzlekit.core.lifeline import in_lasting_thread, program_follows

        def launch() -> subprocess.Popen[str]:  # ends with this process, whatever it does
            return subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                bufsize=1,
                start_new_session=True,
                preexec_fn=program_follows(),
            )

        try:
            self.proc = in_lasting_thread(launch)
        except OSError as exc:
            raise StrategyFailed("crashed", f"could not start {argv[0]!r}: {exc}") from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.last_err: deque[str] = deque(maxlen=1)
        threading.Thread(target=self._pump, daemon=True).start()
        self._err_thread = threading.Thread(target=self._pump_err, daemon=True)
        self._err_thread.start()
        self._finalizer = weakref.finalize(self, _stop, self.proc)

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _pump_err(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            if line.strip():
                self.last_err.append(line.strip()[:200])

    def ask(self, request: dict[str, Any], timeout: float) -> Any:
        kind = request["type"]
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps(plain(request)) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise StrategyFailed("crashed", self._ended(kind)) from None
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise StrategyFailed(
                "hung", f"no answer to {kind} within {timeout:g} s (stopped)"
            ) from None
        if line is None:
            raise StrategyFailed("crashed", self._ended(kind))
        try:
            answer = json.loads(line)
        except ValueError:
            raise StrategyFailed(
                "garbage", f"answered {kind} with a line that is not JSON: {line.strip()[:80]!r}"
            ) from None
        problems = sorted(_validator("answer").iter_errors(answer), key=str)
        if problems:
            where = "/".join(str(p) for p in problems[0].absolute_path) or "the answer"
            raise StrategyFailed(
                "garbage",
                f"answered {kind} with no protocol answer ({where}: {problems[0].message[:80]})",
            )
        return answer

    def _ended(self, kind: str) -> str:
        code = self.proc.wait(timeout=5)
        self._err_thread.join(timeout=2)  # its stderr read to the end (a child may hold it open)
        err = f" (its last stderr line: {self.last_err[0]})" if self.last_err else ""
        return f"exited with code {code} before answering {kind}{err}"

    def close(self) -> None:
        self._finalizer()


def _stop(proc: subprocess.Popen[str]) -> None:
    for stream in (proc.stdin,):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass
    try:
        proc.wait(timeout=0.5)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
        proc.wait()


class External(FreshStart):
    """``External(k, cmd=..., cmd_timeout=...)``: the program ``cmd`` proposes every step."""

    name = "external"
    across_loops = True

    def __init__(self, k: int, cmd: str | None = None, cmd_timeout: float = DEFAULT_TIMEOUT):
        super().__init__(k)
        if not cmd or not isinstance(cmd, str):
            raise ValueError('strategy external needs a command: --cmd "PROGRAM ARGS"')
        self.argv = shlex.split(cmd)
        if not self.argv:
            raise ValueError('strategy external needs a command: --cmd "PROGRAM ARGS"')
        if not isinstance(cmd_timeout, int | float) or not cmd_timeout > 0:
            raise ValueError(f"--cmd-timeout must be a positive number, got {cmd_timeout!r}")
        self.timeout = float(cmd_timeout)
        self._program: _Program | None = None
        self._pool: dict[str, Clue] = {}
        self._calls = 0  # propose requests of this loop

    def _ask(self, request: dict[str, Any]) -> Any:
        if self._program is None:
            self._program = _Program(self.argv)
        try:
            return self._program.ask(request, self.timeout)
        except StrategyFailed:
            self.close()  # its stream can no longer be trusted: a fresh one next loop
            raise

    def close(self) -> None:
        if self._program is not None:
            self._program.close()
            self._program = None

    def start(self, schema: Schema, rng: np.random.Generator) -> Step:
        step = super().start(schema, rng)
        fam = get_family(schema.family)
        pool = fam.clues_from_solution(schema, solution_of(step))
        self._pool = {c.id: c for c in pool}
        self._calls = 0
        answer = self._ask(
            {
                "type": "start",
                "protocol": PROTOCOL,
                "family": schema.family,
                "params": schema.params_dict(),
                "k": self.k,
                "seed": int(rng.integers(2**31)),
                "pool": [c.to_json_obj() for c in pool],
                "clues": [c.id for c in step.instance.clues],
            }
        )
        return self._edited(step, answer, "start")

    def propose(self, step: Step, report: VerifierReport, rng: np.random.Generator) -> Step:
        answer = self._ask(
            {
                "type": "propose",
                "call": self._calls,
                "clues": [c.id for c in step.instance.clues],
                "report": report.to_json_obj(),
            }
        )
        self._calls += 1
        return self._edited(step, answer, None)

    def _edited(self, step: Step, answer: dict[str, Any], action: str | None) -> Step:
        """``step`` with the answer's edits applied; StrategyFailed on an impossible one."""
        clues = {c.id: c for c in step.instance.clues}
        first = None
        for ref in answer.get("hide", ()):
            clue = _find(clues.values(), ref)
            if clue is None:
                raise StrategyFailed("impossible-edit", f"asked to hide {ref!r}, not revealed")
            del clues[clue.id]
            first = first or (clue.coords[0] if clue.coords else None)
        for ref in answer.get("reveal", ()):
            clue = _find(self._pool.values(), ref)
            if clue is None:
                raise StrategyFailed(
                    "impossible-edit", f"asked to reveal {ref!r}, no clue of the solution"
                )
            if clue.id in clues:
                raise StrategyFailed("impossible-edit", f"asked to reveal {ref!r}, shown already")
            clues[clue.id] = clue
            first = first or (clue.coords[0] if clue.coords else None)
        if action is None:
            action = "reveal" if answer.get("reveal") and not answer.get("hide") else "edit"
            action = "hide" if answer.get("hide") and not answer.get("reveal") else action
        schema = step.schema
        new = step.instance.with_clues(clues.values())
        new = in_schema_order(new, schema) if schema is not None else new
        return step.then(new, action, tuple(first) if first is not None else step.coord)


def _find(clues: Any, ref: Any) -> Clue | None:
    """The clue ``ref`` names: by id, or the first whose coordinates hold ``ref``."""
    for clue in clues:
        if isinstance(ref, str) and clue.id == ref:
            return clue
        if isinstance(ref, list) and tuple(ref) in clue.coords:
            return clue
    return None
