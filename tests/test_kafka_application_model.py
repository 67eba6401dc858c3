"""The application mode's Python side without a broker (docs/kafka.md, "Application mode"): how a scenario is
cut into runs between restarts, which records each task processes in which order, how drawn scenarios are
made deterministic, and how an answer is read and compared per partition.
"""

from __future__ import annotations

import io
import json
import random

from kjoin.conformance.catalogue import Case
from kjoin.conformance.cli import main
from kjoin.conformance.cli.verify_application import render_app_report
from kjoin.conformance.differential.profiles import profile_named
from kjoin.conformance.kafka.app_verify import (
    CACHE_BYTES,
    SMALL_CACHE_BYTES,
    AppVerifyReport,
    check_answers,
    draw,
    for_application,
)
from kjoin.conformance.kafka.application import (
    NO_TIMED_COMMIT_MS,
    AppAnswer,
    decode_app_answer,
    expected_per_partition,
    first_difference,
    predicted_evictions,
    segments,
    task_records,
)
from kjoin.oracle.behaviour import behaviour_for
from kjoin.oracle.engine import run
from kjoin.oracle.records import JoinSpec, Output, Record, Settings, Window
from kjoin.oracle.tasks import processing_order


def _case(spec: JoinSpec, records: list[Record]) -> Case:
    return Case("c", "c", "4.4.0", False, spec, tuple(records))


TT = JoinSpec("table-table", "outer")
RECORDS = [
    Record("left", "a", "A1", 5),
    Record("right", "a", "a1", 2),
    Record("left", "b", "B1", 1),
    Record("right", "a", "a2", 7, commit=True),
    Record("left", "a", "A2", 3),
    Record("right", "b", "b1", 4),
]
INPUTS = ((1, 0), (1, 0), (2, 0), (1, 1), (1, 1), (2, 0))
"""Keys a in partition 1, b in partition 2, as an application's answer gives them."""


def test_segments_end_after_each_commit_and_at_the_end() -> None:
    assert segments(RECORDS) == [range(0, 4), range(4, 6)]
    assert segments([*RECORDS[:-1], Record("right", "b", "b1", 4, commit=True)]) == [range(0, 4), range(4, 6)]
    assert segments([]) == []


def test_a_task_takes_each_segment_in_tk2_order_and_commits_at_its_end() -> None:
    task = task_records(_case(TT, RECORDS), INPUTS, 1)
    first = [RECORDS[0], RECORDS[1], RECORDS[3]]  # partition 1 of the first segment: left a@5, right a@2, a@7
    order = processing_order([[first[0].ts], [first[1].ts, first[2].ts]])
    assert [(r.side, r.ts) for r in task[:3]] == [
        (("left", "right")[queue], [[5], [2, 7]][queue][pos]) for queue, pos in order
    ]
    assert [(r.side, r.ts) for r in task] == [("right", 2), ("left", 5), ("right", 7), ("left", 3)]
    assert [r.commit for r in task] == [False, False, True, True]
    assert [(r.key, r.commit) for r in task_records(_case(TT, RECORDS), INPUTS, 2)] == [
        ("b", True),
        ("b", True),
    ]
    assert task_records(_case(TT, RECORDS), INPUTS, 0) == []


def test_the_oracle_states_each_partition_as_its_own_task_with_no_timed_commit() -> None:
    case = _case(TT, RECORDS)
    answer = AppAnswer("c", 3, INPUTS, {})
    expected = expected_per_partition(case, answer)
    assert not isinstance(expected, str)
    behaviour = behaviour_for("4.4.0")
    settings = Settings(commit_interval_ms=NO_TIMED_COMMIT_MS)
    spec = JoinSpec("table-table", "outer", settings=settings)
    for partition in (1, 2):
        assert expected[partition] == tuple(run(spec, task_records(case, INPUTS, partition), behaviour))
    assert set(expected) == {1, 2}


def test_the_oracles_refusal_is_the_answer_when_it_does_not_model_the_settings() -> None:
    cached = JoinSpec("fk", "left", settings=Settings(cache_max_bytes=CACHE_BYTES))  # refused under commits
    records = [Record("left", "a", "f:A", 1), Record("right", "f", "F", 2)]
    refusal = expected_per_partition(_case(cached, records), AppAnswer("c", 1, ((0, 0), (0, 0)), {}))
    assert isinstance(refusal, str) and refusal.startswith("UnmodelledSettingsError")


def test_drawn_scenarios_lose_cross_side_ties_and_null_keys_and_get_their_settings() -> None:
    spec = JoinSpec("stream-stream", "left", window=Window(3, 4, 5))
    records = [
        Record("left", "a", "A", 10, wall_clock=7),
        Record("right", "a", "a", 10),
        Record("right", None, "n", 11),
        Record("left", "b", "B", 12),
    ]
    fitted = for_application(_case(spec, records), random.Random(1), cache=True)
    assert fitted is not None
    assert [(r.side, r.key, r.ts, r.wall_clock, r.commit) for r in fitted.records] == [
        ("left", "a", 20, None, False),
        ("right", "a", 21, None, False),
        ("left", "b", 24, None, False),
    ]
    assert fitted.spec.window == Window(6, 8, 10)
    assert fitted.spec.settings == Settings(cache_max_bytes=CACHE_BYTES)
    uncached = for_application(_case(spec, records), random.Random(1), cache=False)
    assert uncached is not None and uncached.spec.settings == Settings()
    assert for_application(_case(spec, [Record("left", None, "x", 1)]), random.Random(1), cache=False) is None


def test_only_table_table_scenarios_get_commit_points_and_never_on_the_last_record() -> None:
    records = [Record("left" if i % 2 else "right", f"k{i % 3}", f"v{i}", i) for i in range(8)]
    seen = 0
    for seed in range(40):
        fitted = for_application(_case(TT, records), random.Random(seed), cache=True)
        assert fitted is not None and not fitted.records[-1].commit
        seen += any(r.commit for r in fitted.records)
        st = for_application(
            _case(JoinSpec("stream-table", "left"), records), random.Random(seed), cache=True
        )
        assert st is not None and not any(r.commit for r in st.records)
    assert 0 < seen < 40


def test_an_answer_is_read_per_partition_and_compared_in_order() -> None:
    line = {
        "id": "c",
        "partitions": 2,
        "inputs": [{"partition": 1, "offset": 0}],
        "outputs": [
            {"key": "a", "value": ["A", None], "ts": 1, "partition": 1, "offset": 0},
            {"key": "a", "value": None, "ts": 2, "partition": 1, "offset": 1},
        ],
    }
    answer = decode_app_answer(json.dumps(line))
    assert answer == AppAnswer(
        "c", 2, ((1, 0),), {1: (Output("a", ("A", None), 1, -1), Output("a", None, 2, -1))}
    )
    assert decode_app_answer('{"id":"c","error":"boom"}') == ("c", "boom")
    assert isinstance(answer, AppAnswer)
    same = {1: (Output("a", ("A", None), 1, 0), Output("a", None, 2, 0))}
    assert first_difference(answer.outputs, same) is None
    swapped = {1: (Output("a", None, 2, 0), Output("a", ("A", None), 1, 0))}
    assert first_difference(answer.outputs, swapped) == (
        "partition 1, output 0: Kafka ('a', ('A', None), 1), the oracle ('a', None, 2)"
    )
    assert first_difference(answer.outputs, {1: same[1][:1]}) == (
        "partition 1: Kafka 2 outputs, the oracle 1; the oracle lacks ('a', None, 2)"
    )


def test_the_report_counts_the_scenarios_whose_input_spread_over_several_partitions() -> None:
    case = _case(TT, RECORDS)
    one = ((0, 0), (0, 0), (0, 1), (0, 1), (0, 2), (0, 2))
    answers = []
    for inputs in (INPUTS, one):
        expected = expected_per_partition(case, AppAnswer("c", 3, inputs, {}))
        assert not isinstance(expected, str)
        answers.append(AppAnswer("c", 3, inputs, expected))
    outcomes = check_answers([case, case, case], [*answers, ("c", "broker gone")])
    assert [(o.status, o.spread) for o in outcomes] == [("agree", 2), ("agree", 1), ("kafka error", 0)]
    text = render_app_report(AppVerifyReport("4.4.0", 3, 1, tuple(outcomes), 0.0))
    header, _, row, total = text.splitlines()[2:6]
    assert header.split()[3:7] == ["scenarios", "spread", "evicting", "agree"]
    assert row.split()[:7] == ["table-table", "outer", "off", "3", "1", "0", "2"]
    assert total.split()[:4] == ["total", "3", "1", "0"]


def test_partitions_and_log_need_the_application_mode() -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(
        ["kafka", "--version", "4.4", "--partitions", "3"], stdin=io.StringIO(""), stdout=out, stderr=err
    )
    assert code == 2
    assert "--partitions and --log go with --application" in err.getvalue()


EVICTING = [Record("left", "a", "A", 1), Record("left", "b", "B", 3), Record("left", "c", "C", 5)]
"""Three left entries of 59 bytes each (key 1, timestamp 8 + value 1, topic ``left`` 4, 45; spec PR-9)."""


def test_the_oracle_counts_the_entries_its_caches_evict_in_each_task() -> None:
    one = ((0, 0), (0, 1), (0, 2))
    small = _case(JoinSpec("table-table", "left", settings=Settings(cache_max_bytes=120)), EVICTING)
    # two entries fit; the third write evicts the dirty a, which flushes a, b and c at once
    assert predicted_evictions(small, AppAnswer("c", 1, one, {})) == (1, 1)
    expected = expected_per_partition(small, AppAnswer("c", 1, one, {}))
    assert expected == {0: tuple(Output(k, (v, None), ts, 2) for k, v, ts in (("a", "A", 1), ("b", "B", 3),
                                                                             ("c", "C", 5)))}  # fmt: skip
    # over two partitions each task's cache holds what its keys wrote: b alone in partition 1 evicts nothing
    assert predicted_evictions(small, AppAnswer("c", 2, ((0, 0), (1, 0), (0, 1)), {})) == (0, 0)
    large = _case(JoinSpec("table-table", "left", settings=Settings(cache_max_bytes=CACHE_BYTES)), EVICTING)
    assert predicted_evictions(large, AppAnswer("c", 1, one, {})) == (0, 0)
    assert predicted_evictions(_case(TT, RECORDS), AppAnswer("c", 3, INPUTS, {})) == (0, 0)


def test_small_caches_are_drawn_for_table_table_joins_without_commit_points() -> None:
    drawn = draw("4.4.0", profile=profile_named("ci"), seed=3, examples=30, joins=None, cache="evict")
    assert drawn and {case.join for case in drawn} == {"table-table"}
    for case in drawn:
        assert SMALL_CACHE_BYTES[0] <= case.spec.settings.cache_max_bytes < SMALL_CACHE_BYTES[1]
        assert not any(record.commit for record in case.records)
    evicting = [
        c for c in drawn if predicted_evictions(c, AppAnswer(c.id, 1, ((0, 0),) * len(c.records), {}))[0]
    ]
    assert 0 < len(evicting) < len(drawn)


def test_small_caches_need_one_partition() -> None:
    out, err = io.StringIO(), io.StringIO()
    args = ["verify", "--kafka", "4.4", "--application", "--cache", "evict", "--partitions", "3"]
    assert main(args, stdin=io.StringIO(""), stdout=out, stderr=err) == 2
    assert "--partitions 3 with --cache evict: small caches need one partition" in err.getvalue()
