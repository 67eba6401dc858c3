"""The portable JSON Lines format: one scenario per line, shared with other tools and with real Kafka.

Input fields: ``id``, ``kafka``, ``join``, ``variant``, ``records`` (``side``, ``key``, ``value``, ``ts``, in
processing order), and as needed ``window`` (``before``, ``after``, ``grace``; ``legacy``: the deprecated
``JoinWindows.of(d).grace(g)``; ``api``: free text kept as provenance), ``stores`` (default ``rocksdb``),
``versioned`` (``left``, ``right``, ``history_ms``), ``fk_extractor``, ``intended``. A line may state what
Kafka emits (``expected``: outputs in emission order; ``timestamps: false`` when they are unknown) and may
describe itself (``description``, ``features``, ``flags``). Every other field (``source``, ``known_bug``,
...) is kept in ``Case.extra``, never dropped. The answer to a line is ``{"id", "outputs": [{"key",
"value": [left, right] | null, "ts"}, ...]}`` or ``{"id", "error"}``; docs/portable-format.md has the
whole format.

Reading is bounded: a line nested deeper than ``MAX_DEPTH`` is refused before it is decoded (Python's
decoder would otherwise run out of stack), and every string is checked to be encodable.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from kjoin.conformance.catalogue.case import About, Case, Expected, case_id
from kjoin.conformance.catalogue.errors import ScenarioError
from kjoin.conformance.catalogue.fields import Fields
from kjoin.conformance.catalogue.vocabulary import FEATURES, FLAGS, VARIANTS_OF
from kjoin.oracle.records import (
    FK_EXTRACTORS,
    JOIN_KINDS,
    SIDES,
    STORE_KINDS,
    JoinKind,
    JoinSpec,
    Output,
    Record,
    Settings,
    Versioning,
    Window,
)

__all__ = [
    "INPUT_FIELDS",
    "MAX_DEPTH",
    "SETTINGS_FIELDS",
    "case_from_json",
    "case_json",
    "check_wall_clock",
    "decode_line",
    "error_answer",
    "output_from_json",
    "output_to_json",
    "record_json",
    "settings_from",
    "settings_json",
]

MAX_DEPTH = 32
"""The deepest nesting a portable line needs is 4 (``{"expected": [{"value": [...]}]}``); 32 leaves room
for provenance fields and refuses pathological input."""

INPUT_FIELDS = frozenset(
    {"id", "kafka", "join", "variant", "stores", "window", "versioned", "records", "intended", "fk_extractor"}
    | {"settings"}
)
"""The fields that define the scenario (what the oracle and real Kafka read)."""

_STATED = frozenset({"expected", "timestamps", "description", "features", "flags"})
_WINDOW = frozenset({"before", "after", "grace", "legacy", "api"})


def _depth_problem(line: str) -> str | None:
    """Why ``line`` nests too deep to decode, or ``None`` (brackets inside strings do not count)."""
    depth = 0
    in_string = escaped = False
    for char in line:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return f"nests deeper than {MAX_DEPTH} levels"
        elif char in "]}":
            depth -= 1
    return None


def decode_line(line: str, path: str, number: int | None = None) -> Any:
    """One JSON value from ``line``; ``ScenarioError`` (naming file and line) when it is not valid JSON or
    nests too deep."""
    fields = Fields(path, number)
    problem = _depth_problem(line)
    if problem is not None:
        raise fields.fail("(line)", None, f"is refused: it {problem}")
    try:
        return json.loads(line)
    except json.JSONDecodeError as error:
        raise fields.fail(
            "(line)", None, f"is not valid JSON ({error.msg} at column {error.colno})"
        ) from error
    except RecursionError as error:  # pragma: no cover - the depth check comes first
        raise fields.fail("(line)", None, "nests too deep to decode") from error


def _key(fields: Fields, value: object, field: str) -> Any:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise fields.fail(field, value, "must be a string, an integer or null")
    if isinstance(value, str):
        return fields.encodable(value, field)
    if not -(2**63) <= value < 2**63:
        raise fields.fail(field, value, "is outside Kafka's long range")
    return value


def _value(fields: Fields, value: object, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise fields.fail(field, value, "must be a string or null")
    return fields.encodable(value, field)


def _window(fields: Fields, value: object, join: JoinKind) -> Window | None:
    if value is None:
        if join == "stream-stream":
            raise fields.fail("window", None, "is missing: a stream-stream join needs a window")
        return None
    if join in ("table-table", "fk"):
        raise fields.fail("window", value, f"is not allowed for a {join} join (it has no window)")
    table = fields.table(value, "window", _WINDOW)
    legacy = fields.boolean(table.get("legacy", False), "window.legacy")
    if "api" in table:
        fields.text(table["api"], "window.api")
    grace = None if table.get("grace") is None else fields.count(table["grace"], "window.grace")
    if join == "stream-table":
        for name in ("before", "after"):
            if table.get(name) not in (None, 0):
                raise fields.fail(
                    f"window.{name}", table[name], "is not allowed: a stream-table window has grace only"
                )
        if grace is None:
            raise fields.fail("window.grace", None, "is missing: a stream-table window gives grace (KIP-923)")
        return Window(grace=grace)
    before = fields.count(fields.need(table, "before", "window.before"), "window.before")
    after = fields.count(table.get("after", before), "window.after")
    return Window(before=before, after=after, grace=grace, legacy=legacy)


def _versioned(fields: Fields, value: object, join: JoinKind) -> Versioning | None:
    if value is None:
        return None
    if join == "stream-stream":
        raise fields.fail("versioned", value, "is not allowed for a stream-stream join (it has no tables)")
    table = fields.table(value, "versioned", frozenset({"left", "right", "history_ms"}))
    left = fields.boolean(table.get("left", False), "versioned.left")
    right = fields.boolean(table.get("right", False), "versioned.right")
    history = fields.count(fields.need(table, "history_ms", "versioned.history_ms"), "versioned.history_ms")
    if join == "stream-table" and left:
        raise fields.fail(
            "versioned.left", left, "must be false: the left side of a stream-table join is a stream"
        )
    return Versioning(left=left, right=right, history_ms=history)


SETTINGS_FIELDS = frozenset({"cache_max_bytes", "commit_interval_ms", "emit_interval_ms"})


def settings_from(fields: Fields, value: object) -> Settings:
    """The scenario's production settings (docs/portable-format.md, "Production settings"); absent = 0."""
    if value is None:
        return Settings()
    table = fields.table(value, "settings", SETTINGS_FIELDS)
    counts = {name: fields.count(table[name], f"settings.{name}") for name in sorted(table)}
    return Settings(**counts)


def _record(fields: Fields, value: object, at: str) -> Record:
    table = fields.table(value, at, frozenset({"side", "key", "value", "ts", "wall_clock", "commit"}))
    side = fields.choice(fields.need(table, "side", f"{at}.side"), f"{at}.side", SIDES)
    key = _key(fields, fields.need(table, "key", f"{at}.key"), f"{at}.key")
    record_value = _value(fields, fields.need(table, "value", f"{at}.value"), f"{at}.value")
    ts = fields.count(fields.need(table, "ts", f"{at}.ts"), f"{at}.ts")
    wall_clock = table.get("wall_clock")
    if wall_clock is not None:
        wall_clock = fields.count(wall_clock, f"{at}.wall_clock")
    commit = fields.boolean(table.get("commit", False), f"{at}.commit")
    return Record(side=side, key=key, value=record_value, ts=ts, wall_clock=wall_clock, commit=commit)


def check_wall_clock(fields: Fields, records: tuple[Record, ...], at: str = "records") -> None:
    """A record's ``wall_clock`` never goes back (records without one keep the clock where it was)."""
    clock = 0
    for index, record in enumerate(records):
        if record.wall_clock is None:
            continue
        if record.wall_clock < clock:
            raise fields.fail(
                f"{at}[{index}].wall_clock",
                record.wall_clock,
                f"goes back in time (an earlier record's wall clock is {clock}; it never decreases)",
            )
        clock = record.wall_clock


def output_from_json(fields: Fields, value: object, at: str, cause: int = -1) -> Output:
    """A portable output record (``{"key", "value": [left, right] | null, "ts"}``); ``cause`` is not part of
    the format and stays unknown (-1) unless given."""
    table = fields.table(value, at, frozenset({"key", "value", "ts", "cause"}))
    key = _key(fields, fields.need(table, "key", f"{at}.key"), f"{at}.key")
    pair = fields.need(table, "value", f"{at}.value")
    joined: tuple[str | None, str | None] | None = None
    if pair is not None:
        if not isinstance(pair, list) or len(pair) != 2:
            raise fields.fail(f"{at}.value", pair, "must be [left, right] or null (a tombstone)")
        joined = (_value(fields, pair[0], f"{at}.value[0]"), _value(fields, pair[1], f"{at}.value[1]"))
    ts = fields.count(fields.need(table, "ts", f"{at}.ts"), f"{at}.ts")
    return Output(key=key, value=joined, ts=ts, cause=cause)


def output_to_json(output: Output) -> dict[str, Any]:
    """``{"key", "value": [left, right] or null, "ts"}``: the portable output record."""
    value = None if output.value is None else [output.value[0], output.value[1]]
    return {"key": output.key, "value": value, "ts": output.ts}


def case_from_json(obj: object, path: str, line: int | None = None) -> Case:
    """Validate one decoded portable line; every error is a ``ScenarioError`` naming file, line and field."""
    fields = Fields(path, line)
    if not isinstance(obj, Mapping):
        raise fields.fail("(line)", type(obj).__name__, "must be a JSON object (one scenario per line)")
    table: Mapping[str, Any] = obj
    scenario = fields.text(fields.need(table, "id", "id"), "id")
    fields.scenario_id = scenario
    kafka = fields.version(fields.need(table, "kafka", "kafka"), "kafka")
    join: JoinKind = fields.choice(fields.need(table, "join", "join"), "join", JOIN_KINDS)
    variant = fields.choice(fields.need(table, "variant", "variant"), "variant", VARIANTS_OF[join])
    stores = fields.choice(table.get("stores") or "rocksdb", "stores", STORE_KINDS)
    extractor = fields.choice(table.get("fk_extractor") or "colon-prefix", "fk_extractor", FK_EXTRACTORS)
    if "fk_extractor" in table and join != "fk":
        raise fields.fail("fk_extractor", table["fk_extractor"], "is only allowed for an fk join")
    window = _window(fields, table.get("window"), join)
    versioned = _versioned(fields, table.get("versioned"), join)
    intended = fields.boolean(table.get("intended", False), "intended")
    raw = fields.need(table, "records", "records")
    if not isinstance(raw, list):
        raise fields.fail("records", type(raw).__name__, "must be a list of records")
    records = tuple(_record(fields, item, f"records[{index}]") for index, item in enumerate(raw))
    check_wall_clock(fields, records)
    spec = JoinSpec(
        join=join,
        variant=variant,
        window=window,
        stores=stores,
        versioned=versioned,
        fk_extractor=extractor,
        settings=settings_from(fields, table.get("settings")),
    )
    return Case(
        id=case_id(scenario, variant, kafka, intended),
        scenario=scenario,
        kafka=kafka,
        intended=intended,
        spec=spec,
        records=records,
        source=path,
        line=line,
        expected=_expected(fields, table, path, line),
        about=_about(fields, table),
        extra=MappingProxyType(_extra(fields, table)),
    )


def _extra(fields: Fields, table: Mapping[str, Any]) -> dict[str, Any]:
    """The fields the scenario does not define (provenance), checked to be writable text."""
    extra = {name: value for name, value in table.items() if name not in INPUT_FIELDS | _STATED}
    if isinstance(table.get("window"), Mapping) and "api" in table["window"]:
        extra["window.api"] = table["window"]["api"]
    pending: list[tuple[str, Any]] = list(extra.items())
    while pending:
        name, value = pending.pop()
        if isinstance(value, str):
            fields.encodable(value, name)
        elif isinstance(value, Mapping):
            pending.extend((f"{name}.{key}", item) for key, item in value.items())
        elif isinstance(value, list):
            pending.extend((f"{name}[{index}]", item) for index, item in enumerate(value))
    return extra


def _expected(fields: Fields, table: Mapping[str, Any], path: str, line: int | None) -> Expected | None:
    if "expected" not in table:
        if "timestamps" in table:
            raise fields.fail("timestamps", table["timestamps"], "is only allowed with expected outputs")
        return None
    raw = table["expected"]
    if not isinstance(raw, list):
        raise fields.fail("expected", type(raw).__name__, "must be a list of outputs")
    outputs = tuple(output_from_json(fields, item, f"expected[{index}]") for index, item in enumerate(raw))
    timestamps = fields.boolean(table.get("timestamps", True), "timestamps")
    label = path if line is None else f"{path}:{line}"
    return Expected(outputs=outputs, causes_known=False, timestamps=timestamps, label=label)


def _about(fields: Fields, table: Mapping[str, Any]) -> About | None:
    if not (_STATED - {"expected", "timestamps"}) & set(table):
        return None
    description = table.get("description")
    if description is not None:
        fields.text(description, "description")
    features = fields.choices(table.get("features", []), "features", tuple(FEATURES), empty_ok=True)
    flags = fields.choices(table.get("flags", []), "flags", FLAGS, empty_ok=True)
    return About(description=description or "", features=features, flags=flags)


def case_json(case: Case, *, expected: tuple[Output, ...] | None = None) -> dict[str, Any]:
    """The portable input line of ``case`` (what ``kjoin oracle --jsonl`` and the Kafka driver read), with
    ``expected`` outputs when given."""
    spec = case.spec
    line: dict[str, Any] = {
        "id": case.scenario,
        "kafka": case.kafka,
        "join": spec.join,
        "variant": spec.variant,
        "stores": spec.stores,
    }
    if case.intended:
        line["intended"] = True
    if spec.window is not None:
        window = spec.window
        if spec.join == "stream-table":
            line["window"] = {"grace": window.grace}
        else:
            line["window"] = {"before": window.before, "after": window.after, "grace": window.grace}
            if window.legacy:
                line["window"]["legacy"] = True
    if spec.versioned is not None:
        v = spec.versioned
        line["versioned"] = {"left": v.left, "right": v.right, "history_ms": v.history_ms}
    if spec.join == "fk":
        line["fk_extractor"] = spec.fk_extractor
    if spec.settings != Settings():
        line["settings"] = settings_json(spec.settings)
    line["records"] = [record_json(record) for record in case.records]
    if expected is not None:
        line["expected"] = [output_to_json(output) for output in expected]
    return line


def settings_json(settings: Settings) -> dict[str, int]:
    """The settings that differ from the default (0), by name."""
    return {name: getattr(settings, name) for name in sorted(SETTINGS_FIELDS) if getattr(settings, name)}


def record_json(record: Record) -> dict[str, Any]:
    """``{"side", "key", "value", "ts"}``, plus ``wall_clock`` and ``commit`` when the record states them."""
    line: dict[str, Any] = {"side": record.side, "key": record.key, "value": record.value, "ts": record.ts}
    if record.wall_clock is not None:
        line["wall_clock"] = record.wall_clock
    if record.commit:
        line["commit"] = True
    return line


def error_answer(scenario: str | None, error: ScenarioError | str) -> dict[str, Any]:
    """The answer line for a scenario that cannot be run."""
    return {"id": scenario, "error": str(error)}
