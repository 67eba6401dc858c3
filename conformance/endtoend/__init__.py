"""End to end through real Kafka topics: a single-node broker, a candidate's streaming job on Spark's Kafka
source, the output topic read back and checked by the usual harness (docs/end-to-end.md).

* ``builds``: the broker's classpath (with ``kjoin.broker.Tool``) and the Spark connector's jars, built by
  Maven on first use into the cache (like the Kafka Streams driver);
* ``broker``: a KRaft broker on loopback for the length of a ``with`` block;
* ``topics``: cases in Kafka's processing order (spec TK-2), and the records each topic receives;
* ``ordering``: the job's own two-partition merge that recovers that order from Kafka coordinates;
* ``job``: the ``spark-stateful`` port run as a Kafka-in, Kafka-out streaming query;
* ``run``: the candidate wrapper and the harness run (``kjoin run --through-kafka``).
"""
