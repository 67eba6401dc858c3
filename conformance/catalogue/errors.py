"""The catalogue's one error type: a scenario that cannot be used, named down to the field."""

from __future__ import annotations

from kjoin.errors import KjoinError

__all__ = ["ScenarioError"]


class ScenarioError(KjoinError, ValueError):
    """A scenario file, line or field that cannot be used: exit code 2 (docs/command-line.md).

    The message reads ``<file>[:<line>] [<scenario id>] <location>, field <field>: <value> <problem>``; each
    part is also an attribute, so reports and tests can group errors without parsing text.
    """

    def __init__(
        self,
        path: str,
        scenario_id: str | None,
        field: str,
        value: object,
        problem: str,
        location: str = "",
        line: int | None = None,
    ) -> None:
        self.path = path
        self.line = line
        self.scenario_id = scenario_id
        self.location = location
        self.field = field
        self.value = value
        self.problem = problem
        where = f"{location}, field {field}" if location else f"field {field}"
        place = path if line is None else f"{path}:{line}"
        shown = _shown(value)
        super().__init__(f"{place} [{scenario_id or '?'}] {where}: {shown}{' ' if shown else ''}{problem}")


_SHOWN = 120
"""Values longer than this (as ``repr``) are cut in messages: a whole table cell is context enough."""


def _shown(value: object) -> str:
    if value is None:
        return ""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."
