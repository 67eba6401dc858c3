"""The end-to-end mode's Spark Kafka connector, resolved by Maven from Maven Central on first use and cached.

The broker of one Kafka release (``conformance/kafka_broker``) is built by ``kjoin.conformance.kafka.broker``
(application mode uses it too); the connector for the installed PySpark is resolved here, in a folder of its
own: its kafka-clients must not mix with the broker's. Builds are keyed by version and a digest of the
Maven sources, under ``$KJOIN_CACHE`` (default ``~/.cache/kjoin``) and a lock, like the Kafka Streams
driver's.
"""

from __future__ import annotations

import os
from pathlib import Path

from kjoin.conformance.kafka.broker import BROKER_SOURCES, BrokerError
from kjoin.conformance.kafka.maven import (
    build_lock,
    cache_root,
    check_jars,
    maven_package,
    output_tail,
    sources_digest,
)

__all__ = [
    "CONNECTOR_ENV",
    "CONNECTOR_JARS",
    "EndToEndError",
    "connector_jars",
    "connector_versions",
]

CONNECTOR_ENV = "KJOIN_SPARK_KAFKA"
"""Names the spark-sql-kafka-0-10 version to use instead of the one derived from PySpark's."""
CONNECTOR_JARS = ("spark-sql-kafka-0-10", "spark-token-provider-kafka-0-10", "kafka-clients", "commons-pool2")
"""The connector's jars that go to ``spark.jars`` (the rest of its dependencies ship with PySpark)."""


class EndToEndError(BrokerError):
    """The end-to-end mode cannot build, start or run something; the message says what and why."""


USER = "the end-to-end mode"
"""Who needs Java and Maven, for the error when either is missing."""


def connector_versions(pyspark: str) -> list[str]:
    """The connector versions to try for PySpark ``pyspark``: ``$KJOIN_SPARK_KAFKA`` if set, else its own
    release, then the first release of the minor line below, for a PySpark newer than the connectors on
    Maven Central (a Maven version range would pick a ``-preview`` build: Maven sorts those after the
    release)."""
    forced = os.environ.get(CONNECTOR_ENV)
    if forced:
        return [forced]
    parts = pyspark.split("+")[0].split("-")[0].split(".")
    major, minor = int(parts[0]), int(parts[1])
    wanted = [".".join(parts[:3])]
    if minor > 0:
        wanted.append(f"{major}.{minor - 1}.0")
    return wanted


def connector_jars(pyspark: str | None = None) -> tuple[str, list[Path]]:
    """The Spark Kafka connector version used for PySpark ``pyspark`` (default: the installed one) and the
    jars for ``spark.jars``."""
    if pyspark is None:
        import pyspark as installed

        pyspark = str(installed.__version__)
    pom = BROKER_SOURCES / "connector" / "pom.xml"
    tried = "-".join(connector_versions(pyspark))
    digest = sources_digest([pom])
    folder = cache_root() / "spark-kafka" / f"pyspark-{pyspark}-{tried}-{digest[:12]}"
    version_file = folder / "connector.version"
    if not version_file.exists():
        with build_lock(folder):
            if not version_file.exists():
                _resolve_connector(pom, folder, pyspark)
    version = version_file.read_text(encoding="utf-8").strip()
    jars = sorted(p for p in (folder / "lib").glob("*.jar") if p.name.startswith(CONNECTOR_JARS))
    return version, jars


def _resolve_connector(pom: Path, folder: Path, pyspark: str) -> None:
    failures = []
    for wanted in connector_versions(pyspark):
        done = maven_package(pom, {"spark.kafka.version": wanted, "kjoin.out": str(folder)}, user=USER)
        found = sorted((folder / "lib").glob("spark-sql-kafka-0-10_2.13-*.jar"))
        if done.returncode == 0 and found:
            version = found[0].name.removeprefix("spark-sql-kafka-0-10_2.13-").removesuffix(".jar")
            (folder / "connector.version").write_text(version + "\n", encoding="utf-8")
            return
        check_jars(done.stdout + done.stderr)
        failures.append(f"spark-sql-kafka-0-10_2.13 {wanted}:\n{output_tail(done)}")
    raise EndToEndError(
        f"no Spark Kafka connector for PySpark {pyspark} resolved from Maven Central:\n" + "\n".join(failures)
    )
