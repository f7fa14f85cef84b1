"""The MCP server end to end: ``puzzlekit mcp`` as a subprocess, driven by the SDK's client.

One server is started for the module and one scripted session is run against it (starting a
Python process with the SDK costs seconds); the tests then check what each call answered.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

DATA = Path(__file__).parent / "data"
SUDOKU4 = {"size": 4, "box": [2, 2]}


def unique_puzzle() -> str:
    return (DATA / "sudoku9_17clue_sample.txt").read_text().split()[0]


def swappable_rectangle(grid: list[list[int]]) -> list[tuple[int, int]]:
    """Four cells (a,c) (a,d) (b,c) (b,d) of a solved 9x9 grid, rows a, b in one band and columns
    c, d in different stacks, with grid[a][c] == grid[b][d] and grid[a][d] == grid[b][c]: blank
    them and the grid has exactly two solutions, differing in exactly those cells."""
    for a in range(9):
        for b in range(a + 1, 9):
            if a // 3 != b // 3:
                continue
            for c in range(9):
                for d in range(c + 1, 9):
                    if c // 3 == d // 3:
                        continue
                    if grid[a][c] == grid[b][d] and grid[a][d] == grid[b][c]:
                        return [(a, c), (a, d), (b, c), (b, d)]
    raise AssertionError("no swappable rectangle in this solution")


def server_params(*extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "puzzlekit", "mcp", *extra],
        cwd=str(Path(__file__).parent.parent),
    )


def _out(result: Any) -> dict[str, Any]:
    return {
        "error": result.is_error,
        "text": result.content[0].text if result.content else "",
        "structured": result.structured_content,
    }


async def _session() -> dict[str, Any]:
    got: dict[str, Any] = {}
    async with Client(server_params(), read_timeout_seconds=120) as client:
        tools = await client.list_tools()
        got["tools"] = {t.name: t for t in tools.tools}

        async def call(key: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
            got[key] = _out(await client.call_tool(name, args))
            return got[key]

        line = unique_puzzle()
        unique = await call(
            "unique", "puzzle_verify", {"family": "sudoku", "text": line, "solution_cap": 2}
        )
        report = json.loads(unique["text"])
        sol = report["solutions"][0]
        grid = [[sol[f"r{r + 1}c{c + 1}"] for c in range(9)] for r in range(9)]
        cells = swappable_rectangle(grid)
        full = [str(grid[r][c]) for r in range(9) for c in range(9)]
        for r, c in cells:
            full[r * 9 + c] = "."
        got["blanked"] = cells
        await call("multiple", "puzzle_verify", {"family": "sudoku", "text": "".join(full)})
        bad_given = {
            "family": "sudoku",
            "params": SUDOKU4,
            "clues": [{"id": "r2c3", "kind": "given", "data": {"value": 7}, "coords": [[1, 2]]}],
        }
        await call("invalid", "puzzle_verify", {"instance": bad_given})

        gen = {"family": "sudoku", "params": SUDOKU4, "count": 2, "seed": 11}
        await call("gen1", "puzzle_generate", gen)
        await call("gen2", "puzzle_generate", gen)

        await call(
            "bad_cap", "puzzle_verify", {"family": "sudoku", "text": line, "solution_cap": "x"}
        )
        await call("bad_missing", "puzzle_verify", {"solution_cap": 5})
        await call("bad_unknown", "puzzle_verify", {"family": "sudoku", "text": line, "capp": 5})
        empty4 = {"family": "sudoku", "params": SUDOKU4, "text": "." * 16}
        await call("default_cap", "puzzle_verify", empty4)
        await call("raised_cap", "puzzle_verify", {**empty4, "solution_cap": 10})
        await call("bad_json", "puzzle_verify", {"instance": '{"family": "sudoku",'})
        await call("bad_both", "puzzle_verify", {"instance": bad_given, "params": SUDOKU4})
        await call("bad_family", "puzzle_generate", {"family": "no-such-family"})
        await call("bad_count", "puzzle_generate", {"family": "sudoku", "count": 10_000})
        await call("bad_params", "puzzle_generate", {"family": "sudoku", "params": {"size": "big"}})
        await call("bad_size", "puzzle_verify", {"family": "sudoku", "text": "." * 200_001})
        await call(
            "timeout",
            "puzzle_generate",
            {
                "family": "sudoku",
                "params": {"size": 16, "box": [4, 4]},
                "count": 20,
                "minimize": True,
                "time_limit_seconds": 0.5,
            },
        )
        if "game_verdict" in got["tools"]:
            await call("game", "game_verdict", {"game": "tictactoe", "position": "x.o/.x./..."})
            await call("bad_game", "game_verdict", {"game": "chess", "position": "x"})
        many = {"family": "sudoku", "lines": [line, "x" * 81, "1" + "." * 15], "solution_cap": 2}
        await call("many", "puzzle_verify_many", many)
        for i, text in enumerate(many["lines"]):
            await call(
                f"one{i}", "puzzle_verify", {"family": "sudoku", "text": text, "solution_cap": 2}
            )
        await call("bad_many", "puzzle_verify_many", {"family": "sudoku", "lines": []})
        await call("after", "puzzle_verify", {"family": "sudoku", "text": line, "solution_cap": 2})
    return got


@pytest.fixture(scope="module")
def session() -> dict[str, Any]:
    return asyncio.run(_session())


def test_lists_the_tools_with_schemas_and_coordinate_docs(session: dict[str, Any]) -> None:
    tools = session["tools"]
    assert {"puzzle_schema_list", "puzzle_verify", "puzzle_generate"} <= set(tools)
    import puzzlekit.app.mcp.server as ms

    assert ("game_verdict" in tools) == ms.games_available()
    verify = tools["puzzle_verify"]
    assert verify.input_schema["type"] == "object"
    assert {
        "instance",
        "family",
        "params",
        "text",
        "verifier",
        "solution_cap",
        "budget_seconds",
    } <= set(verify.input_schema["properties"])
    assert "rejectDetail" in verify.description
    assert "0-based [row, col]" in verify.description and "r{row}c{col}" in verify.description
    gen = tools["puzzle_generate"].input_schema["properties"]
    assert gen["count"]["maximum"] == ms.Limits().max_count


def test_verify_unique(session: dict[str, Any]) -> None:
    out = session["unique"]
    assert not out["error"]
    report = json.loads(out["text"])
    assert report == out["structured"]
    assert report["uniquenessVerdict"] == "UNIQUE"
    assert "rejectDetail" not in report or report["rejectDetail"] is None
    line = unique_puzzle()
    sol = report["solutions"][0]
    for i, ch in enumerate(line):  # fieldName r{row}c{col} is 1-based
        if ch not in ".0":
            assert sol[f"r{i // 9 + 1}c{i % 9 + 1}"] == int(ch)


def test_verify_multiple_names_the_ambiguous_cells(session: dict[str, Any]) -> None:
    out = session["multiple"]
    assert not out["error"]
    report = json.loads(out["text"])
    assert report["uniquenessVerdict"] == "MULTIPLE"
    assert report["solutionCount"] == 2
    detail = report["rejectDetail"]
    assert detail["case"] == "MULTIPLE"
    gap = detail["discriminativeGap"]
    assert {tuple(g["coord"]) for g in gap} == set(session["blanked"])  # 0-based [row, col]
    for g in gap:
        r, c = g["coord"]
        assert g["fieldName"] == f"r{r + 1}c{c + 1}"
        assert len(set(g["valuesInSolutions"])) == 2


def test_verify_invalid_instance_is_a_report_with_coordinates(session: dict[str, Any]) -> None:
    out = session["invalid"]
    assert not out["error"]
    report = out["structured"]
    assert report["uniquenessVerdict"] == "INVALID_SPEC"
    violations = report["rejectDetail"]["violations"]
    assert any(v["coord"] == [1, 2] and v["fieldName"] == "r2c3" for v in violations)


def test_generate_same_seed_same_bytes(session: dict[str, Any]) -> None:
    first, second = session["gen1"], session["gen2"]
    assert not first["error"] and not second["error"]
    assert first["text"].encode() == second["text"].encode()
    lines = first["text"].splitlines()
    accepted = [json.loads(x) for x in lines if json.loads(x)["status"] == "accepted"]
    assert len(accepted) == 2
    assert all(r["filterVerdict"] == "UNIQUE" and r["instance"] for r in accepted)
    assert first["structured"]["puzzles"] == [json.loads(x) for x in lines]


@pytest.mark.parametrize(
    ("key", "field"),
    [
        ("bad_cap", "solution_cap"),
        ("bad_unknown", "capp"),
        ("bad_missing", "instance"),
        ("bad_json", "instance"),
        ("bad_both", "params"),
        ("bad_family", "family"),
        ("bad_count", "count"),
        ("bad_params", "params"),
        ("bad_size", "text"),
    ],
)
def test_bad_arguments_are_tool_errors_naming_the_field(
    session: dict[str, Any], key: str, field: str
) -> None:
    out = session[key]
    assert out["error"], out
    assert field in out["text"]


def test_time_limit_is_an_error_and_the_server_goes_on(session: dict[str, Any]) -> None:
    out = session["timeout"]
    assert out["error"]
    assert "time limit" in out["text"]
    after = session["after"]
    assert not after["error"]
    assert after["structured"]["uniquenessVerdict"] == "UNIQUE"
    assert after["structured"]["solutions"] == session["unique"]["structured"]["solutions"]


def test_game_verdict(session: dict[str, Any]) -> None:
    import puzzlekit.app.mcp.server as ms

    if not ms.games_available():  # the tool is omitted then (checked above); nothing to call
        assert "game_verdict" not in session["tools"]
        return
    out = session["game"]
    assert not out["error"]
    v = out["structured"]
    assert v["value"] == "DRAW" and v["toMove"] == "o"
    best = [m for m in v["moves"] if m["value"] == "DRAW"]
    assert [(m["coord"], m["fieldName"]) for m in best] == [([2, 2], "r3c3")]
    assert session["bad_game"]["error"] and "game" in session["bad_game"]["text"]


def test_generate_text_is_what_the_cli_prints(
    session: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    from puzzlekit.app.cli import main

    argv = ["generate", "sudoku", "--params", json.dumps(SUDOKU4), "--count", "2", "--seed", "11"]
    assert main(argv) == 0
    assert capsys.readouterr().out == session["gen1"]["text"]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_on_localhost() -> None:
    import subprocess
    import time

    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "puzzlekit", "mcp", "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )

    async def talk() -> tuple[list[str], dict[str, Any]]:
        deadline = time.monotonic() + 90
        while True:
            try:
                async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                    tools = await client.list_tools()
                    text = "1..............."
                    args = {"family": "sudoku", "params": SUDOKU4, "text": text, "solution_cap": 3}
                    res = await client.call_tool("puzzle_verify", args)
                    return [t.name for t in tools.tools], _out(res)
            except Exception:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                await asyncio.sleep(0.3)

    try:
        names, out = asyncio.run(talk())
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "puzzle_verify" in names
    assert not out["error"]
    assert out["structured"]["uniquenessVerdict"] == "MULTIPLE"
    assert out["structured"]["solutionCount"] == 3
    assert f"http://127.0.0.1:{port}" in err  # bound to localhost by default


def test_every_tool_declares_its_output_schema_and_refuses_unknown_arguments(
    session: dict[str, Any],
) -> None:
    import jsonschema

    import puzzlekit.app.mcp.server as ms

    schemas = ms.output_schemas()
    for name, tool in session["tools"].items():
        assert tool.output_schema == schemas[name], name
        assert tool.input_schema.get("additionalProperties") is False, name
    assert schemas["puzzle_verify"]["title"].startswith("puzzlekit VerifierReport")
    for key, tool in (("unique", "puzzle_verify"), ("gen1", "puzzle_generate")):
        jsonschema.validate(session[key]["structured"], schemas[tool])
    if "game" in session:
        jsonschema.validate(session["game"]["structured"], schemas["game_verdict"])


def test_verify_returns_a_few_solutions_unless_asked_for_more(session: dict[str, Any]) -> None:
    import puzzlekit.app.mcp.server as ms

    small, more = session["default_cap"]["structured"], session["raised_cap"]["structured"]
    assert small["solutionCap"] == ms.DEFAULT_SOLUTION_CAP and len(small["solutions"]) == 3
    assert more["solutionCap"] == 10 and len(more["solutions"]) == 10
    assert small["uniquenessVerdict"] == more["uniquenessVerdict"] == "MULTIPLE"


def test_verify_many_answers_what_verify_answers_for_each_line(session: dict[str, Any]) -> None:
    """``puzzle_verify_many``: one report a line, in order, each ``puzzle_verify``'s (timing
    aside); a line that does not read is INVALID_SPEC at its place."""
    import jsonschema

    import puzzlekit.app.mcp.server as ms

    def content(obj: dict[str, Any]) -> dict[str, Any]:
        return {**obj, "stats": {k: v for k, v in obj["stats"].items() if k != "seconds"}}

    reports = session["many"]["structured"]["reports"]
    singles = [session[f"one{i}"]["structured"] for i in range(3)]
    assert [content(r) for r in reports] == [content(r) for r in singles]
    assert [r["uniquenessVerdict"] for r in reports] == ["UNIQUE", "INVALID_SPEC", "MULTIPLE"]
    assert len(session["many"]["text"].splitlines()) == 3
    jsonschema.validate(session["many"]["structured"], ms.output_schemas()["puzzle_verify_many"])
    assert session["bad_many"]["error"] and "lines" in session["bad_many"]["text"]
