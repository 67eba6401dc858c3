"""Load and validate seed-table files (``scenarios/<join_kind>/<behaviour>.toml``; scenarios/FORMAT.md).

Strict by design (STYLE.md §1 and rule 8): unknown keys, features, variants or versions, gaps in the row
numbering, output rows past the input, timestamps that contradict ``timestamps``, and non-ASCII look-alike
letters in keys and values are all errors. Every error is a ``ScenarioError`` naming the file, the scenario
id, the field and the bad value; ``load_catalogue`` collects them so one bad file never hides the others.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from kjoin.conformance.scenario_compare import Comparison, Divergence, compare_outputs, render_comparison
from kjoin.conformance.scenario_model import (
    FEATURES,
    FLAGS,
    JOIN_FOLDERS,
    Catalogue,
    Erratum,
    ExpectedBlock,
    Feature,
    Scenario,
    ScenarioError,
    Source,
)
from kjoin.conformance.scenario_tables import (
    CellError,
    ExpectedItem,
    parse_input,
    parse_output_cell,
    split_table,
)
from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for
from kjoin.oracle.records import (
    FK_EXTRACTORS,
    JOIN_KINDS,
    STORE_KINDS,
    VARIANTS,
    JoinKind,
    Output,
    Record,
    Variant,
    Versioning,
    Window,
)

__all__ = [
    "FEATURES",
    "FLAGS",
    "JOIN_FOLDERS",
    "Catalogue",
    "Comparison",
    "Divergence",
    "Erratum",
    "ExpectedBlock",
    "ExpectedItem",
    "Feature",
    "Scenario",
    "ScenarioError",
    "Source",
    "compare_block",
    "compare_outputs",
    "duplicate_ids",
    "load_catalogue",
    "load_scenario",
    "render_comparison",
]

_VARIANTS_OF: Mapping[JoinKind, tuple[Variant, ...]] = MappingProxyType(
    {
        "stream-stream": ("inner", "left", "outer"),
        "stream-table": ("inner", "left"),
        "table-table": ("inner", "left", "outer"),
        "fk": ("inner", "left"),
    }
)
_TOP_KEYS = frozenset(
    {"id", "description", "join", "variants", "features", "flags", "source", "window", "stores"}
    | {"fk_extractor", "versioned", "input", "expected", "errata"}
)
_SOURCE_KEYS = frozenset({"seed", "section", "info"})
_BLOCK_KEYS = frozenset({"kafka", "describes", "intended", "timestamps", "variants", "outputs"})
_ERRATUM_KEYS = frozenset({"row", "variant", "kafka", "seed_shows", "kafka_does", "evidence"})
_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9.]+)*$")


class _Reader:
    """Validation helpers bound to one file, so every error names the file and the scenario id.

    ``at`` is the location inside the file (``""`` for top-level fields, ``expected[0] (kafka 0.10.1)``, ...).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.scenario_id: str | None = None

    def fail(self, field: str, value: object, problem: str, at: str = "") -> ScenarioError:
        return ScenarioError(self.path, self.scenario_id, field, value, problem, at)

    def table(self, value: object, field: str, allowed: frozenset[str], at: str = "") -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(field, value, "must be a table", at)
        unknown = sorted(set(value) - allowed)
        if unknown:
            name = f"{field}.{unknown[0]}" if field else unknown[0]
            problem = f"is an unknown key (known: {', '.join(sorted(allowed))})"
            if (field or at) and unknown[0] in _TOP_KEYS:
                problem += "; top-level keys must come before the first [table] header"
            raise self.fail(name, value[unknown[0]], problem, at)
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
        return value

    def boolean(self, value: object, field: str, at: str = "") -> bool:
        if not isinstance(value, bool):
            raise self.fail(field, value, "must be true or false", at)
        return value

    def count(self, value: object, field: str, at: str = "") -> int:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise self.fail(field, value, "must be a whole number >= 0", at)
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

    def cells(self, error: CellError) -> ScenarioError:
        return self.fail(error.field, error.value, error.problem, error.location)


def load_scenario(path: Path, display: str | None = None) -> Scenario:
    """Parse and validate one seed-table file; raises ``ScenarioError`` on the first problem.

    ``display`` is the path shown in messages (``load_catalogue`` passes ``scenarios/<kind>/<file>``).
    """
    reader = _Reader(display or str(path))
    try:
        with path.open("rb") as handle:
            raw = tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise reader.fail("toml", path.name, f"is not valid TOML: {error}") from error
    except (OSError, UnicodeDecodeError) as error:
        raise reader.fail("file", path.name, f"cannot be read: {error}") from error
    return _scenario(reader, raw)


def _scenario(reader: _Reader, raw: Mapping[str, Any]) -> Scenario:
    scenario_id = raw.get("id")
    if not isinstance(scenario_id, str) or not _ID.match(scenario_id):
        raise reader.fail("id", scenario_id, "must be a kebab-case ASCII id (e.g. 'ss-kip77-left')")
    reader.scenario_id = scenario_id
    reader.table(raw, "", _TOP_KEYS)
    description = reader.text(reader.need(raw, "description", "description"), "description")
    join = reader.need(raw, "join", "join")
    if join not in JOIN_KINDS:
        raise reader.fail("join", join, f"is not one of {', '.join(JOIN_KINDS)}")
    variants = reader.choices(reader.need(raw, "variants", "variants"), "variants", VARIANTS, empty_ok=False)
    for variant in variants:
        if variant not in _VARIANTS_OF[join]:
            raise reader.fail("variants", variant, f"is not a variant of a {join} join")
    features = reader.choices(
        reader.need(raw, "features", "features"), "features", tuple(FEATURES), empty_ok=True
    )
    flags = reader.choices(raw.get("flags", []), "flags", FLAGS, empty_ok=True)
    source = _source(reader, reader.need(raw, "source", "source"))
    window = _window(reader, raw.get("window"), join)
    stores = raw.get("stores", "rocksdb")
    if stores not in STORE_KINDS:
        raise reader.fail("stores", stores, f"is not one of {', '.join(STORE_KINDS)}")
    fk_extractor = raw.get("fk_extractor", "colon-prefix")
    if "fk_extractor" in raw and join != "fk":
        raise reader.fail("fk_extractor", fk_extractor, "is only allowed for join = 'fk'")
    if fk_extractor not in FK_EXTRACTORS:
        raise reader.fail("fk_extractor", fk_extractor, f"is not one of {', '.join(FK_EXTRACTORS)}")
    versioned = _versioned(reader, raw.get("versioned"), join)
    input_text = reader.text(reader.need(raw, "input", "input"), "input", multiline=True)
    try:
        records = parse_input(input_text, allow_colon=join == "fk")
    except CellError as error:
        raise reader.cells(error) from error
    blocks = _blocks(reader, reader.need(raw, "expected", "expected"), variants, records, join)
    errata = _errata(reader, raw.get("errata", []), variants, records, blocks)
    return Scenario(
        path=reader.path,
        id=scenario_id,
        description=description,
        join=join,
        variants=variants,
        features=features,
        flags=flags,
        source=source,
        window=window,
        stores=stores,
        versioned=versioned,
        fk_extractor=fk_extractor,
        records=records,
        expected=blocks,
        errata=errata,
    )


def _source(reader: _Reader, value: object) -> Source:
    table = reader.table(value, "source", _SOURCE_KEYS)
    seed = reader.text(reader.need(table, "seed", "source.seed"), "source.seed")
    if "/" in seed or "\\" in seed:
        raise reader.fail("source.seed", seed, "must be a file name in the seeds folder, not a path")
    section = reader.text(reader.need(table, "section", "source.section"), "source.section")
    info = reader.text(reader.need(table, "info", "source.info"), "source.info", multiline=True)
    return Source(seed=seed, section=section, info=info)


def _window(reader: _Reader, value: object, join: JoinKind) -> Window | None:
    """Stream-stream: ``before`` (required), ``after`` (default ``before``), ``grace``.
    Stream-table: ``grace`` only (KIP-923). Table joins have no window."""
    if value is None:
        if join == "stream-stream":
            raise reader.fail("window", None, "is missing: a stream-stream join needs a window")
        return None
    if join in ("table-table", "fk"):
        raise reader.fail("window", value, f"is not allowed for a {join} join")
    allowed = frozenset({"before", "after", "grace"} if join == "stream-stream" else {"grace"})
    table = reader.table(value, "window", allowed)
    grace = None if "grace" not in table else reader.count(table["grace"], "window.grace")
    if join == "stream-table":
        if grace is None:
            raise reader.fail("window.grace", None, "is missing: a stream-table window only gives grace")
        return Window(grace=grace)
    before = reader.count(reader.need(table, "before", "window.before"), "window.before")
    after = reader.count(table.get("after", before), "window.after")
    return Window(before=before, after=after, grace=grace)


def _versioned(reader: _Reader, value: object, join: JoinKind) -> Versioning | None:
    if value is None:
        return None
    if join == "stream-stream":
        raise reader.fail("versioned", value, "is not allowed for a stream-stream join (it has no tables)")
    table = reader.table(value, "versioned", frozenset({"left", "right", "history_ms"}))
    left = reader.boolean(table.get("left", False), "versioned.left")
    right = reader.boolean(table.get("right", False), "versioned.right")
    history = reader.count(reader.need(table, "history_ms", "versioned.history_ms"), "versioned.history_ms")
    if join == "stream-table" and left:
        raise reader.fail(
            "versioned.left", left, "must be false: the left side of a stream-table join is a stream"
        )
    return Versioning(left=left, right=right, history_ms=history)


def _blocks(
    reader: _Reader, value: object, variants: tuple[Variant, ...], records: tuple[Record, ...], join: JoinKind
) -> tuple[ExpectedBlock, ...]:
    if not isinstance(value, list) or not value:
        raise reader.fail("expected", value, "must be a non-empty array of [[expected]] tables")
    blocks: list[ExpectedBlock] = []
    for number, item in enumerate(value):
        block = _block(reader, item, f"expected[{number}]", variants, records, join)
        if any(other.label == block.label for other in blocks):
            raise reader.fail("kafka", block.kafka, "has a second block for this era", f"expected[{number}]")
        blocks.append(block)
    return tuple(blocks)


def _block(
    reader: _Reader,
    value: object,
    at: str,
    variants: tuple[Variant, ...],
    records: tuple[Record, ...],
    join: JoinKind,
) -> ExpectedBlock:
    table = reader.table(value, "", _BLOCK_KEYS, at)
    kafka = reader.need(table, "kafka", "kafka", at)
    try:
        if not isinstance(kafka, str):
            raise UnknownVersionError("not a string")
        behaviour_for(kafka)
    except UnknownVersionError as error:
        raise reader.fail("kafka", kafka, f"is not a Kafka version the oracle knows ({error})", at) from error
    at = f"{at} (kafka {kafka})"
    describes = reader.text(reader.need(table, "describes", "describes", at), "describes", at)
    intended = reader.boolean(table.get("intended", False), "intended", at)
    timestamps = reader.boolean(reader.need(table, "timestamps", "timestamps", at), "timestamps", at)
    block_variants = variants
    if "variants" in table:
        block_variants = reader.choices(table["variants"], "variants", variants, empty_ok=False, at=at)
    text = reader.text(reader.need(table, "outputs", "outputs", at), "outputs", at, multiline=True)
    try:
        outputs = _outputs(text, f"{at} outputs", block_variants, records, timestamps, join)
    except CellError as error:
        raise reader.cells(error) from error
    return ExpectedBlock(
        kafka=kafka,
        describes=describes,
        intended=intended,
        timestamps=timestamps,
        variants=block_variants,
        outputs=MappingProxyType(outputs),
    )


def _outputs(
    text: str,
    at: str,
    variants: tuple[Variant, ...],
    records: tuple[Record, ...],
    timestamps: bool,
    join: JoinKind,
) -> dict[Variant, tuple[tuple[int, ExpectedItem], ...]]:
    """Columns ``#`` and one per variant of the block; rows increase and point into the input."""
    header, rows = split_table(text, at, "header")
    columns = header[1:]
    if header[0] != "#" or sorted(columns) != sorted(variants) or len(set(columns)) != len(columns):
        raise CellError(
            at, "header", " | ".join(header), f"must be '#' and the variants {', '.join(variants)}"
        )
    found: dict[str, list[tuple[int, ExpectedItem]]] = {variant: [] for variant in variants}
    previous = -1
    for row in rows:
        line_at = f"{at} line {row.line}"
        if len(row.cells) != len(header):
            problem = f"has {len(row.cells)} cells, expected {len(header)}"
            raise CellError(line_at, "cells", " | ".join(row.cells), problem)
        number = row.cells[0]
        if not number.isascii() or not number.isdigit() or str(int(number)) != number:
            raise CellError(line_at, "#", number, "is not an input row index")
        index = int(number)
        if index >= len(records):
            raise CellError(line_at, "#", number, f"points past the input (rows 0..{len(records) - 1})")
        if index <= previous:
            raise CellError(line_at, "#", number, f"does not come after row {previous} (rows must increase)")
        previous = index
        for column, cell in zip(columns, row.cells[1:], strict=True):
            items = parse_output_cell(
                cell,
                default_key=records[index].key,
                timestamps=timestamps,
                allow_colon=join == "fk",
                location=f"{at} row {index}",
                field=column,
            )
            found[column].extend((index, item) for item in items)
    return {variant: tuple(found[variant]) for variant in variants}


def _errata(
    reader: _Reader,
    value: object,
    variants: tuple[Variant, ...],
    records: tuple[Record, ...],
    blocks: tuple[ExpectedBlock, ...],
) -> tuple[Erratum, ...]:
    if not isinstance(value, list):
        raise reader.fail("errata", value, "must be an array of [[errata]] tables")
    errata: list[Erratum] = []
    versions = sorted({block.kafka for block in blocks})
    for number, item in enumerate(value):
        at = f"errata[{number}]"
        table = reader.table(item, "", _ERRATUM_KEYS, at)
        row = None if "row" not in table else reader.count(table["row"], "row", at)
        if row is not None and row >= len(records):
            raise reader.fail("row", row, f"points past the input (rows 0..{len(records) - 1})", at)
        variant = table.get("variant")
        if variant is not None and variant not in variants:
            raise reader.fail(
                "variant", variant, f"is not one of the scenario's variants {', '.join(variants)}", at
            )
        kafka = table.get("kafka")
        if kafka is not None and kafka not in versions:
            raise reader.fail(
                "kafka", kafka, f"names no [[expected]] block (blocks: {', '.join(versions)})", at
            )
        seed_shows, kafka_does, evidence = (
            reader.text(reader.need(table, name, name, at), name, at, multiline=True)
            for name in ("seed_shows", "kafka_does", "evidence")
        )
        errata.append(
            Erratum(
                row=row,
                variant=variant,
                kafka=kafka,
                seed_shows=seed_shows,
                kafka_does=kafka_does,
                evidence=evidence,
            )
        )
    return tuple(errata)


def duplicate_ids(scenarios: tuple[Scenario, ...] | list[Scenario]) -> list[ScenarioError]:
    """One error per scenario whose id an earlier file (in the given order) already uses."""
    seen: dict[str, str] = {}
    errors: list[ScenarioError] = []
    for scenario in scenarios:
        if scenario.id in seen:
            problem = f"is already used by {seen[scenario.id]}"
            errors.append(ScenarioError(scenario.path, scenario.id, "id", scenario.id, problem))
        else:
            seen[scenario.id] = scenario.path
    return errors


def load_catalogue(root: Path) -> Catalogue:
    """Every ``*.toml`` under ``root`` (recursively, sorted by path), plus one error per file that fails.

    Nothing is skipped silently: a ``.toml`` outside the join-kind folders or in the wrong one, and any other
    file inside a join-kind folder, are errors too. A scenario whose id an earlier file already uses is
    dropped and reported. Messages show paths as ``<root name>/<relative path>``.
    """
    scenarios: list[Scenario] = []
    errors: list[ScenarioError] = []
    folders = sorted(JOIN_FOLDERS.values())
    for path in sorted(root.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        relative = path.relative_to(root)
        display = (Path(root.name) / relative).as_posix()
        folder = relative.parts[0] if len(relative.parts) > 1 else ""
        if path.suffix != ".toml":
            if folder in folders:
                errors.append(
                    ScenarioError(display, None, "file", path.name, "is not a .toml seed-table file")
                )
            continue
        if folder not in folders:
            problem = f"must live in one of the folders {', '.join(folders)}"
            errors.append(ScenarioError(display, None, "file", path.name, problem))
            continue
        try:
            scenario = load_scenario(path, display)
        except ScenarioError as error:
            errors.append(error)
            continue
        if JOIN_FOLDERS[scenario.join] != folder:
            problem = f"belongs in {JOIN_FOLDERS[scenario.join]}/, not {folder}/"
            errors.append(ScenarioError(display, scenario.id, "join", scenario.join, problem))
            continue
        scenarios.append(scenario)
    duplicates = duplicate_ids(scenarios)
    dropped = {id(scenario) for scenario in scenarios for error in duplicates if error.path == scenario.path}
    kept = tuple(scenario for scenario in scenarios if id(scenario) not in dropped)
    return Catalogue(scenarios=kept, errors=tuple(errors + duplicates))


def compare_block(
    block: ExpectedBlock, variant: Variant, outputs: list[Output] | tuple[Output, ...]
) -> Comparison:
    """Compare a join's outputs with ``block``'s outputs for ``variant`` (see ``compare_outputs``)."""
    if variant not in block.variants:
        raise ValueError(
            f"the kafka {block.kafka} block has no variant {variant!r} (has {', '.join(block.variants)})"
        )
    return compare_outputs(block.outputs[variant], outputs)
