"""Pages of a version diff (``kjoin diff-versions A B``): what changes between two Kafka versions, for
every scenario, from the oracle alone.

A difference between versions is information, not a failure: statuses are a neutral "differs" (blue),
"same" and "not-applicable" (grey). The index lists the behaviour flags that change and the scenarios
that differ first; each scenario page shows KIP-77's "current vs suggested" table (per variant an older
and a newer column, outputs only the older version emits in red with a minus sign, only the newer one's
in green with a plus) and the timeline of the first differing variant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kjoin.reports.diff_table import Column, era_columns, render_diff_table
from kjoin.reports.html import element, page, safe_name, status_badge, table, text
from kjoin.reports.model import JOIN_ORDER, ordered
from kjoin.reports.scenario_page import describe_spec
from kjoin.reports.timeline import render_timeline

__all__ = ["diff_page_file", "render_diff_index", "render_diff_scenario_page"]

Diff = Mapping[str, Any]
Entry = Mapping[str, Any]
_STATUS_RANK = {"differs": 0, "same": 1, "not-applicable": 2}


def diff_page_file(scenario: str) -> str:
    """The page of ``scenario`` in a version diff, relative to its folder."""
    return f"s/{safe_name(scenario)}.html"


def _differs(entry: Entry) -> bool:
    return any(v.get("status") == "differs" for v in entry.get("variants") or [])


def _entry_rank(entry: Entry) -> int:
    """Differing scenarios first; within a status, the document's order (documented tables first)."""
    ranks = [_STATUS_RANK.get(str(v.get("status")), 3) for v in entry.get("variants") or []]
    return min(ranks, default=3)


def render_diff_index(diff: Diff, *, banner: str = "") -> str:
    """The index of a version diff: counts, changed flags, scenarios (differing first)."""
    older, newer = str(diff.get("older")), str(diff.get("newer"))
    counts = diff.get("counts") or {}
    flags = diff.get("changed_flags") or []
    entries = sorted((e for e in diff.get("scenarios") or [] if isinstance(e, Mapping)), key=_entry_rank)
    title = f"Kafka {older} vs {newer}"
    body = [
        f"<h1>{text(title)}</h1>",
        f"<p>Kafka {text(older)} (era {text(diff.get('older_era'))}) against {text(newer)} (era "
        f"{text(diff.get('newer_era'))}), from the oracle: {text(counts.get('scenarios', len(entries)))} "
        f"scenarios, <b>{text(counts.get('differ', 0))} with different outputs</b>, "
        f"{text(counts.get('same', 0))} the same, "
        f"{text(counts.get('not-applicable', 0))} not applicable.</p>",
    ]
    notes = [n for n in diff.get("flag_notes") or [] if isinstance(n, Mapping)]
    if notes:
        items = "".join(_flag_item(note) for note in notes)
        body.append(f"<h2>Behaviour flags that change</h2><ul>{items}</ul>")
        body.append(f'<p class="muted">Every flag and its evidence: {text(notes[0].get("see"))}.</p>')
    elif flags:  # a document written before flag notes
        body.append(
            "<h2>Behaviour flags that change</h2><ul>"
            + "".join(f"<li><code>{text(flag)}</code></li>" for flag in flags)
            + "</ul>"
        )
    else:
        body.append("<p>No behaviour flag changes between these versions.</p>")
    joins = ordered((str(e.get("join")) for e in entries), JOIN_ORDER)
    controls = (
        '<div class="controls"><input id="q" type="search" placeholder="filter scenarios" '
        'aria-label="filter scenarios"><select data-filter="s" aria-label="status">'
        '<option value="">status: all</option><option value="differs">differs</option>'
        '<option value="same">same</option><option value="not-applicable">not-applicable</option></select>'
        '<select data-filter="j" aria-label="join"><option value="">join: all</option>'
        + "".join(f'<option value="{text(j)}">{text(j)}</option>' for j in joins)
        + '</select><span id="shown" class="muted"></span></div>'
    )
    rows = []
    for entry in entries:
        scenario = str(entry.get("scenario"))
        variants = [v for v in entry.get("variants") or [] if isinstance(v, Mapping)]
        statuses = " ".join(sorted({str(v.get("status")) for v in variants}))
        cells = [
            element("a", text(scenario), {"href": diff_page_file(scenario)}),
            text(entry.get("join")),
            " ".join(f"{text(v.get('label'))} {status_badge(str(v.get('status')))}" for v in variants),
        ]
        row = "".join(f"<td>{cell}</td>" for cell in cells)
        rows.append(f'<tr data-s="{text(statuses)}" data-j="{text(entry.get("join"))}">{row}</tr>')
    head = "<thead><tr><th>scenario</th><th>join</th><th>variants</th></tr></thead>"
    body.append(
        "<h2>Scenarios</h2>"
        + controls
        + f'<table id="rows">{head}<tbody>\n'
        + "\n".join(rows)
        + "\n</tbody></table>"
    )
    return page(f"{title} \u2014 kjoin", "\n".join(body), script=True, banner=banner)


def _on_off(value: object) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


def _flag_item(note: Mapping[str, Any]) -> str:
    """One changed flag: its name, its value in each version, its sentence, links to the tickets and KIPs."""
    change = f"{_on_off(note.get('older'))} \u2192 {_on_off(note.get('newer'))}"
    links = [
        element("a", text(link.get("label")), {"href": str(link.get("url"))})
        for link in note.get("links") or []
        if isinstance(link, Mapping) and str(link.get("url")).startswith("https://")  # never a script URL
    ]
    rules = ", ".join(str(rule) for rule in note.get("rules") or [])
    evidence = (" Evidence: " + ", ".join(links) + ".") if links else ""
    evidence += f" Spec rules: {text(rules)}." if rules else ""
    return (
        f"<li><code>{text(note.get('flag'))}</code> ({text(change)}): {text(note.get('text'))}{evidence}</li>"
    )


def _as_case(entry: Entry, variant: Mapping[str, Any], older: str, newer: str) -> dict[str, Any]:
    """A variant's two output lists shaped like a results case (older as Kafka's, newer as the other
    side's), so the timeline can draw them."""
    old_outputs = list(variant.get("older") or [])
    new_outputs = list(variant.get("newer") or [])
    old_column, new_column = era_columns(old_outputs, new_outputs)
    divergences = [
        {"kind": "missing-output", "expected": item.output, "actual": None}
        for items in old_column.values()
        for item in items
        if item.mark == "missing"
    ] + [
        {"kind": "unexpected-output", "expected": None, "actual": item.output}
        for items in new_column.values()
        for item in items
        if item.mark == "unexpected"
    ]
    return {
        "id": f"{entry.get('scenario')} {variant.get('label')}: {older} vs {newer}",
        "join": entry.get("join"),
        "spec": entry.get("spec"),
        "records": entry.get("records"),
        "expected": old_outputs,
        "divergences": divergences,
    }


def render_diff_scenario_page(diff: Diff, entry: Entry, *, banner: str = "") -> str:
    """One scenario of a version diff: the older and newer outputs of each variant side by side."""
    older, newer = str(diff.get("older")), str(diff.get("newer"))
    scenario = str(entry.get("scenario"))
    variants = [v for v in entry.get("variants") or [] if isinstance(v, Mapping)]
    records: Sequence[Mapping[str, Any]] = entry.get("records") or []
    body = [
        '<p><a href="../index.html">\u2190 all scenarios</a></p>',
        f"<h1>{text(scenario)}: Kafka {text(older)} vs {text(newer)}</h1>",
    ]
    about = entry.get("about") or {}
    if about.get("description"):
        body.append(f"<p><b>{text(about['description'])}</b></p>")
    body.append(f"<p>{text(describe_spec(entry.get('spec')))}; from {text(entry.get('source'))}</p>")
    body.append(
        '<p class="legend"><span class="m-missing">\u2212 only Kafka '
        + text(older)
        + ' emits it</span><span class="m-unexpected">+ only Kafka '
        + text(newer)
        + ' emits it</span><span class="m-order">~ both emit it, while processing different inputs</span></p>'
    )
    status_rows = [
        [text(v.get("label")), status_badge(str(v.get("status"))), text(v.get("reason") or "")]
        for v in variants
    ]
    body.append(table(["variant", "status", "note"], status_rows))
    headers: list[str] = []
    columns: list[Column] = []
    for variant in variants:
        if variant.get("status") == "not-applicable":
            continue
        old_column, new_column = era_columns(
            list(variant.get("older") or []), list(variant.get("newer") or [])
        )
        headers += [f"{variant.get('label')} ({older})", f"{variant.get('label')} ({newer})"]
        columns += [old_column, new_column]
    if columns:
        body.append(render_diff_table(records, headers, columns, join=(entry.get("spec") or {}).get("join")))
    drawn = next((v for v in variants if v.get("status") == "differs"), None)
    if drawn is not None:
        svg = render_timeline(
            _as_case(entry, drawn, older, newer), names=(f"Kafka {older}", f"Kafka {newer}")
        )
        if svg:
            summary = f"<summary>Timeline of {text(drawn.get('label'))}</summary>"
            body.append(element("details", summary + svg, {"open": "open"}))
    return page(f"{scenario}: {older} vs {newer} \u2014 kjoin", "\n".join(body), banner=banner)
