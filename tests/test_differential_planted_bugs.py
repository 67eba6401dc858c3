"""Generative differential testing on Spark finds every planted bug (conformance/tests/planted_bugs.py),
shrinks it to at most six input records, and the saved regression file reproduces it; ``kjoin fuzz`` does
the same from the command line.

Each bug costs a few Spark jobs: one candidate call per claimed join kind to find failures, one per shrink
round, one to replay the saved file (about 15 CPU-s a bug), so the fuzzing of each planted bug is a system
test; the default tier keeps ``kjoin fuzz`` finding, shrinking and saving one (one join kind). The profile
and seed are printed in the report header (``--kjoin-profile``, ``--kjoin-seed``).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from kjoin.conformance.catalogue import load_cases
from kjoin.conformance.catalogue.portable import output_to_json
from kjoin.conformance.cli import main
from kjoin.conformance.differential.fuzz import FuzzReport, fuzz
from kjoin.conformance.differential.profiles import FuzzProfile
from kjoin.conformance.differential.regressions import read_regressions, write_regression
from kjoin.conformance.documents.outcomes import kafka_outputs
from kjoin.conformance.harness.outcomes import HarnessRun
from support.planted_bugs import PLANTED
from support.tiers import spark_group

pytestmark = spark_group("spark-fuzz")  # planted-bug fuzzing, beside the other Spark groups

MAX_RECORDS = 6


class _Reports:
    """One fuzzing run per planted bug, made when a test first asks for it."""

    def __init__(self, spark: SparkSession, profile: FuzzProfile, seed: int) -> None:
        self.spark, self.profile, self.seed = spark, profile, seed
        self._done: dict[str, FuzzReport] = {}

    def __getitem__(self, bug: str) -> FuzzReport:
        if bug not in self._done:
            self._done[bug] = fuzz(
                PLANTED[bug], lambda: self.spark, profile=self.profile, seed=self.seed, shrink_failures=1
            )
        return self._done[bug]


@pytest.fixture(scope="module")
def reports(spark: SparkSession, fuzz_profile: FuzzProfile, fuzz_seed: int) -> _Reports:
    return _Reports(spark, fuzz_profile, fuzz_seed)


@pytest.mark.system
@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_fuzz_finds_planted_bug_and_shrinks_it_to_at_most_six_records(bug: str, reports: _Reports) -> None:
    report = reports[bug]
    assert report.failures, f"{bug}: no failing scenario among {len(report.outcomes)} (seed {report.seed})"
    [counterexample] = report.counterexamples
    minimal = counterexample.minimal
    assert minimal.status == "fail" and minimal.verdict is not None and minimal.verdict.divergences
    assert len(minimal.case.records) <= MAX_RECORDS, minimal.case.records
    joins = len(PLANTED[bug].claim.joins)
    assert report.candidate_calls <= joins * (2 + report.profile.shrink_rounds)


@pytest.mark.system
@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_saved_regression_reproduces_planted_bug(
    bug: str, reports: _Reports, spark: SparkSession, tmp_path: Path
) -> None:
    [counterexample] = reports[bug].counterexamples
    path = write_regression(tmp_path / "regressions", counterexample, candidate=bug)
    [regression] = read_regressions(path)
    assert regression.candidate == bug and regression.seed == reports[bug].seed
    expected = kafka_outputs(regression.case)
    assert not isinstance(expected, str)
    assert [output_to_json(output) for output in expected.outputs] == regression.expected
    loaded = load_cases([path])
    assert loaded.errors == () and len(loaded.cases) == 1
    [outcome] = HarnessRun(PLANTED[bug], lambda: spark).outcomes(loaded.cases)
    assert outcome.status == "fail", outcome
    assert outcome.verdict is not None and outcome.verdict.first is not None
    assert outcome.verdict.first.kind == regression.case.extra["divergence"]["kind"]


def test_kjoin_fuzz_reports_and_saves_a_planted_bug(spark: SparkSession, tmp_path: Path) -> None:
    out = io.StringIO()
    argv = [
        "fuzz",
        "--candidate",
        "support.planted_bugs:null_keys_dropped",
        "--join",
        "stream-table",
        "--examples",
        "100",
        "--seed",
        "20240601",
        "--shrink",
        "1",
        "--save",
        str(tmp_path),
        "--found",
        "2024-06-01",
        "--spark-master",
        "local[2]",
    ]
    assert main(argv, stdout=out, stderr=io.StringIO()) == 1
    text = out.getvalue()
    assert "fuzzing null-keys-dropped as Kafka 3.9: profile ci, seed 20240601" in text
    assert "counterexample 1 of 1:" in text and "missing-output" in text
    assert "reproduce: kjoin fuzz --candidate support.planted_bugs:null_keys_dropped" in text
    [saved] = sorted(tmp_path.glob("regression-null-keys-dropped-st-*.jsonl"))
    assert f"saved {saved}" in text and '"found":"2024-06-01"' in saved.read_text()


@pytest.mark.system
def test_kjoin_fuzz_finds_a_bug_between_micro_batches_and_shows_the_boundary(spark: SparkSession) -> None:
    """A copy of spark-stateful that loses its clock between micro-batches (support.micro_batch_bugs),
    fuzzed under two splits: found, shrunk to at most ten records, the split and its boundary shown."""
    out = io.StringIO()
    argv = [
        "fuzz",
        "--candidate",
        "support.micro_batch_bugs:clock_lost",
        "--examples",
        "40",
        "--steps-per-batch",
        "8,random:3",
        "--spark-master",
        "local[2]",
    ]
    assert main(argv, stdout=out, stderr=io.StringIO()) == 1
    text = out.getvalue()
    assert "counterexample 1 of 1:" in text and "--steps-per-batch 8,random:3" in text
    header = next(line for line in text.splitlines() if line.startswith("counterexample 1 of 1:"))
    shrunk_to = header.split(" to ", 1)[1]
    records = int(shrunk_to.split(" records", 1)[0])
    assert records <= 10 and "1 micro-batch boundary" in shrunk_to, header
    assert "fed in 2 micro-batches" in text and "boundaries before #" in text
