"""The one SparkSession of a harness run: started lazily, quiet, workers bound to this interpreter.

Only a run that uses a candidate starts Spark; the oracle and its tests never do. The master is
``local[*]`` unless ``--spark-master`` or ``KJOIN_SPARK_MASTER`` says otherwise. Python workers run
``sys.executable`` (``PYSPARK_PYTHON`` and ``spark.pyspark.python``), so a candidate's code and the harness
always see the same packages. Spark's own log (errors only, from JVM start) goes to a file, ``spark_log()``,
and so does the JVM's standard error (its start-up banner included): Java stack traces never reach the
terminal or a test's captured output; messages that need them name the file.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from kjoin.conformance.harness.interrupts import signal_point, signals_held

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = [
    "DEFAULT_MASTER",
    "MASTER_ENV",
    "jobs_started",
    "keep_traceback",
    "resolve_master",
    "spark_log",
    "start_session",
]

DEFAULT_MASTER = "local[*]"
MASTER_ENV = "KJOIN_SPARK_MASTER"

_LOG4J2 = """\
rootLogger.level = warn
rootLogger.appenderRef.file.ref = file
appender.file.type = File
appender.file.name = file
appender.file.fileName = ${sys:kjoin.spark.log}
appender.file.append = true
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n
"""
"""Spark's log4j2 configuration: into ``spark_log()``, never on the terminal. The root at Spark's own default
level for a shell (warn), so that Spark does not announce on the terminal that it changes it ("Setting
default log level"); the session lowers it to errors once started."""


def spark_log() -> Path:
    """The file this process's Spark writes its log (Java stack traces included) to."""
    return Path(tempfile.gettempdir()) / f"kjoin-spark-{os.getpid()}.log"


def keep_traceback(text: str) -> Path:
    """Append a Python traceback (one that may carry a Java one) to ``spark_log()``; that file."""
    path = spark_log()
    with path.open("a", encoding="utf-8") as log:
        log.write(f"--- kjoin (Python) ---\n{text}\n")
    return path


def resolve_master(explicit: str | None = None) -> str:
    """The Spark master: the explicit one, else ``$KJOIN_SPARK_MASTER``, else ``local[*]``."""
    return explicit or os.environ.get(MASTER_ENV) or DEFAULT_MASTER


def _log_config() -> Path:
    """The log4j2 configuration file (written once per content, reused)."""
    digest = hashlib.sha256(_LOG4J2.encode()).hexdigest()[:12]
    path = Path(tempfile.gettempdir()) / f"kjoin-log4j2-{digest}.properties"
    if not path.exists():
        path.write_text(_LOG4J2, encoding="utf-8")
    return path


@contextlib.contextmanager
def _stderr_into(path: Path) -> Iterator[None]:
    """While Spark starts, the process's standard error (file descriptor 2) is ``path``: a JVM launched
    meanwhile inherits it, so its start-up lines ("Using incubator modules", ...) and anything it or its
    Python workers print later go to Spark's log, never to the terminal or into a test's captured output.
    This process's own standard error is back as it was afterwards."""
    sys.stderr.flush()
    saved = os.dup(2)
    target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.dup2(target, 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(target)


def start_session(
    master: str | None = None, *, app_name: str = "kjoin-conformance", conf: Mapping[str, str] | None = None
) -> SparkSession:
    """Get or create the SparkSession for a harness run (an already active session is reused as is);
    ``conf`` adds settings a new session starts with (e.g. ``spark.jars``)."""
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    resolved = resolve_master(master)
    builder = (
        SparkSession.builder.master(resolved)
        .appName(app_name)
        .config("spark.pyspark.python", sys.executable)
        .config("spark.pyspark.driver.python", sys.executable)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.ui.retainedJobs", "100000")
        .config("spark.sql.session.timeZone", "UTC")
        .config(
            "spark.driver.extraJavaOptions",
            f"-Dlog4j2.configurationFile=file:{_log_config()} -Dkjoin.spark.log={spark_log()}",
        )
        # sized for a busy 2-core machine: a Python worker may take long to connect back and authenticate
        .config("spark.python.authenticate.socketTimeout", "120s")
        .config("spark.network.timeout", "600s")
        # a crashed Python worker reports its Python traceback instead of only "worker exited"
        .config("spark.python.worker.faulthandler.enabled", "true")
        .config("spark.sql.execution.pyspark.udf.faulthandler.enabled", "true")
    )
    if resolved.startswith("local"):
        # The catalogue is small: a few shuffle partitions keep each Spark job short on a laptop.
        builder = builder.config("spark.sql.shuffle.partitions", "4")
    for name, value in (conf or {}).items():
        builder = builder.config(name, value)
    # Interrupted between launching the JVM and connecting to it, PySpark leaves an orphan JVM behind (its
    # gateway thread keeps it alive) holding this process's stdout and stderr: whoever waits for them waits
    # forever. So signals wait until the session is up; then they stop the run as usual.
    with signals_held(), _stderr_into(spark_log()):
        signal_point("spark-starting")
        spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def jobs_started(spark: SparkSession) -> int | None:
    """How many Spark jobs this application has started so far (diagnostics for tests and benchmarks),
    or ``None`` where the status store cannot be read (e.g. Spark Connect)."""
    try:
        jobs = spark.sparkContext._jsc.sc().statusStore().jobsList(None)  # a Scala Seq, by job id
        return 0 if jobs.isEmpty() else 1 + max(jobs.head().jobId(), jobs.last().jobId())
    except Exception:  # diagnostics only: any py4j failure means "not available"
        return None
