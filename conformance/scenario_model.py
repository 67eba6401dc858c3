"""What a seed-table file holds once loaded: scenarios, expected blocks, errata, closed vocabularies.

Frozen, slotted dataclasses (STYLE.md rule 5); the loader is ``scenario_files``, the cell grammar
``scenario_tables``. A ``Scenario`` gives the oracle one ``JoinSpec`` per variant (``Scenario.spec``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal, NamedTuple, get_args

from kjoin.conformance.scenario_tables import ExpectedItem
from kjoin.oracle.records import (
    FkExtractor,
    JoinKind,
    JoinSpec,
    Record,
    StoreKind,
    Variant,
    Versioning,
    Window,
)

__all__ = [
    "FEATURES",
    "FLAGS",
    "JOIN_FOLDERS",
    "Catalogue",
    "Erratum",
    "ExpectedBlock",
    "Feature",
    "Flag",
    "Scenario",
    "ScenarioError",
    "Source",
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
]
FEATURES: Mapping[Feature, str] = MappingProxyType(
    {
        "null-values": "null-valued stream records or table tombstones in the input",
        "null-value-joins": "0.10.0/0.10.1 join null stream values: joiner(null, other) (SEMANTICS 1.4, 2)",
        "null-keys": "records with a null key (dropped, or forwarded by KIP-962 left/outer joins in 3.7+)",
        "one-sided-left-join": "0.10.x left stream-stream join: only left records probe (SEMANTICS 1.5)",
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
    }
)
"""The closed feature vocabulary (STYLE.md §1): a scenario's ``features`` must come from here."""

Flag = Literal["generated"]
FLAGS: tuple[Flag, ...] = get_args(Flag)
"""Scenario flags: ``generated`` marks saved counterexamples (STYLE.md rule 16)."""

JOIN_FOLDERS: Mapping[JoinKind, str] = MappingProxyType(
    {
        "stream-stream": "stream_stream",
        "stream-table": "stream_table",
        "table-table": "table_table",
        "fk": "foreign_key",
    }
)
"""The folder under ``scenarios/`` that holds the seed tables of each join kind."""


class ScenarioError(ValueError):
    """A seed-table file that cannot be used; the message names file, scenario, field and value."""

    def __init__(
        self, path: str, scenario_id: str | None, field: str, value: object, problem: str, location: str = ""
    ) -> None:
        self.path = path
        self.scenario_id = scenario_id
        self.location = location
        self.field = field
        self.value = value
        self.problem = problem
        where = f"{location}, field {field}" if location else f"field {field}"
        super().__init__(f"{path} [{scenario_id or '?'}] {where}: {value!r} {problem}")


@dataclass(frozen=True, slots=True)
class Source:
    """Where the table comes from: seed file, section, ``info`` (the rows exactly as the seed shows them)."""

    seed: str
    section: str
    info: str


@dataclass(frozen=True, slots=True)
class ExpectedBlock:
    """What one Kafka version emits for the table, per variant: ``(input index, item)`` in emission order."""

    kafka: str
    describes: str
    intended: bool
    timestamps: bool
    variants: tuple[Variant, ...]
    outputs: Mapping[Variant, tuple[tuple[int, ExpectedItem], ...]]

    @property
    def label(self) -> str:
        """``0.10.1`` or ``3.9-intended``: the era part of a test id."""
        return f"{self.kafka}-intended" if self.intended else self.kafka


@dataclass(frozen=True, slots=True)
class Erratum:
    """Where the seed table is wrong: what it shows, what Kafka does, and the evidence (STYLE.md rule 7)."""

    row: int | None
    variant: Variant | None
    kafka: str | None
    seed_shows: str
    kafka_does: str
    evidence: str


@dataclass(frozen=True, slots=True)
class Scenario:
    """One seed table: input records, join specification per variant, expected outputs per era, errata."""

    path: str
    id: str
    description: str
    join: JoinKind
    variants: tuple[Variant, ...]
    features: tuple[Feature, ...]
    flags: tuple[Flag, ...]
    source: Source
    window: Window | None
    stores: StoreKind
    versioned: Versioning | None
    fk_extractor: FkExtractor
    records: tuple[Record, ...]
    expected: tuple[ExpectedBlock, ...]
    errata: tuple[Erratum, ...]

    def spec(self, variant: Variant) -> JoinSpec:
        """The oracle's join specification for ``variant``."""
        if variant not in self.variants:
            raise ValueError(
                f"scenario {self.id} has no variant {variant!r} (has {', '.join(self.variants)})"
            )
        return JoinSpec(
            join=self.join,
            variant=variant,
            window=self.window,
            stores=self.stores,
            versioned=self.versioned,
            fk_extractor=self.fk_extractor,
        )

    @property
    def specs(self) -> Mapping[Variant, JoinSpec]:
        """``spec(variant)`` for every variant of the table."""
        return MappingProxyType({variant: self.spec(variant) for variant in self.variants})


class Catalogue(NamedTuple):
    """Every seed table that loaded, and one error per file (or duplicate id) that did not."""

    scenarios: tuple[Scenario, ...]
    errors: tuple[ScenarioError, ...]
