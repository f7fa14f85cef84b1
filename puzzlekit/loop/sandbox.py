"""What the loop process is given, and what it is kept from (docs/security.md).

The judging process (the command, the holdout, the run directory, the ledger) starts the loop
process (:mod:`puzzlekit.loop.isolation`) with only what it needs:

- :func:`loop_environment`: a minimal environment, not the judge's (a secret, a path, whatever
  a plugin set there): the names of :data:`KEPT_ENV` and the ones the user lists in
  ``PUZZLEKIT_LOOP_ENV`` (comma-separated), nothing else;
- a neutral working directory (a fresh empty one, also its ``TMPDIR``), never the run
  directory's, and no descriptor but its two pipes (``close_fds``);
- :func:`seed_compiled_cache`: a copy of the judge's compiled numba code in that directory
  (its ``NUMBA_CACHE_DIR``), so the loop process loads it instead of compiling it
  (about ten seconds a process); the copy goes one way, and nothing the loop process compiles
  or writes there is ever read by the judge;
- :func:`not_dumpable`: the judging process and the holdout worker make themselves not
  dumpable (``prctl(PR_SET_DUMPABLE, 0)``), which closes their ``/proc/PID/mem``, ``environ``
  and ``fd`` to another process of the same user (not to root: see :func:`confine`);
- :func:`confine`, run first thing in the loop process: ``no_new_privs`` and, where the Linux kernel
  offers it, a Landlock domain that lets it read only the Python installation and its import
  path (plus ``/usr``, ``/etc`` and the like) and write only its own temporary directory and
  the paths the user lists in ``PUZZLEKIT_LOOP_SHARE`` (``os.pathsep``-separated). ``/proc``
  is not in the domain, and Landlock also refuses it ``ptrace`` access to any process outside,
  root or not; so neither a strategy nor an external program it runs with a shell can read the
  judge's memory, descriptors, command line or run directory. Best effort: on a Linux kernel without
  Landlock the loop process runs unconfined, and :func:`sandbox_state` says so.

Not for: starting the process (:mod:`puzzlekit.loop.isolation`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping

__all__ = [
    "KEPT_ENV",
    "confine",
    "landlock_abi",
    "loop_environment",
    "not_dumpable",
    "sandbox_state",
    "seed_compiled_cache",
]

#: the environment variables the loop process keeps (beside those named in PUZZLEKIT_LOOP_ENV)
KEPT_ENV = (
    "PATH",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "PYTHONHASHSEED",
    "PYTHONIOENCODING",
    "PYTHONUTF8",
    "SYSTEMROOT",
)
#: extra names the user lets through to the loop process (comma-separated)
ENV_NAMES_VAR = "PUZZLEKIT_LOOP_ENV"
#: paths the user lets the loop process read and write (os.pathsep-separated)
SHARE_VAR = "PUZZLEKIT_LOOP_SHARE"

_PR_SET_DUMPABLE = 4
_PR_SET_NO_NEW_PRIVS = 38
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # x86_64 and arm64 alike
_RULE_PATH_BENEATH = 1
# Landlock filesystem rights, by ABI version (the kernel refuses a right it does not know)
_FS_RIGHTS_V1 = (1 << 13) - 1  # execute .. make_sym
_FS_REFER, _FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_READ = (1 << 0) | (1 << 2) | (1 << 3)  # execute, read_file, read_dir


def _libc():  # noqa: ANN202 - a ctypes library, or None where there is none
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def not_dumpable() -> bool:
    """Make this process not dumpable (its ``/proc/PID/mem``, ``environ``, ``fd`` closed to
    other processes of its user); False where the platform has no ``prctl``."""
    libc = _libc()
    return libc is not None and libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0


def loop_environment(environ: Mapping[str, str], tmpdir: str) -> dict[str, str]:
    """The loop process's environment: :data:`KEPT_ENV`, the names ``PUZZLEKIT_LOOP_ENV`` lists,
    the two ``PUZZLEKIT_LOOP_*`` settings themselves, and ``TMPDIR``/``HOME`` at ``tmpdir``."""
    extra = [n.strip() for n in environ.get(ENV_NAMES_VAR, "").split(",") if n.strip()]
    names = [*KEPT_ENV, *extra, ENV_NAMES_VAR, SHARE_VAR]
    env = {n: environ[n] for n in names if n in environ}
    env.update(TMPDIR=tmpdir, HOME=tmpdir, NUMBA_CACHE_DIR=os.path.join(tmpdir, "numba"))
    return env


#: the modules whose compiled searches every loop process may need (the default filter's)
COMPILED_MODULES = (
    "puzzlekit.verifiers.bitmask.kernel",
    "puzzlekit.verifiers.bitmask.search",
    "puzzlekit.verifiers.bitmask.minimize",
    "puzzlekit.verifiers.bitmask.minimize9",
    "puzzlekit.verifiers.bitmask.gap_draw",
    "puzzlekit.verifiers.bitmask.line",
)


def seed_compiled_cache(tmpdir: str) -> int:
    """Copy this process's numba cache of every loaded compiled function (and of
    :data:`COMPILED_MODULES`) to where a loop process started with
    :func:`loop_environment` ``(…, tmpdir)`` looks for it; the number of files copied.

    Numba keeps a cache only in a directory it can write, and the loop process may write only
    its own ``tmpdir``: without this copy every loop process compiles every function it calls.
    Only the judge's files go to the loop process, never the other way. Where the judge has no
    cache of the default filter's compiled search yet (a fresh install), it compiles it first,
    once per machine, into its own cache. Best effort: a function the judge has not compiled is
    compiled by the loop process, as before."""
    import importlib
    import shutil

    for name in COMPILED_MODULES:
        importlib.import_module(name)
    try:
        from numba.core.caching import UserProvidedCacheLocator
    except ImportError:  # pragma: no cover - numba is a dependency
        return 0
    _compile_default_searches()
    copied = 0
    seen: set[tuple[str, str]] = (
        set()
    )  # a compiled function is imported under several modules' names
    for name, module in list(sys.modules.items()):
        if not name.startswith("puzzlekit.") or module is None:
            continue
        for obj in list(vars(module).values()):
            impl = getattr(getattr(obj, "_cache", None), "_impl", None)
            source = getattr(impl, "locator", None)
            base = getattr(impl, "filename_base", None)
            if source is None or not isinstance(base, str):
                continue
            here = source.get_cache_path()
            py_file = getattr(source, "_py_file", None)
            if (here, base) in seen or not py_file:
                continue
            seen.add((here, base))
            if not os.path.isfile(os.path.join(here, base + ".nbi")):
                continue
            there = os.path.join(
                tmpdir, "numba", UserProvidedCacheLocator.get_suitable_cache_subpath(py_file)
            )
            os.makedirs(there, exist_ok=True)
            for entry in os.listdir(here):
                if entry == base + ".nbi" or (
                    entry.startswith(base + ".") and entry.endswith(".nbc")
                ):
                    shutil.copyfile(os.path.join(here, entry), os.path.join(there, entry))
                    copied += 1
    return copied


def _compile_default_searches() -> None:
    """Compile the bitmask searches (the general one, the 9×9 ones), the digest's compiled
    draw (the compiled code every loop's first filter call runs), minimization's compiled
    remove-and-check (the general one and the 9×9 one), the ranked gap of the loop's steps on
    arrays (:mod:`~puzzlekit.verifiers.bitmask.gap_draw`) and the start of a grid line's search
    (:mod:`~puzzlekit.verifiers.bitmask.line`: the loop's instances are grid lines) into this
    process's numba cache unless all are there (by one 4×4 Sudoku check and its minimization,
    one 9×9 check and one 9×9 minimization, a third of a second once they are compiled). A
    cache saved from an older source of a function (numba's index keeps the source file's
    stamp) counts as absent: copied to the loop processes, it would make each of them compile
    the function again."""
    import numpy as np

    from puzzlekit.verifiers import digest_draw
    from puzzlekit.verifiers.bitmask import band9 as bitmask_band9
    from puzzlekit.verifiers.bitmask import gap_draw as bitmask_gap_draw
    from puzzlekit.verifiers.bitmask import kernel as bitmask_kernel
    from puzzlekit.verifiers.bitmask import kernel9 as bitmask_kernel9
    from puzzlekit.verifiers.bitmask import line as bitmask_line
    from puzzlekit.verifiers.bitmask import minimize as bitmask_minimize
    from puzzlekit.verifiers.bitmask import minimize9 as bitmask_minimize9

    compiled = (
        bitmask_kernel.search,
        bitmask_kernel9.search9,
        bitmask_band9.search_band9,
        digest_draw.digest_permutation,
        bitmask_minimize.remove_groups,
        bitmask_minimize.count_kept,
        bitmask_minimize9.remove_groups9,
        bitmask_gap_draw.ranked_gap,
        bitmask_line._start,
    )
    for function in compiled:
        index = getattr(getattr(function, "_cache", None), "_cache_file", None)
        if not callable(getattr(index, "_load_index", None)):  # another numba: none to seed
            return
        if not index._load_index():  # none, or stale: its source changed since it was saved
            break
    else:
        return
    from puzzlekit.families import get_family
    from puzzlekit.verifiers.registry import get_verifier

    sudoku = get_family("sudoku")
    instance = sudoku.parse_text("123434122143....", {"size": 4})
    bitmask = get_verifier("bitmask")
    report = bitmask.verify(instance, solution_cap=2)
    with bitmask.uniqueness_session(instance, report.solutions[0]) as session:
        ids = [c.id for c in instance.clues]
        session.unique_with(ids)
        session.remove_in_order([{i} for i in ids], ids)
    grid = sudoku.parse_text(_SOLVED9)
    report = bitmask.verify(grid, solution_cap=2)
    with bitmask.uniqueness_session(grid, report.solutions[0]) as session:
        session.remove_in_order([{c.id} for c in grid.clues[:2]], [c.id for c in grid.clues])
    bitmask.verify(sudoku.parse_text("123456789" + "." * 72), solution_cap=2)
    # the ranked gap of the loop's steps on arrays, with the argument types they pass
    two = np.array([[0, 1, 2], [0, 2, 1]], np.int64)
    raw = np.frombuffer(bytes(range(32)), np.uint8)  # read-only, as a digest's bytes are
    bitmask_gap_draw.ranked_gap(two[:2], two[0].copy(), raw, 0)


#: a solved 9×9 grid: its minimization runs the 9×9 remove-and-check once
_SOLVED9 = "123456789456789123789123456214365897365897214897214365531642978642978531978531642"


def landlock_abi() -> int:
    """The Linux kernel's Landlock ABI version; 0 where there is none (or no Linux)."""
    libc = _libc()
    if libc is None:
        return 0
    import ctypes

    version = libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(version), 0)


def _fs_rights(abi: int) -> int:
    rights = _FS_RIGHTS_V1
    if abi >= 2:
        rights |= _FS_REFER
    if abi >= 3:
        rights |= _FS_TRUNCATE
    if abi >= 5:
        rights |= _FS_IOCTL_DEV
    return rights


def readable_roots() -> list[str]:
    """What the loop process may read: the Python installation, its import path, the system."""
    roots = [sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)]
    roots += [os.path.dirname(os.path.realpath(sys.executable))]
    roots += [p for p in sys.path if p]
    roots += ["/usr", "/lib", "/lib64", "/bin", "/etc", "/opt", "/dev/urandom"]
    roots += ["/sys/devices/system/cpu"]
    return roots


def _add_rule(libc, ruleset: int, path: str, access: int) -> None:  # noqa: ANN001
    import ctypes

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path this machine does not have
    try:
        if not os.path.isdir(path):
            access &= (1 << 0) | (1 << 1) | (1 << 2) | _FS_TRUNCATE | _FS_IOCTL_DEV  # file rights
        rule = PathBeneath(access, fd)
        libc.syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0)
    finally:
        os.close(fd)


def confine(writable: Iterable[str], readable: Iterable[str] | None = None) -> str:
    """Confine this process (the loop process, first thing): ``no_new_privs``, then a Landlock
    domain reading ``readable`` (default :func:`readable_roots`) and writing ``writable``.
    Returns ``"landlock-vN"``, or ``"none"`` where the Linux kernel offers no Landlock."""
    libc = _libc()
    abi = landlock_abi()
    if libc is None or abi <= 0:
        return "none"
    import ctypes

    libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    handled = _fs_rights(abi)
    attr = ctypes.c_uint64(handled)
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(8), 0)
    if ruleset < 0:
        return "none"
    try:
        for path in readable_roots() if readable is None else readable:
            _add_rule(libc, ruleset, path, handled & _READ)
        for path in [*writable, "/dev/null"]:
            _add_rule(libc, ruleset, path, handled)
        if libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0) != 0:
            return "none"
    finally:
        os.close(ruleset)
    return f"landlock-v{abi}"


def sandbox_state() -> dict[str, object]:
    """What this machine gives the loop process (recorded; docs/security.md residual risks)."""
    abi = landlock_abi()
    return {
        "landlock": f"landlock-v{abi}" if abi else "none",
        "dumpable": "prctl" if _libc() is not None else "none",
        "root": hasattr(os, "geteuid") and os.geteuid() == 0,
    }
