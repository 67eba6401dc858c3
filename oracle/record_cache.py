"""Which source tables of a table join sit behind a KTable record cache, and what the cache drops
(spec PR-5 to PR-7).

With ``statestore.cache.max.bytes`` above 0 a materialized, non-versioned source table writes into a
caching store, and its ``KTableSource`` forwards nothing itself: the cache forwards each dirty entry when it
is flushed (at a commit, or when it is evicted), after writing it to the store below. A flush forwards
nothing for a delete of a key the store below does not hold (``CachingKeyValueStore#putAndMaybeForward``).
The test driver commits after every record (``commit_interval_ms`` 0), so every entry is flushed by the
commit that follows its own record: each update still reaches the join at once, except such deletes.

Stream-table joins read the table through the cache and forward only from the stream, so the cache changes
nothing there; stream-stream join stores are never cached. Commit intervals above 0, under which a flush
merges several updates of a key, are not modelled yet (``UnmodelledSettingsError``).
"""

from __future__ import annotations

from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.errors import UnmodelledSettingsError
from kjoin.oracle.records import JoinSpec

__all__ = ["cached_sources"]


def cached_sources(spec: JoinSpec, behaviour: Behaviour) -> tuple[bool, bool]:
    """Whether the left and the right source table of a table-table or foreign-key join are cached (spec
    PR-5): caching is on and the side is not versioned (versioned stores are never cached). Raises
    ``UnmodelledSettingsError`` for a cache the oracle cannot model in this era or under a commit interval."""
    settings = spec.settings
    if settings.cache_max_bytes == 0:
        return False, False
    if not behaviour.record_cache_skips_deletes_of_absent_keys:
        raise UnmodelledSettingsError(
            f"record caching is modelled from Kafka 2.3 (era {behaviour.era}): before 2.2 a cache flush "
            "forwards every dirty entry (spec PR-6)"
        )
    if settings.commit_interval_ms > 0:
        raise UnmodelledSettingsError(
            f"a record cache under commit.interval.ms = {settings.commit_interval_ms} (several updates of a "
            f"key merged at a commit) is not modelled for {spec.join} joins; 0 commits after every record "
            "(spec PR-7)"
        )
    versioning = spec.versioned
    return (
        versioning is None or not versioning.left,
        versioning is None or not versioning.right,
    )
