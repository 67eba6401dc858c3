"""``python -m kjoin.conformance`` is ``kjoin``."""

from kjoin.conformance.cli import console

console()
