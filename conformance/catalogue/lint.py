"""Lint scenario folders: every problem the loader finds (format errors, unknown fields, duplicate ids, a
scenario its own Kafka version cannot run) plus a hand-written scenario whose id disagrees with its path.

A ``.toml`` file holds one scenario, and its path is its identity (as test262's file names are): the id is
the file's name without ``.toml``, optionally after the join kind's prefix (``ss-``, ``st-``, ``tt-``,
``fk-``, ``gt-``), so ``stream_stream/kip77-left.toml`` is ``ss-kip77-left``. Portable ``.jsonl`` files hold
many scenarios, each with its own id; for them the path names the file only. docs/scenario-format.md,
"Identity and lint".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kjoin.conformance.catalogue.case import Case
from kjoin.conformance.catalogue.errors import ScenarioError
from kjoin.conformance.catalogue.load import load_cases
from kjoin.oracle.records import JoinKind
from kjoin.scenarios import CATALOGUE_ROOT

__all__ = ["ID_PREFIXES", "Lint", "id_problem", "lint"]

ID_PREFIXES: dict[JoinKind, str] = {
    "stream-stream": "ss",
    "stream-table": "st",
    "table-table": "tt",
    "fk": "fk",
    "stream-globaltable": "gt",
}
"""The prefix a hand-written scenario's id may put before its file name, per join kind."""


@dataclass(frozen=True, slots=True)
class Lint:
    """What linting found: the files read, the scenarios that load, and every problem."""

    files: tuple[str, ...]
    scenarios: int
    problems: tuple[ScenarioError, ...]


def id_problem(case: Case) -> ScenarioError | None:
    """A ``.toml`` scenario whose id is neither its file name nor ``<prefix>-<file name>``."""
    if not case.source.endswith(".toml"):
        return None
    stem = Path(case.source).stem
    allowed = (stem, f"{ID_PREFIXES[case.join]}-{stem}")
    if case.scenario in allowed:
        return None
    problem = f"must be the file's name: {allowed[0]!r} or {allowed[1]!r} (rename the file or the id)"
    return ScenarioError(case.source, case.scenario, "id", case.scenario, problem)


def lint(paths: Sequence[Path], *, root: Path = CATALOGUE_ROOT) -> Lint:
    """Lint the scenario files under ``paths`` (files or folders) as the loader reads them."""
    loaded = load_cases(paths, root=root)
    problems = list(loaded.errors)
    named: set[tuple[str, str]] = set()
    for case in loaded.cases:
        if (case.source, case.scenario) in named:
            continue
        named.add((case.source, case.scenario))
        problem = id_problem(case)
        if problem is not None:
            problems.append(problem)
    return Lint(loaded.files, len(named), tuple(problems))
