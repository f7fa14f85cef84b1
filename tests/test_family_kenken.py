"""kenken: contract, Tatham keen import, text round trip, cage encodings, repairs, generation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from puzzlekit.core.model import Instance
from puzzlekit.core.report import Verdict
from puzzlekit.families import get_family, resolve
from puzzlekit.families.kenken import pair_tuples, product_tuples
from puzzlekit.generators.base import sample_solution
from puzzlekit.io.inputs import iter_items
from puzzlekit.loop.batch import GenerateConfig, generate
from puzzlekit.quality import parametrize_with_checks
from puzzlekit.verifiers.registry import get_verifier

FAMILY = "kenken"
PARAMS = {"size": 4}
DATA = Path(__file__).parent / "data" / "tatham" / "keen.txt"


@parametrize_with_checks([(FAMILY, PARAMS)], n=1)
def test_check_family_passes(family, check) -> None:
    check(family)


def test_tatham_keen_ids_verify_unique_on_both_backends() -> None:
    items = list(iter_items(DATA.read_text(), input_format="tatham"))
    assert len(items) >= 8
    for item in items:
        assert item.instance is not None, item.violations
        for backend in ("sat", "enumerative"):
            rep = get_verifier(backend).verify(item.instance)
            assert rep.verdict is Verdict.UNIQUE, (backend, item.position)


def test_keen_description_round_trips_through_the_text_format() -> None:
    fam = get_family(FAMILY)
    for line in DATA.read_text().splitlines():
        if line.startswith("keen:"):
            params, _, desc = line.removeprefix("keen:").partition(":")
            text = f"{int(params.rstrip('denhxu'))}:{desc}"
            assert fam.format_text(fam.parse_text(text)) == text


def test_cage_tables_hold_exactly_the_true_tuples() -> None:
    assert pair_tuples(4, "/", 2) == {(1, 2), (2, 1), (2, 4), (4, 2)}
    assert pair_tuples(4, "-", 3) == {(1, 4), (4, 1)}
    # an L-shaped cage: the corner shares a row and a column with the others
    table = product_tuples([(0, 0), (0, 1), (1, 0)], 4, 4)
    assert table == {(1, 2, 2), (4, 1, 1)}


def test_a_product_cage_too_large_to_tabulate_is_a_rule_checked_within_the_budget() -> None:
    """A 9-cell product cage of a 9×9 grid has 651,960 tuples: it is not listed (reading it
    stays cheap), it becomes a product rule, and the default verifier answers within its
    budget with solutions whose cage has the product."""
    import math
    import time

    from puzzlekit import verify
    from puzzlekit.core.protocols import SearchBudget

    block = [(r, c) for r in range(3) for c in range(3)]
    start = time.perf_counter()
    assert product_tuples(block, 9, math.factorial(9)) is None
    assert product_tuples(block[:3], 9, 24) is not None  # a small cage is still a table
    inst = Instance.from_json_obj(
        {
            "family": FAMILY,
            "params": {"size": 9},
            "clues": [
                {
                    "id": "c",
                    "kind": "cage",
                    "data": {"op": "*", "target": math.factorial(9)},
                    "coords": [list(c) for c in block],
                }
            ],
        }
    )
    rep = verify(inst, budget=SearchBudget(nodes=None, seconds=2.0))
    assert time.perf_counter() - start < 1.5 * 2 + 1
    assert rep.verdict in (Verdict.MULTIPLE, Verdict.UNDECIDED)
    for sol in rep.solutions:
        assert math.prod(sol[f"r{r + 1}c{c + 1}"] for r, c in block) == math.factorial(9)


def test_a_two_cell_minus_cage_on_three_cells_is_invalid_spec() -> None:
    inst = Instance.from_json_obj(
        {
            "family": FAMILY,
            "params": {"size": 4},
            "clues": [
                {
                    "id": "c",
                    "kind": "cage",
                    "data": {"op": "-", "target": 1},
                    "coords": [[0, 0], [0, 1], [0, 2]],
                }
            ],
        }
    )
    assert get_verifier("sat").verify(inst).verdict is Verdict.INVALID_SPEC


def test_repair_moves_reveal_and_split_keep_every_clue_true() -> None:
    fam = get_family(FAMILY)
    schema = fam.schema({"size": 5})
    rng = np.random.default_rng(5)
    sol = sample_solution(schema, rng)
    inst = Instance.make(FAMILY, schema.params_dict(), fam.initial_clues(schema, sol, 14, rng))
    cells = sorted(tuple(c) for clue in inst.clues for c in clue.coords)
    assert cells == [v.coord for v in schema.variables]  # the layout covers the grid once
    assert resolve(inst).check(sol)
    actions = set()
    for v in schema.variables:
        for move in fam.repair_moves(schema, inst, sol, v.coord):
            assert resolve(move.apply(inst)).check(sol)
            actions.add(move.action)
        for move in fam.merge_moves(schema, inst, sol, v.coord):
            assert resolve(move.apply(inst)).check(sol)
            actions.add(move.action)
    assert actions == {"reveal", "split", "merge"}


@pytest.mark.parametrize("strategy", ["adaptive", "blind"])
def test_generate_five_with_no_holdout_reject(strategy: str) -> None:
    cfg = GenerateConfig(FAMILY, PARAMS, count=5, strategy=strategy, holdout_in_process=True)
    recs = [r for r in generate(cfg) if r["status"] == "accepted"]
    assert len(recs) == 5
    assert all(r["holdoutVerdict"] == "UNIQUE" for r in recs)


def test_ascii_draws_cages_and_marks() -> None:
    fam = get_family(FAMILY)
    inst = fam.parse_text("4:a_a__a_a__a__a_aa,m4a5a3s1d2s2m12d2")
    art = fam.render_ascii(inst, None, {(0, 0): "?"})
    assert "?" in art and "cage-r1c1: 4*" in art
