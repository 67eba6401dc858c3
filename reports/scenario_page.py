"""One page per scenario: its cases (one per variant) grouped by the Kafka version they were run as.

Each group shows the seed-shaped table (``# | ts | left | right | one column per variant``) with Kafka's
outputs and the candidate's differences merged in (missing red, unexpected green), the first divergence
highlighted, the checker's divergences, and the oracle's state before and after the input where the
first divergence shows (``oracle.engine.run_traced``: window store or table contents), so the cause is
visible. Rendering only: outputs and divergences come from the results file.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for
from kjoin.oracle.engine import run_traced
from kjoin.oracle.errors import OracleError
from kjoin.oracle.records import VARIANTS, JoinSpec
from kjoin.reports.diff_table import Column, render_diff_table, show_output, unified_column
from kjoin.reports.document import CaseResult, kafka_order
from kjoin.reports.html import element, page, safe_name, status_badge, table, text

__all__ = ["LEGEND", "describe_spec", "group_anchor", "render_scenario_page", "scenario_file"]

_DIVERGENCES_SHOWN = 200

LEGEND = (
    '<p class="legend"><span class="m-missing">\u2212 missing: Kafka emits it, the candidate does not</span>'
    '<span class="m-unexpected">+ unexpected: the candidate emits it, Kafka does not</span>'
    '<span class="m-order">~ same output, another place or order</span>'
    "\u25b6 first divergence</p>"
)


def scenario_file(scenario: str) -> str:
    """The page of ``scenario``, relative to the report's folder."""
    return f"s/{safe_name(scenario)}.html"


def group_anchor(kafka: str, intended: bool) -> str:
    """The fragment of the section for cases run as ``kafka`` (``intended``: documented semantics)."""
    return "as-" + safe_name(kafka + ("-intended" if intended else ""), limit=20)


def _era(kafka: str, intended: bool) -> str:
    try:
        return behaviour_for(kafka, intended=intended).era
    except UnknownVersionError:
        return "unknown"


def describe_spec(spec: JoinSpec | None) -> str:
    """The join's settings in words: window, stores, versioned sides."""
    if spec is None:
        return "inputs not recorded in the results file"
    parts = [spec.join + " join"]
    if spec.window is not None:
        window = spec.window
        grace = "none (legacy JoinWindows.of)" if window.grace is None else str(window.grace)
        if window.legacy and window.grace is not None:
            grace += " (legacy of().grace())"
        parts.append(f"window before {window.before} after {window.after} grace {grace}")
    parts.append(f"{spec.stores} stores")
    if spec.versioned is not None:
        versioned = spec.versioned
        sides = "+".join(side for side in ("left", "right") if versioned.of(side)) or "none"
        parts.append(f"versioned {sides} (history {versioned.history_ms} ms)")
    if spec.join == "fk":
        parts.append(f"foreign key extractor {spec.fk_extractor}")
    return ", ".join(parts)


_INLINE = 72
"""State values whose JSON fits in this many characters stay on one line."""


def _plain(value: Any) -> Any:
    """Snapshot data with string keys only, so it prints as sorted JSON."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def _compact(value: Any, indent: str = "") -> str:
    """JSON, one line per entry only where a value does not fit on one line."""
    inline = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    if len(inline) + len(indent) <= _INLINE or not isinstance(value, dict | list) or not value:
        return inline
    inner = indent + "  "
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(key, ensure_ascii=False)}: {_compact(value[key], inner)}"
                 for key in sorted(value)]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    return "[\n" + ",\n".join(inner + _compact(item, inner) for item in value) + f"\n{indent}]"


def _oracle_state(case: CaseResult, at: int) -> str:
    """The oracle's state before and after input ``at`` (what Kafka's join holds there)."""
    if case.spec is None or case.records is None or not 0 <= at < len(case.records):
        return '<p class="muted">The oracle\'s state is not available: the inputs are not recorded.</p>'
    try:
        steps = run_traced(case.spec, case.records, behaviour_for(case.kafka, intended=case.intended))
    except (OracleError, UnknownVersionError) as error:
        return f'<p class="muted">The oracle cannot run this case: {text(error)}</p>'
    before = "(empty: nothing processed yet)" if at == 0 else _compact(_plain(steps[at - 1][1]))
    after = _compact(_plain(steps[at][1]))
    emitted = "; ".join(show_output(output) for output in steps[at][0]) or "nothing"
    headers = [f"before input #{at}", f"after input #{at} (Kafka emits: {emitted})"]
    state = table(headers, [[f"<pre>{text(before)}</pre>", f"<pre>{text(after)}</pre>"]],
                  attrs={"class": "state"})
    summary = f"<summary>Oracle state at input #{at} ({text(case.variant)}): Kafka's join stores</summary>"
    return element("details", summary + state, {"open": "open"})


def _describe_first(case: CaseResult) -> str:
    first = case.first
    if first is None:
        return ""
    where = "an input the candidate did not name" if first.at is None else f"input #{first.at}"
    if first.at is not None and case.records is not None and 0 <= first.at < len(case.records):
        record = case.records[first.at]
        value = "null" if record.value is None else record.value
        where += f" ({record.side} {'null' if record.key is None else record.key}: {value} @{record.ts})"
    words = [f"{case.variant}: first divergence at {where}: {first.kind}"]
    if first.expected is not None:
        words.append(f"Kafka emits {show_output(first.expected)}")
    if first.actual is not None:
        words.append(f"the candidate emits {show_output(first.actual)}")
    if first.detail and first.kind != "candidate-error":
        words.append(first.detail)
    return f"<p>{text('; '.join(words))}</p>"


def _divergence_table(case: CaseResult) -> str:
    shown = [d for d in case.divergences if d.kind != "candidate-error"][:_DIVERGENCES_SHOWN]
    if not shown:
        return ""
    rows = [[text(d.kind), text("" if d.at is None else d.at),
             text("" if d.expected is None else show_output(d.expected)),
             text("" if d.actual is None else show_output(d.actual)), text(d.detail)] for d in shown]
    more = len(case.divergences) - len(shown)
    note = f'<p class="muted">... and {more} more</p>' if more > 0 else ""
    title = f"<h4>Divergences of {text(case.variant)} (compared as {text(case.mode)})</h4>"
    return title + table(["kind", "input", "Kafka emits", "candidate emits", "note"], rows) + note


def _status_line(case: CaseResult) -> str:
    parts = [f"<b>{text(case.variant)}</b> {status_badge(case.status)}"]
    if case.mode:
        parts.append(f'<span class="muted">compared as {text(case.mode)}</span>')
    if case.declared_reason:
        parts.append(f"declared difference: {text(case.declared_reason)}")
    elif case.reason:
        parts.append(text(case.reason))
    return "<li>" + " ".join(parts) + "</li>"


def _column(case: CaseResult) -> Column:
    return unified_column(case.expected or (), case.divergences)


def _group_section(kafka: str, intended: bool, cases: Sequence[CaseResult]) -> str:
    label = f"as Kafka {kafka} (era {_era(kafka, intended)})" + (", intended semantics" if intended else "")
    spec = next((case.spec for case in cases if case.spec is not None), None)
    parts = [
        element("h2", text(label), {"id": group_anchor(kafka, intended)}),
        f"<p>{text(describe_spec(spec))}</p>",
        "<ul>" + "".join(_status_line(case) for case in cases) + "</ul>",
    ]
    records = next((case.records for case in cases if case.records is not None), None)
    first = {case.first.at: f"first divergence of {case.variant}: {case.first.kind}"
             for case in reversed(cases) if case.first is not None and case.first.at is not None}
    headers = [f"{case.variant}: Kafka vs candidate" for case in cases]
    parts.append(render_diff_table(records, headers, [_column(case) for case in cases], first=first))
    if any(not case.timestamps for case in cases):
        parts.append('<p class="muted">Timestamps are not compared for this scenario.</p>')
    for case in cases:
        if case.candidate_error is not None:
            heading = f"<h4>Candidate error ({text(case.variant)})</h4>"
            parts.append(f"{heading}<pre>{text(case.candidate_error)}</pre>")
        parts.append(_describe_first(case))
        if case.first is not None and case.first.at is not None and case.first.kind != "candidate-error":
            parts.append(_oracle_state(case, case.first.at))
        parts.append(_divergence_table(case))
    return "\n".join(part for part in parts if part)


def _variant_order(case: CaseResult) -> tuple[int, str]:
    return (VARIANTS.index(case.variant) if case.variant in VARIANTS else len(VARIANTS), case.variant)


def render_scenario_page(scenario: str, cases: Sequence[CaseResult]) -> str:
    """The page of one scenario: a section per Kafka version the cases were run as, oldest first."""
    groups: dict[tuple[str, bool], list[CaseResult]] = defaultdict(list)
    for case in cases:
        groups[(case.kafka, case.intended)].append(case)
    versions = kafka_order(kafka for kafka, _ in groups)
    order = sorted(groups, key=lambda key: (versions.index(key[0]), key[1]))
    sources = sorted({case.source for case in cases if case.source})
    joins = sorted({case.join for case in cases})
    body = [
        '<p><a href="../index.html">\u2190 index</a></p>',
        f"<h1>{text(scenario)}</h1>",
        f"<p>{text(', '.join(joins))} join; from {text(', '.join(sources) or 'unknown source')}</p>",
        LEGEND,
    ]
    body += [_group_section(kafka, intended, sorted(groups[(kafka, intended)], key=_variant_order))
             for kafka, intended in order]
    return page(f"{scenario} \u2014 kjoin report", "\n".join(body))
