"""The bundled scenario catalogue as the command line sees it: find files, load one scenario, check a file.

Two kinds of files (scenarios/FORMAT.md): portable JSON Lines (golden traces, Kafka's own tests,
regressions), whose lines carry ``expected`` outputs for their own ``kafka`` version, and TOML seed tables,
read through ``conformance.scenario_files``. Checking compares the oracle's outputs with the expected ones
exactly (key, value, timestamp, order; a seed block with ``timestamps = false`` leaves timestamps out).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kjoin.conformance.scenario_files import ExpectedBlock, ScenarioError, compare_block, load_scenario
from kjoin.conformance.scenario_tables import format_item
from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for
from kjoin.oracle.engine import run
from kjoin.oracle.errors import OracleError
from kjoin.oracle.portable import (
    PortableFormatError,
    PortableScenario,
    evaluate,
    output_to_json,
    parse_scenario,
)
from kjoin.oracle.records import VARIANTS, JoinSpec, Output, Record, Variant
from kjoin.scenarios import CATALOGUE_ROOT

__all__ = [
    "CatalogueError",
    "FileResult",
    "Runnable",
    "bundled_files",
    "check_file",
    "first_difference",
    "label_of",
    "load_one",
    "scenario_files",
]

SUFFIXES = (".jsonl", ".toml")


class CatalogueError(ValueError):
    """A scenario file that cannot be found, read or used; the message names the file and field."""


@dataclass(frozen=True, slots=True)
class Runnable:
    """One scenario ready for the oracle, with the expected outputs that apply to it (if any).

    ``expected`` holds portable outputs (``{"key", "value", "ts"}``, from a ``.jsonl`` line) and ``block``
    a seed table's ``[[expected]]`` block; both are ``None`` when the file states nothing for this
    version/variant (e.g. after ``--kafka`` picked another version).
    """

    id: str
    kafka: str
    spec: JoinSpec
    records: tuple[Record, ...]
    intended: bool = False
    expected: list[dict[str, Any]] | None = None
    block: ExpectedBlock | None = None
    expected_label: str = ""

    def matches(self, outputs: Sequence[Output]) -> bool | None:
        """Whether ``outputs`` are the expected ones; ``None`` when nothing is expected."""
        if self.block is not None:
            return compare_block(self.block, self.spec.variant, list(outputs)).ok
        if self.expected is not None:
            return [output_to_json(output) for output in outputs] == self.expected
        return None


@dataclass(slots=True)
class FileResult:
    """What checking one file found. A check is one (scenario, expected block, variant) comparison."""

    label: str
    passed: int = 0
    failures: list[str] = field(default_factory=list)
    error_messages: list[str] = field(default_factory=list)

    @property
    def failed(self) -> int:
        return len(self.failures)

    @property
    def errors(self) -> int:
        return len(self.error_messages)

    @property
    def checked(self) -> int:
        return self.passed + self.failed + self.errors

    @property
    def ok(self) -> bool:
        return not self.failures and not self.error_messages


def label_of(path: Path) -> str:
    """``scenarios/golden/3.9.jsonl`` for a bundled file, the path as given otherwise."""
    try:
        return path.resolve().relative_to(CATALOGUE_ROOT.parent).as_posix()
    except ValueError:
        return str(path)


def bundled_files() -> list[Path]:
    """Every scenario file of the bundled catalogue, in a stable order."""
    return scenario_files([CATALOGUE_ROOT])


def scenario_files(paths: Iterable[Path]) -> list[Path]:
    """The ``.jsonl``/``.toml`` files among ``paths``; folders are searched recursively."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file()))
        elif not path.exists():
            raise CatalogueError(f"{path}: no such file or folder")
        elif path.suffix not in SUFFIXES:
            raise CatalogueError(f"{path}: not a scenario file (expected .jsonl or .toml)")
        else:
            found.append(path)
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CatalogueError(f"{path}: cannot read: {error}") from error


def _json_lines(path: Path) -> list[tuple[int, Any]]:
    """(line number, decoded object) per non-blank line; a line that is not JSON is a ``CatalogueError``."""
    lines = []
    for number, line in enumerate(_read(path).splitlines(), start=1):
        if line.strip():
            try:
                lines.append((number, json.loads(line)))
            except json.JSONDecodeError as error:
                raise CatalogueError(f"{path}:{number}: not valid JSON ({error.msg})") from error
    return lines


def load_one(
    path: Path, scenario_id: str | None, *, kafka: str | None, variant: str | None, intended: bool = False
) -> Runnable:
    """Scenario ``scenario_id`` (default: the first) of ``path``, with optional version/variant overrides;
    ``intended`` asks for the documented semantics (Kafka bug flags off)."""
    if path.suffix == ".jsonl":
        return _load_jsonl(path, scenario_id, kafka=kafka, variant=variant, intended=intended)
    if path.suffix == ".toml":
        return _load_toml(path, scenario_id, kafka=kafka, variant=variant, intended=intended)
    raise CatalogueError(f"{path}: not a scenario file (expected .jsonl or .toml)")


def _load_jsonl(
    path: Path, scenario_id: str | None, *, kafka: str | None, variant: str | None, intended: bool
) -> Runnable:
    lines = _json_lines(path)
    if not lines:
        raise CatalogueError(f"{path}: no scenarios in the file")
    chosen = [(n, obj) for n, obj in lines if scenario_id is None or _id_of(obj) == scenario_id][:1]
    if not chosen:
        raise CatalogueError(f"{path}: id: no scenario with id {scenario_id!r}")
    number, obj = chosen[0]
    try:
        scenario = parse_scenario(obj, f"{path}:{number}")
    except PortableFormatError as error:
        raise CatalogueError(str(error)) from error
    spec = scenario.spec if variant is None else replace(scenario.spec, variant=_variant(variant))
    same = kafka in (None, scenario.kafka) and spec.variant == scenario.spec.variant
    same = same and scenario.intended == (intended or scenario.intended)
    expected = scenario.extra.get("expected") if same else None
    return Runnable(
        id=scenario.id,
        kafka=kafka or scenario.kafka,
        spec=spec,
        records=scenario.records,
        intended=intended or scenario.intended,
        expected=expected,
        expected_label=f"{path.name}, Kafka {scenario.kafka}",
    )


def _id_of(obj: Any) -> Any:
    return obj.get("id") if isinstance(obj, dict) else None


def _load_toml(
    path: Path, scenario_id: str | None, *, kafka: str | None, variant: str | None, intended: bool
) -> Runnable:
    """A seed table, by default as its first ``[[expected]]`` block and that block's first variant.

    With overrides, the expected outputs are those of the block for the chosen version, variant and
    ``intended`` setting; there are none if the table has no such block.
    """
    try:
        scenario = load_scenario(path, str(path))
    except ScenarioError as error:
        raise CatalogueError(str(error)) from error
    if scenario_id is not None and scenario_id != scenario.id:
        raise CatalogueError(f"{path}: id: the file holds scenario {scenario.id!r}, not {scenario_id!r}")
    first = scenario.expected[0]
    if kafka is None and variant is None and not intended:
        version, chosen, block = first.kafka, first.variants[0], first
    else:
        version = kafka or first.kafka
        chosen = _variant(variant) if variant is not None else first.variants[0]
        wanted = (version, intended)
        matching = [b for b in scenario.expected if (b.kafka, b.intended) == wanted and chosen in b.variants]
        block = matching[0] if matching else None
    return Runnable(
        id=scenario.id,
        kafka=version,
        spec=replace(scenario.spec(scenario.variants[0]), variant=chosen),
        records=scenario.records,
        intended=block.intended if block is not None else intended,
        block=block,
        expected_label=f"{path.name}, block {block.label}" if block is not None else "",
    )


def _variant(name: str) -> Variant:
    for variant in VARIANTS:
        if variant == name:
            return variant
    raise CatalogueError(f"variant: {name!r} is not one of {', '.join(VARIANTS)}")


def first_difference(expected: Sequence[Any], actual: Sequence[Any]) -> str:
    """The first place two output lists differ, in words."""
    for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if want != got:
            return f"output #{index}: expected {_brief(want)}, got {_brief(got)}"
    if len(actual) < len(expected):
        return f"output #{len(actual)}: expected {_brief(expected[len(actual)])}, got nothing more"
    return f"output #{len(expected)}: unexpected {_brief(actual[len(expected)])}"


def _brief(output: Any) -> str:
    if isinstance(output, dict):
        value = output.get("value")
        shown = "tombstone" if value is None else " - ".join("null" if v is None else str(v) for v in value)
        return f"{output.get('key')!r}: {shown} @{output.get('ts')}"
    return repr(output)


def check_file(path: Path) -> FileResult:
    """Run every scenario of ``path`` that states expected outputs and compare."""
    result = FileResult(label=label_of(path))
    try:
        if path.suffix == ".toml":
            _check_toml(path, result)
        else:
            _check_jsonl(path, result)
    except CatalogueError as error:
        result.error_messages.append(str(error))
    return result


def _check_jsonl(path: Path, result: FileResult) -> None:
    for number, obj in _json_lines(path):
        where = f"line {number}"
        try:
            scenario = parse_scenario(obj, where)
        except PortableFormatError as error:
            result.error_messages.append(str(error))
            continue
        name = f"{scenario.id}@{scenario.kafka}"
        expected = scenario.extra.get("expected")
        if not isinstance(expected, list):
            result.error_messages.append(f"{name} ({where}): no expected outputs")
            continue
        _compare(result, name, scenario, expected)


def _compare(result: FileResult, name: str, scenario: PortableScenario, expected: list[Any]) -> None:
    answer = evaluate(scenario)
    if "error" in answer:
        result.error_messages.append(f"{name}: oracle error: {answer['error']}")
    elif answer["outputs"] == expected:
        result.passed += 1
    else:
        result.failures.append(f"{name}: {first_difference(expected, answer['outputs'])}")


def _check_toml(path: Path, result: FileResult) -> None:
    """Every ``[[expected]]`` block times every variant it lists is one check."""
    try:
        scenario = load_scenario(path, label_of(path))
    except ScenarioError as error:
        raise CatalogueError(str(error)) from error
    for block in scenario.expected:
        for variant in block.variants:
            name = f"{scenario.id}[{variant}-{block.label}]"
            try:
                behaviour = behaviour_for(block.kafka, intended=block.intended)
                outputs = run(scenario.spec(variant), scenario.records, behaviour)
            except (OracleError, UnknownVersionError) as error:
                result.error_messages.append(f"{name}: oracle error: {error}")
                continue
            comparison = compare_block(block, variant, outputs)
            if comparison.ok:
                result.passed += 1
                continue
            first = comparison.divergences[0]
            want = "-" if first.expected is None else format_item(*_item_parts(first.expected))
            got = "-" if first.actual is None else format_item(*_output_parts(first.actual))
            result.failures.append(f"{name}: row {first.row}: {first.kind} (expected {want}, got {got})")


def _item_parts(item: Any) -> tuple[Any, Any, Any]:
    return item.key, item.value, item.ts


def _output_parts(output: Output) -> tuple[Any, Any, Any]:
    return output.key, output.value, output.ts
