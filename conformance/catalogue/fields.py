"""Validation of decoded scenario fields (TOML tables and JSON objects alike), each error naming the field.

``Fields`` is bound to one file, line and scenario, so every ``ScenarioError`` it raises says where. Both
formats share it: a JSON line and a TOML seed table are checked by the same rules, including the bounds
Kafka itself has (timestamps are Java ``long``s, at least 0) and text that cannot be written back out
(lone UTF-16 surrogates, which valid JSON can still carry as ``"\\ud800"``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kjoin.conformance.catalogue.errors import ScenarioError
from kjoin.oracle.behaviour import version_problem

__all__ = ["MAX_TS", "Fields", "has_surrogate"]

MAX_TS = 2**63 - 1
"""The largest timestamp Kafka can carry (``Long.MAX_VALUE``)."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (not encodable as UTF-8, so never a Kafka string)."""
    return _SURROGATE.search(text) is not None


class Fields:
    """Validation helpers bound to one file (and line), so every error names where it is.

    ``scenario_id`` is filled in once the id is known; ``location`` (an argument of each helper) is the place
    inside the scenario (``expected[0] (kafka 0.10.1)``, ``records[3]``), empty for top-level fields.
    """

    def __init__(self, path: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.scenario_id: str | None = None

    def fail(self, field: str, value: object, problem: str, at: str = "") -> ScenarioError:
        return ScenarioError(self.path, self.scenario_id, field, value, problem, at, self.line)

    def table(self, value: object, field: str, allowed: frozenset[str], at: str = "") -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(field or "(scenario)", value, "must be a table (a JSON object)", at)
        unknown = sorted(str(key) for key in value if key not in allowed)
        if unknown:
            name = f"{field}.{unknown[0]}" if field else unknown[0]
            raise self.fail(
                name, value[unknown[0]], f"is an unknown key (known: {', '.join(sorted(allowed))})", at
            )
        return value

    def need(self, obj: Mapping[str, Any], name: str, field: str, at: str = "") -> Any:
        if name not in obj:
            raise self.fail(field, None, "is missing", at)
        return obj[name]

    def text(self, value: object, field: str, at: str = "", *, multiline: bool = False) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(field, value, "must be a non-empty string", at)
        if not multiline and "\n" in value:
            raise self.fail(field, value, "must be a single line", at)
        self.encodable(value, field, at)
        return value

    def encodable(self, value: str, field: str, at: str = "") -> str:
        if has_surrogate(value):
            raise self.fail(field, value, "holds a lone UTF-16 surrogate (not valid UTF-8 text)", at)
        return value

    def boolean(self, value: object, field: str, at: str = "") -> bool:
        if not isinstance(value, bool):
            raise self.fail(field, value, "must be true or false", at)
        return value

    def count(self, value: object, field: str, at: str = "", *, maximum: int = MAX_TS) -> int:
        """A whole number in ``0..maximum`` (Kafka's timestamps and durations are ``long``s)."""
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= maximum:
            raise self.fail(field, value, f"must be a whole number from 0 to {maximum}", at)
        return value

    def choice(self, value: object, field: str, allowed: tuple[str, ...], at: str = "") -> Any:
        if value not in allowed:
            raise self.fail(field, value, f"is not one of {', '.join(allowed)}", at)
        return value

    def choices(
        self, value: object, field: str, allowed: tuple[str, ...], *, empty_ok: bool, at: str = ""
    ) -> tuple[Any, ...]:
        if not isinstance(value, list) or (not value and not empty_ok):
            raise self.fail(field, value, "must be a " + ("list" if empty_ok else "non-empty list"), at)
        for item in value:
            if item not in allowed:
                raise self.fail(field, item, f"is not one of {', '.join(allowed)}", at)
        if len(set(value)) != len(value):
            raise self.fail(field, value, "lists a value twice", at)
        return tuple(value)

    def version(self, value: object, field: str, at: str = "") -> str:
        problem = version_problem(value)
        if problem is not None:
            raise self.fail(field, value, problem, at)
        assert isinstance(value, str)
        return value
