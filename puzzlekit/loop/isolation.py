"""The loop process: where the strategy and the filter run, out of reach of the holdout.

A holdout is only an honest measure of the filter if nothing the strategy or the filter runs can
reach it. Within one Python process nothing can promise that (a strategy can walk the call frames,
scan ``gc`` or read module globals), so the two sides live in different processes:

- the **loop process** (:func:`puzzlekit.loop.loop_process.serve`, started by
  :class:`LoopWorker`) builds the schema, the
  filter, the strategy and the minimize hook, runs :func:`~puzzlekit.loop.driver.run_loop`
  with no holdout and replays each accepted instance once with the filter; it never receives a
  holdout report or anything derived from one;
- the **judging process**, the one that started it (a serial run's main process, a pool or Dask
  worker), holds the holdout. It receives each loop outcome as JSON (never a pickle, so the loop
  process cannot run code in it), rebuilds the instance from its canonical bytes, recomputes the
  digest from those bytes, and hands the bytes and digest to the holdout.

One loop process per judging process (and thread), started on first use and reused by every loop
after, whatever the spec: a fresh Python with numpy and python-sat costs hundreds of milliseconds.
It is started with :mod:`subprocess`, not :mod:`multiprocessing`, so daemonic executor workers
(Dask's) may start it too; it exits when its pipe closes, and follows its parent
(:mod:`puzzlekit.core.lifeline`): a SIGKILL of the judging process mid-loop leaves no loop process
behind. Loop ``i`` runs the same :func:`~puzzlekit.loop.driver.run_loop` with the same seed as it
would in one process, so one seed gives one output.

Not for: what a loop does (:mod:`puzzlekit.loop.driver`) or the holdout itself
(:mod:`puzzlekit.loop.holdout`).
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict
from multiprocessing.connection import Connection
from typing import Any

from puzzlekit.core.jsondata import plain
from puzzlekit.core.model import sha256_digest
from puzzlekit.core.report import VerifierReport
from puzzlekit.loop.channel import Channel
from puzzlekit.loop.holdout import read_checked

__all__ = [
    "LoopWorker",
    "LoopWorkerError",
    "check_names",
    "close_loop_workers",
    "shared_loop_worker",
]


#: seconds a closed loop process has to end by itself before it is killed with its tree
CLOSE_SECONDS = 1.0


class LoopWorkerError(RuntimeError):
    """The loop process failed, or sent back something that is not a loop outcome."""


# --- the wire form of a loop outcome (no holdout field: the loop process has none) ----------


def _report_json(a: Any, keep: bool = True) -> Any:
    """An attempt's report as the loop recorded it when the filter returned it (``keep``)."""
    if a.report is None or not keep:
        return None
    return a.report_json if a.report_json is not None else a.report.to_json_obj()


def _attempt_from(o: Mapping[str, Any]) -> Any:
    from puzzlekit.loop.attempts import Attempt

    rep = o["report"]  # None where the loop kept no report (LoopSpec.trace_reports off)
    return Attempt(
        int(o["index"]),
        str(o["instanceDigest"]),
        int(o["clueCount"]),
        str(o["uniquenessVerdict"]),
        str(o["action"]),
        tuple(o["actionCoord"]) if o["actionCoord"] is not None else None,
        o["rejectCase"],
        tuple(o["topCoord"]) if o["topCoord"] is not None else None,
        int(o["solutionCount"]),
        float(o["seconds"]),
        VerifierReport.from_json_obj(rep) if rep is not None else None,
    )


def _filter_report_json(result: Any) -> Any:
    """The loop's filter report: an exhausted loop's last one was handed to the strategy, so its
    wire form is the one taken before that (an accepted puzzle's report never reached it)."""
    rep = result.filter_report
    if rep is None:
        return None
    if result.trace and result.trace[-1].report is rep:
        return _report_json(result.trace[-1])
    return rep.to_json_obj()


#: the wire's ``solution`` of a loop whose solution is its filter report's first (an accepted
#: loop's): said once, in the report
FIRST_SOLUTION = "filterReport.solutions[0]"


def _solution_json(result: Any) -> Any:
    """The loop's solution on the wire: :data:`FIRST_SOLUTION` when it is its filter report's
    first solution, the same names in the same order (the judging process reads it there),
    else the solution itself."""
    solution, rep = result.solution, result.filter_report
    if solution is not None and rep is not None and rep.solutions:
        first = rep.solutions[0]
        if solution == first and list(solution) == list(first):
            return FIRST_SOLUTION
    return plain(solution)


def _solution_from(obj: Mapping[str, Any], report: VerifierReport | None) -> Any:
    """The loop's solution read back from the wire (:func:`_solution_json`)."""
    solution = obj["solution"]
    if solution == FIRST_SOLUTION:
        if report is None or not report.solutions:
            raise LoopWorkerError("the loop process named a filter report solution it has not")
        return dict(report.solutions[0])
    return dict(solution) if solution is not None else None


def result_to_json(result: Any, trace_reports: bool = True) -> dict[str, Any]:
    """A holdout-free :class:`~puzzlekit.loop.driver.LoopResult` as plain JSON. The instance is
    serialized afresh from its content (never from a cache a verifier could have rewritten).
    ``trace_reports=False``: the trace's entries without their reports (nothing reads them)."""
    if result.holdout_report is not None:
        raise LoopWorkerError("a loop process never holds a holdout report")
    inst = result.instance
    return {
        "status": result.status,
        "instance": inst.fresh_canonical_json().decode("utf-8") if inst is not None else None,
        "solution": _solution_json(result),
        "filterReport": _filter_report_json(result),
        "trace": [
            {**a.to_json_obj(), "seconds": a.seconds, "report": _report_json(a, trace_reports)}
            for a in result.trace
        ],
        "filterCalls": result.filter_calls,
        "minimizeCalls": result.minimize_calls,
        "seconds": result.seconds,
        "strategy": result.strategy,
        "seed": result.seed,
        "startClues": result.start_clues,
        "notes": list(result.notes),
        "shaping": plain(result.shaping),
        "replayVerdict": result.replay_verdict,
        "strategyFailure": result.strategy_failure,
        "strategyState": plain(result.strategy_state),
    }


def result_from_json(obj: Mapping[str, Any]) -> Any:
    """The :class:`~puzzlekit.loop.driver.LoopResult` of :func:`result_to_json`, checked: the
    instance comes from its canonical bytes, and the filter report of an accepted instance must
    name the digest of those bytes."""
    from puzzlekit.loop.attempts import LoopResult

    received = obj["instance"].encode("utf-8") if obj["instance"] is not None else None
    instance, canonical = read_checked(received) if received is not None else (None, False)
    rep = obj["filterReport"]
    report = VerifierReport.from_json_obj(rep) if rep is not None else None
    if instance is not None:
        digest = sha256_digest(received)
        if not canonical:  # the bytes against the content's fresh serialization (read_checked)
            raise LoopWorkerError("the loop process sent an instance in a non-canonical form")
        if obj["status"] == "accepted" and (report is None or report.instance_digest != digest):
            raise LoopWorkerError(
                f"the loop process accepted {digest} under a filter report of another instance"
            )
    return LoopResult(
        str(obj["status"]),
        instance,
        _solution_from(obj, report),
        report,
        None,
        tuple(_attempt_from(a) for a in obj["trace"]),
        int(obj["filterCalls"]),
        int(obj["minimizeCalls"]),
        float(obj["seconds"]),
        str(obj["strategy"]),
        int(obj["seed"]),
        int(obj["startClues"]),
        tuple(str(n) for n in obj["notes"]),
        shaping=obj["shaping"],
        replay_verdict=obj["replayVerdict"],
        strategy_failure=obj.get("strategyFailure"),
        strategy_state=obj.get("strategyState"),
        received=received,
    )


# --- the loop process -------------------------------------------------------------------------


def _spec_json(spec: Any) -> dict[str, Any]:
    return plain({**asdict(spec), "holdout": None, "holdout_settings": {}})


_BOOT = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[5]); "
    "from puzzlekit.loop.loop_process import serve; "
    "serve(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == '1')"
)


def _import_path() -> list[str]:
    """This process's import path with every entry absolute (the loop process has another
    working directory)."""
    return [os.path.abspath(p) if p else os.getcwd() for p in sys.path]


def _stderr_fd() -> Any:
    try:
        return sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return subprocess.DEVNULL


class LoopWorker:
    """The judging process's handle on its loop process (see the module docstring); its
    sandbox also reads the files of ``readable`` (:func:`named_files`)."""

    def __init__(self, readable: tuple[str, ...] = ()) -> None:
        from puzzlekit.core.lifeline import in_lasting_thread
        from puzzlekit.loop.sandbox import not_dumpable, seed_compiled_cache

        not_dumpable()  # this (judging) process: its memory, environment, descriptors closed
        self._home = tempfile.mkdtemp(prefix="puzzlekit-loop-")
        self._proc: Any = None
        try:
            down_r, down_w = os.pipe()
            up_r, up_w = os.pipe()
            # from a thread that lasts as long as this process: its death signal fires with it
            self._proc = in_lasting_thread(lambda: self._launch(down_r, up_w))
            os.close(down_r)
            os.close(up_w)
            self._channel = Channel(
                Connection(down_w, readable=False),
                Connection(up_r, writable=False),
                lambda why: LoopWorkerError(f"the loop process {self.pid} ended: {why}"),
            )
            # while the loop process starts (it reads no compiled cache before its first
            # request): the compiled cache it will read, copied into its directory
            seed_compiled_cache(self._home)
            #: what confines the loop process here ("landlock-vN" or "none"; docs/security.md)
            self.sandbox = str(self._ask({"op": "init", "readable": list(readable)}))
        except BaseException:  # Ctrl-C or SIGTERM while it starts: nothing left behind
            self._abandon()
            raise

    def _launch(self, down_r: int, up_w: int) -> subprocess.Popen:
        from puzzlekit.core.lifeline import parent_token, sigint_ignored
        from puzzlekit.loop.sandbox import loop_environment

        token = parent_token()
        argv = [str(down_r), str(up_w), str(token.pid), "1" if token.lasting else "0"]
        with sigint_ignored():
            return subprocess.Popen(
                [sys.executable, "-c", _BOOT, *argv, json.dumps(_import_path())],
                pass_fds=(down_r, up_w),  # and no other descriptor (close_fds)
                close_fds=True,
                stdin=subprocess.DEVNULL,
                stdout=_stderr_fd(),  # a plugin's prints never mix into this process's output
                cwd=self._home,  # a neutral working directory, never the run directory
                env=loop_environment(os.environ, self._home),
            )

    @property
    def pid(self) -> int:
        return self._proc.pid

    def _ask(self, request: Mapping[str, Any]) -> Any:
        from puzzlekit.core.plugins import per_use_modules

        reply = self._channel.ask({**request, "plugins": per_use_modules()})
        if "error" in reply:
            raise _error(reply)
        return reply["ok"]

    def setup(self, spec: Any) -> None:
        """Build ``spec``'s schema, filter and strategy in the loop process (names checked)."""
        self._ask({"op": "setup", "spec": _spec_json(spec)})

    def run(self, spec: Any, seed: int) -> Any:
        """The holdout-free outcome of loop ``seed`` of ``spec``, run in the loop process."""
        return result_from_json(self._ask({"op": "run", "spec": _spec_json(spec), "seed": seed}))

    def run_many(
        self, spec: Any, seeds: Iterable[int], wanted: Callable[[], int] | None = None
    ) -> Iterator[Any]:
        """Holdout-free outcomes of loops ``seeds`` of ``spec`` in batches (``Channel.stream``)."""
        from puzzlekit.core.plugins import per_use_modules

        ask = {"op": "run_many", "spec": _spec_json(spec), "plugins": per_use_modules()}
        batches = self._channel.stream(lambda b: {**ask, "seeds": b}, seeds, wanted)
        try:
            for batch, reply in batches:  # one outcome a seed asked, in order (all, or to an error)
                got = [result_from_json(o) for o in reply["ok"]]
                if [r.seed for r in got] != (batch[: len(got)] if "error" in reply else batch):
                    raise LoopWorkerError("the loop process did not answer the seeds it was asked")
                yield from got
                if "error" in reply:
                    raise _error(reply)
        finally:
            batches.close()

    def names(self, items: list[tuple[str, str, Mapping[str, Any] | None]]) -> list[dict]:
        """Each ``(kind, name, settings)`` looked up in the loop process, where the plugins are
        (:func:`check_names`)."""
        return list(self._ask({"op": "names", "names": [list(i) for i in items]}))

    def _abandon(self) -> None:
        from puzzlekit.core.lifeline import end_tree

        if self._proc is not None:
            end_tree(self._proc.pid)
            self._proc.wait()
        shutil.rmtree(self._home, ignore_errors=True)

    def close(self) -> None:
        try:
            self._channel.close()
        except OSError:
            pass
        from puzzlekit.core.lifeline import end_group, end_tree

        try:  # idle, it ends on the closed pipe at once; in a loop it would finish the loop
            self._proc.wait(timeout=CLOSE_SECONDS)
        except subprocess.TimeoutExpired:  # busy (Ctrl-C, SIGTERM): it and everything under it
            end_tree(self._proc.pid)
            self._proc.wait()
        end_group(self._proc.pid)  # what a plugin started there and left running
        shutil.rmtree(self._home, ignore_errors=True)


def _error(reply: Mapping[str, Any]) -> Exception:
    """The loop process's error, raised here as the kind the caller would see in one process."""
    from puzzlekit.core.plugins import PluginError

    message = str(reply["error"]).split(": ", 1)[-1]
    kinds: dict[str, type[Exception]] = {"TypeError": TypeError, "ValueError": ValueError}
    kinds["PluginError"] = PluginError
    kind = kinds.get(str(reply.get("type")))
    if kind is not None:
        return kind(f"in the loop process: {message}")
    return LoopWorkerError(f"in the loop process: {reply['error']}")


_WORKERS: dict[tuple[int, int], LoopWorker] = {}
_WORKERS_LOCK = threading.Lock()
_AT_EXIT: list[bool] = []


def shared_loop_worker(readable: tuple[str, ...] = ()) -> LoopWorker:
    """This process's (and thread's) loop process, started on first use and reused after; one
    per set of extra ``readable`` files (an external strategy's program and script)."""
    key = (os.getpid(), threading.get_ident(), readable)
    with _WORKERS_LOCK:
        worker = _WORKERS.get(key)
        if worker is None or worker._proc.poll() is not None:
            worker = _WORKERS[key] = LoopWorker(readable)
            if not _AT_EXIT:
                atexit.register(close_loop_workers)
                _AT_EXIT.append(True)
    return worker


def named_files(settings: Mapping[str, Any]) -> tuple[str, ...]:
    """The existing files a strategy's ``cmd`` names (its program, a script) and its ``policy``
    file, which its loop process must be able to read inside its sandbox."""
    import shlex

    policy = settings.get("policy")
    words = [policy] if isinstance(policy, str) else []
    cmd = settings.get("cmd")
    try:
        words = [*(shlex.split(cmd) if isinstance(cmd, str) else ()), *words]
    except ValueError:
        pass
    found = [shutil.which(w) if i == 0 and shutil.which(w) else w for i, w in enumerate(words)]
    return tuple(sorted({os.path.realpath(w) for w in found if w and os.path.isfile(w)}))


def check_names(items: list[tuple[str, str, Mapping[str, Any] | None]]) -> list[dict]:
    """What a judging process, which imports no plugin, asks of the loop process about names a
    plugin may provide: for each ``(kind, name, settings)`` (kind ``strategy``, ``verifier`` or
    ``family``) a dict: ``problem`` (None when the name is known there, else one line), and a
    known verifier's ``holdout`` (its ``holdout_name``) and ``version``. PluginError if a
    plugin cannot be imported there."""
    return shared_loop_worker().names(items)


def close_loop_workers() -> None:
    """End every loop process this process started (also done at exit)."""
    with _WORKERS_LOCK:
        workers = list(_WORKERS.values())
        _WORKERS.clear()
    for worker in workers:
        worker.close()
