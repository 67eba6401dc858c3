"""``python -m benchmarks.tier_cpu --per-file``: each test is charged with the CPU of its process tree,
a child still running at the end of the test included (``benchmarks/cpu_per_test.py``), and the run's
first output is timed (``benchmarks/first_output.py``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = """
import subprocess, sys

BURN = "import time\\nend = time.process_time() + 0.6\\nwhile time.process_time() < end: pass\\n" \\
    "print('burnt', flush=True)\\ntime.sleep(120)"
kept = []

def test_burns_in_a_child_left_running():
    child = subprocess.Popen([sys.executable, "-c", BURN], stdout=subprocess.PIPE, text=True)
    kept.append(child)
    assert child.stdout.readline() == "burnt\\n"

def test_idle_then_reaps_the_child():
    for child in kept:
        child.kill()
        child.wait()
"""


def test_per_file_charges_each_test_with_its_process_tree(tmp_path: Path) -> None:
    (tmp_path / "test_burner.py").write_text(TESTS)
    figures = tmp_path / "figures.json"
    benchmark = [sys.executable, "-m", "benchmarks.tier_cpu", "--per-file", "--per-file-json", str(figures)]
    pytest_args = [
        str(tmp_path / "test_burner.py"),
        "-q",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        str(tmp_path),
    ]
    done = subprocess.run(
        [*benchmark, "--linger", "0", "--", *pytest_args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    cpu = {row["nodeid"].rsplit("::", 1)[1]: row["cpu_s"] for row in json.loads(figures.read_text())}
    assert cpu["test_burns_in_a_child_left_running"] >= 0.5, cpu
    assert cpu["test_idle_then_reaps_the_child"] < 0.3, cpu  # the child's CPU moved to the worker's cutime
    assert "test_burner.py" in done.stdout and "the 40 most expensive tests" in done.stdout, done.stdout
    times = r"first output: tests collected after ([\d.]+) s, first result after ([\d.]+) s"
    first = re.search(times, done.stdout)
    wall = re.search(r"wall: ([\d.]+) s", done.stdout)
    assert first and wall, done.stdout  # benchmarks/first_output.py: issue 24's first output within 30 s
    assert 0 < float(first[1]) <= float(first[2]) <= float(wall[1]), done.stdout
