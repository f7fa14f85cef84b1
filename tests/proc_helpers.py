"""Processes seen through /proc: a process's descendants, and waiting until they are gone."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def descendants(pid: int) -> dict[int, str]:
    """Every process under ``pid`` (from /proc), with its start time to tell reused pids apart."""
    children: dict[int, list[int]] = {}
    start: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        children.setdefault(int(fields[1]), []).append(int(entry))
        start[int(entry)] = fields[19]
    out: dict[int, str] = {}
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out[child] = start[child]
            todo.append(child)
    return out


def alive(procs: dict[int, str]) -> list[int]:
    alive = []
    for pid, started in procs.items():
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[19] == started and fields[0] != "Z":
            alive.append(pid)
    return alive


def wait_gone(procs: dict[int, str]) -> list[int]:
    deadline = time.monotonic() + 60
    while alive(procs) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive(procs)
