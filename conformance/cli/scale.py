"""``kjoin scale`` and ``kjoin replay``: a candidate against the oracle on partitioned data of any size.

    kjoin scale --candidate NAME --records N --keys K --partitions P --join KIND --variant V
                [--kafka V] [--seed S] [--before MS --after MS --grace MS] [--stores memory|rocksdb]
                [--late-share F] [--null-share F] [--skew F] [--results FILE] [--report DIR]
    kjoin replay --candidate NAME --input PATH [PATH ...] --left-topic T --right-topic T --join KIND
                 --variant V [--kafka V] [--format parquet|json|csv] [window options] [--results FILE]
                 [--report DIR]

``scale`` generates the records inside Spark (deterministic by seed); ``replay`` reads a snapshot of two
Kafka topics in the columns of Spark's Kafka source. Both run the oracle per Kafka task inside Spark, the
candidate on the same tasks, and compare inside Spark (docs/scale.md). Exit codes as ``kjoin run``: 0 no
difference, 1 a difference, 2 usage, 3 the candidate failed.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from kjoin.conformance.cli.common import (
    EXIT_DIFFERS,
    EXIT_INCOMPLETE,
    EXIT_OK,
    Streams,
    UsageError,
    above_zero,
    not_negative,
    output_file,
    output_folder,
    positive,
    share,
    version_argument,
)

__all__ = ["add_command"]

_JOINS = ("stream-stream", "stream-table", "table-table", "stream-globaltable")


def _common(command: argparse.ArgumentParser, *, output: bool = False) -> None:
    who = command.add_mutually_exclusive_group(required=True)
    who.add_argument("--candidate", metavar="NAME", help="module:attr or a registered name")
    if output:
        who.add_argument(
            "--output",
            type=Path,
            metavar="PATH",
            help="instead of a candidate: your job's output (partition, key, left, right, ts)",
        )
    command.add_argument(
        "--join",
        required=True,
        choices=_JOINS,
        help="join kind (foreign-key joins span tasks; a stream-globaltable join's right topic is the "
        "global table, replicated to every task)",
    )
    command.add_argument("--variant", required=True, choices=("inner", "left", "outer"))
    command.add_argument("--kafka", type=version_argument, default="3.9", metavar="V", help="default 3.9")
    command.add_argument("--before", type=int, default=100, metavar="MS", help="stream-stream window")
    command.add_argument("--after", type=int, metavar="MS", help="default: --before")
    command.add_argument(
        "--grace", type=int, metavar="MS", help="grace (stream-stream; default: none, legacy)"
    )
    command.add_argument("--stores", choices=("memory", "rocksdb"), default="rocksdb")
    command.add_argument("--spark-master", metavar="URL", help="default: $KJOIN_SPARK_MASTER, else local[*]")
    command.add_argument("--results", type=output_file, metavar="FILE", help="write the kjoin-scale document")
    command.add_argument(
        "--report", type=output_folder, metavar="DIR", help="write the HTML report (and results)"
    )
    command.add_argument("--samples", type=int, default=10, metavar="N", help="tasks sampled in the report")


def add_command(commands: Any) -> None:
    scale = commands.add_parser(
        "scale",
        description="Generate records inside Spark, run the oracle per Kafka task and the candidate, and "
        "compare inside Spark.",
    )
    _common(scale)
    scale.add_argument("--records", type=positive, required=True, metavar="N")
    scale.add_argument("--keys", type=positive, default=1000, metavar="K")
    scale.add_argument("--partitions", type=positive, default=8, metavar="P")
    scale.add_argument("--seed", type=int, default=20_241_125, metavar="S")
    scale.add_argument("--late-share", type=share, default=0.1, metavar="F")
    scale.add_argument("--max-lateness", type=not_negative, default=200, metavar="MS")
    scale.add_argument("--null-share", type=share, default=0.02, metavar="F")
    scale.add_argument("--skew", type=above_zero, default=1.0, metavar="F", help="above 1: hot keys")
    scale.add_argument(
        "--save-input",
        type=output_folder,
        metavar="DIR",
        help="also save the generated records as a Parquet snapshot of topics 'left' and 'right' "
        "(kjoin replay --input DIR --left-topic left --right-topic right)",
    )
    scale.set_defaults(handler=_scale)
    replay = commands.add_parser(
        "replay",
        description="Read two topics saved with Spark's Kafka source columns (key, value, topic, partition, "
        "offset, timestamp), run the oracle per Kafka task and the candidate, and compare inside Spark.",
    )
    _common(replay, output=True)
    replay.add_argument("--input", type=Path, nargs="+", required=True, metavar="PATH")
    replay.add_argument("--left-topic", required=True, metavar="T")
    replay.add_argument("--right-topic", required=True, metavar="T")
    replay.add_argument("--format", choices=("parquet", "json", "csv"), help="default: from the file name")
    replay.set_defaults(handler=_replay)


def _workload(args: argparse.Namespace) -> Any:
    from kjoin.conformance.scale.check import Workload
    from kjoin.oracle.records import Window

    window = None
    if args.join == "stream-globaltable" and args.grace is not None:
        raise UsageError("--grace: a stream-globaltable join has no window and no grace period (spec GT-1)")
    if args.join == "stream-stream":
        after = args.before if args.after is None else args.after
        window = Window(before=args.before, after=after, grace=args.grace)
    elif args.grace is not None:
        window = Window(before=0, after=0, grace=args.grace)
    return Workload(args.join, args.variant, args.kafka, window, args.stores)


def _scale(args: argparse.Namespace, streams: Streams) -> int:
    from kjoin.conformance.scale.data import Generated, generate

    workload = Generated(
        records=args.records,
        keys=args.keys,
        partitions=args.partitions,
        seed=args.seed,
        late_share=args.late_share,
        max_lateness_ms=args.max_lateness,
        null_share=args.null_share,
        skew=args.skew,
    )
    data = {"mode": "scale", **{name: getattr(workload, name) for name in workload.__dataclass_fields__}}

    def records(spark: Any) -> Any:
        generated = generate(spark, workload)
        if args.save_input is not None:
            from kjoin.conformance.scale.data import write_snapshot

            write_snapshot(generated, args.save_input)
            streams.stderr.write(f"kjoin: scale: input saved to {args.save_input}\n")
        return generated

    return _check(args, streams, data, records)


def _replay(args: argparse.Namespace, streams: Streams) -> int:
    from kjoin.conformance.scale.data import read_snapshot

    data = {
        "mode": "replay",
        "input": [str(path) for path in args.input],
        "left_topic": args.left_topic,
        "right_topic": args.right_topic,
    }
    return _check(
        args,
        streams,
        data,
        lambda spark: read_snapshot(spark, args.input, args.left_topic, args.right_topic, args.format),
    )


def _check(args: argparse.Namespace, streams: Streams, data: dict[str, Any], records: Any) -> int:
    from kjoin.conformance.documents.results import run_metadata, write_json_atomically
    from kjoin.conformance.harness.spark_session import resolve_master, spark_log, start_session
    from kjoin.conformance.harness.system_failures import SystemFailure, one_line, system_cause
    from kjoin.conformance.protocol import CandidateLoadError, load_candidate
    from kjoin.conformance.scale.check import ScaleError, check_at_scale
    from kjoin.conformance.scale.data import DataError, unreadable_input

    name = args.handler.__name__.strip("_")
    candidate: Any
    if getattr(args, "output", None) is not None:
        from kjoin.conformance.scale.output_file import OutputFile

        if not args.output.exists():
            raise UsageError(f"{name}: --output: no such file: {args.output}")
        candidate = OutputFile(args.output, args.kafka, args.format)
    else:
        try:
            candidate = load_candidate(args.candidate)
        except CandidateLoadError as error:
            raise UsageError(f"{name}: --candidate: {error}") from error
    workload = _workload(args)
    master = resolve_master(args.spark_master)
    spark = start_session(master)
    run = run_metadata(master=master, kafka=args.kafka, equivalence="multiset", scenarios=[name])
    run["data"] = data

    def say(text: str) -> None:
        streams.stderr.write(f"kjoin: {name}: {text}\n")
        streams.stderr.flush()

    try:
        document = check_at_scale(
            spark, candidate, records(spark), workload, run=run, sample_tasks=args.samples, say=say
        )
    except (ScaleError, DataError) as error:
        raise UsageError(f"{name}: {error}") from error
    except SystemFailure as error:
        raise SystemFailure(f"{name}: {error} (Spark's log: {spark_log()})") from None
    except Exception as error:  # Spark failed outside the candidate: the input, or the system
        unreadable, cause = unreadable_input(error), system_cause(str(error))
        if unreadable is not None:
            raise UsageError(f"{name}: {unreadable}") from None
        if cause is not None:
            raise SystemFailure(f"{name}: {cause}: {one_line(error)} (Spark's log: {spark_log()})") from None
        raise
    streams.stdout.write(render(document))
    results = args.results or (args.report / "results.json" if args.report else None)
    if results is not None:
        write_json_atomically(results, document)
        streams.stdout.write(f"results written to {results}\n")
    if args.report is not None:
        from kjoin.reports import write_scale_report

        streams.stdout.write(f"report written to {write_scale_report(document, args.report)}\n")
    if document["status"] == "error":
        return EXIT_INCOMPLETE
    return EXIT_DIFFERS if document["status"] == "fail" else EXIT_OK


def render(document: dict[str, Any]) -> str:
    """The document as a short text: the workload, the totals, the tasks that differ, the first samples."""
    from tabulate import tabulate

    from kjoin.conformance.notation import show_output_json, show_record_json

    workload, summary = document["workload"], document["summary"]
    lines = [
        f"candidate {document['candidate']['name']}: {workload['variant']} {workload['join']} join as Kafka "
        f"{workload['kafka']} (era {workload['era']}), {summary.get('records', 0):,} records in "
        f"{summary.get('tasks', 0)} tasks: {document['status']}",
    ]
    if document["status"] == "error":
        lines.append(f"the candidate failed: {str(document['candidate_error']).splitlines()[0]}")
        return "\n".join(lines) + "\n"
    lines.append(
        f"Kafka emits {summary['expected']:,} outputs, the candidate {summary['actual']:,}; "
        f"{summary['missing']:,} missing, {summary['unexpected']:,} unexpected, "
        f"{summary['wrong_input']:,} at another input (compared as {summary['compared_as']})"
    )
    differing = [t for t in document["tasks"] if t["missing"] or t["unexpected"] or t["wrong_input"]]
    if differing:
        names = ("task", "partition", "records", "expected", "actual", "missing", "unexpected", "wrong_input")
        rows = [[t[name] for name in names] + [t["first_at"]] for t in differing[:20]]
        headers = ["task", "partition", "records", "Kafka", "candidate", "missing", "unexpected"]
        headers += ["other input", "first at"]
        lines += ["", tabulate(rows, headers=headers)]
    for sample in document["samples"][:3]:
        lines += ["", f"{sample['task']}: first divergence at input #{sample['first_at']}"]
        for item in sample["divergences"][:5]:
            lines.append(f"  {item['kind']} at #{item['at']}: {show_output_json(item['output'])}")
        for record in sample["context"]:
            mark = ">>" if record["index"] == sample["first_at"] else "  "
            shown = show_record_json(record, record["index"])
            lines.append(f"  {mark} {shown} (offset {record['offset']})")
    return "\n".join(lines) + "\n"
