"""Building blocks of the bundled ``spark-reference`` candidate: one module per join kind, on Spark."""
