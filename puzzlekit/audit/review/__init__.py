"""The review kernel (:mod:`.kernel`): may an action be applied without a human? Its six
factors (:mod:`.factors`), the identity of its documents (:mod:`.identity`) and their JSON
Schemas (:mod:`.jsonschema`).
"""
