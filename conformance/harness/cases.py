"""Cases: one scenario x variant x era, ready to hand to a candidate and to the oracle.

Cases come from the portable JSON Lines files (``scenarios/golden``, ``scenarios/kafka_tests``, a user's own
file; one line is one case) and from the TOML seed tables (``conformance.scenario_files``: one case per
variant of every ``[[expected]]`` block). The expected outputs always come from the oracle (``oracle.run``),
so any scenario can be checked "as Kafka V" (``kafka=`` retargets every case to V).

Case ids read ``<scenario-id>[<variant>-<kafka>]`` (``-intended`` appended for the documented semantics;
STYLE.md rule 14). Load errors name the file and field, and loading continues (STYLE.md rule 8).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for
from kjoin.oracle.engine import run
from kjoin.oracle.portable import PortableFormatError, parse_scenario
from kjoin.oracle.records import JoinSpec, Output, Record
from kjoin.scenarios import CATALOGUE_ROOT

__all__ = ["Case", "CaseSet", "case_id", "expected_outputs", "load_cases", "source_label"]

_SUFFIXES = (".jsonl", ".toml")


@dataclass(frozen=True, slots=True)
class Case:
    """One scenario x variant x era. ``timestamps`` is false when the scenario says they are unknown."""

    id: str
    scenario: str
    kafka: str
    intended: bool
    spec: JoinSpec
    records: tuple[Record, ...]
    timestamps: bool = True
    source: str = ""

    @property
    def join(self) -> str:
        return self.spec.join

    @property
    def variant(self) -> str:
        return self.spec.variant


@dataclass(frozen=True, slots=True)
class CaseSet:
    """The cases that loaded, and one message per file, line or scenario that did not."""

    cases: tuple[Case, ...]
    errors: tuple[str, ...]


def case_id(scenario: str, variant: str, kafka: str, intended: bool) -> str:
    """``<scenario>[<variant>-<kafka>]``, with ``-intended`` for the documented semantics."""
    return f"{scenario}[{variant}-{kafka}{'-intended' if intended else ''}]"


def expected_outputs(case: Case) -> tuple[Output, ...]:
    """What Kafka ``case.kafka`` emits, from the oracle. Raises ``OracleError``/``UnknownVersionError``
    when that Kafka has no such join."""
    return tuple(run(case.spec, case.records, behaviour_for(case.kafka, intended=case.intended)))


def source_label(path: Path) -> str:
    """``scenarios/golden/3.9.jsonl`` for a bundled file, the path as given otherwise."""
    try:
        return path.resolve().relative_to(CATALOGUE_ROOT.parent).as_posix()
    except ValueError:
        return str(path)


def load_cases(paths: Sequence[Path] | None = None, *, kafka: str | None = None) -> CaseSet:
    """Every case of ``paths`` (files or folders; default: the bundled catalogue), maybe run as ``kafka``.

    With ``kafka``, each scenario x variant is checked once as that version: cases that differ only by
    their era collapse into one (the one whose own version has ``kafka``'s era is kept, else the first).
    """
    errors: list[str] = []
    if kafka is not None:
        try:
            behaviour_for(kafka)
        except UnknownVersionError as error:
            return CaseSet((), (f"--kafka: {error}",))
    cases: list[Case] = []
    for path in _files(paths, errors):
        if path.suffix == ".toml":
            cases.extend(_toml_cases(path, errors))
        else:
            cases.extend(_jsonl_cases(path, errors))
    if kafka is not None:
        cases = _retargeted(cases, kafka)
    return CaseSet(tuple(_unique(cases, errors)), tuple(errors))


def _files(paths: Sequence[Path] | None, errors: list[str]) -> list[Path]:
    roots = [CATALOGUE_ROOT] if not paths else list(paths)
    found: list[Path] = []
    for root in roots:
        if root.is_dir():
            found.extend(sorted(p for p in root.rglob("*") if p.suffix in _SUFFIXES and p.is_file()))
        elif not root.exists():
            errors.append(f"{root}: no such file or folder")
        elif root.suffix not in _SUFFIXES:
            errors.append(f"{root}: not a scenario file (expected .jsonl or .toml)")
        else:
            found.append(root)
    return found


def _jsonl_cases(path: Path, errors: list[str]) -> Iterable[Case]:
    label = source_label(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        errors.append(f"{label}: cannot read: {error}")
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{label}:{number}"
        try:
            scenario = parse_scenario(json.loads(line), where)
        except json.JSONDecodeError as error:
            errors.append(f"{where}: not valid JSON ({error.msg})")
            continue
        except PortableFormatError as error:
            errors.append(str(error))
            continue
        timestamps = scenario.extra.get("timestamps", True)
        if not isinstance(timestamps, bool):
            errors.append(f"{where} {scenario.id!r}.timestamps: expected true or false, got {timestamps!r}")
            continue
        yield Case(
            id=case_id(scenario.id, scenario.spec.variant, scenario.kafka, scenario.intended),
            scenario=scenario.id,
            kafka=scenario.kafka,
            intended=scenario.intended,
            spec=scenario.spec,
            records=scenario.records,
            timestamps=timestamps,
            source=label,
        )


def _toml_cases(path: Path, errors: list[str]) -> Iterable[Case]:
    label = source_label(path)
    try:
        from kjoin.conformance.scenario_files import ScenarioError, load_scenario
    except ImportError as error:
        errors.append(f"{label}: seed tables cannot be read here: {error}")
        return
    try:
        scenario = load_scenario(path, label)
    except ScenarioError as error:
        errors.append(str(error))
        return
    for block in scenario.expected:
        for variant in block.variants:
            yield Case(
                id=case_id(scenario.id, variant, block.kafka, block.intended),
                scenario=scenario.id,
                kafka=block.kafka,
                intended=block.intended,
                spec=scenario.spec(variant),
                records=scenario.records,
                timestamps=block.timestamps,
                source=label,
            )


def _retargeted(cases: list[Case], kafka: str) -> list[Case]:
    """Every case as Kafka ``kafka``; a scenario x variant x intended keeps one case, preferring the one whose
    own version has ``kafka``'s era; timestamps are compared only if every copy knows them."""
    era = behaviour_for(kafka).era
    chosen: dict[str, Case] = {}
    timestamps: dict[str, bool] = {}
    order: list[str] = []
    for case in cases:
        new_id = case_id(case.scenario, case.variant, kafka, case.intended)
        timestamps[new_id] = timestamps.get(new_id, True) and case.timestamps
        if new_id not in chosen:
            order.append(new_id)
            chosen[new_id] = case
        elif not _has_era(chosen[new_id].kafka, era) and _has_era(case.kafka, era):
            chosen[new_id] = case
    return [replace(chosen[i], id=i, kafka=kafka, timestamps=timestamps[i]) for i in order]


def _has_era(version: str, era: str) -> bool:
    try:
        return behaviour_for(version).era == era
    except UnknownVersionError:
        return False


def _unique(cases: Iterable[Case], errors: list[str]) -> Iterable[Case]:
    seen: dict[str, str] = {}
    for case in cases:
        if case.id in seen:
            errors.append(f"{case.source}: case {case.id} is already defined in {seen[case.id]}; skipped")
            continue
        seen[case.id] = case.source
        yield case
