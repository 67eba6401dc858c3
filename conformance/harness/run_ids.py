"""Failure messages with their run-specific tokens masked, so two calls that fail the same way compare equal.

The harness bisects a failed candidate call and stops early when both halves fail "the same way"
(``harness.calls``; docs/candidates.md, "The candidate protocol"). A streaming query's error names things that
are new on every call even when the failure is the same: the query's ``[id = ..., runId = ...]`` (UUIDs) and
its name (the candidates number their queries), its temporary checkpoint folder, the expression ids of the
logical plan Spark appends, Spark's stage and task attempt counters, object addresses and Java identity
hashes. ``without_run_ids`` masks exactly those and nothing else: exception types, texts, values, file names,
line numbers, scenario ids and micro-batch ids are kept, so two genuinely different failures stay different.
"""

from __future__ import annotations

import re
import tempfile

__all__ = ["same_failure", "without_run_ids"]

_UUID = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_QUERY = re.compile(r"(?:\b[Qq]uery|^Identifier:) (\S+) \[id = <uuid>, runId = <uuid>\]", re.MULTILINE)
"""Spark's name for a streaming query (after UUIDs are masked): ``Query NAME [id = ...]`` or, in its
description, ``Identifier: NAME [id = ...]``; the name is the group."""
_QUERY_DESCRIPTION = re.compile(r"^=== Streaming Query ===$.*?^Logical Plan:$.*?(?=\n\n|\Z)", re.M | re.S)
"""The description Spark appends to a ``StreamingQueryException``: offsets, state, the logical plan."""
_EXPRESSION_ID = re.compile(r"(?<=[\w)])#\d+L?\b")
"""A Catalyst expression id in a logical plan (``scenario_id#749``, ``ts#28L``): a session-wide counter."""
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,16}\b")
"""A memory address as Python's ``repr`` shows it (``<... object at 0x7f3a...>``)."""
_IDENTITY_HASH = re.compile(r"(?<=[\w$])@[0-9a-f]{5,8}\b")
"""A Java object's default ``toString`` (``org.apache.spark...StateStore@1b2c3d4e``)."""
_STAGE = re.compile(r"\b([Tt]ask) \d+(?:\.\d+)? in stage \d+\.\d+")
_TASK_ID = re.compile(r"\(TID \d+\)")
"""Spark's scheduler counters: stage ids and task attempt ids grow over the whole session, and which task
(partition) fails first depends on which scenarios the call has."""
_TEMP_ROOTS = tuple(dict.fromkeys([tempfile.gettempdir().rstrip("/"), "/tmp", "/var/tmp"]))
_TEMP_FOLDER = re.compile(
    r"((?:file:)?(?:" + "|".join(re.escape(root) for root in _TEMP_ROOTS) + r")/(?:tmp|[\w.-]*[-_]))"
    r"(?![0-9]{8})[a-z0-9_]{8}(?=[/\s'\",;:)\]]|$)"
)
"""A folder ``tempfile`` made (its prefix, ``tmp`` or ending in ``-``/``_``, then 8 random characters)
directly under the temporary directory: e.g. a query's checkpoint folder
``/tmp/kjoin-checkpoints-x1y2z3w4``."""


def without_run_ids(message: str) -> str:
    """``message`` with its run-specific tokens masked (``<uuid>``, ``<query>``, ``<temp>``, ...)."""
    text = _UUID.sub("<uuid>", message)
    for name in {match.group(1) for match in _QUERY.finditer(text)}:
        text = re.sub(rf"(?<![\w.-]){re.escape(name)}(?![\w.])", "<query>", text)
    text = _QUERY_DESCRIPTION.sub(lambda plan: _EXPRESSION_ID.sub("#<n>", plan.group(0)), text)
    text = _TEMP_FOLDER.sub(r"\1<temp>", text)
    text = _ADDRESS.sub("0x<address>", text)
    text = _IDENTITY_HASH.sub("@<hash>", text)
    text = _STAGE.sub(r"\1 <n> in stage <n>", text)
    return _TASK_ID.sub("(TID <n>)", text)


def same_failure(one: str, other: str) -> bool:
    """Whether two failure messages are the same once their run-specific tokens are masked."""
    return one == other or without_run_ids(one) == without_run_ids(other)
