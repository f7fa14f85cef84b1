"""The compiled solution sampler: a seeded random full solution of a schema by the bitmask search.

The generators draw their fresh solutions with it where it applies (named in
:data:`puzzlekit.core.solutions.COMPILED_SAMPLER` and loaded on first use, since generators never
import verifiers); :func:`puzzlekit.core.solutions.random_solution` serves every other schema.
Re-exported by :mod:`puzzlekit.verifiers.bitmask.backend`. Not for verifying: one descent stops at
the first solution it finds.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from puzzlekit.core.model import Schema, SpecError
from puzzlekit.families import get_family
from puzzlekit.verifiers.bitmask.compile import NotCompilable, compiled_schema
from puzzlekit.verifiers.search import BudgetExceeded

#: nodes one randomized descent of :func:`sample_solution` may visit, and descents it tries
SAMPLE_NODES = 20_000
SAMPLE_TRIES = 5

#: the sampler's search of each compiled schema, per thread (built once: its arrays, the band
#: test and the structure's search arguments cost more than one descent)
_SEARCHES: dict[tuple[int, int], Any] = {}


def _search(cs: Any) -> Any:
    """This thread's sampling search over ``cs``'s rules (kept and reused; every descent
    resets it and sets its order and value ranks afresh)."""
    from puzzlekit.verifiers.bitmask.search import Search

    key = (threading.get_ident(), id(cs))
    search = _SEARCHES.get(key)
    if search is None or search.cs is not cs:
        if len(_SEARCHES) > 64:
            _SEARCHES.clear()
        search = _SEARCHES[key] = Search(cs, cs.structure(()), 1)
    return search


#: each schema's compiled schema (None: the sampler does not take it), by the schema object's
#: id (checked by identity: the entry holds the object)
_COMPILED: dict[int, tuple[Schema, Any]] = {}


def _compiled(schema: Schema) -> Any:
    """The compiled schema of ``schema`` when it is the one its family builds for its params
    and compiles, else None; found once per schema object."""
    found = _COMPILED.get(id(schema))
    if found is not None and found[0] is schema:
        return found[1]
    family = get_family(schema.family)
    try:
        same = schema == family.schema(schema.params_dict())
        cs = compiled_schema(family, schema) if same else None
    except (NotCompilable, SpecError):
        cs = None
    if len(_COMPILED) > 64:
        _COMPILED.clear()
    _COMPILED[id(schema)] = (schema, cs)
    return cs


def sample_solution(schema: Schema, rng: np.random.Generator) -> dict[str, int] | None:
    """A seeded random full solution of ``schema`` by the compiled search: equally constrained
    variables taken in a random order, each variable's values in a random order, the first
    solution found. None when the schema is not the one its family builds for its params (a
    faulty filter's believed schema), is not compilable, or no descent of ``SAMPLE_NODES``
    nodes in ``SAMPLE_TRIES`` finds a solution: the caller then uses the generic search.

    Like the generic sampler it reaches every solution with some probability and is not
    uniform; one rng state gives one solution, in every process."""
    cs = _compiled(schema)
    if cs is None:
        return None
    search = _search(cs)
    nv, nb = len(cs.names), len(cs.values)
    for _ in range(SAMPLE_TRIES):
        search.reset()
        search.set_order(rng.permutation(nv))
        search.set_value_ranks(rng.random((nv, nb)))
        try:
            search.run(cs.base_dom.copy(), SAMPLE_NODES, None)
        except BudgetExceeded:
            continue
        found = search.solutions()
        return dict(found[0]) if found else None
    return None
