"""Bundled candidates: implementations of Kafka Streams joins on Spark, found by name (kjoin.candidates)."""
