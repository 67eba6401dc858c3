"""Plain data of the oracle: input records, output records and the join specification.

Every type here is a frozen value (a frozen ``msgspec.Struct``, or for ``Output`` a ``NamedTuple``) or a
closed ``Literal`` vocabulary, so that scenarios, the oracle and the harness exchange the same small,
immutable values (never dicts). A tombstone is always an explicit ``None``. ``msgspec.structs.replace``
copies a struct with some fields changed (docs/api.md).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Annotated, Literal, NamedTuple, get_args

import msgspec

__all__ = [
    "FK_EXTRACTORS",
    "JOIN_KINDS",
    "KEY_MAPPERS",
    "MAX_LONG",
    "OPTIMIZATIONS",
    "SIDES",
    "STORE_KINDS",
    "UNKNOWN_CAUSE",
    "VARIANTS",
    "Count",
    "FkExtractor",
    "JoinKind",
    "JoinSpec",
    "Key",
    "KeyMapper",
    "Long",
    "Optimization",
    "Output",
    "Record",
    "Settings",
    "Side",
    "StoreKind",
    "Value",
    "Variant",
    "Versioning",
    "Window",
    "foreign_key_of",
    "mapped_key_of",
    "new_output",
]

Side = Literal["left", "right"]
JoinKind = Literal["stream-stream", "stream-table", "table-table", "fk", "stream-globaltable"]
Variant = Literal["inner", "left", "outer"]
StoreKind = Literal["memory", "rocksdb"]
FkExtractor = Literal["colon-prefix", "pipe-suffix"]
Optimization = Literal["none", "all"]
"""``topology.optimization``: ``"all"`` lets Kafka 3.4+ rewrite a self-join (KAFKA-14209)."""
KeyMapper = Literal["key", "colon-prefix", "comma-second", "always-null"]

SIDES: tuple[Side, ...] = get_args(Side)
JOIN_KINDS: tuple[JoinKind, ...] = get_args(JoinKind)
VARIANTS: tuple[Variant, ...] = get_args(Variant)
STORE_KINDS: tuple[StoreKind, ...] = get_args(StoreKind)
FK_EXTRACTORS: tuple[FkExtractor, ...] = get_args(FkExtractor)
OPTIMIZATIONS: tuple[Optimization, ...] = get_args(Optimization)
KEY_MAPPERS: tuple[KeyMapper, ...] = get_args(KeyMapper)

Key = str | int | None
"""A record key. ``None`` is a null key (dropped or forwarded depending on the era)."""

Value = str | None
"""A record value. ``None`` is a null value: a tombstone for a table, a null-valued record for a stream."""

MAX_LONG = 2**63 - 1
"""Kafka's ``Long.MAX_VALUE``: the bound of timestamps, durations and integer keys."""

Long = Annotated[int, msgspec.Meta(ge=-(2**63), le=MAX_LONG)]
"""An integer in Java's ``long`` range (an integer key)."""

Count = Annotated[int, msgspec.Meta(ge=0, le=MAX_LONG)]
"""A whole number Kafka holds in a ``long`` that is never negative: a timestamp, a duration, a size."""


class Record(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True):
    """One input record, piped into topic ``side`` in processing order.

    A frozen ``msgspec.Struct`` rather than a frozen dataclass: just as immutable and slotted, but the codec
    (``kjoin.conformance.codec``) decodes a portable line's records straight into it at native speed, the
    bounds of its fields (``Long``, ``Count``) checked as they are read; unknown fields are refused there.
    Not tracked by the cyclic garbage collector (``gc=False``): it holds only text, numbers and ``None``, so
    it is never part of a cycle. ``msgspec.structs.replace`` copies one with some fields changed
    (docs/kafka.md, "As a user runs them").
    """

    side: Side
    key: str | Long | None
    """The record's ``Key``; an integer key is a Java ``long``."""
    value: Value
    ts: Count
    """The record's timestamp (ms); Kafka rejects negative ones."""
    wall_clock: Count | None = None
    """The mocked wall-clock time (ms since the start of the run) at which the record is processed: the test
    driver's start plus every ``advanceWallClockTime`` made before it is piped. ``None``: no advance since the
    record before (0 for the first). Never decreasing. docs/portable-format.md, "Production settings"."""
    commit: bool = False
    """An explicit commit right after this record is processed (as a micro-batch ends), besides those the
    ``commit_interval_ms`` setting makes. docs/portable-format.md, "Production settings"."""


class Output(NamedTuple):
    """One output record.

    ``value`` is the ``(left, right)`` pair handed to the joiner (either may be ``None`` for a missing
    side; 0.10.x can even produce ``(None, None)``), or ``None`` for a tombstone (a table join's delete).
    ``cause`` is the index of the input record whose processing emitted this output.

    A ``NamedTuple`` rather than a frozen dataclass: it is just as immutable, and the
    oracle builds one per emitted record, where a frozen dataclass's constructor costs about 3x more.
    """

    key: Key
    value: tuple[Value, Value] | None
    ts: int
    cause: int


UNKNOWN_CAUSE = -1
"""``Output.cause`` of an output whose emitting input is not known (a captured trace, a candidate's output
without its input index, a portable line: the format does not carry causes)."""

_OutputFields = tuple[Key, tuple[Value, Value] | None, int, int]

new_output: Callable[[_OutputFields], Output] = partial(tuple.__new__, Output)
"""``new_output((key, value, ts, cause))`` is ``Output(key, value, ts, cause)`` built from one tuple without
the NamedTuple constructor's Python-level ``__new__`` (about 40% cheaper; the join modules' hot paths use it).
"""


class Window(msgspec.Struct, frozen=True, gc=False):
    """Join window around a left record: a right record at ``u`` joins a left record at ``t`` iff
    ``t - before <= u <= t + after`` (both ends inclusive, spec SS-2).

    ``grace is None`` means the legacy ``JoinWindows.of(before)`` API with no grace given: eager
    ("spurious") left/outer results and the legacy default grace (spec SS-13, SS-15). A grace with
    ``legacy=True`` is the deprecated ``JoinWindows.of(before).grace(grace)``: that grace sets the stores'
    retention, but left/outer results stay eager on every version. A grace with ``legacy=False`` is
    ``ofTimeDifferenceAndGrace`` (3.1+; earlier versions only have the legacy form). For a stream-table
    join only ``grace`` is used (KIP-923 ``Joined#withGracePeriod``).
    """

    before: int = 0
    after: int = 0
    grace: int | None = None
    legacy: bool = False


class Versioning(msgspec.Struct, frozen=True, gc=False):
    """Which sides are materialized in a versioned store (KIP-889/914, 3.5+), and its history retention."""

    left: bool = False
    right: bool = False
    history_ms: int = 0

    def of(self, side: Side) -> bool:
        """Whether ``side`` is versioned."""
        return self.left if side == "left" else self.right


class Settings(msgspec.Struct, frozen=True, gc=False):
    """Settings of a running Kafka Streams application that change what a join emits (issue 26).

    The defaults are the test driver's settings the oracle was first checked under: record caching off, a
    commit after every record (as ``TopologyTestDriver`` commits), the stream-stream emit throttle off.
    docs/portable-format.md, "Production settings"; the rules are in docs/semantics/.
    """

    cache_max_bytes: int = 0
    """``statestore.cache.max.bytes`` (``cache.max.bytes.buffering`` before 3.4): the record cache of a
    thread, shared by its tasks' cached stores; 0 turns caching off."""

    commit_interval_ms: int = 0
    """``commit.interval.ms``: a commit (which flushes the caches) once the wall clock moved this far since
    the last one; 0 commits after every record, as the test driver does."""

    emit_interval_ms: int = 0
    """The internal emit interval of left/outer stream-stream joins' held non-joined results (3.1+): a pass
    over the held records runs only once the wall clock moved this far since the last pass; 0 is no
    throttle."""

    @property
    def merges_between_commits(self) -> bool:
        """Whether a record cache may merge several updates of a key before a commit flushes it (spec PR-7,
        PR-8): caching on under a commit interval. ``TopologyTestDriver`` commits after every record whatever
        the interval, so only a running application shows such a scenario (docs/kafka.md)."""
        return self.cache_max_bytes > 0 and self.commit_interval_ms > 0


class JoinSpec(msgspec.Struct, frozen=True, gc=False):
    """What to join and how: the portable scenario header (shared golden README format).

    ``fk_extractor`` says how an FK join extracts the foreign key from a left value:
    ``colon-prefix`` takes the text before the first ``:`` (the whole value if there is none; the golden
    traces' ``v.split(":")[0]``; an empty prefix is a null foreign key), ``pipe-suffix`` the text after
    the last ``|`` (Kafka's FK integration tests, ``lhsValue1|rhs1``).

    ``key_mapper`` is the ``KeyValueMapper`` of a stream-globaltable join, which picks the global table's key
    from a stream record (``mapped_key_of``; spec GT-2).
    """

    join: JoinKind
    variant: Variant
    window: Window | None = None
    stores: StoreKind = "rocksdb"
    versioned: Versioning | None = None
    fk_extractor: FkExtractor = "colon-prefix"
    settings: Settings = Settings()
    """The application's production settings (record cache, commit interval, emit throttle)."""
    self_join: bool = False
    """Stream-stream only: one input stream joined with itself (``s.join(s, ...)``); every record is a
    ``left`` record of that one topic (docs/semantics/self-join.md)."""
    optimization: Optimization = "none"
    """``topology.optimization`` the topology is built with; only a self-join's topology depends on it
    (docs/semantics/self-join.md, SJ-1)."""
    key_mapper: KeyMapper = "key"
    """stream-globaltable only: how the table key is picked from a stream record (``mapped_key_of``)."""


def foreign_key_of(value: str, extractor: FkExtractor) -> str | None:
    """The foreign key a left value of an FK join refers to (see ``JoinSpec.fk_extractor``).

    An empty extracted key (``":L3"`` or ``"L3|"``) stands for a null foreign key.
    """
    fk = value.split(":", 1)[0] if extractor == "colon-prefix" else value.rsplit("|", 1)[-1]
    return fk or None


def mapped_key_of(key: Key, value: Value, mapper: KeyMapper) -> Key:
    """The global table key a stream record maps to (``JoinSpec.key_mapper``, spec GT-2); ``None`` is a null
    mapped key.

    ``key``: the stream record's key. ``colon-prefix``: the text before the first ``:`` of the value (the
    whole value if there is none; an empty prefix is null, as ``foreign_key_of``). ``comma-second``: the
    second field of the value split at ``,`` as Java's ``String#split(",")`` splits it (trailing empty
    fields dropped), null if there is none: the mapper of Kafka's ``KStreamGlobalKTableJoinTest``.
    ``always-null``: null for every record (``RelaxedNullKeyRequirementJoinTest``). A null value maps to
    null (the driver's mappers never fail on one).
    """
    if mapper == "key":
        return key
    if value is None or mapper == "always-null":
        return None
    if mapper == "colon-prefix":
        return foreign_key_of(value, "colon-prefix")
    fields = value.split(",")
    while fields and not fields[-1]:
        fields.pop()
    return fields[1] if len(fields) > 1 else None
