"""The Spark harness: cases, Spark session, batching of candidate runs, outcomes, results files."""
