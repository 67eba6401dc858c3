"""The document layer: what a conformance run's results are and how they are written, read and compared,
apart from Spark (docs/results-format.md).

A case's outcome (``outcomes``) and why Kafka emits what it emits there (``explain``), the results document
with its journal, reader, validator and merger (``results``), the verdicts of which Kafka era a candidate
matches (``verdicts``), run-to-run comparisons (``comparison``), version diffs (``version_diff``) with the
behaviour flags in words (``flag_notes``). The harness (``kjoin.conformance.harness``) runs candidates on
Spark and hands its outcomes here; ``kjoin report``, ``compare`` and ``diff-versions`` use this layer alone.
"""
