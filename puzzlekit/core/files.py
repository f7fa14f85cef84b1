"""Files written whole or not at all: a temporary file beside the target, then a rename.

:func:`atomic_write` creates the temporary file exclusively (``tempfile.mkstemp``: a fresh
random name, ``O_EXCL``, so no symlink or file planted at a guessable path is followed or
overwritten) in the target's directory, lets the caller fill it through an open binary file,
flushes it to disk and renames it over the target (``os.replace``, atomic on POSIX): a reader or
a process killed at any moment sees the old file or the new one, never half of one. A kill
leaves at most a temporary file, named ``.<target>.<random>.tmp``; :func:`is_temporary` tells
such names apart and :func:`remove_temporaries` clears them.

A file that is there but cannot be read as what it should be (a manifest that is not JSON, a
truncated Parquet part, a directory where a file belongs) is :class:`DamagedFile`, naming the
file; the command line answers it in one line with exit 2. :func:`file_lock` keeps a second
process out of a directory one process is writing (``puzzlekit run --resume``).

Not for: appending (the ledger is SQLite) or files other processes write at the same time.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

_SUFFIX = ".tmp"
#: the lock file :func:`file_lock` takes in a directory
LOCK_NAME = ".lock"


class DamagedFile(Exception):
    """A file that exists but cannot be read as what it should be: ``path`` and ``why``."""

    def __init__(self, path: str | os.PathLike[str], why: str) -> None:
        super().__init__(f"{path}: {why}")
        self.path = str(path)
        self.why = why


class Locked(Exception):
    """A directory another process holds with :func:`file_lock`."""


def read_json(path: str | os.PathLike[str]) -> Any:
    """The JSON document the project wrote to ``path`` (a manifest, a seal), size bounded and
    decoded through :func:`puzzlekit.core.reading.read_file_text`; its integers are read whole
    (a manifest keeps 64-bit seeds). :class:`DamagedFile` naming the file when it is not
    readable JSON or is a directory; ``FileNotFoundError`` when it is missing."""
    import json

    from puzzlekit.core.reading import MAX_DEPTH, ReadError, nesting_depth, read_file_text

    try:
        text = read_file_text(path)
        if nesting_depth(text) > MAX_DEPTH:  # before the decoder recurses past the stack
            raise ReadError("$", f"nested deeper than {MAX_DEPTH} levels")
        return json.loads(text)
    except (ReadError, ValueError, RecursionError) as exc:
        raise DamagedFile(path, f"not readable JSON ({exc})") from None
    except IsADirectoryError:
        raise DamagedFile(path, "a directory, not a file") from None


@contextlib.contextmanager
def file_lock(directory: str | os.PathLike[str], what: str = "process") -> Iterator[None]:
    """Hold an exclusive lock on ``directory`` (its ``.lock`` file, ``flock``) for the block;
    :class:`Locked` at once if another process holds it. The lock ends with the process, so a
    killed holder never leaves the directory locked."""
    import fcntl

    path = Path(directory) / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            pid = f" (pid {holder})" if holder.isdigit() else ""
            raise Locked(f"{directory}: another {what} is writing it{pid}") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        yield
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """Write ``path`` atomically: ``with atomic_write(p) as fh: fh.write(...)``.

    The file gets the permissions a plain ``open(p, "w")`` would give (``0o666`` less the
    umask). On an exception the temporary file is removed and the target left as it was.
    """
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=_SUFFIX, dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fchmod(fh.fileno(), 0o666 & ~_umask())
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_directory(target.parent)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """``data`` as the whole content of ``path``, written atomically."""
    with atomic_write(path) as fh:
        fh.write(data)


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """``text`` (UTF-8) as the whole content of ``path``, written atomically."""
    write_bytes(path, text.encode("utf-8"))


def _sync_directory(directory: Path) -> None:
    """Flush a rename to disk (where the platform lets a directory be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def is_temporary(name: str) -> bool:
    """Whether ``name`` is a temporary file :func:`atomic_write` leaves when killed."""
    return name.startswith(".") and name.endswith(_SUFFIX)


def remove_temporaries(directory: str | os.PathLike[str]) -> int:
    """Remove the temporary files a killed :func:`atomic_write` left in ``directory``."""
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        if is_temporary(entry.name) and entry.is_file(follow_symlinks=False):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed += 1
    return removed
