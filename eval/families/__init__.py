"""Each table family's evaluation, one module per family (named as the family).

A module here registers the family's :class:`~probesmith.eval.registry.Evaluation` (runner,
report section, review rows, lm-eval tasks, comparison) and holds its result schema and metrics;
the shared machinery (``run``, ``metrics``, ``report``, ``review``, ``harness``) names no family.
"""
