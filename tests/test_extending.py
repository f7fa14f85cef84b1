"""The one-file family that opens docs/extending.md: taken out of the page, imported, and run
through every check of ``check_family`` (one test each, by ``parametrize_with_checks``)."""

from __future__ import annotations

import importlib.util
import re
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

from puzzlekit.families import get_family
from puzzlekit.quality import parametrize_with_checks
from puzzlekit.quality.parametrize import CHECKS, run_check
from puzzlekit.verifiers.registry import default_filter_name, default_verifier_name, get_verifier

DOC = Path(__file__).resolve().parent.parent / "docs" / "extending.md"
SECTION = "## A complete family in one file"


def doc_family_code() -> str:
    """The first python block of the page's opening section."""
    text = DOC.read_text()
    section = text[text.index(SECTION) :]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def load_doc_family(tmp: Path) -> ModuleType:
    """``latin_x.py`` written from the page and imported (which registers ``latin-x``)."""
    if "latin_x" in sys.modules:
        return sys.modules["latin_x"]
    path = tmp / "latin_x.py"
    path.write_text(doc_family_code())
    sys.path.insert(0, str(tmp))  # the cross-process check imports the module in a new process
    spec = importlib.util.spec_from_file_location("latin_x", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["latin_x"] = module
    spec.loader.exec_module(module)
    return module


LATIN_X = load_doc_family(Path(tempfile.mkdtemp(prefix="extending-doc-"))).LATIN_X


def test_the_page_says_what_the_file_is() -> None:
    lines = doc_family_code().splitlines()
    assert len(lines) <= 150, "the one-file family must stay at most 150 lines"
    assert f"({len(lines)} lines)" in DOC.read_text()
    for hook in ("normalize_params", "build_schema", "clue_constraints", "clues_from_solution"):
        assert re.search(rf"def {hook}\(.*# REQUIRED", doc_family_code()), hook


@parametrize_with_checks([LATIN_X])
def test_the_page_family_keeps_the_contract(family, check) -> None:
    check(family)


def test_one_test_id_per_check() -> None:
    mark = parametrize_with_checks([LATIN_X, (LATIN_X, {"size": 5})])
    ids = mark.kwargs["ids"]
    assert ids[: len(CHECKS)] == [f"latin-x-{step}" for step, _ in CHECKS]
    assert ids[len(CHECKS)] == "latin-x-5-structure-and-samples"
    assert len(ids) == len(set(ids)) == 2 * len(CHECKS)


def test_the_page_family_verifies_on_the_compiled_backend_by_default() -> None:
    inst = LATIN_X.parse_text("......4..214.4..")
    assert get_family("latin-x") is LATIN_X
    assert type(LATIN_X).info.default_verifier is None  # no line in the file names a backend
    assert "default_verifier" not in doc_family_code()
    assert default_verifier_name(inst) == "bitmask"
    assert default_filter_name("latin-x") == "bitmask"
    report = get_verifier("bitmask").verify(inst)
    assert report.verdict.value == "UNIQUE"
    assert report.verdict == get_verifier("sat").verify(inst).verdict


def test_notes_leave_out_backends_for_other_kinds_of_family() -> None:
    notes = run_check("verifiers", LATIN_X).notes
    assert not any("gametree" in n or "oracle" in n for n in notes), notes


def test_a_failing_earlier_step_is_named_in_the_checks_after_it() -> None:
    class Unregistered(type(LATIN_X)):
        pass

    with pytest.raises(AssertionError, match=r"structure-and-samples \(before full-reveal\)"):
        run_check("full-reveal", Unregistered(), {"size": 4})
    with pytest.raises(AssertionError, match="not-registered"):
        run_check("malformed", Unregistered(), {"size": 4})
