"""Real Kafka Streams in the loop: the driver program (``driver``) and the differential check of the oracle
against it (``verify``)."""
