"""Convert Kafka's own join tests (the transcription ``kafka-tests.json``) into portable scenario files.

Usage::

    python tools/import_kafka_tests.py PATH/TO/kafka-tests.json [--out scenarios/kafka_tests]

Writes one JSON Lines file per join kind (``stream-stream.jsonl``, ``stream-table.jsonl``,
``table-table.jsonl``, ``fk.jsonl``) in the portable format (docs/portable-format.md) plus the
transcription's provenance fields. The output is deterministic: the same input gives byte-identical files.
This script is kept for reproducibility only; nothing runs it at test time (the transcription lives outside
the repository). The mapping decisions are documented in ``scenarios/kafka_tests/README.md``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

JOIN_FILES = ("stream-stream", "stream-table", "table-table", "fk")
"""Join kinds, in file order; each gets ``<kind>.jsonl``."""

DEFAULT_OUT = Path(__file__).resolve().parents[2] / "scenarios" / "kafka_tests"

_DURATION = re.compile(r"(\d+)\s*(ms|s|min|h)\b")
_UNIT_MS = {"ms": 1, "s": 1000, "min": 60_000, "h": 3_600_000}


class TranscriptionError(ValueError):
    """A transcribed case the converter cannot map; the message names the case and the field."""


def case_id(source: str) -> str:
    """Readable id from a ``branch:path#test(params)`` source.

    ``trunk:.../StreamStreamJoinIntegrationTest.java#testInner`` becomes
    ``trunk-StreamStreamJoinIntegrationTest-testInner``; parameters become ``-name-value`` pairs; a
    documentation page gives ``<branch>-<page>-<section words>``.
    """
    branch, _, rest = source.partition(":")
    path, _, test = rest.partition("#")
    stem = path.rsplit("/", 1)[-1]
    stem = stem.removesuffix(".java").removesuffix(".html")
    method, _, params = test.partition("(")
    parts = [branch, stem]
    words = re.findall(r"[A-Za-z0-9]+", method)
    if path.endswith(".html"):
        words = [word.lower() for word in words if word.lower() not in {"semantics", "of"}]
    parts.extend(words)
    for pair in filter(None, params.rstrip(")").split(",")):
        name, _, value = pair.partition("=")
        parts.extend([name.strip(), value.strip().lower()])
    return "-".join(parts)


def kafka_version(case: Mapping[str, Any]) -> tuple[str, str]:
    """The one Kafka version the oracle is run as for ``case``, and why (kept as ``kafka_reason``).

    Rules, first match wins:

    1. The era says ``0.10.2..2.2`` (pre-2.3 triggering-record timestamps): ``2.2``, the range's last version.
    2. A case from a release branch runs as that branch (``3.0``, ``0.10.2``, ``0.10.1``): its expected
       output is what that branch's test asserts.
    3. Trunk cases whose expected output shows the 3.7+ FK left-join duplicates (KAFKA-16394; every trunk FK
       left-join case here deletes or moves a left row): ``3.9``.
    4. Trunk cases whose era starts at KIP-923 (``3.6+``) or KIP-914 (``3.5+``): that first version, so the
       feature is checked where it appears.
    5. Any other trunk case: ``3.9`` (trunk of 2024-10 behaves like 3.9 on every golden trace).
    """
    era = case["era"]
    branch = case["source"].partition(":")[0]
    if "0.10.2..2.2" in era:
        return "2.2", "era 0.10.2..2.2 (triggering-record ts): its last version"
    if branch != "trunk":
        return branch, f"test taken from the {branch} branch"
    if case["join"] == "fk" and case["variant"] == "left":
        return "3.9", "trunk expected output carries the 3.7+ FK left-join duplicates (KAFKA-16394)"
    if era.startswith("3.6+"):
        return "3.6", "era starts at KIP-923 (3.6): checked where the feature appears"
    if era.startswith("3.5+"):
        return "3.5", "era starts at KIP-914 (3.5): checked where the feature appears"
    return "3.9", "trunk test: run as 3.9"


def is_legacy_window_api(api: str) -> bool:
    """``JoinWindows.of(d)`` (with or without the deprecated ``.grace``): eager left/outer results."""
    return "JoinWindows.of(" in api or api.startswith("of(")


def window_of(case: Mapping[str, Any]) -> dict[str, Any] | None:
    """Portable window: before/after/grace; legacy ``of()`` windows get ``legacy: true`` (spec SS-14, SS-15:
    eager left/outer results whatever the grace), with their grace when the test sets one (``.grace(g)``).

    The stream-table grace of KIP-923 (``versioned.stream_grace_ms``) becomes ``window.grace``.
    """
    raw = case.get("window")
    if raw is None:
        return None
    api = raw.get("api") or ""
    grace = raw.get("grace")
    window: dict[str, Any] = {"before": raw.get("before"), "after": raw.get("after"), "grace": grace}
    if is_legacy_window_api(api):
        window["legacy"] = True
    if case["join"] == "stream-table":
        window = {"grace": grace}
    if api:
        window["api"] = api
    return window


def duration_ms(text: str, where: str) -> int:
    """``persistentVersionedKeyValueStore(historyRetention=5min)`` or ``versioned(5min)`` -> 300000."""
    match = _DURATION.search(text)
    if match is None:
        raise TranscriptionError(f"{where}: no history retention in {text!r}")
    return int(match.group(1)) * _UNIT_MS[match.group(2)]


def versioned_of(case: Mapping[str, Any], where: str) -> dict[str, Any] | None:
    """``{"left": bool, "right": bool, "history_ms": n}`` from the test's store descriptions."""
    raw = case.get("versioned")
    if raw is None:
        return None
    sides = {side: raw.get(side) for side in ("left", "right")}
    versioned = {side: text is not None and text != "unversioned" for side, text in sides.items()}
    histories = {
        duration_ms(text, f"{where}.versioned.{side}") for side, text in sides.items() if versioned[side]
    }
    if len(histories) != 1:
        raise TranscriptionError(f"{where}.versioned: want one history, got {sorted(histories)}")
    return {"left": versioned["left"], "right": versioned["right"], "history_ms": histories.pop()}


def record_value(value: Any) -> str | None:
    """Input values are strings; the outer-join tests' ``Long`` right values become their decimal text, as
    the joiner prints them (``"null - 10"``)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise TranscriptionError(f"input value {value!r} is neither a string, an integer nor null")


def operand(text: str) -> str | None:
    """A joiner operand as printed by the test: ``null`` is a missing side."""
    return None if text == "null" else text


def output_value(value: Any, join: str, where: str) -> list[str | None] | None:
    """``"L - R"`` or the FK tests' ``"(l,r)"`` -> ``[l, r]``; ``null`` (tombstone) stays ``None``."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TranscriptionError(f"{where}.value: expected a string or null, got {value!r}")
    if join == "fk" and value.startswith("(") and value.endswith(")"):
        parts = value[1:-1].split(",")
    else:
        parts = value.split(" - ")
    if len(parts) != 2:
        raise TranscriptionError(f"{where}.value: cannot split {value!r} into left and right")
    return [operand(parts[0]), operand(parts[1])]


def outputs_of(items: list[Mapping[str, Any]], join: str, where: str) -> list[dict[str, Any]]:
    """Portable outputs ``{key, value, ts}`` in the transcription's (emission) order."""
    return [
        {"key": item["key"], "value": output_value(item["value"], join, f"{where}[{i}]"), "ts": item["ts"]}
        for i, item in enumerate(items)
    ]


def fk_extractor_of(case: Mapping[str, Any]) -> str | None:
    """``pipe-suffix`` for ``lhsValue1|rhs1`` left values, else ``colon-prefix`` (identity on ``"1"``)."""
    if case["join"] != "fk":
        return None
    left_values = [r["value"] for r in case["records"] if r["side"] == "left" and r["value"] is not None]
    if any("|" in value for value in left_values):
        return "pipe-suffix"
    return "colon-prefix"


def convert(case: Mapping[str, Any], index: int) -> dict[str, Any]:
    """One transcribed case -> one portable scenario with its provenance."""
    where = f"case {index} ({case.get('source')!r})"
    kafka, reason = kafka_version(case)
    scenario: dict[str, Any] = {
        "id": case_id(case["source"]),
        "kafka": kafka,
        "join": case["join"],
        "variant": case["variant"],
        "stores": "rocksdb",
    }
    window = window_of(case)
    if window is not None:
        scenario["window"] = window
    versioned = versioned_of(case, where)
    if versioned is not None:
        scenario["versioned"] = versioned
    extractor = fk_extractor_of(case)
    if extractor is not None:
        scenario["fk_extractor"] = extractor
    scenario["records"] = [
        {"side": r["side"], "key": r["key"], "value": record_value(r["value"]), "ts": r["ts"]}
        for r in case["records"]
    ]
    scenario["expected"] = outputs_of(case["expected"], case["join"], f"{where}.expected")
    scenario["source"] = case["source"]
    scenario["era"] = case["era"]
    scenario["kafka_reason"] = reason
    scenario["notes"] = case["notes"]
    scenario["checkpoints"] = case["checkpoints"]
    scenario["expected_steps"] = [item["step"] for item in case["expected"]]
    for name in ("ts_asserted", "compare", "source_kind"):
        if name in case:
            scenario[name] = case[name]
    if "docs_expected" in case:
        scenario["docs_expected"] = outputs_of(case["docs_expected"], case["join"], f"{where}.docs_expected")
    as_written = case.get("window")
    if as_written is not None and window is not None and window.get("grace") != as_written.get("grace"):
        scenario["window_as_written"] = as_written
    if case.get("versioned") is not None:
        scenario["versioned_as_written"] = case["versioned"]
    return scenario


def disambiguate(scenarios: list[dict[str, Any]]) -> None:
    """Two cases from one source (a documentation table's variants) get ``-<variant>`` appended."""
    counts: dict[str, int] = {}
    for scenario in scenarios:
        counts[scenario["id"]] = counts.get(scenario["id"], 0) + 1
    for scenario in scenarios:
        if counts[scenario["id"]] > 1:
            scenario["id"] = f"{scenario['id']}-{scenario['variant']}"
    ids = [scenario["id"] for scenario in scenarios]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise TranscriptionError(f"duplicate ids after disambiguation: {duplicates}")


def write_files(scenarios: list[dict[str, Any]], out: Path) -> dict[str, int]:
    """Write ``<join>.jsonl`` files (transcription order within each); returns lines per file."""
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, int] = {}
    for join in JOIN_FILES:
        lines = [json.dumps(s, separators=(",", ":")) for s in scenarios if s["join"] == join]
        (out / f"{join}.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        written[f"{join}.jsonl"] = len(lines)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="the kafka-tests.json transcription")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: %(default)s)")
    args = parser.parse_args(argv)
    cases = json.loads(args.path.read_text(encoding="utf-8"))
    unknown = sorted({c["join"] for c in cases} - set(JOIN_FILES))
    if unknown:
        raise TranscriptionError(f"{args.path}: unknown join kind(s) {unknown}")
    scenarios = [convert(case, index) for index, case in enumerate(cases)]
    disambiguate(scenarios)
    for name, count in write_files(scenarios, args.out).items():
        sys.stdout.write(f"{args.out / name}: {count} scenarios\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
