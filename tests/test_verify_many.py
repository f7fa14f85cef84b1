"""``pk.verify_many``: the report of each item equals ``pk.verify``'s (``stats.seconds`` aside),
on a mixed batch of lines and instances, batched and not, within the budget and past it; a line
that does not read is INVALID_SPEC at its position."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given as hgiven
from hypothesis import settings
from hypothesis import strategies as st

import puzzlekit as pk
from puzzlekit.core.model import Instance, SpecError, sha256_digest
from puzzlekit.core.protocols import SearchBudget

DATA = Path(__file__).parent / "data"
GOLDEN = Path(__file__).parent / "golden"


def _content(rep: pk.VerifierReport) -> dict:
    obj = rep.to_json_obj()
    for key in ("seconds", "conflictSeconds"):
        obj["stats"].pop(key, None)
    spent = (obj.get("rejectDetail") or {}).get("budget")
    if spent:
        spent.pop("seconds", None)  # the time an UNDECIDED search ran
    return obj


def _one(item: Instance | str, **kw) -> dict:
    """What ``pk.verify`` says of an item; a line that does not read: the INVALID_SPEC report
    ``puzzlekit verify`` prints for it."""
    if isinstance(item, str) and item.startswith("{"):
        item = Instance.from_json(item)
    if isinstance(item, str):
        try:
            item = pk.parse("sudoku", item)
        except SpecError as exc:
            from puzzlekit.verifiers.base import invalid_report, source

            digest = sha256_digest(item.strip().encode("utf-8"))
            cap = kw.get("solution_cap", 100)
            return _content(invalid_report(digest, exc.violations, source("input", "1"), cap))
    return _content(pk.verify(item, **kw))


def _golden(name: str) -> list[Instance]:
    lines = (GOLDEN / f"{name}.jsonl").read_text().splitlines()
    return [Instance.from_json_obj(json.loads(line)["instance"]) for line in lines]


@pytest.fixture(scope="module")
def mixed() -> list[Instance | str]:
    seventeen = (DATA / "sudoku9_17clue_sample.txt").read_text().split()[:12]
    hard = (DATA / "sudoku9_top1465_sample.txt").read_text().split()[:6]
    sixteen = seventeen[0].replace(next(ch for ch in seventeen[0] if ch != "."), ".", 1)
    clash = "11" + seventeen[1][2:]
    items: list[Instance | str] = [*seventeen[:4], "x" * 81, sixteen, clash, "123"]
    items += [pk.parse("sudoku", line) for line in hard]  # instances, batched
    items += _golden("sudoku-killer-4x4")[:3]  # cages: one at a time
    items += _golden("sudoku-9x9")[:3]  # JSON instances with clue objects
    items += [*seventeen[4:], "." * 81]
    return items


def test_reports_equal_pk_verify_on_a_mixed_batch(mixed) -> None:
    many = pk.verify_many(mixed, "sudoku")
    assert len(many) == len(mixed)
    assert [_content(r) for r in many] == [_one(item) for item in mixed]
    verdicts = {r.verdict.value for r in many}
    assert {"UNIQUE", "MULTIPLE", "UNSOLVABLE", "INVALID_SPEC"} <= verdicts
    assert many[4].verdict is pk.Verdict.INVALID_SPEC  # at its position
    assert many[7].verdict is pk.Verdict.INVALID_SPEC


def test_reports_equal_pk_verify_past_the_budget(mixed) -> None:
    """A search that needs more nodes than the budget is UNDECIDED in both, with the same nodes
    and partial solutions."""
    budget = SearchBudget(nodes=40)
    many = pk.verify_many(mixed, "sudoku", budget=budget, solution_cap=5)
    assert [_content(r) for r in many] == [
        _one(item, budget=budget, solution_cap=5) for item in mixed
    ]
    assert any(r.verdict is pk.Verdict.UNDECIDED for r in many)


def test_a_batch_is_searched_in_one_call(monkeypatch, mixed) -> None:
    """The bitmask instances of a batch go through one compiled call, not one verify each
    (9×9 grid lines: one call that starts and band-searches them all)."""
    from puzzlekit.verifiers.bitmask import line as bitmask_line
    from puzzlekit.verifiers.bitmask import search as bitmask_search

    calls = []

    def counting(real):
        def call(starts, *args):
            calls.append(starts.shape[0])
            return real(starts, *args)

        return call

    for name in ("search_many", "search_many9", "search_many_band9"):  # the kernels
        monkeypatch.setattr(bitmask_search, name, counting(getattr(bitmask_search, name)))
    monkeypatch.setattr(bitmask_line, "_band9_many", counting(bitmask_line._band9_many))
    lines = (DATA / "sudoku9_17clue_sample.txt").read_text().split()[:20]
    pk.verify_many(lines, "sudoku")
    assert calls == [20]
    calls.clear()
    # 4×4: the general kernel
    pk.verify_many(["1" + "." * 15, "..2" + "." * 13], "sudoku", {"size": 4})
    assert calls == [2]


def test_a_misspelt_extra_is_named_on_the_batched_path_too() -> None:
    lines = ["1" + "." * 15, "..2" + "." * 13]  # two bitmask puzzles: one batched call
    with pytest.raises(ValueError, match="unknown report extra 'forcedcells'"):
        pk.verify_many(lines, "sudoku", {"size": 4}, extras=("forcedcells",))
    with pytest.raises(ValueError, match="unknown report extra 'forcedcells'"):
        pk.verify_many(lines[:1], "sudoku", {"size": 4}, extras=("forcedcells",))


def test_items_other_than_lines_and_instances_are_refused() -> None:
    with pytest.raises(TypeError):
        pk.verify_many([42])


def test_cli_verify_of_a_file_prints_pk_verifys_reports(tmp_path, capsys, mixed) -> None:
    """``puzzlekit verify FILE`` reads a file a chunk at a time and batches the searches; each
    line it prints is the report of that line alone."""
    from puzzlekit.app.cli import main

    lines = [item if isinstance(item, str) else item.to_json() for item in mixed]
    path = tmp_path / "mixed.txt"
    path.write_text("\n".join(lines) + "\n")
    assert main(["verify", str(path), "--family", "sudoku", "--format", "json", "--quiet"]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    want = [_one(item) for item in lines]
    for obj in printed:
        for key in ("seconds", "conflictSeconds"):
            obj["stats"].pop(key, None)
    assert printed == want


@st.composite
def _lines(draw: st.DrawFn) -> list[str]:
    """Random 4×4 and 9×9 lines: few clues (MULTIPLE), clashes (UNSOLVABLE), full grids of
    random digits, stray characters (INVALID_SPEC)."""
    out = []
    for _ in range(draw(st.integers(1, 12))):
        size = draw(st.sampled_from([4, 9]))
        cells = draw(st.lists(st.tuples(st.integers(0, 80), st.integers(1, 9)), max_size=25))
        chars = ["."] * (size * size)
        for i, v in cells:
            chars[i % (size * size)] = str(min(v, size))
        if draw(st.integers(0, 9)) == 0:
            chars[draw(st.integers(0, size * size - 1))] = "x"
        out.append("".join(chars))
    return out


@settings(max_examples=40, deadline=None)
@hgiven(_lines())
def test_random_batches_equal_pk_verify(lines: list[str]) -> None:
    assert [_content(r) for r in pk.verify_many(lines, "sudoku")] == [_one(x) for x in lines]
