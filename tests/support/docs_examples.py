"""Run the Python examples of a Markdown page, as a test of what the page shows."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any


def python_blocks(page: Path) -> list[str]:
    """The ```python blocks of a Markdown page, in order."""
    return re.findall(r"^```python\n(.*?)^```", page.read_text(encoding="utf-8"), flags=re.M | re.S)


def run_examples(page: Path, wrap: Callable[[Any], Any] = lambda test: test) -> list[str]:
    """Run every ```python block of ``page`` in one namespace, then every ``test_*`` function it defines
    (as pytest would, each through ``wrap``: e.g. Hypothesis settings); returns the names of the functions
    it ran."""
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    for block in python_blocks(page):
        exec(compile(block, str(page), "exec"), namespace)
    tests = sorted(name for name, value in namespace.items() if name.startswith("test_") and callable(value))
    for name in tests:
        wrap(namespace[name])()
    return tests
