"""A single-node Kafka broker (KRaft, broker and controller in one process) on loopback, for a ``with``
block: built from Maven Central on first use (``build_broker``), formatted into a temporary folder, started on
free ports, stopped and removed afterwards, on failure too.

``KafkaBroker.create_topics``, ``KafkaBroker.produce`` and ``KafkaBroker.producer`` run ``kjoin.broker.Tool``
against it: records keep the partition, timestamp and headers they are given (Spark's Kafka sink sets
neither the way a scenario needs). ``producer()`` keeps one tool process for a ``with`` block, to feed a
running job step by step. Application mode (``kafka.application``) and the end-to-end mode (``endtoend``)
both run on it. ``KafkaBroker.watched`` ends a block at once when the broker dies under it: Kafka's clients
would wait out their timeouts against it (a minute per record for a producer), minutes before failing.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from kjoin.conformance.harness.system_failures import SystemFailure, one_line
from kjoin.conformance.kafka.maven import (
    MavenError,
    build_lock,
    cache_root,
    check_jars,
    maven_package,
    output_tail,
    require_tool,
    sources_digest,
)
from kjoin.oracle.behaviour import release_of

__all__ = [
    "BROKER_SOURCES",
    "DEFAULT_BROKER",
    "START_TIMEOUT_S",
    "USER",
    "BrokerError",
    "KafkaBroker",
    "StepProducer",
    "build_broker",
    "cluster_id",
    "free_port",
]

BROKER_SOURCES = Path(__file__).resolve().parent.parent / "kafka_broker"
"""The Maven projects: ``pom.xml`` + ``src/`` (broker and tool), ``connector/pom.xml`` (Spark's connector)."""
DEFAULT_BROKER = "4.3.1"


class BrokerError(MavenError):
    """The loopback broker cannot be built, started or used; the message says what and why."""


USER = "the loopback Kafka broker"
"""Who needs Java and Maven, for the error when either is missing."""


def build_broker(version: str = DEFAULT_BROKER) -> Path:
    """The build folder of the broker of Kafka ``version`` (``kjoin-kafka-broker.jar`` and ``lib/``)."""
    release = release_of(version)
    sources = [BROKER_SOURCES / "pom.xml", *(BROKER_SOURCES / "src").rglob("*")]
    folder = cache_root() / "kafka-broker" / f"{release}-{sources_digest(sources)[:12]}"
    jar = folder / "kjoin-kafka-broker.jar"
    if jar.exists():
        return folder
    with build_lock(folder):
        if not jar.exists():
            done = maven_package(
                BROKER_SOURCES / "pom.xml", {"kafka.version": release, "kjoin.out": str(folder)}, user=USER
            )
            if done.returncode != 0 or not jar.exists():
                check_jars(done.stdout + done.stderr)
                raise BrokerError(
                    f"building the Kafka {release} broker failed (is {release} a release on Maven Central, "
                    f"and is Maven Central reachable?):\n{output_tail(done)}"
                )
    return folder


START_TIMEOUT_S = 120.0
"""How long the broker may take to accept connections (about 15 s on a busy 2-core machine)."""
TOOL_TIMEOUT_S = 300.0

_PROPERTIES = """\
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:{controller}
listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}
advertised.listeners=PLAINTEXT://127.0.0.1:{port}
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs={logs}
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
# scenario timestamps are near 1970: time-based retention would delete their segments at once
log.retention.ms=-1
log.retention.bytes=-1
# the streaming adapter's flush records are stamped far in the future (FLUSH_TS)
log.message.timestamp.after.max.ms=9223372036854775807
"""


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cluster_id() -> str:
    """A new KRaft cluster id as Kafka's ``StorageTool random-uuid`` prints one (``Uuid.randomUuid``): a
    random (version 4) UUID's 16 bytes in URL-safe base64 without padding, never starting with ``-``;
    made here, where asking the StorageTool costs a JVM start (3-4 s at load 10) for each broker."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode("ascii").rstrip("=")
        if not text.startswith("-"):
            return text


def _held_by(pid: int, port: int) -> bool | None:
    """Whether the TCP listener on ``port`` is a socket of process ``pid`` (Linux's ``/proc``); ``None``
    where that cannot be told."""
    try:
        inodes = set()
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            for line in Path(table).read_text(encoding="ascii").splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                    inodes.add(fields[9])
        sockets = set()
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                sockets.add(os.readlink(fd).removeprefix("socket:[").removesuffix("]"))
    except (OSError, IndexError, ValueError):
        return None
    return bool(inodes & sockets)


def _listening(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


class KafkaBroker:
    """One broker of Kafka ``version`` (default 4.3.1) for a ``with`` block; ``bootstrap`` is its address."""

    def __init__(self, version: str = DEFAULT_BROKER, *, start_timeout: float = START_TIMEOUT_S) -> None:
        self.release = release_of(version)
        self.start_timeout = start_timeout
        self.folder = build_broker(self.release)
        self.port = 0
        self.bootstrap = ""
        self._workdir: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._producers: set[StepProducer] = set()

    @property
    def classpath(self) -> str:
        return os.pathsep.join([str(self.folder / "kjoin-kafka-broker.jar"), str(self.folder / "lib" / "*")])

    def _java(self, *args: str, timeout: float = TOOL_TIMEOUT_S) -> str:
        java = require_tool("java", "install a Java 17 JDK, e.g. Debian's openjdk-17-jdk-headless", USER)
        done = subprocess.run(
            [java, "-cp", self.classpath, *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            raise BrokerError(f"{' '.join(args[:2])} failed with exit code {done.returncode}:\n{tail}")
        return done.stdout

    def __enter__(self) -> KafkaBroker:
        try:
            self._start()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _start(self) -> None:
        self._workdir = Path(tempfile.mkdtemp(prefix="kjoin-kafka-"))
        self.port, controller = free_port(), free_port()
        while controller == self.port:
            controller = free_port()
        self.bootstrap = f"127.0.0.1:{self.port}"
        properties = self._workdir / "server.properties"
        text = _PROPERTIES.format(port=self.port, controller=controller, logs=self._workdir / "data")
        properties.write_text(text, encoding="utf-8")
        self._java("kafka.tools.StorageTool", "format", "-t", cluster_id(), "-c", str(properties))
        java = require_tool("java", "install a Java 17 JDK", USER)
        self._log = (self._workdir / "broker.log").open("wb")
        self._process = subprocess.Popen(
            [java, "-Xmx512m", "-cp", self.classpath, "kafka.Kafka", str(properties)],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + self.start_timeout
        while not self._serving():
            if self._process.poll() is not None:
                raise SystemFailure(
                    f"the Kafka {self.release} broker exited with {self._process.returncode} while "
                    f"starting: {self._log_error()}"
                )
            if time.monotonic() > deadline:
                raise SystemFailure(
                    f"the Kafka {self.release} broker did not accept connections on {self.bootstrap} within "
                    f"{self.start_timeout:.0f} s: {self._log_error()}"
                )
            time.sleep(0.5)

    def _serving(self) -> bool:
        """Whether the broker accepts connections on its port; ``SystemFailure`` if another program does
        (the port was taken between choosing it and the broker binding it)."""
        if not _listening(self.port):
            return False
        assert self._process is not None
        held = _held_by(self._process.pid, self.port)
        if held is False:
            raise SystemFailure(
                f"port {self.port}, chosen for the Kafka {self.release} broker, was taken by another program"
            )
        return True

    def alive(self) -> bool:
        """Whether the broker process still runs."""
        return self._process is not None and self._process.poll() is None

    def check_alive(self) -> None:
        """``SystemFailure`` (not retried: a dead broker stays dead) if the broker process has stopped."""
        if self._process is not None and self._process.poll() is not None:
            raise SystemFailure(
                f"the Kafka {self.release} broker on {self.bootstrap} stopped (exit code "
                f"{self._process.returncode}) during the run",
                retry=False,
            )

    @contextlib.contextmanager
    def watched(self, on_death: Callable[[], None] = lambda: None, *, every: float = 0.5) -> Iterator[None]:
        """A ``with`` block during which a thread watches the broker process: if it stops, the thread kills
        the block's producers and calls ``on_death`` (to stop what else waits on the broker, e.g. streaming
        queries) at once, and the block ends with ``check_alive``'s one-line ``SystemFailure``, whatever
        the waiting clients raised."""
        done = threading.Event()

        def watch() -> None:
            while not done.wait(every):
                if not self.alive():
                    for producer in list(self._producers):
                        producer.kill()
                    on_death()
                    return

        watcher = threading.Thread(target=watch, name="kjoin-broker-watch", daemon=True)
        watcher.start()
        try:
            yield
        finally:
            done.set()
            watcher.join()
            self.check_alive()

    def _log_error(self) -> str:
        """The broker log's last error, in one line (its Java stack traces stay in the log)."""
        lines = self.log_tail(200).splitlines()
        errors = [line for line in lines if " ERROR " in line or "Exception" in line]
        return one_line((errors or lines or ["(no broker log)"])[-1])

    def log_tail(self, lines: int = 30) -> str:
        """The end of the broker's log (for error messages)."""
        if self._workdir is None or not (self._workdir / "broker.log").exists():
            return "(no broker log)"
        text = (self._workdir / "broker.log").read_text(encoding="utf-8", errors="replace")
        return "\n".join(text.strip().splitlines()[-lines:])

    def __exit__(self, *exc: object) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            _stop(process, process.terminate, timeout=30)
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    def create_topics(self, partitions: Mapping[str, int]) -> None:
        """Create topics with the given partition counts (replication factor 1)."""
        if partitions:
            topics = [f"{name}:{count}" for name, count in partitions.items()]
            self._java("kjoin.broker.Tool", "create", self.bootstrap, *topics)

    def produce(self, records: Iterable[Mapping[str, Any]]) -> int:
        """Produce ``{"topic", "partition", "ts", "key", "value"}`` records in the order given (each
        partition's offsets follow it); how many were acknowledged."""
        with self.producer() as producer:
            producer.send(records)
            return producer.flush()

    def producer(self) -> StepProducer:
        """A producer for a ``with`` block: ``send`` records, ``flush`` to have them acknowledged."""
        return StepProducer(self)


class StepProducer:
    """One ``kjoin.broker.Tool produce`` process kept open: ``send`` writes records to it, ``flush`` returns
    once the broker acknowledged everything sent so far (then a running query can read them)."""

    def __init__(self, broker: KafkaBroker) -> None:
        self.broker = broker
        self._process: subprocess.Popen[str] | None = None
        self._stderr: IO[str] | None = None

    def __enter__(self) -> StepProducer:
        java = require_tool("java", "install a Java 17 JDK", USER)
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8")
        self._process = subprocess.Popen(
            [java, "-cp", self.broker.classpath, "kjoin.broker.Tool", "produce", self.broker.bootstrap],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            encoding="utf-8",
        )
        self.broker._producers.add(self)
        return self

    def kill(self) -> None:
        """Kill the tool process (its broker died: it would wait out a timeout per record); the next
        ``send`` or ``flush`` fails with a ``BrokerError``."""
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()

    def send(self, records: Iterable[Mapping[str, Any]]) -> None:
        """Write ``{"topic", "partition", "ts", "key", "value"[, "headers"]}`` records, in order."""
        process = self._running()
        assert process.stdin is not None
        try:
            process.stdin.write("".join(json.dumps(dict(record)) + "\n" for record in records))
        except BrokenPipeError as error:
            raise self._failure("stopped while records were written") from error

    def flush(self) -> int:
        """Wait until every record sent so far is acknowledged; how many that is."""
        process = self._running()
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write('{"flush": true}\n')
            process.stdin.flush()
        except BrokenPipeError as error:
            raise self._failure("stopped before a flush") from error
        line = process.stdout.readline()
        if not line.startswith("produced "):
            raise self._failure(f"answered {line.strip()!r} to a flush")
        return int(line.split()[-1])

    def _running(self) -> subprocess.Popen[str]:
        if self._process is None:
            raise BrokerError("the producer is used outside its with block")
        return self._process

    def _failure(self, what: str) -> BrokerError:
        process = self._running()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
        errors = ""
        if self._stderr is not None:
            self._stderr.seek(0)
            errors = "\n".join(self._stderr.read().strip().splitlines()[-15:])
        return BrokerError(
            f"the producer {what} (exit code {process.poll()}):\n{errors}\n"
            f"broker log:\n{self.broker.log_tail(10)}"
        )

    def __exit__(self, *exc: object) -> None:
        self.broker._producers.discard(self)
        process, self._process = self._process, None
        if process is not None:
            if not self.broker.alive():
                process.kill()  # its pending records would each wait out a timeout against the dead broker
            _stop(process, lambda: _close_input(process), timeout=TOOL_TIMEOUT_S)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


def _close_input(process: subprocess.Popen[str]) -> None:
    """Close a process's standard input: the end of its work (a pipe it already left is closed too)."""
    if process.stdin is not None:
        with contextlib.suppress(BrokenPipeError):
            process.stdin.close()


def _stop(process: subprocess.Popen[Any], ask: Callable[[], None], *, timeout: float) -> None:
    """Ask ``process`` to end (``ask``), give it ``timeout`` seconds, then kill it."""
    ask()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
