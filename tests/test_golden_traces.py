"""The oracle reproduces every trace captured from real Kafka Streams (scenarios/golden).

Every line must match exactly, including the 3.7/3.9 foreign-key left joins marked ``known_bug:
KAFKA-16394``: the oracle is bug-compatible by default (``fk_left_join_repeats_results``), so it emits the
extra ``[left, null]`` and the second tombstone as real Kafka does. Those marked lines are the only ones
where the documented semantics differ from the trace; ``test_foreign_key.py`` checks that with
``intended=True`` they give exactly the 3.5 trace of the same id.
"""

from __future__ import annotations

import json

import pytest

from kjoin.oracle import behaviour_for, run
from kjoin.oracle.portable import output_to_json, parse_scenario
from kjoin.scenarios import CATALOGUE_ROOT

GOLDEN = CATALOGUE_ROOT / "golden"


def _lines() -> list[tuple[str, dict]]:
    cases = []
    for path in sorted(GOLDEN.glob("*.jsonl")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if line.strip():
                cases.append((f"{path.name}:{number}", json.loads(line)))
    return cases


CASES = _lines()


@pytest.mark.parametrize(("where", "trace"), CASES, ids=[f"{t['id']}@{t['kafka']}" for _, t in CASES])
def test_oracle_reproduces_golden_trace(where: str, trace: dict) -> None:
    """Outputs, timestamps and emission order equal the trace's ``expected``."""
    scenario = parse_scenario(trace, where)
    outputs = run(scenario.spec, scenario.records, behaviour_for(scenario.kafka))
    assert [output_to_json(o) for o in outputs] == trace["expected"], where
