"""``kjoin.strategies`` as a public package (docs/strategies.md): the page's example runs, every public
strategy is on the page, and the strategies compose with each other and with Hypothesis's own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

import kjoin.strategies
from kjoin import JoinDriver, JoinSpec, Record, behaviour_for, run
from kjoin.strategies import histories, join_scenarios, join_specs, keys
from support.docs_examples import run_examples

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "strategies.md"
SAME_EXAMPLES = settings(
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
"""The same examples on every run, with no deadline or speed check (a shared machine is slow at times), as
``property_settings`` (conformance/differential/profiles.py)."""


def test_the_example_of_docs_strategies_md_runs() -> None:
    # The page's tests as a user runs them, but without Hypothesis' speed checks, which fail on a loaded
    # machine (a too_slow health check was seen under load).
    assert run_examples(PAGE, wrap=SAME_EXAMPLES) == [
        "test_a_left_lookup_emits_every_inner_result",
        "test_my_lookup_join_agrees_with_kafka",
    ]


def test_every_public_strategy_is_on_the_page() -> None:
    listed = set(re.findall(r"^\| `(\w+)\(", PAGE.read_text(encoding="utf-8"), flags=re.M))
    listed |= set(re.findall(r"`(\w+)\(", PAGE.read_text(encoding="utf-8")))
    public = {name for name in kjoin.strategies.__all__ if callable(getattr(kjoin.strategies, name))}
    assert public - listed == set()


def test_a_strategy_names_a_bad_argument_when_built() -> None:
    with pytest.raises(InvalidArgument, match=r"max_keys=0 must be a positive integer"):
        keys(max_keys=0)


KAFKA_3_9 = behaviour_for("3.9")


@SAME_EXAMPLES
@given(
    kafka=st.sampled_from(["2.8", "3.9"]),
    spec=join_specs("table-table"),
    history=histories(max_size=6, sides=["left", "right"]).filter(lambda records: len(records) > 0),
)
def test_strategies_compose_with_hypothesis(kafka: str, spec: JoinSpec, history: tuple[Record, ...]) -> None:
    driver = JoinDriver(spec, kafka=kafka)
    for record in history:
        driver.pipe(record.side, record.key, record.value, record.ts)
    assert driver.read_outputs() == run(spec, history, behaviour_for(kafka))


@SAME_EXAMPLES
@given(
    scenario=st.sampled_from(["stream-stream", "fk"]).flatmap(lambda join: join_scenarios(join, KAFKA_3_9))
)
def test_whole_scenarios_flatmap_from_a_join_kind(scenario: tuple[JoinSpec, tuple[Record, ...]]) -> None:
    spec, records = scenario
    assert spec.join in {"stream-stream", "fk"}
    driver = JoinDriver(spec, kafka="3.9")
    for record in records:
        driver.pipe(record.side, record.key, record.value, record.ts)
    assert driver.read_outputs() == run(spec, records, KAFKA_3_9)
