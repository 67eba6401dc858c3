"""The oracle reproduces Kafka's own join tests (scenarios/kafka_tests, imported from their transcription).

Each scenario runs as the one Kafka version its ``kafka`` field names (see scenarios/kafka_tests/README.md
for how that version was chosen) and must give exactly the ``expected`` outputs: keys, values, timestamps
and emission order.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kjoin.oracle.portable import evaluate, parse_scenario
from kjoin.scenarios import CATALOGUE_ROOT

KAFKA_TESTS = CATALOGUE_ROOT / "kafka_tests"


def _scenarios() -> list[tuple[str, dict[str, Any]]]:
    cases = []
    for path in sorted(KAFKA_TESTS.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                cases.append((f"{path.name}:{number}", json.loads(line)))
    return cases


CASES = _scenarios()


def _show(outputs: list[dict[str, Any]]) -> str:
    return "\n".join(f"  {o['key']!r}: {o['value']!r} @{o['ts']}" for o in outputs) or "  (nothing)"


def test_kafka_tests_catalogue_has_every_transcribed_case_once() -> None:
    ids = [case["id"] for _, case in CASES]
    assert len(ids) == 62
    assert len(set(ids)) == len(ids)
    assert {path.name for path in KAFKA_TESTS.glob("*.jsonl")} == {
        "stream-stream.jsonl",
        "stream-table.jsonl",
        "table-table.jsonl",
        "fk.jsonl",
    }


@pytest.mark.parametrize(("where", "case"), CASES, ids=[f"{c['id']}@{c['kafka']}" for _, c in CASES])
def test_oracle_reproduces_kafka_test(where: str, case: dict[str, Any]) -> None:
    result = evaluate(parse_scenario(case, where))
    assert "error" not in result, f"{where} ({case['source']}): oracle error: {result.get('error')}"
    actual = result["outputs"]
    assert actual == case["expected"], (
        f"{where} ({case['source']}, era {case['era']!r}, run as {case['kafka']})\n"
        f"expected:\n{_show(case['expected'])}\nactual:\n{_show(actual)}"
    )
