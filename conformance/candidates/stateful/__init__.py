"""``spark-stateful``: Kafka Streams joins as a Structured Streaming job on Spark's arbitrary stateful API.

A port a team can copy (docs/stateful.md explains it as a blueprint): one ``transformWithStateInPandas``
operator grouped by Kafka *task* (here: one scenario, or two for a stream-globaltable one), whose state
variables are the task's state stores as Kafka keeps them, and whose ``handleInputRows`` runs Kafka's join
processors record by record.

* ``state``: the state variables (Spark ``ValueState``/``MapState``) and the working copy a micro-batch reads
  and writes back;
* ``stream_stream``: the windowed join, its two window stores, the outer store and the emission pass;
* ``tables``: the stream-table and table-table joins (and KIP-923's stream buffer);
* ``versioned``: the tables behind them, plain or versioned (KIP-914);
* ``foreign_key``: the foreign-key table join (KIP-213): subscriptions, responses and the hash check;
* ``global_table``: the stream-globaltable join, each task with its own replica of the global table;
* ``self_join``: a stream joined with itself, by the two-store join or by the 3.4+ single-store rewrite;
* ``processor``: the ``StatefulProcessor`` that loads a task's state, runs its records and stores it;
* ``query``: the streaming query the candidate starts, one per join kind.

Independent of the oracle: written from Kafka Streams' processors and the project's specification
(docs/semantics/), it reads only the era table's behaviour flags from ``kjoin.oracle.behaviour`` (which
era does what), never the oracle's join code.
"""
