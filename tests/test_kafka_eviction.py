"""Record-cache eviction on a real broker (docs/kafka.md, "Application mode", small caches; spec PR-9): a few
drawn table-table joins with caches of 50-150 bytes whose outputs an eviction changes, and the catalogue's
two eviction scenarios, run as real ``KafkaStreams`` 4.4 applications over one partition and compared with the
oracle, which must agree on each.

Needs Java 17 and Maven (the broker and the driver come from Maven Central on first use, then from the
cache). One broker start and 8 scenarios.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.differential.profiles import profile_named
from kjoin.conformance.kafka.app_verify import CACHE_BYTES, draw, verify_application
from kjoin.conformance.kafka.application import AppAnswer, expected_per_partition
from kjoin.oracle.records import Settings

pytestmark = [
    pytest.mark.system,  # the system tier (tests/conftest.py)
    pytest.mark.kafka,
    pytest.mark.xdist_group("kafka-application"),
]

CATALOGUE = [
    Path(__file__).resolve().parents[1] / "scenarios/table_table" / name
    for name in (
        "record-cache-evicts-least-recently-used.toml",
        "record-cache-read-refreshes-eviction-order.toml",
    )
]
"""The catalogue's eviction scenarios (2 variants each)."""


def _one_task(case: Case) -> AppAnswer:
    """An answer placing every input in partition 0, as a one-partition application does."""
    return AppAnswer(case.id, 1, tuple((0, offset) for offset in range(len(case.records))), {})


def _eviction_shows(case: Case) -> bool:
    """Whether the oracle's outputs with the case's small cache differ from those with a 10 MiB one."""
    large = msgspec.structs.replace(case.spec, settings=Settings(cache_max_bytes=CACHE_BYTES))
    small = expected_per_partition(case, _one_task(case))
    return small != expected_per_partition(msgspec.structs.replace(case, spec=large), _one_task(case))


def test_small_caches_evict_on_real_kafka_as_the_oracle_says() -> None:
    drawn = draw("4.4.0", profile=profile_named("ci"), seed=29, examples=12, joins=None, cache="evict")
    visible = [case for case in drawn if _eviction_shows(case)][:4]
    catalogue = [case for case in load_cases(CATALOGUE, kafka="4.4").cases]
    assert len(visible) == 4 and len(catalogue) == 4
    report = verify_application(
        "4.4", partitions=1, profile=profile_named("ci"), cases=[*visible, *catalogue]
    )
    assert [(o.case.id, o.status, o.detail) for o in report.outcomes if o.status != "agree"] == []
    assert all(o.evicted_dirty > 0 and o.eviction_shows for o in report.outcomes)
    assert all(o.spread == 1 for o in report.outcomes)  # one task, the whole thread cache its own
