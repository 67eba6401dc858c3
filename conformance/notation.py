"""The project's notation for records and outputs, as the seed tables write them (docs/scenario-format.md).

``k1: L1 - R1 @5`` is a joined output (``null`` for a missing side), ``k1: null @7`` a tombstone, and
``left k1: L1 @5`` an input record. The one place this notation is written: the catalogue's cells, the
checker's details, the harness's and the command line's text, the reports' pages and the scale pages use
these functions, so a user reads one notation everywhere.

Pure and self-contained (no ``kjoin`` import), so the reports, which render documents and import neither the
oracle nor the harness, use it too: outputs and records come either as the oracle's objects
(``show_output``, ``show_record``) or as the documents write them (``show_output_json``, ``show_record_json``,
docs/results-format.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

__all__ = [
    "NULL",
    "show_item",
    "show_key",
    "show_operand",
    "show_output",
    "show_output_json",
    "show_record",
    "show_record_json",
    "show_value",
]

NULL = "null"
"""A null key, a missing side, a null value or a tombstone."""


class OutputLike(Protocol):
    """What is shown of an output (``kjoin.oracle.records.Output``)."""

    @property
    def key(self) -> object: ...
    @property
    def value(self) -> Sequence[object] | None: ...
    @property
    def ts(self) -> int: ...


class RecordLike(Protocol):
    """What is shown of an input record (``kjoin.oracle.records.Record``)."""

    @property
    def side(self) -> str: ...
    @property
    def key(self) -> object: ...
    @property
    def value(self) -> object: ...
    @property
    def ts(self) -> int: ...


def show_key(key: object) -> str:
    """A key (``null`` for a null key)."""
    return NULL if key is None else str(key)


def show_operand(value: object) -> str:
    """One side of a join result, or a record's value (``null`` when absent)."""
    return NULL if value is None else str(value)


def show_value(value: Sequence[object] | None) -> str:
    """``L - R`` (``null`` for a missing side), or ``null`` for a tombstone."""
    return NULL if value is None else " - ".join(show_operand(side) for side in value)


def show_item(key: object, value: Sequence[object] | None, ts: object, *, with_key: bool = True) -> str:
    """``k1: L1 - R1 @5``; no ``@ts`` when ``ts`` is ``None`` (a seed table that states no timestamps)."""
    text = show_value(value) + ("" if ts is None else f" @{ts}")
    return f"{show_key(key)}: {text}" if with_key else text


def show_output(output: OutputLike | None, *, with_key: bool = True, with_ts: bool = True) -> str:
    """``k1: L1 - R1 @5``; ``k1: null @7`` is a tombstone; an absent output is empty text."""
    if output is None:
        return ""
    return show_item(output.key, output.value, output.ts if with_ts else None, with_key=with_key)


_ANY_KEY = object()


def show_output_json(output: Mapping[str, Any] | None, *, input_key: object = _ANY_KEY) -> str:
    """An output as a document writes it (``{"key", "value", "ts", ...}``), as ``show_output``; the key is
    left out when it is ``input_key`` (the key of the input row it stands in)."""
    if output is None:
        return ""
    key = output.get("key")
    return show_item(key, output.get("value"), output.get("ts"), with_key=key != input_key)


def _record(side: object, key: object, value: object, ts: object, index: int | None) -> str:
    prefix = "" if index is None else f"#{index} "
    return f"{prefix}{side} {show_key(key)}: {show_operand(value)} @{ts}"


def show_record(record: RecordLike, index: int | None = None) -> str:
    """``#3 left k1: L1 @5`` (the input index when given)."""
    return _record(record.side, record.key, record.value, record.ts, index)


def show_record_json(record: Mapping[str, Any], index: int | None = None) -> str:
    """A record as a document writes it (``{"side", "key", "value", "ts"}``), as ``show_record``."""
    return _record(record.get("side"), record.get("key"), record.get("value"), record.get("ts"), index)
