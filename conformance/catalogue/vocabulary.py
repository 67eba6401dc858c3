"""The catalogue's closed vocabularies: features, flags, cited documents, join folders.

A scenario naming a value outside these lists is an error when it loads, never silently accepted
(docs/scenario-format.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, NamedTuple, get_args

from kjoin.oracle.records import JoinKind, Variant

__all__ = [
    "DOCUMENTS",
    "FEATURES",
    "FLAGS",
    "JOIN_FOLDERS",
    "VARIANTS_OF",
    "Document",
    "Feature",
    "Flag",
]

Feature = Literal[
    "null-values",
    "null-value-joins",
    "null-keys",
    "one-sided-left-join",
    "spurious-results",
    "spurious-free",
    "grace-period",
    "tombstones",
    "unnecessary-tombstones",
    "repeated-updates",
    "output-timestamps",
    "out-of-order",
    "window-bounds",
    "asymmetric-window",
    "store-expiry",
    "versioned-stores",
    "stream-table-grace",
    "multiple-keys",
    "foreign-key-change",
    "null-foreign-key",
    "left-delete",
    "right-update",
    "duplicate-results",
    "fk-hash-check",
    "emit-throttle",
    "record-cache",
    "self-join",
    "null-mapped-keys",
]
FEATURES: Mapping[Feature, str] = MappingProxyType(
    {
        "null-values": "null-valued stream records or table tombstones in the input",
        "null-value-joins": "0.10.0/0.10.1 join null stream values: joiner(null, other) (spec SS-11, ST-4)",
        "null-keys": "records with a null key (dropped, or forwarded by KIP-962 left/outer joins in 3.7+)",
        "one-sided-left-join": "0.10.x left stream-stream join: only left records probe (spec SS-12)",
        "spurious-results": "eager left/outer non-joined results (KIP-77 era or the legacy JoinWindows API)",
        "spurious-free": "deferred left/outer non-joined results, emitted when window + grace close (3.1+)",
        "grace-period": "an explicit grace period (JoinWindows or KIP-923 stream-table grace)",
        "tombstones": "table joins emitting tombstones (deletes) in their output",
        "unnecessary-tombstones": "0.10.0/0.10.1 table joins send a tombstone for each update without result",
        "repeated-updates": "a table update that repeats the current value and still emits a result",
        "output-timestamps": "output ts other than the trigger's (max of inputs, deferred results)",
        "out-of-order": "input records with timestamps below the stream time",
        "window-bounds": "records right at or just past the join window bounds",
        "asymmetric-window": "a join window with before != after",
        "store-expiry": "window store retention and expiry (store kind matters)",
        "versioned-stores": "tables materialized in versioned stores (KIP-889/914, 3.5+)",
        "stream-table-grace": "stream-table join with a grace buffer (KIP-923, 3.6+)",
        "multiple-keys": "more than one join key",
        "foreign-key-change": "a left row of a foreign-key join changes its foreign key",
        "null-foreign-key": "a left row of a foreign-key join whose foreign key is null",
        "left-delete": "a left-side delete in a table or foreign-key join",
        "right-update": "right-side updates fanning out to subscribed left rows (foreign-key join)",
        "duplicate-results": "Kafka emits the same result or tombstone twice (e.g. KAFKA-16394)",
        "fk-hash-check": "a foreign-key response is dropped when the left row changed since (KIP-213 hash)",
        "emit-throttle": "the wall-clock emit throttle of spurious-free stream-stream joins (spec PR-2)",
        "record-cache": "KTable record caches, flushed at commits (spec PR-5, PR-6, PR-7)",
        "self-join": "a stream joined with itself, with or without the 3.4+ single-store rewrite (spec SJ-1)",
        "null-mapped-keys": "stream-globaltable records whose key mapper gives null (spec GT-4, GT-5)",
    }
)
"""The closed feature vocabulary: a scenario's ``features`` must come from here."""

Flag = Literal["generated"]
FLAGS: tuple[Flag, ...] = get_args(Flag)
"""Scenario flags: ``generated`` marks saved counterexamples (docs/testing.md, ``kjoin fuzz``)."""

JOIN_FOLDERS: Mapping[JoinKind, str] = MappingProxyType(
    {
        "stream-stream": "stream_stream",
        "stream-table": "stream_table",
        "table-table": "table_table",
        "fk": "foreign_key",
        "stream-globaltable": "stream_globaltable",
    }
)
"""The folder under ``scenarios/`` that holds the seed tables of each join kind."""


VARIANTS_OF: Mapping[JoinKind, tuple[Variant, ...]] = MappingProxyType(
    {
        "stream-stream": ("inner", "left", "outer"),
        "stream-table": ("inner", "left"),
        "table-table": ("inner", "left", "outer"),
        "fk": ("inner", "left"),
        "stream-globaltable": ("inner", "left"),
    }
)
"""The variants each join kind has in Kafka Streams (there is no outer stream-table, foreign-key or
stream-globaltable join)."""


class Document(NamedTuple):
    """A public document scenarios cite: its title, where to read it, and whether it is a table source
    (then a scenario quotes the table's rows in ``info``)."""

    title: str
    url: str
    tables: bool


DOCUMENTS: Mapping[str, Document] = MappingProxyType(
    {
        "KIP-77": Document(
            "KIP-77: Improve Kafka Streams Join Semantics",
            "https://cwiki.apache.org/confluence/display/KAFKA/KIP-77%3A+Improve+Kafka+Streams+Join+Semantics",
            True,
        ),
        "join-semantics-wiki": Document(
            "Kafka Streams Join Semantics (Apache Kafka wiki)",
            "https://cwiki.apache.org/confluence/display/KAFKA/Kafka+Streams+Join+Semantics",
            True,
        ),
        "join-design-wiki": Document(
            "Kafka Streams join design notes: consistency of joins (Apache Kafka wiki, page 63407287)",
            "https://cwiki.apache.org/confluence/pages/viewpage.action?pageId=63407287",
            False,
        ),
        "KIP-213": Document(
            "KIP-213: Support non-key joining in KTable",
            "https://cwiki.apache.org/confluence/display/KAFKA/KIP-213+Support+non-key+joining+in+KTable",
            True,
        ),
        "KIP-914": Document(
            "KIP-914: DSL Processor Semantics for Versioned Stores",
            "https://cwiki.apache.org/confluence/display/KAFKA/KIP-914%3A+DSL+Processor+Semantics+for+Versioned+Stores",
            True,
        ),
        "KAFKA-16394": Document(
            "KAFKA-16394: foreign-key left join repeats results on a foreign-key change (Apache Kafka Jira)",
            "https://issues.apache.org/jira/browse/KAFKA-16394",
            False,
        ),
        "kjoin-spec": Document(
            "This project's specification (docs/semantics/): the section names a rule id such as SS-7",
            "docs/semantics/README.md",
            False,
        ),
    }
)
"""Documents a scenario's ``[source]`` may cite (``document = "KIP-77"``)."""
