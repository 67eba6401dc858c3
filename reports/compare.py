"""Run-to-run comparison: given two results files, which cases improved, regressed or changed.

Statuses rank ``fail`` / ``unexpected-pass`` < ``declared`` < ``pass``: moving up is "improved", down
"regressed". Any other status change (e.g. to or from "not-claimed") and a case whose status stayed but
whose outputs or Kafka's expected outputs changed is "changed"; cases only in one file are "added" or
"removed". Verdicts (``reports.verdict``) are compared per join kind and variant.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from kjoin.reports.diff_table import show_output
from kjoin.reports.document import CaseResult, Results
from kjoin.reports.html import page, status_badge, text
from kjoin.reports.verdict import JoinVerdict, verdicts

__all__ = [
    "CATEGORIES",
    "CaseChange",
    "Category",
    "Comparison",
    "VerdictChange",
    "compare_results",
    "has_regressions",
    "render_compare_page",
    "render_compare_text",
]

Category = Literal["regressed", "improved", "changed", "added", "removed"]
CATEGORIES: tuple[Category, ...] = get_args(Category)

_RANK = {"fail": 0, "unexpected-pass": 0, "declared": 1, "pass": 2}


@dataclass(frozen=True, slots=True)
class CaseChange:
    """One case that differs between the runs (``None``: the case is not in that run)."""

    id: str
    category: Category
    old: str | None
    new: str | None
    note: str


@dataclass(frozen=True, slots=True)
class VerdictChange:
    """A join kind x variant whose best-matching eras differ between the runs."""

    label: str
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class Comparison:
    """Two runs compared: the changed cases (sorted by category, then id) and the unchanged count."""

    old_label: str
    new_label: str
    old_candidate: str
    new_candidate: str
    changes: tuple[CaseChange, ...]
    verdicts: tuple[VerdictChange, ...]
    unchanged: int

    @property
    def counts(self) -> dict[Category, int]:
        found = Counter(change.category for change in self.changes)
        return {category: found[category] for category in CATEGORIES}


def _first(case: CaseResult) -> str:
    first = case.first
    if first is None:
        return case.reason or case.declared_reason or ""
    at = "an unknown input" if first.at is None else f"input #{first.at}"
    shown = first.expected or first.actual
    return f"{first.kind} at {at}" + (f": {show_output(shown)}" if shown is not None else "")


def _change(old: CaseResult, new: CaseResult) -> CaseChange | None:
    if old.status != new.status:
        if old.status in _RANK and new.status in _RANK:
            category: Category = "improved" if _RANK[new.status] > _RANK[old.status] else "regressed"
        else:
            category = "changed"
        note = _first(new) if category != "improved" else (f"was: {_first(old)}" if _first(old) else "")
        return CaseChange(new.id, category, old.status, new.status, note)
    if old.expected != new.expected:
        return CaseChange(new.id, "changed", old.status, new.status, "Kafka's expected outputs changed")
    if old.actual != new.actual or old.divergences != new.divergences:
        return CaseChange(new.id, "changed", old.status, new.status, "the candidate's outputs changed")
    return None


def _verdict_label(verdict: JoinVerdict) -> str:
    asked = ", ".join(verdict.asked) + (" intended" if verdict.intended else "")
    return f"{verdict.variant} {verdict.join} (run as {asked})"


def _verdict_changes(old: Results, new: Results) -> tuple[VerdictChange, ...]:
    before = {_verdict_label(v): v for v in verdicts(old.cases)}
    after = {_verdict_label(v): v for v in verdicts(new.cases)}
    changes = []
    for label in sorted(set(before) | set(after)):
        was, now = before.get(label), after.get(label)
        if was is None or now is None or was.best != now.best:
            changes.append(VerdictChange(label, was.summary if was else "(not run)",
                                         now.summary if now else "(not run)"))
    return tuple(changes)


def compare_results(old: Results, new: Results) -> Comparison:
    """Compare two runs (each one or more merged results files)."""
    before = {case.id: case for case in old.cases}
    after = {case.id: case for case in new.cases}
    changes: list[CaseChange] = []
    unchanged = 0
    for case_id in sorted(set(before) | set(after)):
        was, now = before.get(case_id), after.get(case_id)
        if was is None and now is not None:
            changes.append(CaseChange(case_id, "added", None, now.status, _first(now)))
        elif now is None and was is not None:
            changes.append(CaseChange(case_id, "removed", was.status, None, ""))
        elif was is not None and now is not None:
            change = _change(was, now)
            if change is None:
                unchanged += 1
            else:
                changes.append(change)
    changes.sort(key=lambda change: (CATEGORIES.index(change.category), change.id))
    return Comparison(
        old_label=", ".join(label for label, _ in old.runs),
        new_label=", ".join(label for label, _ in new.runs),
        old_candidate=str(old.candidate.get("name")),
        new_candidate=str(new.candidate.get("name")),
        changes=tuple(changes),
        verdicts=_verdict_changes(old, new),
        unchanged=unchanged,
    )


def _headline(comparison: Comparison) -> str:
    counts = ", ".join(f"{n} {category}" for category, n in comparison.counts.items())
    return f"{counts}, {comparison.unchanged} unchanged"


def render_compare_text(comparison: Comparison, *, show: int = 20) -> str:
    """The terminal summary; at most ``show`` cases listed per category."""
    lines = [
        f"old: {comparison.old_label} (candidate {comparison.old_candidate})",
        f"new: {comparison.new_label} (candidate {comparison.new_candidate})",
        _headline(comparison),
    ]
    for category in CATEGORIES:
        listed = [change for change in comparison.changes if change.category == category]
        if not listed:
            continue
        lines += ["", f"{category}:"]
        for change in listed[:show]:
            status = f"{change.old or '-'} -> {change.new or '-'}"
            lines.append(f"  {change.id}: {status}" + (f" ({change.note})" if change.note else ""))
        if len(listed) > show:
            lines.append(f"  ... and {len(listed) - show} more")
    if comparison.verdicts:
        lines += ["", "verdicts changed:"]
        for change in comparison.verdicts:
            lines += [f"  {change.label}:", f"    was: {change.old}", f"    now: {change.new}"]
    return "\n".join(lines) + "\n"


def render_compare_page(comparison: Comparison) -> str:
    """The comparison as one HTML page with filters."""
    rows = []
    for change in comparison.changes:
        old = status_badge(change.old) if change.old else "\u2013"
        new = status_badge(change.new) if change.new else "\u2013"
        rows.append(f'<tr data-s="{change.category}"><td>{text(change.id)}</td>'
                    f"<td>{status_badge(change.category)}</td><td>{old}</td><td>{new}</td>"
                    f"<td>{text(change.note)}</td></tr>")
    options = "".join(f'<option value="{c}">{c}</option>' for c in CATEGORIES)
    verdict_rows = "".join(
        f"<tr><td>{text(v.label)}</td><td>{text(v.old)}</td><td>{text(v.new)}</td></tr>"
        for v in comparison.verdicts)
    body = [
        "<h1>kjoin: run-to-run comparison</h1>",
        f"<p>old: {text(comparison.old_label)} (candidate {text(comparison.old_candidate)})<br>"
        f"new: {text(comparison.new_label)} (candidate {text(comparison.new_candidate)})</p>",
        f"<p>{text(_headline(comparison))}</p>",
        "<h2>Verdicts changed</h2>" + (
            f"<table><thead><tr><th>join</th><th>old</th><th>new</th></tr></thead><tbody>{verdict_rows}"
            "</tbody></table>" if verdict_rows else '<p class="muted">none</p>'),
        "<h2>Cases</h2>",
        '<div class="controls">'
        '<input id="q" type="search" placeholder="filter cases" aria-label="filter cases">'
        f'<select data-filter="s" aria-label="change"><option value="">change: all</option>{options}</select>'
        '<span id="shown" class="muted"></span></div>',
        '<table id="rows"><thead><tr><th>case</th><th>change</th><th>old</th><th>new</th><th>note</th></tr>'
        "</thead><tbody>\n" + "\n".join(rows) + "\n</tbody></table>",
    ]
    return page("kjoin: run-to-run comparison", "\n".join(body), script=True)


def has_regressions(changes: Sequence[CaseChange]) -> bool:
    """Whether any case regressed."""
    return any(change.category == "regressed" for change in changes)
