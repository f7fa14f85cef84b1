"""The README's two set-up commands, and CI running the test command verbatim."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Set up and run", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section, flags=re.S)


def test_readme_gives_exactly_two_setup_commands():
    cmds = _commands()
    assert len(cmds) == 2
    assert all("\n" not in c for c in cmds)


def test_ci_runs_the_readme_test_command_verbatim():
    test_cmd = _commands()[1]
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_cmd in ci


def test_main_job_input_exists():
    main_cmd = _commands()[0]
    for token in main_cmd.split():
        if token.startswith("samples/") or token.startswith("experiments/"):
            assert (ROOT / token).exists(), token
