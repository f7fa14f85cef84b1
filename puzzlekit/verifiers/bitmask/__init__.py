"""The bitmask verifier (:mod:`.backend`): a schema compiled into bit-mask arrays
(:mod:`.compile`), searched by numba-compiled code (:mod:`.kernel`, :mod:`.kernel9` for 81
variables of 9 values) driven from Python (:mod:`.search`); chunks of searches in one call
(:mod:`.batch`), minimization's remove-and-check (:mod:`.minimize`) and the compiled
solution sampler the generators draw with (:mod:`.sample`, named in
:data:`puzzlekit.core.solutions.COMPILED_SAMPLER`).
"""
