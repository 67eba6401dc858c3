"""Checking a candidate at scale: partitioned input of any size, Kafka's task model, all inside Spark.

``data`` makes the input (generated, or a snapshot of two Kafka topics in the columns of Spark's Kafka
source), ``tasks`` puts each task's records in Kafka's processing order and runs the oracle per task in a
grouped pandas UDF (spec TK-1, TK-2), ``compare`` diffs the oracle's and the candidate's outputs with
Spark (nothing proportional to the data reaches the driver), ``check`` ties them together into a
``kjoin-scale`` document (docs/results-format.md).
"""
