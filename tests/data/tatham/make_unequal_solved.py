"""Regenerate ``unequal_solved.tsv``: Unequal game IDs (both modes) with Tatham's own solutions.

Provenance of the committed file: Debian's ``sgt-puzzles`` 20230122.806ae71-2
(``apt-get install sgt-puzzles``), ``/usr/games/sgt-unequal --generate 5 --save PREFIX
--save-suffix .sav PARAMS`` for sizes 4-7, Futoshiki mode and Adjacent mode (``a``), difficulties
trivial, easy, tricky and extreme. A save file holds the game's ``DESC`` and, as ``AUXINFO``, the
generator's solution (``S`` then the digits in row-major order), hex-encoded and masked by the
midend: each half of the bytes is XORed with SHA-1 digests of the other half followed by a
decimal counter (0, 1, ...), the second half first. Unmasking it gives the solution Tatham's
generator built the puzzle from.

Run: ``python tests/data/tatham/make_unequal_solved.py > tests/data/tatham/unequal_solved.tsv``
(the generator picks random seeds, so a new run gives other puzzles).
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

PROGRAM = "/usr/games/sgt-unequal"


def unmask(data: bytes) -> bytes:
    """Undo the midend's masking of a save file's ``AUXINFO``."""
    out = bytearray(data)
    first = len(out) // 2
    halves = [(0, first, first, len(out) - first), (first, len(out) - first, 0, first)]
    for seed_at, seed_len, at, length in halves:
        seed = bytes(out[seed_at : seed_at + seed_len])
        stream = b""
        counter = 0
        while len(stream) < length:
            stream += hashlib.sha1(seed + str(counter).encode()).digest()
            counter += 1
        for j in range(length):
            out[at + j] ^= stream[j]
    return bytes(out)


def read_save(path: Path) -> dict[str, str]:
    fields = {}
    for line in path.read_text().splitlines():
        key, _, rest = line.partition(":")
        fields[key.strip()] = rest.partition(":")[2]
    return fields


def main() -> None:
    print(f"# {PROGRAM} --generate 5 --save (sgt-puzzles 20230122.806ae71-2); see the script")
    print("# game id\tTatham's solution (row-major digits)")
    with tempfile.TemporaryDirectory() as tmp:
        for size in (4, 5, 6, 7):
            for mode in ("", "a"):
                for level in "tekx":
                    params = f"{size}{mode}d{level}"
                    prefix = f"{tmp}/{params}-"
                    subprocess.run(
                        [
                            PROGRAM,
                            "--generate",
                            "5",
                            "--save",
                            prefix,
                            "--save-suffix",
                            ".sav",
                            params,
                        ],
                        check=False,
                        capture_output=True,
                    )
                    for path in sorted(Path(tmp).glob(f"{params}-*.sav")):
                        save = read_save(path)
                        aux = unmask(bytes.fromhex(save["AUXINFO"])).decode()
                        if not aux.startswith("S"):
                            sys.exit(f"{path.name}: unexpected AUXINFO {aux!r}")
                        print(f"unequal:{save['PARAMS']}:{save['DESC']}\t{aux[1:]}")


if __name__ == "__main__":
    main()
