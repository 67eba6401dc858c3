"""tools/verify_matrix.py's page updates: a run of some join kinds or of self-joins changes its cells only."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent

PAGE = """# Matrix

| Kafka   | oracle era   | stream-stream   | stream-globaltable   | all     |
|---------|--------------|-----------------|----------------------|---------|
| 2.4.1   | 2.4          | 123/123         | not run              | 490/490 |
| 3.0.2   | 3.0          | 123/123         | not run              | 490/490 |

A note under the table.

## Self-joins

Intro.

| Kafka | oracle era | rewrite with `all` | optimization none | optimization all | all | time |
|---|---|---|---|---|---|---|
| 4.4.0 | 4.0.1 | yes | 251/251 | 255/255 | 506/506 | 608 s |

## Application mode

Kept.
"""


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("verify_matrix", ROOT / "tools" / "verify_matrix.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_run_of_one_join_kind_fills_its_column_only(tmp_path: Path) -> None:
    tool = _tool()
    page = tmp_path / "matrix.md"
    page.write_text(PAGE, encoding="utf-8")
    row = {"Kafka": "3.0.2", "oracle era": "3.0", "stream-globaltable": "522/522"}
    tool.write_rows(page, {"3.0.2": row}, ["Kafka", "oracle era", "stream-globaltable"], "")
    lines = page.read_text(encoding="utf-8").splitlines()
    assert [cell.strip() for cell in lines[5].strip("|").split("|")] == [
        "3.0.2", "3.0", "123/123", "522/522", "490/490",
    ]  # fmt: skip
    assert "not run" in lines[4]
    assert (
        page.read_text(encoding="utf-8").split("A note under the table.")[1]
        == PAGE.split("A note under the table.")[1]
    )


def test_a_self_join_run_adds_its_rows_in_release_order_and_keeps_the_rest(tmp_path: Path) -> None:
    tool = _tool()
    page = tmp_path / "matrix.md"
    page.write_text(PAGE, encoding="utf-8")
    cells = ["3.9.2", "3.9.1", "yes", "250/250", "256/256", "506/506", "90 s"]
    tool.write_rows(
        page,
        {"3.9.2": dict(zip(tool.SELF_JOIN_HEADERS, cells, strict=True))},
        tool.SELF_JOIN_HEADERS,
        "## Self-joins",
    )
    text = page.read_text(encoding="utf-8")
    assert text.split("## Self-joins")[0] == PAGE.split("## Self-joins")[0]
    table = text.split("Intro.")[1].split("## Application mode")[0].strip().splitlines()
    assert [line.split("|")[1].strip() for line in table[2:]] == ["3.9.2", "4.4.0"]
    assert [cell.strip() for cell in table[2].strip("|").split("|")] == cells
    assert text.endswith("## Application mode\n\nKept.\n")
