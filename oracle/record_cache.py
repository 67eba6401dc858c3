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

Stream-table joins read the table through the cache and forward only from the stream, so the cache changes
nothing there; stream-stream join stores are never cached. Eviction (a cache over its size) is not modelled
yet: a run under a commit interval is refused when its cache could outgrow the size (spec PR-9).
"""

from __future__ import annotations

from collections.abc import Iterator

from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.errors import UnmodelledSettingsError
from kjoin.oracle.records import JoinSpec, Key, Record, Value
from kjoin.oracle.versioned import PlainTable

__all__ = ["CacheBound", "CachedTable", "CommitPoints", "cached_sources", "commit_points"]


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


_ENTRY_OVERHEAD = 45
"""Bytes ``NamedCache`` counts for an entry besides its key, its value and its topic's name: 24 for the LRU
node's references, 1 for the dirty flag, 8 + 8 + 4 for the record context's timestamp, offset and partition
(``LRUNode#size``, ``LRUCacheEntry``, ``ProcessorRecordContext#residentMemorySizeEstimate``, 2.4.1 to
trunk@1eb7644; spec PR-9)."""

_TIMESTAMP_BYTES = 8
"""The timestamp a timestamped store's value carries in front of the value (``ValueAndTimestamp``)."""

_LONGEST_TOPIC = len("right")
"""The longest input topic name (``left``, ``right``): a cache entry counts its topic's name."""


class CacheBound:
    """An upper bound of the bytes a thread's record cache holds, grown as keys and values appear, for runs
    whose commits leave entries dirty across records (spec PR-9). Eviction is not modelled: when the bound
    passes ``statestore.cache.max.bytes`` the run is refused, since an evicted dirty entry would flush early.

    Per cached store the bound counts every key the store was written or read with (a read of a key the store
    below holds puts a clean entry in the cache) at its largest serialized size (a string's UTF-8, or the
    8 bytes of a long), each with the store's largest value, its timestamp and the entry overhead."""

    __slots__ = ("_bytes", "_keys", "_limit", "_longest_value")

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._bytes = 0
        self._keys: dict[int, set[Key]] = {}
        self._longest_value: dict[int, int] = {}

    def count(self, store: object, key: Key, value: Value) -> None:
        """Count ``key`` (and ``value``, if written) in ``store``'s cache; raise once the bound passes the
        cache's size."""
        name = id(store)
        keys = self._keys.setdefault(name, set())
        longest = self._longest_value.get(name, 0)
        size = 0 if value is None else len(value.encode())
        if size > longest:
            self._bytes += (size - longest) * len(keys)
            self._longest_value[name] = longest = size
        if key not in keys:
            keys.add(key)
            key_size = max(len(str(key).encode()), 8)
            self._bytes += key_size + _TIMESTAMP_BYTES + longest + _LONGEST_TOPIC + _ENTRY_OVERHEAD
        if self._bytes > self._limit:
            raise UnmodelledSettingsError(
                f"the record cache ({self._limit} bytes) may fill up under commit.interval.ms > 0 (up to "
                f"{self._bytes} bytes by Kafka's accounting): eviction, which flushes a store's dirty "
                "entries early, is not modelled (spec PR-9)"
            )


class CachedTable:
    """A non-versioned source table behind its record cache: ``store`` is the table below the cache,
    ``dirty`` the entries written since the last flush, in the order their keys were last written.
    ``bound`` counts what the cache may hold (None: the size cannot matter, every record commits)."""

    __slots__ = ("bound", "dirty", "store")

    def __init__(self, bound: CacheBound | None) -> None:
        self.store = PlainTable()
        self.dirty: dict[Key, tuple[Value, int]] = {}
        self.bound = bound

    def update(self, key: Key, value: Value, ts: int) -> None:
        """``KTableSource`` with caching: the update replaces the key's dirty entry, whose key moves to the
        end of the flush order (``NamedCache#put`` removes and re-adds a dirty key); nothing is forwarded."""
        if self.bound is not None:
            self.bound.count(self, key, value)
        dirty = self.dirty
        dirty.pop(key, None)
        dirty[key] = (value, ts)

    def get(self, key: Key) -> tuple[str, int] | None:
        """The newest ``(value, ts)`` of ``key``, dirty or flushed (a dirty delete reads as absent)."""
        if self.bound is not None:
            self.bound.count(self, key, None)
        dirty = self.dirty
        if key not in dirty:
            return self.store.get(key)
        value, ts = dirty[key]
        return None if value is None else (value, ts)

    def flush(self) -> Iterator[tuple[Key, Value, Value, int]]:
        """Flush every dirty entry in order: write it to the store below and yield what the cache forwards,
        ``(key, new, old, ts)`` with ``old`` the value the store below held; a delete of a key the store
        below does not hold is skipped (spec PR-6). The dirty set is emptied before the first entry is
        forwarded, as ``NamedCache#flush`` does (a forward may read this table again)."""
        entries, self.dirty = self.dirty, {}
        store = self.store
        for key, (new, ts) in entries.items():
            old = store.get(key)
            if new is None and old is None:
                continue
            store.update(key, new, ts)
            yield key, new, None if old is None else old[0], ts

    def snapshot(self) -> dict[str, object]:
        """The store below and the dirty entries, in flush order."""
        return {
            "store": self.store.snapshot(),
            "dirty": [[key, value, ts] for key, (value, ts) in self.dirty.items()],
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
