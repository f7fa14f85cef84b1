"""Prompts and answer parsing: every built-in family renders a puzzle with its rules, the puzzle
and the answer format, and an answer written in that format reads back to the solution and is
judged CORRECT; templates are overridable; a plugin family gets a default from its text format."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

import puzzlekit as pk
from puzzlekit.answers import Unreadable
from puzzlekit.answers.prompts import STYLES, layout_of, rules_of
from puzzlekit.core.model import (
    AllDifferent,
    Clue,
    Constraint,
    Instance,
    Linear,
    Origin,
    Schema,
    Solution,
    Variable,
)
from puzzlekit.core.protocols import Family, FamilyInfo
from puzzlekit.core.solutions import random_solution
from puzzlekit.families import FAMILIES, default_params, register_family

BUILTIN = sorted(
    name for name, fam in FAMILIES.items() if type(fam).__module__.startswith("puzzlekit.")
)


def _puzzle(family: Family) -> tuple[Instance, Solution]:
    """A puzzle of the family's default schema and one of its solutions (seeded)."""
    schema = family.schema(default_params(family))
    rng = np.random.default_rng(3)
    solution = family.sample_solution(schema, rng) or random_solution(schema, rng)
    clues = family.initial_clues(schema, solution, len(schema.variables) // 3, rng)
    return Instance.make(family.info.name, schema.params_dict(), clues), dict(solution)


@pytest.fixture(scope="module")
def puzzles() -> dict[str, tuple[Instance, Solution]]:
    return {name: _puzzle(FAMILIES.get(name)) for name in BUILTIN}


def test_every_builtin_family_is_covered() -> None:
    assert len(BUILTIN) >= 17 and {"sudoku", "logicgrid", "owm-nim", "toolcall"} <= set(BUILTIN)


@pytest.mark.parametrize("name", BUILTIN)
@pytest.mark.parametrize("style", STYLES)
def test_answer_in_the_stated_format_reads_back_and_is_correct(
    name: str, style: str, puzzles: dict
) -> None:
    family = FAMILIES.get(name)
    instance, solution = puzzles[name]
    prompt = family.prompt(instance, style=style)
    schema = family.schema(instance.params_dict())
    assert family.prompt_puzzle(instance) in prompt
    if style != "brief":
        assert rules_of(family, schema) in prompt
    assert "Answer format:" in prompt and "$" not in prompt.replace("$$", "")
    answer = family.format_answer(instance, solution, style=style)
    completion = f"Let me think about it.\n1 2 3 is not it.\n\nFinal answer:\n{answer}\n"
    assert family.parse_answer(completion, instance) == solution
    report = pk.check_answer(instance, completion)
    assert report.verdict is pk.AnswerVerdict.CORRECT, report.violations


def test_rules_name_the_params() -> None:
    sudoku = FAMILIES.get("sudoku")
    text = rules_of(sudoku, sudoku.schema({"size": 6, "box": [2, 3]}))
    assert "6×6" in text and "2×3" in text and "{" not in text


def test_layouts_follow_the_schema(puzzles: dict) -> None:
    kinds = {n: layout_of(FAMILIES.get(n), FAMILIES.get(n).schema(default_params(FAMILIES.get(n))))
             for n in ("sudoku", "kakuro", "logicgrid", "toolcall", "owm-nim")}  # fmt: skip
    assert {n: lay.kind for n, lay in kinds.items()} == {
        "sudoku": "grid", "kakuro": "sparse", "logicgrid": "fields", "toolcall": "fields",
        "owm-nim": "move",
    }  # fmt: skip


def test_logicgrid_answers_name_values(puzzles: dict) -> None:
    instance, solution = puzzles["logicgrid"]
    family = FAMILIES.get("logicgrid")
    text = family.format_answer(instance, solution)
    assert '"color@1": "' in text  # a value's name, not its index
    assert "house" in family.prompt(instance)  # the categories are shown


def test_wrong_answer_in_the_format_is_incorrect(puzzles: dict) -> None:
    instance, solution = puzzles["sudoku"]
    family = FAMILIES.get("sudoku")
    lines = family.format_answer(instance, solution).splitlines()
    swapped = lines[1] + "\n" + lines[0] + "\n" + "\n".join(lines[2:])
    assert pk.check_answer(instance, swapped).verdict is not pk.AnswerVerdict.CORRECT


def test_unreadable_answer_says_why(puzzles: dict) -> None:
    instance, _ = puzzles["sudoku"]
    with pytest.raises(Unreadable, match="no grid of 81 cells"):
        FAMILIES.get("sudoku").parse_answer("I give up.", instance)
    with pytest.raises(Unreadable, match="no move found"):
        FAMILIES.get("owm-nim").parse_answer("I give up.", puzzles["owm-nim"][0])


def test_template_overridable_per_call_and_per_family(puzzles: dict) -> None:
    instance, _ = puzzles["latin"]
    latin = FAMILIES.get("latin")
    assert latin.prompt(instance, template="[$family] $answer_format").startswith("[latin] ")

    class Terse(type(latin)):  # type: ignore[misc]
        info = type(latin).info.replace(
            prompt_templates={"plain": "Q: $puzzle", "oneline": "$family!"}
        )

    terse = Terse()
    assert terse.prompt(instance) == "Q: " + latin.prompt_puzzle(instance)
    assert terse.prompt(instance, style="oneline") == "latin!"
    with pytest.raises(ValueError, match="unknown prompt style 'nope'"):
        latin.prompt(instance, style="nope")


# --- a plugin family with nothing but the required hooks ---------------------------------------


class Pair(Family):
    """Two cells a and b in 1..2 that differ; a ``given`` clue fixes a."""

    info = FamilyInfo(
        name="promptprobe", description="two different numbers", clue_kinds=("given",)
    )

    def normalize_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    def build_schema(self, params: Mapping[str, Any]) -> Schema:
        variables = (Variable(("a",), "a", (1, 2)), Variable(("b",), "b", (1, 2)))
        rule = AllDifferent(("a", "b"), Origin("rule", "differ"))
        return Schema(self.info.name, (), variables, (rule,), self.info.clue_kinds)

    def clue_constraints(self, schema: Schema, clue: Clue) -> tuple[Constraint, ...]:
        value = clue.data_dict()["value"]
        return (Linear(("a",), (1,), "==", value, Origin("clue", clue.id, clue.coords)),)

    def clues_from_solution(self, schema: Schema, solution: Solution) -> list[Clue]:
        return [Clue.make("a", "given", {"value": solution["a"]}, [("a",)])]


def test_plugin_family_gets_defaults_from_its_text_format() -> None:
    family = FAMILIES.get("promptprobe") if "promptprobe" in FAMILIES else register_family(Pair())
    instance = Instance.make("promptprobe", {}, [Clue.make("a", "given", {"value": 2}, [("a",)])])
    prompt = family.prompt(instance)
    assert "Two different numbers." in prompt  # the description stands for the rules
    assert instance.to_json() in prompt  # the text line (the default: its JSON) is the puzzle
    assert '"a": ...' in prompt  # no grid: a JSON object of the cells
    answer = family.format_answer(instance, {"a": 2, "b": 1})
    assert family.parse_answer("So:\n" + answer, instance) == {"a": 2, "b": 1}
    assert pk.check_answer(instance, answer).verdict is pk.AnswerVerdict.CORRECT
