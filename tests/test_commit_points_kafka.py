"""The schedules the commit-points level accepts are ones real Kafka produces (system tier, a real broker):
a Kafka Streams 4.4 application (docs/kafka.md, "Application mode"; one partition, 10 MiB record caches)
commits exactly where the level says a commit explains a micro-batch port's output, and emits what the
level's segments say (docs/semantics/commit-points.md, CP-1, CP-2).

Needs Java 17 and Maven (the broker and the driver come from Maven Central on first use, then from the
cache); about a minute and a half on a busy machine, most of it the broker's start.
"""

from __future__ import annotations

import itertools
import json

import msgspec
import pytest
from msgspec.structs import replace

from kjoin.conformance.catalogue import Case
from kjoin.conformance.catalogue.portable import case_json
from kjoin.conformance.checker import Emitted, check
from kjoin.conformance.kafka.application import AppAnswer, KafkaApplication, decode_app_answer
from kjoin.conformance.kafka_segments import DEFAULT_CACHE_MAX_BYTES, kafka_segments
from kjoin.oracle.behaviour import behaviour_for
from kjoin.oracle.records import Settings
from support.commit_points import MICRO_BATCH, PORT
from support.report_documents import make_case

pytestmark = [pytest.mark.system, pytest.mark.kafka, pytest.mark.xdist_group("kafka-application")]


def committed(case: Case, commits: tuple[int, ...]) -> Case:
    """``case`` with a commit after each input of ``commits`` but the last (the end of the input)."""
    records = tuple(
        msgspec.structs.replace(record, commit=index in commits[:-1])
        for index, record in enumerate(case.records)
    )
    return replace(case, id=f"{case.id}-{'-'.join(map(str, commits))}", records=records)


def test_real_kafka_commits_where_the_level_says_and_emits_its_segments() -> None:
    case = make_case("tt-micro-batch", MICRO_BATCH, join="table-table", variant="inner", kafka="4.4")
    case = replace(case, spec=replace(case.spec, settings=Settings(cache_max_bytes=DEFAULT_CACHE_MAX_BYTES)))
    segments = kafka_segments(case.spec, case.records, behaviour_for("4.4"))
    verdict = check(Emitted(()), Emitted(PORT), "commit-points", segments=segments)
    assert (verdict.status, verdict.commit_points) == ("pass", (1, 5))
    schedules = [verdict.commit_points, (1, 3, 5)]  # the level's, and the port's own batches
    runs = [committed(case, schedule) for schedule in schedules]
    with KafkaApplication("4.4", partitions=1) as app:
        lines = [json.dumps(dict(case_json(run), id=run.id)) for run in runs]
        answers = [decode_app_answer(text) for text in app.answer_lines(lines)]
    for schedule, answer in zip(schedules, answers, strict=True):
        assert isinstance(answer, AppAnswer), answer
        [emitted] = answer.outputs.values()
        points = [0, *(index + 1 for index in schedule)]
        said = [o for p, q in itertools.pairwise(points) for o in segments.segment(p, q)]
        assert [o[:3] for o in emitted] == [o[:3] for o in said], schedule  # Kafka emits the level's segments
        found = check(Emitted(()), Emitted(emitted), "commit-points", segments=segments)
        assert found.status == "pass"  # and the level accepts what Kafka emits
        merged = [o[:3] for o, _ in itertools.groupby(emitted, key=lambda o: o[:3])]
        assert merged == [o[:3] for o in PORT]  # the port's output, but for the repeats of a key dirty twice
