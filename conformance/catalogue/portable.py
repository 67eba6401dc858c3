"""The portable JSON Lines format: one scenario per line, shared with other tools and with real Kafka.

Input fields: ``id``, ``kafka``, ``join``, ``variant``, ``records`` (``side``, ``key``, ``value``, ``ts``, in
processing order), and as needed ``window`` (``before``, ``after``, ``grace``; ``legacy``: the deprecated
``JoinWindows.of(d).grace(g)``; ``api``: free text kept as provenance), ``stores`` (default ``rocksdb``),
``versioned`` (``left``, ``right``, ``history_ms``), ``fk_extractor``, ``intended``. A line may state what
Kafka emits (``expected``: outputs in emission order; ``timestamps: false`` when they are unknown) and may
describe itself (``description``, ``features``, ``flags``); a saved counterexample may state how it is fed
(``micro_batches``) and the batch it is checked in (``batch``: ``"store-shape"``, the case id then ends in
``~<shape>-batch``). Every other field (``source``, ``known_bug``,
...) is kept in ``Case.extra``, never dropped. The answer to a line is ``{"id", "outputs": [{"key",
"value": [left, right] | null, "ts"}, ...]}`` or ``{"id", "error"}``; docs/portable-format.md has the
whole format.

Reading and writing go through the one codec (``kjoin.conformance.codec``: typed, validated JSON at native
speed, with its limits: depth, lone surrogates, Kafka's ``long`` range); this module adds what the catalogue
knows (Kafka versions, the variants of each join, the feature and flag vocabularies) and the file, line and
scenario to every error.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import msgspec
from msgspec.structs import replace

from kjoin.conformance.catalogue.batches import BATCHES, batch_suffix
from kjoin.conformance.catalogue.case import About, Case, Expected, MicroBatches, case_id
from kjoin.conformance.catalogue.errors import ScenarioError
from kjoin.conformance.catalogue.fields import Fields
from kjoin.conformance.catalogue.vocabulary import FEATURES, FLAGS, VARIANTS_OF
from kjoin.conformance.codec import (
    MAX_DEPTH,
    CodecError,
    Scenario,
    decode_scenario,
    output_json,
    records_from,
    scenario_spec_json,
    self_join_problem,
    spec_from,
)
from kjoin.conformance.codec import (
    outputs_from as _outputs_from,
)
from kjoin.conformance.codec import (
    record_json as _record_json,
)
from kjoin.oracle.records import Output

__all__ = [
    "MAX_DEPTH",
    "case_from_json",
    "case_from_line",
    "case_json",
    "decode_line",
    "error_answer",
    "output_to_json",
]


def _fail(fields: Fields, error: CodecError) -> ScenarioError:
    if error.scenario is not None and fields.scenario_id is None:
        fields.scenario_id = error.scenario
    return fields.fail(error.field, error.value, error.problem)


def decode_line(line: str, path: str, number: int | None = None) -> Any:
    """One JSON value from ``line``; ``ScenarioError`` (naming file and line) when it is not valid JSON,
    nests too deep or holds a lone surrogate."""
    try:
        decode_scenario_or_value = msgspec.json.decode(line)
    except (msgspec.DecodeError, RecursionError):
        try:
            decode_scenario(line)
        except CodecError as error:
            raise _fail(Fields(path, number), error) from None
        raise  # pragma: no cover - msgspec refused what the codec reads
    return decode_scenario_or_value


def case_from_json(obj: object, path: str, line: int | None = None) -> Case:
    """A case from one decoded portable line (a dict); errors as ``case_from_line``."""
    import json  # the standard library writes any decoded value back (lone surrogates too) for the codec

    return case_from_line(json.dumps(obj), path, line)


def case_from_line(text: str | bytes, path: str, line: int | None = None) -> Case:
    """Read one portable line; every error is a ``ScenarioError`` naming file, line, scenario and field."""
    fields = Fields(path, line)
    try:
        scenario = decode_scenario(text)
        fields.scenario_id = fields.text(scenario.id, "id")
        kafka = fields.version(scenario.kafka, "kafka")
        fields.choice(scenario.variant, "variant", VARIANTS_OF[scenario.join])
        spec = spec_from(scenario)
        records = records_from(scenario.records)
        wrong_side = self_join_problem(spec, records)
        if wrong_side is not None:
            index, problem = wrong_side
            raise CodecError(f"records[{index}].side", records[index].side, problem)
    except CodecError as error:
        raise _fail(fields, error) from None
    case = Case(
        id=case_id(scenario.id, scenario.variant, kafka, scenario.intended),
        scenario=scenario.id,
        kafka=kafka,
        intended=scenario.intended,
        spec=spec,
        records=records,
        source=path,
        line=line,
        expected=_expected(fields, scenario, path, line),
        about=_about(fields, scenario),
        extra=MappingProxyType(_extra(scenario)),
        micro_batches=_micro_batches(fields, scenario.extra.get("micro_batches"), len(records)),
        batch=_batch(fields, scenario.extra.get("batch")),
    )
    return replace(case, id=case.id + batch_suffix(case))


def _micro_batches(fields: Fields, value: Any, count: int) -> MicroBatches | None:
    """A saved counterexample's micro-batch split (``{"split": "8", "starts": [8]}``), checked: each start
    an index of a record after the first, increasing."""
    if value is None:
        return None
    starts = value.get("starts") if isinstance(value, dict) else None
    split = value.get("split") if isinstance(value, dict) else None
    if not isinstance(split, str) or not isinstance(starts, list):
        raise fields.fail("micro_batches", value, 'must be {"split": text, "starts": [record index, ...]}')
    if not all(type(start) is int and 0 < start < count for start in starts) or starts != sorted(set(starts)):
        raise fields.fail(
            "micro_batches.starts", starts, f"must be increasing record indices from 1 to {count - 1}"
        )
    return MicroBatches(split, tuple(starts))


def _batch(fields: Fields, value: Any) -> str | None:
    """A saved counterexample's batch composition (``"store-shape"``: checked with the cases of its store
    shape only; docs/scenario-format.md), or ``None`` (absent: the joint batch of its join kind)."""
    if value is None:
        return None
    return str(fields.choice(value, "batch", BATCHES))


def _extra(scenario: Scenario) -> dict[str, Any]:
    """The fields the scenario does not define (provenance), kept as they are."""
    extra = dict(scenario.extra)
    if scenario.window is not None and scenario.window.api is not None:
        extra["window.api"] = scenario.window.api
    return extra


def _expected(fields: Fields, scenario: Scenario, path: str, line: int | None) -> Expected | None:
    if scenario.expected is None:
        if scenario.timestamps is not None:
            raise fields.fail("timestamps", scenario.timestamps, "is only allowed with expected outputs")
        return None
    timestamps = True if scenario.timestamps is None else scenario.timestamps
    label = path if line is None else f"{path}:{line}"
    outputs = _outputs_from(scenario.expected)
    return Expected(outputs=outputs, causes_known=False, timestamps=timestamps, label=label)


def _about(fields: Fields, scenario: Scenario) -> About | None:
    if scenario.description is None and scenario.features is None and scenario.flags is None:
        return None
    if scenario.description is not None:
        fields.text(scenario.description, "description")
    features = fields.choices(scenario.features or [], "features", tuple(FEATURES), empty_ok=True)
    flags = fields.choices(scenario.flags or [], "flags", FLAGS, empty_ok=True)
    return About(description=scenario.description or "", features=features, flags=flags)


def output_to_json(output: Output) -> dict[str, Any]:
    """``{"key", "value": [left, right] or null, "ts"}``: the portable output record."""
    return output_json(output)


def case_json(case: Case, *, expected: tuple[Output, ...] | None = None) -> dict[str, Any]:
    """The portable input line of ``case`` (what ``kjoin oracle --jsonl`` and the Kafka driver read), with
    ``expected`` outputs when given."""
    spec = scenario_spec_json(case.spec)
    line: dict[str, Any] = {"id": case.scenario, "kafka": case.kafka}
    line.update((name, spec.pop(name)) for name in ("join", "variant", "stores"))
    if case.intended:
        line["intended"] = True
    line.update(spec)
    line["records"] = [_record_json(record) for record in case.records]
    if expected is not None:
        line["expected"] = [output_json(output) for output in expected]
    return line


def error_answer(scenario: str | None, error: ScenarioError | str) -> dict[str, Any]:
    """The answer line for a scenario that cannot be run."""
    return {"id": scenario, "error": str(error)}
