"""The public face (``from kjoin import ...``, docs/api.md): every name resolves to the object its home module
defines, ``import kjoin`` imports nothing heavy, a name whose extra is missing says which extra to install,
every error the package defines derives from ``KjoinError``, and no two public classes share a name."""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest

import kjoin
from kjoin import KjoinError

ROOT = Path(__file__).resolve().parents[1]
SOURCE_FOLDERS = {"kjoin": "kjoin", "oracle": "kjoin.oracle", "conformance": "kjoin.conformance",
                  "reports": "kjoin.reports", "scenarios": "kjoin.scenarios"}  # fmt: skip
EXTRAS = ("pyspark", "pandas", "pyarrow", "hypothesis", "pytest", "py4j")


def _blocking(modules: tuple[str, ...], body: str) -> subprocess.CompletedProcess[str]:
    """Run ``body`` in a fresh interpreter where importing any of ``modules`` fails, as on a bare install."""
    guard = (
        "import sys\n"
        "class _Missing:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {modules!r}:\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, _Missing())\n"
    )
    return subprocess.run([sys.executable, "-c", guard + body], capture_output=True, text=True, timeout=120)


def test_every_public_name_is_its_home_modules_object() -> None:
    assert sorted(kjoin.__all__) == sorted(kjoin._HOMES) == kjoin.__all__
    for name in kjoin.__all__:
        assert getattr(kjoin, name) is getattr(import_module(kjoin._HOMES[name]), name), name
    assert set(kjoin.__all__) <= set(dir(kjoin))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'JoinSpek'"):
        _ = kjoin.JoinSpek  # type: ignore[attr-defined]


def test_import_kjoin_needs_only_the_core_dependencies() -> None:
    body = (
        "import kjoin\n"
        "from kjoin import Claim, DeclaredDifference, JoinDriver, JoinSpec, KjoinError, check, load_cases\n"
        "driver = JoinDriver(JoinSpec(join='table-table', variant='inner'), kafka='3.9')\n"
        "driver.pipe('left', 'k', 'L0', 1); driver.pipe('right', 'k', 'R0', 2)\n"
        "print(driver.read_outputs())\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {EXTRAS!r}))\n"
    )
    done = _blocking(EXTRAS, body)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[Output(key='k', value=('L0', 'R0'), ts=2, cause=1)]", "[]"]


@pytest.mark.parametrize(
    ("body", "extra"),
    [("from kjoin import streaming_candidate", "spark"), ("import kjoin.strategies", "fuzz")],
)
def test_a_name_without_its_extra_names_the_extra(body: str, extra: str) -> None:
    done = _blocking(EXTRAS, body)
    assert done.returncode == 1
    assert f"pip install 'kjoin-conformance[{extra}]'" in done.stderr.splitlines()[-1]


def _defined_classes() -> list[tuple[str, str]]:
    """(module, class name) of every class defined at the top level of the package's source files."""
    found = []
    for folder, package in SOURCE_FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            module = ".".join([package, *(part for part in parts if part != "__init__")])
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found += [(module, node.name) for node in tree.body if isinstance(node, ast.ClassDef)]
    return found


def test_every_exception_class_derives_from_kjoin_error() -> None:
    """Every ``Exception`` subclass the package defines; a ``BaseException`` that only stops a run (``Stop``,
    like ``KeyboardInterrupt``) stays out of reach of ``except Exception`` and of ``except KjoinError``."""
    exceptions = []
    for module, name in _defined_classes():
        cls = getattr(import_module(module), name)
        if isinstance(cls, type) and issubclass(cls, Exception):
            exceptions.append(cls)
            assert issubclass(cls, KjoinError), f"{module}.{name} does not derive from KjoinError"
    assert len(exceptions) >= 18


def test_errors_keep_their_built_in_bases() -> None:
    from kjoin.conformance.kafka.maven import MavenError

    assert issubclass(kjoin.ScenarioError, ValueError) and issubclass(kjoin.UnknownVersionError, ValueError)
    assert issubclass(kjoin.CandidateLoadError, ValueError) and issubclass(MavenError, RuntimeError)
    with pytest.raises(KjoinError, match="not a Kafka version: 'three'"):
        kjoin.behaviour_for("three")


PUBLIC_PACKAGES = ("kjoin", "kjoin.oracle", "kjoin.conformance.protocol", "kjoin.conformance.checker",
                   "kjoin.conformance.catalogue", "kjoin.conformance.streaming")  # fmt: skip


def test_no_two_public_classes_share_a_name() -> None:
    seen: dict[str, type] = {}
    for package in PUBLIC_PACKAGES:
        module = import_module(package)
        for name in module.__all__:
            value = getattr(module, name)
            if isinstance(value, type):
                assert seen.setdefault(name, value) is value, f"two public classes are called {name}"
    assert "JoinSpec" in seen and "JobShape" in seen
