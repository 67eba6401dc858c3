"""Saved counterexamples: one portable JSON Lines file per shrunk failure, under ``scenarios/regressions/``.

A regression file is an ordinary portable scenario (``catalogue.portable``), so the harness loads it with the
rest of the catalogue (``kjoin run``, the pytest plugin, the results and reports show it by its file) and
``kjoin check`` compares the oracle with its ``expected`` outputs. Provenance (docs/scenario-format.md):

* ``flags``: ``["generated"]``; ``description``: what failed, in one line;
* ``candidate``: the candidate it was found against; ``seed``, ``strategy``, ``hypothesis`` (the version
  that drew the original scenario from that seed); ``shrunk_from``: the original scenario's id and size;
* ``divergence``: the candidate's first divergence when it was found (kind, input index, both outputs);
* ``micro_batches``: for a candidate fed in micro-batches, the split it failed under (``split``, and
  ``starts``: the records that begin a micro-batch); loading the file feeds it that split again;
* ``batch``: ``"store-shape"`` for a counterexample that failed only in a batch of its store shape's cases
  (``harness.compositions``); loading the file checks it in such a batch again (the digest covers it);
* ``found``: the date, only when given (``kjoin fuzz --found``): files never depend on the clock.

The id and the file name come from a digest of the scenario itself
(``regression-<candidate>-<join>-<digest>``), so saving the same counterexample twice writes the same bytes
to the same file (the same run writes the same bytes).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hypothesis

from kjoin.conformance.catalogue import Case, ScenarioError
from kjoin.conformance.catalogue.portable import case_from_json, case_json, decode_line, output_to_json
from kjoin.conformance.differential.fuzz import Counterexample
from kjoin.conformance.differential.generate import JOIN_ABBREVIATIONS
from kjoin.conformance.documents.outcomes import kafka_outputs
from kjoin.conformance.harness.compositions import STORE_SHAPE, composition_words
from kjoin.conformance.notation import show_output
from kjoin.errors import KjoinError
from kjoin.scenarios import CATALOGUE_ROOT

__all__ = [
    "REGRESSIONS_ROOT",
    "Regression",
    "RegressionFormatError",
    "read_regressions",
    "regression_line",
    "scenario_json",
    "write_regression",
]

REGRESSIONS_ROOT = CATALOGUE_ROOT / "regressions"
"""Where ``kjoin fuzz --save`` writes by default: part of the bundled catalogue."""

_PROVENANCE = ("flags", "candidate", "seed", "strategy")


class RegressionFormatError(KjoinError, ValueError):
    """A regression line without its provenance or expected outputs; the message names file, line, field."""


@dataclass(frozen=True, slots=True)
class Regression:
    """One saved counterexample as read back."""

    case: Case
    expected: list[dict[str, Any]]
    candidate: str
    seed: int
    strategy: str
    found: str | None
    path: Path


def scenario_json(case: Case) -> dict[str, Any]:
    """The portable fields of ``case`` that define it (``kafka`` ... ``records``; no id), in a fixed order."""
    line = case_json(case)
    del line["id"]
    return line


def _records(count: int) -> str:
    return f"{count} record" + ("" if count == 1 else "s")


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "candidate"


def regression_line(
    counterexample: Counterexample, *, candidate: str, found: str | None = None
) -> dict[str, Any]:
    """The saved line for ``counterexample`` (a JSON object; ``expected`` comes from the oracle)."""
    minimal, original = counterexample.minimal, counterexample.shrunk.original
    case = minimal.case
    portable = scenario_json(case)
    batch = {"batch": case.batch} if case.batch is not None else {}
    digest = hashlib.sha256(json.dumps({**portable, **batch}, sort_keys=True).encode()).hexdigest()[:10]
    scenario_id = f"regression-{_slug(candidate)}-{JOIN_ABBREVIATIONS[case.join]}-{digest}"
    first = minimal.verdict.first if minimal.verdict is not None else None
    divergence: dict[str, Any] = {}
    if first is not None:
        divergence = {
            "kind": first.kind,
            "at": first.at,
            "kafka_emits": show_output(first.expected),
            "candidate_emits": show_output(first.actual),
        }
        if first.kind == "candidate-error":
            divergence["detail"] = first.detail.splitlines()[0] if first.detail else ""
    where = f" at input #{first.at}" if first is not None and first.at is not None else ""
    what = f"{first.kind}{where}" if first is not None else "a difference"
    line: dict[str, Any] = {
        "id": scenario_id,
        "description": f"{case.join} {case.variant} join, {_records(len(case.records))}: {candidate} shows "
        f"{what}{_batch_words(case)} (generated, shrunk)",
        **portable,
        "expected": [output_to_json(output) for output in _kafka_emits(case)],
        "flags": ["generated"],
        "candidate": candidate,
        "seed": counterexample.seed,
        "strategy": counterexample.strategy,
        "hypothesis": hypothesis.__version__,
        "shrunk_from": {
            "id": original.case.scenario,
            "records": len(original.case.records),
            "rounds": counterexample.shrunk.rounds,
        },
        "divergence": divergence,
    }
    if case.micro_batches is not None:
        line["micro_batches"] = {"split": case.micro_batches.split, "starts": list(case.micro_batches.starts)}
    line.update(batch)
    if found is not None:
        line["found"] = found
    return line


def _batch_words(case: Case) -> str:
    """`` in a batch of left-versioned scenarios only`` for a counterexample that needed that batch
    composition (``harness.compositions``); nothing for the joint batch."""
    return f" {composition_words(case)}" if case.batch == STORE_SHAPE else ""


def _kafka_emits(case: Case) -> tuple[Any, ...]:
    expected = kafka_outputs(case)
    if isinstance(expected, str):
        raise ValueError(f"{case.id}: a counterexample the oracle cannot run: {expected}")
    return expected.outputs


def write_regression(
    directory: Path, counterexample: Counterexample, *, candidate: str, found: str | None = None
) -> Path:
    """Write ``counterexample`` to ``directory/<id>.jsonl`` (the folder is created) and return the path."""
    line = regression_line(counterexample, candidate=candidate, found=found)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{line['id']}.jsonl"
    path.write_text(json.dumps(line, ensure_ascii=True, separators=(",", ":")) + "\n", encoding="utf-8")
    return path


def read_regressions(path: Path) -> list[Regression]:
    """Every line of a regression file, checked for its provenance and expected outputs."""
    regressions = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not text.strip():
            continue
        where = f"{path}:{number}"
        try:
            obj = decode_line(text, str(path), number)
            case = case_from_json(obj, str(path), number)
        except ScenarioError as error:
            raise RegressionFormatError(str(error)) from error
        regressions.append(_regression(case, obj, where, path))
    return regressions


def _regression(case: Case, obj: Mapping[str, Any], where: str, path: Path) -> Regression:
    for name in _PROVENANCE:
        if name not in obj:
            raise RegressionFormatError(f"{where}: missing provenance field {name!r}")
    if "generated" not in obj["flags"]:
        raise RegressionFormatError(f"{where}: flags {obj['flags']!r} lack 'generated'")
    if not isinstance(obj["seed"], int) or isinstance(obj["seed"], bool):
        raise RegressionFormatError(f"{where}: seed {obj['seed']!r} is not an integer")
    expected = obj.get("expected")
    if not isinstance(expected, list):
        raise RegressionFormatError(f"{where}: expected {expected!r} is not a list of outputs")
    found = obj.get("found")
    return Regression(
        case,
        expected,
        str(obj["candidate"]),
        obj["seed"],
        str(obj["strategy"]),
        None if found is None else str(found),
        path,
    )
