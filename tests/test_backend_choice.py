"""Which backend verifies what, when none is named: decided in one place, the registry's
preference order (``puzzlekit.verifiers.registry.PREFERENCE``) over what each backend
``accepts``, after the backend a family names as its own.

The table pins the backend of every listed schema of every built-in family, and the filter of
every built-in family, as they were when the choice was a list of family names beside
``Family.default_verifier``; every golden-corpus instance is verified by its family's filter.
A plugin family of all-different rules gets the compiled backend without a line saying so."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from puzzlekit.core.model import AllDifferent, Clue, Count, Instance, Origin
from puzzlekit.core.protocols import Family
from puzzlekit.families import families, get_family
from puzzlekit.families.latin import Latin
from puzzlekit.quality.checks import ContractError, check_family
from puzzlekit.quality.golden.entries import load_corpus
from puzzlekit.verifiers.registry import (
    PREFERENCE,
    VERIFIERS,
    default_filter_name,
    default_verifier_name,
    get_verifier,
    register_verifier,
)

ROOT = Path(__file__).resolve().parent.parent

#: (family, listed params, the backend of an instance of that schema)
SCHEMA_BACKEND: list[tuple[str, dict[str, Any], str]] = [
    ("futoshiki", {"size": 4}, "bitmask"),
    ("futoshiki", {"size": 5}, "bitmask"),
    ("futoshiki", {"size": 6}, "bitmask"),
    ("futoshiki", {"size": 7}, "bitmask"),
    ("futoshiki-adjacent", {"size": 4}, "sat"),
    ("futoshiki-adjacent", {"size": 5}, "sat"),
    ("futoshiki-adjacent", {"size": 6}, "sat"),
    ("kakuro", {"cols": 5, "rows": 5, "seed": 1}, "sat"),
    ("kakuro", {"cols": 7, "rows": 7, "seed": 1}, "sat"),
    ("kakuro", {"cols": 9, "rows": 9, "seed": 1}, "sat"),
    ("kenken", {"size": 3}, "bitmask"),
    ("kenken", {"size": 4}, "bitmask"),
    ("kenken", {"size": 5}, "bitmask"),
    ("kenken", {"size": 6}, "bitmask"),
    ("latin", {"size": 4}, "bitmask"),
    ("latin", {"size": 5}, "bitmask"),
    ("latin", {"size": 6}, "bitmask"),
    ("latin", {"size": 9}, "bitmask"),
    ("logicgrid", {"categories": 3, "size": 4}, "sat"),
    ("logicgrid", {"preset": "einstein"}, "sat"),
    ("nonogram", {"cols": 10, "rows": 10}, "sat"),
    ("nonogram", {"cols": 5, "rows": 5}, "sat"),
    ("nonogram", {"cols": 8, "rows": 8}, "sat"),
    ("owm-connect", {"cols": 4, "k": 3, "rows": 4}, "gametree"),
    ("owm-mnk", {"cols": 4, "k": 3, "rows": 4}, "gametree"),
    ("owm-nim", {"heaps": 3, "max": 4}, "gametree"),
    ("owm-tictactoe", {"variant": "fastest"}, "gametree"),
    ("owm-tictactoe", {}, "gametree"),
    ("skyscrapers", {"size": 4}, "sat"),
    ("skyscrapers", {"size": 5}, "sat"),
    ("skyscrapers", {"size": 6}, "sat"),
    ("skyscrapers", {"size": 8}, "sat"),
    ("starbattle", {"size": 5, "stars": 1}, "sat"),
    ("starbattle", {"size": 6, "stars": 1}, "sat"),
    ("starbattle", {"size": 8, "stars": 1}, "sat"),
    ("sudoku", {"box": [2, 2], "size": 4}, "bitmask"),
    ("sudoku", {"box": [2, 3], "size": 6}, "bitmask"),
    ("sudoku", {"box": [3, 3], "size": 9}, "bitmask"),
    ("sudoku", {"box": [3, 4], "size": 12}, "bitmask"),
    ("sudoku", {"box": [4, 4], "size": 16}, "bitmask"),
    ("sudoku-jigsaw", {"size": 4}, "bitmask"),
    ("sudoku-jigsaw", {"size": 6}, "bitmask"),
    ("sudoku-jigsaw", {"size": 9}, "bitmask"),
    ("sudoku-killer", {"box": [2, 2], "size": 4}, "bitmask"),
    ("sudoku-killer", {"box": [2, 3], "size": 6}, "bitmask"),
    ("sudoku-killer", {"box": [3, 3], "size": 9}, "bitmask"),
    (
        "toolcall",
        {"expectedVerdict": "high", "fixedInput": {"note": "gift"}, "tool": "shipping-rate"},
        "oracle",
    ),  # noqa: E501
    (
        "toolcall",
        {"expectedVerdict": "mid", "fixedInput": {"note": ""}, "tool": "shipping-rate"},
        "oracle",
    ),  # noqa: E501
]

#: the filter ``puzzlekit generate FAMILY`` uses by default
FAMILY_FILTER = {family: backend for family, _, backend in SCHEMA_BACKEND}


def builtin_families() -> list[str]:
    return sorted(
        f.info.name for f in families() if type(f).__module__.startswith("puzzlekit.families.")
    )


@pytest.mark.parametrize(
    ("family", "params", "backend"),
    SCHEMA_BACKEND,
    ids=[f"{f}-{json.dumps(p, sort_keys=True)}" for f, p, _ in SCHEMA_BACKEND],
)
def test_each_listed_schema_keeps_its_backend(family: str, params: dict, backend: str) -> None:
    assert default_verifier_name(Instance.make(family, params, [])) == backend


@pytest.mark.parametrize("family", sorted(FAMILY_FILTER))
def test_each_family_keeps_its_default_filter(family: str) -> None:
    assert default_filter_name(family) == FAMILY_FILTER[family]


def test_the_table_lists_every_listed_schema_of_every_builtin_family() -> None:
    listed = {
        (name, json.dumps(dict(p), sort_keys=True))
        for name in builtin_families()
        for p in get_family(name).info.listed_params
    }
    pinned = {(f, json.dumps(p, sort_keys=True)) for f, p, _ in SCHEMA_BACKEND}
    assert listed == pinned


def test_every_golden_instance_is_verified_by_its_familys_filter() -> None:
    seen = 0
    for path in sorted((ROOT / "tests" / "golden").glob("*.jsonl")):
        for entry in load_corpus(path):
            inst = entry.instance
            assert default_verifier_name(inst) == FAMILY_FILTER[inst.family], (path.name, entry)
            seen += 1
    assert seen > 300


def test_the_preference_order_is_compiled_then_sat_then_the_reference() -> None:
    assert PREFERENCE == ("bitmask", "sat", "enumerative")
    assert [get_verifier(n).exact for n in PREFERENCE] == [True, True, True]


def test_params_that_do_not_resolve_get_the_backend_of_the_familys_schemas() -> None:
    for family, bad in [("sudoku", {"size": "x"}), ("latin", {"nope": 1}), ("starbattle", {})]:
        inst = Instance.make(family, bad, [])
        assert default_verifier_name(inst) == FAMILY_FILTER[family]
        assert get_verifier(FAMILY_FILTER[family]).verify(inst).verdict.value == "INVALID_SPEC"
    assert default_verifier_name(Instance.make("no-such-family", {}, [])) == "sat"


def test_a_clue_the_compiled_backend_cannot_read_moves_one_instance_to_sat() -> None:
    inst = load_corpus(ROOT / "tests" / "golden" / "skyscrapers-4x4.jsonl")[0].instance
    as_latin = Instance.make("latin", {"size": 4}, [])
    count = Clue.make("n", "given", {"value": 1}, [(0, 0)])
    assert not get_verifier("bitmask").accepts(inst)  # Regular edge clues
    assert get_verifier("bitmask").accepts(as_latin.with_clues([count]))
    assert not get_verifier("gametree").accepts(as_latin)
    assert not get_verifier("oracle").accepts(as_latin)
    assert get_verifier("enumerative").accepts(inst)


def test_a_plugin_verifier_is_never_a_default_choice() -> None:
    class Anything:
        name, version, exact, holdout_name = "choice-anything", "1", False, "enumerative"

        def accepts(self, instance: Instance) -> bool:
            return True

    if "choice-anything" not in VERIFIERS:
        register_verifier("choice-anything", Anything)
    for family, params, backend in SCHEMA_BACKEND[::7]:
        assert default_verifier_name(Instance.make(family, params, [])) == backend


def test_the_takuzu_plugin_gets_sat_and_its_own_verifier_only_its_family() -> None:
    code = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(ROOT / 'examples' / 'puzzlekit-takuzu')!r})\n"
        "import puzzlekit_takuzu\n"
        "from puzzlekit.core.model import Instance\n"
        "from puzzlekit.verifiers.registry import default_filter_name, default_verifier_name, "
        "get_verifier\n"
        "t = Instance.make('takuzu', {'size': 6}, [])\n"
        "s = Instance.make('sudoku', {'size': 4, 'box': [2, 2]}, [])\n"
        "print(json.dumps([default_verifier_name(t), default_filter_name('takuzu'),\n"
        "  get_verifier('bitmask').accepts(t), get_verifier('takuzu-lines').accepts(t),\n"
        "  get_verifier('takuzu-lines').accepts(s), default_verifier_name(s)]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # takuzu's rules are Regular automata, which the compiled backend does not take
    assert json.loads(out.stdout) == ["sat", "sat", False, True, False, "bitmask"]


# --- a plugin family of all-different rules ---------------------------------------------------


class Rows(Latin):
    """A plugin Latin square: all-different rules, no backend named."""

    info = Latin.info.replace(name="choice-rows", listed_params=({"size": 4},))


class RowsCounted(Rows):
    """The same, with a clue kind the compiled backend cannot read (a Count)."""

    info = Rows.info.replace(name="choice-rows-counted", clue_kinds=("given", "ones"))
    format_text = Family.format_text  # the JSON line: Latin's grid line has no room for ones
    parse_text = Family.parse_text

    def clue_constraints(self, schema: Any, clue: Clue) -> Any:
        if clue.kind != "ones":
            return super().clue_constraints(schema, clue)
        r = clue.data_dict()["row"]
        names = tuple(schema.var_at((r, c)).name for c in range(4))
        return (Count(names, 1, "==", 1, Origin("clue", clue.id, ((r, 0),))),)

    def clues_from_solution(self, schema: Any, solution: Any) -> list[Clue]:
        ones = [Clue.make(f"ones{r}", "ones", {"row": r}, [(r, 0)]) for r in range(4)]
        return [*super().clues_from_solution(schema, solution), *ones]


def test_a_plugin_family_of_all_different_rules_gets_the_compiled_backend(registered) -> None:
    fam = registered(Rows())
    assert fam.info.default_verifier is None
    assert {type(r) for r in fam.schema({"size": 4}).rules} == {AllDifferent}
    assert default_filter_name(fam.info.name) == "bitmask"
    inst = Instance.make(fam.info.name, {"size": 4}, [])
    assert default_verifier_name(inst) == "bitmask"


def test_check_family_names_a_default_filter_that_cannot_read_the_clues(registered) -> None:
    fam = registered(RowsCounted())
    assert default_filter_name(fam.info.name) == "bitmask"  # the rules alone compile
    with pytest.raises(ContractError) as err:
        check_family(fam, {"size": 4}, n=1, cross_process=False, generate=False)
    assert err.value.codes == {"default-filter-declines"}
    assert 'default_verifier = "sat"' in str(err.value)


def test_check_family_leaves_out_backends_that_do_not_accept_the_family() -> None:
    from puzzlekit.quality.parametrize import run_check

    summary = run_check("verifiers", "owm-nim", {"heaps": 3, "max": 4}, n=1)
    assert {"enumerative", "gametree", "minimax"} <= set(summary.reports)
    assert "bitmask" not in summary.reports and "sat" not in summary.reports
    assert not any("declined" in note for note in summary.notes), summary.notes
