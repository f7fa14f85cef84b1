"""A lifeline ties a child process to its parent: the child ends with its parent, and leaves
Ctrl-C to it.

Every long-lived child puzzlekit starts (pool workers of ``puzzlekit run``, holdout workers, the
MCP server's workers) is started inside :func:`sigint_ignored` and calls :func:`follow_parent`
first thing, with the :func:`parent_token` its parent took when it started the child. From then
on the child:

- exits (``os._exit``) as soon as its parent is gone, found by a daemon thread that polls
  ``os.getppid()`` (a dead parent's children are handed to another process). On Linux the kernel
  also sends it SIGKILL when the parent dies (``prctl(PR_SET_PDEATHSIG)``, asked for first thing,
  then the parent's pid checked against the race): that one reaches a child busy in C code that
  holds the GIL, where no Python thread runs. The kernel fires it when the *thread* that started
  the child ends, so a child is started from a thread that lasts as long as its process
  (:func:`in_lasting_thread`: the main thread, or else one daemon thread kept for the purpose),
  never from a thread of a pool that may end while the parent lives on.
- leaves the terminal's process group (``os.setpgrp``) and ignores SIGINT, so Ctrl-C reaches the
  parent alone: the parent stops its children and prints one line, instead of every worker
  printing a traceback (and a SAT solver interrupted half-way aborting with its own message).

A child ended on a time limit is ended with everything under it (:func:`end_tree`): its process
group and every descendant, so that a loop process or an external program a plugin started
never outlives the call that ran it.

A parent that is itself stopped from outside ends its children first: a command turns SIGTERM
into :class:`Terminated` (:func:`terminated_as_interrupt`), a KeyboardInterrupt, so the cleanup
Ctrl-C runs (children closed, temporary directories removed) runs for ``timeout`` and ``kill``
too; a server (``puzzlekit mcp``) that holds calls in threads it cannot interrupt stops its
workers and exits at once on SIGINT or SIGTERM (:func:`stop_on_signals`).

Not for: stopping children on purpose (their owners close them) or supervising them.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

#: how often a child looks at its parent, in seconds
POLL_SECONDS = 0.5

#: the exit status of a child whose parent went away
ORPHANED = 70

_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class ParentToken:
    """What a child needs to watch the process that started it (picklable); ``lasting``: it was
    started from a thread that lasts as long as that process (so the kernel's death signal
    fires with the process, not with a thread)."""

    pid: int
    lasting: bool


def parent_token() -> ParentToken:
    """This process as the parent of a child about to start (call it in the starting thread)."""
    return ParentToken(os.getpid(), _in_lasting())


_LASTING: dict[int, Any] = {}  # this process's pid -> its starter thread and queue
_LASTING_LOCK = threading.Lock()


def _forget_starter() -> None:  # in a fork's child: the parent's starter thread is not there
    global _LASTING_LOCK
    _LASTING.clear()
    _LASTING_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_starter)


def _in_lasting() -> bool:
    here = threading.current_thread()
    starter = _LASTING.get(os.getpid())
    return here is threading.main_thread() or (starter is not None and here is starter[0])


def _starter_loop(jobs: queue.SimpleQueue) -> None:
    while True:
        fn, done = jobs.get()
        try:
            done.set_result(fn())
        except BaseException as exc:  # handed to the caller, which raises it there
            done.set_exception(exc)


def in_lasting_thread(fn: Callable[[], T]) -> T:
    """``fn()`` (which starts a child and takes its :func:`parent_token`) run in a thread that
    lasts as long as this process, and its result: here when this is the main thread, else in
    a daemon thread this process keeps for starting children (one, started on first use)."""
    if _in_lasting():
        return fn()
    from concurrent.futures import Future

    with _LASTING_LOCK:
        starter = _LASTING.get(os.getpid())  # keyed by pid: a fork's child starts its own
        if starter is None:
            jobs: queue.SimpleQueue = queue.SimpleQueue()
            thread = threading.Thread(
                target=_starter_loop, args=(jobs,), name="puzzlekit-starter", daemon=True
            )
            thread.start()
            starter = _LASTING[os.getpid()] = (thread, jobs)
    done: Future = Future()
    starter[1].put((fn, done))
    return done.result()


@contextlib.contextmanager
def sigint_ignored() -> Iterator[None]:
    """Start children inside this block: they begin with SIGINT ignored (a disposition kept
    across ``exec``, which Python keeps too), so a Ctrl-C while they still import, before
    :func:`follow_parent` moves them out of the terminal's group, gives them no traceback. Only
    the main thread can change a disposition; elsewhere the block changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _prctl() -> Any:
    """libc's ``prctl`` (Linux), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _death_signal() -> None:
    """Ask Linux for SIGKILL when the parent dies; nothing elsewhere or if it fails."""
    prctl = _prctl()
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)


def program_follows() -> Callable[[], None] | None:
    """A ``preexec_fn`` for a program this process starts that cannot call
    :func:`follow_parent` itself (any executable: an external strategy): in the child, before
    ``exec``, it asks for SIGKILL at this process's death (a setting ``exec`` keeps) and ends
    at once if this process is already gone. None where there is no ``prctl`` (then nothing
    follows; pass it as is). Start the program inside :func:`in_lasting_thread`."""
    prctl = _prctl()  # looked up here: the child only calls it
    if prctl is None:
        return None
    parent = os.getpid()
    kill = int(signal.SIGKILL)

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, kill, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(ORPHANED)

    return preexec


def _watch(parent: int, interval: float) -> None:
    while True:
        time.sleep(interval)
        if os.getppid() != parent:
            os._exit(ORPHANED)


def follow_parent(token: ParentToken, *, interval: float = POLL_SECONDS) -> None:
    """Make this (child) process end with the parent ``token`` names; see the module docstring.

    Call it first in the child's entry point (or as a pool's ``initializer``).
    """
    try:
        os.setpgrp()
    except OSError:  # already a group or session leader: keep the group it has
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if token.lasting:
        _death_signal()
    if os.getppid() != token.pid:  # the parent died before the watch began
        os._exit(ORPHANED)
    threading.Thread(
        target=_watch, args=(token.pid, interval), name="puzzlekit-lifeline", daemon=True
    ).start()


def _children_map() -> dict[int, list[int]]:
    """Every process's children, from ``/proc`` ({} where there is none)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    return children


def tree(pid: int) -> list[int]:
    """``pid``'s descendants (from ``/proc``; [] where there is none), nearest first."""
    children = _children_map()
    out: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(0), []):
            out.append(child)
            todo.append(child)
    return out


def end_group(pgid: int) -> None:
    """Kill what is left of process group ``pgid`` (a child's, once the child has ended: a
    program it started and left running); nothing where there is no such group."""
    if os.name == "posix":
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)


def end_tree(pid: int) -> None:
    """End process ``pid`` (a child this process started, on a time limit) with everything
    under it: its process group and every descendant, each frozen first (SIGSTOP) so that none
    starts another while the tree is walked, then killed (SIGKILL). Reaping ``pid`` is the
    caller's (``wait``/``join``)."""
    if os.name != "posix":
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
        return
    frozen: set[int] = set()
    for _ in range(8):  # until a walk finds nothing new
        found = [p for p in [pid, *tree(pid)] if p not in frozen]
        if not found:
            break
        for p in found:
            with contextlib.suppress(OSError):
                os.kill(p, signal.SIGSTOP)
            frozen.add(p)
    end_group(pid)  # its group: follow_parent makes a child a group leader
    for p in frozen:
        with contextlib.suppress(OSError):
            os.kill(p, signal.SIGKILL)


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, ``timeout``), raised where Ctrl-C raises KeyboardInterrupt, so that one
    cleanup serves both; a command exits 143 on it."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated()


@contextlib.contextmanager
def terminated_as_interrupt() -> Iterator[None]:
    """Inside this block SIGTERM raises :class:`Terminated` in the main thread (elsewhere, or
    where SIGTERM is ignored, the block changes nothing)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if signal.getsignal(signal.SIGTERM) is signal.SIG_IGN:
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def interrupt_word(exc: BaseException) -> tuple[str, int]:
    """How a command reports the KeyboardInterrupt ``exc``: ("terminated", 143) for SIGTERM,
    ("interrupted", 130) for Ctrl-C (the statuses a shell gives those signals)."""
    if isinstance(exc, Terminated):
        return "terminated", 128 + int(signal.SIGTERM)
    return "interrupted", 128 + int(signal.SIGINT)


@contextlib.contextmanager
def stop_on_signals(stop: Callable[[], None], what: str = "puzzlekit") -> Iterator[None]:
    """Inside this block SIGINT and SIGTERM call ``stop()`` (which ends the children, e.g. a
    worker pool's ``stop``), print one line on stderr and end this process at once
    (``os._exit``, status 128 + the signal). For a server whose calls wait in threads that no
    exception reaches: a KeyboardInterrupt would wait for each of them (and for a thread
    blocked reading stdin) before the interpreter could exit. Main thread only (elsewhere the
    block changes nothing)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # one stop, however many signals follow
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        try:
            stop()
        finally:
            name = signal.Signals(signum).name
            with contextlib.suppress(Exception):
                os.write(2, f"{what}: stopped by {name}\n".encode())
            os._exit(128 + signum)

    signals = [
        s for s in (signal.SIGINT, signal.SIGTERM) if signal.getsignal(s) is not signal.SIG_IGN
    ]
    previous = {sig: signal.signal(sig, handler) for sig in signals}  # an ignored one stays so
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
