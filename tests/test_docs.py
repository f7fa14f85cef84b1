"""The docs are executed: the README's Python examples print what their comments claim, and every
shell and Python block of docs/tutorial.md runs from a copy of the repository. (The API reference
of :data:`API_MODULES` is built in tests/test_api_reference.py, apart, so that the two longest
documentation checks can run on different test workers.)"""

from __future__ import annotations

import ast
import enum
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
#: a comment that states a value: a repr such as ``Verdict.MULTIPLE`` or ``GapItem(coord=...``
CLAIM = re.compile(r"^[A-Za-z_][\w.]*(\(|$)")
#: the modules of the API reference: the package and each floor
API_MODULES = [
    "puzzlekit",
    *(
        f"puzzlekit.{floor}"
        for floor in (
            "core audit families verifiers io grading generators loop quality envs integrations "
            "answers app"
        ).split()
    ),
]


def blocks(path: Path, *languages: str) -> list[tuple[str, str]]:
    return [(lang, body) for lang, body in FENCE.findall(path.read_text()) if lang in languages]


def claims(code: str) -> list[tuple[str, str]]:
    """(expression, claimed repr) for each line ``expr  # Claim`` that states a value."""
    out = []
    for line in code.splitlines():
        expr, sep, comment = line.partition("  # ")
        if not sep or "=" in expr.replace("==", "") or not CLAIM.match(comment.strip()):
            continue
        out.append((expr.strip(), comment.strip()))
    return out


def test_readme_python_examples_print_what_they_claim() -> None:
    python = blocks(ROOT / "README.md", "python")
    assert python, "the README has Python examples"
    checked = 0
    for _, code in python:
        namespace: dict = {}
        tree = ast.parse(code)
        for node in tree.body:
            segment = "\n".join(code.splitlines()[node.lineno - 1 : node.end_lineno])
            exec(compile(ast.Module([node], []), "<README>", "exec"), namespace)
            for expr, claim in claims(segment):
                value = eval(expr, namespace)
                prefix = claim.split("...")[0].rstrip(", ")
                shown = [repr(value)]
                if isinstance(value, enum.Enum):  # written as Python source names it
                    shown.append(f"{type(value).__name__}.{value.name}")
                assert any(s.startswith(prefix) for s in shown), f"README: {expr} is {shown[0]}"
                checked += 1
    assert checked >= 2


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """What the tutorial needs of a fresh clone: experiments/ and notebooks/, copied."""
    here = tmp_path_factory.mktemp("clone")
    for name in ("experiments", "notebooks"):
        shutil.copytree(ROOT / name, here / name)
    return here


def test_the_tutorial_runs_top_to_bottom(clone: Path) -> None:
    tutorial = ROOT / "docs" / "tutorial.md"
    steps = blocks(tutorial, "sh", "python")
    assert sum(lang == "sh" for lang, _ in steps) >= 5
    assert any(lang == "python" for lang, _ in steps)
    bindir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "PATH": bindir + os.pathsep + os.environ.get("PATH", ""),
        "MPLBACKEND": "Agg",
    }
    env.pop("PUZZLEKIT_RUN", None)
    for i, (lang, body) in enumerate(steps):
        command = ["bash", "-euo", "pipefail", "-c", body]
        if lang == "python":
            command = [sys.executable, "-c", body]
        proc = subprocess.run(
            command, cwd=clone, env=env, capture_output=True, text=True, timeout=900
        )
        assert proc.returncode == 0, (
            f"block {i} ({lang}):\n{body}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
        )
    report = (clone / "runs" / "tutorial" / "report" / "report.md").read_text()
    assert "## Summary" in report
    assert (clone / "golden" / "my-latin-4x4.jsonl").exists()
