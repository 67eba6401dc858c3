"""Batch compositions as a test dimension of the fuzzer (docs/testing.md, "Batch compositions"), without
Spark: which copies are made and how they are grouped into candidate calls, and a whole ``fuzz`` run against
a stand-in for ``HarnessRun`` that answers like spark-reference with the mutant ``versioned.py:136 | -> &``
(docs/mutation-report.md): a batch with no scenario versioned on both sides takes the fast path, where a
versioned table reads like an unversioned one (an out-of-order put counts as the latest value).
test_mutation_tool.py's system test kills the real mutant through the fuzzer on Spark.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import pytest
from msgspec import structs

from kjoin.conformance.catalogue import Case
from kjoin.conformance.checker import Emitted, check
from kjoin.conformance.cli import main
from kjoin.conformance.cli.fuzz import render_report
from kjoin.conformance.differential import fuzz as fuzz_module
from kjoin.conformance.differential.fuzz import FuzzReport, fuzz
from kjoin.conformance.differential.generate import generate_cases
from kjoin.conformance.differential.profiles import PROFILES
from kjoin.conformance.documents.outcomes import CaseOutcome, kafka_outputs
from kjoin.conformance.harness.compositions import (
    STORE_SHAPE,
    STORE_SHAPES,
    batch_groups,
    by_store_shape,
    store_shape,
)
from kjoin.conformance.harness.micro_batches import split_case_id
from kjoin.conformance.protocol import Claim

CLAIM = Claim(
    joins=frozenset({"table-table", "stream-stream"}),
    variants=frozenset({"inner", "left", "outer"}),
    kafka=("3.9",),
    versioned=True,
)
CI = PROFILES["ci"]


class _Candidate:
    name = "fast-path-mutant"
    claim = CLAIM
    declared_differences = ()


def _fast_path_answer(case: Case, batch: Sequence[Case]) -> Emitted:
    """What the mutant emits for ``case`` in ``batch``: the general path (Kafka's outputs) when some case
    of the batch has both sides versioned, else the fast path (the case with its tables unversioned)."""
    general = any(store_shape(other) == "both-versioned" for other in batch)
    run = case if general else structs.replace(case, spec=structs.replace(case.spec, versioned=None))
    emitted = kafka_outputs(run)
    assert not isinstance(emitted, str)
    return emitted


class _FastPathHarness:
    """Stands in for ``HarnessRun``: one "call" per join kind and batch composition of the cases it is
    given (``batch_groups``, as ``HarnessRun`` calls the candidate), each case answered by
    ``_fast_path_answer`` with the other cases of its call, compared exactly with Kafka's outputs."""

    def __init__(self, candidate: object, spark: Callable[[], Any]) -> None:
        self.batches: list[str] = []

    def outcomes(self, cases: Sequence[Case]) -> list[CaseOutcome]:
        found: dict[str, CaseOutcome] = {}
        for group in batch_groups(cases):
            for join in dict.fromkeys(case.join for case in group):
                self.batches.append(join)
                self._answer([case for case in group if case.join == join], found)
        return [found[case.id] for case in cases]

    @staticmethod
    def _answer(batch: Sequence[Case], found: dict[str, CaseOutcome]) -> None:
        for case in batch:
            expected = kafka_outputs(case)
            assert not isinstance(expected, str)
            actual = _fast_path_answer(case, batch)
            verdict = check(expected, actual, "exact")
            found[case.id] = CaseOutcome(case, verdict.status, "exact", verdict, expected, actual)


def _no_spark() -> Any:
    raise AssertionError("the stand-in harness never starts Spark")


def _fuzz(monkeypatch: pytest.MonkeyPatch, **options: Any) -> FuzzReport:
    monkeypatch.setattr(fuzz_module, "HarnessRun", _FastPathHarness)
    return fuzz(_Candidate(), _no_spark, kafka="3.9", joins=["table-table"], **options)  # type: ignore[arg-type]


def _table_table() -> tuple[Case, ...]:
    return generate_cases("table-table", "3.9", profile=CI, seed=CI.seed, claim=CLAIM).cases


def test_store_shape_reads_the_versioned_sides() -> None:
    shapes = {store_shape(case) for case in _table_table()}
    assert shapes == set(STORE_SHAPES)
    for case in _table_table():
        versioned = case.spec.versioned
        left, right = (versioned.left, versioned.right) if versioned is not None else (False, False)
        assert store_shape(case).startswith(
            {(False, False): "un", (True, False): "left", (False, True): "right", (True, True): "both"}[
                left, right
            ]
        )


ONE_SIDED_OR_NONE = ["unversioned", "left-versioned", "right-versioned"]
"""The shapes whose batches hold other versioned sides than a joint batch with all four shapes."""


def test_by_store_shape_copies_the_shapes_whose_sides_differ_from_the_joint_batch() -> None:
    table = _table_table()
    stream = generate_cases("stream-stream", "3.9", profile=CI, seed=CI.seed, claim=CLAIM).cases
    copies = by_store_shape([*stream, *table])
    assert {store_shape(case) for case in stream} == {"unversioned"}  # one shape: no copy
    wanted = [case for case in table if store_shape(case) != "both-versioned"]
    assert [copy.scenario for copy in copies] == [case.scenario for case in wanted]
    for case, copy in zip(wanted, copies, strict=True):
        assert copy.batch == STORE_SHAPE and case.batch is None
        assert copy.id == f"{case.id}~{store_shape(case)}-batch"
        assert (copy.spec, copy.records) == (case.spec, case.records)
        assert split_case_id(copy) == copy.id  # the shrinker's renaming keeps the suffix
    assert len({copy.id for copy in copies} | {case.id for case in table}) == len(wanted) + len(table)


def test_a_two_sided_shape_gets_its_own_batch_when_the_joint_batch_lacks_one_side() -> None:
    """Stream-table has no left table: a right-versioned batch holds the joint batch's sides. Without
    one-sided table-table scenarios, a both-versioned batch does; with left-versioned ones only, it is
    the only batch with a right versioned table, so it gets its own batch."""
    table = _table_table()
    stream_table = [
        structs.replace(case, spec=structs.replace(case.spec, join="stream-table")) for case in table
    ]
    right_or_none = [c for c in stream_table if store_shape(c) in ("unversioned", "right-versioned")]
    assert {store_shape(c) for c in by_store_shape(right_or_none)} == {"unversioned"}
    no_one_sided = [c for c in table if store_shape(c) in ("unversioned", "both-versioned")]
    assert {store_shape(c) for c in by_store_shape(no_one_sided)} == {"unversioned"}
    left_and_both = [c for c in table if store_shape(c) in ("left-versioned", "both-versioned")]
    assert {store_shape(c) for c in by_store_shape(left_and_both)} == {"left-versioned"}
    assert by_store_shape(c for c in table if store_shape(c) == "both-versioned") == []


def test_batch_groups_put_the_joint_cases_together_and_each_shape_apart() -> None:
    table = list(_table_table())
    copies = by_store_shape(table)
    groups = batch_groups([*table, *copies])
    assert groups[0] == table
    assert [{store_shape(case) for case in group} for group in groups[1:]] == [{s} for s in ONE_SIDED_OR_NONE]
    assert all(case.batch == STORE_SHAPE for group in groups[1:] for case in group)
    assert [case for group in groups[1:] for case in group] == sorted(
        copies, key=lambda case: STORE_SHAPES.index(store_shape(case))
    )


def test_the_joint_batch_alone_misses_the_fast_path_mutant(monkeypatch: pytest.MonkeyPatch) -> None:
    report = _fuzz(monkeypatch, store_shape_batches=False)
    assert {store_shape(o.case) for o in report.outcomes} == set(STORE_SHAPES)
    assert report.failures == () and report.counterexamples == ()
    assert report.candidate_calls == 1


def test_store_shape_batches_catch_and_shrink_the_fast_path_mutant(monkeypatch: pytest.MonkeyPatch) -> None:
    report = _fuzz(monkeypatch)
    drawn = [case for batch in report.generated for case in batch.cases]
    joint = [o for o in report.outcomes if o.case.batch is None]
    shaped = [o for o in report.outcomes if o.case.batch == STORE_SHAPE]
    assert [o.case for o in joint] == drawn  # the generated scenarios are checked unchanged
    assert all(o.status == "pass" for o in joint)
    failing = {store_shape(o.case) for o in report.failures}
    assert report.failures and failing <= {"left-versioned", "right-versioned"}
    assert [o.case.scenario for o in shaped] == [
        case.scenario for case in drawn if store_shape(case) in ONE_SIDED_OR_NONE
    ]
    assert report.candidate_calls > 1 + len(ONE_SIDED_OR_NONE)  # the first check, then the shrinking's
    counterexample = report.counterexamples[0]
    original, minimal = counterexample.shrunk.original.case, counterexample.minimal.case
    assert original.batch == minimal.batch == STORE_SHAPE
    assert store_shape(minimal) in ("left-versioned", "right-versioned")
    assert len(minimal.records) < len(original.records) and len(minimal.records) <= 4
    assert minimal.id.endswith(f"~{store_shape(minimal)}-batch")
    # what it needs: alone (a batch of its shape) it fails; beside a both-versioned scenario it passes
    both = next(case for case in drawn if store_shape(case) == "both-versioned")
    assert check(kafka_outputs(minimal), _fast_path_answer(minimal, [minimal]), "exact").status == "fail"  # type: ignore[arg-type]
    beside = _fast_path_answer(minimal, [minimal, both])
    assert check(kafka_outputs(minimal), beside, "exact").status == "pass"  # type: ignore[arg-type]
    text = render_report(report)
    assert f"fails in a batch of {store_shape(minimal)} scenarios only" in text
    assert "the joint batch of its join kind passed" in text
    assert "table-table: again in batches of one store shape, unversioned " in text
    not_passing = sum(1 for o in shaped if o.status != "pass")
    assert f"; {not_passing} not passing there" in text
    # the summary table counts each drawn scenario once (its joint call), not its store-shape copies too
    summary = text.split("\n\n")[1]
    assert summary.splitlines()[-1].split()[:2] == ["total", str(len(drawn))]


def test_a_failure_of_the_joint_batch_is_shrunk_as_a_joint_case(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without two-sided scenarios (``versioned`` claimed for one side is not a claim; the generator is
    narrowed by dropping them from the batch), the joint batch takes the fast path too: its failures are
    the ones shrunk, not their store-shape twins."""
    real = fuzz_module.generated_batches

    def one_sided(*args: Any, **kwargs: Any) -> Any:
        return tuple(
            replace(batch, cases=tuple(c for c in batch.cases if store_shape(c) != "both-versioned"))
            for batch in real(*args, **kwargs)
        )

    monkeypatch.setattr(fuzz_module, "generated_batches", one_sided)
    report = _fuzz(monkeypatch, shrink_failures=3)
    joint_failures = {o.case.id for o in report.failures if o.case.batch is None}
    assert joint_failures
    assert {o.case.id.rsplit("~", 1)[0] for o in report.failures if o.case.batch} == joint_failures
    assert all(item.shrunk.original.case.batch is None for item in report.counterexamples)
    assert "needs its batch" not in render_report(report)


class _Called(Exception):
    pass


@pytest.mark.parametrize(("arguments", "wanted"), [([], True), (["--no-store-shape-batches"], False)])
def test_kjoin_fuzz_passes_the_option_on(
    monkeypatch: pytest.MonkeyPatch, arguments: list[str], wanted: bool
) -> None:
    seen: dict[str, Any] = {}

    def called(candidate: object, spark: object, **options: Any) -> FuzzReport:
        seen.update(options)
        raise _Called

    monkeypatch.setattr(fuzz_module, "fuzz", called)
    errors = io.StringIO()
    main(["fuzz", "--candidate", "spark-reference", *arguments], stdout=io.StringIO(), stderr=errors)
    assert "_Called" in errors.getvalue()  # stopped at the call: Spark never started
    assert seen["store_shape_batches"] is wanted
