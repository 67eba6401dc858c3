"""Render outcomes as text tables (tabulate). Rendering only: the checker's data is shown, never recomputed
(STYLE.md §3 and rule 9)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from tabulate import tabulate

from kjoin.conformance.checker import Divergence, Emitted
from kjoin.conformance.harness.cases import Case
from kjoin.conformance.harness.outcomes import CaseOutcome
from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for
from kjoin.oracle.records import Key, Output, Value

__all__ = ["render_outcome", "render_summary", "show_output"]

_TRACE_AFTER_FIRST = 5
_TRACE_MAX = 40


def _key(key: Key) -> str:
    return "null" if key is None else str(key)


def _operand(value: Value) -> str:
    return "null" if value is None else value


def _value(value: tuple[Value, Value] | None) -> str:
    return "(tombstone)" if value is None else f"{_operand(value[0])} - {_operand(value[1])}"


def show_output(output: Output | None, *, with_key: bool = True) -> str:
    """``k1: L1 - R1 @5`` (a tombstone shows as ``(tombstone)``)."""
    if output is None:
        return ""
    text = f"{_value(output.value)} @{output.ts}"
    return f"{_key(output.key)}: {text}" if with_key else text


def _describe(case: Case) -> str:
    spec = case.spec
    try:
        era = f" (era {behaviour_for(case.kafka, intended=case.intended).era})"
    except UnknownVersionError:
        era = ""
    parts = [f"{spec.join} {spec.variant} join as Kafka {case.kafka}{era}"]
    if case.intended:
        parts.append("intended semantics")
    if spec.window is not None:
        window = spec.window
        grace = "none (legacy of())" if window.grace is None else str(window.grace)
        grace += " (legacy of().grace())" if window.legacy and window.grace is not None else ""
        parts.append(f"window before {window.before} after {window.after} grace {grace}")
    parts.append(f"stores {spec.stores}")
    if spec.versioned is not None:
        versioned = spec.versioned
        sides = "+".join(side for side in ("left", "right") if versioned.of(side)) or "none"
        parts.append(f"versioned {sides} (history {versioned.history_ms})")
    if not case.timestamps:
        parts.append("timestamps not compared")
    return ", ".join(parts)


def _input_row(case: Case, index: int | None) -> str:
    if index is None or not 0 <= index < len(case.records):
        return "an input the candidate did not name"
    record = case.records[index]
    return f"input #{index} ({record.side} {_key(record.key)}: {_operand(record.value)} @{record.ts})"


def _divergence_table(divergences: Sequence[Divergence], limit: int) -> str:
    rows = [
        [d.kind, "" if d.at is None else d.at, show_output(d.expected), show_output(d.actual), d.detail]
        for d in divergences[:limit]
    ]
    table = tabulate(rows, headers=["kind", "input", "Kafka emits", "candidate emits", "note"],
                     tablefmt="simple", disable_numparse=True)
    more = len(divergences) - limit
    return table + (f"\n... and {more} more" if more > 0 else "")


def _trace_table(case: Case, expected: Sequence[Output], answer: Emitted, first: int | None) -> str:
    """Inputs with what Kafka (and, when the candidate reports idx, the candidate) emitted for each."""
    kafka: dict[int, list[str]] = defaultdict(list)
    for output in expected:
        kafka[output.cause].append(show_output(output))
    candidate: dict[int, list[str]] = defaultdict(list)
    if answer.causes_known:
        for output in answer.outputs:
            candidate[output.cause].append(show_output(output))
    last = len(case.records) if first is None else min(len(case.records), first + 1 + _TRACE_AFTER_FIRST)
    start = max(0, last - _TRACE_MAX)
    rows = []
    for index in range(start, last):
        record = case.records[index]
        row = [">>" if index == first else "", index, record.side, _key(record.key), _operand(record.value),
               record.ts, "; ".join(kafka[index])]
        if answer.causes_known:
            row.append("; ".join(candidate[index]))
        rows.append(row)
    headers = ["", "#", "side", "key", "value", "ts", "Kafka emits"]
    if answer.causes_known:
        headers.append("candidate emits")
    return tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)


def render_outcome(outcome: CaseOutcome, *, limit: int = 20) -> str:
    """A failing (or declared) outcome as text: what differs, where first, and the input trace."""
    case, verdict = outcome.case, outcome.verdict
    lines = [f"{case.id} from {case.source}", _describe(case)]
    if outcome.reason and outcome.status in ("not-claimed", "not-applicable", "unknown"):
        return "\n".join([*lines, outcome.reason])
    if verdict is None:
        return "\n".join(lines)
    if outcome.declared is not None:
        lines.append(f"declared difference ({outcome.declared.scenario}): {outcome.declared.reason}")
    if outcome.status == "unexpected-pass":
        lines.append("unexpected pass: the difference is declared strict, yet the candidate agrees")
    first = verdict.first
    if first is None:
        return "\n".join([*lines, f"agrees with Kafka (compared as {verdict.mode})"])
    if first.kind == "candidate-error":
        return "\n".join([*lines, "candidate error:", first.detail])
    counts = Counter(d.kind for d in verdict.divergences)
    summary = ", ".join(f"{n} {kind}" for kind, n in counts.items())
    lines.append(f"differs from Kafka (compared as {verdict.mode}): {summary}")
    lines.append(f"first divergence at {_input_row(case, first.at)}: {first.kind}"
                 + (f", Kafka emits {show_output(first.expected)}" if first.expected else "")
                 + (f", candidate emits {show_output(first.actual)}" if first.actual else ""))
    lines += ["", _divergence_table(verdict.divergences, limit)]
    if isinstance(outcome.answer, Emitted) and outcome.expected is not None:
        lines += ["", "trace (>> marks the first divergence):",
                  _trace_table(case, outcome.expected, outcome.answer, first.at)]
    return "\n".join(lines)


def render_summary(outcomes: Sequence[CaseOutcome]) -> str:
    """Counts per join kind and status, with a total row."""
    statuses = ["pass", "fail", "declared", "unexpected-pass", "unknown", "not-claimed", "not-applicable"]
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for outcome in outcomes:
        counts[outcome.case.join][outcome.status] += 1
        counts["total"][outcome.status] += 1
    joins = [join for join in ("stream-stream", "stream-table", "table-table", "fk") if join in counts]
    rows = [[join, *(counts[join][status] for status in statuses)] for join in [*joins, "total"]]
    return tabulate(rows, headers=["join", *statuses], tablefmt="simple")
