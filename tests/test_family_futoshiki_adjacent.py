"""futoshiki-adjacent: Tatham's Unequal in Adjacent mode (both modes' IDs checked against
Tatham's own solutions), the text format and its partial form, repairs, generation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from puzzlekit.core.model import Instance, SpecError
from puzzlekit.core.report import Verdict
from puzzlekit.families import get_family, resolve
from puzzlekit.generators.base import sample_solution
from puzzlekit.io.inputs import iter_items
from puzzlekit.loop.batch import GenerateConfig, generate
from puzzlekit.quality import parametrize_with_checks
from puzzlekit.verifiers.registry import get_verifier

FAMILY = "futoshiki-adjacent"
SOLVED = Path(__file__).parent / "data" / "tatham" / "unequal_solved.tsv"


def solved_ids() -> list[tuple[str, str]]:
    rows = [line.split("\t") for line in SOLVED.read_text().splitlines() if line[:1] != "#"]
    return [(gid, sol) for gid, sol in rows]


def grid_of(instance: Instance, solution: dict) -> str:
    n = instance.params_dict()["size"]
    return "".join(str(solution[f"r{r + 1}c{c + 1}"]) for r in range(n) for c in range(n))


@parametrize_with_checks([(FAMILY, {"size": 4})], n=1)
def test_check_family_passes(family, check) -> None:
    check(family)


def test_the_data_covers_both_modes() -> None:
    params = [gid.split(":")[1] for gid, _ in solved_ids()]
    assert sum("a" in p for p in params) >= 60
    assert sum("a" not in p for p in params) >= 60


def test_every_unequal_id_is_unique_with_tathams_solution_on_sat() -> None:
    sat = get_verifier("sat")
    for gid, tatham in solved_ids():
        [item] = iter_items(gid, input_format="tatham")
        assert item.instance is not None, (gid, item.violations)
        adjacent = "a" in gid.split(":")[1]
        assert item.instance.family == (FAMILY if adjacent else "futoshiki")
        rep = sat.verify(item.instance)
        assert rep.verdict is Verdict.UNIQUE, gid
        assert grid_of(item.instance, rep.solutions[0]) == tatham, gid


def test_small_adjacent_ids_agree_on_enumerative() -> None:
    enum = get_verifier("enumerative")
    small = [(g, s) for g, s in solved_ids() if g.split(":")[1][:2] in ("4a", "5a")]
    assert len(small) >= 20
    for gid, tatham in small:
        [item] = iter_items(gid, input_format="tatham")
        rep = enum.verify(item.instance)
        assert rep.verdict is Verdict.UNIQUE, gid
        assert grid_of(item.instance, rep.solutions[0]) == tatham, gid


def test_tatham_descriptions_round_trip_exactly() -> None:
    fam = get_family(FAMILY)
    for gid, _ in solved_ids():
        _, params, desc = gid.split(":")
        if "a" not in params:
            continue
        text = f"{params.split('a')[0]}a:{desc}"
        assert fam.format_text(fam.parse_text(text)) == text


def test_a_partial_puzzle_round_trips_through_the_extended_header() -> None:
    fam = get_family(FAMILY)
    gid, _ = next((g, s) for g, s in solved_ids() if ":4a" in g)
    [item] = iter_items(gid, input_format="tatham")
    full = item.instance
    pairs = [c for c in full.clues if c.kind != "given"]
    partial = full.with_clues([c for c in full.clues if c is not pairs[0]])
    text = fam.format_text(partial)
    assert text.startswith("4ap:")
    assert fam.parse_text(text) == partial


@pytest.mark.parametrize(
    "text,violation",
    [
        ("4a:0R," + "0," * 15, "malformed"),  # the bar is written at one cell only
        ("4a:0r,0l," + "0," * 14, "malformed"),  # lower-case flags need the Nap: header
        ("4a:5," + "0," * 15, "out-of-domain"),
        ("4a:0," * 1, "shape-mismatch"),
        ("4a:\u00b2," + "0," * 15, "malformed"),  # a superscript is not a digit
        ("\u0664a:" + "0," * 16, "malformed"),  # nor is an Arabic-Indic four
        ("4a:0U," + "0," * 15, "shape-mismatch"),  # a flag pointing outside the grid
    ],
)
def test_bad_descriptions_name_what_is_wrong(text: str, violation: str) -> None:
    with pytest.raises(SpecError) as err:
        get_family(FAMILY).parse_text(text)
    assert err.value.violations[0].violation_type == violation


def test_a_duplicated_pair_is_a_duplicate_clue() -> None:
    fam = get_family(FAMILY)
    schema = fam.schema({"size": 4})
    sol = sample_solution(schema, np.random.default_rng(1))
    clues = fam.clues_from_solution(schema, sol)
    pair = next(c for c in clues if c.kind != "given")
    flipped = "apart" if pair.kind == "consecutive" else "consecutive"
    twin = type(pair).make(pair.id + "b", flipped, {}, pair.coords)
    rep = get_verifier("sat").verify(Instance.make(FAMILY, {"size": 4}, [*clues, twin]))
    assert rep.verdict is Verdict.INVALID_SPEC
    assert rep.reject_detail.violations[0].violation_type == "duplicate-clue"


def test_repair_moves_keep_every_clue_true() -> None:
    fam = get_family(FAMILY)
    schema = fam.schema({"size": 5})
    rng = np.random.default_rng(3)
    sol = sample_solution(schema, rng)
    givens = [c for c in fam.clues_from_solution(schema, sol) if c.kind == "given"][:3]
    inst = Instance.make(FAMILY, schema.params_dict(), givens)
    actions = set()
    for v in schema.variables:
        for move in fam.repair_moves(schema, inst, sol, v.coord):
            assert resolve(move.apply(inst)).check(sol)
            actions.add(move.action)
    assert actions == {"reveal", "add-pair"}


def test_a_fresh_puzzle_marks_every_pair_as_tatham_does() -> None:
    fam = get_family(FAMILY)
    schema = fam.schema({"size": 5})
    rng = np.random.default_rng(5)
    sol = sample_solution(schema, rng)
    clues = fam.initial_clues(schema, sol, 4, rng)
    assert sum(c.kind == "given" for c in clues) == 4
    assert sum(c.kind != "given" for c in clues) == 2 * 5 * 4
    assert fam.format_text(Instance.make(FAMILY, {"size": 5}, clues)).startswith("5a:")


def test_generate_with_no_holdout_reject() -> None:
    cfg = GenerateConfig(FAMILY, {"size": 5}, count=4, holdout_in_process=True)
    recs = [r for r in generate(cfg) if r["status"] == "accepted"]
    assert len(recs) == 4
    assert all(r["holdoutVerdict"] == "UNIQUE" for r in recs)
