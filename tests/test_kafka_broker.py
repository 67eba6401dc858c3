"""The loopback broker's parts that need no Java: the KRaft cluster id it formats its storage with (made in
Python, as Kafka's ``StorageTool random-uuid`` makes one; every broker start of the system tier has Kafka's
own ``StorageTool format`` accept it)."""

from __future__ import annotations

import base64
import string
import uuid

from kjoin.conformance.kafka.broker import cluster_id

URL_SAFE = frozenset(string.ascii_letters + string.digits + "-_")


def test_a_cluster_id_is_written_as_kafkas_storage_tool_writes_one() -> None:
    ids = [cluster_id() for _ in range(2000)]
    for text in ids:
        assert len(text) == 22 and set(text) <= URL_SAFE and not text.startswith("-"), text
        raw = base64.urlsafe_b64decode(text + "==")
        assert len(raw) == 16 and uuid.UUID(bytes=raw).version == 4, text
    assert len(set(ids)) == len(ids)
