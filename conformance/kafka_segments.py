"""Kafka's side of the ``commit-points`` level, from the oracle: what Kafka emits between any two commit
points of a scenario (spec CP-1, CP-3; ``kjoin.conformance.commit_points`` decides).

Table results (table-table and foreign-key joins): the scenario with both source tables behind record
caches (Kafka's default 10 MiB, or the scenario's own size when larger, so nothing is evicted), no commit
interval of its own (``commit.interval.ms`` at Kafka's default with a wall clock that never moves: only the
commits asked for) and the records' own commit points and wall clocks dropped. ``segment(p, q)`` is the
oracle's output for the first ``q`` records with a commit after record ``#p-1``, less its output for the
first ``p`` records: the end of the input is a commit, and after a commit at ``p`` the output no longer
depends on anything before it. Each oracle run is the oracle's ordinary entry point (``engine.run``).

Stream results (no cache forwards them, spec PR-5): the outputs of processing the records between the two
commits, from one run of the scenario as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import msgspec
from msgspec.structs import replace

from kjoin.conformance.commit_points import Segments, by_cause
from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.engine import run
from kjoin.oracle.records import JoinSpec, Output, Record, Settings

__all__ = ["DEFAULT_CACHE_MAX_BYTES", "DEFAULT_COMMIT_INTERVAL_MS", "TABLE_JOINS", "kafka_segments"]

DEFAULT_CACHE_MAX_BYTES = 10 * 1024 * 1024
"""Kafka's default ``statestore.cache.max.bytes`` (``cache.max.bytes.buffering`` before 3.4)."""
DEFAULT_COMMIT_INTERVAL_MS = 30_000
"""Kafka's default ``commit.interval.ms`` (at-least-once)."""
TABLE_JOINS = frozenset({"table-table", "fk"})


def kafka_segments(spec: JoinSpec, records: Sequence[Record], behaviour: Behaviour) -> Segments:
    """What Kafka (``behaviour``) emits between any two commit points of ``records`` (module docstring).
    The oracle runs lazily, when the decision asks for a segment; it raises ``OracleError`` then (e.g.
    ``UnmodelledSettingsError`` where it does not model the cache)."""
    if spec.join not in TABLE_JOINS:
        return by_cause(run(spec, records, behaviour), len(records))
    settings = Settings(
        cache_max_bytes=max(spec.settings.cache_max_bytes, DEFAULT_CACHE_MAX_BYTES),
        commit_interval_ms=DEFAULT_COMMIT_INTERVAL_MS,
        emit_interval_ms=spec.settings.emit_interval_ms,
    )
    cached = replace(spec, settings=settings)
    plain = [msgspec.structs.replace(record, commit=False, wall_clock=None) for record in records]

    @cache
    def up_to(p: int) -> list[Output]:
        return run(cached, plain[:p], behaviour)

    def segment(p: int, q: int) -> Sequence[Output]:
        committed = [*plain[: p - 1], msgspec.structs.replace(plain[p - 1], commit=True)] if p > 0 else []
        return run(cached, [*committed, *plain[p:q]], behaviour)[len(up_to(p)) :]

    return Segments(len(records), segment, merge_repeats=True)
