"""The takuzu family: puzzlekit's family contract, the rules, the text format, the renderings."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from puzzlekit.core.model import Instance, SpecError
from puzzlekit.families import get_family
from puzzlekit.quality.checks import check_family

from puzzlekit_takuzu import TAKUZU, Takuzu
from puzzlekit_takuzu.lines import line_patterns, rule_specs

from .helpers import parse, valid_line


@pytest.mark.parametrize(
    "params", Takuzu.info.listed_params, ids=lambda p: f"{p['size']}x{p['size']}"
)
def test_family_keeps_the_puzzlekit_family_contract(params):
    summary = check_family(TAKUZU, params)
    assert summary.instances > 0
    # sat and the plugin's own verifier both read the rules (nothing declined)
    assert summary.reports["sat"] == summary.reports["enumerative"] - 2
    assert summary.reports["takuzu-lines"] == summary.reports["sat"]


def test_the_family_is_registered_under_its_name():
    assert get_family("takuzu") is TAKUZU


@pytest.mark.parametrize("n", [4, 6])
def test_the_line_rule_accepts_exactly_the_balanced_lines_without_three_in_a_run(n):
    words = [w for w in itertools.product((0, 1), repeat=n) if valid_line(w)]
    assert [int("".join(map(str, w)), 2) for w in words] == list(line_patterns(n))
    schema = TAKUZU.schema({"size": n})
    row1 = next(r for r in schema.rules if r.origin.id == "row1")
    for w in itertools.product((0, 1), repeat=n):
        assert row1.holds({f"r1c{c + 1}": v for c, v in enumerate(w)}) == valid_line(w)


def test_the_distinct_rule_holds_exactly_when_two_lines_differ():
    schema = TAKUZU.schema({"size": 4})
    rule = next(r for r in schema.rules if r.origin.id == "distinct-col2-col4")
    for a, b in itertools.product(itertools.product((0, 1), repeat=4), repeat=2):
        sol = {f"r{r + 1}c2": a[r] for r in range(4)} | {f"r{r + 1}c4": b[r] for r in range(4)}
        assert rule.holds(sol) == (a != b)


def test_rule_ids_and_coords_name_the_lines_they_speak_of():
    schema = TAKUZU.schema({"size": 6})
    ids = [r.origin.id for r in schema.rules]
    assert ids == [s.id for s in rule_specs(6)]
    assert len(ids) == 12 + 2 * 15
    by_id = {r.origin.id: r for r in schema.rules}
    assert by_id["col3"].origin.coords == tuple((r, 2) for r in range(6))
    assert set(by_id["distinct-row2-row5"].origin.coords) == {
        (r, c) for r in (1, 4) for c in range(6)
    }


@pytest.mark.parametrize("n", [4, 6, 8, 12])
def test_sample_solution_draws_valid_grids_and_one_seed_gives_one_grid(n):
    schema = TAKUZU.schema({"size": n})
    grids = [TAKUZU.sample_solution(schema, np.random.default_rng(s)) for s in (1, 2, 1)]
    assert grids[0] == grids[2]
    for grid in grids:
        assert all(rule.holds(grid) for rule in schema.rules)


@pytest.mark.parametrize(
    "params,field",
    [({"size": 5}, "params.size"), ({"size": 18}, "params.size"), ({"size": "6"}, "params.size")],
)
def test_unusable_params_name_the_param(params, field):
    with pytest.raises(SpecError) as err:
        TAKUZU.schema(params)
    assert [v.field_name for v in err.value.violations] == [field]


def test_an_unknown_param_is_an_unknown_field():
    with pytest.raises(SpecError) as err:
        TAKUZU.schema({"size": 6, "colour": 1})
    assert err.value.violations[0].violation_type == "unknown-field"


def test_the_text_format_round_trips_and_infers_the_size():
    line = "1.0.......1....0"
    inst = parse(line)
    assert inst.params_dict() == {"size": 4}
    assert {(c.coords[0], c.data_dict()["value"]) for c in inst.clues} == {
        ((0, 0), 1),
        ((0, 2), 0),
        ((2, 2), 1),
        ((3, 3), 0),
    }
    assert TAKUZU.format_text(inst) == line


@pytest.mark.parametrize(
    "text,vtype,field",
    [
        ("1.0", "shape-mismatch", "line"),
        ("1.0.2.......1...", "malformed", "r2c1"),
        ("1.0......", "malformed", "params.size"),
        ("", "malformed", "line"),
    ],
)
def test_bad_text_is_a_spec_error_naming_where(text, vtype, field):
    with pytest.raises(SpecError) as err:
        TAKUZU.parse_text(text)
    assert (err.value.violations[0].violation_type, err.value.violations[0].field_name) == (
        vtype,
        field,
    )


def test_text_that_disagrees_with_the_size_given_is_refused():
    with pytest.raises(SpecError) as err:
        TAKUZU.parse_text("." * 16, {"size": 6})
    assert err.value.violations[0].field_name == "params.size"


def test_repair_moves_reveal_a_cell_and_change_a_false_given():
    schema = TAKUZU.schema({"size": 4})
    solution = TAKUZU.sample_solution(schema, np.random.default_rng(0))
    empty = Instance.make("takuzu", {"size": 4}, [])
    (reveal,) = TAKUZU.repair_moves(schema, empty, solution, (1, 2))
    assert reveal.action == "reveal" and reveal.add[0].data_dict()["value"] == solution["r2c3"]
    false = TAKUZU.given((1, 2), 1 - solution["r2c3"])
    (change,) = TAKUZU.repair_moves(schema, empty.with_clues([false]), solution, (1, 2))
    assert change.action == "change" and change.remove == ("r2c3",)
    assert change.apply(empty.with_clues([false])).clues == reveal.add
    true = reveal.add[0]
    assert TAKUZU.repair_moves(schema, empty.with_clues([true]), solution, (1, 2)) == []


def test_ascii_rendering_shows_givens_solution_values_and_marks():
    inst = parse("1.0.......1....0")
    text = TAKUZU.render_ascii(inst)
    assert text.splitlines()[1] == "| 1 . 0 . |"
    solution = {f"r{r + 1}c{c + 1}": 0 for r in range(4) for c in range(4)}
    marked = TAKUZU.render_ascii(inst, solution, marks={(0, 1): "?"})
    assert marked.splitlines()[1] == "| 1  0? 0  0 |"


def test_matplotlib_rendering_draws_one_circle_per_known_cell():
    import matplotlib

    matplotlib.use("Agg")
    inst = parse("1.0.......1....0")
    ax = TAKUZU.render(inst, marks={(0, 1): "?"})
    circles = [p for p in ax.patches if type(p).__name__ == "Circle"]
    assert len(circles) == 4
    import matplotlib.pyplot as plt

    plt.close(ax.figure)
