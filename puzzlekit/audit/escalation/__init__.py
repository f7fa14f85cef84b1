"""Escalation: the targets that act on a stop (:mod:`.targets`), the case each is handed
(:mod:`.cases`), the store beside the ledger (:mod:`.store`) and the chain of escalations
of one sequence (:mod:`.chain`).
"""
