"""Scenario identity from the path and ``kjoin check --lint PATH`` (docs/scenario-format.md, "Identity and
lint"): the bundled catalogue is clean, and a user's folder with problems gets one line per problem naming
the file, the scenario and the field, and exit 2."""

from __future__ import annotations

import io
import json
from pathlib import Path

from kjoin.conformance.catalogue.lint import lint
from kjoin.conformance.cli import main
from kjoin.scenarios import CATALOGUE_ROOT

SEED = CATALOGUE_ROOT / "table_table" / "docs-old.toml"
REGRESSION = CATALOGUE_ROOT / "regressions" / "regression-spark-reference-st-1b4b2499d8.jsonl"


def _kjoin(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.StringIO(""), stdout=out, stderr=err)
    return code, out.getvalue() + err.getvalue()


def test_the_bundled_catalogue_lints_clean() -> None:
    found = lint([CATALOGUE_ROOT])
    assert found.problems == ()
    assert len(found.files) > 100 and found.scenarios > 1000
    code, out = _kjoin("check", "--lint")
    assert code == 0 and out.endswith(f"{len(found.files)} files, {found.scenarios} scenarios: no problems\n")


def test_a_hand_written_scenario_is_named_by_its_file(tmp_path: Path) -> None:
    text = SEED.read_text(encoding="utf-8")
    (tmp_path / "docs-old.toml").write_text(text, encoding="utf-8")  # id tt-docs-old: prefix + file name
    (tmp_path / "tt-docs-old-copy.toml").write_text(
        text.replace('id = "tt-docs-old"', 'id = "tt-docs-old-copy"'), encoding="utf-8"
    )  # id = file name
    assert lint([tmp_path]).problems == ()
    (tmp_path / "renamed.toml").write_text(
        text.replace('id = "tt-docs-old"', 'id = "tt-other"'), encoding="utf-8"
    )
    (problem,) = lint([tmp_path]).problems
    assert (problem.path, problem.scenario_id, problem.field, problem.value) == (
        str(tmp_path / "renamed.toml"),
        "tt-other",
        "id",
        "tt-other",
    )
    assert "'renamed' or 'tt-renamed'" in str(problem)


def test_lint_names_every_problem_of_a_users_folder_and_exits_2(tmp_path: Path) -> None:
    line = REGRESSION.read_text(encoding="utf-8").splitlines()[0]
    seed = SEED.read_text(encoding="utf-8")
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "a.jsonl").write_text(line + "\n", encoding="utf-8")
    (folder / "b.jsonl").write_text(line + "\n", encoding="utf-8")  # the same id again
    (folder / "broken.toml").write_text('id = "broken\n', encoding="utf-8")  # not TOML
    (folder / "elsewhere.toml").write_text(seed, encoding="utf-8")  # id tt-docs-old, not its file's name
    (folder / "tt-docs-old-colour.toml").write_text(
        seed.replace('id = "tt-docs-old"', 'id = "tt-docs-old-colour"\ncolour = "red"'), encoding="utf-8"
    )  # an unknown field
    code, out = _kjoin("check", "--lint", str(folder))
    assert code == 2
    *problems, summary = out.splitlines()
    assert summary == f"5 files, 2 scenarios: {len(problems)} problems" and len(problems) == 4, out
    by_file = {Path(problem.split(" ")[0].split(":")[0]).name: problem for problem in problems}
    assert set(by_file) == {"b.jsonl", "broken.toml", "elsewhere.toml", "tt-docs-old-colour.toml"}
    scenario_id = json.loads(line)["id"]
    assert f"b.jsonl:1 [{scenario_id}] field id:" in by_file["b.jsonl"] and "a.jsonl:1" in by_file["b.jsonl"]
    assert "[?] field (file): 'broken.toml' is not valid TOML" in by_file["broken.toml"]
    assert "[tt-docs-old] field id: 'tt-docs-old' must be the file's name" in by_file["elsewhere.toml"]
    assert "colour" in by_file["tt-docs-old-colour.toml"]


def test_lint_of_a_path_without_scenarios_is_a_usage_error(tmp_path: Path) -> None:
    code, out = _kjoin("check", "--lint", str(tmp_path))
    assert code == 2 and str(tmp_path) in out
