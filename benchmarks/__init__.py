"""Benchmarks of the oracle (run with ``nox -s bench``; never part of the test suite's timing)."""
