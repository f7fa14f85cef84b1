"""The sat verifier (:mod:`.backend`): the rules encoded as clauses (:mod:`.encoding`) and
the incremental uniqueness session minimization asks (:mod:`.session`).
"""
