"""The version registry of ``oracle.behaviour`` (docs/semantics/eras.md, "Known releases"): which releases
the oracle knows, the era of each, one release per era, each line's newest patch, the newest checked release,
and the one rule for a release after it (refused), applied by every part that takes a version."""

from __future__ import annotations

import ast
import io
import json
import re
from pathlib import Path

import pytest

from kjoin.conformance.cli import main
from kjoin.conformance.protocol import CandidateLoadError, Claim, validate_candidate
from kjoin.oracle.behaviour import (
    ERAS,
    NEWEST_CHECKED,
    NEWEST_PATCHES,
    UnknownVersionError,
    behaviour_for,
    era_of,
    known_version,
    one_release_per_era,
    parse_version,
    release_of,
    version_problem,
)
from support.fixture_candidates import OracleOnDriver

ROOT = Path(__file__).resolve().parents[1]
NEWER = ("4.4.1", "4.5", "5.0", "99.0")
"""Releases after the newest checked one (4.4.0)."""


def _kjoin(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_every_era_has_exactly_one_representative_release() -> None:
    releases = one_release_per_era()
    eras = [ERAS[first].era for first in sorted(ERAS)]
    assert [era_of(release) for release in releases] == eras
    assert len(set(releases)) == len(releases) == len(ERAS)
    assert one_release_per_era(since="3.1") == releases[eras.index("3.1") :]
    assert one_release_per_era(since="3.3") == releases[eras.index("3.1") :]  # 3.3 lies in the 3.1 era


def test_every_newest_patch_is_a_release_of_its_line_with_an_era() -> None:
    for line, release in NEWEST_PATCHES.items():
        assert release.startswith(line + "."), (line, release)
        assert len(parse_version(release)) == 3
        assert era_of(line) is not None and era_of(release) is not None, line
        assert release_of(line) == release and release_of(release) == release
    lines = sorted(NEWEST_PATCHES, key=parse_version)
    assert list(NEWEST_PATCHES) == lines, "lines listed oldest first"


def test_the_newest_checked_release_is_the_newest_patch_of_the_newest_line() -> None:
    assert NEWEST_CHECKED == max(NEWEST_PATCHES.values(), key=parse_version) == "4.4.0"
    assert version_problem(NEWEST_CHECKED) is None
    assert era_of(NEWEST_CHECKED) == one_release_per_era()[-1]


@pytest.mark.parametrize("version", NEWER)
def test_a_release_after_the_newest_checked_one_is_refused_one_way(version: str) -> None:
    problem = version_problem(version)
    assert problem is not None and "newer than the era table knows" in problem
    assert f"(the newest release checked against real Kafka Streams is {NEWEST_CHECKED};" in problem
    with pytest.raises(UnknownVersionError, match="newer than the era table knows"):
        behaviour_for(version)
    with pytest.raises(UnknownVersionError):
        known_version(version)
    assert era_of(version) is None


def test_a_patch_after_its_lines_newest_checked_patch_is_refused() -> None:
    problem = version_problem("3.9.3")
    assert (
        problem is not None
        and "(the newest 3.9 release checked against real Kafka Streams is 3.9.2;" in problem
    )
    assert version_problem("3.9.2") is None and version_problem("3.9") is None
    assert era_of("3.9") == "3.8" and era_of("3.9.2") == "3.9.1"  # 3.9 is 3.9.0


@pytest.mark.parametrize(
    ("version", "problem"),
    [
        (" 3.9", "is not a Kafka version (write it like '3.9' or '0.10.1')"),
        ("3.9.x", "is not a Kafka version (write it like '3.9' or '0.10.1')"),
        (3.9, "is not a Kafka version (write it like '3.9' or '0.10.1')"),
        ("0.9", "Kafka Streams has no joins before 0.10.0"),
    ],
)
def test_version_problem_names_what_is_wrong(version: object, problem: str) -> None:
    assert problem in str(version_problem(version))


def _refusal(version: str) -> str:
    problem = version_problem(version)
    assert problem is not None
    return problem


@pytest.mark.parametrize("version", ["4.5", "3.9.3"])
def test_every_command_refuses_an_unchecked_release_with_the_registry_sentence(version: str) -> None:
    sentence = _refusal(version)
    line = json.dumps({"id": "x", "kafka": version, "join": "table-table", "variant": "inner", "records": []})
    code, out, _ = _kjoin("oracle", "--jsonl", stdin=line + "\n")
    assert sentence in json.loads(out)["error"]
    for argv in (
        ("verify", "--kafka", version),
        ("kafka", "--version", version),
        ("fuzz", "--candidate", "spark-reference", "--kafka", version),
        ("run", "--candidate", "spark-reference", "--kafka", version),
        ("diff-versions", "3.9", version),
    ):
        code, out, err = _kjoin(*argv)
        assert code == 2, (argv, code, err)
        assert sentence in err, (argv, err)
        assert "Traceback" not in err


def test_a_claim_of_an_unchecked_release_is_refused_when_the_candidate_loads() -> None:
    claim = Claim(joins=frozenset({"fk"}), variants=frozenset({"inner"}), kafka=("3.9", "4.5"))
    candidate = OracleOnDriver(claim=claim)
    with pytest.raises(
        CandidateLoadError, match=re.escape("claim.kafka: '4.5' is not a Kafka version the oracle knows")
    ):
        validate_candidate("claiming", candidate)


def test_no_module_catches_unknown_versions_on_its_own() -> None:
    """Callers ask the registry (``version_problem``, ``era_of``) instead of catching ``UnknownVersionError``
    for a fallback of their own; catching it beside ``OracleError`` (the oracle cannot run a case) stays."""
    alone = []
    for folder in ("conformance", "reports", "tools", "benchmarks"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                caught = node.type if isinstance(node, ast.ExceptHandler) else None
                if isinstance(caught, ast.Name) and caught.id == "UnknownVersionError":
                    alone.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert alone == []


def test_the_bundled_candidates_claim_the_registrys_eras() -> None:
    from kjoin.conformance.candidates import spark_reference, spark_stateful
    from kjoin.conformance.kafka.verify import EVERYTHING

    assert spark_reference.CLAIM.kafka == one_release_per_era()[1:]  # 0.10.0 fails on null keys
    assert spark_stateful.CLAIM.kafka[0] == "3.1"
    assert spark_stateful.CLAIM.kafka == one_release_per_era()[one_release_per_era().index("3.1") :]
    assert EVERYTHING.kafka == one_release_per_era()
