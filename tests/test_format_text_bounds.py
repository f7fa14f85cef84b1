"""A family's ``format_text`` on an instance whose clue lies outside the grid: a SpecError at the
clue (``shape-mismatch``, as ``verify`` reports the same instance), never an IndexError, and
never a line with the clue written into another cell (a negative coordinate)."""

from __future__ import annotations

import pytest

import puzzlekit as pk
from puzzlekit.core.model import Clue, Instance, SpecError
from puzzlekit.families import get_family

#: family -> the params of a small instance of each family that writes its grid in a line
GRIDS = {
    "sudoku": {"size": 4},
    "latin": {"size": 4},
    "sudoku-jigsaw": {"size": 4},
    "futoshiki": {"size": 4},
    "futoshiki-adjacent": {"size": 4},
    "skyscrapers": {"size": 4},
    "kakuro": {"rows": 5, "cols": 5, "seed": 1},
    "sudoku-killer": {"size": 4},
}


@pytest.mark.parametrize("coord", [(9, 9), (-1, 0), (0, -1)])
@pytest.mark.parametrize("family", sorted(GRIDS))
def test_a_given_outside_the_grid_is_named_at_its_clue(family: str, coord: tuple) -> None:
    fam = get_family(family)
    params = fam.normalize_params(GRIDS[family])
    bad = Instance.make(family, params, [Clue.make("x", "given", {"value": 1}, [coord])])
    with pytest.raises(SpecError) as got:
        fam.format_text(bad)
    (v,) = got.value.violations
    assert (v.violation_type, v.coord, v.field_name) == ("shape-mismatch", coord, "clue x")
    assert "outside the" in v.detail
    report = pk.verify(bad)  # the same instance as verify reads it
    assert report.verdict is pk.Verdict.INVALID_SPEC


def test_an_inequality_to_a_cell_outside_is_named_at_its_clue() -> None:
    fam = get_family("futoshiki")
    clue = Clue.make("i", "inequality", {"op": ">"}, [(3, 3), (3, 4)])
    bad = Instance.make("futoshiki", {"size": 4}, [clue])
    with pytest.raises(SpecError) as got:
        fam.format_text(bad)
    assert [(v.coord, v.field_name) for v in got.value.violations] == [((3, 4), "clue i")]


@pytest.mark.parametrize(("game", "params"), [("owm-tictactoe", {}), ("owm-nim", {"heaps": 3})])
def test_a_game_without_its_position_is_a_spec_error(game: str, params: dict) -> None:
    fam = get_family(game)
    params = fam.normalize_params(params)
    with pytest.raises(SpecError) as got:
        fam.format_text(Instance.make(game, params, []))
    assert "exactly one position clue" in got.value.violations[0].detail
