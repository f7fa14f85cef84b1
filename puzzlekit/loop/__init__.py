"""The closed loop: the one driver (:mod:`~puzzlekit.loop.driver`: ``LoopSpec`` in,
``LoopResult`` out), the holdout's isolation (:mod:`~puzzlekit.loop.holdout`), what happens to an
accepted puzzle (:mod:`~puzzlekit.loop.hooks`), the one row schema (:mod:`~puzzlekit.loop.rows`,
:mod:`~puzzlekit.loop.row_schema`), batch generation (:mod:`~puzzlekit.loop.batch`), settlement of
outcomes (:mod:`~puzzlekit.loop.steps`, :mod:`~puzzlekit.loop.settle`: audit, stop, escalate or
decide) and the publish gate's derivation (:mod:`~puzzlekit.loop.publish`)."""
