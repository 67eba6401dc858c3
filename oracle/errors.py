"""Errors the oracle raises. Each says what was asked and why Kafka cannot do it."""

from __future__ import annotations

__all__ = ["OracleError", "UnsupportedJoinError"]


class OracleError(Exception):
    """Base class: the oracle cannot compute outputs for this scenario."""


class UnsupportedJoinError(OracleError):
    """The join (or one of its options) does not exist in the requested Kafka version,
    or Kafka itself fails on the input (e.g. 0.10.0's null-key left join)."""
