"""Generation at an exact difficulty level, driven by the logical solver's detail.

:func:`shape_to_level` takes a UNIQUE puzzle and its solution and makes it grade exactly
``target`` (:mod:`puzzlekit.grading.techniques`), acting where the grader points:

1. **grade within the target.** One solver run limited to the techniques of levels up to
   ``target``. Until its first harder step the full grade would do exactly the same, so a run
   that finishes *is* the grade: at ``target`` the puzzle is kept, below it the puzzle is too
   easy and dropped (its clues cannot go when it is minimal; the caller starts over).
2. **stuck → reveal.** A run that gets stuck reveals the true value of one stuck cell and goes
   on from where it stopped, until it finishes: nothing is solved twice. The cell is one with
   the fewest candidates left (ties by the seeded rng): the least telling reveal, so the puzzle
   overshoots below the target least often (``python -m benchmarks.gradebench
   --reveal-study``
   compares the choices). At the family's top level (``search``) being stuck is the target
   itself.
3. **removable → dig.** Visit the value clues the puzzle may lose (all of them, or only the
   revealed ones when the start is minimal) in seeded order and drop each one a single would
   bring back: the dropped cell is a hidden single (from level 1 also a naked single) of the
   remaining givens, so the limited solver places it again at once and uniqueness is kept.
   This test looks at one cell's peers and costs no grader run.
4. **grade.** After any reveal or dig, one full grade of the result; it is kept only at exactly
   ``target``.

Clues only ever help the techniques, so a reveal never makes a puzzle harder and a dig never
easier. From a puzzle with every cell given, level 0 is reached by digging alone (step 1 finds
it solved at level 0); harder levels start from a minimal puzzle, which is hard more often than
not, and reveal down to the target.

Each result counts its grader calls (solver runs started: step 1 and step 4), its single
checks (step 3) and its reveals; a run that goes on after a reveal is not a new call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from puzzlekit.core.model import Clue, Coord, Instance
from puzzlekit.families import get_family, resolve
from puzzlekit.grading.techniques import Grade, PencilSolver, StuckCell, grade_of


@dataclass(frozen=True)
class Shaped:
    """What :func:`shape_to_level` made: the instance at ``target`` (None when the result
    graded otherwise), its grade and what it cost."""

    instance: Instance | None
    grade: Grade
    shaped: Instance
    grader_calls: int
    single_checks: int
    reveals: int
    removed: int


class _Givens:
    """The value clues of one puzzle over a solver template of its other clues."""

    def __init__(self, instance: Instance, solution: Mapping[str, int] | None = None) -> None:
        fam = get_family(instance.family)
        self.family = fam
        self.schema = fam.schema(instance.params_dict())
        kind = fam.info.value_clue_kind
        self.name_of: dict[str, str] = {}
        self.clue: dict[str, Clue] = {}
        self.given: dict[str, int] = {}
        rest: list[Clue] = []
        for clue in instance.clues:
            var = self.schema.var_at(clue.coords[0]) if len(clue.coords) == 1 else None
            if kind is not None and clue.kind == kind and var is not None:
                self.clue[var.name] = clue
                self.given[var.name] = clue.data_dict()["value"]
            else:
                rest.append(clue)
        self.rest = rest
        self.instance = instance
        self.solution = dict(solution or {})
        self.template = _template(instance.with_clues(rest))
        self.fixed = {name: next(iter(self.template.cand[name])) for name in self.template.placed}

    def clue_for(self, name: str) -> Clue:
        """The value clue of ``name`` (the original one, else a true one from the family)."""
        if name in self.clue:
            return self.clue[name]
        var = self.schema.var(name)
        reveal = self.instance.with_clues(self.rest)
        for move in self.family.repair_moves(self.schema, reveal, self.solution, var.coord):
            if move.action == "reveal":
                for clue in move.add:
                    if clue.kind == self.family.info.value_clue_kind:
                        self.clue[name] = clue
                        return clue
        raise ValueError(f"family {self.family.info.name} offers no value clue for {name}")

    def build(self) -> Instance:
        kept = [self.clue_for(name) for name in self.given]
        order = {v.name: i for i, v in enumerate(self.schema.variables)}
        kept.sort(key=lambda c: order[self.schema.var_at(c.coords[0]).name])
        return self.instance.with_clues(self.rest + kept)

    # -- the grade's "removable" test: one step of a single brings the clue back ------------
    def _sees(self, name: str, value: int) -> bool:
        given, fixed = self.given, self.fixed
        for peer in self.template.peers[name]:
            if given.get(peer, fixed.get(peer)) == value:
                return True
        return False

    def single_back(self, name: str, value: int, naked: bool) -> bool:
        """True when ``name`` (just dropped) is a hidden single of the remaining givens, or
        with ``naked`` a naked single: the capped solver places it again in its first steps."""
        t = self.template
        given, fixed = self.given, self.fixed
        for h in t.houses_of[name]:
            _, cells = t.houses[h]
            if all(
                y == name or y in given or y in fixed or not self._could_hold(y, value)
                for y in cells
            ):
                return True
        if naked:
            seen = {given.get(p, fixed.get(p)) for p in t.peers[name]}
            if t.cand[name] - {value} <= seen:
                return True
        return False

    def _could_hold(self, name: str, value: int) -> bool:
        """Whether ``value`` is still a candidate of ``name`` after the givens' eliminations."""
        return value in self.template.cand[name] and not self._sees(name, value)


#: how a stuck cell is picked for a reveal (see :func:`shape_to_level`)
REVEALS = ("fewest", "most", "random")
_TEMPLATES: dict[str, PencilSolver] = {}


def _template(instance: Instance) -> PencilSolver:
    """The solver of ``instance`` (the puzzle without its value clues), built once per layout:
    forks share it and never change it."""
    found = _TEMPLATES.get(instance.digest)
    if found is None:
        if len(_TEMPLATES) >= 64:
            _TEMPLATES.clear()
        found = _TEMPLATES[instance.digest] = PencilSolver(resolve(instance))
    return found


def shape_to_level(
    instance: Instance,
    solution: Mapping[str, int],
    target: int,
    rng: np.random.Generator,
    *,
    minimal: bool = False,
    reveal: str = "fewest",
) -> Shaped:
    """Make ``instance`` (UNIQUE with ``solution``) grade exactly ``target``; see the module
    docstring. ``minimal`` says no clue of ``instance`` can go without losing uniqueness, so
    the dig only visits the clues this call reveals. ``reveal`` picks the stuck cell:
    ``fewest`` candidates (the default), ``most`` or ``random``."""
    if reveal not in REVEALS:
        raise ValueError(f"reveal must be one of {', '.join(REVEALS)}, got {reveal!r}")
    g = _Givens(instance, solution)
    top = len(g.template.scale) - 1
    if not 0 <= target <= top:
        raise ValueError(f"target level {target} is outside 0..{top}")
    start = set(g.given)
    checks = reveals = removed = 0

    # 1. one solver run limited to the target's techniques: its trajectory is the full grade's
    #    until the first harder step, so a finished run is the grade, and a stuck one goes on
    #    after each reveal at one of its stuck cells
    solver = g.template.fork(g.given)
    runs = 0 if solver.solved() else 1  # a full grid needs no run: nothing is left to solve
    status = solver.run(cap=target)
    grade = grade_of(solver, status, instance.family, instance.digest)
    if status == "solved" and grade.level < target:
        return Shaped(None, grade, instance, runs, checks, reveals, removed)
    if status != "solved" and target < top:
        while status == "stuck":
            open_ = sorted(
                (x for x in solver.cand if x not in solver.placed and len(solver.cand[x]) > 1),
                key=lambda x: solver.coord[x],
            )
            if reveal != "random":
                sizes = [len(solver.cand[x]) for x in open_]
                want = min(sizes) if reveal == "fewest" else max(sizes)
                open_ = [x for x, n in zip(open_, sizes, strict=True) if n == want]
            name = open_[int(rng.integers(len(open_)))]
            g.given[name] = g.solution[name]
            g.clue_for(name)
            solver._place(name, g.solution[name], [])
            reveals += 1
            status = solver.run(cap=target)
        if status != "solved":  # a contradiction: the solution does not fit the clues
            raise ValueError("the solution contradicts the instance's clues")

    # 2. dig the clues a single would bring back (free of grader runs; sound for uniqueness)
    names = [x for x in g.given if not (minimal and x in start)]
    for i in rng.permutation(len(names)):
        name = names[int(i)]
        value = g.given.pop(name)
        checks += 1
        if g.single_back(name, value, naked=target >= 1):
            removed += 1
        else:
            g.given[name] = value

    # 3. after any change, one full grade of the result
    shaped = instance
    if reveals or removed:
        shaped = g.build()
        solver = g.template.fork(g.given)
        grade = grade_of(solver, solver.run(), shaped.family, shaped.digest)
        runs += 1
    return Shaped(
        shaped if grade.level == target else None,
        grade,
        shaped,
        runs,
        checks,
        reveals,
        removed,
    )


def grade_fast(instance: Instance) -> Grade:
    """:func:`puzzlekit.grading.techniques.grade` without search measures, through the same solver
    template as :func:`shape_to_level` (so both strategies of a benchmark pay the same)."""
    g = _Givens(instance)
    solver = g.template.fork(g.given)
    return grade_of(solver, solver.run(), instance.family, instance.digest)


def shaping_fields(grade: Grade, shaped: Shaped | None = None) -> dict[str, int | str]:
    """The record fields of a graded result: level, technique and what shaping cost."""
    out: dict[str, int | str] = {
        "level": grade.level,
        "technique": grade.technique,
        "graderCalls": shaped.grader_calls if shaped is not None else 1,
    }
    if shaped is not None:
        out.update(reveals=shaped.reveals, singleChecks=shaped.single_checks, dug=shaped.removed)
    return out


@dataclass(frozen=True)
class LevelDetail:
    """Why a puzzle is not at a target level, tagged with coordinates (``grade --target``).

    ``too-hard``: the solver limited to the target's techniques stops at ``stuck`` (open cells
    and their candidates) and ``nextTechnique`` is the easiest harder technique that goes on
    there (``search`` when none does): a clue revealed at a stuck cell makes the puzzle easier.
    ``too-easy``: ``removable`` are the value clues each of which can go while the limited
    solver still finishes (so the puzzle stays UNIQUE): removing one is the move toward harder.
    """

    target: int
    level: int
    verdict: str  # "at-level", "too-hard" or "too-easy"
    stuck: tuple[StuckCell, ...] = ()
    next_technique: str | None = None
    removable: tuple[Coord, ...] = ()

    def to_json_obj(self) -> dict[str, object]:
        return {
            "target": self.target,
            "level": self.level,
            "verdict": self.verdict,
            "stuck": [cell.to_json_obj() for cell in self.stuck],
            "nextTechnique": self.next_technique,
            "removable": [list(c) for c in self.removable],
        }


def level_detail(instance: Instance, target: int) -> LevelDetail:
    """The detail of ``instance`` against ``target`` (see :class:`LevelDetail`)."""
    g = _Givens(instance)
    top = len(g.template.scale) - 1
    if not 0 <= target <= top:
        raise ValueError(f"target level {target} is outside 0..{top}")
    solver = g.template.fork(g.given)
    full = g.template.fork(g.given)
    level = grade_of(full, full.run(), instance.family, instance.digest).level
    if level == target:
        return LevelDetail(target, level, "at-level")
    if level > target:
        solver.run(cap=target)
        stuck = tuple(
            StuckCell(solver.coord[x], x, tuple(sorted(solver.cand[x])))
            for x in sorted(solver.cand, key=lambda y: solver.coord[y])
            if x not in solver.placed and len(solver.cand[x]) > 1
        )
        nxt = "search"
        for cap in range(target + 1, top):
            before = len(solver.steps)
            solver.run(cap=cap)
            if len(solver.steps) > before:
                nxt = solver.steps[before].technique
                break
        return LevelDetail(target, level, "too-hard", stuck, nxt)
    removable = []
    for name in sorted(g.given, key=lambda x: g.template.coord[x]):
        value = g.given.pop(name)
        if g.template.fork(g.given).run(cap=target) == "solved":
            removable.append(g.template.coord[name])
        g.given[name] = value
    return LevelDetail(target, level, "too-easy", removable=tuple(removable))
