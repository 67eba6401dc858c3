"""KTable record caches and the commits that flush them (spec PR-5 to PR-9).

With ``statestore.cache.max.bytes`` above 0 a materialized, non-versioned source table of a table join
writes into a record cache in front of its store, and its ``KTableSource`` forwards nothing itself
(``CachedTable.update``). The cache holds one dirty entry per key: the newest value and the timestamp of the
update that wrote it. A commit flushes the caches store by store (``CachedTable.flush``): each dirty entry, in
the order its key was last written, is written to the store below and forwarded as ``Change(new, old)``
with ``old`` the value the store below held, except a delete of a key the store below does not hold, which
is neither written nor forwarded (``CachingKeyValueStore#putAndMaybeForward``). Lookups read through the
cache and see the newest value, flushed or not (``CachedTable.get``).

``CommitPoints`` says when the task commits: after every record when ``commit_interval_ms`` is 0 (the test
driver); otherwise after a record with ``commit``, after a record processed more than the interval (wall
clock) after the last commit, and once more when the application closes (spec PR-8).

The cached tables of a join share the stream thread's cache (``oracle.thread_cache``): when a write leaves it
over its size, the written table's cache evicts least recently used entries, and evicting a dirty one flushes
that table's dirty entries at once (spec PR-9).

Stream-table joins read the table through the cache and forward only from the stream, so the cache changes
nothing there; stream-stream join stores are never cached.
"""

from __future__ import annotations

from collections.abc import Callable

from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.errors import UnmodelledSettingsError
from kjoin.oracle.records import JoinSpec, Key, Record, Value
from kjoin.oracle.thread_cache import Entry, ThreadCache, entry_size
from kjoin.oracle.versioned import PlainTable

__all__ = ["CachedTable", "CommitPoints", "cached_sources", "commit_points"]


def cached_sources(spec: JoinSpec, behaviour: Behaviour) -> tuple[bool, bool]:
    """Whether the left and the right source table of a table-table or foreign-key join are cached (spec
    PR-5): caching is on and the side is not versioned (versioned stores are never cached). Raises
    ``UnmodelledSettingsError`` for a cache the oracle cannot model in this era or join."""
    settings = spec.settings
    if settings.cache_max_bytes == 0:
        return False, False
    if not behaviour.record_cache_skips_deletes_of_absent_keys:
        raise UnmodelledSettingsError(
            f"record caching is modelled from Kafka 2.3 (era {behaviour.era}): before 2.2 a cache flush "
            "forwards every dirty entry (spec PR-6)"
        )
    versioning = spec.versioned
    left = versioning is None or not versioning.left
    right = versioning is None or not versioning.right
    if settings.commit_interval_ms > 0 and spec.join == "fk" and (left or right):
        raise UnmodelledSettingsError(
            f"a record cache under commit.interval.ms = {settings.commit_interval_ms} is not modelled for "
            "foreign-key joins: when a flushed subscription or response is read from its internal topic "
            "depends on the application's polling, not on the input (spec PR-8); 0 commits after every record"
        )
    return left, right


class CachedTable:
    """A non-versioned source table behind its record cache (``CachingKeyValueStore`` over the store
    below, ``store``): writes go to the cache, reads read through it, and a flush of the cache writes each
    dirty entry to ``store`` and hands what it forwards, ``(key, new, old, ts)``, to ``forward`` (PR-6)."""

    __slots__ = ("_cache", "_forward", "_key_kind", "_refuses_mixed_keys", "_thread", "_topic", "store")

    def __init__(
        self,
        thread: ThreadCache,
        topic: str,
        forward: Callable[[Key, Value, Value, int], None],
        *,
        exact_sizes: bool,
    ) -> None:
        self.store = PlainTable()
        self._thread = thread
        self._topic = topic
        self._forward = forward
        self._cache = thread.named(self._put_and_maybe_forward)
        self._key_kind: type | None = None
        self._refuses_mixed_keys = exact_sizes
        """Under a commit interval the size decides when entries are evicted: a key's size must be known."""

    def update(self, key: Key, value: Value, ts: int) -> None:
        """``KTableSource`` with caching: read the old value (through the cache), then write the update as the
        key's dirty entry; nothing is forwarded but what an eviction flushes (spec PR-5, PR-9)."""
        self.get(key)
        size = entry_size(self._key_bytes(key), value, self._topic)
        self._thread.put(self._cache, key, Entry(value, ts, True, size))

    def get(self, key: Key) -> tuple[str, int] | None:
        """The newest ``(value, ts)`` of ``key``, dirty or flushed (a dirty delete reads as absent); a key
        the cache does not hold is read from the store below and, if found there, cached clean (with no
        topic), which may evict (``CachingKeyValueStore#getInternal``)."""
        entry = self._thread.get(self._cache, key)
        if entry is not None:
            return None if entry.value is None else (entry.value, entry.ts)
        below = self.store.get(key)
        if below is not None:
            size = entry_size(self._key_bytes(key), below[0], "")
            self._thread.put(self._cache, key, Entry(below[0], below[1], False, size))
        return below

    def flush(self) -> None:
        """Flush the dirty entries (a commit, spec PR-8)."""
        self._thread.flush(self._cache)

    def _put_and_maybe_forward(self, flushed: list[tuple[Key, Entry]]) -> None:
        """Each flushed entry in order: a delete of a key the store below does not hold is skipped, anything
        else is written to the store below and forwarded with the value it held (spec PR-6)."""
        store = self.store
        for key, entry in flushed:
            old = store.get(key)
            if entry.value is None and old is None:
                continue
            store.update(key, entry.value, entry.ts)
            self._forward(key, entry.value, None if old is None else old[0], entry.ts)

    def _key_bytes(self, key: Key) -> int:
        """The serialized key's size in the project's Kafka drivers: a string's UTF-8 bytes, or 8 for an
        integer (a long, as every key of the topic is one; a table with both kinds is refused when the size
        matters, spec PR-9)."""
        kind = type(key)
        if self._key_kind is None:
            self._key_kind = kind
        elif kind is not self._key_kind and self._refuses_mixed_keys:
            raise UnmodelledSettingsError(
                f"the cached table {self._topic!r} has both string and integer keys under a commit interval: "
                "the size of a serialized key, which decides evictions, depends on the driver's serde "
                "(spec PR-9)"
            )
        return len(key.encode()) if isinstance(key, str) else 8

    def snapshot(self) -> dict[str, object]:
        """The store below, the dirty entries ``[key, value, ts]`` in flush order, and how many entries the
        cache has evicted so far (``evicted``), the dirty ones among them (``evicted_dirty``, each flushed the
        store early, spec PR-9)."""
        cache = self._cache
        entries = cache.entries
        return {
            "store": self.store.snapshot(),
            "dirty": [[key, entries[key].value, entries[key].ts] for key in cache.dirty],
            "evicted": cache.evicted,
            "evicted_dirty": cache.evicted_dirty,
        }


class CommitPoints:
    """When the task commits, record by record (spec PR-7, PR-8): ``after(record)`` is asked once per record,
    in processing order, after the record is processed."""

    __slots__ = ("_interval_ms", "_last_commit", "_wall_clock")

    def __init__(self, interval_ms: int) -> None:
        self._interval_ms = interval_ms
        self._wall_clock = 0
        self._last_commit = 0

    def after(self, record: Record) -> bool:
        """Whether the task commits right after ``record``: always when the interval is 0; else when the
        record asks for it (``commit``), or when its wall clock is more than the interval past the last
        commit's (``StreamThread#maybeCommit``'s ``now - lastCommitMs > commitTimeMs``, checked here after
        every record)."""
        if record.wall_clock is not None:
            self._wall_clock = record.wall_clock
        if (
            self._interval_ms == 0
            or record.commit
            or self._wall_clock - self._last_commit > self._interval_ms
        ):
            self._last_commit = self._wall_clock
            return True
        return False


def commit_points(spec: JoinSpec) -> CommitPoints | None:
    """The commit points of ``spec``'s run, or None when no store of its join is ever cached (no cache, or a
    stream-table or stream-stream join), so that commits cannot change what it emits (spec PR-5)."""
    settings = spec.settings
    if settings.cache_max_bytes == 0 or spec.join not in ("table-table", "fk"):
        return None
    return CommitPoints(settings.commit_interval_ms)
