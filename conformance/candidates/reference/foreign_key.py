"""Foreign-key table-table joins (KIP-213, spec FK-1) for many scenarios at once, on Spark DataFrames.

The FK pipeline (subscription topic, subscription store, response topic) runs to completion for each input
record (one partition per topic, as in the golden traces), so a response always finds the left value that sent
the subscription and its hash always matches. Everything is then set-based, with window and array functions
over ``(scenario_id)`` and ``(scenario_id, key)``, apart from the versioned store's ``forget`` fold:

* a left update (new value, old value = this key's previous latest) sends at most two subscription messages,
  chosen by spec FK-4, FK-5 (instruction tables) (2.4-3.6 and 3.7+ inner; 3.7+ left join with KAFKA-16394);
* each ``PROPAGATE_*`` or ``DELETE_KEY_AND_PROPAGATE`` message looks up the right table's latest value for its
  foreign key before this index and becomes one output (``joiner(left, right)``, ``left - null``, a
  tombstone, or nothing); a delete answers with no right value; the ts is ``max(left ts, right ts)`` when
  the right value exists (even for a delete, as the golden traces show), else the left ts;
* a right update answers every subscriber: the left keys whose last message for this foreign key (before this
  index) subscribed, provided the subscribed value is still the left key's latest value (the hash check); one
  output each, in left-key byte order, with the right record's ts.

Values are compared for the hash check (the hash is a 128-bit Murmur3 of the serialized value).
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from kjoin.conformance.candidates.reference.frames import emission, side_is
from kjoin.conformance.candidates.reference.versioned import with_latest_flag

__all__ = ["foreign_key_emissions"]

# subscription instructions (spec FK-4, FK-5)
DELETE_NO_PROPAGATE, DELETE_AND_PROPAGATE = "DELETE_KEY_NO_PROPAGATE", "DELETE_KEY_AND_PROPAGATE"
PROPAGATE_NULL, PROPAGATE_ONLY = "PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE", "PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE"

_LEFT_TRIGGERED, _RIGHT_TRIGGERED = 0, 1


def foreign_key_emissions(rec: DataFrame) -> DataFrame:
    """All outputs of the FK scenarios in ``rec`` (emission layout of ``frames``)."""
    rec = with_latest_flag(rec)
    left, latest = side_is("left"), F.col("latest")
    before = (
        Window.partitionBy("scenario_id", "key").orderBy("idx").rowsBetween(Window.unboundedPreceding, -1)
    )
    every = (
        Window.partitionBy("scenario_id")
        .orderBy("idx")
        .rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
    )
    updates = rec.withColumn(
        "old", F.last(F.when(latest & left, F.struct("value")), ignorenulls=True).over(before)["value"]
    ).withColumns(
        {
            "old_fk": _foreign_key(F.col("old")),
            "new_fk": _foreign_key(F.col("value")),
        }
    )
    updates = updates.withColumn("messages", F.when(latest & left, _messages()))
    updates = updates.withColumns(
        {
            "right_puts": F.collect_list(F.when(latest & ~left, F.struct("idx", "key", "value", "ts"))).over(
                every
            ),
            "left_puts": F.collect_list(F.when(latest & left, F.struct("idx", "key", "value"))).over(every),
            "subscriptions": F.flatten(
                F.collect_list(
                    F.when(
                        latest & left,
                        F.transform(
                            "messages",
                            lambda m: F.struct(
                                m["fk"].alias("fk"),
                                F.col("idx").alias("idx"),
                                m["pos"].alias("pos"),
                                F.col("key").alias("pk"),
                                m["kind"].alias("kind"),
                                F.col("value").alias("hash"),
                            ),
                        ),
                    )
                ).over(every)
            ),
        }
    )
    return _left_triggered(updates.filter(latest & left)).unionByName(
        _right_triggered(updates.filter(latest & ~left))
    )


def _foreign_key(value: Column) -> Column:
    """The foreign key of a left value (``JoinSpec.fk_extractor``); an empty one is a null foreign key."""
    extracted = F.when(F.col("fk_extractor") == "pipe-suffix", F.substring_index(value, "|", -1)).otherwise(
        F.substring_index(value, ":", 1)
    )
    return F.when(value.isNotNull() & (extracted != ""), extracted)


def _message(kind: Column | str, fk: Column) -> Column:
    return F.struct((F.lit(kind) if isinstance(kind, str) else kind).alias("kind"), fk.alias("fk"))


def _messages() -> Column:
    """The subscription messages of a left update, in sending order, as ``array<struct<pos, kind, fk>>``."""
    new, old, new_fk, old_fk = F.col("value"), F.col("old"), F.col("new_fk"), F.col("old_fk")
    fk_changed = ~F.coalesce(new_fk == old_fk, F.lit(False))
    # 2.4-3.6 (both joins) and 3.7+ inner: a null old or new foreign key skips the update; a delete
    # retracts with a response, a foreign-key change silently, then the new value subscribes
    skipped = (old.isNotNull() & old_fk.isNull()) | (new.isNotNull() & new_fk.isNull())
    insert = F.when(F.col("variant") == "inner", F.lit(PROPAGATE_ONLY)).otherwise(F.lit(PROPAGATE_NULL))
    default_first = F.when(
        ~skipped & old.isNotNull() & new.isNull(), _message(DELETE_AND_PROPAGATE, old_fk)
    ).when(~skipped & old.isNotNull() & fk_changed, _message(DELETE_NO_PROPAGATE, old_fk))
    default_second = F.when(
        ~skipped & new.isNotNull(),
        _message(F.when(old.isNull(), insert).otherwise(F.lit(PROPAGATE_NULL)), new_fk),
    )
    # 3.7+ left join (KIP-962): a changed (or deleted) non-null old foreign key is retracted, then the new
    # value always subscribes, even with a null foreign key or as a delete. Up to 3.9.0 and in 4.0.0 the
    # retraction answers with a response (KAFKA-16394); from 3.9.1 and 4.0.1 (and as intended) silently.
    repeats = F.col("fk_left_join_repeats_results")
    retracts = old.isNotNull() & old_fk.isNotNull() & fk_changed
    left_first = F.when(
        retracts,
        _message(F.when(repeats, F.lit(DELETE_AND_PROPAGATE)).otherwise(F.lit(DELETE_NO_PROPAGATE)), old_fk),
    )
    left_second = F.when(old.isNotNull() | new.isNotNull(), _message(PROPAGATE_NULL, new_fk))
    # inner joins from 3.9.1 and 4.0.1 (KAFKA-16407, KAFKA-16434): a null foreign key no longer skips the
    # update; a change to one (or a delete) retracts with a tombstone, a change from one subscribes
    unchanged = F.when(
        F.col("fk_inner_join_tombstones_unchanged_foreign_keys"), F.lit(PROPAGATE_NULL)
    ).otherwise(F.lit(PROPAGATE_ONLY))
    inner_first = F.when(new_fk.isNull() & old_fk.isNotNull(), _message(DELETE_AND_PROPAGATE, old_fk)).when(
        new_fk.isNotNull() & old_fk.isNotNull() & fk_changed, _message(DELETE_NO_PROPAGATE, old_fk)
    )
    inner_second = (
        F.when(new_fk.isNotNull() & old_fk.isNull(), _message(PROPAGATE_ONLY, new_fk))
        .when(new_fk.isNotNull() & ~fk_changed, _message(unchanged, new_fk))
        .when(new_fk.isNotNull(), _message(PROPAGATE_NULL, new_fk))
    )
    left_rules = F.col("fk_left_join_keeps_null_foreign_keys") & (F.col("variant") == "left")
    inner_rules = ~F.col("fk_inner_join_skips_null_foreign_key_changes") & (F.col("variant") == "inner")
    first = F.when(left_rules, left_first).when(inner_rules, inner_first).otherwise(default_first)
    second = F.when(left_rules, left_second).when(inner_rules, inner_second).otherwise(default_second)
    messages = F.filter(F.array(first, second), lambda m: m.isNotNull())
    return F.transform(
        messages,
        lambda m, pos: F.struct(pos.cast("long").alias("pos"), m["kind"].alias("kind"), m["fk"].alias("fk")),
    )


def _left_triggered(updates: DataFrame) -> DataFrame:
    """One output per answered message of a left update (spec FK-6, FK-7)."""
    messages = updates.select("*", F.explode("messages").alias("message")).filter(
        F.col("message.kind") != DELETE_NO_PROPAGATE
    )
    # the subscription join looks the foreign key up for every instruction: a DELETE_KEY_AND_PROPAGATE answer
    # carries no right value but the result ts still takes the right record's ts into account
    right = F.expr("try_element_at(filter(right_puts, r -> r.key = message.fk AND r.idx < idx), -1)")
    answered = messages.withColumn("right", right).filter(
        (F.col("message.kind") != PROPAGATE_ONLY) | F.col("right.value").isNotNull()
    )
    right_value = F.when(F.col("message.kind") != DELETE_AND_PROPAGATE, F.col("right.value"))
    return emission(
        answered,
        key=F.col("key"),
        left=F.col("value"),
        right=right_value,
        tombstone=right_value.isNull() & ((F.col("variant") == "inner") | F.col("value").isNull()),
        ts=F.when(F.col("right.value").isNotNull(), F.greatest("ts", "right.ts")).otherwise(F.col("ts")),
        idx=F.col("idx"),
        o1=_LEFT_TRIGGERED,
        o2=F.col("message.pos"),
    )


def _right_triggered(updates: DataFrame) -> DataFrame:
    """One output per current subscriber of a right update, in left-key byte order (spec FK-8)."""
    subscribed = f"('{PROPAGATE_NULL}', '{PROPAGATE_ONLY}')"
    answers = F.expr(
        f"""filter(
            transform(
                sort_array(array_distinct(transform(
                    filter(subscriptions, s -> s.fk = key AND s.idx < idx), s -> s.pk))),
                pk -> named_struct(
                    'pk', pk,
                    'last', array_max(filter(subscriptions, s -> s.fk = key AND s.idx < idx AND s.pk = pk)),
                    'current', try_element_at(filter(left_puts, l -> l.key = pk AND l.idx < idx), -1).value)),
            a -> a.last.kind IN {subscribed} AND a.last.hash = a.current)"""
    )
    rows = updates.select("*", F.posexplode(answers).alias("position", "answer"))
    return emission(
        rows,
        key=F.col("answer.pk"),
        left=F.col("answer.current"),
        right=F.col("value"),
        tombstone=F.col("value").isNull() & (F.col("variant") == "inner"),
        ts=F.col("ts"),
        idx=F.col("idx"),
        o1=_RIGHT_TRIGGERED,
        o2=F.col("position"),
    )
