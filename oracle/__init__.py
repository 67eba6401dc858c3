"""The semantics oracle: what Kafka Streams of a given version emits for a join scenario.

Pure Python, no Spark or pandas (a test enforces it). Start at ``behaviour.py`` (the era table of named
flags), then read the join module for the join kind you care about.
"""

from kjoin.oracle.behaviour import BUG_FLAGS, ERAS, Behaviour, UnknownVersionError, behaviour_for
from kjoin.oracle.driver import InvalidRecordError, JoinDriver
from kjoin.oracle.engine import JoinProcessor, processor_for, run, run_traced
from kjoin.oracle.errors import KjoinError, OracleError, UnsupportedJoinError
from kjoin.oracle.records import JoinSpec, Output, Record, Settings, Versioning, Window

__all__ = [
    "BUG_FLAGS",
    "ERAS",
    "Behaviour",
    "InvalidRecordError",
    "JoinDriver",
    "JoinProcessor",
    "JoinSpec",
    "KjoinError",
    "OracleError",
    "Output",
    "Record",
    "Settings",
    "UnknownVersionError",
    "UnsupportedJoinError",
    "Versioning",
    "Window",
    "behaviour_for",
    "processor_for",
    "run",
    "run_traced",
]
