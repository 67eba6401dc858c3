"""The input whose effect first differs: where a failing case's first divergence *starts*, which may be an
input before the one where it shows (an ignored delete changes nothing visible until a later record joins
the deleted value).

Definition (docs/results-format.md, ``first_divergence.cause``). Let ``s`` be the input where the first
divergence shows, and suppose both sides name the input that emitted each output. The **causing input** is
the latest input ``j <= s`` such that Kafka, run on the inputs without ``j``, emits up to and including
input ``s`` exactly what the candidate emits there (the same outputs from the same inputs, in the same
order; outputs are compared with their inputs numbered as in the case). In words: up to the symptom, the
candidate behaves as Kafka would had it never seen input ``j``. When ``j < s`` the marker belongs on
``j``; when no single input explains the symptom (or only ``s`` itself does), the first divergence is its
own cause. Pure: the oracle runs on subsets of the inputs; at most ``MAX_TRIES`` inputs are tried (the
nearest first, and only inputs where Kafka emits nothing, since the two sides agree on those before ``s``).
"""

from __future__ import annotations

from collections.abc import Sequence

from kjoin.conformance.catalogue import Case
from kjoin.conformance.checker import Divergence, Emitted
from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for
from kjoin.oracle.engine import run
from kjoin.oracle.errors import OracleError
from kjoin.oracle.records import Output

__all__ = ["MAX_INPUTS", "MAX_TRIES", "causing_input"]

MAX_TRIES = 32
"""Inputs tried as the cause, nearest to the symptom first."""
MAX_INPUTS = 2000
"""Beyond this many inputs before the symptom, no cause is searched (each try reruns the oracle)."""


def _through(outputs: Sequence[Output], last: int) -> list[tuple[object, ...]]:
    return [(o.key, o.value, o.ts, o.cause) for o in outputs if o.cause <= last]


def causing_input(case: Case, kafka: Emitted, answer: Emitted, first: Divergence) -> int | None:
    """The causing input of ``first`` (see the module docstring), or ``None`` when it cannot be told: the
    emitting inputs are not known on both sides, or the symptom's input is not."""
    symptom = first.at
    if symptom is None or not (kafka.causes_known and answer.causes_known) or symptom >= len(case.records):
        return None
    if symptom > MAX_INPUTS:
        return None
    wanted = _through(answer.outputs, symptom)
    emitting = {o.cause for o in kafka.outputs}
    behaviour = behaviour_for(case.kafka, intended=case.intended)
    tried = 0
    for dropped in range(symptom, -1, -1):
        if dropped < symptom and dropped in emitting:
            continue
        if tried == MAX_TRIES:
            break
        tried += 1
        kept = [index for index in range(symptom + 1) if index != dropped]
        try:
            outputs = run(case.spec, [case.records[index] for index in kept], behaviour)
        except (OracleError, UnknownVersionError):
            continue
        renumbered = [o._replace(cause=kept[o.cause]) for o in outputs]
        if _through(renumbered, symptom) == wanted:
            return dropped
    return symptom
