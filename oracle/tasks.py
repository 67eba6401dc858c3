"""Kafka Streams tasks: which records a join processes together, and in which order (spec TK-1, TK-2).

A scenario of the catalogue is one task: its records are given in processing order. Real topics have
partitions; Kafka Streams runs one **task** per partition number, owning that partition of each
co-partitioned input topic, and every piece of join state lives in the task: window stores, the outer
join's held records and its stream time, table contents, versioned histories (spec TK-1). So a join over
partitioned input is exactly the join of each task's records, and this module gives a task's processing
order: ``PartitionGroup#nextRecord`` takes the record at the head of the partition whose head timestamp is
smallest, in a ``java.util.PriorityQueue`` (spec TK-2), simulated here to the tie.
"""

from __future__ import annotations

from collections.abc import Sequence

from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.engine import run
from kjoin.oracle.errors import UnsupportedJoinError
from kjoin.oracle.records import JoinSpec, Output, Record

__all__ = ["processing_order", "run_task"]


class _Heap:
    """``java.util.PriorityQueue`` of partition queues ordered by head timestamp: the same sift rules, so
    equal head timestamps break ties the way Kafka's heap does (not first-come, not by partition)."""

    def __init__(self) -> None:
        self.items: list[int] = []

    def offer(self, queue: int, key: list[int]) -> None:
        items = self.items
        items.append(queue)
        k = len(items) - 1
        while k > 0:  # siftUp: stop at the first parent that is not larger
            parent = (k - 1) >> 1
            if key[queue] >= key[items[parent]]:
                break
            items[k] = items[parent]
            k = parent
        items[k] = queue

    def poll(self, key: list[int]) -> int:
        items = self.items
        result = items[0]
        last = items.pop()
        if items:  # siftDown the last element from the root
            n, k = len(items), 0
            while k < n >> 1:
                child = 2 * k + 1
                if child + 1 < n and key[items[child]] > key[items[child + 1]]:
                    child += 1
                if key[last] <= key[items[child]]:
                    break
                items[k] = items[child]
                k = child
            items[k] = last
        return result


def processing_order(partitions: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """The order in which one task processes its partitions' records, given each partition's record
    timestamps in offset order and the partitions in the order their first records were buffered: a list of
    ``(partition position, offset position)``.

    Assumes all the data is buffered before processing starts (no partition waits for more, so
    ``max.task.idle.ms`` plays no part): the task takes the head of the partition with the smallest head
    timestamp, and a drained partition leaves the queue (spec TK-2)."""
    heads = [0] * len(partitions)
    head_ts = [part[0] if part else -1 for part in partitions]
    heap = _Heap()
    for queue, part in enumerate(partitions):
        if part:
            heap.offer(queue, head_ts)
    order: list[tuple[int, int]] = []
    while heap.items:
        queue = heap.poll(head_ts)
        order.append((queue, heads[queue]))
        heads[queue] += 1
        if heads[queue] < len(partitions[queue]):
            head_ts[queue] = partitions[queue][heads[queue]]
            heap.offer(queue, head_ts)
    return order


def run_task(
    spec: JoinSpec, left: Sequence[Record], right: Sequence[Record], behaviour: Behaviour
) -> tuple[list[Record], list[Output]]:
    """One task of a co-partitioned join: the left and right partition's records (each in offset order) in
    Kafka's processing order, and the outputs of the join over them (``cause`` indexes that order).

    Foreign-key joins are not one task: their subscriptions travel through repartition topics keyed by the
    foreign key, so their state spans tasks (spec TK-3)."""
    if spec.join == "fk":
        raise UnsupportedJoinError(
            "a foreign-key join is not one task per partition: it repartitions by the foreign key (spec TK-3)"
        )
    sides = (left, right)
    order = processing_order([[record.ts for record in side] for side in sides])
    records = [sides[queue][position] for queue, position in order]
    return records, run(spec, records, behaviour)
