"""Outcomes as terminal text (tabulate): what differs, where first, why Kafka emits what it emits, and the
input trace. Rendering only: the checker's and the oracle's data is shown, never recomputed."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from tabulate import tabulate

from kjoin.conformance.catalogue import Case, MicroBatches
from kjoin.conformance.checker import Divergence, Emitted
from kjoin.conformance.documents.causes import causing_input
from kjoin.conformance.documents.explain import explain
from kjoin.conformance.documents.outcomes import CaseOutcome
from kjoin.conformance.documents.vocabulary import OUTCOME_STATUSES
from kjoin.conformance.harness.system_failures import one_line
from kjoin.conformance.notation import show_key, show_operand, show_output, show_record
from kjoin.oracle.behaviour import era_of
from kjoin.oracle.records import JOIN_KINDS

__all__ = [
    "describe_case",
    "describe_micro_batches",
    "render_diagnosis",
    "render_outcome",
    "render_ran_as",
    "render_state",
    "render_summary",
    "render_trace",
]

_TRACE_AFTER_FIRST = 5
_TRACE_MAX = 40


def describe_case(case: Case) -> str:
    """The join and its settings in one line, with the header that fits the join kind."""
    spec = case.spec
    era = era_of(case.kafka)
    parts = [f"{spec.join} {spec.variant} join as Kafka {case.kafka}{f' (era {era})' if era else ''}"]
    if case.intended:
        parts.append("intended semantics")
    window = spec.window
    if window is not None and spec.join == "stream-stream":
        if window.grace is None:
            api = "JoinWindows.of (legacy, no grace given)"
        elif window.legacy:
            api = f"JoinWindows.of().grace({window.grace}) (legacy)"
        else:
            api = f"grace {window.grace}"
        parts.append(f"window before {window.before} after {window.after}, {api}")
    elif window is not None:
        parts.append(f"grace {window.grace} (KIP-923 stream-side buffer)")
    parts.append(f"stores {spec.stores}")
    if spec.versioned is not None:
        versioned = spec.versioned
        sides = "+".join(side for side in ("left", "right") if versioned.of(side)) or "none"
        parts.append(f"versioned {sides} (history {versioned.history_ms} ms)")
    if spec.join == "fk":
        parts.append(f"foreign key extractor {spec.fk_extractor}")
    if spec.self_join:
        parts.append("self-join (one stream joined with itself)")
    if spec.optimization != "none":
        parts.append(f"topology.optimization {spec.optimization}")
    if spec.join == "stream-globaltable":
        parts.append(f"key mapper {spec.key_mapper}")
    line = ", ".join(parts)
    if case.micro_batches is not None:
        line += f"\n{describe_micro_batches(case.micro_batches, len(case.records))}"
    return line


def describe_micro_batches(micro_batches: MicroBatches, count: int) -> str:
    """How a streaming candidate was fed the case's ``count`` records: its micro-batches and boundaries."""
    edges = [0, *micro_batches.starts, count]
    spans = [f"#{first}-#{end - 1}" if end - 1 > first else f"#{first}" for first, end in pairwise(edges)]
    boundaries = ", ".join(f"#{start}" for start in micro_batches.starts) or "none"
    return (
        f"fed in {len(spans)} micro-batch{'es' if len(spans) != 1 else ''} (split {micro_batches.split}): "
        f"{', '.join(spans)}; boundaries before {boundaries}"
    )


def _input_row(case: Case, index: int | None) -> str:
    if index is None or not 0 <= index < len(case.records):
        return "an input the candidate did not name"
    return f"input {show_record(case.records[index], index)}"


def _divergence_table(divergences: Sequence[Divergence], limit: int) -> str:
    rows = [
        [d.kind, "" if d.at is None else d.at, show_output(d.expected), show_output(d.actual)]
        for d in divergences[:limit]
    ]
    headers = ["kind", "input", "Kafka emits", "candidate emits"]
    table = tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)
    more = len(divergences) - limit
    return table + (f"\n... and {more} more" if more > 0 else "")


def render_trace(
    records: Sequence[Any],
    columns: Mapping[str, Sequence[Any]],
    *,
    mark: int | None = None,
    window: tuple[int, int] | None = None,
    micro_batches: MicroBatches | None = None,
) -> str:
    """Inputs (``#``, ts, side, key, value) with, per named column, the outputs each input emitted, in the
    seed tables' notation (an output's key is shown only where it is not the emitting input's key).

    ``columns`` maps a heading to outputs with causes (``Output``); ``window`` limits the rows shown;
    ``mark`` flags one row with ``>>``; ``micro_batches`` adds the micro-batch of each input (``batch``,
    ``|`` where one begins after a boundary)."""
    emitted: dict[str, dict[int, list[str]]] = {}
    for heading, outputs in columns.items():
        per_input: dict[int, list[str]] = defaultdict(list)
        for output in outputs:
            own_key = 0 <= output.cause < len(records) and records[output.cause].key == output.key
            per_input[output.cause].append(show_output(output, with_key=not own_key))
        emitted[heading] = per_input
    start, stop = window if window is not None else (0, len(records))
    rows = []
    for index in range(start, stop):
        record = records[index]
        row = [">>" if index == mark else "", index, record.ts, record.side, show_key(record.key)]
        row.append(show_operand(record.value))
        row += ["; ".join(emitted[heading][index]) for heading in columns]
        if micro_batches is not None:
            boundary = "| " if index in micro_batches.starts else ""
            row.append(f"{boundary}{micro_batches.batch_of(index)}")
        rows.append(row)
    headers = ["", "#", "ts", "side", "key", "value", *columns, *(["batch"] if micro_batches else [])]
    return tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)


def render_state(tables: Sequence[Mapping[str, Any]]) -> str:
    """State tables (``explain.state_tables``) as text."""
    parts = []
    for table in tables:
        title = table["title"] + (f" ({table['note']})" if table.get("note") else "")
        rows = [["null" if cell is None else cell for cell in row] for row in table["rows"]]
        body = (
            tabulate(rows, headers=table["columns"], tablefmt="simple", disable_numparse=True)
            if rows
            else "(empty)"
        )
        parts.append(f"{title}:\n{body}")
    return "\n".join(parts)


def render_outcome(outcome: CaseOutcome, *, limit: int = 20) -> str:
    """A failing (or declared) outcome as text: what differs, where first, why, and the input trace."""
    case, verdict = outcome.case, outcome.verdict
    lines = [f"{case.id} from {case.where}", describe_case(case)]
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
    if first.kind == "candidate-error":  # one line: its traceback (Java's too) is in the results file
        return "\n".join([*lines, f"candidate error: {one_line(first.detail)}"])
    counts = Counter(d.kind for d in verdict.divergences)
    summary = ", ".join(f"{n} {kind}" for kind, n in counts.items())
    lines.append(f"differs from Kafka (compared as {verdict.mode}): {summary}")
    lines.append(f"first divergence at {_input_row(case, first.at)}: {first.kind}: {first.detail}")
    start = _causing_input(outcome, first)
    if start is not None:
        lines.append(
            f"it starts at {_input_row(case, start)}: up to input #{first.at}, the candidate emits what "
            "Kafka would had it never seen that input"
        )
    explanation = explain(case, first)
    if explanation is not None and explanation["why"]["text"]:
        why = explanation["why"]
        cited = "" if why["rule"] is None else f" (spec {why['rule']['id']}: {why['rule']['link']})"
        lines.append(f"why: {why['text']}{cited}")
    lines += ["", _divergence_table(verdict.divergences, limit)]
    if isinstance(outcome.answer, Emitted) and outcome.expected is not None:
        columns: dict[str, Sequence[Any]] = {"Kafka emits": outcome.expected.outputs}
        if outcome.answer.causes_known:
            columns["candidate emits"] = outcome.answer.outputs
        last = (
            len(case.records)
            if first.at is None
            else min(len(case.records), first.at + 1 + _TRACE_AFTER_FIRST)
        )
        marked = first.at if start is None else start
        lines += ["", "trace (>> marks where the first divergence starts):"]
        lines.append(
            render_trace(
                case.records,
                columns,
                mark=marked,
                window=(max(0, last - _TRACE_MAX), last),
                micro_batches=case.micro_batches,
            )
        )
    if explanation is not None:
        lines += ["", f"Kafka's state after input #{explanation['at']}:", render_state(explanation["after"])]
    return "\n".join(lines)


def _causing_input(outcome: CaseOutcome, first: Divergence) -> int | None:
    """The input whose effect first differs, when it comes before the one where ``first`` shows."""
    if not isinstance(outcome.answer, Emitted) or outcome.expected is None or first.at is None:
        return None
    found = causing_input(outcome.case, outcome.expected, outcome.answer, first)
    return found if found is not None and found < first.at else None


def render_summary(outcomes: Sequence[CaseOutcome]) -> str:
    """Counts per join kind and status, with a total row (statuses that never occur are left out)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for outcome in outcomes:
        counts[outcome.case.join][outcome.status] += 1
        counts["total"][outcome.status] += 1
    statuses = [status for status in OUTCOME_STATUSES if counts["total"][status]] or ["pass"]
    joins = [join for join in JOIN_KINDS if join in counts]
    rows = [[join, *(counts[join][status] for status in statuses)] for join in [*joins, "total"]]
    return tabulate(rows, headers=["join", *statuses], tablefmt="simple")


def render_ran_as(entries: Sequence[Mapping[str, Any]], folded: int = 0) -> list[str]:
    """Which Kafka releases each claimed era ran as (``protocol.ran_as`` entries), one line per era, and how
    many statements of other releases ran once as the claimed version (``claims.as_claimed``)."""
    lines = ["Kafka releases run, per claimed era:"]
    for entry in entries:
        releases = entry["releases"]
        ran = ", ".join(
            f"{release} ({count} case{'' if count == 1 else 's'})" for release, count in releases.items()
        )
        claimed = ", ".join(entry["claimed"])
        if not claimed:
            lines.append(f"  as a release of the same semantics (era {entry['era']}): {ran}")
        else:
            lines.append(f"  {claimed} (era {entry['era']}): {ran or 'no claimed case'}")
    if folded:
        lines.append(
            f"  ({folded} case{'' if folded == 1 else 's'} stated for releases of other eras with the same "
            "semantics ran once, as the claimed version)"
        )
    return lines


def render_diagnosis(entries: Sequence[Mapping[str, Any]]) -> list[str]:
    """The summary's ``diagnosis`` entries (``diagnosis.roll_up``): one line per cause shape with the spec
    rules it concerns; nothing when no divergence fits a shape."""
    if not entries:
        return []
    lines = ["What the divergences have in common:"]
    for entry in entries:
        rules = ", ".join(f"spec {rule['id']} ({rule['link']})" for rule in entry["rules"])
        lines.append(f"  {entry['text']}" + (f"; {rules}" if rules else ""))
    return lines
