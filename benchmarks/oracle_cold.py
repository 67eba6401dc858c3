"""The oracle's own processing as ``kjoin oracle --jsonl`` does it: once, in a fresh process.

    python -m benchmarks.oracle_cold FILE

Reads the first portable line of ``FILE`` as the command reads it (``case_from_line``), then runs the
oracle on it once, with the cyclic garbage collector paused as the command pauses it, and prints the CPU
seconds (user + system) of that run alone. Measured this way, the oracle pays what it pays inside the
command: its first touch of fresh memory (page faults: system time), cold caches, no earlier run's freed
memory to reuse, and no collector pass as ``run`` returns (the command's pause spans the line). The command
line's overhead is measured against this figure.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from kjoin.conformance.catalogue.portable import case_from_line
from kjoin.oracle import behaviour_for
from kjoin.oracle.engine import cyclic_gc_paused, run

__all__ = ["main"]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    path = Path(argv[0])
    with path.open("rb") as lines:
        case = case_from_line(lines.readline(), str(path), 1)
    behaviour = behaviour_for(case.kafka, intended=case.intended)
    with cyclic_gc_paused():
        started = time.process_time()
        outputs = run(case.spec, case.records, behaviour)
        seconds = time.process_time() - started
    print(f"{seconds:.6f} {len(outputs)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
