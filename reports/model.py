"""Reading the document layer's documents for display: orders of join kinds, variants and Kafka versions.
Presentation only: the documents (docs/results-format.md) carry everything computed; nothing here decides
what Kafka emits or whether a candidate agrees. The notation of outputs and records is
``kjoin.conformance.notation``; statuses and divergence kinds, with their orders, are
``kjoin.conformance.documents.vocabulary``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = ["JOIN_ORDER", "VARIANT_ORDER", "kafka_order", "ordered"]

JOIN_ORDER = ("stream-stream", "stream-table", "table-table", "fk", "stream-globaltable")
"""The oracle's join kinds in its order (``kjoin.oracle.records.JOIN_KINDS``; a test pins them, as the reports
import nothing from the oracle)."""
VARIANT_ORDER = ("inner", "left", "outer")
"""The oracle's variants in its order (``kjoin.oracle.records.VARIANTS``, pinned by a test as well)."""

_VERSION = re.compile(r"^\d+(\.\d+)*$")


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
