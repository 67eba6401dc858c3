"""Every benchmark (``benchmarks/``) and maintenance script (``tools/``) imports against today's package: they
are not installed and no other test runs them, so an API they use that moves or goes fails here instead of
when someone next runs a documented command (docs/testing.md, "Benchmarks"). Import only: nothing is run.

The imports happen in one child process started from the project's root, the way the scripts are run
(``python -m benchmarks.NAME``, ``python tools/NAME.py``), so their ``sys.path`` changes stay there.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

IMPORT_ALL = """
import importlib, importlib.util, json, sys, traceback
failed = {}
for name in sys.argv[1:]:
    try:
        if name.endswith(".py"):
            spec = importlib.util.spec_from_file_location("tool_" + name.rsplit("/", 1)[-1][:-3], name)
            module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        else:
            importlib.import_module(name)
    except BaseException:
        failed[name] = traceback.format_exc(limit=-3)
print(json.dumps(failed))
"""


def _scripts() -> list[str]:
    modules = sorted(path.stem for path in (ROOT / "benchmarks").glob("*.py") if path.stem != "__init__")
    benchmarks = [f"benchmarks.{stem}" for stem in modules]
    tools = [f"tools/{path.name}" for path in sorted((ROOT / "tools").glob("*.py"))]
    return benchmarks + tools


def test_every_benchmark_and_tool_imports() -> None:
    scripts = _scripts()
    assert {"benchmarks.harness_batching", "benchmarks.report_size", "tools/verify_matrix.py"} <= set(scripts)
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL, *scripts], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    failed = json.loads(done.stdout.strip().splitlines()[-1])
    assert not failed, "\n".join(f"{name}:\n{error}" for name, error in failed.items())
