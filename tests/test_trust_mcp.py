"""The trust boundary in ``puzzlekit mcp`` (docs/security.md): a plugin never reaches the holdout.

``puzzle_generate`` runs a holdout in the server's worker processes. A plugin named with
``--plugin`` or installed as an entry point runs in the loop process only, as under ``generate``:
its import code patching the holdout's check (``pk_forge_patch``) changes no holdout verdict,
also after a call that needed the plugins in the same worker (``puzzle_verify`` of a plugin's
verifier, which lets them into that worker: the next ``puzzle_generate`` gets a fresh one). The
faulty filter accepts puzzles the holdout calls UNSOLVABLE, so a forgery (every verdict UNIQUE)
would show. One worker, so that every call of a session meets the same one.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.test_trust_boundary import GENERATE, ROOT, _cli, _env, _verdicts

GENERATE_ARGS = {
    "family": "sudoku",
    "params": {"size": 4},
    "filter": "faulty",
    "holdout": "enumerative",
    "count": 6,
    "seed": 5,
}


async def _session(env: dict[str, str], *extra: str) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "puzzlekit", *extra, "mcp", "--workers", "1"],
        cwd=str(ROOT),
        env=env,
    )
    got: dict[str, Any] = {}
    async with Client(params, read_timeout_seconds=240) as client:

        async def call(key: str, name: str, args: dict[str, Any]) -> None:
            result = await client.call_tool(name, args)
            text = result.content[0].text if result.content else ""
            got[key] = {"error": result.is_error, "text": text, "out": result.structured_content}

        await call("first", "puzzle_generate", GENERATE_ARGS)
        verify = {"family": "sudoku", "params": {"size": 4}, "text": "1234341221434321"}
        if "--plugin" in extra:  # a plugin's verifier: the plugins come into this worker
            verify["verifier"] = "pkfix-sat"
        await call("verify", "puzzle_verify", verify)
        await call("second", "puzzle_generate", GENERATE_ARGS)
    return got


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> list[str]:
    got = _cli(_env(tmp_path_factory.mktemp("base")), *GENERATE)
    assert got.returncode == 0, got.stderr
    verdicts = _verdicts(got.stdout)
    assert "UNSOLVABLE" in verdicts  # a forgery would turn these into UNIQUE
    return verdicts


def _check(got: dict[str, Any], baseline: list[str], loop_plugins: list[str]) -> None:
    for key in ("first", "second"):
        answer = got[key]
        assert not answer["error"], answer["text"]
        assert _verdicts(answer["text"]) == baseline, key
        trust = answer["out"]["trust"]
        assert trust == {"judge": "kept-out", "loopPlugins": loop_plugins, "reasons": []}
    assert not got["verify"]["error"], got["verify"]["text"]
    assert json.loads(got["verify"]["text"])["uniquenessVerdict"] == "UNIQUE"


def test_a_plugin_named_to_the_server_changes_no_holdout_verdict(baseline, tmp_path) -> None:
    plugins = ["--plugin", "pk_fixture_plugin", "--plugin", "pk_forge_patch"]
    got = asyncio.run(_session(_env(tmp_path), *plugins))
    _check(got, baseline, ["pk_fixture_plugin", "pk_forge_patch"])


def test_a_plugin_that_says_its_worker_is_clean_changes_no_holdout_verdict(
    baseline, tmp_path
) -> None:
    """``pk_forge_hide`` makes the worker it was let into claim it is clean again: the server
    decides that itself, so the second generate still runs in a fresh worker."""
    names = ["pk_fixture_plugin", "pk_forge_patch", "pk_forge_hide"]
    got = asyncio.run(_session(_env(tmp_path), *(a for m in names for a in ("--plugin", m))))
    _check(got, baseline, names)


def test_an_installed_plugin_never_loads_in_a_judging_worker(baseline, tmp_path) -> None:
    dist = tmp_path / "site" / "pk_forge-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: pk-forge\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[puzzlekit.plugins]\nforge = pk_forge_patch\n")
    got = asyncio.run(_session(_env(tmp_path, tmp_path / "site")))
    _check(got, baseline, [])


def test_a_plugin_that_replaces_a_name_is_refused_at_start(tmp_path) -> None:
    argv = ["--plugin", "pk_forge_replace", "mcp"]
    got = _cli(_env(tmp_path), *argv)
    assert got.returncode == 2, got.stderr
    assert "Traceback" not in got.stderr
    assert "plugin 'pk_forge_replace' may not replace verifier 'enumerative'" in got.stderr


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["--plugin", "pk_broken_on_import", "mcp"], "broken on purpose"),
        (["mcp", "--plugin", "pk_no_such_module"], "No module named 'pk_no_such_module'"),
    ],
)
def test_a_broken_plugin_stops_the_server_at_start_in_one_line(tmp_path, argv, why) -> None:
    """A named plugin that does not import (it raises, or is not there) ends ``puzzlekit mcp``
    before it serves: exit 2, one line naming the plugin and why."""
    (tmp_path / "pk_broken_on_import.py").write_text("raise RuntimeError('broken on purpose')\n")
    got = _cli(_env(tmp_path, tmp_path), *argv)
    assert got.returncode == 2, got.stderr
    (line,) = got.stderr.splitlines()
    name = next(a for a in argv if a.startswith("pk_"))
    assert f"plugin {name!r} could not be loaded" in line and why in line, line


def test_the_server_process_imports_no_plugin(tmp_path) -> None:
    """``pk_forge_patch`` sets PK_FORGE_PATCHED where it is imported: never in the server."""
    script = (
        "import os, sys; from puzzlekit.app.cli import main; import puzzlekit.app.mcp.server as ms;"
        "ms.serve = lambda **kw: print('patched' if os.environ.get('PK_FORGE_PATCHED') else "
        "'clean', [m for m in sys.modules if m.startswith('pk_')]);"
        "sys.exit(main(['--plugin', 'pk_forge_patch', 'mcp']))"
    )
    got = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True, text=True, env=_env(tmp_path), cwd=ROOT, timeout=240,
    )  # fmt: skip
    assert got.returncode == 0, got.stderr
    assert got.stdout.strip() == "clean []"


WORKER_RETRY = """
import json, sys
from puzzlekit.app.mcp import work
from puzzlekit.core.plugins import judge_without_plugins, judging

judge_without_plugins(["pk_fixture_plugin"])  # as a worker of `puzzlekit mcp --plugin ...`
out = {}
bad_count = dict(family="sudoku", params={"size": 4}, holdout="none", count=0)
try:
    work._run_op("generate", bad_count)
except work.ArgumentError as exc:
    out["count"] = [type(exc).__name__, str(exc), judging(), "pk_fixture_plugin" in sys.modules]
answer = dict(family="pkfix-latin", params={"size": 3}, text="123231312", answer="123231312")
out["answer"] = [work._run_op("check_answer", answer)["report"]["verdict"], judging()]
try:
    work._run_op("game", dict(game="nope", position="..."))
except work.ArgumentError as exc:
    out["game"] = type(exc).__name__
print(json.dumps(out))
"""


def test_a_worker_lets_the_plugins_in_only_for_an_unknown_name(tmp_path) -> None:
    """A call whose argument is unusable for another reason (a count out of range) is answered
    with the plugins still kept out; an unknown name (a plugin's family) lets them in and the
    call is tried again."""
    env = _env(tmp_path)
    got = subprocess.run(
        [sys.executable, "-c", WORKER_RETRY],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert got.returncode == 0, got.stderr
    out = json.loads(got.stdout)
    assert out["count"] == ["ArgumentError", "count: must be in 1..20, got 0", True, False]
    assert out["answer"] == ["CORRECT", False]  # a plugin's family: let in, then answered
    assert out["game"] == "UnknownArgument"
