"""Smoke test of the graded-generation measurement: shape of the table, not timings."""

from __future__ import annotations

from benchmarks import gradebench


def test_gradebench_level_one_two_puzzles(tmp_path):
    assert (
        gradebench.main(["--out", str(tmp_path), "--levels", "1", "--count", "2", "--no-pin"]) == 0
    )
    text = (tmp_path / "gradebench.md").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    assert header == list(gradebench.COLUMNS)
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[1:]]
    assert [(r[0], r[1]) for r in rows] == [("1", "adaptive"), ("1", "blind")]
    for r in rows:
        assert len(r) == len(header)
        assert r[2].endswith("/2")
    assert "Command: `python -m benchmarks.gradebench" in text
    assert "Machine: nproc" in text
