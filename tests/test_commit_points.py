"""The commit-points decision procedure (``kjoin.conformance.commit_points``) on hand-worked segment
functions: what Kafka's record caches flush between two commits, worked out by hand from spec PR-5 to
PR-7, CP-1 to CP-4 (no oracle, no Spark)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest

from kjoin.conformance.commit_points import Explanation, Segments, explain
from kjoin.oracle.records import Output


def out(key: str, left: str, right: str | None, ts: int) -> Output:
    return Output(key, (left, right), ts, -1)


# An inner table-table join, both tables cached; inputs #0 left k: A @1, #1 right k: a @2, #2 left k: B @3.
# segment(p, q): the left store flushes its dirty keys, then the right store; each flushed update is joined
# with the other side's current value (TT-4: nothing while it has none). A key dirty on both sides is
# emitted twice, identically.
A_A = out("k", "A", "a", 2)
B_A = out("k", "B", "a", 3)
INNER: dict[tuple[int, int], tuple[Output, ...]] = {
    (0, 1): (),  # left A dirty; the right side has no value
    (0, 2): (A_A, A_A),  # left A and right a dirty: both flushes join them
    (0, 3): (B_A, B_A),  # left B (A merged into it) and right a
    (1, 2): (A_A,),  # right a dirty, joined with A
    (1, 3): (B_A, B_A),
    (2, 3): (B_A,),
}


def inner_join(p: int, q: int) -> Sequence[Output]:
    return INNER[p, q]


def decide(candidate: Sequence[Output], segments: Segments) -> Explanation:
    return explain(candidate, segments)


@pytest.mark.parametrize(
    ("candidate", "commits"),
    [
        ((A_A, B_A), (1, 2)),  # a commit after #1 and the end: (0, 2] then (2, 3]
        ((B_A,), (2,)),  # one commit at the end: A merged into B
        ((A_A, A_A, B_A), (1, 2)),  # the key dirty on both sides, emitted twice, as Kafka does
        ((A_A, B_A, B_A), (1, 2)),
    ],
)
def test_outputs_explained_by_some_commit_points_pass_with_them(
    candidate: tuple[Output, ...], commits: tuple[int, ...]
) -> None:
    found = decide(candidate, Segments(3, inner_join))
    assert (found.passed, found.commits) == (True, commits)


def test_the_commit_points_found_make_kafka_emit_the_candidates_batches() -> None:
    found = decide((A_A, B_A), Segments(3, inner_join))
    points = [0, *(index + 1 for index in found.commits)]
    emitted = [output for p, q in itertools.pairwise(points) for output in INNER[p, q]]
    assert dict.fromkeys(emitted) == dict.fromkeys((A_A, B_A))


def test_a_port_that_drops_the_final_update_fails_with_the_missing_output() -> None:
    found = decide((A_A,), Segments(3, inner_join))
    assert not found.passed
    assert (found.explained, found.unexplained, found.expected) == (1, None, B_A)
    assert (found.commits, found.until) == (
        (1,),
        2,
    )  # A - a explained by a commit after #1; B - a must follow


def test_outputs_in_an_order_no_commits_give_fail_at_the_first_unexplained_one() -> None:
    found = decide((B_A, A_A), Segments(3, inner_join))
    assert not found.passed
    assert (found.explained, found.unexplained) == (1, A_A)


def test_a_value_kafka_never_emits_is_unexplained_with_kafkas_output_for_the_key() -> None:
    wrong = out("k", "A", "b", 2)
    found = decide((wrong, B_A), Segments(3, inner_join))
    assert (found.passed, found.explained, found.unexplained, found.expected) == (False, 0, wrong, A_A)


def test_repeats_count_once_only_for_table_results() -> None:
    segments = Segments(3, inner_join, merge_repeats=False)
    assert decide((A_A, A_A, B_A), segments).passed
    assert not decide((A_A, A_A, A_A, B_A), segments).passed  # no segment emits A - a three times
    assert decide((A_A, A_A, A_A, B_A), Segments(3, inner_join)).commits == (1, 2)


# A left table-table join fed only left records: a flush emits, for each key dirty since the last commit,
# its newest value joined with null, at that value's timestamp (the right table is empty).
LEFT_ONLY = [("k2", "X", 1), ("k1", "A", 2), ("k1", "B", 3), ("k2", "Y", 4)]


def left_only(p: int, q: int) -> Sequence[Output]:
    newest: dict[str, Output] = {}
    for key, value, ts in LEFT_ONLY[p:q]:
        newest.pop(key, None)
        newest[key] = out(key, value, None, ts)
    return tuple(newest.values())


def test_two_keys_that_need_different_commit_points_are_infeasible() -> None:
    """k1 emits A and B: a commit between #1 and #2. k2 emits only Y: no commit after #0, #1 or #2 (each
    would flush X). Each key alone is explained; no one sequence of commit points explains both."""
    k1_a, k1_b, k2_y = out("k1", "A", None, 2), out("k1", "B", None, 3), out("k2", "Y", None, 4)
    segments = Segments(4, left_only)
    found = decide((k1_a, k1_b, k2_y), segments)
    assert not found.passed
    # the furthest explanation: a commit after #1 explains k1: A, but its flush also holds k2: X
    x = out("k2", "X", None, 1)
    assert (found.explained, found.unexplained, found.expected, found.until) == (1, k1_b, x, 1)
    assert decide((k1_a, x, k1_b, k2_y), segments).commits == (1, 3)


def test_keys_interleave_freely_within_a_commit_but_not_across_commits() -> None:
    x, a = out("k2", "X", None, 1), out("k1", "A", None, 2)
    b, y = out("k1", "B", None, 3), out("k2", "Y", None, 4)
    segments = Segments(4, left_only)
    assert decide((a, x, y, b), segments).commits == (1, 3)
    assert decide((x, a, b, y), segments).commits == (1, 3)
    found = decide((x, b, a, y), segments)
    assert (found.passed, found.unexplained) == (False, a)


def test_empty_segments_and_empty_input() -> None:
    assert decide((), Segments(0, left_only)) == Explanation(True, ())
    extra = out("k", "A", None, 1)
    assert decide((extra,), Segments(0, left_only)) == Explanation(False, (), 0, extra)
    assert decide((), Segments(3, lambda p, q: ())).commits == (2,)


def test_timestamps_can_be_ignored() -> None:
    late = B_A._replace(ts=99)
    assert not decide((A_A, late), Segments(3, inner_join)).passed
    assert explain((A_A, late), Segments(3, inner_join), timestamps=False).passed


def test_each_segment_is_asked_for_once() -> None:
    asked: list[tuple[int, int]] = []

    def counted(p: int, q: int) -> Sequence[Output]:
        asked.append((p, q))
        return left_only(p, q)

    decide((out("k2", "Y", None, 4), out("k1", "A", None, 2)), Segments(4, counted))
    assert len(asked) == len(set(asked))
