"""The closed loop: one driver, the holdout's isolation, batch generation, settlement of
outcomes (audit, stop, escalate or decide) and the publish gate's derivation."""
