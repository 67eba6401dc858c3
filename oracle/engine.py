"""Dispatch a join specification to the join module that models it, and run records through it.

TopologyTestDriver's shape (``JoinDriver``, docs/driver.md): pipe records in one at a time, in processing
order, and read the outputs each one caused. Each join module provides a processor class with
``process(index, record) -> list[Output]`` (one step of the join: the state is the processor's own,
updated in place for speed; there is no I/O, clock or randomness), ``commit(index)`` (a commit right after
record ``index``: what flushing its record caches emits, spec PR-7) and ``snapshot()`` (its state as plain
data, for explaining a divergence).

Commits happen where ``record_cache.commit_points`` says: after every record under the test driver's
settings, at the scenario's commit points otherwise, and once more when the application closes after the
last record (spec PR-8). Joins with no cached store emit nothing at a commit, so they are not asked.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Protocol

from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.errors import UnsupportedJoinError
from kjoin.oracle.record_cache import commit_points
from kjoin.oracle.records import JoinSpec, Output, Record

__all__ = ["JoinProcessor", "cyclic_gc_paused", "processor_for", "run", "run_traced"]


class JoinProcessor(Protocol):
    """One join's state machine."""

    def process(self, index: int, record: Record) -> list[Output]:
        """Process input record number ``index`` and return the outputs it emits, in emission order."""
        ...

    def commit(self, index: int) -> list[Output]:
        """Commit right after input record ``index``: flush the record caches, return what they forward."""
        ...

    def snapshot(self) -> dict[str, object]:
        """The join's state (window store / table contents, stream time, held records) as plain data."""
        ...


def processor_for(spec: JoinSpec, behaviour: Behaviour) -> JoinProcessor:
    """A fresh processor for ``spec`` under ``behaviour``; raises ``UnsupportedJoinError`` if that
    Kafka has no such join."""
    if spec.versioned is not None and (spec.versioned.left or spec.versioned.right):
        if not behaviour.has_versioned_stores:
            raise UnsupportedJoinError(f"versioned stores need Kafka 3.5+ (era {behaviour.era})")
        if spec.join == "stream-stream":
            raise UnsupportedJoinError("a stream-stream join has no tables to version")
    if spec.join == "stream-stream" and spec.self_join:
        from kjoin.oracle.self_join import self_join_for

        return self_join_for(spec, behaviour)
    if spec.self_join:
        raise UnsupportedJoinError(f"a self-join is a stream-stream join, not {spec.join!r}")
    if spec.join == "stream-stream":
        from kjoin.oracle.stream_stream import StreamStreamJoin

        return StreamStreamJoin(spec, behaviour)
    if spec.join == "stream-table":
        from kjoin.oracle.stream_table import StreamTableJoin

        return StreamTableJoin(spec, behaviour)
    if spec.join == "table-table":
        from kjoin.oracle.table_table import TableTableJoin

        return TableTableJoin(spec, behaviour)
    if spec.join == "fk":
        from kjoin.oracle.foreign_key import ForeignKeyJoin

        return ForeignKeyJoin(spec, behaviour)
    if spec.join == "stream-globaltable":
        from kjoin.oracle.global_table import GlobalTableJoin

        return GlobalTableJoin(spec, behaviour)
    raise UnsupportedJoinError(f"unknown join kind {spec.join!r}")


def run(spec: JoinSpec, records: Iterable[Record], behaviour: Behaviour) -> list[Output]:
    """All outputs of ``records`` piped in order through a fresh join, then of closing the application, in
    emission order."""
    processor = processor_for(spec, behaviour)
    commits = commit_points(spec)
    outputs: list[Output] = []
    with cyclic_gc_paused():
        if commits is None:
            for index, record in enumerate(records):
                outputs.extend(processor.process(index, record))
            return outputs
        index = -1
        for index, record in enumerate(records):
            outputs.extend(processor.process(index, record))
            if commits.after(record):
                outputs.extend(processor.commit(index))
        if index >= 0:
            outputs.extend(processor.commit(index))  # the closing commit (spec PR-8)
    return outputs


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while records run through a join, then re-enable it if it
    was enabled before.

    A join's state and outputs hold no reference cycles (tuples, lists and dicts of keys, values and
    timestamps; only a processor that keeps one of its own bound methods is in a cycle, freed when the
    collector runs again), so reference counting frees whatever a join drops, and the collector would only
    scan the growing state, inputs and outputs over and over: 10-35% of a 100k-record run. ``kjoin oracle
    --jsonl`` pauses it the same way while it reads, runs and answers one line."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def run_traced(
    spec: JoinSpec, records: Iterable[Record], behaviour: Behaviour
) -> list[tuple[list[Output], dict[str, object]]]:
    """Per input record: the outputs it emitted (with those of a commit right after it, and for the last
    record those of the closing commit) and the join's state right after it."""
    processor = processor_for(spec, behaviour)
    commits = commit_points(spec)
    steps: list[tuple[list[Output], dict[str, object]]] = []
    listed = list(records)
    for index, record in enumerate(listed):
        outputs = processor.process(index, record)
        if commits is not None and (commits.after(record) or index == len(listed) - 1):
            outputs += processor.commit(index)
        steps.append((outputs, processor.snapshot()))
    return steps
