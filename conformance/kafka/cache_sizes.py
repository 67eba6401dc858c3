"""The record caches of application mode's drawn scenarios (``kjoin verify --application --cache``), in a
module of their own so that ``kjoin verify --help`` states them without importing the generators
(``kjoin.conformance.kafka.app_verify`` draws them; docs/kafka.md, "Small caches: eviction")."""

from __future__ import annotations

__all__ = ["CACHE_BYTES", "SMALL_CACHE_BYTES"]

CACHE_BYTES = 10 * 1024 * 1024
"""The record cache of a drawn scenario with caching on: Kafka's default, 10 MiB."""
SMALL_CACHE_BYTES = (50, 150)
"""The range of a drawn small cache (``--cache evict``), upper bound excluded: an entry of a drawn table
counts about 60 bytes (spec PR-9), so one to six entries fit and most scenarios evict."""
