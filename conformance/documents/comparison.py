"""Run-to-run comparison of two results documents: the ``kjoin-comparison`` document
(docs/results-format.md), and its terminal summary.

Statuses rank ``fail`` / ``error`` / ``unexpected-pass`` < ``declared`` < ``pass``: moving up is "improved",
down "regressed". Any other status change (e.g. to or from "not-claimed") and a case whose status stayed but
whose outputs or Kafka's expected outputs changed is "changed"; cases in one run only are "added" or
"removed". Verdicts are compared by their best eras, as each results document states them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, Literal, get_args

from kjoin.conformance.documents.vocabulary import FAILING
from kjoin.conformance.notation import show_output_json

__all__ = ["CATEGORIES", "SCHEMA", "VERSION", "compare_documents", "has_regressions", "render_comparison"]

SCHEMA = "kjoin-comparison"
VERSION = 1

Category = Literal["regressed", "improved", "changed", "added", "removed"]
CATEGORIES: tuple[Category, ...] = get_args(Category)
_RANK = {**dict.fromkeys(FAILING, 0), "declared": 1, "pass": 2}


def _first(case: Mapping[str, Any]) -> str:
    first = case.get("first_divergence")
    if first is None:
        declared = case.get("declared") or {}
        return case.get("reason") or declared.get("reason") or ""
    at = "an unknown input" if first["at"] is None else f"input #{first['at']}"
    shown = show_output_json(first["expected"] or first["actual"])
    return f"{first['kind']} at {at}" + (f": {shown}" if shown else "")


def _change(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any] | None:
    category: Category
    if old["status"] != new["status"]:
        if old["status"] in _RANK and new["status"] in _RANK:
            category = "improved" if _RANK[new["status"]] > _RANK[old["status"]] else "regressed"
        else:
            category = "changed"
        note = _first(new) if category != "improved" else (f"was: {_first(old)}" if _first(old) else "")
    elif old.get("expected") != new.get("expected"):
        category, note = "changed", "Kafka's expected outputs changed"
    elif old.get("actual") != new.get("actual") or old["divergences"] != new["divergences"]:
        category, note = "changed", "the candidate's outputs changed"
    else:
        return None
    return {
        "id": new["id"],
        "category": category,
        "old": old["status"],
        "new": new["status"],
        "join": new["join"],
        "note": note,
    }


def _verdict_label(verdict: Mapping[str, Any]) -> str:
    asked = ", ".join(verdict["kafka"]) + (" intended" if verdict["intended"] else "")
    return f"{verdict['variant']} {verdict['join']} (run as {asked})"


def _verdict_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[dict[str, str]]:
    before = {_verdict_label(v): v for v in old["verdicts"]}
    after = {_verdict_label(v): v for v in new["verdicts"]}
    changes = []
    for label in sorted(set(before) | set(after)):
        was, now = before.get(label), after.get(label)
        if was is None or now is None or was["best"] != now["best"]:
            changes.append(
                {
                    "label": label,
                    "old": was["summary"] if was else "(not run)",
                    "new": now["summary"] if now else "(not run)",
                }
            )
    return changes


def compare_documents(
    old: Mapping[str, Any], new: Mapping[str, Any], *, old_label: str, new_label: str
) -> dict[str, Any]:
    """The comparison document of two results documents (already checked by ``load_results``)."""
    before = {case["id"]: case for case in old["cases"]}
    after = {case["id"]: case for case in new["cases"]}
    changes: list[dict[str, Any]] = []
    unchanged = 0
    for case_id in sorted(set(before) | set(after)):
        was, now = before.get(case_id), after.get(case_id)
        if was is None and now is not None:
            changes.append(
                {
                    "id": case_id,
                    "category": "added",
                    "old": None,
                    "new": now["status"],
                    "join": now["join"],
                    "note": _first(now),
                }
            )
        elif now is None and was is not None:
            changes.append(
                {
                    "id": case_id,
                    "category": "removed",
                    "old": was["status"],
                    "new": None,
                    "join": was["join"],
                    "note": "",
                }
            )
        elif was is not None and now is not None:
            change = _change(was, now)
            if change is None:
                unchanged += 1
            else:
                changes.append(change)
    changes.sort(key=lambda change: (CATEGORIES.index(change["category"]), change["id"]))
    counts = Counter(change["category"] for change in changes)
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "old": {"label": old_label, "candidate": old["candidate"]["name"], "complete": old["complete"]},
        "new": {"label": new_label, "candidate": new["candidate"]["name"], "complete": new["complete"]},
        "counts": {**{category: counts[category] for category in CATEGORIES}, "unchanged": unchanged},
        "changes": changes,
        "verdicts": _verdict_changes(old, new),
    }


def has_regressions(comparison: Mapping[str, Any]) -> bool:
    """Whether any case regressed."""
    return bool(comparison["counts"]["regressed"])


def render_comparison(comparison: Mapping[str, Any], *, show: int = 20) -> str:
    """The terminal summary; at most ``show`` cases listed per category."""
    counts = comparison["counts"]
    lines = [
        f"old: {comparison['old']['label']} (candidate {comparison['old']['candidate']})",
        f"new: {comparison['new']['label']} (candidate {comparison['new']['candidate']})",
        ", ".join(f"{counts[category]} {category}" for category in (*CATEGORIES, "unchanged")),
    ]
    for side in ("old", "new"):
        if not comparison[side]["complete"]:
            lines.append(f"note: the {side} run is incomplete; its missing cases show as added or removed")
    for category in CATEGORIES:
        listed = [change for change in comparison["changes"] if change["category"] == category]
        if not listed:
            continue
        lines += ["", f"{category}:"]
        for change in listed[:show]:
            status = f"{change['old'] or '-'} -> {change['new'] or '-'}"
            lines.append(f"  {change['id']}: {status}" + (f" ({change['note']})" if change["note"] else ""))
        if len(listed) > show:
            lines.append(f"  ... and {len(listed) - show} more")
    if comparison["verdicts"]:
        lines += ["", "verdicts that changed:"]
        for verdict in comparison["verdicts"]:
            lines += [f"  {verdict['label']}:", f"    old: {verdict['old']}", f"    new: {verdict['new']}"]
    return "\n".join(lines) + "\n"
