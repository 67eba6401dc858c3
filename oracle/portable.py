"""The portable JSON scenario format (one JSON object per line), shared with other tools.

Input fields: ``id``, ``kafka``, ``join``, ``variant``, ``stores`` (missing = ``rocksdb``, Kafka's
default), ``window`` (``before``, ``after``, ``grace``; optional ``legacy``: true for the deprecated
``JoinWindows.of(...).grace(...)``; optional ``api``: a free-text description, kept as provenance),
``versioned``, ``records``; optional ``intended`` (bug flags off) and ``fk_extractor``. Output per
scenario: ``{"id": ..., "outputs": [{"key", "value", "ts"}, ...]}`` in emission order, or
``{"id": ..., "error": "..."}``. Extra fields (``expected``, ``source``, ...) are kept on the parsed
scenario, never silently dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for
from kjoin.oracle.engine import run
from kjoin.oracle.errors import OracleError
from kjoin.oracle.records import (
    FK_EXTRACTORS,
    JOIN_KINDS,
    SIDES,
    STORE_KINDS,
    VARIANTS,
    JoinSpec,
    Output,
    Record,
    Versioning,
    Window,
)

__all__ = [
    "PortableFormatError",
    "PortableScenario",
    "evaluate",
    "output_from_json",
    "output_to_json",
    "parse_scenario",
]

_KNOWN_FIELDS = {
    "id", "kafka", "join", "variant", "stores", "window", "versioned", "records", "intended", "fk_extractor",
}


class PortableFormatError(ValueError):
    """A portable scenario with a missing or malformed field; the message names the field."""


@dataclass(frozen=True, slots=True)
class PortableScenario:
    """A parsed portable scenario. ``extra`` holds every field the oracle does not read."""

    id: str
    kafka: str
    spec: JoinSpec
    records: tuple[Record, ...]
    intended: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)


def _need(obj: Mapping[str, Any], name: str, where: str) -> Any:
    if name not in obj:
        raise PortableFormatError(f"{where}: missing field {name!r}")
    return obj[name]


def _choice(value: Any, allowed: tuple[str, ...], where: str) -> Any:
    if value not in allowed:
        raise PortableFormatError(f"{where}: {value!r} is not one of {', '.join(allowed)}")
    return value


def _int(value: Any, where: str, *, allow_none: bool = False) -> Any:
    if value is None and allow_none:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise PortableFormatError(f"{where}: expected an integer, got {value!r}")
    return value


def _window(obj: Any, where: str) -> Window | None:
    if obj is None:
        return None
    if not isinstance(obj, Mapping):
        raise PortableFormatError(f"{where}: expected an object, got {obj!r}")
    unknown = set(obj) - {"before", "after", "grace", "legacy", "api"}
    if unknown:
        raise PortableFormatError(f"{where}: unknown field(s) {sorted(unknown)}")
    legacy = obj.get("legacy", False)
    if not isinstance(legacy, bool):
        raise PortableFormatError(f"{where}.legacy: expected true or false, got {legacy!r}")
    api = obj.get("api")
    if api is not None and not isinstance(api, str):
        raise PortableFormatError(f"{where}.api: expected a description string, got {api!r}")
    before = _int(obj.get("before"), f"{where}.before", allow_none=True)
    after = _int(obj.get("after", before), f"{where}.after", allow_none=True)
    grace = _int(obj.get("grace"), f"{where}.grace", allow_none=True)
    for name, value in (("before", before), ("after", after), ("grace", grace)):
        if value is not None and value < 0:
            raise PortableFormatError(f"{where}.{name}: must not be negative, got {value}")
    return Window(before=before or 0, after=after or 0, grace=grace, legacy=legacy)


def _versioned(obj: Any, where: str) -> Versioning | None:
    if obj is None:
        return None
    if not isinstance(obj, Mapping):
        raise PortableFormatError(f"{where}: expected an object, got {obj!r}")
    unknown = set(obj) - {"left", "right", "history_ms"}
    if unknown:
        raise PortableFormatError(f"{where}: unknown field(s) {sorted(unknown)}")
    left, right = obj.get("left", False), obj.get("right", False)
    for name, value in (("left", left), ("right", right)):
        if not isinstance(value, bool):
            raise PortableFormatError(f"{where}.{name}: expected true or false, got {value!r}")
    history = _int(_need(obj, "history_ms", where), f"{where}.history_ms")
    if history < 0:
        raise PortableFormatError(f"{where}.history_ms: must not be negative, got {history}")
    return Versioning(left=left, right=right, history_ms=history)


def _record(obj: Any, where: str) -> Record:
    if not isinstance(obj, Mapping):
        raise PortableFormatError(f"{where}: expected an object, got {obj!r}")
    unknown = set(obj) - {"side", "key", "value", "ts"}
    if unknown:
        raise PortableFormatError(f"{where}: unknown field(s) {sorted(unknown)}")
    side = _choice(_need(obj, "side", where), SIDES, f"{where}.side")
    key = _need(obj, "key", where)
    if key is not None and (not isinstance(key, (str, int)) or isinstance(key, bool)):
        raise PortableFormatError(f"{where}.key: expected a string, integer or null, got {key!r}")
    value = _need(obj, "value", where)
    if value is not None and not isinstance(value, str):
        raise PortableFormatError(f"{where}.value: expected a string or null, got {value!r}")
    ts = _int(_need(obj, "ts", where), f"{where}.ts")
    if ts < 0:
        raise PortableFormatError(f"{where}.ts: Kafka rejects negative timestamps, got {ts}")
    return Record(side=side, key=key, value=value, ts=ts)


def parse_scenario(obj: Any, where: str = "scenario") -> PortableScenario:
    """Validate one decoded JSON object; errors name ``where`` and the field."""
    if not isinstance(obj, Mapping):
        raise PortableFormatError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    scenario_id = _need(obj, "id", where)
    if not isinstance(scenario_id, str) or not scenario_id:
        raise PortableFormatError(f"{where}.id: expected a non-empty string, got {scenario_id!r}")
    where = f"{where} {scenario_id!r}"
    kafka = _need(obj, "kafka", where)
    if not isinstance(kafka, str):
        raise PortableFormatError(f"{where}.kafka: expected a version string, got {kafka!r}")
    join = _choice(_need(obj, "join", where), JOIN_KINDS, f"{where}.join")
    variant = _choice(_need(obj, "variant", where), VARIANTS, f"{where}.variant")
    stores = _choice(obj.get("stores") or "rocksdb", STORE_KINDS, f"{where}.stores")
    extractor = _choice(obj.get("fk_extractor") or "colon-prefix", FK_EXTRACTORS, f"{where}.fk_extractor")
    window = _window(obj.get("window"), f"{where}.window")
    if join == "stream-stream" and window is None:
        raise PortableFormatError(f"{where}.window: a stream-stream join needs a window")
    versioned = _versioned(obj.get("versioned"), f"{where}.versioned")
    intended = obj.get("intended", False)
    if not isinstance(intended, bool):
        raise PortableFormatError(f"{where}.intended: expected true or false, got {intended!r}")
    raw_records = _need(obj, "records", where)
    if not isinstance(raw_records, list):
        raise PortableFormatError(f"{where}.records: expected a list, got {type(raw_records).__name__}")
    records = tuple(_record(item, f"{where}.records[{i}]") for i, item in enumerate(raw_records))
    spec = JoinSpec(
        join=join, variant=variant, window=window, stores=stores, versioned=versioned, fk_extractor=extractor
    )
    extra = {name: value for name, value in obj.items() if name not in _KNOWN_FIELDS}
    if isinstance(obj.get("window"), Mapping) and "api" in obj["window"]:
        extra["window.api"] = obj["window"]["api"]
    return PortableScenario(
        id=scenario_id, kafka=kafka, spec=spec, records=records, intended=intended, extra=extra
    )


def output_to_json(output: Output) -> dict[str, Any]:
    """``{"key", "value": [left, right] or null, "ts"}``: the portable output record."""
    value = None if output.value is None else [output.value[0], output.value[1]]
    return {"key": output.key, "value": value, "ts": output.ts}


def output_from_json(obj: Any, cause: int = -1, where: str = "output") -> Output:
    """Parse a portable output record (``cause`` is unknown in that format unless given)."""
    if not isinstance(obj, Mapping):
        raise PortableFormatError(f"{where}: expected an object, got {obj!r}")
    value = _need(obj, "value", where)
    if value is not None:
        if not isinstance(value, list) or len(value) != 2:
            raise PortableFormatError(f"{where}.value: expected [left, right] or null, got {value!r}")
        value = (value[0], value[1])
    ts = _int(_need(obj, "ts", where), f"{where}.ts")
    return Output(key=_need(obj, "key", where), value=value, ts=ts, cause=cause)


def evaluate(scenario: PortableScenario) -> dict[str, Any]:
    """The oracle's answer line for one scenario: outputs, or an error saying why there are none."""
    try:
        behaviour = behaviour_for(scenario.kafka, intended=scenario.intended)
        outputs = run(scenario.spec, scenario.records, behaviour)
    except (OracleError, UnknownVersionError) as error:
        return {"id": scenario.id, "error": str(error)}
    return {"id": scenario.id, "outputs": [output_to_json(output) for output in outputs]}
