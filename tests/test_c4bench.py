"""The Connect Four benchmark's plumbing (no timing asserted): the peer driver's answers are
read line by line and checked against the committed scores, each side's figures are reported
per band, and a driver that answers out of turn is an error, not a silent figure."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from benchmarks import c4bench

DATA = Path(__file__).parent / "data/connect4/positions.json"

#: a stand-in driver: answers every move string with the scores given in its table (the
#: committed ones, one of them spoiled), 5 nodes, 10 µs wall and 7 µs CPU
FAKE = """
import json, sys
table = json.loads(sys.argv[1])
for line in sys.stdin:
    m = line.strip()
    s = [table[m].get(str(c), -1000) for c in range(1, 8)]
    print(m, *s, 5, 10.0, 7.0, flush=True)
"""


def _subset(tmp_path: Path) -> tuple[Path, list[dict]]:
    positions = json.loads(DATA.read_text())["positions"]
    chosen = [p for p in positions if p["band"] == "late"][:4]
    path = tmp_path / "positions.json"
    path.write_text(json.dumps({"positions": chosen}))
    return path, chosen


def _driver(tmp_path: Path, table: dict) -> str:
    script = tmp_path / "fake_driver.py"
    script.write_text(FAKE)
    return shlex.join([sys.executable, str(script), json.dumps(table)])


def test_the_peer_is_timed_and_checked_beside_ours(tmp_path: Path) -> None:
    path, chosen = _subset(tmp_path)
    table = {p["moves"]: dict(p["moveScores"]) for p in chosen}
    spoiled = chosen[1]["moves"]
    col = next(iter(table[spoiled]))
    table[spoiled][col] += 1
    res = c4bench.run(path, with_bitbully=False, pons=_driver(tmp_path, table), rounds=2)
    assert res["wrong"] == [] and res["peerWrong"] == [spoiled]
    late = res["bands"]["late"]
    assert late["positions"] == 4
    assert late["pons"]["medianCpu"] == pytest.approx(7e-6)
    assert late["pons"]["medianWall"] == pytest.approx(1e-5)
    assert late["ratioToPonsCpu"] == pytest.approx(late["ours"]["medianCpu"] / 7e-6)
    assert late["verdict"]["medianCpu"] > 0 and "loadAtEnd" in res and res["rounds"] == 2


def test_a_driver_answering_another_position_is_an_error(tmp_path: Path) -> None:
    path, chosen = _subset(tmp_path)
    table = {p["moves"]: dict(p["moveScores"]) for p in chosen}
    script = tmp_path / "wrong_driver.py"
    script.write_text("import sys\nfor line in sys.stdin:\n    print('4', *[0] * 7, 1, 1, 1)\n")
    with pytest.raises(RuntimeError, match="the driver answered"):
        c4bench.pons_pass(shlex.join([sys.executable, str(script)]), list(table))


def test_the_command_fails_when_the_peer_disagrees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, chosen = _subset(tmp_path)
    table = {p["moves"]: dict(p["moveScores"]) for p in chosen}
    argv = ["--data", str(path), "--bands", "late", "--no-bitbully", "--pons"]
    assert c4bench.main([*argv, _driver(tmp_path, table)]) == 0
    assert json.loads(capsys.readouterr().out)["peerWrong"] == []
    spoiled = chosen[2]["moves"]
    col = next(iter(table[spoiled]))
    table[spoiled][col] -= 1
    assert c4bench.main([*argv, _driver(tmp_path, table)]) == 1
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["peerWrong"] == [spoiled] and out["wrong"] == []
    assert "1 of the peer's answers disagree" in captured.err


def test_node_counts_cover_a_fixed_set_of_early_positions() -> None:
    moves = c4bench.early_positions(DATA, 16, 3)
    assert moves == c4bench.early_positions(DATA, 16, 3) and len(moves) == 3
    assert all(len(m) == 16 for m in moves)
    res = c4bench.node_counts(DATA, 16, 3)
    assert [p["moves"] for p in res["positions"]] == moves
    assert res["nodes"] == sum(p["nodes"] for p in res["positions"]) > 0
