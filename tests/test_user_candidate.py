"""A candidate from the user's own project folder: ``--candidate mypackage.joins:candidate`` run from the
folder that holds ``mypackage`` imports it as ``python -m`` would (the current folder first), and an import
that fails says what to do (README, docs/candidates.md).

The user's candidate claims only table-table joins and the scenarios are stream-stream ones, so every case is
"not claimed" and no Spark starts: these tests check the loading, quickly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kjoin.conformance.catalogue import load_cases
from kjoin.conformance.protocol import CandidateLoadError, load_candidate
from kjoin.scenarios import CATALOGUE_ROOT

SCENARIOS = CATALOGUE_ROOT / "stream_stream" / "kip77-current.toml"

JOINS = """
from kjoin.conformance.catalogue import load_cases
from kjoin.conformance.protocol import Claim


class MyJoins:
    name = "my-joins"
    claim = Claim(joins=frozenset({"table-table"}), variants=frozenset({"inner"}), kafka=("3.9",))
    declared_differences = ()

    def run(self, spark, inputs, specs):
        raise AssertionError("not claimed: never called")


candidate = MyJoins()


def factory_that_fails():
    raise RuntimeError("no credentials for the staging cluster")
"""

BROKEN = """
import json

SETTINGS = json.loads("{not json")
"""

NEEDS_A_MISSING_LIBRARY = "import no_such_library_for_kjoin\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A user's project folder holding ``mypackage`` (not installed), as the current folder; ``sys.path``,
    ``PYTHONPATH`` and the imported modules are restored afterwards."""
    package = tmp_path / "project" / "mypackage"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "joins.py").write_text(JOINS, encoding="utf-8")
    (package / "broken.py").write_text(BROKEN, encoding="utf-8")
    (package / "needs_library.py").write_text(NEEDS_A_MISSING_LIBRARY, encoding="utf-8")
    # the scenarios inside the project: a path outside it on pytest's command line would move its rootdir
    (package.parent / SCENARIOS.name).write_text(SCENARIOS.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.chdir(package.parent)
    monkeypatch.setattr(sys, "path", [entry for entry in sys.path if entry not in ("", os.getcwd())])
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
    yield package.parent
    for name in [name for name in sys.modules if name == "mypackage" or name.startswith("mypackage.")]:
        del sys.modules[name]


def test_a_candidate_in_the_current_folder_loads_and_its_folder_reaches_spark_workers(project: Path) -> None:
    candidate = load_candidate("mypackage.joins:candidate")
    assert candidate.name == "my-joins"
    assert sys.path[0] == str(project)
    assert os.environ["PYTHONPATH"].split(os.pathsep)[0] == str(project)


def test_a_missing_module_names_itself_the_folder_searched_and_pythonpath(project: Path) -> None:
    with pytest.raises(CandidateLoadError) as caught:
        load_candidate("otherpackage.joins:candidate")
    message = str(caught.value)
    assert "no module named 'otherpackage'" in message
    assert f"in the current folder ({project})" in message
    assert "run from the folder that holds otherpackage" in message and "PYTHONPATH" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("name", "what", "raised"),
    [
        ("mypackage.broken:candidate", "importing module 'mypackage.broken'", "JSONDecodeError: Expecting"),
        (
            "mypackage.needs_library:candidate",
            "importing module 'mypackage.needs_library'",
            "ModuleNotFoundError: No module named 'no_such_library_for_kjoin'",
        ),
        (
            "mypackage.joins:factory_that_fails",
            "its factory",
            "RuntimeError: no credentials for the staging cluster",
        ),
    ],
)
def test_a_module_that_raises_is_named_in_one_line_with_its_traceback_in_a_log(
    project: Path, name: str, what: str, raised: str
) -> None:
    with pytest.raises(CandidateLoadError) as caught:
        load_candidate(name)
    message = str(caught.value)
    assert message.startswith(f"candidate {name!r}: {what} raised {raised}")
    assert "\n" not in message
    log = Path(message.rsplit("(traceback in ", 1)[1].rstrip(")"))
    text = log.read_text(encoding="utf-8")
    log.unlink()
    assert "Traceback (most recent call last)" in text
    assert raised.split(":")[0] in text


def _in(project: Path, *command: str) -> subprocess.CompletedProcess[str]:
    """``command`` run in ``project`` as a user runs it: the current folder is not on the import path
    (``-P``, as for the ``kjoin`` and ``pytest`` scripts) and PYTHONPATH does not name it."""
    return subprocess.run(
        [sys.executable, "-P", *command], cwd=project, capture_output=True, text=True, timeout=300
    )


def test_kjoin_run_loads_a_candidate_from_the_current_folder(project: Path) -> None:
    done = _in(
        project, "-m", "kjoin.conformance", "run", "--candidate", "mypackage.joins:candidate",
        "--scenarios", str(SCENARIOS),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "candidate my-joins" in done.stdout


def test_kjoin_run_names_a_failing_import_in_one_line_and_exits_2(project: Path) -> None:
    done = _in(project, "-m", "kjoin.conformance", "run", "--candidate", "mypackage.broken:candidate")
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(
        "kjoin: run: --candidate: candidate 'mypackage.broken:candidate': importing module "
        "'mypackage.broken' raised JSONDecodeError"
    )


def test_pytest_loads_a_candidate_from_the_current_folder_and_deselects_what_it_does_not_claim(
    project: Path,
) -> None:
    """The README's ``pytest --candidate mypackage.joins:candidate``: the cases outside the claim are
    deselected with one line counting them (no ``s`` per case), and the run passes (never exit 5)."""
    done = _in(
        project, "-m", "pytest", "--candidate", "mypackage.joins:candidate",
        "--kjoin-scenarios", SCENARIOS.name, "-p", "no:cacheprovider",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 cases outside the candidate's claim deselected (not claimed" in done.stdout
    assert "3 deselected" in done.stdout
    assert "skipped" not in done.stdout


def test_pytest_xdist_workers_hand_the_not_claimed_cases_to_the_results_file(project: Path) -> None:
    results = project / "results.json"
    done = _in(
        project, "-m", "pytest", "-n", "2", "--candidate", "mypackage.joins:candidate",
        "--kjoin-scenarios", SCENARIOS.name, "--kjoin-results", "results.json", "-p", "no:cacheprovider",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(results.read_text(encoding="utf-8"))
    assert [case["status"] for case in document["cases"]] == ["not-claimed"] * 3
    assert {case["id"] for case in document["cases"]} == {case.id for case in load_cases([SCENARIOS]).cases}


def test_pytest_names_a_failing_candidate_import_as_a_usage_error(project: Path) -> None:
    done = _in(project, "-m", "pytest", "--candidate", "mypackage.broken:candidate", "-p", "no:cacheprovider")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR
    assert "INTERNALERROR" not in done.stdout + done.stderr
    [line] = [line for line in done.stderr.splitlines() if line.strip()]
    assert line.startswith("ERROR: --candidate: candidate 'mypackage.broken:candidate': importing module")


def test_pytest_checks_the_candidate_named_in_the_projects_pyproject(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.kjoin]\ncandidate = "mypackage.joins:candidate"\n', encoding="utf-8"
    )
    done = _in(project, "-m", "pytest", "--kjoin-scenarios", SCENARIOS.name, "-p", "no:cacheprovider")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "candidate my-joins" in done.stdout
