"""The layering of the package, checked by parsing every module (nothing is imported), and the core's
import-time dependencies, checked by running it with the extras hidden:

* the oracle is pure Python with no I/O, clock or randomness, so it runs anywhere and gives the same answer
  every time: its imports come from an allow-list of standard-library modules that compute only;
* no layer imports upwards: oracle < catalogue < checker < documents < harness < command line, and the
  reports render documents and import nothing from the oracle or the harness, only the self-contained
  notation and vocabularies (``LAYERS`` says what each part may import); the document commands (``kjoin
  report``, ``compare``, ``diff-versions``) and the reports reach neither Spark nor the harness;
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

EVERYWHERE = ("kjoin.errors",)
"""Modules every part may import, the oracle included: ``KjoinError``, the base of every error, in a module
that imports nothing."""

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

ALLOWED_PER_MODULE = {
    "behaviour.py": frozenset({"msgspec"}),
    "engine.py": frozenset({"contextlib", "gc"}),
    "records.py": frozenset({"msgspec"}),
    "self_join.py": frozenset({"msgspec"}),
}
"""Extra modules allowed in one file, relative to ``oracle/``: ``engine.run`` pauses the cyclic garbage
collector while records run through a join (a speed measure: it changes no result, and the previous
setting is restored). ``Record`` is a frozen ``msgspec.Struct`` (a core dependency, pure data: no I/O), so the
codec reads records straight into it, and ``self_join`` copies records with ``msgspec.structs.replace``; the
other types of ``records`` and ``behaviour``'s ``Behaviour`` are frozen structs too (no ``dataclasses`` on
``kjoin oracle``'s start-up; docs/kafka.md)."""

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
    allowed = ALLOWED | ALLOWED_PER_MODULE.get(_relative(path), frozenset()) | {"oracle", *EVERYWHERE}
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
PACKAGES = {"kjoin": "kjoin", "oracle": "kjoin.oracle", "scenarios": "kjoin.scenarios",
            "conformance": "kjoin.conformance", "reports": "kjoin.reports"}  # fmt: skip

_CORE = ("kjoin.oracle", "kjoin.scenarios")
_WORDS = ("kjoin.conformance.notation", "kjoin.conformance.documents.vocabulary")
"""The notation and the vocabularies: self-contained, imported by every layer, the reports included."""
_BELOW_HARNESS = (*_CORE, "kjoin.conformance.codec", "kjoin.conformance.catalogue",
                  "kjoin.conformance.checker", "kjoin.conformance.commit_points",
                  "kjoin.conformance.kafka_segments",
                  "kjoin.conformance.notation", "kjoin.conformance.protocol",
                  "kjoin.conformance.stated")  # fmt: skip
_DOCUMENTS = ("kjoin.conformance.documents",)
LAYERS: dict[str, tuple[str, ...]] = {
    "kjoin": ("kjoin.",),
    "kjoin.errors": (),
    "kjoin.strategies": ("kjoin.oracle",),
    "kjoin.oracle": ("kjoin.oracle",),
    "kjoin.scenarios": (),
    "kjoin.reports": ("kjoin.reports", *_WORDS),
    "kjoin.conformance.codec": ("kjoin.oracle",),
    "kjoin.conformance.catalogue": (*_CORE, "kjoin.conformance.codec", "kjoin.conformance.notation",
                                    "kjoin.conformance.catalogue"),
    "kjoin.conformance.notation": (),
    "kjoin.conformance.documents.vocabulary": (),
    "kjoin.conformance.checker": ("kjoin.oracle", "kjoin.conformance.commit_points", *_WORDS),
    "kjoin.conformance.commit_points": ("kjoin.oracle",),
    "kjoin.conformance.kafka_segments": ("kjoin.oracle", "kjoin.conformance.commit_points"),
    "kjoin.conformance.protocol": ("kjoin.oracle",),
    "kjoin.conformance.stated": (*_CORE, "kjoin.conformance.catalogue", "kjoin.conformance.checker"),
    "kjoin.conformance.candidates": ("kjoin.oracle", "kjoin.conformance.protocol",
                                     "kjoin.conformance.streaming", "kjoin.conformance.candidates"),
    "kjoin.conformance.streaming": ("kjoin.oracle", "kjoin.conformance.protocol",
                                    "kjoin.conformance.streaming"),
    "kjoin.conformance.documents": (*_BELOW_HARNESS, "kjoin.conformance.documents"),
    "kjoin.conformance.harness": (*_BELOW_HARNESS, *_DOCUMENTS, "kjoin.conformance.harness"),
    "kjoin.conformance.differential": (*_BELOW_HARNESS, *_DOCUMENTS, "kjoin.conformance.harness",
                                       "kjoin.strategies", "kjoin.conformance.differential"),
    "kjoin.conformance.kafka": (*_BELOW_HARNESS, *_DOCUMENTS, "kjoin.conformance.harness",
                                "kjoin.conformance.differential", "kjoin.conformance.kafka"),
    "kjoin.conformance.scale": (*_BELOW_HARNESS, *_DOCUMENTS, "kjoin.conformance.harness",
                                "kjoin.conformance.scale"),
    "kjoin.conformance.endtoend": (*_BELOW_HARNESS, *_DOCUMENTS, "kjoin.conformance.harness",
                                   "kjoin.conformance.kafka", "kjoin.conformance.candidates",
                                   "kjoin.conformance.streaming", "kjoin.conformance.endtoend"),
    "kjoin.conformance.cli": ("kjoin.",),
    "kjoin.conformance.plugin": ("kjoin.conformance.harness", "kjoin.conformance.hooks", "kjoin.reports",
                                 "kjoin.conformance.endtoend", "kjoin.conformance.kafka",
                                 "kjoin.conformance.protocol"),
    "kjoin.conformance.hooks": (),
    "kjoin.conformance.__main__": ("kjoin.conformance.cli",),
    "kjoin.conformance": (),
}  # fmt: skip
"""Each part of the package (a module or a subpackage, the longest name that matches) and the prefixes of
the ``kjoin`` modules it may import. ``kjoin`` itself, the public face, may import any part but matches only
its own ``__init__``: each of its modules needs an entry of its own."""


def _module_name(path: Path) -> str:
    relative = path.relative_to(ROOT).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGES[parts[0]], *parts[1:]])


def _part(module: str) -> str:
    matches = [
        name for name in LAYERS if module == name or (name != "kjoin" and module.startswith(name + "."))
    ]
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
    allowed = (*allowed, *EVERYWHERE) if allowed and module not in EVERYWHERE else allowed
    wrong = [
        f"line {line}: {name}"
        for line, name in _kjoin_imports(path)
        if not name.startswith("kjoin.") or not name.startswith(allowed) or not allowed
    ]
    assert not wrong, f"{module} ({_part(module)}) may import only {allowed or 'no kjoin module'}: {wrong}"


def test_layering_reports_import_nothing_from_the_oracle_or_the_harness() -> None:
    for path in sorted((ROOT / "reports").rglob("*.py")):
        names = [name for _, name in _kjoin_imports(path)]
        assert all(name.startswith(("kjoin.reports", *_WORDS)) for name in names), (path, names)
    for words in _WORDS:  # what the reports may import besides themselves imports no kjoin module at all
        assert not LAYERS[words]


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
    assert imported <= {"kjoin", "kjoin.errors", "kjoin.conformance", "kjoin.conformance.cli",
                        "kjoin.conformance.cli.common"}  # fmt: skip


def test_a_command_imports_only_its_own_module() -> None:
    done = _bare("--modules", "oracle", KIP77)
    assert done.returncode == 0, done.stderr
    commands = {
        name for name in done.stdout.split("--\n", 1)[1].split() if name.startswith("kjoin.conformance.cli.")
    }
    assert commands == {"kjoin.conformance.cli.common", "kjoin.conformance.cli.oracle"}


NOT_ON_ORACLE_START = frozenset(
    {
        "dataclasses", "inspect", "ast", "dis", "tokenize",  # the case and spec types are msgspec structs
        "pathlib", "fnmatch", "urllib", "ipaddress",  # FILE is a path only when one is given
        "shutil", "bz2", "lzma", "zlib",  # the help's width is read without shutil
        "copy", "importlib.util", "tempfile", "traceback", "json", "tomllib",  # only where they are used
    }
)  # fmt: skip
"""Modules ``kjoin oracle --jsonl`` does without: it starts once per pipeline, and on a small input its start
is most of its CPU (docs/kafka.md, "The oracle's other types as structs")."""


def _fresh_start(*arguments: str) -> tuple[str, set[str]]:
    """``kjoin ARGUMENTS`` on an empty stdin in a fresh interpreter with only the core dependencies
    (``tests/support/fresh_start.py``): its output and every module it imported."""
    import msgspec
    import tabulate
    import tqdm

    folders = sorted({str(Path(str(module.__file__)).parent.parent) for module in (msgspec, tabulate, tqdm)})
    script = TESTS / "support" / "fresh_start.py"
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(script), str(ROOT), *folders, "--", *arguments],
        cwd=ROOT,
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    output, modules = done.stdout.rsplit("\n-- imported modules --\n", 1)
    return output, set(modules.split())


def test_oracle_jsonl_starts_without_what_it_does_not_use() -> None:
    """On an empty stdin, in a fresh interpreter, ``kjoin oracle --jsonl`` imports its command, the codec
    and the oracle, and none of ``NOT_ON_ORACLE_START``."""
    output, loaded = _fresh_start("oracle", "--jsonl")
    assert output == ""
    assert {
        "kjoin.conformance.cli.oracle",
        "kjoin.conformance.codec",
        "kjoin.oracle.engine",
        "msgspec",
    } <= loaded
    assert sorted(loaded & NOT_ON_ORACLE_START) == []


def test_fresh_start_sees_what_a_command_imports() -> None:
    """The same check on ``kjoin oracle FILE``, which reads a TOML file by its path: it sees ``pathlib`` and
    ``tomllib`` come in."""
    output, loaded = _fresh_start("oracle", KIP77)
    assert "as the file states" in output
    assert {"pathlib", "tomllib"} <= loaded


# --- the document layer apart from Spark -----------------------------------------------------------------

SPARK_MODULES = frozenset({"pyspark", "py4j", "pandas", "pyarrow"})
"""Top-level names of Spark and the libraries that come with it."""

DOCUMENT_COMMANDS = (
    "kjoin.conformance.cli.report",
    "kjoin.conformance.cli.compare",
    "kjoin.conformance.cli.diff_versions",
)
"""Commands that only read, compare or compute documents: they run without Spark and without the harness."""

_SOURCES = {
    _module_name(path): path for folder in PACKAGES for path in (ROOT / folder).rglob("*.py")
}  # fmt: skip


def _type_checking_only(node: ast.AST) -> bool:
    """``if TYPE_CHECKING:`` (imports under it never run)."""
    return isinstance(node, ast.If) and (
        (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
        or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")
    )


def _only_if_loaded(tree: ast.AST) -> set[str]:
    """Modules a file imports only when they are loaded already (``if "m" not in sys.modules: return``
    before ``from m import ...``, as the command line's error handlers do): such an import loads nothing."""
    return {
        node.left.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        and isinstance(node.left, ast.Constant)
        and isinstance(node.left.value, str)
        and isinstance(node.ops[0], ast.NotIn)
        and ast.unparse(node.comparators[0]) == "sys.modules"
    }


def _runtime_imports(module: str) -> set[str]:
    """Every module ``module``'s file can import when it runs, at any depth of its code (functions too), but
    not under ``if TYPE_CHECKING:`` nor only if already loaded; ``from a import b`` imports ``a`` and, when
    it is a module, ``a.b``."""
    tree = ast.parse(_SOURCES[module].read_text(encoding="utf-8"))
    guarded = _only_if_loaded(tree)
    package = module if _SOURCES[module].name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if _type_checking_only(node):
            continue
        pending.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: up from the module's package
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base]).strip(".")
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in _SOURCES)
    return found - guarded


def _import_closure(roots: tuple[str, ...]) -> dict[str, str]:
    """Every module importing ``roots`` loads (their packages' ``__init__`` included), each with the module
    that first imports it (``kjoin`` modules are followed, others are leaves)."""
    reached: dict[str, str] = {root: "" for root in roots}
    pending = list(roots)
    while pending:
        module = pending.pop()
        for name in sorted(_runtime_imports(module)):
            parts = name.split(".")
            for size in range(1, len(parts) + 1):
                step = ".".join(parts[:size])
                if step not in reached:
                    reached[step] = module
                    if step in _SOURCES:
                        pending.append(step)
    return reached


def _chain(reached: dict[str, str], module: str) -> str:
    steps = [module]
    while reached.get(steps[-1]):
        steps.append(reached[steps[-1]])
    return " <- ".join(steps)


REPORT_MODULES = tuple(sorted(name for name in _SOURCES if name.startswith("kjoin.reports")))


@pytest.mark.parametrize("root", [*DOCUMENT_COMMANDS, *REPORT_MODULES, "kjoin.conformance.documents.results"])
def test_layering_documents_need_no_spark_and_no_harness(root: str) -> None:
    reached = _import_closure((root,))
    wrong = [
        _chain(reached, name)
        for name in sorted(reached)
        if name.split(".")[0] in SPARK_MODULES or name.startswith("kjoin.conformance.harness")
    ]
    assert not wrong, f"{root} imports Spark or the harness: {wrong}"


def test_layering_document_commands_use_the_document_layer() -> None:
    """The check above follows real imports: the commands reach the document layer and the reports."""
    reached = _import_closure(DOCUMENT_COMMANDS)
    assert {"kjoin.conformance.documents.results", "kjoin.conformance.documents.comparison",
            "kjoin.conformance.documents.version_diff", "kjoin.reports"} <= reached.keys()  # fmt: skip


def test_layering_import_closure_sees_spark_behind_the_harness() -> None:
    """The closure of ``kjoin run`` reaches the harness and, through it, Spark (imports in functions count;
    those under ``TYPE_CHECKING`` do not)."""
    reached = _import_closure(("kjoin.conformance.cli.run",))
    assert "kjoin.conformance.harness.spark_session" in reached
    assert "pyspark" in reached, _chain(reached, "kjoin.conformance.harness.spark_session")
    protocol = _runtime_imports("kjoin.conformance.protocol")
    assert not {name for name in protocol if name.split(".")[0] in SPARK_MODULES}


def test_layering_document_commands_load_neither_spark_nor_the_harness(tmp_path: Path) -> None:
    """The same, at run time: the three commands run with the extras hidden and load no harness module."""
    from kjoin.conformance.catalogue import load_cases
    from kjoin.conformance.documents.results import write_json_atomically
    from support.report_documents import answered_by_version, document_of, outcome_of

    cases = load_cases([ROOT / KIP77]).cases
    assert cases
    answer = answered_by_version("2.8")
    results = tmp_path / "results.json"
    write_json_atomically(results, document_of(outcome_of(case, answer(case)) for case in cases))
    runs = [
        ("report", str(results), "--out", str(tmp_path / "report")),
        ("compare", str(results), str(results)),
        ("diff-versions", "3.0", "3.1", "--scenarios", KIP77, "--out", str(tmp_path / "diff")),
    ]
    for arguments in runs:
        done = _bare("--modules", *arguments)
        assert done.returncode == 0, (arguments, done.stderr)
        loaded = done.stdout.split("--\n", 1)[1].split()
        assert any(name.startswith("kjoin.conformance.documents.") for name in loaded), loaded
        assert not [name for name in loaded if name.startswith("kjoin.conformance.harness")], arguments
