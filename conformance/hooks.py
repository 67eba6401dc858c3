"""Hook specifications of the kjoin pytest plugin (registered by ``conformance/plugin.py``)."""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["pytest_kjoin_results"]


def pytest_kjoin_results(config: pytest.Config, document: dict[str, Any]) -> None:
    """Called with the results document of a candidate run before it is written (once, on the controller)."""
