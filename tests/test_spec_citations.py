"""The code, the scenarios, the tests and the docs cite the project's own specification (``docs/semantics``)
by rule id, and every cited id is a rule there: no citation of the retired external SEMANTICS.md or of
STYLE.md (not shipped) is left, and no id points at nothing (``tools/check_spec_citations.py`` is the same
check from the command line)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "check_spec_citations", ROOT / "tools" / "check_spec_citations.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_citation_names_a_rule_of_the_specification() -> None:
    checker = _checker()
    known = checker.rule_ids(ROOT / "docs" / "semantics")
    assert len(known) >= 80
    problems = [
        f"{path.relative_to(ROOT)}:{line}: {problem}"
        for folder in (
            "kjoin",
            "oracle",
            "scenarios",
            "conformance",
            "reports",
            "tests",
            "tools",
            "benchmarks",
            "docs",
        )
        for path in checker.files_under(ROOT / folder)
        if path.name not in ("check_spec_citations.py", "test_spec_citations.py")
        for line, problem in checker.problems_in(path, known)
    ]
    assert problems == []


def test_the_checker_finds_an_unknown_rule_and_a_retired_citation(tmp_path: Path) -> None:
    checker = _checker()
    known = checker.rule_ids(ROOT / "docs" / "semantics")
    sample = tmp_path / "sample.py"
    sample.write_text('"""Held records (spec SS-16, SS-999) as in SEMANTICS.md §1.7."""\n', encoding="utf-8")
    found = [problem for _, problem in checker.problems_in(sample, known)]
    assert len(found) == 2
    assert any("SS-999" in problem for problem in found)
    assert any("retired SEMANTICS.md" in problem for problem in found)


def test_the_checker_finds_a_citation_of_a_document_the_project_does_not_ship(tmp_path: Path) -> None:
    checker = _checker()
    sample = tmp_path / "sample.py"
    sample.write_text('"""Small values (STYLE.md rule 5), see docs/api.md."""\n', encoding="utf-8")
    found = list(checker.problems_in(sample, checker.rule_ids(ROOT / "docs" / "semantics")))
    assert found == [
        (
            1,
            "citation of STYLE.md, which the project does not ship (cite a docs/ page): "
            + sample.read_text().strip(),
        )
    ]
