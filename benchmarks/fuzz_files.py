"""Fuzz cases for the files puzzlekit reads whole: experiment configs, run directories, policy
files and ledger checkpoints, in broken encodings too.

Each builder returns a :class:`~benchmarks.fuzz_break.Case` that the fuzz run
(:mod:`benchmarks.fuzz`) judges like any other: an exception that escapes, a hang or
an exit 2 that is not one ``puzzlekit:`` line is a failure. The valid material is built once
per process (:func:`file_seeds`): the smoke config shrunk to one trial, a finished run
directory of it (no report) and a policy trained for a few hundred steps.

Not for: streams of puzzles, arguments, ledgers and kernel documents (:mod:`.fuzz_cases`).
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

from benchmarks.fuzz_break import Case, break_json, break_text, to_bytes

#: the smoke config's edits that make one run take about a second
_SHRINK = (("trials = 6", "trials = 1"), ("batch = 3", "batch = 1"), ("workers = 2", "workers = 1"))

#: the share of whole experiments (a config that still parses, a ``--resume``) that draw their
#: report: drawing is most of such a case's time and reads only what the run itself wrote
REPORT_SHARE = 0.15


def _report_flag(rng: random.Random) -> list[str]:
    return [] if rng.random() < REPORT_SHARE else ["--no-report"]


@dataclass(frozen=True)
class FileSeeds:
    """Valid files to break: a config's text, a finished run directory's files (relative path
    -> bytes; the config beside it as ``cfg.toml``) and a policy file's JSON."""

    config: str
    run: dict[str, bytes]
    policy: dict


@functools.cache
def file_seeds(root: str = ".") -> FileSeeds:
    """Built once per process from ``root``'s ``experiments/smoke.toml``."""
    from puzzlekit.app.experiment import load_config, run_experiment

    text = (Path(root) / "experiments" / "smoke.toml").read_text("utf-8")
    for old, new in _SHRINK:
        text = text.replace(old, new)
    with tempfile.TemporaryDirectory(prefix="pk-fuzz-seed-") as tmp:
        cfg = Path(tmp) / "cfg.toml"
        cfg.write_text(text, "utf-8")
        run = Path(tmp) / "run"
        run_experiment(load_config(cfg), run, executor="serial", quiet=True, report=False)
        files = {
            f"run/{p.relative_to(run).as_posix()}": p.read_bytes()
            for p in sorted(run.rglob("*"))
            if p.is_file() and p.name != ".lock"
        }
        policy = Path(tmp) / "policy.json"
        from puzzlekit.app.cli import main

        argv = ["train", "sudoku", "--params", '{"size": 4}', "--out", str(policy)]
        with contextlib.redirect_stdout(io.StringIO()):
            code = main([*argv, "--steps", "200", "--quiet"])
        if code != 0:
            raise RuntimeError(f"the fuzz run's seed policy did not train (exit {code})")
        return FileSeeds(text, files, json.loads(policy.read_text("utf-8")))


def encode(rng: random.Random, text: str) -> bytes:
    """``text`` as UTF-8 mostly; now and then UTF-16 (with its mark), UTF-8 with a mark, or
    Latin-1 (which is not UTF-8 where ``text`` is not ASCII)."""
    roll = rng.random()
    if roll < 0.08:
        return text.encode("utf-16", "surrogatepass")
    if roll < 0.16:
        return b"\xef\xbb\xbf" + text.encode("utf-8", "surrogatepass")
    if roll < 0.22:
        return text.encode("latin-1", "replace")
    return to_bytes(rng, text)


def _break_toml(rng: random.Random, text: str) -> str:
    roll = rng.random()
    if roll < 0.55:
        return break_text(rng, text)
    if roll < 0.7:  # deep nesting, before any parser recursion
        depth = rng.choice([70, 5000])
        return text + f"\nextra = {'[' * depth}{']' * depth}\n"
    if roll < 0.85:  # a key whose value has the wrong type or an out-of-range number
        key, value = rng.choice(
            [
                ("seed", "18446744073709551616"),
                ("seed", "-1"),
                ("trials", "1e999"),
                ("batch", '"3"'),
                ("workers", "[]"),
                ("name", "{ a = 1 }"),
            ]
        )
        return text.replace(f"\n{key} =", f"\n{key}_was =", 1) + f"\n{key} = {value}\n"
    lines = text.splitlines()
    i = rng.randrange(len(lines))
    return "\n".join(lines[:i] + lines[i + 1 :])  # a line dropped (a header, a key)


def config_case(rng: random.Random, seeds: FileSeeds) -> Case:
    """``run CONFIG`` of a broken config. Most also hold ``trials = 0``, which the config
    check reports beside every other problem, so that few cases run a whole experiment."""
    text = _break_toml(rng, seeds.config)
    if rng.random() < 0.9:
        text = text.replace("\ntrials =", "\ntrials_was =", 1) + "\ntrials = 0\n"
    argv = ["run", "{dir}/cfg.toml", "--out", "{dir}/run", "--executor", "serial", "--quiet"]
    argv += _report_flag(rng)
    if rng.random() < 0.2:
        argv += ["--set", rng.choice(["seed=18446744073709551616", "trials=", "=", "x.y.z=1"])]
    return Case("config", argv, files={"cfg.toml": encode(rng, text)})


def _damage(rng: random.Random, files: dict[str, bytes]) -> dict[str, bytes]:
    files = dict(files)
    name = rng.choice(sorted(files))
    data = files[name]
    roll = rng.random()
    if roll < 0.3:
        files[name] = data[: rng.randrange(len(data) + 1)]
    elif roll < 0.45:
        files[name] = bytes(rng.randrange(256) for _ in range(rng.randint(0, 64)))
    elif roll < 0.6 and name.endswith(".json"):
        files[name] = to_bytes(rng, break_json(rng, json.loads(data), rng.randint(1, 3)))
    elif roll < 0.75:
        i = rng.randrange(max(len(data), 1))
        files[name] = data[:i] + bytes([rng.randrange(256)]) + data[i + 1 :]
    elif roll < 0.9:
        del files[name]
    else:  # a directory where the file belongs
        del files[name]
        files[f"{name}/.keep"] = b""
    return files


def rundir_case(rng: random.Random, seeds: FileSeeds) -> Case:
    """A finished run directory with one file damaged, through ``report --check``, ``export``
    or ``run --resume``."""
    files = _damage(rng, seeds.run)
    files["cfg.toml"] = seeds.config.encode("utf-8")
    roll = rng.random()
    if roll < 0.5:
        argv = ["report", "--check", "{dir}/run"]
    elif roll < 0.85:
        argv = ["export", "{dir}/run", "--out", "{dir}/dataset", "--to", "jsonl"]
    else:
        argv = ["run", "{dir}/cfg.toml", "--out", "{dir}/run", "--resume", "--quiet"]
        argv += ["--executor", "serial", *_report_flag(rng)]
    return Case(f"rundir-{argv[0]}", argv, files=files)


def policy_case(rng: random.Random, seeds: FileSeeds) -> Case:
    """``generate --strategy policy --policy FILE`` of a broken policy file."""
    roll = rng.random()
    if roll < 0.6:
        text = break_json(rng, seeds.policy, rng.randint(1, 3))
    elif roll < 0.8:
        text = break_text(rng, json.dumps(seeds.policy))
    else:
        text = json.dumps(seeds.policy)[: rng.randrange(200)]
    argv = ["generate", "sudoku", "--params", '{"size": 4}', "--strategy", "policy"]
    argv += ["--policy", "{dir}/policy.json", "--count", "1", "--holdout", "none"]
    return Case("policy", argv, files={"policy.json": encode(rng, text)})


def checkpoint_case(rng: random.Random) -> Case:
    """``ledger verify --checkpoint FILE`` of a broken checkpoint of a small ledger."""
    good = {
        "format": "puzzlekit-ledger-checkpoint",
        "v": 1,
        "seq": 3,
        "entry_hash": "sha256:" + "0" * 64,
        "ledger": "ledger.db",
        "exported_at": "2026-01-01T00:00:00+00:00",
    }
    text = break_json(rng, good, rng.randint(1, 3)) if rng.random() < 0.8 else "{}"
    mutation = {"seq": 99, "body": "{}", "rehash": False, "flip": False, "truncate": False}
    # (seq 99 is no entry of the three: the ledger stays intact, the checkpoint is what is bad)
    files = {"cp.json": encode(rng, text), "mutation.json": json.dumps(mutation).encode()}
    argv = ["ledger", "verify", "{dir}/ledger.db", "--checkpoint", "{dir}/cp.json"]
    return Case("checkpoint", argv, files=files, ledger="ledger.db")
