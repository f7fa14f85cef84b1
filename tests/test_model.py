"""Instances: canonical JSON, digests, the JSON file format, the text format."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given as hgiven
from hypothesis import settings
from hypothesis import strategies as st

import puzzlekit as pk
from puzzlekit.core.model import Instance, SpecError
from tests.helpers import given


def test_digest_is_sha256_of_rfc8785_canonical_json():
    import hashlib

    import rfc8785

    inst = pk.parse("sudoku", "1" + "." * 15)
    assert inst.digest == "sha256:" + hashlib.sha256(rfc8785.dumps(inst.to_json_obj())).hexdigest()


def test_neither_clue_order_nor_key_order_is_content():
    a = Instance.make("sudoku", {"size": 4, "box": [2, 2]}, [given(0, 0, 1), given(1, 2, 3)])
    b = Instance.make("sudoku", {"box": [2, 2], "size": 4}, [given(1, 2, 3), given(0, 0, 1)])
    assert a.digest == b.digest  # params are a mapping, clues are held in one canonical order
    assert a.clues == b.clues


def test_digest_is_stable_across_processes():
    inst = pk.parse("sudoku", "12.." + "." * 12)
    code = "import puzzlekit as pk;print(pk.parse('sudoku', '12..' + '.' * 12).digest)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == inst.digest


def test_json_file_format_round_trips():
    inst = pk.parse("sudoku", "1...2...3...4...")
    again = Instance.from_json(inst.to_json())
    assert again == inst and again.digest == inst.digest


@hgiven(st.lists(st.sampled_from("1234."), min_size=16, max_size=16))
@settings(max_examples=50, deadline=None)
def test_text_format_round_trips(cells):
    line = "".join(cells)
    inst = pk.parse("latin", line)
    assert pk.get_family("latin").format_text(inst) == line
    assert pk.parse("latin", pk.get_family("latin").format_text(inst)) == inst


def test_large_symbols_beyond_nine_are_letters():
    line = "G" + "." * 255
    inst = pk.parse("sudoku", line)
    assert inst.clues[0].data_dict() == {"value": 16}
    assert pk.get_family("sudoku").format_text(inst) == line


def test_zero_is_a_blank():
    assert pk.parse("sudoku", "0" * 81).clues == ()


def test_default_params_for_sudoku_sizes():
    fam = pk.get_family("sudoku")
    assert fam.schema({"size": 6}).params_dict()["box"] == [2, 3]
    assert fam.schema({"size": 12}).params_dict()["box"] == [3, 4]
    with pytest.raises(SpecError):
        fam.schema({"size": 7})


def test_instance_is_frozen():
    inst = pk.parse("sudoku", "." * 81)
    with pytest.raises(AttributeError):
        inst.family = "latin"  # type: ignore[misc]


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@hgiven(json_values)
@settings(max_examples=300, deadline=None)
def test_canonical_json_fast_path_equals_rfc8785(value):
    import rfc8785

    from puzzlekit.core.model import canonical_json

    try:
        expected = rfc8785.dumps(value)
    except Exception:  # values RFC 8785 refuses (lone surrogates, huge ints) are refused too
        for keys_are_strings in (False, True):
            with pytest.raises((ValueError, TypeError)):
                canonical_json(value, keys_are_strings=keys_are_strings)
        return
    assert canonical_json(value) == expected
    # the text-checked fast path of frozen data (string keys) gives the same bytes
    assert canonical_json(value, keys_are_strings=True) == expected


def test_a_family_registered_before_the_first_lookup_does_not_hide_the_builtins():
    import subprocess
    import sys

    code = (
        "from puzzlekit.core.protocols import Family, FamilyInfo\n"
        "from puzzlekit.families import register_family, get_family\n"
        "class F(Family):\n    info = FamilyInfo(name='mine')\n"
        "register_family(F())\n"
        "print(get_family('sudoku').info.name, get_family('mine').info.name)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["sudoku", "mine"]


@pytest.mark.parametrize("text", ["\x7f", "a\x01b", "tab\there", "é", "\u2028"])
def test_canonical_json_of_control_and_non_ascii_strings_equals_rfc8785(text):
    import rfc8785

    from puzzlekit.core.model import canonical_json

    assert canonical_json({text: [text]}) == rfc8785.dumps({text: [text]})
    assert canonical_json({text: [text]}, keys_are_strings=True) == rfc8785.dumps({text: [text]})
