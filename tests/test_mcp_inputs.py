"""What an agent sends the MCP server, read as the command line reads it, over the SDK's client.

``puzzle_verify``'s ``text`` reaches the family as sent for every family, the ones whose text
format is a JSON line (logicgrid, toolcall, kenken, sudoku-killer) included; ``game_verdict``
answers a malformed or illegal position with an INVALID_SPEC report whose violations carry
coordinates, not with a tool error. One server for the module (starting one costs seconds).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.test_mcp import _out, server_params

GOLDEN = Path(__file__).parent / "golden"

#: positions game_verdict cannot play: (game, position, violation type, a coordinate it names)
BAD_POSITIONS = {
    "piece": ("tictactoe", "xzo/.x./...", "out-of-domain", [0, 1]),
    "counts": ("tictactoe", "xxx/x../...", "malformed", [0, 0]),
    "floating": ("connect", "x.../..../..../o...", "malformed", [0, 0]),
    "short_row": ("tictactoe", "x.o/.x/...", "shape-mismatch", [1, 2]),
    "heap": ("nim", "3,a,5", "malformed", [1]),
}


def family_lines() -> dict[str, tuple[dict[str, Any], str]]:
    """For every built-in family (tests may register their own) with a golden corpus: the
    params and the one-line text of its smallest golden UNIQUE case."""
    from puzzlekit.core.model import Instance
    from puzzlekit.families import FAMILIES, get_family

    best: dict[str, tuple[int, dict[str, Any], str]] = {}
    for path in sorted(GOLDEN.glob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(raw)
            if case["case"] != "unique":
                continue
            inst = Instance.from_json_obj(case["instance"])
            text = get_family(inst.family).format_text(inst)
            if inst.family not in best or len(text) < best[inst.family][0]:
                best[inst.family] = (len(text), inst.params_dict(), text)
            break
    builtin = {n for n, f in FAMILIES.items() if type(f).__module__.startswith("puzzlekit.")}
    assert set(best) == builtin, "a built-in family without a golden UNIQUE case"
    return {name: (params, text) for name, (_, params, text) in sorted(best.items())}


async def _session() -> dict[str, Any]:
    got: dict[str, Any] = {}
    async with Client(server_params(), read_timeout_seconds=120) as client:
        for name, (params, text) in family_lines().items():
            args = {"family": name, "params": params, "text": text}
            got[f"text:{name}"] = _out(await client.call_tool("puzzle_verify", args))
        for key, (game, position, _, _) in BAD_POSITIONS.items():
            args = {"game": game, "position": position}
            got[f"game:{key}"] = _out(await client.call_tool("game_verdict", args))
    return got


@pytest.fixture(scope="module")
def session() -> dict[str, Any]:
    return asyncio.run(_session())


@pytest.mark.parametrize("family", sorted(family_lines()))
def test_verify_text_reads_every_family_as_the_command_line_does(
    session: dict[str, Any], family: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from puzzlekit.app.cli import main

    out = session[f"text:{family}"]
    assert not out["error"], out["text"]
    report = out["structured"]
    params, text = family_lines()[family]
    path = tmp_path / "line.txt"
    path.write_text(text + "\n", encoding="utf-8")
    argv = ["verify", str(path), "--family", family, "--params", json.dumps(params)]
    assert main([*argv, "--cap", str(report["solutionCap"])]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert report["uniquenessVerdict"] == cli["uniquenessVerdict"] == "UNIQUE"
    assert report["instanceDigest"] == cli["instanceDigest"]
    assert report["solutions"] == cli["solutions"]


def test_json_line_families_are_among_them() -> None:
    lines = family_lines()
    for family in ("logicgrid", "toolcall"):
        assert lines[family][1].startswith("{"), family


@pytest.mark.parametrize("key", sorted(BAD_POSITIONS))
def test_game_verdict_answers_a_position_it_cannot_play_with_an_invalid_spec_report(
    session: dict[str, Any], key: str
) -> None:
    import jsonschema

    import puzzlekit.app.mcp.server as ms
    from puzzlekit.core.model import sha256_digest

    game, position, violation_type, coord = BAD_POSITIONS[key]
    out = session[f"game:{key}"]
    assert not out["error"], out["text"]
    report = out["structured"]
    assert json.loads(out["text"]) == report
    jsonschema.validate(report, ms.output_schemas()["game_verdict"])
    assert report["uniquenessVerdict"] == "INVALID_SPEC"
    assert report["instanceDigest"] == sha256_digest(position.encode("utf-8"))
    violations = report["rejectDetail"]["violations"]
    assert all(v["coord"] is not None for v in violations), violations
    hit = [v for v in violations if v["coord"] == coord]
    assert hit and hit[0]["violationType"] == violation_type, violations
    if len(coord) == 2:
        assert hit[0]["fieldName"] == f"r{coord[0] + 1}c{coord[1] + 1}"


@pytest.mark.parametrize("key", sorted(BAD_POSITIONS))
def test_game_verdict_command_prints_the_same_report(
    session: dict[str, Any], key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from puzzlekit.app.cli import main

    game, position, _, _ = BAD_POSITIONS[key]
    assert main(["game-verdict", game, position, "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out) == session[f"game:{key}"]["structured"]
