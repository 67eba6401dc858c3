"""A failed candidate call is bisected until its failure is pinned on scenarios; a failure both halves
repeat is the candidate's as a whole and ends the bisection early, even when a streaming query's error names
run-specific ids (docs/candidates.md, "The candidate protocol"). No Spark: ``Caller._call`` is scripted, the
messages are real ones of spark-stateful (tests/support/streaming_crash_messages.json) or have their shape.
"""

from __future__ import annotations

import itertools
import json
import random
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest

from kjoin.conformance.catalogue import Case
from kjoin.conformance.checker import CandidateFailure
from kjoin.conformance.harness.calls import ISOLATION_CALLS, Caller, CallRecord, SessionKeeper
from kjoin.conformance.harness.run_ids import same_failure, without_run_ids

_counter = itertools.count(1)
_TEMPFILE_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789_"
"""The characters of the random part of a ``tempfile`` name."""


def streaming_error(cause: str) -> str:
    """A query's failure as spark-stateful's call reports it: fresh ids, query name, checkpoint folder and
    Spark counters every time, ``cause`` the same."""
    query, run, stage = next(_counter), uuid.uuid4(), 10 + 3 * next(_counter)
    # a folder as tempfile names it (8 of its characters; one a letter: an all-digit name, 1 in 36,000 of
    # tempfile's but 1 in 40 of a uuid's hex digits, is deliberately not masked) and a Java identity hash
    letter = random.choice(_TEMPFILE_CHARACTERS[:26])
    folder = f"/tmp/kjoin-checkpoints-{letter}{''.join(random.choices(_TEMPFILE_CHARACTERS, k=7))}"
    identity = f"{random.randrange(0x10000000, 0x80000000):x}"
    return (
        f"StreamingQueryException: [STREAM_FAILED] Query [id = {uuid.uuid4()}, runId = {run}] terminated "
        f"with exception: Job aborted due to stage failure: Task {query % 4} in stage {stage}.0 failed 1 "
        f"times, most recent failure: Lost task {query % 4}.0 in stage {stage}.0 (TID {4 * stage}) "
        f"(localhost executor driver): org.apache.spark.api.python.PythonException: {cause}\n"
        f"checkpoint: file:{folder}/kjoin_stateful_{query}/state/0/3, query kjoin_stateful_{query}, "
        f"store org.apache.spark.sql.execution.streaming.state.RocksDBStateStore@{identity}"
    ).replace("Query [id", f"Query kjoin_stateful_{query} [id")


STORE_MISSING = "AttributeError: 'StatefulJoin' object has no attribute 'subscriptions'"


def test_a_streaming_error_is_the_same_failure_on_every_call() -> None:
    one, other = streaming_error(STORE_MISSING), streaming_error(STORE_MISSING)
    assert one != other and same_failure(one, other)
    masked = without_run_ids(one)
    assert "Query <query> [id = <uuid>, runId = <uuid>]" in masked
    assert "Task <n> in stage <n> failed 1 times" in masked and "Lost task <n> in stage <n> (" in masked
    assert "file:/tmp/kjoin-checkpoints-<temp>/<query>/state/0/3, query <query>," in masked
    assert "RocksDBStateStore@<hash>" in masked and STORE_MISSING in masked


def test_python_reprs_differ_only_by_address() -> None:
    def message(address: int) -> str:
        return f"TypeError: cannot pickle <_thread.lock object at {address:#x}>"

    assert same_failure(message(0x7F3A5C2B1E40), message(0x7F3A5C2B9A10))
    assert without_run_ids(message(0x7F3A5C2B1E40)).endswith("object at 0x<address>>")


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (STORE_MISSING, "AttributeError: 'StatefulJoin' object has no attribute 'grace_buffer'"),
        (STORE_MISSING, STORE_MISSING.replace("AttributeError", "KeyError")),
        (
            "ValueError: scenario fk-join-07 has no right side",
            "ValueError: scenario fk-join-08 has no right side",
        ),
        (
            "output column 'ts' has type string, expected long",
            "output column 'seq' has type string, expected long",
        ),
        ('File "processor.py", line 96, in init', 'File "processor.py", line 97, in init'),
        ("failed in micro-batch 0", "failed in micro-batch 3"),
        ("expected 3 rows, got 4", "expected 3 rows, got 5"),
        ("FileNotFoundError: /tmp/left.json", "FileNotFoundError: /tmp/right.json"),
        ("cannot read /tmp/kjoin-input/part-0001", "cannot read /tmp/kjoin-input/part-0002"),
        ("Task 3 failed: value 0x10 out of range", "Task 3 failed: value 0x11 out of range"),
        (
            "Query kjoin_stateful_1 [id = x, runId = y] failed",
            "Query kjoin_stateful_2 [id = x, runId = y] failed",
        ),
        ("user@example.com was refused", "user@example.org was refused"),
    ],
)
def test_genuinely_different_failures_stay_apart(one: str, other: str) -> None:
    assert not same_failure(one, other)
    assert not same_failure(streaming_error(one), streaming_error(other))


@dataclass(frozen=True)
class _Case:
    id: str


class _ScriptedCaller(Caller):
    """A ``Caller`` whose candidate calls are scripted: ``fails`` gives a call's error message (None: the
    call answers every case); the case ids of every call are kept."""

    def __init__(self, fails: Callable[[Sequence[str]], str | None]) -> None:
        super().__init__(cast(Any, None), SessionKeeper(cast(Any, None)))
        self.fails = fails
        self.calls: list[list[str]] = []

    def _call(self, join: str, cases: list[Case]) -> tuple[CallRecord, dict[str, Any] | None]:
        ids = [case.id for case in cases]
        self.calls.append(ids)
        message = self.fails(ids)
        if message is None:
            return CallRecord(join, len(cases), "ok"), {case_id: ("answer", case_id) for case_id in ids}
        return CallRecord(join, len(cases), "error", message), None


def _cases(count: int) -> list[Case]:
    return [cast(Case, _Case(f"fk-{number:02d}")) for number in range(count)]


def test_a_candidate_wide_streaming_crash_ends_the_bisection_after_one_split() -> None:
    caller = _ScriptedCaller(lambda ids: streaming_error(STORE_MISSING))
    cases = _cases(16)
    found = caller.answers("fk", cases)
    # the whole call, then its two halves: both fail the same way but for their run ids
    assert [len(call) for call in caller.calls] == [16, 8, 8]
    assert set(found) == {case.id for case in cases}
    failures = list(found.values())
    assert all(isinstance(f, CandidateFailure) and STORE_MISSING in f.message for f in failures)
    assert len({cast(CandidateFailure, f).message for f in failures}) == 1  # the first call's message


def test_a_failure_each_half_words_differently_is_still_pinned_on_its_scenarios() -> None:
    poisoned = {"fk-02": "grace_buffer", "fk-13": "subscriptions"}

    def fails(ids: Sequence[str]) -> str | None:
        bad = sorted(poisoned[case_id] for case_id in ids if case_id in poisoned)
        if not bad:
            return None
        return streaming_error(f"AttributeError: 'StatefulJoin' object has no attribute '{bad[0]}'")

    caller = _ScriptedCaller(fails)
    cases = _cases(16)
    found = caller.answers("fk", cases)
    assert len(caller.calls) <= 1 + ISOLATION_CALLS and [len(call) for call in caller.calls][:3] == [16, 8, 8]
    errors = {case_id: answer for case_id, answer in found.items() if isinstance(answer, CandidateFailure)}
    assert set(errors) == set(poisoned)
    assert all(f"no attribute '{poisoned[case_id]}'" in errors[case_id].message for case_id in poisoned)
    assert all(found[case.id] == ("answer", case.id) for case in cases if case.id not in poisoned)


REAL = json.loads((Path(__file__).parent / "support" / "streaming_crash_messages.json").read_text())


def test_real_spark_stateful_crashes_of_two_calls_are_the_same_failure() -> None:
    first, second = REAL["messages"]
    assert first != second and same_failure(first, second)
    masked = without_run_ids(first)
    assert "Identifier: <query> [id = <uuid>, runId = <uuid>]" in masked
    assert "scenario_id#<n>" in masked and "kjoin-checkpoints-<temp>/<query>-input" in masked
    assert "object has no attribute 'subscriptions'" in masked


def test_real_crashes_with_another_cause_stay_apart() -> None:
    first, second = REAL["messages"]
    other = second.replace("no attribute 'subscriptions'", "no attribute 'grace_buffer'")
    assert other != second and not same_failure(first, other)
    moved = second.replace('processor.py", line 172', 'processor.py", line 173')
    assert moved != second and not same_failure(first, moved)
