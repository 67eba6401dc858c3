"""Real Kafka Streams as a driver: portable scenarios in, what that release emits out.

The driver is the small JVM program in ``conformance/kafka_driver`` (a Maven project shipped with the
package): it pipes each portable scenario through ``TopologyTestDriver`` of one Kafka Streams release, with
the settings of the golden traces (the scenario's store kind, the ``(l, r)`` joiner, the FK extractors) and
the scenario's production settings (record cache, emit interval, commit interval, each off unless given)
and records' wall clock (``conformance/kafka_driver/README.md``). It is built on demand, once per
release, with Maven from Maven Central into a cache folder outside the repository (``$KJOIN_CACHE``, default
``~/.cache/kjoin``); the build is keyed by the release and a digest of the driver's sources, guarded by a
lock so that parallel processes build once. Nothing built is committed; Kafka's code comes only as jars.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from kjoin.conformance.codec import decode_answer
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
from kjoin.oracle.records import Output

__all__ = [
    "DRIVER_SOURCES",
    "MAIN",
    "DriverError",
    "DriverInfo",
    "KafkaDriver",
    "build_driver",
    "cache_root",
    "driver_info",
]

MAIN = ("kjoin.driver.Main",)
"""The driver's program: the test-driver loop (``conformance/kafka/application.py`` runs another one)."""
DRIVER_SOURCES = Path(__file__).resolve().parent.parent / "kafka_driver"
"""The Maven project of the driver (``pom.xml`` and ``src/``)."""
MEMORY_FOLDER = Path("/dev/shm")
"""An in-memory file system (Linux): where a driver's state stores go when it is there and writable."""


class DriverError(MavenError):
    """The driver cannot be built or run; the message says what is missing and how to get it."""


@dataclass(frozen=True, slots=True)
class DriverInfo:
    """Provenance of a driver build: the release, the checksum of the kafka-streams jar it resolved, and the
    digest of the driver's sources."""

    kafka: str
    kafka_streams_sha256: str
    driver_sources_sha256: str

    def to_json(self) -> dict[str, str]:
        return {
            "kafka": self.kafka,
            "kafka_streams_sha256": self.kafka_streams_sha256,
            "driver_sources_sha256": self.driver_sources_sha256,
            "driver": "kjoin kafka driver (TopologyTestDriver)",
        }


def _driver_digest() -> str:
    """The digest of the driver's Maven sources (the parent POM included): part of its build folder's name."""
    return sources_digest(DRIVER_SOURCES.rglob("*"))


def driver_folder(version: str) -> Path:
    """Where the driver for Kafka Streams ``version`` is (or will be) built."""
    return cache_root() / "kafka-driver" / f"{release_of(version)}-{_driver_digest()[:12]}"


def driver_built(version: str) -> bool:
    """Whether the driver for ``version`` is built already (else the next use runs Maven first)."""
    return (driver_folder(version) / "kjoin-kafka-driver.jar").exists()


def build_announcement(version: str) -> str:
    """What to tell before the driver's first build (Maven prints nothing while it downloads)."""
    return (
        f"building the Kafka Streams {release_of(version)} driver with Maven (first use: a minute or two, "
        "longer on a busy machine; later runs reuse it)"
    )


def build_driver(version: str, *, quiet: bool = True) -> Path:
    """The build folder of the driver for Kafka Streams ``version`` (built on first use, then reused).

    Raises ``DriverError`` (or ``MavenError`` for a missing tool) naming what is missing (Java 17, Maven,
    network to Maven Central, the release)."""
    release = release_of(version)
    require_tool("java", "install a Java 17 JDK, e.g. Debian's openjdk-17-jdk-headless")
    require_tool("mvn", "install Apache Maven, e.g. Debian's maven")
    digest = _driver_digest()
    folder = driver_folder(release)
    jar = folder / "kjoin-kafka-driver.jar"
    if jar.exists():
        return folder
    with build_lock(folder):
        if jar.exists():
            return folder
        properties = {"kafka.version": release, "kjoin.out": str(folder)}
        done = maven_package(
            DRIVER_SOURCES / "pom.xml", properties, user="the Kafka Streams driver", quiet=quiet
        )
        if done.returncode != 0 or not jar.exists():
            check_jars(done.stdout + done.stderr)
            raise DriverError(
                f"building the Kafka Streams {release} driver failed (is {release} a release on Maven "
                f"Central, and is Maven Central reachable?):\n{output_tail(done)}"
            )
        (folder / "sources.sha256").write_text(digest + "\n", encoding="utf-8")
    return folder


def scratch_parent() -> Path | None:
    """Where a driver JVM's scratch folder goes: ``MEMORY_FOLDER`` when it is a writable folder, else the
    system's temporary folder (``None``).

    Each scenario's state stores live there (a windowed RocksDB store opens a RocksDB instance per segment,
    each open and close synced to disk): on a disk shared with other work, syncs took two thirds of a
    stream-stream run's time. Where the stores live changes nothing Kafka Streams emits."""
    if MEMORY_FOLDER.is_dir() and os.access(MEMORY_FOLDER, os.W_OK | os.X_OK):
        return MEMORY_FOLDER
    return None


def driver_info(version: str) -> DriverInfo:
    """Provenance of the driver for ``version`` (builds it if needed)."""
    folder = build_driver(version)
    release = release_of(version)
    jars = sorted((folder / "lib").glob(f"kafka-streams-{release}.jar"))
    if not jars:
        raise DriverError(f"{folder}: the build has no kafka-streams-{release}.jar")
    digest = hashlib.sha256(jars[0].read_bytes()).hexdigest()
    return DriverInfo(release, digest, (folder / "sources.sha256").read_text(encoding="utf-8").strip())


class KafkaDriver:
    """One running driver JVM for one release: send portable lines, read one answer line each.

    Use as a context manager. ``answers(lines)`` streams: it writes from a thread while it reads, so any
    number of scenarios flows through without filling the pipes. With ``timing``, ``timing_report`` holds the
    driver's own measurement afterwards (time inside the TopologyTestDrivers, JVM start excluded). The JVM's
    temporary folder (its state directories, RocksDB's native library) is a scratch folder of its own
    (``scratch_parent``), removed when the context ends.
    """

    def __init__(self, version: str, *, timing: bool = False, program: Sequence[str] = MAIN) -> None:
        self.release = release_of(version)
        self.folder = build_driver(version)
        self.timing = timing
        self.program = tuple(program)
        self.timing_report: dict[str, Any] | None = None
        self._process: subprocess.Popen[str] | None = None
        self._scratch: Path | None = None

    def __enter__(self) -> KafkaDriver:
        classpath = os.pathsep.join(
            [str(self.folder / "kjoin-kafka-driver.jar"), str(self.folder / "lib" / "*")]
        )
        java = require_tool("java", "install a Java 17 JDK")
        self._scratch = Path(tempfile.mkdtemp(prefix="kjoin-driver-", dir=scratch_parent()))
        command = [java, f"-Djava.io.tmpdir={self._scratch}", "-cp", classpath, *self.program]
        if self.timing:
            command.append("--timing")
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        return self

    def __exit__(self, *exc: object) -> None:
        process = self._process
        if process is not None:
            if process.poll() is None:
                process.kill()
            process.wait()
            self._process = None
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def answers(self, lines: Iterable[str]) -> Iterator[dict[str, Any]]:
        """One answer per (non-blank) portable line, in order, as plain JSON data."""
        for text in self.answer_lines(lines):
            yield msgspec.json.decode(text)

    def outputs(self, lines: Iterable[str]) -> Iterator[tuple[str | None, tuple[Output, ...] | str]]:
        """One answer per (non-blank) portable line, in order: its id and Kafka's outputs (emitting inputs
        unknown), or Kafka's error."""
        for text in self.answer_lines(lines):
            yield decode_answer(text)

    def answer_lines(self, lines: Iterable[str]) -> Iterator[str]:
        """One answer line (JSON text) per (non-blank) portable line, in order; the driver stops when the
        input ends."""
        process = self._process
        if process is None or process.stdin is None or process.stdout is None or process.stderr is None:
            raise DriverError("the driver is not running (use KafkaDriver as a context manager)")
        stdin, stderr = process.stdin, process.stderr
        errors: list[str] = []

        def feed() -> None:
            try:
                for line in lines:
                    if line.strip():
                        stdin.write(line.rstrip("\n") + "\n")
            except BrokenPipeError:  # the driver died; its exit code and stderr say why
                pass
            finally:
                with contextlib.suppress(BrokenPipeError):
                    stdin.close()

        def drain() -> None:
            errors.extend(stderr)

        writer = threading.Thread(target=feed, daemon=True)
        reader = threading.Thread(target=drain, daemon=True)
        writer.start()
        reader.start()
        yield from process.stdout
        writer.join()
        process.wait()
        reader.join()
        for line in errors:
            if line.startswith("kjoin-timing "):
                self.timing_report = json.loads(line.removeprefix("kjoin-timing "))
        if process.returncode != 0:
            shown = "".join(line for line in errors if not line.startswith("kjoin-timing "))[-2000:]
            check_jars(shown)
            raise DriverError(
                f"the Kafka Streams {self.release} driver exited with {process.returncode}:\n{shown}"
            )
