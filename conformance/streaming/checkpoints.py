"""Checkpoint folders for the harness's own streaming queries.

A query started without a ``checkpointLocation`` takes ``spark.sql.streaming.checkpointLocation/<query
name>`` when the user's Spark configuration sets that: a folder left there by an earlier run makes the new
query resume that run's offsets and state, and its outputs look wrong for reasons that are not the
candidate's. Every query the harness starts gets a new, empty folder instead, removed afterwards.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["fresh_checkpoints"]


@contextmanager
def fresh_checkpoints() -> Iterator[Path]:
    """A new, empty folder for the ``with`` block; one subfolder per query (``folder / query_name``)."""
    with tempfile.TemporaryDirectory(prefix="kjoin-checkpoints-") as folder:
        yield Path(folder)
