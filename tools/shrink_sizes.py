"""How small ``kjoin fuzz``'s counterexamples of the project's planted bugs get, before and after the
shrinker's final pass (``differential.shrink.local_minimum``) and its shrinking over micro-batch splits.

    python tools/shrink_sizes.py [--seeds 20240601,1,2,3,4] [--markdown FILE]

No Spark: each planted bug runs in-process, the same function its Spark job runs
(``tests/support/planted_bugs.py``: the oracle with one mistake; ``tests/support/micro_batch_bugs.py``:
spark-stateful's join code losing a clock or a held record between micro-batches). For every bug and seed
it draws the ci profile's scenarios of the bug's join kinds (for the micro-batch bugs scenarios of up to 14
records, fed eight per micro-batch as spark-stateful is: only those longer than eight can fail), takes the
failure ``kjoin fuzz`` would shrink (the smallest), and shrinks it two ways:

* **before**: the batched rounds alone, a case carrying no micro-batch split (removing a record renumbers
  the rest, so the candidate's own eight-per-batch cut moves with it): the shrinker as it was;
* **after**: the rounds over records *and* the split, then the final pass to a local minimum (no record,
  key or boundary can go): the shrinker as ``kjoin fuzz`` runs it now.

It prints records (and micro-batch boundaries) per bug and seed, and the median over all of them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from kjoin.conformance.catalogue import Case
from kjoin.conformance.checker import Emitted, check
from kjoin.conformance.differential.fuzz import _to_shrink
from kjoin.conformance.differential.generate import generate_cases
from kjoin.conformance.differential.profiles import PROFILES, FuzzProfile
from kjoin.conformance.differential.shrink import Evaluate, local_minimum, shrink
from kjoin.conformance.documents.outcomes import CaseOutcome, kafka_outputs
from kjoin.conformance.harness.micro_batches import with_default_split
from kjoin.conformance.protocol import Claim
from kjoin.oracle import behaviour_for
from support.micro_batch_bugs import MICRO_BATCH_BUGS, in_process
from support.planted_bugs import PLANTED, bugged_run

LONG = replace(PROFILES["ci"], max_size=14)
"""The micro-batch bugs' scenarios: up to 14 drawn records, so some span two of spark-stateful's
micro-batches."""


def planted_evaluate(bug: str) -> Evaluate:
    """Check cases against the planted ``bug`` in-process (exact, as its Spark job reports ``idx``)."""

    def evaluate(cases: Sequence[Case]) -> dict[str, CaseOutcome]:
        outcomes = {}
        for case in cases:
            expected = kafka_outputs(case)
            assert not isinstance(expected, str), expected
            actual = Emitted(tuple(bugged_run(bug, case.spec, case.records, behaviour_for(case.kafka))), True)
            verdict = check(expected, actual, "exact")
            outcomes[case.id] = CaseOutcome(case, verdict.status, "exact", verdict, expected, actual)
        return outcomes

    return evaluate


def _drawn(claim: Claim, profile: FuzzProfile, seed: int) -> list[Case]:
    kafka = claim.kafka[0]
    return [
        case
        for join in sorted(claim.joins)
        for case in generate_cases(join, kafka, profile=profile, seed=seed, claim=claim).cases
    ]


def _size(outcome: CaseOutcome) -> Size:
    split = outcome.case.micro_batches
    return len(outcome.case.records), None if split is None else len(split.starts)


Size = tuple[int, int | None]
"""Records, and micro-batch boundaries (``None``: the case carries no split)."""


def measure(
    cases: Sequence[Case], plain: Sequence[Case], evaluate: Evaluate, profile: FuzzProfile
) -> tuple[Size, Size, Size] | None:
    """(found, before, after) sizes of the failure ``kjoin fuzz`` would shrink (``None``: none found).
    ``plain`` are ``cases`` without a split (the same ids)."""
    failing = [o for o in evaluate(cases).values() if o.status == "fail"]
    if not failing:
        return None
    [chosen] = _to_shrink(failing, 1)
    unsplit = {case.id: case for case in plain}[chosen.case.id]
    plain_chosen = evaluate([unsplit])[unsplit.id]
    assert plain_chosen.status == "fail", unsplit.id
    rounds = dict(rounds=profile.shrink_rounds, limit=profile.round_reductions)
    [before] = shrink([plain_chosen], evaluate, **rounds)  # type: ignore[arg-type]
    [after] = local_minimum(shrink([chosen], evaluate, **rounds), evaluate)  # type: ignore[arg-type]
    return _size(chosen), _size(before.minimal), _size(after.minimal)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="20240601,1,2,3,4", help="comma-separated fuzzing seeds")
    parser.add_argument("--markdown", type=Path, help="also write the table as Markdown")
    args = parser.parse_args(argv)
    seeds = [int(seed) for seed in args.seeds.split(",")]
    bugs: list[tuple[str, Claim, FuzzProfile, Callable[[], Evaluate], bool]] = [
        (name, bug.claim, PROFILES["ci"], lambda name=name: planted_evaluate(name), False)  # type: ignore[misc]
        for name, bug in sorted(PLANTED.items())
    ]
    bugs += [
        (bug.name, bug.claim, LONG, lambda bug=bug: in_process(bug), True)  # type: ignore[misc]
        for bug in MICRO_BATCH_BUGS.values()
    ]
    rows, before_sizes, after_sizes = [], [], []
    for name, claim, profile, make, batched in bugs:
        for seed in seeds:
            plain = _drawn(claim, profile, seed)
            cases = with_default_split(plain, MICRO_BATCH_BUGS["clock-lost"]) if batched else plain
            found = measure(cases, plain, make(), profile)
            if found is None:
                rows.append([name, seed, "not found", "", ""])
                continue
            original, before, after = found
            before_sizes.append(before[0])
            after_sizes.append(after[0])
            rows.append([name, seed, _shown(original), _shown(before), _shown(after)])
    headers = ["planted bug", "seed", "found (records)", "before: rounds only", "after: + split + final pass"]
    table = tabulate(rows, headers=headers, tablefmt="github")
    medians = (
        f"median records of the shrunk counterexamples over {len(after_sizes)} found: "
        f"before {statistics.median(before_sizes):g}, after {statistics.median(after_sizes):g} "
        f"(largest before {max(before_sizes)}, after {max(after_sizes)})"
    )
    print(table, "", medians, sep="\n")
    if args.markdown:
        args.markdown.write_text(f"{table}\n\n{medians}\n", encoding="utf-8")
    return 0


def _shown(size: Size) -> str:
    records, boundaries = size
    if boundaries is None:
        return str(records)
    return f"{records} ({boundaries} boundar{'y' if boundaries == 1 else 'ies'})"


if __name__ == "__main__":
    raise SystemExit(main())
