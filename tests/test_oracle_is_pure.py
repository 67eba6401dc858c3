"""The oracle is pure Python with no I/O, clock or randomness (STYLE.md house rules 1 and 4).

Every module under ``oracle/`` is parsed (not imported) and its imports checked against an allow-list of
standard-library modules that compute only. Anything else needs a deliberate change here. The one exception:
``oracle/portable.py`` may import ``json``, since it defines a JSON format.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import kjoin.oracle as oracle

ORACLE_ROOT = Path(oracle.__file__).resolve().parent

FORBIDDEN = frozenset(
    {
        # heavy or engine libraries: the oracle must not depend on what it checks
        "pyspark", "pandas", "numpy", "pyarrow",
        # randomness, clocks
        "random", "secrets", "uuid", "time", "datetime", "zoneinfo",
        # I/O, processes, network, environment
        "os", "sys", "io", "pathlib", "shutil", "tempfile", "glob", "socket", "ssl", "select", "selectors",
        "subprocess", "multiprocessing", "threading", "concurrent", "asyncio", "signal", "urllib", "http",
        "logging", "pickle", "shelve", "sqlite3", "importlib",
    }
)
"""Modules the oracle must never import (top-level names)."""

ALLOWED = frozenset(
    {
        "__future__", "abc", "bisect", "collections", "dataclasses", "enum", "functools", "heapq",
        "itertools", "math", "operator", "re", "types", "typing",
    }
)
"""Pure standard-library modules the oracle may import (top-level names); ``oracle`` is always allowed."""

ALLOWED_PER_MODULE = {"portable.py": frozenset({"json"}), "engine.py": frozenset({"contextlib", "gc"})}
"""Extra modules allowed in one file, relative to ``oracle/``: ``engine.run`` pauses the cyclic garbage
collector while records run through a join (a speed measure: it changes no result, and the previous
setting is restored)."""

FORBIDDEN_CALLS = frozenset({"open", "print", "input", "exec", "eval", "compile", "breakpoint", "__import__"})
"""Built-ins that do I/O or run code; the oracle calls none of them."""

MODULES = sorted(ORACLE_ROOT.rglob("*.py"))


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, top-level module name) of every import; relative imports count as ``oracle``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, _top(alias.name)) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            name = "oracle" if node.level else _top(node.module or "")
            found.append((node.lineno, name))
    return found


def _top(module: str) -> str:
    """Top-level name of ``module``: ``kjoin.oracle.x`` counts as ``oracle``, ``kjoin.x.y`` as ``kjoin.x``."""
    parts = module.split(".")
    if parts[0] == "kjoin" and len(parts) > 1:
        return "oracle" if parts[1] == "oracle" else f"kjoin.{parts[1]}"
    return parts[0]


def _relative(path: Path) -> str:
    return path.relative_to(ORACLE_ROOT).as_posix()


def test_oracle_is_pure_finds_every_module() -> None:
    names = {_relative(path) for path in MODULES}
    assert {"__init__.py", "records.py", "behaviour.py", "engine.py", "portable.py"} <= names


def test_oracle_is_pure_allow_list_excludes_forbidden_modules() -> None:
    assert not ALLOWED & FORBIDDEN
    assert all(not extra & FORBIDDEN for extra in ALLOWED_PER_MODULE.values())


@pytest.mark.parametrize("path", MODULES, ids=_relative)
def test_oracle_module_imports_only_pure_modules(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    allowed = ALLOWED | ALLOWED_PER_MODULE.get(_relative(path), frozenset()) | {"oracle"}
    imports = _imports(tree)
    forbidden = [f"line {line}: {name}" for line, name in imports if name in FORBIDDEN]
    assert not forbidden, f"oracle/{_relative(path)} imports forbidden modules: {forbidden}"
    unknown = [f"line {line}: {name}" for line, name in imports if name not in allowed]
    assert not unknown, (
        f"oracle/{_relative(path)} imports modules outside the allow-list: {unknown} "
        "(if one is pure computation, add it to ALLOWED in this test)"
    )


@pytest.mark.parametrize("path", MODULES, ids=_relative)
def test_oracle_module_calls_no_io_builtins(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    calls = [
        f"line {node.lineno}: {node.func.id}()"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS
    ]
    assert not calls, f"oracle/{_relative(path)} calls I/O or code-running built-ins: {calls}"


def test_oracle_is_pure_checker_flags_a_forbidden_import() -> None:
    tree = ast.parse("import os\nfrom time import monotonic\nfrom . import records\nimport numpy.linalg\n")
    assert _imports(tree) == [(1, "os"), (2, "time"), (3, "oracle"), (4, "numpy")]
