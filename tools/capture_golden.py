"""Capture golden traces from real Kafka Streams: the inputs of the bundled 3.9 and documentation traces run
through the Kafka Streams driver of a release (``kjoin kafka``), written with their provenance.

    python tools/capture_golden.py --release 4.3.1 [--stores memory|rocksdb] [--only fk] [--captured DATE]

Writes ``scenarios/golden/<release>.jsonl`` (``<release>-rocksdb.jsonl`` for RocksDB stores): one line per
scenario the release can run, in the input files' order, with ``expected`` (what that release emitted) and
``source`` (release, kafka-streams jar checksum, driver sources digest, store kind, capture date when given).
The same id has the same records in every file (with ``-rocksdb`` appended for RocksDB stores, so that a
release's two files give distinct case ids), so versions compare line by line.
"""

from __future__ import annotations

import argparse
import json

from kjoin.conformance.kafka.driver import KafkaDriver, driver_info
from kjoin.oracle.behaviour import release_of
from kjoin.scenarios import CATALOGUE_ROOT

GOLDEN = CATALOGUE_ROOT / "golden"
INPUTS = ("3.9.jsonl", "docs.jsonl")
INPUT_FIELDS = ("id", "kafka", "join", "variant", "stores", "window", "versioned", "fk_extractor", "records")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--release", required=True, help="a Kafka Streams release, e.g. 4.3.1")
    parser.add_argument("--stores", choices=("memory", "rocksdb"), default="memory")
    parser.add_argument(
        "--only", choices=("stream-stream", "stream-table", "table-table", "fk"), action="append"
    )
    parser.add_argument("--captured", metavar="DATE", help="the capture date recorded in the provenance")
    args = parser.parse_args()
    release = release_of(args.release)
    seen: set[str] = set()
    scenarios = []
    for name in INPUTS:
        for text in (GOLDEN / name).read_text(encoding="utf-8").splitlines():
            line = json.loads(text)
            if line["id"] in seen or (args.only and line["join"] not in args.only):
                continue
            seen.add(line["id"])
            scenario = {field: line[field] for field in INPUT_FIELDS if field in line}
            scenarios.append(dict(scenario, kafka=release, stores=args.stores))
    info = driver_info(release)
    source = {
        **info.to_json(),
        "stores": args.stores,
        "inputs": "the records of scenarios/golden/3.9.jsonl and docs.jsonl, same ids",
    }
    if args.captured:
        source["captured"] = args.captured
    written = 0
    out = GOLDEN / (f"{release}.jsonl" if args.stores == "memory" else f"{release}-rocksdb.jsonl")
    with KafkaDriver(release) as driver, out.open("w", encoding="utf-8") as handle:
        for scenario, answer in zip(scenarios, driver.answers(json.dumps(s) for s in scenarios), strict=True):
            if "error" in answer:  # a feature the release lacks (versioned stores before 3.5): left out
                continue
            line = dict(scenario, expected=answer["outputs"], source=source)
            if args.stores == "rocksdb":  # case ids must differ from the in-memory file's of the same release
                line["id"] = f"{line['id']}-rocksdb"
            handle.write(json.dumps(line, separators=(",", ":")) + "\n")
            written += 1
    print(f"{out}: {written} of {len(scenarios)} inputs, Kafka Streams {release}, {args.stores} stores")


if __name__ == "__main__":
    main()
