"""``python -m kjoin.conformance`` is ``kjoin``."""

from kjoin.conformance.cli import main

raise SystemExit(main())
