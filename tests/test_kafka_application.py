"""The application mode on a real broker (docs/kafka.md, "Application mode"): drawn scenarios of each
task-local join kind over topics of 6 partitions, caching on and off (a cached table-table join with commit
points, i.e. a close and restart, and a cached stream-table join whose keys fall in two partitions among
them), run as real ``KafkaStreams`` 4.4 applications and compared with the oracle partition by partition.

Needs Java 17 and Maven (the broker and the driver come from Maven Central on first use, then from the
cache). The drawn scenarios' test took 3 min 15 s on a 2-core machine at a load average of 40 (one broker
start, 6 scenarios); the other test starts a broker of its own.
"""

from __future__ import annotations

import io
import json

import pytest

from kjoin.conformance.catalogue import Case
from kjoin.conformance.cli import main
from kjoin.conformance.differential.profiles import profile_named
from kjoin.conformance.kafka.app_verify import draw, verify_application

pytestmark = [
    pytest.mark.system,  # the system tier (tests/conftest.py)
    pytest.mark.kafka,
    pytest.mark.xdist_group("kafka-application"),
]


def _most_keys_per_join_and_cache(cases: list[Case]) -> list[Case]:
    """Per join kind and cache setting, the drawn case with the most keys, then the most commit points."""
    best: dict[tuple[str, bool], Case] = {}
    for case in cases:
        slot = (case.join, case.spec.settings.cache_max_bytes > 0)
        score = (len({r.key for r in case.records}), sum(r.commit for r in case.records))
        if slot not in best or score > (
            len({r.key for r in best[slot].records}),
            sum(r.commit for r in best[slot].records),
        ):
            best[slot] = case
    return list(best.values())


def test_drawn_multi_partition_scenarios_agree_with_the_oracle_per_partition() -> None:
    drawn = draw("4.4.0", profile=profile_named("ci"), seed=29, examples=3, joins=None, cache="both")
    cases = _most_keys_per_join_and_cache(drawn)
    report = verify_application("4.4", partitions=6, profile=profile_named("ci"), cases=cases)
    assert len(report.outcomes) == 6
    assert [(o.case.id, o.status, o.detail) for o in report.outcomes if o.status != "agree"] == []
    cached = {o.case.join: o for o in report.outcomes if o.cached}
    assert set(cached) == {"stream-stream", "stream-table", "table-table"}
    assert cached["table-table"].commits > 0 and cached["table-table"].spread > 1  # merges, then a restart
    assert cached["stream-table"].spread > 1  # two tasks read their tables through the cache
    assert any(o.spread > 1 for o in report.outcomes if o.case.join == "stream-stream")
    assert any(not o.cached for o in report.outcomes)


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
