"""The layering of the package, checked by parsing every module (nothing is imported), and the core's
import-time dependencies, checked by running it with the extras hidden:

* the oracle is pure Python with no I/O, clock or randomness (STYLE.md house rules 1 and 4): its imports come
  from an allow-list of standard-library modules that compute only;
* no layer imports upwards: oracle < catalogue < checker < harness < command line, and the reports render
  documents and import nothing from the oracle or the harness (``LAYERS`` says what each part may import);
* nothing imports the source folders by their own names (``oracle``, ``conformance``, ...): they install as
  ``kjoin.*`` and only those names exist for a user;
* the core (the oracle, the catalogue, the checker, every command's parser; ``kjoin oracle``, ``check``,
  ``diff-versions``) imports and runs without any extra, and a command whose extra is missing names it.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import kjoin.oracle as oracle

ORACLE_ROOT = Path(oracle.__file__).resolve().parent

FORBIDDEN = frozenset(
    {
        # heavy or engine libraries: the oracle must not depend on what it checks
        "pyspark",
        "pandas",
        "numpy",
        "pyarrow",
        # randomness, clocks
        "random",
        "secrets",
        "uuid",
        "time",
        "datetime",
        "zoneinfo",
        # I/O, processes, network, environment
        "os",
        "sys",
        "io",
        "pathlib",
        "shutil",
        "tempfile",
        "glob",
        "socket",
        "ssl",
        "select",
        "selectors",
        "subprocess",
        "multiprocessing",
        "threading",
        "concurrent",
        "asyncio",
        "signal",
        "urllib",
        "http",
        "logging",
        "pickle",
        "shelve",
        "sqlite3",
        "importlib",
    }
)
"""Modules the oracle must never import (top-level names)."""

ALLOWED = frozenset(
    {
        "__future__",
        "abc",
        "bisect",
        "collections",
        "dataclasses",
        "enum",
        "functools",
        "heapq",
        "itertools",
        "math",
        "operator",
        "re",
        "types",
        "typing",
    }
)
"""Pure standard-library modules the oracle may import (top-level names); ``oracle`` is always allowed."""

ALLOWED_PER_MODULE = {"engine.py": frozenset({"contextlib", "gc"})}
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
    assert {"__init__.py", "records.py", "behaviour.py", "engine.py", "stream_stream.py"} <= names


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


ROOT = ORACLE_ROOT.parent
PACKAGES = {"oracle": "kjoin.oracle", "scenarios": "kjoin.scenarios", "conformance": "kjoin.conformance",
            "reports": "kjoin.reports"}  # fmt: skip

_CORE = ("kjoin.oracle", "kjoin.scenarios")
_BELOW_HARNESS = (*_CORE, "kjoin.conformance.catalogue", "kjoin.conformance.checker",
                  "kjoin.conformance.notation", "kjoin.conformance.protocol")  # fmt: skip
LAYERS: dict[str, tuple[str, ...]] = {
    "kjoin.oracle": ("kjoin.oracle",),
    "kjoin.scenarios": (),
    "kjoin.reports": ("kjoin.reports",),
    "kjoin.conformance.catalogue": (*_CORE, "kjoin.conformance.catalogue"),
    "kjoin.conformance.notation": ("kjoin.oracle",),
    "kjoin.conformance.checker": ("kjoin.oracle", "kjoin.conformance.notation"),
    "kjoin.conformance.protocol": ("kjoin.oracle",),
    "kjoin.conformance.strategies": ("kjoin.oracle",),
    "kjoin.conformance.candidates": ("kjoin.oracle", "kjoin.conformance.protocol",
                                     "kjoin.conformance.streaming", "kjoin.conformance.candidates"),
    "kjoin.conformance.streaming": ("kjoin.oracle", "kjoin.conformance.protocol",
                                    "kjoin.conformance.streaming"),
    "kjoin.conformance.harness": (*_BELOW_HARNESS, "kjoin.conformance.harness"),
    "kjoin.conformance.differential": (*_BELOW_HARNESS, "kjoin.conformance.harness",
                                       "kjoin.conformance.strategies", "kjoin.conformance.differential"),
    "kjoin.conformance.kafka": (*_BELOW_HARNESS, "kjoin.conformance.harness",
                                "kjoin.conformance.differential", "kjoin.conformance.kafka"),
    "kjoin.conformance.scale": (*_BELOW_HARNESS, "kjoin.conformance.harness", "kjoin.conformance.scale"),
    "kjoin.conformance.endtoend": (*_BELOW_HARNESS, "kjoin.conformance.harness", "kjoin.conformance.kafka",
                                   "kjoin.conformance.candidates", "kjoin.conformance.streaming",
                                   "kjoin.conformance.endtoend"),
    "kjoin.conformance.cli": ("kjoin.",),
    "kjoin.conformance.plugin": ("kjoin.conformance.harness", "kjoin.conformance.hooks", "kjoin.reports",
                                 "kjoin.conformance.endtoend", "kjoin.conformance.protocol"),
    "kjoin.conformance.hooks": (),
    "kjoin.conformance.__main__": ("kjoin.conformance.cli",),
    "kjoin.conformance": (),
}  # fmt: skip
"""Each part of the package (a module or a subpackage, the longest name that matches) and the prefixes of
the ``kjoin`` modules it may import."""


def _module_name(path: Path) -> str:
    relative = path.relative_to(ROOT).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGES[parts[0]], *parts[1:]])


def _part(module: str) -> str:
    matches = [name for name in LAYERS if module == name or module.startswith(name + ".")]
    return max(matches, key=len)


def _kjoin_imports(path: Path) -> list[tuple[int, str]]:
    """(line, imported module) for every absolute import of a ``kjoin`` module or a source folder's name."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        found += [(node.lineno, name) for name in names if name.split(".")[0] in {"kjoin", *PACKAGES}]
    return found


PACKAGE_MODULES = sorted(path for folder in PACKAGES for path in (ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("path", PACKAGE_MODULES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_layering_no_module_imports_upwards(path: Path) -> None:
    module = _module_name(path)
    allowed = LAYERS[_part(module)]
    wrong = [
        f"line {line}: {name}"
        for line, name in _kjoin_imports(path)
        if not name.startswith("kjoin.") or not name.startswith(allowed) or not allowed
    ]
    assert not wrong, f"{module} ({_part(module)}) may import only {allowed or 'no kjoin module'}: {wrong}"


def test_layering_reports_import_nothing_from_the_oracle_or_the_harness() -> None:
    for path in sorted((ROOT / "reports").rglob("*.py")):
        names = [name for _, name in _kjoin_imports(path)]
        assert all(name.startswith("kjoin.reports") for name in names), (path, names)


def test_layering_checker_flags_an_upward_import(tmp_path: Path) -> None:
    fake = ROOT / "oracle" / "records.py"
    assert _part(_module_name(fake)) == "kjoin.oracle"
    (tmp_path / "m.py").write_text("from kjoin.conformance.harness import x\nimport oracle.records\n")
    assert _kjoin_imports(tmp_path / "m.py") == [(1, "kjoin.conformance.harness"), (2, "oracle.records")]


def test_every_package_folder_is_in_the_wheel() -> None:
    """A wheel holds only the packages ``pyproject.toml`` lists: a new subpackage left out would work in the
    editable checkout and be missing for every user who installs the release."""
    import tomllib

    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(settings["packages"])
    found = set()
    for name, folder in settings["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((name, *relative)))
    assert found == listed


TESTS = Path(__file__).resolve().parent
KIP77 = "scenarios/stream_stream/kip77-current.toml"
GOLDEN = "scenarios/golden/3.0.jsonl"


def _bare(*arguments: str) -> subprocess.CompletedProcess[str]:
    """``kjoin ARGUMENTS`` from the checkout with the extras hidden as if not installed
    (``tests/support/bare_install.py``), after importing every module of the core."""
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        [sys.executable, "-m", "support.bare_install", *arguments],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )


CORE_COMMANDS = [
    ("--help",),
    ("--version",),
    (),
    ("oracle", KIP77),
    ("check", KIP77, GOLDEN),
    ("diff-versions", "3.0", "3.1", "--scenarios", KIP77, GOLDEN, "--out", "{tmp}"),
    *((command, "--help") for command in ("run", "scale", "replay", "fuzz", "verify", "kafka", "report")),
]
"""What a bare install runs (the core commands on small inputs: CI's bare-install step runs them on the
whole catalogue), and every command's help."""


@pytest.mark.parametrize("arguments", CORE_COMMANDS, ids=lambda arguments: " ".join(arguments) or "(none)")
def test_core_runs_without_any_extra(arguments: tuple[str, ...], tmp_path: Path) -> None:
    done = _bare(*(argument.format(tmp=tmp_path / "diff") for argument in arguments))
    assert done.returncode == 0, done.stderr
    assert "Error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.strip()


EXTRA_COMMANDS = [
    (("run", "--candidate", "spark-reference"), "kjoin run needs the spark extra: pip install "
     "'kjoin-conformance[spark]'"),
    (("scale", "--candidate", "spark-reference", "--records", "10", "--join", "stream-stream", "--variant",
      "inner"), "kjoin scale needs the spark extra: pip install 'kjoin-conformance[spark]'"),
    (("fuzz", "--candidate", "spark-reference"), "kjoin fuzz needs the spark and fuzz extras: pip install "
     "'kjoin-conformance[spark,fuzz]'"),
    (("verify", "--kafka", "3.9"), "kjoin verify needs the fuzz extra: pip install "
     "'kjoin-conformance[fuzz]'"),
]  # fmt: skip


@pytest.mark.parametrize(("arguments", "message"), EXTRA_COMMANDS, ids=lambda value: str(value[0]))
def test_command_without_its_extra_names_the_extra_to_install(
    arguments: tuple[str, ...], message: str
) -> None:
    done = _bare(*arguments)
    assert done.returncode == 2
    assert done.stderr == message + "\n"


def test_help_imports_no_command_module() -> None:
    """``kjoin --help`` lists the commands from ``kjoin.conformance.cli.COMMANDS`` alone: no subcommand's
    module, catalogue or oracle is imported (that made it take 0.7 CPU seconds)."""
    done = _bare("--modules", "--help")
    assert done.returncode == 0, done.stderr
    imported = set(done.stdout.split("--\n", 1)[1].split())
    assert imported <= {"kjoin", "kjoin.conformance", "kjoin.conformance.cli", "kjoin.conformance.cli.common"}


def test_a_command_imports_only_its_own_module() -> None:
    done = _bare("--modules", "oracle", KIP77)
    assert done.returncode == 0, done.stderr
    commands = {
        name for name in done.stdout.split("--\n", 1)[1].split() if name.startswith("kjoin.conformance.cli.")
    }
    assert commands == {"kjoin.conformance.cli.common", "kjoin.conformance.cli.oracle"}
