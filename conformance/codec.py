"""The one JSON codec of the oracle's records: input records, join specs, settings and outputs.

Portable scenario lines (docs/portable-format.md), the answers of ``kjoin oracle --jsonl`` and of the Kafka
driver, and the records, specs and outputs inside results documents (docs/results-format.md) are all read
and written here. Reading is typed and validated by msgspec at native speed; the rules a type cannot say
(a window's fields per join kind, a wall clock that never goes back) are checked right after. Every problem
is a ``CodecError`` naming the field (``records[3].ts``), the value and the problem; the catalogue adds the
file, line and scenario.

Limits: a line nesting deeper than ``MAX_DEPTH`` is refused, and so is text holding a lone UTF-16 surrogate
(valid JSON, ``"\\ud800"``, but not text Kafka can carry), and numbers outside Kafka's ``long`` range.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter, itemgetter
from typing import Any, Literal

import msgspec

from kjoin.errors import KjoinError
from kjoin.oracle.records import (
    FK_EXTRACTORS,
    JOIN_KINDS,
    KEY_MAPPERS,
    MAX_LONG,
    OPTIMIZATIONS,
    SIDES,
    STORE_KINDS,
    UNKNOWN_CAUSE,
    VARIANTS,
    Count,
    FkExtractor,
    JoinKind,
    JoinSpec,
    KeyMapper,
    Long,
    Optimization,
    Output,
    Record,
    Settings,
    StoreKind,
    Versioning,
    Window,
)

__all__ = [
    "MAX_DEPTH",
    "MAX_LONG",
    "UNKNOWN_CAUSE",
    "CodecError",
    "Scenario",
    "answer_line",
    "canonical_line",
    "decode_answer",
    "decode_scenario",
    "error_line",
    "output_from",
    "output_json",
    "outputs_from",
    "record_json",
    "records_from",
    "results_spec_json",
    "scenario_spec_json",
    "self_join_problem",
    "settings_from",
    "settings_json",
    "spec_field",
    "spec_from",
    "spec_from_results",
    "stream_stream_only",
    "versioned_from",
    "window_from",
]

MAX_DEPTH = 32
"""The deepest nesting a portable line needs is 4 (``{"expected": [{"value": [...]}]}``); 32 leaves room
for provenance fields and refuses pathological input."""

KeyJson = str | Long | None


class CodecError(KjoinError, ValueError):
    """A value that does not follow the format: ``field`` (``records[3].ts``, ``(line)`` for the whole
    line), the value found and the problem; ``scenario`` is the line's id when it has a usable one."""

    def __init__(self, field: str, value: object, problem: str, scenario: str | None = None) -> None:
        super().__init__(f"field {field}: {value!r} {problem}")
        self.field = field
        self.value = value
        self.problem = problem
        self.scenario = scenario


class WindowJson(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    before: Count | None = None
    after: Count | None = None
    grace: Count | None = None
    legacy: bool = False
    api: str | None = None


class VersionedJson(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    left: bool = False
    right: bool = False
    history_ms: Count


class SettingsJson(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    cache_max_bytes: Count = 0
    commit_interval_ms: Count = 0
    emit_interval_ms: Count = 0


class OutputJson(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, gc=False):
    key: KeyJson
    value: tuple[str | None, str | None] | None
    ts: Count
    cause: Count | None = None


class Scenario(msgspec.Struct, kw_only=True):
    """One portable line as typed fields; ``extra`` (filled after decoding) holds every other field."""

    id: str
    kafka: str
    join: JoinKind
    variant: Literal["inner", "left", "outer"]
    records: list[Record]
    """Read straight into the oracle's ``Record``: its field types carry the bounds."""
    stores: StoreKind | None = None
    fk_extractor: FkExtractor | None = None
    key_mapper: KeyMapper | None = None
    window: WindowJson | None = None
    versioned: VersionedJson | None = None
    settings: SettingsJson | None = None
    self_join: bool = msgspec.field(default=False, name="self")
    optimization: Optimization | None = None
    intended: bool = False
    expected: list[OutputJson] | None = None
    timestamps: bool | None = None
    description: str | None = None
    features: list[str] | None = None
    flags: list[str] | None = None
    extra: dict[str, Any] = {}


_NOT_GIVEN: dict[str, Any] = {}
"""``_PlainScenario.extra`` when the line has no ``extra`` key (compared by identity, never filled)."""


def _not_given() -> dict[str, Any]:
    return _NOT_GIVEN


class _PlainScenario(Scenario, forbid_unknown_fields=True, kw_only=True):
    """A line with only the format's own fields, read in one pass (``decode_scenario``)."""

    extra: dict[str, Any] = msgspec.field(default_factory=_not_given)


class _AnswerOutput(msgspec.Struct, gc=False):
    """An output as an answer line writes it (``{"key", "value", "ts"}``)."""

    key: KeyJson
    value: tuple[str | None, str | None] | None
    ts: int


class _AnswerLine(msgspec.Struct):
    id: str
    outputs: list[_AnswerOutput]


class _Answer(msgspec.Struct):
    id: str | None
    outputs: list[OutputJson] | None = None
    error: str | None = None


_SCENARIO_FIELDS = frozenset(Scenario.__struct_encode_fields__) - {"extra"}
_DECODE_SCENARIO = msgspec.json.Decoder(Scenario)
_DECODE_PLAIN = msgspec.json.Decoder(_PlainScenario)
_DECODE_ANSWER = msgspec.json.Decoder(_Answer)
_ENCODE = msgspec.json.Encoder()

_TOO_DEEP = f"is refused: it nests deeper than {MAX_DEPTH} levels"
_WHOLE = f"must be a whole number from 0 to {MAX_LONG}"
_TABLE = "must be a table (a JSON object)"
_BOOLEAN = "must be true or false"
_PROBLEMS = {
    "(line)": "must be a JSON object (one scenario per line)",
    "id": "must be a non-empty string",
    "kafka": "is not a Kafka version (write it like '3.9' or '0.10.1')",
    "join": f"is not one of {', '.join(JOIN_KINDS)}",
    "variant": f"is not one of {', '.join(VARIANTS)}",
    "stores": f"is not one of {', '.join(STORE_KINDS)}",
    "fk_extractor": f"is not one of {', '.join(FK_EXTRACTORS)}",
    "key_mapper": f"is not one of {', '.join(KEY_MAPPERS)}",
    "records": "must be a list of records",
    "records[]": _TABLE,
    "records[].side": f"is not one of {', '.join(SIDES)}",
    "records[].key": "must be a string, an integer or null",
    "records[].value": "must be a string or null",
    "records[].commit": _BOOLEAN,
    "expected": "must be a list of outputs",
    "expected[]": _TABLE,
    "expected[].key": "must be a string, an integer or null",
    "expected[].value": "must be [left, right] or null (a tombstone)",
    "expected[].value[]": "must be a string or null",
    "window": _TABLE,
    "window.legacy": _BOOLEAN,
    "window.api": "must be a non-empty string",
    "versioned": _TABLE,
    "versioned.left": _BOOLEAN,
    "versioned.right": _BOOLEAN,
    "settings": _TABLE,
    "self": _BOOLEAN,
    "optimization": f"is not one of {', '.join(OPTIMIZATIONS)}",
    "intended": _BOOLEAN,
    "timestamps": _BOOLEAN,
    "description": "must be a non-empty string",
    "features": "must be a list",
    "features[]": "must be a string",
    "flags": "must be a list",
    "flags[]": "must be a string",
}
"""What each field must be, by its path with indices dropped (whole numbers: ``_WHOLE``)."""

_KNOWN_KEYS: dict[str, type[msgspec.Struct]] = {
    "records[]": Record,
    "expected[]": OutputJson,
    "window": WindowJson,
    "versioned": VersionedJson,
    "settings": SettingsJson,
}
_PATH = re.compile(r"^(?P<problem>.*?)(?: - at `\$(?P<path>.*)`)?$", re.DOTALL)
_INDEX = re.compile(r"\[\d+\]")
_FIELD_NAME = re.compile(r"`([^`]*)`")
_SURROGATE = re.compile("[\ud800-\udfff]")


# --- reading a portable line --------------------------------------------------------------------------------


def decode_scenario(line: str | bytes) -> Scenario:
    """One portable line as typed fields (every other field in ``extra``); ``CodecError`` naming the field
    when it is not JSON, nests too deep, holds a lone surrogate or has a field of the wrong type.

    A line with only the format's fields (the usual case) is read once, as a ``_PlainScenario``; any other
    line (a provenance field, an ``extra`` key, an error) is read as a ``Scenario`` and its other fields
    apart, the second pass over the whole line that would otherwise cost every line about 15% more."""
    try:
        plain = _DECODE_PLAIN.decode(line)
    except (msgspec.DecodeError, RecursionError):
        pass
    else:
        if plain.extra is _NOT_GIVEN:
            plain.extra = {}
            return plain
    try:
        scenario = _DECODE_SCENARIO.decode(line)
    except (msgspec.DecodeError, RecursionError) as error:
        raise _explained(line, error) from None
    if len(scenario.records) and not isinstance(scenario.records[0], Record):  # pragma: no cover
        raise CodecError("records", None, _PROBLEMS["records"], scenario.id)
    extra = _extra_fields(line)
    if extra:
        too_deep = _depth(extra) > MAX_DEPTH
        if too_deep:
            raise CodecError("(line)", None, _TOO_DEEP, scenario.id)
        scenario.extra = extra
    return scenario


def _extra_fields(line: str | bytes) -> dict[str, Any]:
    """The top-level fields the format does not define (provenance), decoded as plain JSON values."""
    fields = msgspec.json.decode(line, type=dict[str, msgspec.Raw])
    return {name: msgspec.json.decode(raw) for name, raw in fields.items() if name not in _SCENARIO_FIELDS}


def _depth(value: object) -> int:
    """How deep ``value`` nests (a scalar is 0, ``[]`` is 1)."""
    deepest = 0
    pending: list[tuple[object, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            pending.extend((child, depth + 1) for child in item.values())
            deepest = max(deepest, depth + 1)
        elif isinstance(item, list):
            pending.extend((child, depth + 1) for child in item)
            deepest = max(deepest, depth + 1)
    return deepest


def _explained(line: str | bytes, error: Exception) -> CodecError:
    """The ``CodecError`` for a line msgspec refused: re-read with the standard library (which accepts lone
    surrogates and says where the JSON breaks) to name the field and the value."""
    import json  # only for a line msgspec refused (the standard library says where it breaks)

    text = line.decode("utf-8") if isinstance(line, bytes) else line
    try:
        plain = json.loads(text)
    except json.JSONDecodeError as bad:
        return CodecError("(line)", None, f"is not valid JSON ({bad.msg} at column {bad.colno})")
    except RecursionError:
        return CodecError("(line)", None, _TOO_DEEP)
    scenario = _scenario_id(plain)
    if _depth(plain) > MAX_DEPTH:
        return CodecError("(line)", None, _TOO_DEEP, scenario)
    surrogate = _surrogate_at(plain)
    if surrogate is not None:
        field, value = surrogate
        return CodecError(field, value, "holds a lone UTF-16 surrogate (not valid UTF-8 text)", scenario)
    if isinstance(error, msgspec.ValidationError):
        return _misplaced(plain, scenario) or _validation(str(error), plain, scenario)
    return CodecError("(line)", None, f"is not valid JSON ({error})", scenario)  # pragma: no cover


def _misplaced(plain: object, scenario: str | None) -> CodecError | None:
    """A window or versioned table the join kind does not have: named first, whatever its fields hold."""
    if not isinstance(plain, dict):
        return None
    join = plain.get("join")
    if plain.get("window") is not None and join in _WINDOWLESS:
        problem = f"is not allowed for a {join} join (it has no window)"
        return CodecError("window", plain["window"], problem, scenario)
    if plain.get("versioned") is not None and join == "stream-stream":
        problem = "is not allowed for a stream-stream join (it has no tables)"
        return CodecError("versioned", plain["versioned"], problem, scenario)
    if plain.get("versioned") is not None and join == "stream-globaltable":
        return CodecError("versioned", plain["versioned"], _GLOBAL_NOT_VERSIONED, scenario)
    return None


_WINDOWLESS = ("table-table", "fk", "stream-globaltable")
"""The join kinds without a window (a stream-globaltable join has no grace period either)."""

_GLOBAL_NOT_VERSIONED = "is not allowed for a stream-globaltable join (a GlobalKTable cannot be versioned)"


def _scenario_id(plain: object) -> str | None:
    if isinstance(plain, dict):
        scenario = plain.get("id")
        if isinstance(scenario, str) and scenario.strip() and "\n" not in scenario:
            return None if _SURROGATE.search(scenario) else scenario
    return None


def _surrogate_at(value: object, at: str = "") -> tuple[str, str] | None:
    """The first field (in the line's order) holding a lone surrogate, and its text."""
    if isinstance(value, str):
        return (at or "(line)", value) if _SURROGATE.search(value) else None
    items: Iterable[tuple[str, object]] = ()
    if isinstance(value, dict):
        items = ((f"{at}.{key}" if at else str(key), item) for key, item in value.items())
    elif isinstance(value, list):
        items = ((f"{at}[{index}]", item) for index, item in enumerate(value))
    for field, item in items:
        found = _surrogate_at(item, field)
        if found is not None:
            return found
    return None


def _validation(message: str, plain: object, scenario: str | None) -> CodecError:
    """A msgspec validation message (``Expected `int` >= 0 - at `$.records[0].ts```) as a ``CodecError``."""
    match = _PATH.match(message)
    assert match is not None
    problem, path = match.group("problem"), (match.group("path") or "").lstrip(".")
    names = _FIELD_NAME.findall(problem)
    if problem.startswith("Object missing required field") and names:
        field = f"{path}.{names[0]}" if path else names[0]
        return CodecError(field, None, "is missing", scenario)
    if problem.startswith("Object contains unknown field") and names:
        field = f"{path}.{names[0]}" if path else names[0]
        known = sorted(_KNOWN_KEYS[_INDEX.sub("[]", path)].__struct_fields__)
        value = _at(plain, field)
        return CodecError(field, value, f"is an unknown key (known: {', '.join(known)})", scenario)
    field = path or "(line)"
    value = _at(plain, field)
    if field == "(line)":
        value = type(plain).__name__
    shape = _INDEX.sub("[]", field)
    if shape.endswith(".key") and isinstance(value, int) and not isinstance(value, bool):
        return CodecError(field, value, "is outside Kafka's long range", scenario)
    return CodecError(field, value, _PROBLEMS.get(shape, _WHOLE), scenario)


def _at(plain: object, field: str) -> object:
    """The value at ``field`` (``records[0].ts``) of a decoded line, ``None`` if it is not there."""
    value = plain
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", field):
        if part.startswith("["):
            index = int(part[1:-1])
            value = value[index] if isinstance(value, list) and index < len(value) else None
        else:
            value = value.get(part) if isinstance(value, dict) else None
    return value


def spec_field(value: object, field: Literal["window", "versioned", "settings"]) -> Any:
    """A spec field given as plain data (a TOML table), checked like the portable line's: the typed value
    for ``window_from``, ``versioned_from`` or ``settings_from``; ``None`` stays ``None``."""
    if value is None:
        return None
    try:
        return msgspec.convert(value, _KNOWN_KEYS[field])
    except msgspec.ValidationError as error:
        message = str(error)
        located = message.replace(" - at `$", f" - at `$.{field}", 1)
        if located == message:
            located = f"{message} - at `$.{field}`"
        raise _validation(located, {field: value}, None) from None


# --- the rules a type cannot say ----------------------------------------------------------------------------


def window_from(value: WindowJson | None, join: JoinKind) -> Window | None:
    """Stream-stream: ``before`` (required), ``after`` (default ``before``), ``grace``, ``legacy``.
    Stream-table: ``grace`` only (KIP-923). Table-table, fk and stream-globaltable: no window."""
    if value is None:
        if join == "stream-stream":
            raise CodecError("window", None, "is missing: a stream-stream join needs a window")
        return None
    if join in _WINDOWLESS:
        raise CodecError(
            "window", _window_shown(value), f"is not allowed for a {join} join (it has no window)"
        )
    if value.api is not None and (not value.api.strip() or "\n" in value.api):
        raise CodecError("window.api", value.api, "must be a non-empty string")
    if join == "stream-table":
        for name in ("before", "after"):
            if getattr(value, name) not in (None, 0):
                problem = "is not allowed: a stream-table window has grace only"
                raise CodecError(f"window.{name}", getattr(value, name), problem)
        if value.grace is None:
            raise CodecError("window.grace", None, "is missing: a stream-table window gives grace (KIP-923)")
        return Window(grace=value.grace)
    if value.before is None:
        raise CodecError("window.before", None, "is missing")
    after = value.before if value.after is None else value.after
    return Window(before=value.before, after=after, grace=value.grace, legacy=value.legacy)


def _window_shown(value: WindowJson) -> dict[str, Any]:
    shown: dict[str, Any] = msgspec.to_builtins(value)
    return shown


def versioned_from(value: VersionedJson | None, join: JoinKind) -> Versioning | None:
    """Which tables are versioned (3.5+); not for stream-stream, never a stream-table join's stream."""
    if value is None:
        return None
    if join == "stream-stream":
        shown = msgspec.to_builtins(value)
        raise CodecError("versioned", shown, "is not allowed for a stream-stream join (it has no tables)")
    if join == "stream-table" and value.left:
        problem = "must be false: the left side of a stream-table join is a stream"
        raise CodecError("versioned.left", True, problem)
    if join == "stream-globaltable":
        raise CodecError("versioned", msgspec.to_builtins(value), _GLOBAL_NOT_VERSIONED)
    return Versioning(left=value.left, right=value.right, history_ms=value.history_ms)


def settings_from(value: SettingsJson | None) -> Settings:
    """The production settings (docs/portable-format.md, "Production settings"); absent: all 0."""
    if value is None:
        return Settings()
    return Settings(value.cache_max_bytes, value.commit_interval_ms, value.emit_interval_ms)


def stream_stream_only(join: JoinKind, self_join: bool, optimization: str | None) -> None:
    """``self`` and ``optimization`` belong to stream-stream joins only (docs/portable-format.md)."""
    if join == "stream-stream":
        return
    if self_join:
        problem = "is only allowed for a stream-stream join (a stream joined with itself)"
        raise CodecError("self", True, problem)
    if optimization is not None:
        problem = "is only allowed for a stream-stream join (only a self-join's topology depends on it)"
        raise CodecError("optimization", optimization, problem)


def self_join_problem(spec: JoinSpec, records: Sequence[Record]) -> tuple[int, str] | None:
    """In a self-join (one input stream) every record is a left record: the index of the first that is not,
    with the problem, else ``None``."""
    if not spec.self_join:
        return None
    for index, record in enumerate(records):
        if record.side != "left":
            return index, "must be left: a self-join (self = true) has one input stream, the left one"
    return None


def spec_from(scenario: Scenario) -> JoinSpec:
    """The join spec of a decoded line (its variant is checked against the join by the catalogue)."""
    join = scenario.join
    if scenario.fk_extractor is not None and join != "fk":
        raise CodecError("fk_extractor", scenario.fk_extractor, "is only allowed for an fk join")
    stream_stream_only(join, scenario.self_join, scenario.optimization)
    if scenario.key_mapper is not None and join != "stream-globaltable":
        raise CodecError("key_mapper", scenario.key_mapper, "is only allowed for a stream-globaltable join")
    return JoinSpec(
        join=join,
        variant=scenario.variant,
        window=window_from(scenario.window, join),
        stores=scenario.stores or "rocksdb",
        versioned=versioned_from(scenario.versioned, join),
        fk_extractor=scenario.fk_extractor or "colon-prefix",
        settings=settings_from(scenario.settings),
        self_join=scenario.self_join,
        optimization=scenario.optimization or "none",
        key_mapper=scenario.key_mapper or "key",
    )


def records_from(records: Sequence[Record], at: str = "records") -> tuple[Record, ...]:
    """The input records as decoded, in processing order, once a ``wall_clock`` is checked never to go back
    (a record without one keeps the clock where it was)."""
    if any(map(_WALL_CLOCK, records)):  # only a clock above 0 can be gone back from
        _check_wall_clocks(records, at)
    return tuple(records)


_WALL_CLOCK = attrgetter("wall_clock")


def _check_wall_clocks(records: Sequence[Record], at: str) -> None:
    clock = 0
    for index, item in enumerate(records):
        wall_clock = item.wall_clock
        if wall_clock is not None:
            if wall_clock < clock:
                problem = f"goes back in time (an earlier record's wall clock is {clock}; it never decreases)"
                raise CodecError(f"{at}[{index}].wall_clock", wall_clock, problem)
            clock = wall_clock


def output_from(item: OutputJson, cause: int = UNKNOWN_CAUSE) -> Output:
    """An output record; ``cause`` from the JSON when it has one, else the one given."""
    value = item.value
    return Output(item.key, value, item.ts, cause if item.cause is None else item.cause)


def outputs_from(items: Iterable[OutputJson]) -> tuple[Output, ...]:
    return tuple(output_from(item) for item in items)


# --- writing ------------------------------------------------------------------------------------------------


def settings_json(settings: Settings) -> dict[str, int]:
    """The settings that differ from the default (0), by name."""
    return {name: value for name, value in msgspec.to_builtins(_settings_struct(settings)).items() if value}


def _settings_struct(settings: Settings) -> SettingsJson:
    return SettingsJson(
        cache_max_bytes=settings.cache_max_bytes,
        commit_interval_ms=settings.commit_interval_ms,
        emit_interval_ms=settings.emit_interval_ms,
    )


def record_json(record: Record) -> dict[str, Any]:
    """``{"side", "key", "value", "ts"}``, plus ``wall_clock`` and ``commit`` when the record states them."""
    line: dict[str, Any] = {"side": record.side, "key": record.key, "value": record.value, "ts": record.ts}
    if record.wall_clock is not None:
        line["wall_clock"] = record.wall_clock
    if record.commit:
        line["commit"] = True
    return line


def output_json(output: Output, *, cause: bool = False) -> dict[str, Any]:
    """``{"key", "value": [left, right] | null, "ts"}`` (the portable output), with ``"cause"`` (``null``
    when unknown) for results documents."""
    value = None if output.value is None else [output.value[0], output.value[1]]
    data: dict[str, Any] = {"key": output.key, "value": value, "ts": output.ts}
    if cause:
        data["cause"] = None if output.cause == UNKNOWN_CAUSE else output.cause
    return data


def scenario_spec_json(spec: JoinSpec) -> dict[str, Any]:
    """The spec fields of a portable line: only what the join kind has (``window`` per kind, ``versioned``
    when set, ``fk_extractor`` for fk, ``key_mapper`` for stream-globaltable, ``settings`` when not the
    default)."""
    line: dict[str, Any] = {"join": spec.join, "variant": spec.variant, "stores": spec.stores}
    window = spec.window
    if window is not None:
        if spec.join == "stream-table":
            line["window"] = {"grace": window.grace}
        else:
            line["window"] = {"before": window.before, "after": window.after, "grace": window.grace}
            if window.legacy:
                line["window"]["legacy"] = True
    if spec.versioned is not None:
        line["versioned"] = _versioned_json(spec.versioned)
    if spec.join == "fk":
        line["fk_extractor"] = spec.fk_extractor
    if spec.join == "stream-globaltable":
        line["key_mapper"] = spec.key_mapper
    if spec.settings != Settings():
        line["settings"] = settings_json(spec.settings)
    line.update(_self_join_json(spec))
    return line


def _self_join_json(spec: JoinSpec) -> dict[str, Any]:
    """``self`` and ``optimization`` when they are not the defaults (so other scenarios read as before)."""
    data: dict[str, Any] = {}
    if spec.self_join:
        data["self"] = True
    if spec.optimization != "none":
        data["optimization"] = spec.optimization
    return data


def results_spec_json(spec: JoinSpec) -> dict[str, Any]:
    """The spec of a results document: every field (``null`` when absent), ``settings`` only when not the
    default and ``key_mapper`` only for stream-globaltable (so other documents read as before)."""
    window = spec.window
    data: dict[str, Any] = {
        "join": spec.join,
        "variant": spec.variant,
        "stores": spec.stores,
        "fk_extractor": spec.fk_extractor,
        "window": None
        if window is None
        else {"before": window.before, "after": window.after, "grace": window.grace, "legacy": window.legacy},
        "versioned": None if spec.versioned is None else _versioned_json(spec.versioned),
    }
    if spec.join == "stream-globaltable":
        data["key_mapper"] = spec.key_mapper
    if spec.settings != Settings():
        data["settings"] = settings_json(spec.settings)
    data.update(_self_join_json(spec))
    return data


def _versioned_json(versioned: Versioning) -> dict[str, Any]:
    return {"left": versioned.left, "right": versioned.right, "history_ms": versioned.history_ms}


def spec_from_results(data: Mapping[str, Any]) -> JoinSpec:
    """The spec a results document carries (``results_spec_json``), rebuilt."""
    window, versioned = data["window"], data["versioned"]
    return JoinSpec(
        join=data["join"],
        variant=data["variant"],
        window=None if window is None else Window(**window),
        stores=data["stores"],
        versioned=None if versioned is None else Versioning(**versioned),
        fk_extractor=data["fk_extractor"],
        settings=settings_from(msgspec.convert(data.get("settings", {}), SettingsJson)),
        self_join=data.get("self", False),
        optimization=data.get("optimization", "none"),
        key_mapper=data.get("key_mapper", "key"),
    )


def records_from_results(items: Iterable[Mapping[str, Any]]) -> tuple[Record, ...]:
    """The input records a results document carries (``record_json``), rebuilt."""
    return records_from(msgspec.convert(list(items), list[Record]))


def outputs_from_results(items: Iterable[Mapping[str, Any]]) -> tuple[Output, ...]:
    """The outputs a results document carries (``output_json(..., cause=True)``), rebuilt."""
    return outputs_from(msgspec.convert(list(items), list[OutputJson]))


def answer_line(scenario: str, outputs: Sequence[Output]) -> bytes:
    """The answer of ``kjoin oracle --jsonl`` to one scenario (``{"id", "outputs"}``), as a JSON line."""
    # one struct per output, built natively from the output's first three fields (a transposing
    # ``zip(*outputs)`` cost twice as much: it steps one iterator per output)
    body = list(map(_AnswerOutput, map(_KEY, outputs), map(_VALUE, outputs), map(_TS, outputs)))
    return _ENCODE.encode(_AnswerLine(scenario, body)) + b"\n"


_KEY, _VALUE, _TS = itemgetter(0), itemgetter(1), itemgetter(2)


def error_line(scenario: str | None, error: str) -> bytes:
    """The answer to a scenario that cannot be run (``{"id", "error"}``), as a JSON line."""
    return _ENCODE.encode({"id": scenario, "error": error}) + b"\n"


def canonical_line(line: str) -> str:
    """A JSON line written compactly, as every answer line is (the Kafka driver's, re-encoded)."""
    return _ENCODE.encode(msgspec.json.decode(line)).decode("utf-8") + "\n"


def decode_answer(line: str | bytes) -> tuple[str | None, tuple[Output, ...] | str]:
    """One answer line (``kjoin oracle --jsonl``, the Kafka driver): the id and its outputs, or its error."""
    answer = _DECODE_ANSWER.decode(line)
    if answer.error is not None or answer.outputs is None:
        return answer.id, answer.error or "the answer has neither outputs nor an error"
    return answer.id, outputs_from(answer.outputs)
