"""The fuzz run: many malformed inputs through every command and MCP tool, in one process.

Run ``python -m benchmarks.fuzz --cases 100000`` from the repository root (seeds are
read from ``tests/golden`` and ``tests/data``). Each case (:mod:`~.fuzz_cases`) calls the CLI's
``main(argv)`` with its stdin and files, or an MCP tool's work function, or the review kernel,
under a per-case timeout, and is judged by :func:`judge`:

- **traceback**: an exception escaped (or ``Traceback`` on stderr);
- **hang**: the case ran past ``--timeout`` seconds;
- **failure**: an exit code outside {0, 1, 2}, an exit 2 whose stderr is not lines of
  ``puzzlekit: ...``, a streaming command that did not answer every input line, or a kernel
  that raised something other than ``KernelInputError``.

It prints, per command, the cases tried and each count, writes every failing case to
``--out`` (JSON Lines, replayable), and exits 1 when anything failed. A study, not a test: the
tests run a few hundred cases of the same generators (``tests/test_fuzz.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import os
import random
import signal
import sqlite3
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.fuzz_break import Case
from benchmarks.fuzz_cases import BUILDERS, Seeds, load_seeds, make_case


@dataclass
class Outcome:
    """What one case did: exit code (None for in-process calls), output, and the verdict."""

    code: int | None
    stdout: str
    stderr: str
    error: str | None = None  # the traceback of an exception that escaped
    hang: bool = False


#: case directories in memory where the machine has a tmpfs (most cases write a file or two)
_TMP = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


class _Hang(BaseException):
    """Raised by the alarm when a case runs past its time (a BaseException, so that no
    ``except Exception`` in the code under test swallows it)."""


#: set when the alarm fired: a case whose _Hang a finalizer swallowed ("Exception ignored in")
#: is still a hang, not a traceback of the code under test
_FIRED: list[bool] = []


def _alarm(signum: int, frame: Any) -> None:
    _FIRED.append(True)
    raise _Hang()


def _stdin(data: bytes) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="strict")


@functools.cache
def _clean_ledger() -> bytes:
    """The bytes of a valid three-entry ledger (built once per process)."""
    from puzzlekit.audit.ledger import Ledger

    with tempfile.TemporaryDirectory(prefix="pk-fuzz-") as tmp:
        path = Path(tmp) / "ledger.db"
        with Ledger(path) as ledger:
            for i in range(3):
                ledger.append({"i": i, "note": "entry"})
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
        return path.read_bytes()


def _build_ledger(path: Path, mutation: dict[str, Any]) -> None:
    """A three-entry ledger at ``path`` with one body replaced (and its hash recomputed when
    ``rehash``), or bytes flipped or the file cut."""
    from puzzlekit.audit.ledger import compute_entry_hash

    path.write_bytes(_clean_ledger())
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA synchronous=OFF")
    seq, body = mutation["seq"], mutation["body"]
    new_hash = None
    if mutation["rehash"]:
        with contextlib.suppress(Exception):
            prev = conn.execute("SELECT prev_hash FROM ledger_entries WHERE seq=?", (seq,))
            new_hash = compute_entry_hash(seq, prev.fetchone()[0], json.loads(body))
    if new_hash:
        conn.execute(
            "UPDATE ledger_entries SET body=?, entry_hash=? WHERE seq=?", (body, new_hash, seq)
        )
    else:
        conn.execute("UPDATE ledger_entries SET body=? WHERE seq=?", (body, seq))
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(path.read_bytes())
    rng = random.Random(len(body) + seq)
    if mutation["flip"]:
        for _ in range(4):
            i = rng.randrange(len(data))
            data[i] ^= 0xFF
    if mutation["truncate"]:
        data = data[: rng.randrange(len(data))]
    path.write_bytes(bytes(data))


def _call(case: Case) -> Any:
    if case.call == "mcp-verify":
        from puzzlekit.app.mcp.work import ArgumentError, verify_work

        try:
            return verify_work(**case.kwargs)
        except ArgumentError as exc:
            return {"argumentError": str(exc)}
    if case.call == "kernel":
        from puzzlekit.audit.review.kernel import KernelInputError, decide

        kw = case.kwargs
        try:
            return decide(kw["policy"], kw["request"], computed_at=kw["at"])
        except KernelInputError as exc:
            return {"kernelInputError": str(exc)}
    raise ValueError(f"unknown call {case.call}")


def reuse_parser() -> None:
    """Build the CLI's argument parser once for this process (``main`` builds it per call,
    which is most of the time of a small case); parsing does not change a parser."""
    from puzzlekit.app import cli

    if not hasattr(cli.build_parser, "cache_info"):
        cli.build_parser = functools.cache(cli.build_parser)  # type: ignore[method-assign]


def run_case(case: Case, timeout: float = 60.0) -> Outcome:
    """Run one case in this process (CLI ``main`` or a call), under ``timeout`` seconds."""
    from puzzlekit.app.cli import main

    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    code: int | None = None
    error = None
    hang = False
    saved_stdin = sys.stdin
    _FIRED.clear()
    try:
        with tempfile.TemporaryDirectory(prefix="pk-fuzz-", dir=_TMP) as tmp:
            for name, data in case.files.items():
                target = Path(tmp) / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            if case.ledger:
                mutation = json.loads(case.files["mutation.json"])
                _build_ledger(Path(tmp) / case.ledger, mutation)
            argv = [a.replace("{dir}", tmp) for a in case.argv]
            sys.stdin = _stdin(case.stdin)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                if case.call:
                    out.write(json.dumps(_call(case), default=str)[:2000])
                else:
                    code = main(argv)
    except _Hang:
        hang = True
        error = traceback.format_exc(limit=-8)  # where it was when the time ran out
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException:  # noqa: BLE001 - the point is to catch what escapes
        error = traceback.format_exc()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        sys.stdin = saved_stdin
    return Outcome(code, out.getvalue(), err.getvalue(), error, hang or bool(_FIRED))


def judge(case: Case, outcome: Outcome) -> str | None:
    """Why ``outcome`` is a failure of ``case`` (``traceback``, ``hang`` or a sentence), or None."""
    if outcome.hang:
        return "hang"
    if outcome.error is not None or "Traceback (most recent call last)" in outcome.stderr:
        return "traceback"
    if case.call:
        return None
    if outcome.code not in (0, 1, 2):
        return f"exit code {outcome.code}"
    if outcome.code == 2:  # one line per problem (a config names every problem at once)
        lines = outcome.stderr.strip().split("\n")  # lines end at "\n" only, not at U+0085
        if not lines or not all(line.startswith("puzzlekit:") for line in lines):
            return f"exit 2 without 'puzzlekit:' lines only: {outcome.stderr[:200]!r}"
    if case.items is not None and outcome.code == 0:
        answers = [ln for ln in outcome.stdout.split("\n") if ln.strip()]  # JSON Lines: "\n"
        if case.command in ("verify", "solve", "grade") and len(answers) != case.items:
            return f"{len(answers)} answers to {case.items} input lines"
    return None


def case_to_json(case: Case) -> dict[str, Any]:
    """A failing case as JSON (bytes as latin-1 text), to replay with :func:`case_from_json`."""
    obj = {k: v for k, v in vars(case).items()}
    obj["stdin"] = case.stdin.decode("latin-1")
    obj["files"] = {k: v.decode("latin-1") for k, v in case.files.items()}
    obj["kwargs"] = json.loads(json.dumps(case.kwargs, default=repr))
    return obj


def case_from_json(obj: dict[str, Any]) -> Case:
    obj = dict(obj)
    obj["stdin"] = obj.get("stdin", "").encode("latin-1")
    obj["files"] = {k: v.encode("latin-1") for k, v in obj.get("files", {}).items()}
    return Case(**obj)


def inputs_of(case: Case) -> int:
    """How many malformed inputs a case feeds (:attr:`Case.bad`): its broken input lines when
    the reader answers each line, else one (an argument set, a document, a ledger, a call)."""
    return case.bad


def load_reproducer(path: Path, data: Path) -> tuple[Case, dict[str, Any]]:
    """A checked-in reproducer (``tests/data/fuzz_corpus/*.json``): its case and what it must
    give. ``stdin`` is text (``repeat`` times, then ``stdin_suffix``); a file is text,
    ``{"hex": ...}`` bytes or ``{"copy": path}`` under ``data``; ``{data}`` in argv is ``data``."""
    obj = json.loads(path.read_text("utf-8"))
    raw = obj["case"]
    stdin = raw.get("stdin", "") * raw.get("repeat", 1) + raw.get("stdin_suffix", "")
    if raw.get("stdin_template") == "kakuro-layout":
        layout = ["#" * 2000] * 2000
        stdin = json.dumps({"family": "kakuro", "params": {"layout": layout}, "clues": []})
    files = {}
    for name, spec in raw.get("files", {}).items():
        if isinstance(spec, str):
            files[name] = spec.encode("utf-8", "surrogatepass")
        elif "hex" in spec:
            files[name] = bytes.fromhex(spec["hex"])
        else:
            files[name] = (data / spec["copy"]).read_bytes()
    case = Case(
        raw["command"],
        [a.replace("{data}", str(data)) for a in raw["argv"]],
        stdin=stdin.encode("utf-8", "surrogatepass"),
        files=files,
        ledger=raw.get("ledger"),
    )
    return case, obj["expect"]


def fuzz(
    seeds: Seeds,
    cases: int,
    seed: int = 0,
    timeout: float = 60.0,
    out: Path | None = None,
    progress: int = 0,
    max_seconds: float | None = None,
) -> dict[str, Counter]:
    """Run ``cases`` generated cases (fewer when ``max_seconds`` run out first); per command,
    the counts of cases, inputs and each kind of failure."""
    rng = random.Random(seed)
    tally: dict[str, Counter] = defaultdict(Counter)
    sink = out.open("w", encoding="utf-8") if out else None
    start = time.monotonic()
    try:
        for n in range(1, cases + 1):
            if max_seconds is not None and time.monotonic() - start > max_seconds:
                break
            case = make_case(rng, seeds)
            outcome = run_case(case, timeout)
            why = judge(case, outcome)
            tally[case.command]["cases"] += 1
            tally[case.command]["inputs"] += inputs_of(case)
            if why is not None:
                kind = why if why in ("hang", "traceback") else "failure"
                tally[case.command][kind] += 1
                if sink:
                    record = {"why": why, "case": case_to_json(case)}
                    record["error"] = (outcome.error or outcome.stderr)[-3000:]
                    sink.write(json.dumps(record) + "\n")
                    sink.flush()
            if progress and n % progress == 0:
                bad = sum(c["traceback"] + c["hang"] + c["failure"] for c in tally.values())
                rate = n / (time.monotonic() - start)
                print(f"{n} cases, {bad} bad, {rate:.1f} cases/s", file=sys.stderr, flush=True)
    finally:
        if sink:
            sink.close()
    return tally


def format_tally(tally: dict[str, Counter], seconds: float) -> str:
    rows = [
        "| command | cases | inputs | tracebacks | hangs | failures |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    total: Counter = Counter()
    for command in sorted(tally):
        c = tally[command]
        total.update(c)
        rows.append(
            f"| {command} | {c['cases']} | {c['inputs']} | {c['traceback']} | {c['hang']} | "
            f"{c['failure']} |"
        )
    rows.append(
        f"| **all** | {total['cases']} | {total['inputs']} | {total['traceback']} | "
        f"{total['hang']} | {total['failure']} |"
    )
    rate = total["cases"] / seconds if seconds else 0.0
    rows.append(
        f"\n{total['cases']} cases ({total['inputs']} inputs) in {seconds:.0f} s "
        f"({rate:.1f} cases/s)"
    )
    return "\n".join(rows)


def _part(seeds: Seeds, cases: int, seed: int, args: argparse.Namespace, out: str) -> Any:
    reuse_parser()
    return dict(fuzz(seeds, cases, seed, args.timeout, Path(out), args.progress, args.max_seconds))


def _in_parallel(seeds: Seeds, args: argparse.Namespace) -> dict[str, Counter]:
    """``args.jobs`` processes (fork), job i running its share of the cases from seed + i and
    writing failures to ``<out>.i``; their counts summed."""
    import multiprocessing as mp

    shares = [args.cases // args.jobs + (i < args.cases % args.jobs) for i in range(args.jobs)]
    parts = [(seeds, n, args.seed + i, args, f"{args.out}.{i}") for i, n in enumerate(shares)]
    with mp.get_context("fork").Pool(args.jobs) as pool:
        results = pool.starmap(_part, parts)
    tally: dict[str, Counter] = defaultdict(Counter)
    for result in results:
        for command, counts in result.items():
            tally[command].update(counts)
    return tally


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", type=int, default=1000, help="cases to generate (1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the case generator (0)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per case (60)")
    p.add_argument("--golden", default="tests/golden", help="golden corpora to seed from")
    p.add_argument("--data", default="tests/data", help="test data (tatham, rbk) to seed from")
    p.add_argument("--out", default="fuzz-failures.jsonl", help="failing cases (JSON Lines)")
    p.add_argument("--progress", type=int, default=1000, help="a status line every N cases")
    p.add_argument(
        "--max-seconds", type=float, default=None, help="stop starting cases after this long"
    )
    p.add_argument("--jobs", type=int, default=1, help="worker processes; job i runs seed+i (1)")
    args = p.parse_args(argv)
    seeds = load_seeds(Path(args.golden), Path(args.data))
    reuse_parser()
    start = time.monotonic()
    if args.jobs > 1:
        tally = _in_parallel(seeds, args)
    else:
        tally = fuzz(
            seeds, args.cases, args.seed, args.timeout, Path(args.out), args.progress,
            args.max_seconds,
        )  # fmt: skip
    print(format_tally(tally, time.monotonic() - start))
    where = args.out if args.jobs == 1 else f"{args.out}.<job>"
    print(f"kinds: {', '.join(sorted(BUILDERS))}; failing cases in {where}")
    bad = sum(c["traceback"] + c["hang"] + c["failure"] for c in tally.values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
