"""The MCP tool ``stopping_condition_run`` over the SDK's client: steps in, the outcome out,
anchored in the server's ledger when asked, chained per sequence id."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from puzzlekit.app.cli import main
from puzzlekit.app.mcp.server import build_server, output_schemas
from puzzlekit.audit.escalation.chain import PREVIOUS_KEY, walk_chain
from puzzlekit.audit.ledger import Ledger

SEED_EXAMPLE = "stopping-condition | seq(2/4) | kind=neither-halt | target=w48-negcap | anchor=ok"
TOOL = "stopping_condition_run"


def steps(*verdicts: str, **extra: Any) -> list[dict[str, Any]]:
    return [
        {"step_id": f"s{i}", "claim": f"claim {i}", "verdict": v, **extra}
        for i, v in enumerate(verdicts)
    ]


def call_all(server: Any, calls: list[dict[str, Any]]) -> tuple[Any, list[Any]]:
    async def go() -> tuple[Any, list[Any]]:
        async with Client(server) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            return tools, [await client.call_tool(TOOL, args) for args in calls]

    return asyncio.run(go())


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    led = Ledger(tmp_path / "server.db")
    yield led
    led.close()


def test_the_seeds_example_anchored_in_the_servers_ledger(ledger: Ledger) -> None:
    tools, (first, second) = call_all(
        build_server(ledger=ledger),
        [
            {
                "steps": steps("TRUE", "TRUE", "NEITHER", "TRUE"),
                "sequence_id": "seq-a",
                "anchor": True,
            },
            {"steps": steps("TRUE", "FALSE"), "sequence_id": "seq-a", "anchor": True},
        ],
    )
    assert not first.is_error and not second.is_error
    out = first.structured_content
    assert out["summary"].encode() == SEED_EXAMPLE.encode()
    assert json.loads(first.content[0].text) == out
    anchor = out["escalation"]["ledger_anchor"]
    assert anchor == {"appended": True, "entryHash": anchor["entryHash"], "entrySeq": 1}
    assert ledger.entries(1)[0].entry_hash == anchor["entryHash"]
    # the second escalation of the sequence names the first
    anchor2 = second.structured_content["escalation"]["ledger_anchor"]
    assert ledger.entries(anchor2["entrySeq"])[0].body[PREVIOUS_KEY] == anchor["entryHash"]
    chain = walk_chain(ledger, "seq-a")
    assert chain.ok and [e.entry_hash for e in chain.entries] == [
        anchor["entryHash"],
        anchor2["entryHash"],
    ]
    schema = output_schemas()[TOOL]
    assert tools[TOOL].output_schema == schema
    assert tools[TOOL].input_schema.get("additionalProperties") is False
    for result in (first, second):
        jsonschema.validate(result.structured_content, schema)


@pytest.mark.parametrize(
    ("verdict", "kind", "target"),
    [
        ("TRUE", "all-clear", "none"),
        ("NEITHER", "neither-halt", "w48-negcap"),
        ("FALSE", "false-violation", "external-oracle"),
        ("ZERO", "zero-void", "human"),
        ("BOTH", "other-nondefinite", "peer-review"),
        ("INFINITY", "other-nondefinite", "peer-review"),
        ("FLOWING", "other-nondefinite", "peer-review"),
        ("SELF", "other-nondefinite", "peer-review"),
    ],
)
def test_each_verdict_without_anchoring(verdict: str, kind: str, target: str) -> None:
    _, (result,) = call_all(build_server(), [{"steps": steps("TRUE", verdict)}])
    esc = result.structured_content["escalation"]
    assert (esc["kind"], esc["target"]) == (kind, target)
    assert "ledger_anchor" not in esc
    assert ledger_free(result)


def ledger_free(result: Any) -> bool:
    return result.structured_content["summary"].endswith(
        "anchor=none" if result.structured_content["escalation"]["kind"] == "all-clear" else "off"
    )


def test_anchoring_on_a_server_without_a_ledger_says_no_anchor_fn() -> None:
    _, (result,) = call_all(build_server(), [{"steps": steps("ZERO"), "anchor": True}])
    anchor = result.structured_content["escalation"]["ledger_anchor"]
    assert anchor == {"appended": False, "reason": "no-anchor-fn"}
    assert result.structured_content["summary"].endswith("anchor=no-anchor-fn")


def test_substeps_payloads_and_the_hold_alias() -> None:
    nested = {
        "step_id": "outer",
        "claim": "agreement",
        "verdict": "TRUE",
        "substeps": steps("TRUE", "SELF", payload={"t": 0.5}),
    }
    _, (result,) = call_all(
        build_server(), [{"steps": [nested, *steps("TRUE")], "target_override": "hold"}]
    )
    out = result.structured_content
    assert out["summary"] == (
        "stopping-condition | seq(0/2) | path=0.1 | kind=other-nondefinite | target=w48-negcap"
        " | anchor=off"
    )
    assert out["escalation"]["boundary"]["step"]["payload"] == {"t": 0.5}


def test_bad_steps_are_tool_errors_naming_the_field_and_empty_steps_an_outcome() -> None:
    _, (bad_verdict, unknown_key, empty) = call_all(
        build_server(),
        [
            {"steps": steps("MAYBE")},
            {"steps": steps("TRUE", colour="red")},
            {"steps": []},
        ],
    )
    assert bad_verdict.is_error and "steps.0.verdict" in bad_verdict.content[0].text
    assert unknown_key.is_error and "colour" in unknown_key.content[0].text
    assert not empty.is_error and empty.structured_content["error"] == "invalid-input"
    assert empty.structured_content["summary"].startswith("stopping-condition | error=")


def test_puzzlekit_mcp_ledger_serves_the_tool_over_stdio(tmp_path: Path) -> None:
    db = tmp_path / "mcp.db"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "puzzlekit", "mcp", "--workers", "1", "--ledger", str(db)],
        cwd=str(Path(__file__).parent.parent),
    )

    async def go() -> Any:
        async with Client(params, read_timeout_seconds=120) as client:
            args = {"steps": steps("TRUE", "TRUE", "NEITHER", "TRUE"), "anchor": True}
            return await client.call_tool(TOOL, {**args, "sequence_id": "s"})

    result = asyncio.run(go())
    assert result.structured_content["summary"] == SEED_EXAMPLE
    with Ledger(db, create=False, readonly=True) as led:
        head = led.checkpoint()
    anchor = result.structured_content["escalation"]["ledger_anchor"]
    assert (anchor["entrySeq"], anchor["entryHash"]) == (head.seq, head.entry_hash)


def test_mcp_ledger_that_is_no_database_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "not.db"
    bad.write_text("this is not a database\n" * 100)
    code = main(["mcp", "--ledger", str(bad)])
    err = capsys.readouterr().err
    assert code == 2 and "--ledger" in err and "Traceback" not in err
