"""The page of a run-to-run comparison (``kjoin compare OLD NEW --out DIR``): what regressed first, then what
improved or changed, which verdicts moved, and the cases that came or went."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kjoin.reports.html import page, status_badge, table, text

__all__ = ["render_compare_page"]

_CATEGORIES = ("regressed", "improved", "changed", "added", "removed")
_MEANING = {
    "regressed": "passed (or was declared) before, fails now",
    "improved": "failed before, passes (or is declared) now",
    "changed": "another status change, or the same status with different outputs",
    "added": "only in the new run",
    "removed": "only in the old run",
}


def _side(side: Mapping[str, Any]) -> str:
    whole = "" if side.get("complete", True) else " (incomplete run)"
    return f"{text(side.get('label'))}: candidate {text(side.get('candidate'))}{text(whole)}"


def render_compare_page(comparison: Mapping[str, Any], *, banner: str = "") -> str:
    """The comparison as one HTML page."""
    old, new = comparison.get("old") or {}, comparison.get("new") or {}
    counts = comparison.get("counts") or {}
    changes = [c for c in comparison.get("changes") or [] if isinstance(c, Mapping)]
    summary = ", ".join(
        f"{text(counts.get(category, 0))} {status_badge(category)}"
        for category in (*_CATEGORIES, "unchanged")
    )
    body = [
        "<h1>kjoin comparison</h1>",
        f"<p>old: {_side(old)}<br>new: {_side(new)}</p>",
        f"<p>{summary}</p>",
    ]
    incomplete = [label for label, side in (("old", old), ("new", new)) if not side.get("complete", True)]
    if incomplete:
        body.append(
            '<div class="incomplete" role="alert"><b>Incomplete run:</b> the '
            f"{text(' and '.join(incomplete))} run did not finish; "
            "cases it never checked show as added or removed.</div>"
        )
    verdicts = [v for v in comparison.get("verdicts") or [] if isinstance(v, Mapping)]
    if verdicts:
        rows = [[text(v.get("label")), text(v.get("old")), text(v.get("new"))] for v in verdicts]
        body.append("<h2>Verdicts that moved</h2>" + table(["join", "old verdict", "new verdict"], rows))
    for category in _CATEGORIES:
        chosen = [c for c in changes if c.get("category") == category]
        if not chosen:
            continue
        rows = [
            [
                text(c.get("id")),
                text(c.get("join")),
                status_badge(str(c.get("old"))) if c.get("old") else "",
                status_badge(str(c.get("new"))) if c.get("new") else "",
                text(c.get("note") or ""),
            ]
            for c in chosen
        ]
        body.append(
            f"<h2>{text(category.capitalize())} ({len(chosen)})</h2>"
            f'<p class="muted">{text(_MEANING[category])}</p>'
            + table(["case", "join", "old", "new", "note"], rows)
        )
    if not changes:
        body.append("<p>No case changed.</p>")
    return page("kjoin comparison", "\n".join(body), banner=banner)
