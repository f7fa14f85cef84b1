"""The loop process's side (:mod:`puzzlekit.loop.isolation`): :func:`serve` answers the judging
process's requests (JSON) until its pipe closes: set up the sandbox, build the drivers (one per
holdout-free spec), run loops and replay each accepted instance with the filter, and say which
names the plugins provide. Started by :class:`~puzzlekit.loop.isolation.LoopWorker`, which names
this module in the loop process's command line; nothing in the judging process imports it.

Not for: the judging process's side, the wire forms or the worker's life
(:mod:`puzzlekit.loop.isolation`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import replace
from multiprocessing.connection import Connection
from typing import Any

from puzzlekit.loop.attempts import CONTAMINATED, guarded_verify
from puzzlekit.loop.driver import LoopDriver, LoopSpec
from puzzlekit.loop.isolation import LoopWorkerError, result_to_json

__all__ = ["serve"]


def _spec_from(obj: Mapping[str, Any]) -> Any:
    return LoopSpec(**obj)


class _Loops:
    """The loop process's drivers, one per spec (holdout-free), built on first use."""

    def __init__(self) -> None:
        self._drivers: dict[str, Any] = {}

    def driver(self, spec_obj: Mapping[str, Any]) -> Any:
        key = json.dumps(spec_obj, sort_keys=True)
        found = self._drivers.get(key)
        if found is None:
            found = self._drivers[key] = LoopDriver(_spec_from(spec_obj))
        return found

    def run(self, spec_obj: Mapping[str, Any], seed: int, driver: Any = None) -> dict[str, Any]:
        """Loop ``seed`` of the spec ``spec_obj`` (``driver``: its driver, when the caller has
        it), its outcome as JSON."""
        driver = driver if driver is not None else self.driver(spec_obj)
        result = driver.run(seed)
        if result.accepted and result.instance is not None:
            # the replay step of the settlement: the filter runs here, never beside the holdout
            again, _ = guarded_verify(driver.filter, result.instance, driver.spec.solution_cap)
            result = replace(
                result, replay_verdict=again.verdict.value if again is not None else CONTAMINATED
            )
        return result_to_json(result, driver.spec.trace_reports)


def _handle(loops: _Loops, request: Mapping[str, Any]) -> dict[str, Any]:
    from puzzlekit.core.plugins import use_plugins

    op = request.get("op")
    if op == "init":  # before any plugin: the sandbox (docs/security.md), then the requests
        from puzzlekit.loop.sandbox import SHARE_VAR, confine, readable_roots

        shared = [p for p in os.environ.get(SHARE_VAR, "").split(os.pathsep) if p]
        readable = [*readable_roots(), *(str(p) for p in request.get("readable", ()))]
        return {"ok": confine([os.getcwd(), *shared], readable)}
    use_plugins(request.get("plugins", ()))
    if op == "setup":  # a new driver in the judging process: a strategy kept across loops restarts
        loops.driver(request["spec"]).reset()
        return {"ok": None}
    if op == "run":
        return {"ok": loops.run(request["spec"], int(request["seed"]))}
    if op == "run_many":  # outcomes in seed order; a failure ends the batch after those done
        done: list[dict[str, Any]] = []
        try:
            driver = loops.driver(request["spec"])  # one look-up for the batch
            done.extend(loops.run(request["spec"], int(seed), driver) for seed in request["seeds"])
        except Exception as exc:
            return {"ok": done, "error": f"{type(exc).__name__}: {exc}", "type": type(exc).__name__}
        return {"ok": done}
    if op == "names":
        return {"ok": [_name_problem(*item) for item in request["names"]]}
    raise LoopWorkerError(f"unknown request {op!r}")


def _name_problem(
    kind: str, name: str, settings: Mapping[str, Any] | None = None
) -> dict[str, str | None]:
    """``problem``: None when ``name`` is a known ``kind`` (a verifier built with ``settings``),
    else one line; a known verifier's ``holdout`` (its ``holdout_name``) and ``version``."""
    from puzzlekit.core.plugins import UnknownName
    from puzzlekit.families import FAMILIES
    from puzzlekit.generators import STRATEGIES
    from puzzlekit.verifiers.registry import VERIFIERS, get_verifier

    registry = {"strategy": STRATEGIES, "verifier": VERIFIERS, "family": FAMILIES}[kind]
    try:
        registry.get(name)
        if kind == "verifier":
            built = get_verifier(name, **(settings or {}))
            holdout = str(getattr(built, "holdout_name", "enumerative"))
            version = str(getattr(built, "version", ""))
            return {"problem": None, "holdout": holdout, "version": version}
    except UnknownName as exc:
        return {"problem": str(exc)}
    except TypeError as exc:
        return {"problem": f"not accepted by {name!r}: {exc}"}
    return {"problem": None}


def _warm_up() -> None:
    """Import numba while the judging process copies the compiled cache (before the first
    request): importing it reads no cache (a compiled function reads its own on first use,
    after the cache is in place), and the default filter's searches need it."""
    try:
        import numba  # noqa: F401
    except ImportError:  # pragma: no cover - numba is a dependency
        return


def serve(read_fd: int, write_fd: int, parent: int = 0, lasting: bool = False) -> None:
    """The loop process's main: answer requests (JSON) until the pipe closes. It follows the
    judging process ``parent`` (:func:`~puzzlekit.core.lifeline.follow_parent`): it ends when
    that process is gone, even in the middle of a loop that reads no pipe, leaves the terminal's
    process group and ignores SIGINT (Ctrl-C is the judging process's to handle), and ends
    quietly when its pipe closes or breaks."""
    from puzzlekit.core.lifeline import ParentToken, follow_parent

    follow_parent(ParentToken(parent or os.getppid(), lasting))
    _warm_up()
    inbox = Connection(read_fd, writable=False)
    outbox = Connection(write_fd, readable=False)
    loops = _Loops()
    while True:
        try:
            request = json.loads(inbox.recv_bytes())
        except (EOFError, OSError):
            break
        try:
            reply = _handle(loops, request)
        except Exception as exc:  # reported to the judging process, which raises it there
            reply = {"error": f"{type(exc).__name__}: {exc}", "type": type(exc).__name__}
        try:
            outbox.send_bytes(json.dumps(reply).encode("utf-8"))
        except OSError:  # the judging process is gone (a broken pipe included)
            break
