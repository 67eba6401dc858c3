"""The behaviour flags explained in words: each flag's own documentation in the era table, read from
``oracle/behaviour.py``, with the Kafka tickets, KIPs and spec rules it cites (for ``kjoin diff-versions``
and its pages). docs/semantics/eras.md is the same table for readers.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import re
from dataclasses import dataclass
from functools import cache

from kjoin.oracle import behaviour

__all__ = ["ERAS_DOC", "FlagNote", "flag_note", "jira_url", "kip_url"]

ERAS_DOC = "docs/semantics/eras.md"
"""Where the era table is explained, flag by flag."""

_TICKET = re.compile(r"\bKAFKA-\d+\b")
_KIP = re.compile(r"\bKIP-\d+\b")
_RULE = re.compile(r"\b(?:SS|ST|TT|FK|VS|TK|PR|GT|SJ)-\d+\b")


@dataclass(frozen=True, slots=True)
class FlagNote:
    """One behaviour flag: what it says (the sentence of its documentation) and the evidence it names."""

    flag: str
    text: str
    tickets: tuple[str, ...]
    kips: tuple[str, ...]
    rules: tuple[str, ...]


def jira_url(ticket: str) -> str:
    """The Apache issue tracker's page of ``KAFKA-n``."""
    return f"https://issues.apache.org/jira/browse/{ticket}"


def kip_url(kip: str) -> str:
    """The Kafka wiki's search for ``KIP-n`` (KIP pages are titled by number and name)."""
    return f"https://cwiki.apache.org/confluence/dosearchsite.action?queryString={kip}"


def flag_note(flag: str) -> FlagNote:
    """The note of ``flag``: its documentation in one paragraph, and the tickets, KIPs and rules it cites."""
    text = _documentation().get(flag, "")
    return FlagNote(
        flag=flag,
        text=text,
        tickets=tuple(dict.fromkeys(_TICKET.findall(text))),
        kips=tuple(dict.fromkeys(_KIP.findall(text))),
        rules=tuple(dict.fromkeys(_RULE.findall(text))),
    )


@cache
def _documentation() -> dict[str, str]:
    """Each ``Behaviour`` field's documentation string (the string that follows its annotation), with its
    white space folded."""
    tree = ast.parse(inspect.getsource(behaviour))
    docs: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "Behaviour":
            body = node.body
            for field, after in itertools.pairwise(body):
                if (
                    isinstance(field, ast.AnnAssign)
                    and isinstance(field.target, ast.Name)
                    and isinstance(after, ast.Expr)
                    and isinstance(after.value, ast.Constant)
                    and isinstance(after.value.value, str)
                ):
                    docs[field.target.id] = " ".join(after.value.value.split()).replace("``", "`")
    return docs
