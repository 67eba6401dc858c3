"""Guarded candidate calls: a timeout, captured output, isolation of failing scenarios, a live SparkSession.

A candidate is code that may be broken. Each call:

* runs in a worker thread under its own Spark job group; after ``timeout`` seconds the job group is
  cancelled and every case of the call gets ``candidate-error: timeout`` (the run goes on; a call stuck in
  pure Python cannot be killed and is left behind, its answer ignored);
* has the candidate's prints (``sys.stdout``/``sys.stderr``) captured into its ``CallRecord``, never mixed
  into kjoin's own output;
* catches whatever the candidate raises, ``SystemExit`` included; when the whole call fails, the batch is
  bisected (halves re-run) until the failure is pinned on the scenarios that cause it, so one bad scenario
  does not fail its whole join kind;
* gets a live SparkSession: one the candidate stopped (``spark.stop()``) is replaced by a new one;
* is retried, never bisected, when it failed for a system cause (``harness.system_failures``: a Spark
  Python worker that could not connect back, a dead broker, ...); a system failure that persists stops
  the run with ``SystemFailure`` (exit 3, one line naming the cause and Spark's log);
* ends at once when the system a candidate stands on stops under it (``WatchesSystem``: a broker that
  died), its Spark jobs cancelled and the call left behind as after a timeout.
"""

from __future__ import annotations

import contextlib
import io
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from kjoin.conformance.catalogue import Case
from kjoin.conformance.catalogue.batches import call_shape
from kjoin.conformance.checker import CandidateFailure
from kjoin.conformance.documents.outcomes import Answer
from kjoin.conformance.harness.batching import CallFailed, run_batch
from kjoin.conformance.harness.run_ids import same_failure
from kjoin.conformance.harness.system_failures import (
    RETRY_DELAYS_S,
    SystemFailure,
    WatchesSystem,
    one_line,
    system_cause,
)
from kjoin.conformance.protocol import Candidate

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["CallProgress", "CallRecord", "CallStatus", "Caller", "SessionKeeper", "tasks_of"]

CallStatus = Literal["ok", "error", "timeout"]
ISOLATION_CALLS = 32
"""Calls one join kind may spend bisecting a failed call before its remaining cases all get the failure."""
CAPTURED_LIMIT = 64 * 1024
"""Characters of a call's captured stdout/stderr kept (each)."""


@dataclass(frozen=True, slots=True)
class CallProgress:
    """How a candidate call goes: its join kind and cases, Spark tasks done and known so far, seconds."""

    join: str
    cases: int
    tasks_done: int
    tasks_total: int
    seconds: float


def tasks_of(spark: SparkSession, group: str) -> tuple[int, int]:
    """Tasks completed and tasks known in the Spark jobs of job group ``group`` (0, 0 if unknown)."""
    try:
        tracker = spark.sparkContext.statusTracker()
        done = total = 0
        for job_id in tracker.getJobIdsForGroup(group):
            job = tracker.getJobInfo(job_id)
            for stage_id in job.stageIds if job is not None else ():
                stage = tracker.getStageInfo(stage_id)
                if stage is not None:
                    done, total = done + stage.numCompletedTasks, total + stage.numTasks
        return done, total
    except Exception:  # progress is diagnostics only: a py4j hiccup means "not known now"
        return 0, 0


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One candidate call: which join kind, how many cases, how it ended, what the candidate printed."""

    join: str
    cases: int
    status: CallStatus
    message: str = ""
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    jobs: int | None = None
    system: str | None = None
    """The system cause of a failed call (``harness.system_failures``), ``None`` if it is the candidate's."""
    shape: str | None = None
    """The store shape of a call holding one shape's cases only (``catalogue.batches``), ``None`` for the
    joint batch of its join kind; the results document's ``calls`` entry carries it as ``batch``."""

    def line(self) -> str:
        """The call in one line, as ``kjoin run`` and the pytest plugin print it: ``table-table
        (left-versioned batch): 1 case in one candidate call (3 Spark jobs, 4.2 s)``."""
        jobs = "?" if self.jobs is None else self.jobs
        batch = "" if self.shape is None else f" ({self.shape} batch)"
        cases = f"{self.cases} case{'' if self.cases == 1 else 's'}"
        ended = "" if self.status == "ok" else f": {self.status}"
        spent = f"({jobs} Spark jobs, {self.seconds:.1f} s)"
        return f"{self.join}{batch}: {cases} in one candidate call {spent}{ended}"

    def to_json(self) -> dict[str, Any]:
        """The results document's ``calls`` entry (no wall time: results stay reproducible)."""
        return {
            "join": self.join,
            "batch": self.shape,
            "cases": self.cases,
            "status": self.status,
            "message": self.message,
            "stdout": self.stdout,
            "stderr": self.stderr,
        }


@dataclass
class SessionKeeper:
    """The run's SparkSession: started on first use, started again if a candidate stopped it."""

    factory: Callable[[], SparkSession]
    restarts: int = 0
    _spark: SparkSession | None = None

    def get(self) -> SparkSession:
        if self._spark is not None and not _alive(self._spark):
            self._spark = None
            self.restarts += 1
        if self._spark is None:
            self._spark = self.factory()
        return self._spark


def _alive(spark: SparkSession) -> bool:
    try:
        context = spark.sparkContext
        return context._jsc is not None and not context._jsc.sc().isStopped()
    except Exception:  # a broken py4j gateway means: not alive
        return False


class _Capture(io.TextIOBase):
    """A write-only text stream that keeps what one thread writes (others pass through)."""

    def __init__(self, owner: threading.Thread, passthrough: Any) -> None:
        self.owner = owner
        self.passthrough = passthrough
        self.parts: list[str] = []
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if threading.current_thread() is not self.owner:
            return int(self.passthrough.write(text))
        if self.size < CAPTURED_LIMIT:
            self.parts.append(text[: CAPTURED_LIMIT - self.size])
            self.size += len(self.parts[-1])
        return len(text)

    def flush(self) -> None:
        if threading.current_thread() is not self.owner:
            self.passthrough.flush()

    def text(self) -> str:
        return "".join(self.parts)


@dataclass
class Caller:
    """Guarded, isolating candidate calls (see the module docstring)."""

    candidate: Candidate
    session: SessionKeeper
    timeout: float | None = None
    records: list[CallRecord] = field(default_factory=list)
    on_call: Callable[[dict[str, Any]], None] | None = None
    on_wait: Callable[[CallProgress], None] | None = None
    _calls: int = 0

    def answers(self, join: str, cases: Sequence[Case]) -> dict[str, Answer]:
        """The candidate's answer for every case of ``cases`` (one join kind), isolating failures."""
        found: dict[str, Answer] = {}
        if not cases:
            return found
        record, answers = self._call_retrying(join, list(cases))
        if answers is not None:
            return answers
        self._isolate(join, list(cases), record, found)
        return found

    def _isolate(self, join: str, cases: list[Case], failed: CallRecord, found: dict[str, Answer]) -> None:
        """Bisect a failed call: run the halves, keep the answers of halves that succeed, split halves that
        fail again. A failure both halves repeat word for word, but for run-specific tokens (a streaming
        query's ids and name, temporary folders, addresses, Spark's stage and task counters:
        ``harness.run_ids``), is the candidate's as a whole (not one scenario's): every case gets it. At most
        ``ISOLATION_CALLS`` calls per join kind."""
        pending = [(cases, failed)]
        calls = 0
        while pending:
            batch, record = pending.pop()
            if record.status != "error" or len(batch) == 1 or calls >= ISOLATION_CALLS:
                found.update(dict.fromkeys((case.id for case in batch), CandidateFailure(record.message)))
                continue
            middle = len(batch) // 2
            halves = [batch[:middle], batch[middle:]]
            results = []
            for half in halves:
                calls += 1
                results.append(self._call_retrying(join, half))
            failures = [result for result, answers in results if answers is None]
            if len(failures) == 2 and all(same_failure(f.message, record.message) for f in failures):
                found.update(dict.fromkeys((case.id for case in batch), CandidateFailure(record.message)))
                continue
            for half, (result, answers) in zip(halves, results, strict=True):
                if answers is not None:
                    found.update(answers)
                else:
                    pending.append((half, result))

    def _call_retrying(self, join: str, cases: list[Case]) -> tuple[CallRecord, dict[str, Answer] | None]:
        """A call, repeated after ``RETRY_DELAYS_S`` while it fails for a system cause; ``SystemFailure``
        if it still does (the candidate is not blamed, the batch not bisected)."""
        from kjoin.conformance.harness.spark_session import spark_log

        record, answers = self._call(join, cases)
        for delay in (*RETRY_DELAYS_S, None):
            cause = None if answers is not None else record.system
            if cause is None:
                return record, answers
            if delay is None:
                detail = one_line(record.message)
                shown = cause if detail == cause else f"{cause}: {detail}"
                raise SystemFailure(
                    f"{shown} (the {join} call failed {len(RETRY_DELAYS_S) + 1} times; Spark's log: "
                    f"{spark_log()})"
                )
            time.sleep(delay)
            record, answers = self._call(join, cases)
        return record, answers

    def _call(self, join: str, cases: list[Case]) -> tuple[CallRecord, dict[str, Answer] | None]:
        from kjoin.conformance.harness.spark_session import jobs_started

        spark = self.session.get()
        self._calls += 1
        group = f"kjoin-call-{self._calls}"
        outcome: dict[str, Any] = {}

        def work() -> None:
            try:
                spark.sparkContext.setJobGroup(
                    group,
                    f"kjoin: {self.candidate.name} on {len(cases)} {join} cases",
                    interruptOnCancel=True,
                )
                outcome["answers"] = run_batch(spark, self.candidate, cases)
            except CallFailed as failed:
                outcome["failure"] = failed.failure
            except SystemFailure as failed:  # the system, not the candidate (e.g. the broker died)
                outcome["failure"], outcome["system"] = CandidateFailure(str(failed)), failed
            except BaseException as error:  # KeyboardInterrupt or Stop raised inside the worker thread
                outcome["failure"] = CandidateFailure(
                    f"{type(error).__name__}: {error}", traceback.format_exc()
                )

        worker = threading.Thread(target=work, name=group, daemon=True)
        out, err = _Capture(worker, sys.stdout), _Capture(worker, sys.stderr)
        jobs_before, started = jobs_started(spark), time.perf_counter()
        halted: SystemFailure | None = None
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            worker.start()
            try:
                self._wait(worker, spark, group, join, len(cases), started)
            except SystemFailure as failed:  # the candidate's own system stopped: the call is left behind
                spark.sparkContext.cancelJobGroup(group)
                halted = failed
            except BaseException:  # Ctrl-C or SIGTERM while the candidate runs: cancel its Spark jobs first
                spark.sparkContext.cancelJobGroup(group)
                raise
        seconds = time.perf_counter() - started
        if halted is not None:
            message = str(halted)
            shape = call_shape(cases)
            record = CallRecord(
                join, len(cases), "error", message, out.text(), err.text(), seconds, None, message, shape
            )
            self._keep(record)
            if not halted.retry:
                raise halted
            return record, None
        if worker.is_alive():
            spark.sparkContext.cancelJobGroup(group)
            worker.join(10)
            message = (
                f"timeout: the candidate call did not finish within {self.timeout:g} s "
                "(its Spark jobs were cancelled)"
            )
            record = CallRecord(
                join, len(cases), "timeout", message, out.text(), err.text(), seconds, shape=call_shape(cases)
            )
            self._keep(record)
            return record, None
        jobs_after = jobs_started(spark) if _alive(spark) else None
        jobs = None if jobs_before is None or jobs_after is None else jobs_after - jobs_before
        failure: CandidateFailure | None = outcome.get("failure")
        if failure is None and "answers" not in outcome:
            failure = CandidateFailure("the call ended without answers or an error (its thread died)")
        if failure is not None:
            message = failure.message + (f"\n{failure.traceback}" if failure.traceback else "")
            raised: SystemFailure | None = outcome.get("system")
            system = str(raised) if raised is not None else system_cause(message)
            record = CallRecord(
                join,
                len(cases),
                "error",
                message.strip(),
                out.text(),
                err.text(),
                seconds,
                jobs,
                system,
                call_shape(cases),
            )
            self._keep(record)
            if raised is not None and not raised.retry:
                raise raised
            return record, None
        record = CallRecord(
            join, len(cases), "ok", "", out.text(), err.text(), seconds, jobs, shape=call_shape(cases)
        )
        self._keep(record)
        return record, outcome["answers"]

    def _wait(
        self, worker: threading.Thread, spark: SparkSession, group: str, join: str, cases: int, started: float
    ) -> None:
        """Wait for the call (at most ``timeout``), telling ``on_wait`` each second how its Spark tasks go;
        ``SystemFailure`` as soon as the candidate's own system stopped (``WatchesSystem``)."""
        deadline = None if self.timeout is None else started + self.timeout
        watched = self.candidate if isinstance(self.candidate, WatchesSystem) else None
        while worker.is_alive():
            now = time.perf_counter()
            if deadline is not None and now >= deadline:
                return
            worker.join(1.0 if deadline is None else min(1.0, deadline - now))
            if watched is not None and worker.is_alive():
                watched.check_system()
            if self.on_wait is not None and worker.is_alive():
                done, total = tasks_of(spark, group)
                self.on_wait(CallProgress(join, cases, done, total, time.perf_counter() - started))

    def _keep(self, record: CallRecord) -> None:
        self.records.append(record)
        if self.on_call is not None:
            self.on_call(record.to_json())
