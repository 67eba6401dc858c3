"""Structured Streaming jobs as candidates: feed records one processing step per micro-batch
(``feed``) and wrap a user's job ``job(left, right, spec) -> DataFrame`` (``adapter``).

    from kjoin.conformance.streaming import streaming_candidate
    candidate = streaming_candidate("orders-payments", my_job, claim)

See docs/streaming.md.
"""

from kjoin.conformance.streaming.adapter import (
    EVENT_TIME_SHIFT_MS,
    FLUSH_SCENARIO,
    FLUSH_TS,
    WINDOW_COLUMNS,
    JobShape,
    StreamingCandidate,
    StreamingJob,
    StreamingJobError,
    streaming_candidate,
)

__all__ = [
    "EVENT_TIME_SHIFT_MS",
    "FLUSH_SCENARIO",
    "FLUSH_TS",
    "WINDOW_COLUMNS",
    "JobShape",
    "StreamingCandidate",
    "StreamingJob",
    "StreamingJobError",
    "streaming_candidate",
]
