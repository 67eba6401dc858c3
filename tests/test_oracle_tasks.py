"""Kafka's task model (spec TK-1, TK-2): a task's processing order over its partitions, with the heap's
ties, and a partitioned join as the union of its tasks."""

from __future__ import annotations

import pytest

from kjoin.oracle import JoinSpec, Record, Window, behaviour_for, run
from kjoin.oracle.errors import UnsupportedJoinError
from kjoin.oracle.tasks import processing_order, run_task


def test_the_smallest_head_timestamp_goes_first_and_offsets_keep_their_order() -> None:
    # left: 5, 1 (out of order within its partition); right: 3
    assert processing_order([[5, 1], [3]]) == [(1, 0), (0, 0), (0, 1)]


def test_equal_heads_alternate_between_two_partitions() -> None:
    """A polled queue offered again sinks below an equal queue already in the heap."""
    assert processing_order([[1, 1, 1], [1, 1]]) == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)]


def test_three_partitions_follow_the_java_priority_queue() -> None:
    # heap ties resolved by sift rules, not by partition number: after polling 0 (ts 1), partition 0's next
    # head 2 is offered below the equal head of partition 2
    order = processing_order([[1, 2], [3], [2]])
    assert order == [(0, 0), (2, 0), (0, 1), (1, 0)]


def test_a_drained_partition_leaves_the_heap() -> None:
    assert processing_order([[], [4, 2]]) == [(1, 0), (1, 1)]
    assert processing_order([[], []]) == []


def test_a_task_joins_in_its_processing_order() -> None:
    spec = JoinSpec(
        join="stream-stream", variant="inner", window=Window(before=2, after=2, grace=0), stores="memory"
    )
    left = [Record("left", "k", "L1", 10), Record("left", "k", "L2", 0)]
    right = [Record("right", "k", "R1", 9)]
    records, outputs = run_task(spec, left, right, behaviour_for("3.9"))
    assert [r.value for r in records] == ["R1", "L1", "L2"]
    assert [(o.value, o.ts, o.cause) for o in outputs] == [(("L1", "R1"), 10, 1)]
    assert outputs == run(spec, records, behaviour_for("3.9"))


def test_foreign_key_joins_are_not_one_task() -> None:
    with pytest.raises(UnsupportedJoinError, match="repartitions by the foreign key"):
        run_task(JoinSpec(join="fk", variant="inner"), [], [], behaviour_for("3.9"))


def test_the_heap_breaks_ties_exactly_as_java_util_priority_queue(tmp_path: object) -> None:
    """The same random partitions through ``java.util.PriorityQueue`` (compiled and run with the JDK) and
    through ``processing_order``: the same order, ties included."""
    import ast
    import re
    import shutil
    import subprocess
    from pathlib import Path

    javac, java = shutil.which("javac"), shutil.which("java")
    if javac is None or java is None:
        pytest.skip("no JDK on the PATH")
    source = Path(__file__).parent / "support" / "java" / "PriorityQueueOrder.java"
    out = Path(str(tmp_path))
    subprocess.run([javac, "-d", str(out), str(source)], check=True)
    lines = subprocess.run(
        [java, "-cp", str(out), "PriorityQueueOrder", "11", "500"], check=True, capture_output=True, text=True
    ).stdout.splitlines()
    assert len(lines) == 500
    for line in lines:
        parts, wanted = line.split(" -> ")
        order = [tuple(map(int, pair.split(", "))) for pair in re.findall(r"\((\d+, \d+)\)", wanted)]
        assert processing_order(ast.literal_eval(parts)) == order, line
