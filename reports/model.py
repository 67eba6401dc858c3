"""Reading the harness's documents for display: outputs and records in the project's notation, orders of
versions, statuses and divergence kinds. Presentation only: the documents (docs/results-format.md) carry
everything computed; nothing here decides what Kafka emits or whether a candidate agrees.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "JOIN_ORDER",
    "KIND_ORDER",
    "STATUS_ORDER",
    "VARIANT_ORDER",
    "kafka_order",
    "key_text",
    "ordered",
    "output_text",
    "record_text",
    "value_text",
]

JOIN_ORDER = ("stream-stream", "stream-table", "table-table", "fk")
VARIANT_ORDER = ("inner", "left", "outer")
STATUS_ORDER = (
    "fail",
    "error",
    "unexpected-pass",
    "declared",
    "unknown",
    "pass",
    "not-claimed",
    "not-applicable",
)
"""Display order: what needs attention first."""
KIND_ORDER = ("missing-output", "unexpected-output", "wrong-value", "wrong-timestamp", "wrong-input",
              "out-of-order", "candidate-error")  # fmt: skip
FAILING = frozenset({"fail", "error", "unexpected-pass"})

Output = Mapping[str, Any]
"""``{"key", "value": [left, right] | None, "ts", "cause"}`` as the documents write it."""

_VERSION = re.compile(r"^\d+(\.\d+)*$")


def key_text(key: object) -> str:
    return "null" if key is None else str(key)


def value_text(value: Sequence[Any] | None) -> str:
    """``L - R`` (``null`` for a missing side), or ``null`` for a tombstone: the seed tables' notation."""
    if value is None:
        return "null"
    return " - ".join("null" if side is None else str(side) for side in value)


def output_text(output: Output, input_key: object = ...) -> str:
    """``k1: L1 - R1 @5``; the key is left out when it is ``input_key`` (the key of the row it stands in)."""
    body = f"{value_text(output.get('value'))} @{output.get('ts')}"
    return body if output.get("key") == input_key else f"{key_text(output.get('key'))}: {body}"


def record_text(record: Mapping[str, Any], index: int | None = None) -> str:
    prefix = "" if index is None else f"#{index} "
    value = "null" if record.get("value") is None else record.get("value")
    return f"{prefix}{record.get('side')} {key_text(record.get('key'))}: {value} @{record.get('ts')}"


def _version_key(version: str) -> tuple[int, tuple[int, ...], str]:
    if _VERSION.match(version):
        return (0, tuple(int(part) for part in version.split(".")), version)
    return (1, (), version)


def kafka_order(versions: Iterable[str]) -> list[str]:
    """Distinct Kafka versions, oldest first (text that is not a version last, alphabetically)."""
    return sorted(set(versions), key=_version_key)


def ordered(items: Iterable[str], known: Sequence[str]) -> list[str]:
    """Distinct ``items`` in the order of ``known``, unknown ones last (sorted)."""
    found = set(items)
    return [item for item in known if item in found] + sorted(found - set(known))
