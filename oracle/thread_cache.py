"""A stream thread's record cache: its size accounting, LRU eviction and flushes (spec PR-9).

One ``ThreadCache`` of ``statestore.cache.max.bytes`` holds a ``NamedCache`` per cached store. Each entry
counts its serialized key, its serialized value, the name of the topic of the record that wrote it and 45
bytes (``entry_size``). A named cache keeps its entries least recently used first (a read or a write makes
an entry the newest) and its dirty keys in the order they were last written. When a write leaves the thread's
cache over its size, the written store's cache evicts its least recently used entries until the thread's cache
fits or that store's cache is empty; evicting a dirty entry flushes all of that store's dirty entries, the
evicted one first. A flush marks the entries clean and empties the dirty set before it hands them to the store
(which may read the caches again), then drops the deletes it flushed from the cache.

Before 3.4 the thread's size is the sum of its named caches' sizes at the moment it is read; from 3.4
(KAFKA-14415) it is a running total that an operation on a named cache updates when the operation returns, so
an eviction's own flush, and what that flush makes other stores read and write, see the size from before the
eviction (``Behaviour.thread_cache_size_is_a_running_total``).
"""

from __future__ import annotations

from collections.abc import Callable

from kjoin.oracle.records import Key, Value

__all__ = ["Entry", "NamedCache", "ThreadCache", "entry_size"]

ENTRY_OVERHEAD = 45
"""Bytes an entry counts besides its key, its value and its topic's name: 24 for the LRU node's three
references, 1 for the dirty flag, 8 + 8 + 4 for the record context's timestamp, offset and partition
(``NamedCache.LRUNode#size``, ``LRUCacheEntry``, ``ProcessorRecordContext#residentMemorySizeEstimate``)."""

TIMESTAMP_BYTES = 8
"""A timestamped store's value is its record's timestamp (8 bytes) and the value (``ValueAndTimestamp``)."""


def entry_size(key_bytes: int, value: Value, topic: str) -> int:
    """What an entry counts: ``key_bytes`` of serialized key, the value's UTF-8 bytes behind its timestamp
    (nothing for a delete), the topic name's characters (records carry no headers here) and the overhead."""
    value_bytes = 0 if value is None else TIMESTAMP_BYTES + len(value.encode())
    return key_bytes + value_bytes + len(topic) + ENTRY_OVERHEAD


class Entry:
    """One cache entry (``LRUCacheEntry``): a value (None: a delete) with its timestamp, whether it is dirty,
    and its size, fixed when it is made."""

    __slots__ = ("dirty", "size", "ts", "value")

    def __init__(self, value: Value, ts: int, dirty: bool, size: int) -> None:
        self.value = value
        self.ts = ts
        self.dirty = dirty
        self.size = size


Listener = Callable[[list[tuple[Key, Entry]]], None]
"""What a store does with the entries a flush hands it (``CachingKeyValueStore#putAndMaybeForward`` each)."""


class NamedCache:
    """The cache of one store (``NamedCache``): ``entries`` least recently used first, ``dirty`` in the order
    the keys were last written, ``size`` the bytes its entries count; ``evicted`` and ``evicted_dirty``
    count the entries it has evicted so far, and of them the dirty ones (each of which flushed the store)."""

    __slots__ = ("dirty", "entries", "evicted", "evicted_dirty", "listener", "size")

    def __init__(self, listener: Listener) -> None:
        self.entries: dict[Key, Entry] = {}
        self.dirty: dict[Key, None] = {}
        self.size = 0
        self.listener = listener
        self.evicted = 0
        self.evicted_dirty = 0

    def get(self, key: Key) -> Entry | None:
        """The entry of ``key``, now the most recently used, or None."""
        entry = self.entries.pop(key, None)
        if entry is not None:
            self.entries[key] = entry
        return entry

    def put(self, key: Key, entry: Entry) -> None:
        """Write ``entry``: it replaces the key's entry and is the most recently used; a dirty key moves to
        the end of the flush order."""
        old = self.entries.pop(key, None)
        if old is not None:
            self.size -= old.size
        self.entries[key] = entry
        if entry.dirty:
            self.dirty.pop(key, None)
            self.dirty[key] = None
        self.size += entry.size

    def evict(self) -> None:
        """Remove the least recently used entry; if it is dirty, flush with it first."""
        key = next(iter(self.entries))
        eldest = self.entries.pop(key)
        self.size -= eldest.size
        self.evicted += 1
        if eldest.dirty:
            self.evicted_dirty += 1
            self.flush((key, eldest))

    def flush(self, evicted: tuple[Key, Entry] | None = None) -> None:
        """Hand every dirty entry to the store (the evicted one first) marked clean, then drop the deletes."""
        if not self.dirty:
            return
        flushed: list[tuple[Key, Entry]] = []
        if evicted is not None:
            flushed.append(evicted)
            self.dirty.pop(evicted[0], None)
        deleted = []
        for key in self.dirty:
            entry = self.entries[key]
            flushed.append((key, entry))
            entry.dirty = False
            if entry.value is None:
                deleted.append(key)
        self.dirty = {}
        self.listener(flushed)
        for key in deleted:
            self.delete(key)

    def delete(self, key: Key) -> None:
        """Remove ``key``'s entry, if it is still there."""
        entry = self.entries.pop(key, None)
        if entry is not None:
            self.dirty.pop(key, None)
            self.size -= entry.size


class ThreadCache:
    """The record cache of one stream thread, shared by its cached stores (``ThreadCache``)."""

    __slots__ = ("_caches", "_limit", "_running_total", "_total")

    def __init__(self, limit: int, *, running_total: bool) -> None:
        self._limit = limit
        self._running_total = running_total
        self._total = 0
        self._caches: list[NamedCache] = []

    def named(self, listener: Listener) -> NamedCache:
        """A new store's cache."""
        cache = NamedCache(listener)
        self._caches.append(cache)
        return cache

    def size(self) -> int:
        """The thread's size as its era reads it: a running total (3.4+) or the sum of the named caches."""
        return self._total if self._running_total else sum(cache.size for cache in self._caches)

    def get(self, cache: NamedCache, key: Key) -> Entry | None:
        """``ThreadCache#get``."""
        return cache.get(key)

    def put(self, cache: NamedCache, key: Key, entry: Entry) -> None:
        """``ThreadCache#put``: write, then evict from this store's cache while the thread's cache is over."""
        before = cache.size
        cache.put(key, entry)
        self._total += cache.size - before
        while self.size() > self._limit:
            if not cache.entries:
                return
            before = cache.size
            cache.evict()
            self._total += cache.size - before

    def flush(self, cache: NamedCache) -> None:
        """``ThreadCache#flush`` of one store's cache."""
        before = cache.size
        cache.flush()
        self._total += cache.size - before
