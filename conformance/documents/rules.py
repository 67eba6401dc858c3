"""The rules of the specification (docs/semantics/) that diagnoses and explanations name, with their links.

A rule is cited by its id (``SS-4``); its link is the heading's anchor in its file, the way the spec's own
pages link to it (``docs/semantics/stream-stream.md#ss-4-joined-result-timestamp-...``). Only the rules
the document layer names are listed; tests/test_documents_diagnosis.py checks every title against the
heading in docs/semantics, so a link cannot go stale. Self-contained (no ``kjoin`` import).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["RULES", "SPEC_FOLDER", "Rule", "anchor", "rule"]

SPEC_FOLDER = "docs/semantics"
_NUMBERED = re.compile(r"^[A-Z]{2}-\d+$")


def anchor(heading: str) -> str:
    """A Markdown heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to ``-``."""
    lowered = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return lowered.replace(" ", "-")


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: its id, its heading's text after the id, and the spec file that holds it."""

    id: str
    title: str
    file: str

    @property
    def heading(self) -> str:
        """The heading as the spec writes it: ``SS-4 Joined-result ...``; a section's own title."""
        return f"{self.id} {self.title}" if _NUMBERED.match(self.id) else self.title

    @property
    def link(self) -> str:
        """The rule's place in the checkout: ``docs/semantics/<file>#<anchor>``."""
        return f"{SPEC_FOLDER}/{self.file}#{anchor(self.heading)}"

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "title": self.title, "link": self.link}


_SS = "stream-stream.md"
_ST = "stream-table.md"
_TT = "table-table.md"
_FK = "foreign-key.md"
_GT = "global-table.md"
_PR = "production.md"
_README = "README.md"

RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule("SS-2", "Join window: both bounds inclusive", _SS),
        Rule("SS-3", "One joined result per partner, in store order", _SS),
        Rule("SS-4", "Joined-result timestamp: the trigger's (up to 2.2), the larger of the two (2.3+)", _SS),
        Rule("SS-5", "Non-joined results carry their own record's key and timestamp", _SS),
        Rule("SS-10", "Null keys per era", _SS),
        Rule("SS-11", "Null values per era", _SS),
        Rule("SS-13", "Eager non-joined results (up to 3.0, and legacy windows on every version)", _SS),
        Rule("SS-18", "An in-order record runs the emission pass before its own results", _SS),
        Rule("SS-19", "A match releases the partner's held records", _SS),
        Rule("SS-20", "A record without partner is emitted at once if its window has ended, else held", _SS),
        Rule("SS-23", "Emission pass, 3.1-3.7", _SS),
        Rule("SS-24", "Emission pass, 3.8+ as released (stale minTime)", _SS),
        Rule("SS-27", "Nothing is dropped for lateness", _SS),
        Rule("ST-1", "Only stream records trigger output", _ST),
        Rule("ST-2", "Output key, value and timestamp", _ST),
        Rule("ST-3", "Inner and left joins", _ST),
        Rule("ST-4", "Null keys and null values per era", _ST),
        Rule("ST-5", "Table updates", _ST),
        Rule("ST-6", "Versioned table: lookup as of the stream record's timestamp (3.5+)", _ST),
        Rule("ST-8", "Grace period: the stream buffer (3.6+)", _ST),
        Rule("TT-1", "Each update is looked up against the other side's current value", _TT),
        Rule("TT-2", "A tombstone for an absent key is still forwarded", _TT),
        Rule("TT-3", "0.10.0 and 0.10.1: every update forwards a result", _TT),
        Rule("TT-4", "Inner join (0.10.2+)", _TT),
        Rule("TT-5", "Left join, update of the left side (0.10.2+)", _TT),
        Rule("TT-6", "Left join, update of the right side (0.10.2+)", _TT),
        Rule("TT-7", "Outer join (0.10.2+)", _TT),
        Rule("TT-8", "Output timestamp", _TT),
        Rule("TT-9", "Null keys", _TT),
        Rule("TT-10", "Versioned sides (3.5+)", _TT),
        Rule("FK-1", "The join and how a run proceeds (2.4+)", _FK),
        Rule("FK-3", "Null primary keys are dropped", _FK),
        Rule(
            "FK-4", "Subscription messages of a left change: default instructions (2.4-3.6; 3.7+ inner)", _FK
        ),
        Rule("FK-5", "Subscription messages of a left change: 3.7+ left joins (KAFKA-16394)", _FK),
        Rule("FK-7", "Resolving a response: the hash check", _FK),
        Rule("FK-8", "Right-side updates", _FK),
        Rule("FK-9", "Output timestamps", _FK),
        Rule("GT-3", "The global table is read in processing order", _GT),
        Rule("GT-4", "Null values, null keys and null mapped keys per era", _GT),
        Rule("GT-5", "Left joins and null mapped keys (3.7+, 4.0.1+)", _GT),
        Rule("GT-6", "Output key, value and timestamp", _GT),
        Rule("GT-7", "A lookup sees the table as it is now", _GT),
        Rule("PR-6", "What a flush forwards", _PR),
        Rule("NOTATION", "Notation", _README),
        Rule("PROCESSING", "Processing model", _README),
    )
}
"""The cited rules by id. ``NOTATION`` and ``PROCESSING`` are sections of docs/semantics/README.md (the
joiner's argument order; which input emits an output), not numbered rules."""


def rule(rule_id: str) -> Rule:
    """The rule ``rule_id`` (a ``KeyError`` for an id not listed: a programming error)."""
    return RULES[rule_id]
