"""Errors the oracle raises. Each says what was asked and why Kafka cannot do it; all derive from
``KjoinError`` (kjoin/errors.py), the base of every error of the package."""

from __future__ import annotations

from kjoin.errors import KjoinError

__all__ = ["KjoinError", "OracleError", "UnmodelledSettingsError", "UnsupportedJoinError"]


class OracleError(KjoinError):
    """Base class: the oracle cannot compute outputs for this scenario."""


class UnsupportedJoinError(OracleError):
    """The join (or one of its options) does not exist in the requested Kafka version,
    or Kafka itself fails on the input (e.g. 0.10.0's null-key left join)."""


class UnmodelledSettingsError(OracleError):
    """The scenario's production settings change what Kafka emits in a way the oracle does not model
    (docs/semantics/production.md says which); no answer is better than a wrong one."""
