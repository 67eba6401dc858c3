"""Maven builds of the project's JVM helpers, from Maven Central, cached outside the repository.

The Kafka Streams driver (``conformance/kafka_driver``) and the end-to-end broker and Spark connector
(``conformance/kafka_broker``) are Maven projects with one parent (``conformance/maven_parent/pom.xml``),
built on first use into ``$KJOIN_CACHE`` (default ``~/.cache/kjoin``): a folder per version and digest of
the Maven sources (the parent POM included), built under a lock so that parallel processes build once.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from kjoin.errors import KjoinError

__all__ = [
    "BUILD_TIMEOUT_S",
    "CACHE_ENV",
    "MAVEN_ROOT",
    "PARENT_POM",
    "MavenError",
    "build_lock",
    "cache_root",
    "check_jars",
    "corrupt_jar",
    "maven_package",
    "output_tail",
    "require_tool",
    "sources_digest",
]

MAVEN_ROOT = Path(__file__).resolve().parent.parent
"""The folder holding the project's Maven projects (``conformance/``)."""
PARENT_POM = MAVEN_ROOT / "maven_parent" / "pom.xml"
"""The parent of every Maven project here: the Java release and the plugins, set once."""
CACHE_ENV = "KJOIN_CACHE"
BUILD_TIMEOUT_S = 1800
"""Maven's first build of a release downloads its jars: generous on a slow network and a busy machine."""


class MavenError(KjoinError, RuntimeError):
    """A JVM helper cannot be built or run; the message says what is missing and how to get it."""


def cache_root() -> Path:
    """Where builds live (``$KJOIN_CACHE``, default ``~/.cache/kjoin``)."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "kjoin")


def require_tool(name: str, hint: str, user: str = "the Kafka Streams driver") -> str:
    """The path of ``name`` on the PATH; ``MavenError`` saying who needs it and ``hint`` (how to install
    it) if missing."""
    found = shutil.which(name)
    if found is None:
        raise MavenError(f"{name} is not on the PATH: {user} needs it ({hint})")
    return found


def sources_digest(paths: Iterable[Path]) -> str:
    """The key of a build: SHA-256 over the parent POM and the files ``paths`` (names relative to
    ``MAVEN_ROOT``, and contents), in name order."""
    digest = hashlib.sha256()
    for path in sorted({PARENT_POM, *(path for path in paths if path.is_file())}):
        digest.update(path.relative_to(MAVEN_ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@contextmanager
def build_lock(folder: Path) -> Iterator[None]:
    """Hold the lock of build ``folder`` (a sibling lock file): one process builds, the others wait."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with (folder.parent / f".{folder.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def maven_package(
    pom: Path, properties: Mapping[str, str], *, user: str, quiet: bool = True
) -> subprocess.CompletedProcess[str]:
    """``mvn package`` of ``pom`` with ``-Dname=value`` per property, on the PATH's Java (output captured);
    ``user`` names what needs the build, for the error when Java or Maven is missing."""
    java = require_tool("java", "install a Java 17 JDK, e.g. Debian's openjdk-17-jdk-headless", user)
    mvn = require_tool("mvn", "install Apache Maven, e.g. Debian's maven", user)
    command = [mvn, "-B", "-q" if quiet else "-B", "-f", str(pom)]
    command += [f"-D{name}={value}" for name, value in properties.items()]
    env = dict(os.environ, JAVA_HOME=os.environ.get("JAVA_HOME") or str(Path(java).resolve().parents[1]))
    return subprocess.run(
        [*command, "package"], capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, env=env, check=False
    )


_CORRUPT = re.compile(
    r"zip END header not found|invalid LOC header|invalid CEN header|zip file is empty|"
    r"Invalid or corrupt jarfile|error in opening zip file|Unexpected end of ZLIB input stream|ZipException"
)
_JAR = re.compile(r"((?:/|\.{0,2}/)?[^\s;:'\"\[\]()]*\.jar)\b")


def corrupt_jar(output: str) -> str | None:
    """The jar that a JVM tool's ``output`` (Maven, javac, java) says is corrupt, as a one-line cause with
    what to do, or ``None``."""
    lines = output.splitlines()
    for number, line in enumerate(lines):
        reason = _CORRUPT.search(line)
        if reason is None:
            continue
        near = [line, *lines[max(0, number - 2) : number], *lines[number + 1 : number + 3]]
        jars = [match.group(1) for text in near for match in _JAR.finditer(text)]
        where = jars[0] if jars else "a jar"
        local = " in the local Maven repository" if "/.m2/" in where else ""
        fix = "delete it and run again (Maven downloads it again)"
        return f"{where}{local} is corrupt ({reason.group()}): {fix}"
    return None


def check_jars(output: str) -> None:
    """Raise ``SystemFailure`` naming a corrupt jar that ``output`` shows (exit 3: the machine's, not the
    user's input and not the release's)."""
    problem = corrupt_jar(output)
    if problem is not None:
        from kjoin.conformance.harness.system_failures import SystemFailure

        raise SystemFailure(problem)


def output_tail(done: subprocess.CompletedProcess[str], lines: int = 15) -> str:
    """The last ``lines`` lines of a finished command's output, for an error message."""
    return "\n".join((done.stdout + done.stderr).strip().splitlines()[-lines:])
