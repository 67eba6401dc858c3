"""The job's own recovery of a task's processing order from Kafka coordinates (spec TK-2).

A Kafka Streams task owning partition p of the ``left`` and ``right`` topics buffers both and takes the
record at the head of the partition whose head timestamp is smaller. With two partitions, the
``PriorityQueue`` of ``PartitionGroup`` comes down to: the queue with the strictly smaller head timestamp
goes next; on a tie, the queue that was not polled last (at first: ``left``, buffered first). A drained
queue leaves. Written from the specification, independently of ``oracle.tasks`` (a unit test compares them).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["SIDES", "merge_positions"]

SIDES = ("left", "right")


def merge_positions(
    left: Sequence[int], right: Sequence[int], last: str | None = None
) -> list[tuple[str, int]]:
    """The order a task processes its two partitions' records, given each one's timestamps in offset order:
    ``(side, position in that partition)`` pairs. ``last`` is the side polled last before these records
    (``None``: none yet, so a first tie goes to ``left``)."""
    heads = {"left": 0, "right": 0}
    stamps = {"left": left, "right": right}
    order: list[tuple[str, int]] = []
    while heads["left"] < len(left) or heads["right"] < len(right):
        if heads["left"] >= len(left):
            side = "right"
        elif heads["right"] >= len(right):
            side = "left"
        else:
            left_ts, right_ts = stamps["left"][heads["left"]], stamps["right"][heads["right"]]
            if left_ts != right_ts:
                side = "left" if left_ts < right_ts else "right"
            else:
                side = "right" if last == "left" else "left"
        order.append((side, heads[side]))
        heads[side] += 1
        last = side
    return order
