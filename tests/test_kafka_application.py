"""The application mode on a real broker (docs/kafka.md, "Application mode"): drawn multi-partition
scenarios of each task-local join kind, caching on and off, table-table ones with commit points (a close and
restart), run as real ``KafkaStreams`` 4.4 applications and compared with the oracle partition by partition.

Needs Java 17 and Maven (the broker and the driver come from Maven Central on first use, then from the
cache). About a minute and a half on a busy 2-core machine, most of it the broker's start.
"""

from __future__ import annotations

import io
import json

import pytest

from kjoin.conformance.cli import main
from kjoin.conformance.differential.profiles import profile_named
from kjoin.conformance.kafka.app_verify import verify_application

pytestmark = [
    pytest.mark.system,  # the system tier (tests/conftest.py)
    pytest.mark.kafka,
    pytest.mark.xdist_group("kafka-application"),
]


def test_drawn_multi_partition_scenarios_agree_with_the_oracle_per_partition() -> None:
    report = verify_application("4.4", partitions=3, profile=profile_named("ci"), seed=26, examples=2)
    statuses = [outcome.status for outcome in report.outcomes]
    assert len(statuses) == 6
    assert [o.detail for o in report.outcomes if o.status in ("disagree", "kafka error")] == []
    answered = [o for o in report.outcomes if o.status == "agree"]
    assert {o.case.join for o in answered} >= {"stream-stream", "stream-table"}
    assert any(o.cached for o in answered) and any(not o.cached for o in answered)
    refused = [o for o in report.outcomes if o.status == "oracle refuses"]
    assert all(o.cached and o.case.join == "table-table" for o in refused), [o.detail for o in refused]


STALE = (
    '{"id":"%s","kafka":"4.4","join":"table-table","variant":"inner",'
    '"versioned":{"right":true,"history_ms":1000},%s"records":[{"side":"left","key":"a","value":"A","ts":1},'
    '{"side":"right","key":"a","value":"x","ts":2},{"side":"left","key":"a","value":null,"ts":3}]}\n'
)
"""A left table (cached unless caching is off) and a versioned right table (never cached): the right update
reads the left value through the cache and is forwarded at once; the left delete of a key never flushed
is dropped at the close's flush (docs/kafka.md, "Application mode")."""


def test_kjoin_kafka_application_answers_with_partitions_and_offsets() -> None:
    lines = (
        '{"id":"tt","kafka":"4.4","join":"table-table","variant":"left","records":['
        '{"side":"left","key":"a","value":"A1","ts":1},{"side":"right","key":"a","value":"a1","ts":2,'
        '"commit":true},{"side":"left","key":"a","value":"A2","ts":3}]}\n'
        + STALE % ("stale-cached", '"settings":{"cache_max_bytes":10485760},')
        + STALE % ("stale-uncached", "")
    )
    out, err = io.StringIO(), io.StringIO()
    code = main(
        ["kafka", "--version", "4.4", "--application", "--partitions", "2"],
        stdin=io.StringIO(lines),
        stdout=out,
        stderr=err,
    )
    assert code == 0, err.getvalue()
    answer, cached, uncached = (json.loads(line) for line in out.getvalue().splitlines())
    partition = answer["inputs"][0]["partition"]
    assert answer["inputs"] == [{"partition": partition, "offset": o} for o in (0, 0, 1)]
    assert answer["outputs"] == [
        {"key": "a", "value": ["A1", None], "ts": 1, "partition": partition, "offset": 0},
        {"key": "a", "value": ["A1", "a1"], "ts": 2, "partition": partition, "offset": 1},
        {"key": "a", "value": ["A2", "a1"], "ts": 3, "partition": partition, "offset": 2},
    ]
    joined = {"key": "a", "value": ["A", "x"], "ts": 2, "partition": partition, "offset": 0}
    assert uncached["outputs"] == [
        joined,
        {"key": "a", "value": None, "ts": 3, "partition": partition, "offset": 1},
    ]
    assert cached["outputs"] == [joined]  # the join result outlives the left row: never retracted
