"""futoshiki: contract, Tatham unequal import, text round trip, repairs, generation, rendering."""

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

FAMILY = "futoshiki"
PARAMS = {"size": 4}
DATA = Path(__file__).parent / "data" / "tatham" / "unequal.txt"


@parametrize_with_checks([(FAMILY, PARAMS)], n=1)
def test_check_family_passes(family, check) -> None:
    check(family)


def test_tatham_unequal_ids_verify_unique_on_both_backends() -> None:
    items = list(iter_items(DATA.read_text(), input_format="tatham"))
    assert len(items) >= 8
    for item in items:
        assert item.instance is not None, item.violations
        assert item.instance.family == FAMILY
        for backend in ("sat", "enumerative"):
            rep = get_verifier(backend).verify(item.instance)
            assert rep.verdict is Verdict.UNIQUE, (backend, item.position)


def test_unequal_description_round_trips_through_the_text_format() -> None:
    fam = get_family(FAMILY)
    for line in DATA.read_text().splitlines():
        if line.startswith("unequal:"):
            params, _, desc = line.removeprefix("unequal:").partition(":")
            text = f"{int(params.rstrip('dtekxr'))}:{desc}"
            assert fam.format_text(fam.parse_text(text)) == text


def test_adjacent_mode_ids_go_to_the_adjacent_family() -> None:
    items = list(iter_items("unequal:4a:1D,4,0RD,0DL,", input_format="tatham"))
    assert items[0].instance is None  # four cells of sixteen
    assert items[0].violations[0].violation_type == "shape-mismatch"
    with pytest.raises(SpecError, match="futoshiki-adjacent"):
        get_family(FAMILY).parse_text("4a:" + "0," * 16)


def test_repair_moves_keep_every_clue_true() -> None:
    fam = get_family(FAMILY)
    schema = fam.schema({"size": 5})
    rng = np.random.default_rng(3)
    sol = sample_solution(schema, rng)
    inst = Instance.make(FAMILY, schema.params_dict(), fam.initial_clues(schema, sol, 3, rng))
    actions = set()
    for v in schema.variables:
        for move in fam.repair_moves(schema, inst, sol, v.coord):
            assert v.coord in {tuple(c) for clue in move.add for c in clue.coords}
            assert resolve(move.apply(inst)).check(sol)
            actions.add(move.action)
    assert actions == {"reveal", "add-inequality"}


@pytest.mark.parametrize("strategy,clues", [("adaptive", None), ("blind", 14)])
def test_generate_five_with_no_holdout_reject(strategy: str, clues: int | None) -> None:
    cfg = GenerateConfig(
        FAMILY, PARAMS, count=5, strategy=strategy, clues=clues, holdout_in_process=True
    )
    recs = [r for r in generate(cfg) if r["status"] == "accepted"]
    assert len(recs) == 5
    assert all(r["holdoutVerdict"] == "UNIQUE" for r in recs)


def test_ascii_marks_the_reject_coordinates() -> None:
    fam = get_family(FAMILY)
    inst = fam.parse_text("4:0,0,0,0,0,0,0,0D,0R,0U,0,0,0U,0,0,0,")
    rep = get_verifier("sat").verify(inst.with_clues(inst.clues[:1]), solution_cap=4)
    coords = [tuple(g.coord) for g in rep.reject_detail.discriminative_gap]
    art = fam.render_ascii(inst, None, {coords[0]: "?"})
    assert "?" in art and ">" in art and "^" in art and "v" in art
