"""The pure checker: verdicts, divergence kinds and their evidence, per equivalence level (no Spark)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kjoin.conformance.checker import MODES, CandidateFailure, Emitted, check
from kjoin.conformance.commit_points import by_cause
from kjoin.conformance.documents.vocabulary import DIVERGENCE_KINDS
from kjoin.oracle.records import Output

A = Output("k1", ("L1", "R1"), 5, 2)
B = Output("k1", ("L2", "R1"), 7, 3)
C = Output("k2", ("L3", None), 4, 3)
D = Output("k2", None, 9, 5)


def unknown_causes(*outputs: Output) -> Emitted:
    return Emitted(tuple(o._replace(cause=-1) for o in outputs), causes_known=False)


def known_causes(*outputs: Output) -> Emitted:
    return Emitted(tuple(outputs), causes_known=True)


def kafka(*outputs: Output) -> Emitted:
    """What Kafka (the oracle) emits: causes known."""
    return Emitted(tuple(outputs), causes_known=True)


@pytest.mark.parametrize("mode", MODES)
def test_check_passes_when_outputs_are_identical(mode: str) -> None:
    segments = by_cause((A, B, C, D), 6)
    verdict = check(kafka(A, B, C, D), known_causes(A, B, C, D), mode, segments=segments)
    assert (verdict.status, verdict.divergences, verdict.first) == ("pass", (), None)


def test_check_reports_missing_output_when_candidate_omits_a_row() -> None:
    verdict = check(kafka(A, B, C), unknown_causes(A, C), "multiset")
    assert verdict.status == "fail"
    found = [(d.kind, d.expected, d.actual, d.at) for d in verdict.divergences]
    assert found == [("missing-output", B, None, 3)]


def test_check_reports_unexpected_output_when_candidate_adds_a_row() -> None:
    extra = Output("k3", ("L9", None), 1, 0)
    verdict = check(kafka(A), known_causes(extra, A), "exact")
    assert [(d.kind, d.actual, d.at) for d in verdict.divergences] == [("unexpected-output", extra, 0)]


def test_check_reports_wrong_timestamp_when_only_the_timestamp_differs() -> None:
    late = A._replace(ts=6, cause=-1)
    verdict = check(kafka(A), Emitted((late,)), "multiset")
    [divergence] = verdict.divergences
    assert (divergence.kind, divergence.expected, divergence.actual) == ("wrong-timestamp", A, late)


def test_check_ignores_timestamps_when_the_scenario_does_not_know_them() -> None:
    assert check(kafka(A), unknown_causes(A._replace(ts=99)), "multiset", timestamps=False).status == "pass"


def test_check_reports_wrong_value_when_the_same_input_emits_another_value() -> None:
    other = A._replace(value=("L1", None))
    verdict = check(kafka(A), known_causes(other), "exact")
    [divergence] = verdict.divergences
    found = (divergence.kind, divergence.expected, divergence.actual, divergence.at)
    assert found == ("wrong-value", A, other, 2)


def test_check_exact_reports_wrong_input_when_emitted_by_another_input() -> None:
    verdict = check(kafka(A, B), known_causes(A, B._replace(cause=4)), "exact")
    [divergence] = verdict.divergences
    assert (divergence.kind, divergence.expected, divergence.at) == ("wrong-input", B, 3)
    assert divergence.detail == (
        "the candidate emits k1: L2 - R1 @7 while processing input #4; "
        "Kafka emits it while processing input #3"
    )


def test_check_exact_reports_out_of_order_when_one_input_emits_in_another_order() -> None:
    verdict = check(kafka(B, C), known_causes(C, B), "exact")
    [divergence] = verdict.divergences
    assert divergence.kind == "out-of-order"
    assert divergence.detail == (
        "Kafka emits k1: L2 - R1 @7 before k2: L3 - null @4; the candidate emits it after"
    )


def test_check_exact_against_an_order_only_statement_compares_the_sequence() -> None:
    stated = unknown_causes(A, B)
    assert check(stated, known_causes(A, B), "exact", names=("the file", "the oracle")).status == "pass"
    verdict = check(stated, known_causes(B, A), "exact", names=("the file", "the oracle"))
    [divergence] = verdict.divergences
    assert divergence.kind == "out-of-order" and divergence.detail.startswith("the file emits")


def test_check_names_the_two_sides_in_every_detail() -> None:
    verdict = check(kafka(A), known_causes(B), "exact", names=("Kafka 3.0", "Kafka 3.1"))
    assert all("Kafka 3.0" in d.detail and "Kafka 3.1" in d.detail for d in verdict.divergences)


def test_check_key_order_accepts_interleaving_across_keys() -> None:
    assert check(kafka(A, C, B), unknown_causes(C, A, B), "key-order").status == "pass"


def test_check_key_order_rejects_a_swap_within_one_key() -> None:
    verdict = check(kafka(A, B), unknown_causes(B, A), "key-order")
    [divergence] = verdict.divergences
    assert divergence.kind == "out-of-order" and "k1" in divergence.detail


def test_check_multiset_accepts_any_order_but_counts_duplicates() -> None:
    assert check(kafka(A, B, C), unknown_causes(C, B, A), "multiset").status == "pass"
    verdict = check(kafka(A, A), unknown_causes(A), "multiset")
    assert [d.kind for d in verdict.divergences] == ["missing-output"]


def test_check_exact_is_unknown_when_the_candidate_reports_no_causes() -> None:
    verdict = check(kafka(A), unknown_causes(A), "exact")
    assert verdict.status == "unknown" and "idx" in verdict.reason


def test_check_table_compares_the_final_state_only() -> None:
    first = Output("k1", ("L1", None), 1, 0)
    assert check(kafka(first, A), unknown_causes(A), "table").status == "pass"


def test_check_table_reports_a_row_the_candidate_deleted() -> None:
    delete = Output("k1", None, 8, 4)
    verdict = check(kafka(A), known_causes(A, delete), "table")
    [divergence] = verdict.divergences
    assert (divergence.kind, divergence.expected) == ("missing-output", A)


def test_check_gives_candidate_error_when_the_candidate_failed() -> None:
    verdict = check(kafka(A), CandidateFailure("ValueError: boom", "Traceback ..."), "multiset")
    [divergence] = verdict.divergences
    assert (verdict.status, divergence.kind) == ("fail", "candidate-error")
    assert "boom" in divergence.detail and "Traceback" in divergence.detail


def test_check_orders_divergences_by_input_so_first_is_the_earliest() -> None:
    verdict = check(kafka(A, B, D), known_causes(D), "exact")
    assert [d.at for d in verdict.divergences] == [2, 3]
    assert verdict.first is not None and verdict.first.expected == A


def test_check_rejects_an_unknown_mode() -> None:
    with pytest.raises(ValueError, match="unknown equivalence mode"):
        check(kafka(), Emitted(()), "fuzzy")  # type: ignore[arg-type]


def test_check_divergence_kinds_are_the_documented_closed_list() -> None:
    assert tuple(DIVERGENCE_KINDS) == (
        "missing-output",
        "unexpected-output",
        "wrong-value",
        "wrong-timestamp",
        "wrong-input",
        "out-of-order",
        "unexplained-output",
        "candidate-error",
    )
    assert all(DIVERGENCE_KINDS.values())


outputs = st.lists(
    st.builds(
        Output,
        st.sampled_from(["k1", "k2", 3, None]),
        st.one_of(st.none(), st.tuples(st.sampled_from(["L1", "L2"]), st.sampled_from(["R1", None]))),
        st.integers(0, 5),
        st.integers(0, 4),
    ),
    max_size=8,
).map(lambda found: sorted(found, key=lambda output: output.cause))


@given(outputs, st.randoms(use_true_random=False))
def test_check_multiset_passes_for_any_permutation_and_fails_for_any_removal(
    expected: list[Output], random: object
) -> None:
    shuffled = list(expected)
    random.shuffle(shuffled)  # type: ignore[attr-defined]
    assert check(kafka(*expected), Emitted(tuple(shuffled)), "multiset").status == "pass"
    if expected:
        verdict = check(kafka(*expected), Emitted(tuple(shuffled[1:])), "multiset")
        assert [d.kind for d in verdict.divergences] == ["missing-output"]


@given(outputs)
def test_check_passes_in_every_mode_when_the_candidate_matches_exactly(expected: list[Output]) -> None:
    segments = by_cause(expected, max((o.cause + 1 for o in expected), default=0))
    for mode in MODES:
        actual = Emitted(tuple(expected), causes_known=True)
        assert check(kafka(*expected), actual, mode, segments=segments).status == "pass"


def test_commit_points_passes_with_the_commit_points_that_explain_the_output() -> None:
    """Stream results (``by_cause``): Kafka's outputs, regrouped across keys within batches of inputs."""
    first, second = Output("k1", ("L1", "R1"), 5, 1), Output("k2", ("L2", "R2"), 6, 1)
    then = Output("k1", ("L3", "R1"), 7, 2)
    segments = by_cause((first, second, then), 3)
    verdict = check(
        kafka(first, second, then), unknown_causes(second, first, then), "commit-points", segments=segments
    )
    assert (verdict.status, verdict.commit_points, verdict.divergences) == ("pass", (2,), ())  # one batch
    assert check(kafka(first, second, then), unknown_causes(second, first, then), "exact").status == "unknown"


def test_commit_points_names_the_first_output_no_commit_points_explain() -> None:
    first, then = Output("k1", ("L1", "R1"), 5, 1), Output("k1", ("L3", "R1"), 7, 2)
    segments = by_cause((first, then), 3)
    verdict = check(kafka(first, then), unknown_causes(then, first), "commit-points", segments=segments)
    [divergence] = verdict.divergences
    assert (verdict.status, divergence.kind) == ("fail", "unexplained-output")
    assert (divergence.actual, divergence.expected) == (then._replace(cause=-1), first)
    assert divergence.detail == (
        "no commit points make Kafka emit k1: L3 - R1 @7 as the candidate's output #0; next for key k1 Kafka "
        "emits k1: L1 - R1 @5"
    )
    assert verdict.commit_points == (1,)  # the furthest explanation tried: one commit, after #1


def test_commit_points_names_the_output_kafka_still_emits() -> None:
    first, then = Output("k1", ("L1", "R1"), 5, 1), Output("k1", ("L3", "R1"), 7, 2)
    verdict = check(
        kafka(first, then), unknown_causes(first), "commit-points", segments=by_cause((first, then), 3)
    )
    [divergence] = verdict.divergences
    assert (divergence.kind, divergence.expected, divergence.at) == ("missing-output", then, 2)
    assert verdict.commit_points == (1, 2)
    assert divergence.detail == (
        "the candidate's 1 outputs fit what Kafka emits with commits after input #1, input #2, but no commit "
        "points let Kafka stop there: by the commit after input #2 it also emits k1: L3 - R1 @7; the "
        "candidate does not"
    )


def test_commit_points_needs_kafkas_segments() -> None:
    with pytest.raises(ValueError, match="segments"):
        check(kafka(A), known_causes(A), "commit-points")
