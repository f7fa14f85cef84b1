"""One puzzle, one identity: an instance's clues are held in one canonical order fixed at
construction (``core.identity``), so content alone decides the digest; two clues with one id,
identical duplicates included, are INVALID_SPEC ``duplicate-clue`` at the clue's coordinate."""

from __future__ import annotations

import random

import pytest

import puzzlekit as pk
from puzzlekit.core.identity import canonical_order, natural_key
from puzzlekit.core.model import Clue, Instance
from puzzlekit.core.report import Verdict
from puzzlekit.families import FAMILIES, get_family, register_family, resolve
from puzzlekit.families.latin import Latin
from puzzlekit.verifiers.registry import get_verifier
from tests.helpers import given

SUDOKU4 = "1.3...2." + "3..4.1.."


def test_clues_given_in_any_order_make_one_instance() -> None:
    inst = pk.parse("sudoku", SUDOKU4)
    for seed in range(5):
        clues = list(inst.clues)
        random.Random(seed).shuffle(clues)
        other = Instance.make("sudoku", inst.params_dict(), clues)
        assert other.clues == inst.clues
        assert other.canonical_json() == inst.canonical_json()
        assert other.digest == inst.digest
        assert Instance.from_json_obj(other.to_json_obj()).digest == inst.digest


def test_the_order_is_natural_in_the_ids_so_cells_run_row_by_row() -> None:
    ids = ["r10c1", "r2c10", "r2c9", "r1c1", "cage-r1c2", "row10", "row9", "c01", "c1"]
    clues = [Clue.make(i, "given", {"value": 1}, [(0, 0)]) for i in ids]
    assert [c.id for c in canonical_order(clues)] == [
        "c01",
        "c1",
        "cage-r1c2",
        "r1c1",
        "r2c9",
        "r2c10",
        "r10c1",
        "row9",
        "row10",
    ]


def test_a_digit_run_of_any_length_orders_without_converting_it() -> None:
    long = "9" * 5000  # int() refuses more than 4300 digits
    assert natural_key("c" + long) > natural_key("c" + "1" * 4999)
    assert natural_key("c0007") < natural_key("c8")


def test_clues_with_one_id_are_ordered_by_content() -> None:
    a, b = given(0, 0, 1, "x"), given(0, 0, 2, "x")
    assert Instance.make("latin", {"size": 4}, [a, b]).digest == (
        Instance.make("latin", {"size": 4}, [b, a]).digest
    )


def test_the_loop_s_instances_keep_the_order_when_clues_are_added() -> None:
    inst = Instance.make("latin", {"size": 4}, [given(3, 3, 1), given(0, 0, 2)])
    grown = inst.with_clues([*inst.clues, given(1, 1, 3)])
    assert [c.id for c in grown.clues] == ["r1c1", "r2c2", "r4c4"]
    assert grown.canonical_json() == grown.fresh_canonical_json()


def _violations(inst: Instance, backend: str) -> list[tuple]:
    rep = get_verifier(backend).verify(inst)
    assert rep.verdict is Verdict.INVALID_SPEC
    return [
        (v.violation_type, v.coord, v.field_name)
        for v in rep.reject_detail.violations
        if v.violation_type == "duplicate-clue"
    ]


@pytest.mark.parametrize("backend", ["enumerative", "sat", "bitmask"])
def test_an_identical_duplicate_clue_is_invalid_not_merged(backend: str) -> None:
    clue = given(1, 2, 3)
    inst = Instance.make("latin", {"size": 4}, [clue, given(0, 0, 1), clue])
    assert len(inst.clues) == 3  # kept: the digest is of what was written
    assert _violations(inst, backend) == [("duplicate-clue", (1, 2), "clue r2c3")]


@pytest.mark.parametrize("backend", ["enumerative", "sat", "bitmask"])
def test_two_clues_with_one_id_are_a_duplicate_clue_with_coordinates(backend: str) -> None:
    inst = Instance.make("latin", {"size": 4}, [given(1, 2, 3, "x"), given(3, 0, 2, "x")])
    found = _violations(inst, backend)
    assert len(found) == 1 and found[0][2] == "clue x"
    assert found[0][1] in ((1, 2), (3, 0))


def test_an_identical_duplicate_read_from_json_is_reported_through_the_api() -> None:
    clue = given(0, 1, 2).to_json_obj()
    rep = pk.verify(
        Instance.from_json_obj({"family": "sudoku", "params": {"size": 4}, "clues": [clue, clue]})
    )
    assert rep.verdict is Verdict.INVALID_SPEC
    (v,) = rep.reject_detail.violations
    assert (v.violation_type, v.coord, v.field_name) == ("duplicate-clue", (0, 1), "clue r1c2")
    assert "twice" in v.detail


def test_a_futoshiki_flag_written_twice_is_a_duplicate_not_dropped() -> None:
    inst = get_family("futoshiki").parse_text("2:0RR,0,0,0,")
    assert [c.id for c in inst.clues] == ["r1c1-r1c2", "r1c1-r1c2"]
    rep = pk.verify(inst)
    assert rep.verdict is Verdict.INVALID_SPEC
    assert rep.reject_detail.violations[0].violation_type == "duplicate-clue"


class NoIdCheck(Latin):
    """validate_clues overridden without calling the default."""

    info = Latin.info.replace(name="latin-no-id-check")

    def validate_clues(self, schema, clues):
        return []


def test_duplicate_ids_are_caught_when_a_family_override_forgets_them() -> None:
    register_family(NoIdCheck(), replace=True)
    try:
        inst = Instance.make(NoIdCheck.info.name, {"size": 4}, [given(0, 0, 1), given(0, 0, 1)])
        with pytest.raises(pk.SpecError) as err:
            resolve(inst)
    finally:
        FAMILIES.unregister(NoIdCheck.info.name)
    assert [v.violation_type for v in err.value.violations] == ["duplicate-clue"]


def test_a_corpus_recorded_before_the_canonical_order_is_read_and_updated(tmp_path) -> None:
    import json

    from puzzlekit.quality.golden.corpus import GoldenEntry, load_corpus, regress, write_corpus
    from puzzlekit.quality.golden.entries import content_digest, written_digest

    inst = pk.parse("sudoku", SUDOKU4)
    entry = GoldenEntry.record("unique", "", inst, "enumerative", 8, pk.verify(inst))
    old = entry.to_json_obj()
    old["instance"]["clues"].reverse()  # the order a puzzle was built in, as written before
    old["instanceDigest"] = written_digest(old["instance"])
    old["report"]["instanceDigest"] = old["instanceDigest"]
    old["reportDigest"] = content_digest(old["report"])
    path = tmp_path / "sudoku-4x4.jsonl"
    path.write_text(json.dumps(old) + "\n")
    (read,) = load_corpus(path)
    assert read.instance.digest == inst.digest != old["instanceDigest"]
    assert not regress(tmp_path).ok  # shown as changed: the recorded digest is not canonical
    assert regress(tmp_path, update=True).updated == {"sudoku-4x4": 1}
    assert regress(tmp_path).ok
    (fresh,) = load_corpus(path)
    assert fresh.report["instanceDigest"] == inst.digest
    write_corpus(tmp_path / "copy.jsonl", [fresh])
    assert (tmp_path / "copy.jsonl").read_bytes() == path.read_bytes()
