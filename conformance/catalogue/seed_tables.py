"""Hand-written scenario files: seed tables and edge cases as TOML (docs/scenario-format.md).

One file is one scenario: a table of input records, the join, and per Kafka version (``[[expected]]``
block) what each variant emits, listed under the input row that emitted it. Loading is strict by design
(docs/scenario-format.md): unknown keys, features, documents, variants or versions, gaps in the row
numbering, a ``ts`` column that contradicts the input, output rows past the input, and non-ASCII look-alike
letters are all ``ScenarioError``s naming the file, the scenario id, the field and the bad value.

A file becomes one ``Case`` per variant of each block; its ``expected`` outputs carry the emitting row as
``cause`` (``causes_known``), so emission order and attribution are compared exactly.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kjoin.conformance.catalogue.case import About, Case, Erratum, Expected, Reference, case_id
from kjoin.conformance.catalogue.cells import (
    CellError,
    ExpectedItem,
    parse_input,
    parse_output_cell,
    split_table,
)
from kjoin.conformance.catalogue.errors import ScenarioError
from kjoin.conformance.catalogue.fields import Fields
from kjoin.conformance.catalogue.vocabulary import DOCUMENTS, FEATURES, FLAGS, VARIANTS_OF
from kjoin.conformance.codec import (
    CodecError,
    SettingsJson,
    VersionedJson,
    WindowJson,
    self_join_problem,
    settings_from,
    spec_field,
    stream_stream_only,
    versioned_from,
    window_from,
)
from kjoin.oracle.records import (
    FK_EXTRACTORS,
    JOIN_KINDS,
    KEY_MAPPERS,
    OPTIMIZATIONS,
    STORE_KINDS,
    JoinKind,
    JoinSpec,
    Output,
    Record,
    Variant,
)

__all__ = ["load_seed_table"]

_TOP_KEYS = frozenset(
    {"id", "description", "join", "variants", "features", "flags", "source", "window", "stores"}
    | {"fk_extractor", "key_mapper", "versioned", "settings", "self", "optimization", "input"}
    | {"expected", "errata"}
)
_SOURCE_KEYS = frozenset({"document", "section", "info"})
_BLOCK_KEYS = frozenset({"kafka", "describes", "intended", "timestamps", "variants", "outputs"})
_ERRATUM_KEYS = frozenset({"row", "variant", "kafka", "seed_shows", "kafka_does", "evidence"})
_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9.]+)*$")


@dataclass(frozen=True, slots=True)
class _Block:
    """One ``[[expected]]`` block: what one Kafka version emits, per variant, as ``(row, item)``."""

    kafka: str
    intended: bool
    timestamps: bool
    variants: tuple[Variant, ...]
    outputs: Mapping[Variant, tuple[tuple[int, ExpectedItem], ...]]
    number: int

    @property
    def label(self) -> str:
        return f"{self.kafka}-intended" if self.intended else self.kafka


def load_seed_table(path: Path, display: str | None = None) -> list[Case]:
    """The cases of one TOML scenario file (one per block x variant); ``ScenarioError`` on the first problem.

    ``display`` is the path shown in messages and in ``Case.source`` (default: ``path`` as given).
    """
    fields = Fields(display or str(path))
    try:
        with path.open("rb") as handle:
            raw = tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise fields.fail("(file)", path.name, f"is not valid TOML: {error}") from error
    except (OSError, UnicodeDecodeError) as error:
        raise fields.fail("(file)", path.name, f"cannot be read: {error}") from error
    return _cases(fields, raw)


def _cases(fields: Fields, raw: Mapping[str, Any]) -> list[Case]:
    scenario = raw.get("id")
    if not isinstance(scenario, str) or not _ID.match(scenario):
        raise fields.fail("id", scenario, "must be a kebab-case ASCII id (e.g. 'ss-kip77-left')")
    fields.scenario_id = scenario
    _top_level(fields, raw)
    description = fields.text(fields.need(raw, "description", "description"), "description")
    join: JoinKind = fields.choice(fields.need(raw, "join", "join"), "join", JOIN_KINDS)
    variants = fields.choices(
        fields.need(raw, "variants", "variants"), "variants", VARIANTS_OF[join], empty_ok=False
    )
    features = fields.choices(
        fields.need(raw, "features", "features"), "features", tuple(FEATURES), empty_ok=True
    )
    flags = fields.choices(raw.get("flags", []), "flags", FLAGS, empty_ok=True)
    reference = _reference(fields, fields.need(raw, "source", "source"))
    try:
        window = window_from(_toml_window(raw.get("window")), join)
        versioned = versioned_from(spec_field(raw.get("versioned"), "versioned"), join)
        settings = settings_from(spec_field(raw.get("settings"), "settings"))
        self_join = fields.boolean(raw.get("self", False), "self")
        stream_stream_only(join, self_join, raw.get("optimization"))
    except CodecError as error:
        raise fields.fail(error.field, error.value, error.problem) from None
    stores = fields.choice(raw.get("stores", "rocksdb"), "stores", STORE_KINDS)
    if "fk_extractor" in raw and join != "fk":
        raise fields.fail("fk_extractor", raw["fk_extractor"], "is only allowed for join = 'fk'")
    extractor = fields.choice(raw.get("fk_extractor", "colon-prefix"), "fk_extractor", FK_EXTRACTORS)
    optimization = fields.choice(raw.get("optimization", "none"), "optimization", OPTIMIZATIONS)
    if "key_mapper" in raw and join != "stream-globaltable":
        raise fields.fail("key_mapper", raw["key_mapper"], "is only allowed for join = 'stream-globaltable'")
    mapper = fields.choice(raw.get("key_mapper", "key"), "key_mapper", KEY_MAPPERS)
    text = fields.text(fields.need(raw, "input", "input"), "input", multiline=True)
    try:
        records = parse_input(text, allow_colon=join in ("fk", "stream-globaltable"))
    except CellError as error:
        raise _cell_error(fields, error) from error
    if self_join:
        wrong_side = self_join_problem(JoinSpec(join, "inner", self_join=True), records)
        if wrong_side is not None:
            row, problem = wrong_side
            raise fields.fail("side", records[row].side, problem, f"input row {row}")
    blocks = _blocks(fields, fields.need(raw, "expected", "expected"), variants, records, join)
    errata = _errata(fields, raw.get("errata", []), variants, records, blocks)
    about = About(description=description, features=features, flags=flags, reference=reference, errata=errata)
    cases: list[Case] = []
    for block in blocks:
        for variant in block.variants:
            spec = JoinSpec(
                join,
                variant,
                window,
                stores,
                versioned,
                extractor,
                settings,
                self_join=self_join,
                optimization=optimization,
                key_mapper=mapper,
            )
            outputs = tuple(_output(item, row) for row, item in block.outputs[variant])
            expected = Expected(
                outputs,
                causes_known=True,
                timestamps=block.timestamps,
                label=f"{fields.path} expected[{block.number}] (kafka {block.label})",
            )
            cases.append(
                Case(
                    id=case_id(scenario, variant, block.kafka, block.intended),
                    scenario=scenario,
                    kafka=block.kafka,
                    intended=block.intended,
                    spec=spec,
                    records=records,
                    source=fields.path,
                    expected=expected,
                    about=about,
                )
            )
    return cases


def _top_level(fields: Fields, raw: Mapping[str, Any]) -> None:
    """Unknown top-level keys are errors, and so is a top-level key that TOML put inside a table because it
    comes after that table's header (the message says so: the commonest slip in these files)."""
    fields.table(raw, "", _TOP_KEYS)
    nested: list[tuple[str, object, frozenset[str]]] = [
        ("source", raw.get("source"), _SOURCE_KEYS),
        ("window", raw.get("window"), _WINDOW_KEYS),
        ("versioned", raw.get("versioned"), frozenset(VersionedJson.__struct_fields__)),
        ("settings", raw.get("settings"), frozenset(SettingsJson.__struct_fields__)),
    ]
    for name, allowed in (("expected", _BLOCK_KEYS), ("errata", _ERRATUM_KEYS)):
        items = raw.get(name)
        if isinstance(items, list):
            nested += [(f"{name}[{index}]", item, allowed) for index, item in enumerate(items)]
    for at, table, allowed in nested:
        if isinstance(table, Mapping):
            misplaced = sorted(set(table) & (_TOP_KEYS - allowed))
            if misplaced:
                problem = "is a top-level key: top-level keys must come before the first [table] header"
                raise fields.fail(f"{at}.{misplaced[0]}", table[misplaced[0]], problem)


_WINDOW_KEYS = frozenset(WindowJson.__struct_fields__) - {"api"}


def _toml_window(value: object) -> WindowJson | None:
    """A TOML window: the portable window's fields but ``api`` (free text that only captured traces keep)."""
    if isinstance(value, Mapping) and "api" in value:
        known = ", ".join(sorted(_WINDOW_KEYS))
        raise CodecError("window.api", value["api"], f"is an unknown key (known: {known})")
    window: WindowJson | None = spec_field(value, "window")
    return window


def _cell_error(fields: Fields, error: CellError) -> ScenarioError:
    return fields.fail(error.field, error.value, error.problem, error.location)


def _output(item: ExpectedItem, row: int) -> Output:
    return Output(key=item.key, value=item.value, ts=item.ts if item.ts is not None else 0, cause=row)


def _reference(fields: Fields, value: object) -> Reference:
    table = fields.table(value, "source", _SOURCE_KEYS)
    document = fields.choice(
        fields.need(table, "document", "source.document"), "source.document", tuple(DOCUMENTS)
    )
    section = fields.text(fields.need(table, "section", "source.section"), "source.section")
    if DOCUMENTS[document].tables:
        info = fields.text(fields.need(table, "info", "source.info"), "source.info", multiline=True)
    else:
        info = fields.text(table["info"], "source.info", multiline=True) if "info" in table else ""
    return Reference(document=document, section=section, info=info)


def _blocks(
    fields: Fields, value: object, variants: tuple[Variant, ...], records: tuple[Record, ...], join: JoinKind
) -> tuple[_Block, ...]:
    if not isinstance(value, list) or not value:
        raise fields.fail("expected", value, "must be a non-empty array of [[expected]] tables")
    blocks: list[_Block] = []
    for number, item in enumerate(value):
        block = _block(fields, item, number, variants, records, join)
        if any(other.label == block.label for other in blocks):
            raise fields.fail("kafka", block.kafka, "has a second block for this era", f"expected[{number}]")
        blocks.append(block)
    return tuple(blocks)


def _block(
    fields: Fields,
    value: object,
    number: int,
    variants: tuple[Variant, ...],
    records: tuple[Record, ...],
    join: JoinKind,
) -> _Block:
    at = f"expected[{number}]"
    table = fields.table(value, "", _BLOCK_KEYS, at)
    kafka = fields.version(fields.need(table, "kafka", "kafka", at), "kafka", at)
    at = f"{at} (kafka {kafka})"
    fields.text(fields.need(table, "describes", "describes", at), "describes", at)
    intended = fields.boolean(table.get("intended", False), "intended", at)
    timestamps = fields.boolean(fields.need(table, "timestamps", "timestamps", at), "timestamps", at)
    block_variants = variants
    if "variants" in table:
        block_variants = fields.choices(table["variants"], "variants", variants, empty_ok=False, at=at)
    text = fields.text(fields.need(table, "outputs", "outputs", at), "outputs", at, multiline=True)
    try:
        outputs = _outputs(text, f"{at} outputs", block_variants, records, timestamps, join)
    except CellError as error:
        raise _cell_error(fields, error) from error
    return _Block(kafka, intended, timestamps, block_variants, outputs, number)


def _outputs(
    text: str,
    at: str,
    variants: tuple[Variant, ...],
    records: tuple[Record, ...],
    timestamps: bool,
    join: JoinKind,
) -> dict[Variant, tuple[tuple[int, ExpectedItem], ...]]:
    """Columns ``#``, ``ts`` (the input row's timestamp, as the seed tables label rows) and one per variant
    of the block; rows increase and point into the input."""
    header, rows = split_table(text, at, "header")
    columns = header[2:]
    if header[:2] != ("#", "ts") or sorted(columns) != sorted(variants) or len(set(columns)) != len(columns):
        raise CellError(
            at, "header", " | ".join(header), f"must be '# | ts' and the variants {', '.join(variants)}"
        )
    found: dict[Variant, list[tuple[int, ExpectedItem]]] = {variant: [] for variant in variants}
    previous = -1
    for row in rows:
        line_at = f"{at} line {row.line}"
        if len(row.cells) != len(header):
            raise CellError(
                line_at, "cells", " | ".join(row.cells), f"has {len(row.cells)} cells, expected {len(header)}"
            )
        number, ts = row.cells[0], row.cells[1]
        if not number.isascii() or not number.isdigit() or str(int(number)) != number:
            raise CellError(line_at, "#", number, "is not an input row index")
        index = int(number)
        if index >= len(records):
            raise CellError(line_at, "#", number, f"points past the input (rows 0..{len(records) - 1})")
        if index <= previous:
            raise CellError(line_at, "#", number, f"does not come after row {previous} (rows must increase)")
        if ts != str(records[index].ts):
            raise CellError(
                line_at, "ts", ts, f"is not the timestamp of input row {index} ({records[index].ts})"
            )
        previous = index
        for column, cell in zip(columns, row.cells[2:], strict=True):
            items = parse_output_cell(
                cell,
                default_key=records[index].key,
                timestamps=timestamps,
                allow_colon=join in ("fk", "stream-globaltable"),
                location=f"{at} row {index}",
                field=column,
            )
            found[column].extend((index, item) for item in items)  # type: ignore[index]
    return {variant: tuple(found[variant]) for variant in variants}


def _errata(
    fields: Fields,
    value: object,
    variants: tuple[Variant, ...],
    records: tuple[Record, ...],
    blocks: tuple[_Block, ...],
) -> tuple[Erratum, ...]:
    if not isinstance(value, list):
        raise fields.fail("errata", value, "must be an array of [[errata]] tables")
    errata: list[Erratum] = []
    versions = sorted({block.kafka for block in blocks})
    for number, item in enumerate(value):
        at = f"errata[{number}]"
        table = fields.table(item, "", _ERRATUM_KEYS, at)
        row = None if "row" not in table else fields.count(table["row"], "row", at)
        if row is not None and row >= len(records):
            raise fields.fail("row", row, f"points past the input (rows 0..{len(records) - 1})", at)
        variant = table.get("variant")
        if variant is not None and variant not in variants:
            raise fields.fail(
                "variant", variant, f"is not one of the scenario's variants {', '.join(variants)}", at
            )
        kafka = table.get("kafka")
        if kafka is not None and kafka not in versions:
            raise fields.fail(
                "kafka", kafka, f"names no [[expected]] block (blocks: {', '.join(versions)})", at
            )
        seed_shows, kafka_does, evidence = (
            fields.text(fields.need(table, name, name, at), name, at, multiline=True)
            for name in ("seed_shows", "kafka_does", "evidence")
        )
        errata.append(Erratum(row, variant, kafka, seed_shows, kafka_does, evidence))
    return tuple(errata)
