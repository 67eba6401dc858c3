"""Decide the ``commit-points`` equivalence level: is a candidate's output what Kafka with record caches emits
for *some* sequence of commit points? (spec CP-1 to CP-4; pure: no oracle, no Spark.)

Kafka's side is a segment function (``Segments.segment``): ``segment(p, q)`` are the outputs Kafka emits from
a commit after its first ``p`` input records up to and including the next commit, after the first ``q``.
After a commit at ``p`` every store below a cache holds the state after the first ``p`` records, so these
outputs depend on ``(p, q)`` only, and Kafka's output for commit points ``0 = p0 < p1 < ... < pm = n`` (the
last one is the end of the input, which flushes) is ``segment(p0, p1) + ... + segment(pm-1, pm)``.

A candidate's outputs are explained by those commit points when they split into consecutive blocks, block
``i`` being segment ``i``'s *batch*: for every key, the same outputs in the same order, keys interleaved in
any order; with ``merge_repeats`` (table results), consecutive identical outputs of one key within a block
count once, on either side.

The decision never enumerates schedules. It is a reachability search over states ``(p, j)``: the
candidate's first ``j`` outputs are explained by commit points ending at ``p``. From ``(0, 0)`` a state
steps to ``(q, k)`` for each ``q > p`` and each ``k`` such that the candidate's outputs ``j .. k-1`` are
``segment(p, q)``'s batch (one scan from ``j``, which stops at the first output the batch cannot hold); the
output is explained iff ``(n, M)`` is reachable. With ``n`` inputs and ``M`` candidate outputs that is at
most ``(n+1)(M+1)`` states, each trying ``n`` segments with a scan of at most ``M`` outputs:
O(n^2 * M^2) steps in the worst case (far fewer in practice, as scans stop early), and at most
``n(n+1)/2`` calls of ``segment``, each memoised.

When no commit points explain the output, the search says how far any did: the candidate's first output
that no schedule explains (with Kafka's output for the same key at that place, when there is one), or, when
every candidate output is explained but the input is not finished, the first output Kafka must still emit.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

from kjoin.oracle.records import Key, Output

__all__ = ["Explanation", "Segments", "by_cause", "explain"]


@dataclass(frozen=True)
class Segments:
    """Kafka's side of the level: ``inputs`` records and ``segment(p, q)``, the outputs between a commit
    after the first ``p`` records and the next one after the first ``q`` (``0 <= p < q <= inputs``).
    ``merge_repeats``: consecutive identical outputs of one key within one commit count once (table
    results, spec CP-2)."""

    inputs: int
    segment: Callable[[int, int], Sequence[Output]]
    merge_repeats: bool = True


def by_cause(outputs: Sequence[Output], inputs: int, *, merge_repeats: bool = False) -> Segments:
    """The segments of a join whose outputs no commit changes (stream results: no record cache forwards
    them): between two commits, the outputs emitted while processing the records between them (``cause``
    in ``[p, q)``; ``outputs`` with known causes)."""

    def segment(p: int, q: int) -> Sequence[Output]:
        return [output for output in outputs if p <= output.cause < q]

    return Segments(inputs, segment, merge_repeats)


@dataclass(frozen=True, slots=True)
class Explanation:
    """What the search found.

    ``commits``: on success, the input indexes after which a commit explains the candidate's output (the
    last one is the end of the input). On failure: the commits before the segment that explains the most of
    it, which ends with the commit after input ``#until``; the candidate's first ``explained`` outputs fit
    them. ``unexplained`` is the candidate's first output no schedule explains (``None`` when all fit but
    Kafka must still emit ``expected``). ``expected`` is, in that segment, Kafka's next output for the
    unexplained output's key, else its first output the candidate has not emitted.
    """

    passed: bool
    commits: tuple[int, ...]
    explained: int = 0
    unexplained: Output | None = None
    expected: Output | None = None
    until: int | None = None


Content = Hashable


@dataclass(frozen=True, slots=True)
class _Batch:
    """One segment as a batch: per key, its outputs (consecutive repeats merged when asked), in order."""

    per_key: dict[Key, tuple[Output, ...]]
    contents: dict[Key, tuple[Content, ...]]
    size: int
    order: tuple[Output, ...]


@dataclass(slots=True)
class _Scan:
    """How far one batch explains the candidate's outputs from a start: each end where it is complete,
    how many outputs it holds before it stops, and how far each key got."""

    ends: list[int] = field(default_factory=list)
    held: int = 0
    progress: dict[Key, int] = field(default_factory=dict)


def explain(candidate: Sequence[Output], kafka: Segments, *, timestamps: bool = True) -> Explanation:
    """Whether some commit points make Kafka emit ``candidate`` (module docstring), and which."""
    n, total = kafka.inputs, len(candidate)
    contents = [_content(output, timestamps) for output in candidate]
    batches: dict[tuple[int, int], _Batch] = {}

    def batch(p: int, q: int) -> _Batch:
        if (p, q) not in batches:
            batches[p, q] = _as_batch(kafka.segment(p, q), timestamps, kafka.merge_repeats)
        return batches[p, q]

    if n == 0:
        if total == 0:
            return Explanation(True, ())
        return Explanation(False, (), 0, candidate[0])
    came_from: dict[tuple[int, int], tuple[int, int]] = {}
    reached: list[set[int]] = [set() for _ in range(n + 1)]
    reached[0].add(0)
    best: tuple[tuple[int, bool, int, int], int, int, int, _Scan] | None = None
    for p in range(n):
        for j in sorted(reached[p]):
            for q in range(p + 1, n + 1):
                found = _scan(candidate, contents, j, batch(p, q), kafka.merge_repeats)
                for k in found.ends:
                    if (q, k) not in came_from:
                        came_from[q, k] = (p, j)
                        reached[q].add(k)
                if (n, total) in came_from:
                    return Explanation(True, _commits(came_from, n, total))
                stop = j + found.held
                key_has_next = (
                    stop < total and _next_for_key(batch(p, q), found, candidate[stop].key) is not None
                )
                # the furthest; then, for an output no schedule explains, the fewest commits before it, for
                # outputs still missing, the latest commit; then the earliest next commit
                rank = (stop, key_has_next, p if stop == total else -p, -q)
                if best is None or rank > best[0]:
                    best = (rank, p, j, q, found)
    assert best is not None
    _, p, j, q, found = best
    stop = j + found.held
    commits = _commits(came_from, p, j)
    chosen = batch(p, q)
    if stop < total:
        actual = candidate[stop]
        expected = _next_for_key(chosen, found, actual.key) or _first_unmatched(chosen, found)
        return Explanation(False, commits, stop, actual, expected, q - 1)
    return Explanation(False, commits, stop, None, _first_unmatched(chosen, found), q - 1)


def _content(output: Output, timestamps: bool) -> Content:
    return (output.key, output.value, output.ts if timestamps else None)


def _as_batch(outputs: Sequence[Output], timestamps: bool, merge_repeats: bool) -> _Batch:
    per_key: dict[Key, list[Output]] = {}
    contents: dict[Key, list[Content]] = {}
    order: list[Output] = []
    for output in outputs:
        content = _content(output, timestamps)
        seen = contents.setdefault(output.key, [])
        if merge_repeats and seen and seen[-1] == content:
            continue
        seen.append(content)
        per_key.setdefault(output.key, []).append(output)
        order.append(output)
    return _Batch(
        {key: tuple(found) for key, found in per_key.items()},
        {key: tuple(found) for key, found in contents.items()},
        len(order),
        tuple(order),
    )


def _scan(
    candidate: Sequence[Output], contents: Sequence[Content], start: int, batch: _Batch, merge_repeats: bool
) -> _Scan:
    """Match the candidate's outputs from ``start`` against ``batch``, key by key, until one does not fit."""
    found = _Scan(ends=[start] if batch.size == 0 else [])
    done, index = 0, start
    while index < len(candidate):
        key = candidate[index].key
        wanted = batch.contents.get(key)
        if wanted is None:
            break
        position = found.progress.get(key, 0)
        if position < len(wanted) and wanted[position] == contents[index]:
            found.progress[key] = position + 1
            done += 1
        elif not (merge_repeats and position > 0 and wanted[position - 1] == contents[index]):
            break
        index += 1
        if done == batch.size:
            found.ends.append(index)
    found.held = index - start
    return found


def _next_for_key(batch: _Batch, found: _Scan, key: Key) -> Output | None:
    """Kafka's next output for ``key`` in ``batch`` after what the scan matched, if any."""
    outputs = batch.per_key.get(key, ())
    position = found.progress.get(key, 0)
    return outputs[position] if position < len(outputs) else None


def _first_unmatched(batch: _Batch, found: _Scan) -> Output | None:
    """Kafka's first output in ``batch`` (in its order) that the scan did not match."""
    for output in batch.order:
        position = found.progress.get(output.key, 0)
        outputs = batch.per_key[output.key]
        if position < len(outputs) and outputs[position] is output:
            return output
    return None


def _commits(came_from: dict[tuple[int, int], tuple[int, int]], p: int, j: int) -> tuple[int, ...]:
    """The commit points (as the input index each follows) of the path that reached ``(p, j)``."""
    points: list[int] = []
    while p > 0:
        points.append(p - 1)
        p, j = came_from[p, j]
    return tuple(reversed(points))
