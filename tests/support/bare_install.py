"""Run ``kjoin`` as on a bare install (core dependencies only) inside this test environment.

``python -m support.bare_install ARG ...`` hides the extras' packages (pyspark, pandas, pyarrow, hypothesis,
pytest and what they bring) from the import system, exactly as if they were not installed: every finder on
``sys.meta_path`` is wrapped so that it finds none of them (``import`` raises ``ModuleNotFoundError``,
``importlib.util.find_spec`` returns ``None``). Then it imports every module of the core, runs
``kjoin ARG ...`` and exits with its code. ``--modules`` instead prints the ``kjoin`` modules that running
``kjoin ARG ...`` imported (one per line, after the command's own output and a ``--`` line).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

EXTRAS = frozenset({"pyspark", "py4j", "pandas", "numpy", "pyarrow", "hypothesis", "pytest", "_pytest"})
"""Top-level modules of the extras (and of their own dependencies) a bare install does not have."""

CORE_PACKAGES = (
    "kjoin.oracle",
    "kjoin.conformance.catalogue",
    "kjoin.conformance.documents",
    "kjoin.conformance.cli",
)
CORE_MODULES = (
    "kjoin.conformance.codec",
    "kjoin.conformance.checker",
    "kjoin.conformance.notation",
    "kjoin.conformance.stated",
    "kjoin.reports",
)
"""What ``kjoin oracle``, ``check`` and ``diff-versions`` are made of (the document layer included: reports,
comparisons and version diffs need no Spark), and every command's parser."""


class _Hidden:
    """A meta-path finder that finds nothing of ``EXTRAS`` and defers everything else to ``finder``."""

    def __init__(self, finder: Any) -> None:
        self.finder = finder

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> Any:
        if name.split(".")[0] in EXTRAS:
            return None
        return self.finder.find_spec(name, path, target)

    def find_distributions(self, *args: Any, **kwargs: Any) -> Any:
        find = getattr(self.finder, "find_distributions", None)
        return () if find is None else find(*args, **kwargs)

    def invalidate_caches(self) -> None:
        invalidate = getattr(self.finder, "invalidate_caches", None)
        if invalidate is not None:
            invalidate()


def hide_extras() -> None:
    loaded = sorted(name for name in sys.modules if name.split(".")[0] in EXTRAS)
    if loaded:
        raise SystemExit(f"already imported before the extras could be hidden: {loaded}")
    sys.meta_path[:] = [_Hidden(finder) for finder in sys.meta_path]


def import_core() -> None:
    for name in CORE_MODULES:
        importlib.import_module(name)
    for name in CORE_PACKAGES:
        package = importlib.import_module(name)
        for module in pkgutil.walk_packages(package.__path__, prefix=f"{name}."):
            importlib.import_module(module.name)


def main(argv: list[str]) -> int:
    hide_extras()
    if argv[:1] == ["--modules"]:
        from kjoin.conformance.cli import main as kjoin

        code = kjoin(argv[1:])
        print("--")
        print("\n".join(sorted(name for name in sys.modules if name.startswith("kjoin."))))
        return code
    import_core()
    from kjoin.conformance.cli import main as kjoin

    return kjoin(argv)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
