"""Find scenario files and load them into cases: the one loader of every command and the pytest plugin.

Files are ``.toml`` (hand-written scenarios, ``seed_tables``) and ``.jsonl`` (portable lines, ``portable``);
folders are searched recursively in a stable order. Nothing is dropped silently: an unreadable file, a bad
line (each line is decoded on its own, so one bad byte costs one line), an invalid scenario, a scenario the
Kafka version it names cannot run (grace on 0.10.1, a versioned table before 3.5), a duplicate id, and in
the bundled catalogue a ``.toml`` outside its join kind's folder are each one ``ScenarioError``; the rest
still loads.

``kafka=V`` retargets: every scenario x variant is checked once as Kafka V (cases that differ only by
their own version collapse into one, preferring the one whose version has V's era); a retargeted case
states no expected outputs (its file speaks about another version).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from msgspec.structs import replace

from kjoin.conformance.catalogue.case import Case, case_id
from kjoin.conformance.catalogue.errors import ScenarioError
from kjoin.conformance.catalogue.fields import Fields
from kjoin.conformance.catalogue.portable import case_from_line
from kjoin.conformance.catalogue.seed_tables import load_seed_table
from kjoin.conformance.catalogue.vocabulary import JOIN_FOLDERS
from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for, era_of, version_problem
from kjoin.oracle.engine import processor_for
from kjoin.oracle.errors import OracleError
from kjoin.scenarios import CATALOGUE_ROOT

__all__ = ["SUFFIXES", "CaseSet", "bundled_files", "label_of", "load_cases", "load_file", "scenario_files"]

SUFFIXES = (".jsonl", ".toml")


@dataclass(frozen=True, slots=True)
class CaseSet:
    """The cases that loaded, one error per file, line or scenario that did not, and the files read."""

    cases: tuple[Case, ...]
    errors: tuple[ScenarioError, ...]
    files: tuple[str, ...] = ()


def label_of(path: Path, root: Path = CATALOGUE_ROOT) -> str:
    """``scenarios/golden/3.9.jsonl`` for a file of the catalogue at ``root``, the path as given otherwise."""
    try:
        return path.resolve().relative_to(root.resolve().parent).as_posix()
    except ValueError:
        return str(path)


def bundled_files() -> list[Path]:
    """Every scenario file of the bundled catalogue, in a stable order."""
    return scenario_files([CATALOGUE_ROOT])


def scenario_files(paths: Iterable[Path]) -> list[Path]:
    """The ``.jsonl``/``.toml`` files among ``paths`` (folders searched recursively, sorted); a path that
    does not exist or is not a scenario file is a ``ScenarioError``."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file()))
        elif not path.exists():
            raise ScenarioError(str(path), None, "(path)", None, "does not exist")
        elif path.suffix not in SUFFIXES:
            raise ScenarioError(str(path), None, "(path)", None, "is not a scenario file (.jsonl or .toml)")
        else:
            found.append(path)
    return found


def load_file(path: Path, *, root: Path = CATALOGUE_ROOT) -> CaseSet:
    """Every case of one file, and an error for each line or scenario that cannot be used. ``root`` is the
    catalogue whose folder rules apply (a ``.toml`` there sits in its join kind's folder)."""
    label = label_of(path, root)
    errors: list[ScenarioError] = []
    misplaced = _misplaced(path, label, root)
    if misplaced is not None:
        return CaseSet((), (misplaced,), (label,))
    if path.suffix == ".toml":
        try:
            cases = load_seed_table(path, label)
        except ScenarioError as error:
            return CaseSet((), (error,), (label,))
        wrong_folder = _wrong_folder(path, cases)
        if wrong_folder is not None:
            return CaseSet((), (wrong_folder,), (label,))
    else:
        cases = list(_json_lines(path, label, errors))
    kept = [case for case in cases if _runnable(case, errors)]
    return CaseSet(tuple(kept), tuple(errors), (label,))


def _misplaced(path: Path, label: str, root: Path) -> ScenarioError | None:
    """A catalogue's ``.toml`` must live in the folder of a join kind (checked again against its ``join``)."""
    try:
        relative = path.resolve().relative_to(root.resolve())
    except ValueError:
        return None
    if path.suffix == ".toml" and (len(relative.parts) < 2 or relative.parts[0] not in JOIN_FOLDERS.values()):
        folders = ", ".join(sorted(JOIN_FOLDERS.values()))
        return ScenarioError(label, None, "(file)", path.name, f"must live in one of the folders {folders}")
    return None


def _wrong_folder(path: Path, cases: Sequence[Case]) -> ScenarioError | None:
    """A bundled scenario file must sit in its own join kind's folder."""
    folder = path.parent.name
    if not cases or folder not in JOIN_FOLDERS.values() or folder == JOIN_FOLDERS[cases[0].join]:
        return None
    first = cases[0]
    problem = f"belongs in {JOIN_FOLDERS[first.join]}/, not {folder}/"
    return ScenarioError(first.source, first.scenario, "join", first.join, problem)


def _json_lines(path: Path, label: str, errors: list[ScenarioError]) -> Iterator[Case]:
    """The cases of a portable file, line by line; each line is decoded on its own."""
    try:
        data = path.read_bytes()
    except OSError as error:
        errors.append(ScenarioError(label, None, "(file)", None, f"cannot be read: {error}"))
        return
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            errors.append(
                Fields(label, number).fail(
                    "(line)", None, f"is not UTF-8 text ({error.reason} at byte {error.start})"
                )
            )
            continue
        try:
            yield case_from_line(line, label, number)
        except ScenarioError as error:
            errors.append(error)


def _runnable(case: Case, errors: list[ScenarioError]) -> bool:
    """A scenario must be one its own Kafka version can run (or fails on, as Kafka does); otherwise it is an
    input error, not a case to skip."""
    try:
        processor_for(case.spec, behaviour_for(case.kafka, intended=case.intended))
    except (OracleError, UnknownVersionError) as error:
        problem = f"cannot run this scenario: {error}"
        errors.append(ScenarioError(case.source, case.scenario, "kafka", case.kafka, problem, line=case.line))
        return False
    return True


def load_cases(
    paths: Sequence[Path] | None = None, *, kafka: str | None = None, root: Path = CATALOGUE_ROOT
) -> CaseSet:
    """Every case of ``paths`` (files or folders; default: the catalogue at ``root``, the bundled one unless
    given), maybe run as ``kafka``."""
    if kafka is not None:
        problem = version_problem(kafka)
        if problem is not None:
            return CaseSet((), (ScenarioError("--kafka", None, "kafka", kafka, problem),))
    try:
        files = scenario_files(paths or [root])
    except ScenarioError as error:
        return CaseSet((), (error,))
    cases: list[Case] = []
    errors: list[ScenarioError] = []
    for path in files:
        loaded = load_file(path, root=root)
        cases.extend(loaded.cases)
        errors.extend(loaded.errors)
    if kafka is not None:
        cases = _retargeted(cases, kafka)
    return CaseSet(
        tuple(_unique(cases, errors)), tuple(errors), tuple(label_of(path, root) for path in files)
    )


def _retargeted(cases: list[Case], kafka: str) -> list[Case]:
    """Every case as Kafka ``kafka``; a scenario x variant x intended keeps one case, preferring the one whose
    own version has ``kafka``'s era."""
    era = era_of(kafka)
    chosen: dict[str, Case] = {}
    for case in cases:
        new_id = case_id(case.scenario, case.variant, kafka, case.intended)
        if new_id not in chosen or (era_of(chosen[new_id].kafka) != era and era_of(case.kafka) == era):
            chosen[new_id] = case
    return [replace(case, id=new_id, kafka=kafka, expected=None) for new_id, case in chosen.items()]


def _unique(cases: Iterable[Case], errors: list[ScenarioError]) -> Iterator[Case]:
    """The first case of each id; a later one is an error naming both places."""
    seen: dict[str, Case] = {}
    for case in cases:
        first = seen.get(case.id)
        if first is not None:
            problem = f"is already defined at {first.where} (case {case.id})"
            errors.append(
                ScenarioError(case.source, case.scenario, "id", case.scenario, problem, line=case.line)
            )
            continue
        seen[case.id] = case
        yield case
