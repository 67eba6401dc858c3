"""The oracle reproduces every seed table (scenarios/<join_kind>/*.toml) for every era and variant it states.

One item per scenario x expected block x variant, with ids like ``ss-kip77-left[left-0.10.1]`` (STYLE.md
rule 14). The expected outputs are what real Kafka emits (the errata say where the seed table differs);
a failure prints the rows as a table and one line per divergence.
"""

from __future__ import annotations

import pytest

from kjoin.conformance.scenario_files import (
    ExpectedBlock,
    Scenario,
    compare_block,
    load_catalogue,
    render_comparison,
)
from kjoin.oracle import behaviour_for, run
from kjoin.oracle.records import Variant
from kjoin.scenarios import CATALOGUE_ROOT

CATALOGUE = load_catalogue(CATALOGUE_ROOT)
CASES = [
    pytest.param(scenario, block, variant, id=f"{scenario.id}[{variant}-{block.label}]")
    for scenario in CATALOGUE.scenarios
    for block in scenario.expected
    for variant in block.variants
]


@pytest.mark.parametrize(("scenario", "block", "variant"), CASES)
def test_oracle_reproduces_seed_table(scenario: Scenario, block: ExpectedBlock, variant: Variant) -> None:
    behaviour = behaviour_for(block.kafka, intended=block.intended)
    outputs = run(scenario.spec(variant), scenario.records, behaviour)
    comparison = compare_block(block, variant, outputs)
    title = f"{scenario.path} [{scenario.id}] {variant} join as Kafka {block.label} ({block.describes})"
    assert comparison.ok, render_comparison(comparison, scenario.records, title)
