"""The public Structured Streaming adapter (``kjoin.conformance.streaming``) on real local Spark: the docs'
example job runs as a candidate through the harness, ``kjoin run`` and the pytest plugin, agrees with
spark-native's own Structured Streaming join output for output, and a job whose output cannot be checked
is that candidate's error, named."""

from __future__ import annotations

import importlib
import io
import json
import shlex
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from kjoin.conformance.candidates.spark_native import GLOBAL_TABLE_DIFFERENCES, SparkNative
from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.checker import Emitted
from kjoin.conformance.cli import main
from kjoin.conformance.documents.outcomes import Answer, CaseOutcome
from kjoin.conformance.harness.batching import run_batch
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.harness.text import render_outcome
from kjoin.conformance.protocol import Claim, load_candidate
from kjoin.conformance.streaming import JobShape, StreamingCandidate, streaming_candidate
from support.harness_scenarios import write_scenarios

pytest_plugins = ["pytester"]
# streaming queries fed one step per micro-batch: the system tier (tests/conftest.py)
pytestmark = [pytest.mark.system, pytest.mark.xdist_group("spark-streaming")]

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"
SEED_TABLES = ROOT / "scenarios" / "stream_stream"
SCENARIOS = ROOT / "scenarios"
VARIANTS = frozenset({"inner", "left", "outer"})
CLAIM = Claim(joins=frozenset({"stream-stream"}), variants=VARIANTS, kafka=("3.9",))


@pytest.fixture(scope="module")
def example() -> Iterator[StreamingCandidate]:
    sys.path.insert(0, str(EXAMPLES))
    try:
        candidate = load_candidate("orders_payments:candidate")
        assert isinstance(candidate, StreamingCandidate)
        yield candidate
    finally:
        sys.path.remove(str(EXAMPLES))


@pytest.fixture(scope="module")
def scenario_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_scenarios(tmp_path_factory.mktemp("scenarios") / "small.jsonl")


@pytest.fixture(scope="module")
def cases(scenario_file: Path) -> tuple[Case, ...]:
    """The small harness scenarios and the seed tables' stream-stream blocks, as 3.9."""
    loaded = load_cases([scenario_file, SEED_TABLES / "docs-kip77.toml"], kafka="3.9")
    assert loaded.errors == ()
    stream_stream = tuple(case for case in loaded.cases if case.join == "stream-stream")
    assert len(stream_stream) >= 7
    return stream_stream


def _multisets(answers: dict[str, Answer | None]) -> dict[str, Counter[tuple[object, ...]]]:
    found = {}
    for case_id, answer in answers.items():
        assert isinstance(answer, Emitted), f"{case_id}: {answer}"
        found[case_id] = Counter((o.key, o.value, o.ts) for o in answer.outputs)
    return found


_CHECKED: dict[tuple[str, ...], dict[str, CaseOutcome]] = {}
"""The example's outcomes, computed once per session (xdist may interleave modules on one worker, which
would rebuild a module-scoped fixture)."""


@pytest.fixture
def example_outcomes(
    spark: SparkSession, example: StreamingCandidate, cases: tuple[Case, ...]
) -> dict[str, CaseOutcome]:
    key = tuple(case.id for case in cases)
    if key not in _CHECKED:
        outcomes = HarnessRun(example, lambda: spark).outcomes(cases)
        _CHECKED[key] = {outcome.case.id: outcome for outcome in outcomes}
    return _CHECKED[key]


def test_example_job_emits_what_spark_native_emits(
    spark: SparkSession, example_outcomes: dict[str, CaseOutcome], cases: tuple[Case, ...]
) -> None:
    ours = _multisets({case_id: outcome.answer for case_id, outcome in example_outcomes.items()})
    native = _multisets(dict(run_batch(spark, SparkNative(), cases)))
    assert ours == native
    assert sum(sum(outputs.values()) for outputs in ours.values()) > 20  # the comparison saw real joins


def test_example_job_passes_where_spark_and_kafka_agree_and_declares_the_rest(
    example_outcomes: dict[str, CaseOutcome],
) -> None:
    outcomes = {outcome.case.scenario: outcome for outcome in example_outcomes.values()}
    for scenario in ("small-ss-inner", "small-ss-inner-edge"):
        assert outcomes[scenario].status == "pass", render_outcome(outcomes[scenario])
    legacy = outcomes["small-ss-left-legacy"]
    assert legacy.status == "declared", render_outcome(legacy)
    assert legacy.declared is not None and "emitted at other times" in legacy.declared.reason
    assert {o.status for o in example_outcomes.values()} <= {"pass", "declared"}


def test_one_query_per_scenario_gives_the_same_outputs(
    spark: SparkSession,
    example: StreamingCandidate,
    cases: tuple[Case, ...],
    example_outcomes: dict[str, CaseOutcome],
) -> None:
    """Four scenarios, one query each, against the same scenarios in the example's one shared query."""
    isolated = streaming_candidate("isolated", example.job, CLAIM, isolation="scenario")
    few = cases[:4]
    one_each = run_batch(spark, isolated, few)
    shared = {case.id: example_outcomes[case.id].answer for case in few}
    assert _multisets(dict(one_each)) == _multisets(shared)


def _echo_with_idx(left: DataFrame, right: DataFrame, spec: JobShape) -> DataFrame:
    """Each left record at once as 'value - null', with the step that emitted it (a stateless job)."""
    none = F.lit(None).cast("string")
    return left.select("scenario_id", "key", F.col("value").alias("left"), none.alias("right"), "ts", "idx")


def test_idx_from_the_job_reaches_the_check_and_sentinels_never_do(
    spark: SparkSession, cases: tuple[Case, ...]
) -> None:
    echo = streaming_candidate("echo", _echo_with_idx, CLAIM)
    answers = run_batch(spark, echo, cases)
    for case in cases:
        answer = answers[case.id]
        assert isinstance(answer, Emitted) and answer.causes_known
        lefts = [(r.key, r.value, r.ts) for r in case.records if r.side == "left"]
        assert [(o.key, o.value[0], o.ts) for o in answer.outputs] == lefts
        assert all(o.cause is not None and o.cause < len(case.records) for o in answer.outputs)


def test_a_leftover_checkpoint_under_the_users_spark_setting_changes_nothing(
    spark: SparkSession, cases: tuple[Case, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``spark.sql.streaming.checkpointLocation`` set, a query without its own checkpoint resumes what
    an earlier process's query of the same name left there (query names restart with each process). Run
    through the harness's guarded calls: on a busy machine the feed's Python worker may need a retry."""
    import itertools

    from kjoin.conformance.harness.calls import Caller, SessionKeeper
    from kjoin.conformance.streaming import adapter

    echo = streaming_candidate("echo", _echo_with_idx, CLAIM)
    chosen = cases[:2]
    spark.conf.set("spark.sql.streaming.checkpointLocation", str(tmp_path / "users-checkpoints"))
    try:
        runs = []
        for _ in range(2):  # the second run meets the first one's folders, as a new process would
            monkeypatch.setattr(adapter, "_query_names", itertools.count())
            runs.append(Caller(echo, SessionKeeper(lambda: spark)).answers("stream-stream", chosen))
    finally:
        spark.conf.unset("spark.sql.streaming.checkpointLocation")
    assert runs[1] == runs[0]
    assert all(isinstance(answer, Emitted) and answer.outputs for answer in runs[1].values())


def _batch_output(left: DataFrame, right: DataFrame, spec: JobShape) -> DataFrame:
    return left.sparkSession.createDataFrame([], "scenario_id string")


def _no_ts(left: DataFrame, right: DataFrame, spec: JobShape) -> DataFrame:
    return left.select("scenario_id", "key", F.col("value").alias("left"), F.col("value").alias("right"))


@pytest.mark.parametrize(
    ("job", "message"),
    [
        (_batch_output, "the job returned a batch DataFrame"),
        (_no_ts, "the job's output lacks ts"),
    ],
)
def test_a_job_whose_output_cannot_be_checked_is_its_named_error(
    spark: SparkSession, cases: tuple[Case, ...], job: object, message: str
) -> None:
    broken = streaming_candidate("broken", job, CLAIM)  # type: ignore[arg-type]
    [outcome] = HarnessRun(broken, lambda: spark).outcomes(cases[:1])
    assert outcome.status == "error"
    assert outcome.verdict is not None
    [divergence] = outcome.verdict.divergences
    assert divergence.kind == "candidate-error" and message in divergence.detail


def test_kjoin_run_checks_the_example_and_writes_its_report(
    spark: SparkSession, scenario_file: Path, tmp_path: Path
) -> None:
    """``kjoin run`` in this process (``main``, as the console script calls it), on this worker's
    SparkSession: a separate process would only add a JVM start (``tests/test_faults_run.py`` runs
    ``kjoin run`` as a real process)."""
    report = tmp_path / "report"
    argv = ["run", "--candidate", "orders_payments:candidate", "--scenarios", str(scenario_file)]
    argv += ["--spark-master", "local[2]", "--report", str(report)]
    out, err = io.StringIO(), io.StringIO()
    sys.path.insert(0, str(EXAMPLES))
    importlib.invalidate_caches()
    try:
        code = main(argv, stdout=out, stderr=err)
    finally:
        sys.path.remove(str(EXAMPLES))
    assert code == 0, out.getvalue() + err.getvalue()
    document = json.loads((report / "results.json").read_text())
    assert document["candidate"]["name"] == "orders-payments"
    statuses = Counter(case["status"] for case in document["cases"])
    assert statuses["pass"] >= 2 and statuses["declared"] >= 1, statuses
    assert "orders-payments" in (report / "index.html").read_text()


def test_pytest_plugin_runs_the_example(pytester: pytest.Pytester, scenario_file: Path) -> None:
    sys.path.insert(0, str(EXAMPLES))
    importlib.invalidate_caches()
    try:
        run = pytester.runpytest_inprocess(
            "--candidate",
            "orders_payments:candidate",
            "--kjoin-scenarios",
            str(scenario_file),
            "--spark-master",
            "local[2]",
            "-p",
            "no:cacheprovider",
            "-rx",
        )
    finally:
        sys.path.remove(str(EXAMPLES))
    # its declared differences are not strict: cases that agree anyway read as xpassed, not as failures
    outcomes = run.parseoutcomes()
    assert outcomes.get("failed", 0) == 0, run.stdout.str()
    assert outcomes.get("passed", 0) + outcomes.get("xpassed", 0) >= 2, run.stdout.str()
    assert outcomes.get("xfailed", 0) >= 1, run.stdout.str()
    assert "candidate orders-payments:" in run.stdout.str()


STREAMING_DOCS = ROOT / "docs" / "streaming.md"
STATIC_SECTION = "## A stream-static join: the port of a GlobalKTable enrichment"


def _static_example() -> tuple[str, list[str]]:
    """The stream-static section of docs/streaming.md: its Python file and its command, as written."""
    section = STREAMING_DOCS.read_text(encoding="utf-8").split(STATIC_SECTION, 1)[1].split("\n## ", 1)[0]
    python = section.split("```python\n", 1)[1].split("```", 1)[0]
    [command] = section.split("```sh\n", 1)[1].split("```", 1)[0].strip().splitlines()
    return python, shlex.split(command)


def test_the_stream_static_example_of_the_docs_runs_as_written_from_its_own_folder(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/streaming.md's enrichment job, saved as enrichment.py in a folder of its own, and its command run
    there as written (in this process: ``main``, on this worker's SparkSession): exit 0, every claimed case
    passes or differs as declared, the strict declared differences all show, and the job emits what
    spark-native's stream-static join emits, case for case."""
    python, command = _static_example()
    assert command[:3] == ["kjoin", "run", "--candidate"]
    folder = tmp_path / "my-port"
    folder.mkdir()
    (folder / "enrichment.py").write_text(python, encoding="utf-8")
    monkeypatch.chdir(folder)
    out, err = io.StringIO(), io.StringIO()
    try:
        code = main(command[1:], stdout=out, stderr=err)
        example = load_candidate("enrichment:candidate")
    finally:
        sys.modules.pop("enrichment", None)
        if str(folder) in sys.path:
            sys.path.remove(str(folder))
    assert code == 0, out.getvalue()[-3000:] + err.getvalue()
    document = json.loads((folder / "enrichment-report" / "results.json").read_text())
    claimed = [case for case in document["cases"] if case["status"] != "not-claimed"]
    statuses = Counter(case["status"] for case in claimed)
    assert set(statuses) == {"pass", "declared"} and statuses["pass"] >= 10, statuses
    assert {case["join"] for case in claimed} == {"stream-globaltable"}
    strict = [d for d in GLOBAL_TABLE_DIFFERENCES if d.strict]
    shown = {case["declared"]["scenario"] for case in claimed if case["status"] == "declared"}
    assert shown == {d.scenario for d in strict}
    cases = [case for case in load_cases([SCENARIOS / "stream_globaltable"], kafka="3.9").cases]
    assert isinstance(example, StreamingCandidate) and example.static_right
    ours = _multisets(dict(run_batch(spark, example, cases)))
    native = _multisets(dict(run_batch(spark, SparkNative(), cases)))
    assert ours == native
    assert sum(sum(outputs.values()) for outputs in ours.values()) > 20


def test_spark_native_self_joins_agree_or_differ_as_declared(spark: SparkSession) -> None:
    """spark-native's self-join (one streaming DataFrame on both sides of its stream-stream join) over the
    catalogue's self-join scenarios as 3.9: each case passes or shows a self-join difference declared for
    it (none falls to the stream-stream catch-alls), and every strict one shows."""
    from kjoin.conformance.harness.claims import as_claimed, unclaimed_because

    native = SparkNative()
    files = sorted(SEED_TABLES.glob("self-join-*.toml"))
    loaded = as_claimed(native.claim, load_cases(files).cases).cases
    cases = [case for case in loaded if unclaimed_because(native.claim, case) is None]
    assert len(cases) >= 12 and all(case.spec.self_join for case in cases)
    outcomes = HarnessRun(native, lambda: spark).outcomes(cases)
    statuses = Counter(outcome.status for outcome in outcomes)
    assert set(statuses) == {"pass", "declared"} and statuses["pass"] >= 6, statuses
    declared = [outcome for outcome in outcomes if outcome.status == "declared"]
    assert all(o.declared is not None and o.declared.scenario != "*" for o in declared)
    strict = {
        (d.scenario, d.variants)
        for d in native.declared_differences
        if d.strict and "self-join" in d.scenario
    }
    shown = {(o.declared.scenario, o.declared.variants) for o in declared if o.declared is not None}
    assert strict <= shown
