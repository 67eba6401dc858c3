"""The one case type: a scenario x variant x Kafka version, with what its file states Kafka emits.

Every command and the pytest plugin work on ``Case``: ``kjoin check`` compares the oracle with a case's
``expected`` outputs, ``kjoin run`` and the plugin compare a candidate with the oracle, ``diff-versions``
runs a case as two versions, fuzzing and ``kjoin verify`` build cases from generated scenarios. Ids read
``<scenario>[<variant>-<kafka>]``, with ``-intended`` appended for the documented semantics
(docs/scenario-format.md).

The types are frozen ``msgspec.Struct``s: they compare, hash, pickle and print as frozen dataclasses would,
and ``msgspec.structs.replace`` copies one with some fields changed (docs/kafka.md, "The oracle's other types
as structs"). None is tracked by the cyclic garbage collector (``gc=False``): they hold text, numbers,
tuples, other such values and a case's decoded JSON ``extra`` fields, never a cycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import msgspec

from kjoin.oracle.records import JoinKind, JoinSpec, Output, Record, Variant

__all__ = ["About", "Case", "Erratum", "Expected", "MicroBatches", "Reference", "case_id"]


def case_id(scenario: str, variant: str, kafka: str, intended: bool) -> str:
    """``<scenario>[<variant>-<kafka>]``, with ``-intended`` for the documented semantics."""
    return f"{scenario}[{variant}-{kafka}{'-intended' if intended else ''}]"


class Expected(msgspec.Struct, frozen=True, gc=False):
    """What a scenario file states Kafka emits for one case, in emission order.

    ``causes_known``: each output's ``cause`` is the input row that emitted it (a seed table's rows), else
    the file gives only the order (a captured trace). ``timestamps``: false when the file states no output
    timestamps; they then match anything. ``label`` names where the statement comes from.
    """

    outputs: tuple[Output, ...]
    causes_known: bool
    timestamps: bool = True
    label: str = ""


class Reference(msgspec.Struct, frozen=True, gc=False):
    """A public source a scenario cites: a closed-vocabulary document, a section, and the table rows exactly
    as the document shows them (``info``, empty when the source is not a table)."""

    document: str
    section: str
    info: str = ""


class Erratum(msgspec.Struct, frozen=True, gc=False):
    """Where the cited table is wrong: what it shows, what Kafka does, the evidence
    (docs/semantics/errata.md). ``row``, ``variant`` and ``kafka`` narrow it down (``None``: the whole
    table)."""

    row: int | None
    variant: Variant | None
    kafka: str | None
    seed_shows: str
    kafka_does: str
    evidence: str


class About(msgspec.Struct, frozen=True, gc=False):
    """What a hand-written scenario says about itself (seed tables and edge cases)."""

    description: str
    features: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    reference: Reference | None = None
    errata: tuple[Erratum, ...] = ()


class MicroBatches(msgspec.Struct, frozen=True, gc=False):
    """How a streaming candidate is fed one case: ``starts`` are the indices of the records that begin a
    new micro-batch (increasing, each above 0 and below the number of records; empty: one micro-batch),
    ``split`` the option that chose them (``8``, ``random:7``; docs/streaming.md#micro-batch-splits).
    Shrinking keeps ``split`` and removes starts."""

    split: str
    starts: tuple[int, ...]

    def batch_of(self, index: int) -> int:
        """The micro-batch (0, 1, ...) that record ``index`` is fed in."""
        return sum(start <= index for start in self.starts)


class Case(msgspec.Struct, frozen=True, gc=False):
    """One scenario x variant x era, ready for the oracle and for a candidate.

    ``source`` is the file it comes from (``scenarios/golden/3.9.jsonl``) with ``line`` for JSON Lines;
    ``expected`` is what that file states for exactly this version, variant and ``intended`` setting
    (``None`` when it states nothing, e.g. after ``--kafka`` retargeted the case); ``about`` is the
    scenario's own description; ``extra`` keeps every other field of a portable line (provenance).
    ``micro_batches``: the micro-batch split a streaming candidate is fed (``None``: its own default);
    the id then ends in ``@<split>``. ``batch``: the batch composition it is checked in (``None``: with every
    case of its join kind; ``"store-shape"``: with the cases of its store shape only, the id then ending in
    ``~<shape>-batch``; ``kjoin.conformance.harness.compositions``).
    """

    id: str
    scenario: str
    kafka: str
    intended: bool
    spec: JoinSpec
    records: tuple[Record, ...]
    source: str = ""
    line: int | None = None
    expected: Expected | None = None
    about: About | None = None
    extra: Mapping[str, Any] = msgspec.field(default_factory=lambda: MappingProxyType({}))
    micro_batches: MicroBatches | None = None
    batch: str | None = None

    @property
    def join(self) -> JoinKind:
        return self.spec.join

    @property
    def variant(self) -> Variant:
        return self.spec.variant

    @property
    def where(self) -> str:
        """``file:line`` (or the file) for messages."""
        return self.source if self.line is None else f"{self.source}:{self.line}"
