"""Golden corpora (:mod:`.corpus`): their entries (:mod:`.entries`), building them
(:mod:`.build`) and the differences a re-verification finds (:mod:`.diff`).
"""
