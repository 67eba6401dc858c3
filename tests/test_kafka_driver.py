"""The Kafka Streams driver on real released jars (built by Maven on first use, then cached): it answers the
per-release expectations of the KAFKA-16394 scenario exactly as the scenario states them, answers refused
input with error lines, and a machine without Maven gets a usage error that says so.

These tests need Java 17 and Maven and reach Maven Central on the first build of a release (CI has both).
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from kjoin.conformance.catalogue import load_cases
from kjoin.conformance.catalogue.portable import case_json, output_to_json
from kjoin.conformance.cli import main
from kjoin.conformance.kafka.driver import KafkaDriver
from kjoin.scenarios import CATALOGUE_ROOT
from support.tiers import default_tier_keeps

pytestmark = [pytest.mark.kafka, pytest.mark.xdist_group("kafka")]

SCENARIO = CATALOGUE_ROOT / "foreign_key" / "kafka-16394-left-delete.toml"
RELEASE_OF = {"3.5": "3.5.2", "3.9": "3.9.0", "3.9.1": "3.9.2", "4.0.0": "4.0.0", "4.3": "4.3.1"}
"""Each expectation's version as a release it describes (the oracle's ``3.9`` is 3.9.0; 3.9.2 shares 3.9.1's
fix)."""


@pytest.mark.parametrize("stated", default_tier_keeps(sorted(RELEASE_OF), keep={"4.3"}))
def test_real_kafka_answers_each_release_as_the_scenario_states(stated: str) -> None:
    [case] = [c for c in load_cases([SCENARIO], kafka=None).cases if c.kafka == stated]
    assert case.expected is not None
    release = RELEASE_OF[stated]
    line = dict(case_json(case), kafka=release)
    with KafkaDriver(release) as driver:
        [answer] = list(driver.answers([json.dumps(line)]))
    wanted = [dict(output_to_json(o)) for o in case.expected.outputs]
    for output in wanted:
        output.pop("cause", None)
    assert answer == {"id": case.scenario, "outputs": wanted}


@pytest.mark.system
def test_the_driver_answers_refused_input_with_error_lines_and_goes_on() -> None:
    good = {"id": "ok", "kafka": "4.3", "join": "table-table", "variant": "inner",
            "records": [{"side": "left", "key": "k", "value": "A", "ts": 1},
                        {"side": "right", "key": "k", "value": "a", "ts": 2}]}  # fmt: skip
    lines = [
        "{not json",
        json.dumps(dict(good, id="intended", intended=True)),
        json.dumps(dict(good, id="other-version", kafka="3.9")),
        json.dumps(good),
    ]
    with KafkaDriver("4.3.1") as driver:
        answers = list(driver.answers(lines))
    assert answers[0]["id"] is None and answers[0]["error"].startswith("line 1: not valid JSON")
    assert answers[1]["id"] == "intended" and "has no 'intended'" in answers[1]["error"]
    assert "runs Kafka Streams 4.3.1, not 3.9" in answers[2]["error"]
    assert answers[3] == {"id": "ok", "outputs": [{"key": "k", "value": ["A", "a"], "ts": 2}]}


def test_kjoin_kafka_without_maven_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    java = Path(os.environ.get("JAVA_HOME", "/nonexistent")) / "bin"
    monkeypatch.setenv("PATH", str(java) if java.is_dir() else str(tmp_path))
    monkeypatch.setenv("KJOIN_CACHE", str(tmp_path / "cache"))  # nothing built there yet
    err = io.StringIO()
    code = main(["kafka", "--version", "4.3"], stdin=io.StringIO("{}\n"), stdout=io.StringIO(), stderr=err)
    assert code == 2
    assert "is not on the PATH: the Kafka Streams driver needs it" in err.getvalue()


STATED_RELEASES = {"3.5": "3.5.2", "3.9": "3.9.0", "4.0.0": "4.0.0", "4.3": "4.3.1"}
"""The stated versions checked here: the releases this module builds anyway (``tools`` and nox check the
others, back to 2.4.1)."""


@pytest.mark.system
@pytest.mark.parametrize("stated", sorted(STATED_RELEASES))
def test_every_toml_expectation_of_a_release_is_what_real_kafka_emits(stated: str) -> None:
    """The seed tables and edge cases state outputs per Kafka version; for the versions that have a
    TopologyTestDriver, real Kafka Streams must emit exactly those (or the file must record an erratum, which
    states Kafka's outputs anyway)."""
    files = sorted(CATALOGUE_ROOT.rglob("*.toml"))
    cases = [
        case
        for case in load_cases(files).cases
        if case.kafka == stated
        and not case.intended
        and case.expected is not None
        # The test driver commits after every record: a cache that merges between commits is checked in
        # application mode instead (tests/test_kafka_application*.py, docs/kafka.md).
        and not case.spec.settings.merges_between_commits
    ]
    assert cases
    release = STATED_RELEASES[stated]
    lines = [json.dumps(dict(case_json(case), id=case.id, kafka=release)) for case in cases]
    with KafkaDriver(release) as driver:
        answers = list(driver.answers(lines))
    differ = []
    for case, answer in zip(cases, answers, strict=True):
        assert case.expected is not None
        stated_outputs = [
            {"key": o.key, "value": None if o.value is None else list(o.value), "ts": o.ts}
            for o in case.expected.outputs
        ]
        kafka = answer.get("outputs", answer.get("error"))
        if not case.expected.timestamps and isinstance(kafka, list):
            kafka = [dict(o, ts=None) for o in kafka]
            stated_outputs = [dict(o, ts=None) for o in stated_outputs]
        if kafka != stated_outputs:
            differ.append(
                f"{case.id} ({case.source}): Kafka {release} emits {kafka}, the file states {stated_outputs}"
            )
    assert differ == []


@pytest.mark.system
def test_the_driver_runs_a_self_join_and_refuses_a_bad_one() -> None:
    """Issue 25: ``self`` joins topic ``left`` with itself under the scenario's ``optimization``; a right
    record in a self-join, or ``self`` on a table join, is an error line (docs/semantics/self-join.md)."""
    one = {"id": "self", "kafka": "3.9", "join": "stream-stream", "variant": "left", "self": True,
           "optimization": "all", "window": {"before": 5, "after": 5, "grace": 0},
           "records": [{"side": "left", "key": "k", "value": "A", "ts": 1}]}  # fmt: skip
    right = dict(one, id="right", records=[{"side": "right", "key": "k", "value": "A", "ts": 1}])
    table = {key: value for key, value in one.items() if key not in ("window", "optimization")}
    lines = [json.dumps(one), json.dumps(dict(one, id="none", optimization="none")), json.dumps(right)]
    lines.append(json.dumps(dict(table, id="table", join="table-table")))
    with KafkaDriver("3.9.0") as driver:
        answers = list(driver.answers(lines))
    assert answers[0] == {"id": "self", "outputs": [{"key": "k", "value": ["A", "A"], "ts": 1}]}
    assert answers[1] == {"id": "none", "outputs": [{"key": "k", "value": ["A", "A"], "ts": 1}]}
    assert "records[0].side" in answers[2]["error"] and "self-join" in answers[2]["error"]
    assert ".self" in answers[3]["error"] and "stream-stream" in answers[3]["error"]


@pytest.mark.system
def test_the_driver_refuses_a_table_join_whose_cache_merges_between_commits() -> None:
    """TopologyTestDriver commits after every record whatever ``commit.interval.ms`` says, so a table join
    with a record cache under a commit interval (spec PR-8) is an error line naming the application mode,
    not an answer that looks like a commit after every record; a stream-table join, which a cache does not
    change (spec PR-5), still runs."""
    table = {"id": "tt", "kafka": "3.9", "join": "table-table", "variant": "inner",
             "settings": {"cache_max_bytes": 10485760, "commit_interval_ms": 30000},
             "records": [{"side": "left", "key": "k", "value": "A", "ts": 1},
                         {"side": "right", "key": "k", "value": "a", "ts": 2}]}  # fmt: skip
    stream = dict(table, id="st", join="stream-table", records=table["records"][::-1])
    with KafkaDriver("3.9.0") as driver:
        answers = list(driver.answers([json.dumps(table), json.dumps(stream)]))
    assert "commit_interval_ms = 30000" in answers[0]["error"] and "--application" in answers[0]["error"]
    assert answers[1] == {"id": "st", "outputs": [{"key": "k", "value": ["A", "a"], "ts": 1}]}
