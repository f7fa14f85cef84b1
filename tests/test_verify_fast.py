"""The fast path of a grid line (``pk.parse`` keeps the cells' values; the bitmask backend reads
them without clue objects) against the general path (the same clues as objects): the same
instance, canonical bytes, digest and report, for random lines valid and not."""

from __future__ import annotations

import pickle

import pytest
import rfc8785
from hypothesis import given as hgiven
from hypothesis import settings
from hypothesis import strategies as st

import puzzlekit as pk
from puzzlekit.core.model import Instance, SpecError
from puzzlekit.verifiers.search import digest_permutation, digest_rng

SYMBOLS = "123456789ABCDEFG"


def _general(inst: Instance) -> Instance:
    """The same puzzle built from clue objects (no compact form): the general path."""
    return Instance.make(inst.family, inst.params_dict(), list(inst.clue_source.clues()))


def _content(rep: pk.VerifierReport) -> dict:
    obj = rep.to_json_obj()
    for key in ("seconds", "conflictSeconds"):
        obj["stats"].pop(key, None)
    return obj


def _line(size: int, cells: list[tuple[int, int]]) -> str:
    chars = ["."] * (size * size)
    for i, v in cells:
        chars[i % (size * size)] = SYMBOLS[v % size]
    return "".join(chars)


@st.composite
def grid_lines(draw: st.DrawFn) -> tuple[str, str]:
    family = draw(st.sampled_from(["sudoku", "latin"]))
    size = draw(st.sampled_from([4, 9] if family == "sudoku" else [3, 4, 5]))
    cells = draw(st.lists(st.tuples(st.integers(0, 80), st.integers(0, 15)), max_size=30))
    line = _line(size, cells)
    if draw(st.booleans()):  # lowercase letters, zeros for blanks
        line = line.replace(".", "0").lower()
    return family, line


@settings(max_examples=120, deadline=None)
@hgiven(grid_lines())
def test_fast_path_equals_general_path(case: tuple[str, str]) -> None:
    family, line = case
    fast = pk.parse(family, line)
    assert "clues" not in fast.__dict__  # nothing has built the clue objects yet
    slow = _general(fast)
    assert fast.canonical_json() == slow.canonical_json()
    assert fast.canonical_json() == rfc8785.dumps(slow.to_json_obj())
    assert fast.digest == slow.digest
    rep = pk.verify(fast)
    assert _content(rep) == _content(pk.verify(slow))
    if rep.verdict is not pk.Verdict.UNSOLVABLE:  # a conflict is shrunk over clue objects
        assert "clues" not in fast.__dict__  # the bitmask backend read the cells' values
    assert fast == slow and hash(fast) == hash(slow) and fast.clues == slow.clues
    assert fast.cache_intact()


@pytest.mark.parametrize(
    "line", [".....", "x" * 81, "1" + "." * 79 + "Z", "ı" + "." * 15, "G" + "." * 15]
)
def test_bad_lines_give_the_violations_they_gave(line: str) -> None:
    with pytest.raises(SpecError) as exc:
        pk.parse("sudoku", line)
    for v in exc.value.violations:
        assert v.violation_type in ("shape-mismatch", "malformed", "out-of-domain")


def test_dotless_i_still_reads_as_i_in_a_25_grid() -> None:
    """``SYMBOLS.find(ch.upper())`` accepted a character whose upper case is a symbol; the table
    reads it the same way, one character at a time."""
    line = "ı" + "." * 624
    inst = pk.parse("sudoku", line)
    assert [(c.id, c.data_dict()) for c in inst.clues] == [("r1c1", {"value": 18})]


def test_deferred_instance_pickles_and_copies() -> None:
    line = "1234............"
    inst = pk.parse("sudoku", line)
    back = pickle.loads(pickle.dumps(inst))
    assert "clues" not in back.__dict__ and back.digest == inst.digest
    assert _content(pk.verify(back)) == _content(pk.verify(_general(inst)))
    assert back == inst and back.clues == inst.clues


def test_rewritten_compact_form_is_caught() -> None:
    """``cache_intact`` compares what the fast paths read with the content."""
    inst = pk.parse("sudoku", "1234............")
    assert inst.cache_intact()
    source = inst.clue_source
    object.__setattr__(source, "_givens", ((0, 2),))
    assert not inst.cache_intact()


def test_seed_words_give_default_rngs_draws() -> None:
    """``digest_rng`` builds the seed words itself; the draws are default_rng's of
    ``[int(hex, 16), stream]``, high zero words included."""
    import numpy as np

    digests = [f"sha256:{i:064x}" for i in (0, 1, 2**32, 2**224 - 1)]
    digests += ["sha256:" + bytes([i] * 32).hex() for i in range(0, 256, 17)]
    digests += [pk.parse("sudoku", "1" + "." * 80).digest, "sha256:", "sha256:abc"]
    for d in digests:
        for stream in (0, 1):
            seed = int(d.rsplit(":", 1)[-1] or "0", 16)
            want = np.random.default_rng([seed, stream]).permutation(81).tolist()
            assert digest_rng(d, stream).permutation(81).tolist() == want
            assert list(digest_permutation(d, stream, 81)) == want


def test_compiled_draws_are_numpys() -> None:
    """The compiled permutation (used once numba is loaded) draws what numpy's default_rng
    draws from the same seed words: many digests, both streams, several lengths."""
    import hashlib

    import numpy as np

    from puzzlekit.verifiers.digest_draw import permutation
    from puzzlekit.verifiers.search import _seed_words

    for i in range(400):
        digest = "sha256:" + hashlib.sha256(str(i).encode()).hexdigest()
        for stream in (0, 1):
            words = _seed_words(digest, stream)
            for n in (0, 1, 2, 16, 81, 625):
                want = np.random.default_rng(words).permutation(n).tolist()
                assert permutation(words, n).tolist() == want
    from puzzlekit.verifiers.digest_draw import digest_permutation as compiled

    for hexdigits in ["0" * 64, "0" * 63 + "1", "f" * 64, "0" * 8 + "a" * 56, "1" + "0" * 63]:
        raw = np.frombuffer(bytes.fromhex(hexdigits), np.uint8)
        for stream in (0, 1, 7):
            want = np.random.default_rng([int(hexdigits, 16), stream]).permutation(81).tolist()
            assert compiled(raw, stream, 81).tolist() == want
    for i in range(200):
        hexdigits = hashlib.sha256(b"x" + str(i).encode()).hexdigest()
        raw = np.frombuffer(bytes.fromhex(hexdigits), np.uint8)
        want = np.random.default_rng([int(hexdigits, 16), i % 2]).permutation(81).tolist()
        assert compiled(raw, i % 2, 81).tolist() == want
    for words in ([7], [1, 2, 3, 4, 5, 6, 7, 8, 9], [2**32 - 1] * 3):
        entropy = np.array(words, np.uint32)
        want = np.random.default_rng(entropy).permutation(81).tolist()
        assert permutation(entropy, 81).tolist() == want
