"""A spec rule as the report shows it: its id, its heading as a hint, and its place in docs/semantics."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kjoin.reports.html import attr, text

__all__ = ["rule_reference"]


def rule_reference(rule: Mapping[str, Any]) -> str:
    """``spec TT-1`` with the rule's heading as its hint and its place in docs/semantics beside it (the
    report is offline: the link is a path in the checkout, shown as text)."""
    heading = f"{rule.get('id')} {rule.get('title')}"
    return (
        f'<span class="rule"{attr("title", heading)}>spec {text(rule.get("id"))}</span> '
        f'<span class="muted">({text(rule.get("link"))})</span>'
    )
