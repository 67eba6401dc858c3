"""``kjoin.JoinDriver`` (docs/driver.md): fed one record at a time it emits what ``run`` emits on every case
of the catalogue, hands each output out once, shows the state ``run_traced`` shows, refuses bad records with
the argument named, and the example of docs/driver.md runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kjoin import (
    InvalidRecordError,
    JoinDriver,
    JoinSpec,
    KjoinError,
    Output,
    UnknownVersionError,
    UnsupportedJoinError,
    Window,
    behaviour_for,
    run,
    run_traced,
)
from kjoin.conformance.catalogue import Case
from support.catalogue_slice import bundled_catalogue
from support.docs_examples import python_blocks, run_examples

ROOT = Path(__file__).resolve().parents[1]
CASES = bundled_catalogue().cases


def _driven(case: Case, read_every: int) -> list[Output]:
    """The case's records piped one by one into a driver, its outputs read after every ``read_every``-th,
    then the driver closed (the closing commit, spec PR-8)."""
    driver = JoinDriver(case.spec, kafka=case.kafka, intended=case.intended)
    outputs: list[Output] = []
    for index, record in enumerate(case.records):
        wall_clock, commit = record.wall_clock, record.commit
        driver.pipe(record.side, record.key, record.value, record.ts, wall_clock=wall_clock, commit=commit)
        if index % read_every == 0:
            outputs += driver.read_outputs()
    driver.close()
    return outputs + driver.read_outputs()


def test_driver_emits_what_run_emits_on_every_case_of_the_catalogue() -> None:
    assert len(CASES) > 1000
    compared = refused = 0
    for number, case in enumerate(CASES):
        try:
            expected = run(case.spec, case.records, behaviour_for(case.kafka, intended=case.intended))
        except UnsupportedJoinError as error:
            with pytest.raises(UnsupportedJoinError, match=re.escape(str(error))):
                _driven(case, 1)
            refused += 1
            continue
        assert _driven(case, 1 + number % 4) == expected, case.id
        compared += 1
    assert compared > 1000


@pytest.mark.parametrize("join", ["stream-stream", "stream-table", "table-table", "fk"])
def test_driver_snapshot_is_run_traceds_state_after_each_record(join: str) -> None:
    cases = [case for case in CASES if case.join == join and len(case.records) > 3][:20]
    assert cases
    for case in cases:
        behaviour = behaviour_for(case.kafka, intended=case.intended)
        driver = JoinDriver(case.spec, kafka=case.kafka, intended=case.intended)
        traced = run_traced(case.spec, case.records, behaviour)
        for record, (outputs, state) in zip(case.records, traced, strict=True):
            driver.pipe(record.side, record.key, record.value, record.ts)
            assert (driver.read_outputs(), driver.snapshot()) == (outputs, state), case.id
        assert driver.records == case.records


def test_driver_hands_each_output_out_once_in_emission_order() -> None:
    driver = JoinDriver(JoinSpec(join="table-table", variant="outer"), kafka="3.9")
    driver.pipe("left", "k1", "L0", 1)
    driver.pipe("right", "k1", "R0", 2)
    assert driver.read_outputs() == [Output("k1", ("L0", None), 1, 0), Output("k1", ("L0", "R0"), 2, 1)]
    assert driver.read_outputs() == []
    driver.pipe("left", "k1", None, 3)
    assert driver.read_outputs() == [Output("k1", (None, "R0"), 3, 2)]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("middle", "k", "v", 1), "side='middle' must be one of"),
        (("left", 1.5, "v", 1), "key=1.5 must be"),
        (("left", "k", 7, 1), "value=7 must be"),
        (("left", "k", "v", -1), "ts=-1 must be a non-negative integer"),
        (("left", "k", "v", True), "ts=True must be"),
    ],
)
def test_driver_refuses_a_bad_record_naming_the_argument(arguments: tuple[object, ...], message: str) -> None:
    driver = JoinDriver(JoinSpec(join="stream-table", variant="left"), kafka="3.9")
    with pytest.raises(InvalidRecordError, match=re.escape(message)):
        driver.pipe(*arguments)  # type: ignore[arg-type]
    assert driver.records == () and driver.read_outputs() == []


def test_driver_refuses_a_wall_clock_going_back() -> None:
    driver = JoinDriver(JoinSpec(join="stream-table", variant="left"), kafka="3.9")
    driver.pipe("left", "k", "v", 1, wall_clock=100)
    driver.pipe("left", "k", "v", 2)
    with pytest.raises(InvalidRecordError, match="wall_clock=99 must be an integer"):
        driver.pipe("left", "k", "v", 3, wall_clock=99)
    assert [record.wall_clock for record in driver.records] == [100, None]


def test_driver_refuses_an_unknown_release_and_a_join_it_lacks() -> None:
    with pytest.raises(UnknownVersionError):
        JoinDriver(JoinSpec(join="stream-table", variant="left"), kafka="three")
    window = Window(before=5, after=5, grace=0)
    with pytest.raises(UnsupportedJoinError, match="stream-stream join has no tables"):
        from kjoin import Versioning

        JoinDriver(JoinSpec(join="stream-stream", variant="inner", window=window,
                            versioned=Versioning(left=True)), kafka="3.9")  # fmt: skip
    assert issubclass(InvalidRecordError, KjoinError) and issubclass(InvalidRecordError, ValueError)


def test_the_example_of_docs_driver_md_runs() -> None:
    assert len(run_examples(ROOT / "docs" / "driver.md")) >= 2


def test_the_example_of_the_readme_prints_what_it_says(capsys: pytest.CaptureFixture[str]) -> None:
    (block,) = [block for block in python_blocks(ROOT / "README.md") if "JoinDriver" in block]
    exec(compile(block, "README.md", "exec"), {"__name__": "readme_example"})
    printed = capsys.readouterr().out.strip()
    assert printed and printed == block.split("print(driver.read_outputs())")[1].split("# ")[1].strip()
