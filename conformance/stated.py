"""The oracle against what a scenario file states Kafka emits: one case, the first divergence in words.

``kjoin check`` runs it over every case whose file states its outputs (a seed table's block, a captured
trace's ``expected``); so does ``pytest conformance`` without a candidate, one item per case. The project's
checker compares at the exact level: same keys, values and timestamps (where the file states them), same
order, and where the file names the emitting input row, the same row.
"""

from __future__ import annotations

from collections.abc import Sequence

from kjoin.conformance.catalogue import Case
from kjoin.conformance.checker import Emitted, Verdict, check
from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for
from kjoin.oracle.engine import run
from kjoin.oracle.errors import OracleError
from kjoin.oracle.records import Output

__all__ = ["against_file", "check_case"]


def check_case(case: Case) -> str | None:
    """``None`` when the oracle emits what ``case``'s file states, else the first divergence in words."""
    assert case.expected is not None
    try:
        outputs = run(case.spec, case.records, behaviour_for(case.kafka, intended=case.intended))
    except (OracleError, UnknownVersionError) as error:
        return f"the oracle cannot run it: {error}"
    first = against_file(case, outputs).first
    if first is None:
        return None
    at = "" if first.at is None else f" at input #{first.at}"
    return f"{first.kind}{at}: {first.detail}"


def against_file(case: Case, outputs: Sequence[Output]) -> Verdict:
    """The oracle's ``outputs`` checked against what ``case``'s file states (exact; the file's timestamps
    setting), named "the file" and "the oracle"."""
    assert case.expected is not None
    return check(
        Emitted(case.expected.outputs, case.expected.causes_known),
        Emitted(tuple(outputs), causes_known=True),
        "exact",
        timestamps=case.expected.timestamps,
        names=("the file", "the oracle"),
    )
