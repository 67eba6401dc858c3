"""The table-table scenario the commit-points tests share (docs/semantics/commit-points.md): six inputs, two
per micro-batch in the Spark port of tests/test_commit_points_spark.py, checked against the level's pure
decision (tests/test_commit_points_level.py) and against a real Kafka application
(tests/test_commit_points_kafka.py). Rows are ``(side, key, value, ts)`` for ``make_case``."""

from __future__ import annotations

from kjoin.oracle.records import Output

__all__ = ["MICRO_BATCH", "PORT"]

MICRO_BATCH = [
    ("left", "k1", "A", 1),
    ("right", "k1", "a", 2),
    ("left", "k1", "B", 3),
    ("left", "k1", "C", 4),
    ("right", "k2", "x", 5),
    ("left", "k2", "X", 6),
]
PORT = (Output("k1", ("A", "a"), 2, -1), Output("k1", ("C", "a"), 4, -1), Output("k2", ("X", "x"), 6, -1))
"""A micro-batch port's output for ``MICRO_BATCH``, two inputs per batch: one result per changed key
per batch."""
