"""docs/models.md runs: the three paths (a dataset for evaluation, a reward for RL, an environment
for agents) from top to bottom in a fresh directory, their shell blocks through bash and their
Python blocks in one session, and every Python line of the page that states a value
(``expr  # value``) evaluates to it."""

from __future__ import annotations

import ast
import enum
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "models.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
#: a comment naming a value by its repr: ``AnswerVerdict.CORRECT``, ``GapItem(...``
NAMED = re.compile(r"^[A-Za-z_][\w.]*(\(|$)")
PATHS = "## Three paths to a model"


def _blocks(text: str) -> list[tuple[str, str]]:
    return [(lang, body) for lang, body in FENCE.findall(text) if lang in ("sh", "python")]


def _sections() -> tuple[str, str]:
    """The three paths' section and the rest of the page."""
    page = PAGE.read_text(encoding="utf-8")
    head, sep, tail = page.partition(PATHS)
    assert sep, f"docs/models.md has no {PATHS!r} section"
    body, nxt, rest = tail.partition("\n## ")
    return body, head + nxt + rest


def _claim(line: str) -> str | None:
    code, sep, comment = line.partition("  # ")
    return comment.strip() if sep and code.strip() else None


def _run_python(code: str, namespace: dict, where: str) -> int:
    """Execute ``code`` statement by statement; check each one-line expression whose comment
    states a value (a Python literal, or a repr by name). The number of claims checked."""
    checked = 0
    lines = code.splitlines()
    for node in ast.parse(code).body:
        exec(compile(ast.Module([node], []), where, "exec"), namespace)
        if not isinstance(node, ast.Expr) or node.lineno != node.end_lineno:
            continue
        claim = _claim(lines[node.lineno - 1])
        if claim is None:
            continue
        expr = lines[node.lineno - 1].partition("  # ")[0].strip()
        try:
            expected = ast.literal_eval(claim)
        except (ValueError, SyntaxError):
            if not NAMED.match(claim):
                continue  # prose
            value = eval(expr, namespace)
            shown = [repr(value)]
            if isinstance(value, enum.Enum):
                shown.append(f"{type(value).__name__}.{value.name}")
            prefix = claim.split("...")[0].rstrip(", ")
            assert any(s.startswith(prefix) for s in shown), f"{where}: {expr} is {shown[0]}"
        else:
            value = eval(expr, namespace)
            assert value == expected, f"{where}: {expr} is {value!r}, the page says {claim}"
        checked += 1
    return checked


def test_the_three_paths_run_top_to_bottom(tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("reasoning_gym")  # in the dev extra: the reward path uses it
    section, _ = _sections()
    blocks = _blocks(section)
    assert [lang for lang, _ in blocks] == ["sh", "python", "python", "python"]
    env = {
        **os.environ,
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "MPLBACKEND": "Agg",
    }
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    checked = 0
    for i, (lang, body) in enumerate(blocks):
        if lang == "sh":
            proc = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", body],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert proc.returncode == 0, f"block {i}:\n{body}\n{proc.stderr[-3000:]}"
        else:
            checked += _run_python(body, namespace, f"docs/models.md block {i}")
    assert checked >= 12
    assert (tmp_path / "ds" / "test.jsonl").is_file()


def test_the_pages_other_python_examples_state_what_they_print() -> None:
    _, rest = _sections()
    namespace: dict = {}
    checked = sum(
        _run_python(body, namespace, "docs/models.md")
        for lang, body in _blocks(rest)
        if lang == "python"
    )
    assert checked >= 6


def test_the_models_bench_study_behind_the_figures_runs_quick(capsys) -> None:
    from benchmarks import models_bench

    assert models_bench.main(["--quick"]) == 0
    out = capsys.readouterr().out
    assert "plain answer lines: 50 in" in out and "(mean score 1.000)" in out
    assert "sudoku 4x4 seed 0: solved (terminated True) in" in out
