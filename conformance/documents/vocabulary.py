"""The closed vocabularies of the documents (docs/results-format.md): divergence kinds and case statuses, each
with its meaning, and the orders they are shown in.

Defined here once: the checker names divergences with these kinds, the harness gives cases these statuses,
results documents carry both lists with their sentences, and the reports and the scale check import them.
Self-contained (no ``kjoin`` import), so the reports, which import neither the oracle nor the harness, can.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, get_args

__all__ = [
    "DIVERGENCE_KINDS",
    "FAILING",
    "KIND_ORDER",
    "OUTCOME_STATUSES",
    "STATUS_MEANINGS",
    "STATUS_ORDER",
    "DivergenceKind",
    "OutcomeStatus",
]

DivergenceKind = Literal[
    "missing-output",
    "unexpected-output",
    "wrong-value",
    "wrong-timestamp",
    "wrong-input",
    "out-of-order",
    "unexplained-output",
    "candidate-error",
]
DIVERGENCE_KINDS: Mapping[DivergenceKind, str] = MappingProxyType(
    {
        "missing-output": "Kafka emits this output; the candidate does not",
        "unexpected-output": "the candidate emits this output; Kafka does not",
        "wrong-value": "at the same place (same key, same emitting input or timestamp) another value",
        "wrong-timestamp": "the same key and value, with another timestamp",
        "wrong-input": "the same output, emitted while processing another input record",
        "out-of-order": "the same outputs from the same inputs, emitted in another order",
        "unexplained-output": "no commit points make Kafka emit this output after the ones before it",
        "candidate-error": "the candidate failed or returned unusable rows",
    }
)
"""The closed list of divergence kinds, each with its meaning (reports and docs show these sentences)."""
KIND_ORDER: tuple[DivergenceKind, ...] = get_args(DivergenceKind)
"""Display order of divergence kinds (the checker's order, which lists a case's divergences by it too)."""
assert tuple(DIVERGENCE_KINDS) == KIND_ORDER

OutcomeStatus = Literal[
    "pass", "fail", "error", "declared", "unexpected-pass", "unknown", "not-claimed", "not-applicable"
]
OUTCOME_STATUSES: tuple[OutcomeStatus, ...] = get_args(OutcomeStatus)
STATUS_MEANINGS: Mapping[OutcomeStatus, str] = MappingProxyType(
    {
        "pass": "the candidate agrees with Kafka",
        "fail": "the candidate differs from Kafka",
        "error": "the candidate failed on this case (crash, timeout or unusable rows)",
        "declared": "the candidate differs, and declares this difference with its reason",
        "unexpected-pass": "the candidate agrees, but declares a strict difference here",
        "unknown": "the requested equivalence level cannot be decided for this case",
        "not-claimed": "outside what the candidate claims to implement",
        "not-applicable": "this Kafka version has no such join",
    }
)
"""One sentence per status (results documents carry them for the report)."""
assert tuple(STATUS_MEANINGS) == OUTCOME_STATUSES
FAILING: frozenset[OutcomeStatus] = frozenset({"fail", "error", "unexpected-pass"})
"""The statuses that make a run fail."""
STATUS_ORDER: tuple[OutcomeStatus, ...] = (
    "fail",
    "error",
    "unexpected-pass",
    "declared",
    "unknown",
    "pass",
    "not-claimed",
    "not-applicable",
)
"""Display order of statuses: what needs attention first."""
assert sorted(STATUS_ORDER) == sorted(OUTCOME_STATUSES)
