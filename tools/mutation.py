"""Mutation testing of the bundled ``spark-reference`` and ``spark-stateful``: how many realistic one-line
mistakes are caught?

    python tools/mutation.py [--candidate spark-reference|spark-stateful] [--modules stream_stream ...]
                             [--sample N | --stratified N] [--seed S]
                             [--only MODULE:LINE[:CHANGE] ...] [--fuzz] [--fuzz-alone [--with-catalogue]]
                             [--named [NAME ...]] [--thickness] [--scenarios PATH ...]
                             [--resume LOG ...] [--list] [--markdown FILE] [--spark-master URL]

Each mutant is one small change of one module of ``conformance/candidates/reference`` (or, with
``--candidate spark-stateful``, of ``conformance/candidates/stateful``) made by the project's own operators
over the Python source (the reference's Spark expressions are built from Python operators, so a flipped
``<`` is a flipped comparison in the Spark plan):

* ``compare``: ``<`` and ``<=``, ``>`` and ``>=``, ``==`` and ``!=`` exchanged (window bounds, grace);
* ``arithmetic``: ``+`` and ``-`` exchanged (grace arithmetic, retention);
* ``off-by-one``: a small integer constant in a comparison or an arithmetic expression plus one;
* ``extreme``: ``greatest``/``least``, ``max``/``min`` exchanged (output timestamps, stream time);
* ``logic``: ``&`` and ``|`` exchanged (join conditions, store rules);
* ``drop-filter``: ``df.where(c)`` / ``df.filter(c)`` becomes ``df`` (a dropped rule);
* ``side``: the string constants ``"left"`` and ``"right"`` exchanged;
* ``order``: ``asc`` and ``desc`` exchanged (emission order);
* for spark-stateful, whose join logic is plain Python in ``handleInputRows``: ``and`` and ``or`` exchanged,
  ``not`` dropped (as for the oracle's mutants, tools/mutation_oracle.py).

Every mutant is written as its own importable package (``kjoin_mutant_NNNN``: a copy of the candidate's
package with its imports renamed; spark-stateful runs it through ``SparkStateful(package=...)``) under a
temporary folder on ``PYTHONPATH``, so all mutants live in ONE process with ONE (warm) SparkSession, and
Spark's Python workers import the mutated code too. Each mutant runs, as a candidate named ``mutant-NNNN``,
over the catalogue cases of the join kinds its module serves, one candidate call per join kind (the harness's
batching), then, if it survives, each scenario file with versioned tables as a batch of its own (as ``kjoin
run FILE`` makes it: a candidate may take another path for such a batch); with ``--fuzz`` the survivors also
meet ``kjoin fuzz`` (ci profile, all claimed eras). A mutant is *killed* when any case fails or errors.

``--fuzz-alone`` measures the fuzzer on its own (issue 23, item 4): each mutant meets only ``kjoin fuzz``
(ci profile, all claimed eras of the join kinds its module serves), not the catalogue; with
``--with-catalogue`` each mutant also meets the catalogue stages above, independently, and the report gives
both kill rates side by side. Recorded equivalents count as equivalent for both. The fuzzer meets one join
kind at a time and stops at the first that fails: the same candidate calls ``kjoin fuzz`` makes (one per
join kind, and its batches of one store shape for the join kinds reading versioned tables: docs/testing.md,
"Batch compositions"), less those after a kill.

``--named`` runs the hand-written mutants of spark-reference in ``tools/mutation-named.toml`` instead
(realistic mistakes the operators cannot write, issue 23; ``tools/mutation_named.py``), numbered from
``mutant-9001``. Their kill thickness is always measured; ``--thickness`` measures it for the operators'
mutants too: how many catalogue files kill each mutant (the catalogue stages do not stop at the first
kill), reported in a "Kill thickness" section, where a kill by one file alone is thin. ``--scenarios PATH
...`` judges by those catalogue files only, e.g. to show that new scenarios kill a mutant.

``--stratified N`` checks a random sample of N of the non-equivalent mutants, stratified by module (each
module its proportional share, at least one), and the report gives every kill rate with its exact one-sided
95% Clopper-Pearson lower bound (29 of 29 killed: 90.2%): a full run of the fuzzer alone takes hours.
``--resume LOG`` (repeatable) continues such a run cut short: the fuzzer-alone verdicts the progress
lines of an earlier run's log (its stderr) give the same mutants (number, place and change) are taken, and
only the others are checked (undecided ones again); the report says how many verdicts were taken.

The report lists, per module, the mutants, how many the catalogue and the fuzzer killed and the score, and
every survivor with its change, so it can be killed by a new scenario or shown equivalent: survivors
listed in ``tools/mutation-equivalents.toml`` (by module and change, with the reason; spark-stateful's in its
``stateful_equivalent`` section) count as equivalent.
The nox session ``mutation`` runs it; it is not part of CI (one mutant costs about a catalogue run).
``--only foreign_key:51`` checks just the mutants of one line (``--only 'stream_table:44:| -> &'`` one change
there, as ``--list`` and the report print it), e.g. to show that a new scenario kills a survivor.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import itertools
import math
import os
import random
import shutil
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kjoin.conformance.harness.system_failures import SystemFailure

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mutation_named  # tools/ is not a package: found through the path above

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "conformance" / "candidates" / "reference"
PACKAGE = "kjoin.conformance.candidates.reference"
STATEFUL = ROOT / "conformance" / "candidates" / "stateful"
STATEFUL_PACKAGE = "kjoin.conformance.candidates.stateful"
EQUIVALENTS = Path(__file__).with_name("mutation-equivalents.toml")

_EVERY_KIND = ("stream-stream", "stream-table", "table-table", "fk", "stream-globaltable")

SERVES = {
    "stream_stream": ("stream-stream",),
    "outer_store": ("stream-stream",),
    "self_join": ("stream-stream",),
    "stream_table": ("stream-table",),
    "table_table": ("table-table",),
    "foreign_key": ("fk",),
    "global_table": ("stream-globaltable",),
    "versioned": ("stream-table", "table-table", "fk"),
    "frames": _EVERY_KIND,
    "dispatch": _EVERY_KIND,
}
"""spark-reference's modules -> the join kinds whose cases can kill its mutants (self-joins are cases of
the stream-stream kind: the harness sends them to the candidate with the other stream-stream cases)."""

STATEFUL_SERVES = {
    "stream_stream": ("stream-stream",),
    "self_join": ("stream-stream",),
    "tables": ("stream-table", "table-table"),
    "foreign_key": ("fk",),
    "global_table": ("stream-globaltable",),
    "versioned": ("stream-table", "table-table", "fk", "stream-globaltable"),
    "state": _EVERY_KIND,
    "processor": _EVERY_KIND,
    "query": _EVERY_KIND,
}
"""spark-stateful's modules -> the join kinds they serve (``versioned`` holds the plain and versioned
tables behind the stream-table, table-table, foreign-key and global-table tasks)."""


@dataclass(frozen=True)
class Target:
    """A candidate whose modules are mutated: where they live, what each serves, how a mutant runs."""

    name: str
    folder: Path
    package: str
    serves: dict[str, tuple[str, ...]]
    python_logic: bool
    """Also the plain-Python operators (``and``/``or`` exchanged, ``not`` dropped): for a port whose join
    logic is Python, not Spark expressions."""
    section: str
    """Its section of tools/mutation-equivalents.toml."""

    def candidate(self, name: str, package: str) -> Any:
        """The candidate running the copy of the modules in ``package`` (a mutant) as ``name``."""
        if self.name == "spark-stateful":
            from kjoin.conformance.candidates.spark_stateful import SparkStateful

            return SparkStateful(name=name, package=package)
        from kjoin.conformance.candidates.spark_reference import CLAIM

        return MutantCandidate(name, package, CLAIM)


TARGETS = {
    "spark-reference": Target("spark-reference", REFERENCE, PACKAGE, SERVES, False, "equivalent"),
    "spark-stateful": Target(
        "spark-stateful", STATEFUL, STATEFUL_PACKAGE, STATEFUL_SERVES, True, "stateful_equivalent"
    ),
}
"""The candidates ``--candidate`` mutates."""

_COMPARE = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
            ast.NotEq: ast.Eq}  # fmt: skip
_ARITHMETIC = {ast.Add: ast.Sub, ast.Sub: ast.Add}
_LOGIC = {ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd}
_BOOLEAN = {ast.And: ast.Or, ast.Or: ast.And}
_EXTREMES = {"greatest": "least", "least": "greatest", "max": "min", "min": "max"}
_ORDER = {"asc": "desc", "desc": "asc"}
_SIDES = {"left": "right", "right": "left"}
_SYMBOLS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
            ast.Add: "+", ast.Sub: "-", ast.BitAnd: "&", ast.BitOr: "|",
            ast.And: "and", ast.Or: "or"}  # fmt: skip


@dataclass(frozen=True)
class Mutation:
    """One change: replace ``source[start:end]`` of ``module`` with ``replacement``."""

    module: str
    operator: str
    line: int
    start: int
    end: int
    original: str
    replacement: str
    name: str = ""
    """A named mutant's name (``tools/mutation-named.toml``); empty for the operators' mutants."""
    joins: tuple[str, ...] = ()
    """The join kinds whose cases judge it; empty: every kind its module serves."""

    @property
    def change(self) -> str:
        """``original -> replacement`` on one line (long originals shortened); a named mutant's name."""
        if self.name:
            return self.name
        original = " ".join(self.original.split())
        if len(original) > 60:
            original = original[:57] + "..."
        return f"{original} -> {' '.join(self.replacement.split())}"


@dataclass
class Result:
    mutation: Mutation
    number: int
    killed_by: str | None = None
    detail: str = ""
    seconds: float = 0.0
    equivalent: str | None = None
    fuzz_alone: str | None = None
    """With ``--fuzz-alone``: the fuzzer's first failure (``""`` if it found none); None if not run."""
    undecided: str | None = None
    """Why no verdict could be had (the system failed on every try: ``SYSTEM_PAUSES_S``); None if decided."""
    kill_files: dict[str, set[str]] | None = None
    """With ``--thickness``: every catalogue file that kills the mutant, with its failing scenarios."""
    resumed: bool = False
    """Whether the verdict was taken from an earlier run's progress log (``--resume``), not checked again."""

    @property
    def killed_alone(self) -> bool:
        """Whether the fuzzer on its own killed this mutant."""
        return bool(self.fuzz_alone)


@dataclass
class _Finder(ast.NodeVisitor):
    """Collects mutation points of one module, skipping docstrings, annotations and ``__all__``."""

    module: str
    source: str
    python_logic: bool = False
    """Also ``and``/``or`` exchanged and ``not`` dropped (for the oracle: plain Python logic)."""
    offsets: list[int] = field(default_factory=list)
    found: list[Mutation] = field(default_factory=list)

    def __post_init__(self) -> None:
        position = 0
        for line in self.source.splitlines(keepends=True):
            self.offsets.append(position)
            position += len(line)

    def _span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offsets[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
        end = self.offsets[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]
        return start, end

    def _add(self, operator: str, node: ast.AST, replacement: str) -> None:
        start, end = self._span(node)
        original = self.source[start:end]
        if original != replacement:
            line = node.lineno  # type: ignore[attr-defined]
            self.found.append(Mutation(self.module, operator, line, start, end, original, replacement))

    def _operator_between(self, operator: str, left: ast.AST, right: ast.AST, old: type, new: type) -> None:
        """Replace the operator token between two operands (the text between them holds only it)."""
        _, start = self._span(left)
        end, _ = self._span(right)
        between = self.source[start:end]
        symbol = _SYMBOLS[old]
        at = between.find(symbol)
        while at >= 0 and old in (ast.Lt, ast.Gt) and between[at + 1 : at + 2] == "=":
            at = between.find(symbol, at + 2)
        if at < 0:
            return
        line = self.source.count("\n", 0, start + at) + 1
        mutation = Mutation(
            self.module, operator, line, start + at, start + at + len(symbol), symbol, _SYMBOLS[new]
        )
        self.found.append(mutation)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._body(node.body)
        for decorator in node.decorator_list:
            self.visit(decorator)

    def visit_Module(self, node: ast.Module) -> None:
        self._body(node.body)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._body(node.body)

    def _body(self, body: Sequence[ast.stmt]) -> None:
        for index, statement in enumerate(body):
            is_docstring = (
                index == 0
                and isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
            )
            if is_docstring or isinstance(statement, ast.Import | ast.ImportFrom):
                continue
            if isinstance(statement, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "__all__" for target in statement.targets
            ):
                continue
            if isinstance(statement, ast.AnnAssign):
                if statement.value is not None:
                    self.visit(statement.value)
                continue
            self.visit(statement)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._body(node.body)

    def visit_arguments(self, node: ast.arguments) -> None:
        for default in [*node.defaults, *node.kw_defaults]:
            if default is not None:
                self.visit(default)

    def visit_Compare(self, node: ast.Compare) -> None:
        if len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
            old = type(node.ops[0])
            self._operator_between("compare", node.left, node.comparators[0], old, _COMPARE[old])
            for operand in (node.left, node.comparators[0]):
                self._off_by_one(operand)
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        kind = type(node.op)
        strings = any(
            isinstance(side, ast.Constant) and isinstance(side.value, str) for side in (node.left, node.right)
        )
        if kind in _ARITHMETIC and not strings and not isinstance(node.left, ast.JoinedStr):
            self._operator_between("arithmetic", node.left, node.right, kind, _ARITHMETIC[kind])
            for operand in (node.left, node.right):
                self._off_by_one(operand)
        elif kind in _LOGIC:
            self._operator_between("logic", node.left, node.right, kind, _LOGIC[kind])
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        """Python's ``and``/``or`` (the oracle's logic; the reference's Spark logic is ``&``/``|``)."""
        if self.python_logic:
            kind = type(node.op)
            for left, right in zip(node.values, node.values[1:], strict=False):
                self._operator_between("logic", left, right, kind, _BOOLEAN[kind])
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        """A dropped ``not``."""
        if self.python_logic and isinstance(node.op, ast.Not):
            start, end = self._span(node.operand)
            self._add("negation", node, self.source[start:end])
        self.generic_visit(node)

    def _off_by_one(self, node: ast.AST) -> None:
        if isinstance(node, ast.Constant) and type(node.value) is int and abs(node.value) <= 10:
            self._add("off-by-one", node, str(node.value + 1))

    def visit_Call(self, node: ast.Call) -> None:
        function = node.func
        name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
        if name in _EXTREMES:
            self._rename_call("extreme", function, _EXTREMES[name])
        elif name in _ORDER:
            self._rename_call("order", function, _ORDER[name])
        elif name in ("where", "filter") and isinstance(function, ast.Attribute) and len(node.args) == 1:
            receiver_start, receiver_end = self._span(function.value)
            self._add("drop-filter", node, self.source[receiver_start:receiver_end])
        self.generic_visit(node)

    def _rename_call(self, operator: str, function: ast.expr, new: str) -> None:
        if isinstance(function, ast.Attribute):
            _, end = self._span(function)
            start = end - len(function.attr)
            line = function.end_lineno or function.lineno
            self.found.append(Mutation(self.module, operator, line, start, end, function.attr, new))
        elif isinstance(function, ast.Name):
            self._add(operator, function, new)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and node.value in _SIDES:
            self._add("side", node, repr(_SIDES[node.value]).replace("'", '"'))


def mutations(
    modules: Sequence[str], package: Path = REFERENCE, python_logic: bool = False
) -> list[Mutation]:
    """Every mutation point of ``modules`` (names under ``package``, default the reference), in source
    order; ``python_logic`` adds the ``and``/``or`` and ``not`` mutants."""
    found: list[Mutation] = []
    for module in modules:
        source = (package / f"{module}.py").read_text(encoding="utf-8")
        finder = _Finder(module, source, python_logic)
        finder.visit(ast.parse(source))
        unique = {(m.start, m.end, m.replacement): m for m in finder.found}
        found.extend(sorted(unique.values(), key=lambda m: (m.start, m.end, m.replacement)))
    return found


def only(points: Sequence[tuple[int, Mutation]], wanted: Sequence[str]) -> list[tuple[int, Mutation]]:
    """The numbered ``points`` that ``wanted`` selects: each item is ``MODULE:LINE`` (every mutant of that
    line) or ``MODULE:LINE:CHANGE`` (the one whose change, as ``--list`` prints it, is ``CHANGE``). An item
    that selects nothing is an error (``ValueError``), as lines move when the reference changes."""
    chosen: dict[int, Mutation] = {}
    for item in wanted:
        module, _, rest = item.partition(":")
        line, _, change = rest.partition(":")
        if not line.strip().isdigit():
            raise ValueError(f"--only {item!r}: expected MODULE:LINE or MODULE:LINE:CHANGE")
        found = [
            (number, mutation)
            for number, mutation in points
            if mutation.module == module.strip()
            and mutation.line == int(line)
            and (not change.strip() or mutation.change == change.strip())
        ]
        if not found:
            raise ValueError(f"--only {item!r}: no such mutation point (see --list)")
        chosen.update(found)
    return sorted(chosen.items())


def write_mutant(
    folder: Path, number: int, mutation: Mutation, target: Target = TARGETS["spark-reference"]
) -> str:
    """Write ``target``'s package with ``mutation`` applied as package ``kjoin_mutant_<number>``; its name."""
    name = f"kjoin_mutant_{number:04d}"
    copy = folder / name
    copy.mkdir(parents=True)
    for path in target.folder.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        if path.stem == mutation.module:
            source = source[: mutation.start] + mutation.replacement + source[mutation.end :]
        (copy / path.name).write_text(source.replace(target.package, name), encoding="utf-8")
    return name


@dataclass(frozen=True)
class MutantCandidate:
    """``spark-reference`` with one mutation, as a candidate."""

    name: str
    package: str
    claim: Any
    declared_differences: tuple[Any, ...] = ()

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        dispatch = importlib.import_module(f"{self.package}.dispatch")
        result: DataFrame = dispatch.run_reference(spark, inputs, specs)
        return result


def equivalents(section: str = "equivalent") -> dict[tuple[str, str, int], str]:
    """The recorded equivalent mutants of ``section`` (``oracle_equivalent`` for the oracle's):
    ``(module, change, line) -> reason``."""
    if not EQUIVALENTS.exists():
        return {}
    document = tomllib.loads(EQUIVALENTS.read_text(encoding="utf-8"))
    return {
        (entry["module"], entry["change"], int(entry["line"])): entry["reason"]
        for entry in document.get(section, [])
    }


def selected(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    points: list[tuple[int, Mutation]],
    recorded: dict[tuple[str, str, int], str] | None = None,
) -> list[tuple[int, Mutation]] | None:
    """The numbered mutants ``--only`` and ``--sample`` (or ``--stratified``, which leaves out the
    ``recorded`` equivalents) select; None after ``--list`` printed them."""
    try:
        eligible = only(points, args.only) if args.only else points
    except ValueError as error:
        parser.error(str(error))
    if args.list:
        for number, mutation in eligible:
            print(f"{number:4d} {mutation.module}.py:{mutation.line} [{mutation.operator}] {mutation.change}")
        return None
    if getattr(args, "stratified", None):
        known = recorded or {}
        real = [(n, m) for n, m in eligible if (m.module, m.change, m.line) not in known]
        return stratified_sample(real, args.stratified, args.seed)
    return sorted(random.Random(args.seed).sample(eligible, args.sample)) if args.sample else eligible


def stratified_sample(
    points: Sequence[tuple[int, Mutation]], size: int, seed: int
) -> list[tuple[int, Mutation]]:
    """A random sample of ``size`` of ``points``, stratified by module: each module gets its proportional
    share (largest remainders first, at least one while ``size`` allows), drawn at random within it. In
    rounds, one mutant of each module per round (modules in a random order): a run cut short has checked
    a sample still spread over the modules, not the first modules only."""
    strata: dict[str, list[tuple[int, Mutation]]] = {}
    for point in points:
        strata.setdefault(point[1].module, []).append(point)
    size = min(size, len(points))
    exact = {module: size * len(mine) / len(points) for module, mine in strata.items()}
    floor = 1 if size >= len(strata) else 0
    shares = {module: max(int(share), floor) for module, share in exact.items()}
    while sum(shares.values()) > size:  # the floor of one overshot: take from the most over its share
        over = [module for module in sorted(shares) if shares[module] > floor]
        shares[max(over, key=lambda module: shares[module] - exact[module])] -= 1
    while sum(shares.values()) < size:  # largest remainders first
        room = [module for module in sorted(shares) if shares[module] < len(strata[module])]
        shares[max(room, key=lambda module: exact[module] - shares[module])] += 1
    generator = random.Random(seed)
    drawn = {module: generator.sample(strata[module], shares[module]) for module in sorted(strata)}
    rounds = sorted(drawn)
    generator.shuffle(rounds)
    most = max(shares.values(), default=0)
    return [drawn[module][i] for i in range(most) for module in rounds if i < len(drawn[module])]


def clopper_pearson_lower(killed: int, checked: int, confidence: float = 0.95) -> float:
    """The exact one-sided Clopper-Pearson lower confidence bound on a kill rate seen as ``killed`` of
    ``checked``: the rate p at which ``killed`` or more kills have probability ``1 - confidence``
    (e.g. 29 of 29 at 95%: 0.05 ** (1 / 29) = 0.902)."""
    if not 0 <= killed <= checked:
        raise ValueError(f"{killed} killed of {checked} checked")
    if killed == 0:
        return 0.0
    alpha = 1 - confidence

    def at_least(p: float) -> float:
        return sum(
            math.comb(checked, k) * p**k * (1 - p) ** (checked - k) for k in range(killed, checked + 1)
        )

    low, high = 0.0, 1.0
    for _ in range(200):  # at_least grows with p: bisect for at_least(p) == alpha
        middle = (low + high) / 2
        low, high = (middle, high) if at_least(middle) < alpha else (low, middle)
    return low


def _first_failure(outcomes: Sequence[Any]) -> str:
    for outcome in outcomes:
        if outcome.status in ("fail", "error"):
            first = outcome.verdict.first if outcome.verdict is not None else None
            kind = first.kind if first is not None else outcome.status
            return f"{outcome.case.id}: {kind}"
    return ""


def _versioned_files(cases: Sequence[Any]) -> dict[str, list[Any]]:
    """The catalogue's scenario files with versioned tables (golden traces aside), each file's cases."""
    files: dict[str, list[Any]] = {}
    for case in cases:
        if case.spec.versioned is not None and not case.source.startswith("scenarios/golden"):
            files.setdefault(case.source, []).append(case)
    return files


def _alone_failure(
    spark: SparkSession, candidate: Any, files: dict[str, list[Any]], joins: Sequence[str]
) -> str:
    """The first failure of the files in ``files`` of ``joins``, each run as a batch of its own (as ``kjoin
    run FILE`` makes it): a candidate may choose a path per batch, e.g. spark-reference's fast path for
    batches without versioned tables, which the whole catalogue as one batch never takes."""
    from kjoin.conformance.harness.outcomes import HarnessRun

    for source, mine in sorted(files.items()):
        selected = [case for case in mine if case.join in joins]
        if selected:
            failure = _first_failure(HarnessRun(candidate, lambda: spark, timeout=900).outcomes(selected))
            if failure:
                return f"{failure} (its file {source} alone)"
    return ""


def changes_path_choice(mutation: Mutation) -> bool:
    """Whether ``mutation`` changes spark-reference's one batch-dependent decision: ``with_latest_flag``'s
    test for the fast path of batches without versioned tables (from ``any_versioned =`` to the ``if``
    that reads it). Every other rule partitions by ``scenario_id``, so a mutant elsewhere gets the same
    verdict for a file in the catalogue's batch as for the file alone."""
    if mutation.module != "versioned":
        return False
    source = (REFERENCE / "versioned.py").read_text(encoding="utf-8")
    start = source.index("any_versioned = ")
    end = source.index("\n", source.index("if rec.where(any_versioned)"))
    return mutation.start < end and start < mutation.end


def _kill_files(
    spark: SparkSession,
    result: Result,
    candidate: Any,
    joins: Sequence[str],
    outcomes: Sequence[Any],
    alone: dict[str, list[Any]],
    expected: dict[str, Any],
) -> dict[str, set[str]]:
    """Every file that kills the mutant: failing in the catalogue's batch (``outcomes``) or, for a mutant
    that ``changes_path_choice``, as a batch of its own (the other files of ``alone``). ``expected``: the
    oracle's outputs per case id, shared by every run."""
    from kjoin.conformance.harness.outcomes import HarnessRun

    found = mutation_named.killing_files(outcomes)
    if not changes_path_choice(result.mutation):
        return found
    for source, mine in sorted(alone.items()):
        selected = [case for case in mine if case.join in joins]
        if selected and source not in found:
            run = HarnessRun(candidate, lambda: spark, timeout=900, _expected=expected)
            for killing, scenarios in mutation_named.killing_files(run.outcomes(selected)).items():
                found.setdefault(killing, set()).update(scenarios)
    return found


def _fuzz_failure(spark: SparkSession, candidate: Any, joins: Sequence[str]) -> str:
    """The first failure ``kjoin fuzz`` (ci profile, every claimed era, its store-shape batches, no shrinking)
    finds in ``joins``, one join kind at a time, stopping at the first that fails: the fuzzer checks its
    cases with candidate calls per join kind, so these are the very calls ``kjoin fuzz`` makes, only those
    after a failing one are left out (they cannot change a kill)."""
    from kjoin.conformance.differential.fuzz import fuzz

    for join in joins:
        report = fuzz(candidate, lambda: spark, joins=[join], shrink_failures=0)  # type: ignore[list-item]
        failure = _first_failure(report.outcomes)
        if failure:
            return failure
    return ""


def run_mutants(
    spark: SparkSession,
    chosen: Sequence[tuple[int, Mutation]],
    folder: Path,
    *,
    fuzz_survivors: bool,
    catalogue: bool = True,
    fuzz_alone: bool = False,
    target: Target = TARGETS["spark-reference"],
    thickness: bool = False,
    scenarios: Sequence[Path] = (),
) -> Iterator[Result]:
    """Check every mutant of ``target`` in ``chosen``, one result each: against the catalogue (and, with
    ``fuzz_survivors``, its survivors against the fuzzer) unless not ``catalogue``, and with ``fuzz_alone``
    against the fuzzer alone, independently of the catalogue. With ``thickness`` the catalogue stages do not
    stop at the first kill: every file that kills the mutant is recorded (``Result.kill_files``).
    ``scenarios``: the catalogue files (or folders) that judge, default the whole catalogue."""
    from kjoin.conformance.catalogue import load_cases

    cases = load_cases(list(scenarios) or None).cases
    by_join: dict[str, list[Any]] = {}
    for case in cases:
        if case.expected is not None or case.source.startswith("scenarios/golden"):
            by_join.setdefault(case.join, []).append(case)
    alone = _versioned_files(cases)
    recorded = equivalents(target.section)
    expected: dict[str, Any] = {}  # the oracle's outputs per case id: the same for every mutant
    for number, mutation in chosen:
        started = time.perf_counter()
        package = write_mutant(folder, number, mutation, target)
        candidate = target.candidate(f"mutant-{number:04d}", package)
        joins = mutation.joins or target.serves[mutation.module]
        for pause in SYSTEM_PAUSES_S:
            try:
                stages = {"fuzz_survivors": fuzz_survivors, "catalogue": catalogue, "fuzz_alone": fuzz_alone}
                stages |= {"thickness": thickness, "expected": expected}
                result = _check(spark, Result(mutation, number), candidate, joins, by_join, alone, **stages)
                break
            except SystemFailure as failure:  # the machine's fault, not the mutant's: no verdict from it
                result = Result(mutation, number, undecided=str(failure)[:200])
                if pause is not None:
                    time.sleep(pause)
        if result.undecided is None and result.killed_by is None and not result.killed_alone:
            result.equivalent = recorded.get((mutation.module, mutation.change, mutation.line))
        result.seconds = time.perf_counter() - started
        yield result


SYSTEM_PAUSES_S: tuple[float | None, ...] = (60.0, 180.0, None)
"""A mutant whose check fails for a system cause (``SystemFailure``: the harness retried its call already)
is checked again after each pause, from the start; after the last try it is left undecided, out of the
rates: an overloaded machine is no kill."""


def _check(
    spark: SparkSession,
    result: Result,
    candidate: Any,
    joins: Sequence[str],
    by_join: dict[str, list[Any]],
    alone: dict[str, list[Any]],
    *,
    fuzz_survivors: bool,
    catalogue: bool,
    fuzz_alone: bool,
    thickness: bool = False,
    expected: dict[str, Any] | None = None,
) -> Result:
    """``result`` with one mutant's verdicts (see ``run_mutants``); ``SystemFailure`` passes through."""
    from kjoin.conformance.harness.outcomes import HarnessRun

    if catalogue:
        try:
            selected = [case for join in joins for case in by_join.get(join, [])]
            shared = {} if expected is None else expected
            outcomes = HarnessRun(candidate, lambda: spark, timeout=900, _expected=shared).outcomes(selected)
            if thickness:
                result.kill_files = _kill_files(spark, result, candidate, joins, outcomes, alone, shared)
                first = sorted(result.kill_files)[:1]
                failure = _first_failure(outcomes) or (f"(its file {first[0]} alone)" if first else "")
            else:
                failure = _first_failure(outcomes) or _alone_failure(spark, candidate, alone, joins)
            if failure:
                result.killed_by, result.detail = "catalogue", failure
            elif fuzz_survivors:
                failure = _fuzz_failure(spark, candidate, joins)
                if failure:
                    result.killed_by, result.detail = "fuzz", failure
        except SystemFailure:
            raise
        except Exception as error:  # a mutant that breaks the harness is killed: say how
            result.killed_by, result.detail = "crash", f"{type(error).__name__}: {error}"[:200]
    if fuzz_alone:
        try:
            result.fuzz_alone = _fuzz_failure(spark, candidate, joins)
        except SystemFailure:
            raise
        except Exception as error:  # as above: a crash under the fuzzer is a kill
            result.fuzz_alone = f"crash: {type(error).__name__}: {error}"[:200]
    return result


def progress_line(done: int, total: int, result: Result, catalogue: bool) -> str:
    """The progress line of one finished mutant (on stderr; what ``--resume`` reads back)."""
    return (
        f"[{done}/{total}] mutant-{result.number:04d} {result.mutation.module}.py:{result.mutation.line} "
        f"{result.mutation.change}: {_verdict(result, catalogue)} {result.detail} ({result.seconds:.0f} s)"
    )


def resumed(
    logs: Sequence[Path], chosen: Sequence[tuple[int, Mutation]], recorded: dict[tuple[str, str, int], str]
) -> dict[int, Result]:
    """The fuzzer-alone verdicts earlier ``--fuzz-alone`` runs (without the catalogue) gave mutants of
    ``chosen``, read from their progress logs (their stderr, ``progress_line``; the last line of a mutant
    wins): a line counts only for the mutant of the same number, place and change, so a log of other code
    or another numbering gives nothing. Undecided mutants are not taken: they are checked again. Mutant
    number -> result."""
    expected = {
        f"mutant-{number:04d}": (
            number,
            mutation,
            f"{mutation.module}.py:{mutation.line} {mutation.change}: ",
        )
        for number, mutation in chosen
    }
    found: dict[int, Result] = {}
    lines = [line for log in logs for line in log.read_text(encoding="utf-8", errors="replace").splitlines()]
    for line in lines:
        counter, _, rest = line.partition("] ")
        name, _, rest = rest.partition(" ")
        if not counter.startswith("[") or name not in expected:
            continue
        number, mutation, place = expected[name]
        verdict, seconds = (
            _verdict_and_seconds(rest.removeprefix(place)) if rest.startswith(place) else ("", 0)
        )
        if verdict.startswith("fuzzer alone: "):
            failure = verdict.removeprefix("fuzzer alone: ")
            result = Result(mutation, number, seconds=seconds, resumed=True)
            result.fuzz_alone = "" if failure == "SURVIVED" else failure
            if not result.killed_alone:
                result.equivalent = recorded.get((mutation.module, mutation.change, mutation.line))
            found[number] = result
    return found


def _verdict_and_seconds(text: str) -> tuple[str, float]:
    """A progress line's verdict and time, from ``VERDICT (S s)``."""
    verdict, _, seconds = text.rstrip().rpartition(" (")
    if not seconds.endswith(" s)") or not seconds[:-3].isdigit():
        return "", 0
    return verdict.strip(), float(seconds[:-3])


HEADERS = ["module", "mutants", "catalogue", "fuzz", "equivalent", "survived", "score"]


def render(
    results: Sequence[Result],
    total_points: int,
    second: str = "fuzz",
    catalogue: bool = True,
    sample: str | None = None,
) -> str:
    """The score per module and every survivor, as Markdown; ``second`` names the stage after the catalogue
    (the fuzzer here, the unit tests for the oracle's mutants). ``catalogue``: whether the catalogue stages
    ran; results with a fuzzer-alone verdict add its kill rate beside the catalogue's. ``sample`` says how
    the mutants were sampled, if they were: every rate then comes with its one-sided 95% lower bound."""
    from tabulate import tabulate

    undecided = [r for r in results if r.undecided is not None]
    results = [r for r in results if r.undecided is None]
    alone = any(r.fuzz_alone is not None for r in results)
    if catalogue:
        headers = [second if h == "fuzz" else h for h in HEADERS]
        headers += ["fuzz alone", "fuzz-alone score"] if alone else []
    else:
        headers = ["module", "mutants", "equivalent", "fuzz alone", "survived", "score"]
    rows = []
    for module in sorted({r.mutation.module for r in results}):
        mine = [r for r in results if r.mutation.module == module]
        equivalent = sum(r.equivalent is not None for r in mine)
        real = len(mine) - equivalent
        row: list[Any] = [module, len(mine)]
        if catalogue:
            first = sum(r.killed_by in ("catalogue", "crash", "timeout") for r in mine)
            later = sum(r.killed_by == second for r in mine)
            survived = sum(r.killed_by is None and r.equivalent is None for r in mine)
            row += [first, later, equivalent, survived, f"{(first + later) / real if real else 1.0:.0%}"]
        if alone:
            by_fuzzer = sum(r.killed_alone for r in mine)
            score = f"{by_fuzzer / real if real else 1.0:.0%}"
            survived = sum(not r.killed_alone and r.equivalent is None for r in mine)
            row += [by_fuzzer, score] if catalogue else [equivalent, by_fuzzer, survived, score]
        rows.append(row)
    equivalent = sum(r.equivalent is not None for r in results)
    real = len(results) - equivalent
    lines = [f"{len(results)} mutants checked of {total_points} mutation points" if results else "no mutants"]
    if catalogue and real:
        killed = sum(r.killed_by is not None for r in results)
        bound = _bound(killed, real) if sample else ""
        lines[0] += f"; killed {killed} of {real} non-equivalent ({killed / real:.0%}){bound}"
    if alone and real:
        killed = sum(r.killed_alone for r in results)
        lines[0] += (
            f"; the fuzzer alone (ci profile, no catalogue) killed {killed} of {real} non-equivalent "
            f"({killed / real:.0%}){_bound(killed, real) if sample else ''}"
        )
    if undecided:
        lines[0] += f"; {len(undecided)} undecided (the system failed on every try), left out of the rates"
    if sample is not None:
        lines[0] = f"A sample, not every mutant: {sample}. " + lines[0]
    if taken := sum(r.resumed for r in results):
        lines[0] += f"; {taken} of the verdicts taken from an earlier run's log (--resume), not checked again"
    lines += ["", tabulate(rows, headers, tablefmt="github"), ""]
    if catalogue:
        survivors = [r for r in results if r.killed_by is None]
        if survivors:
            lines += ["Survivors:", ""] + [_survivor(r) for r in survivors]
    if alone:
        survivors = [r for r in results if not r.killed_alone]
        if survivors:
            lines += ["", "Survivors of the fuzzer alone:", ""] if catalogue else ["Survivors:", ""]
            lines += [_survivor(r) for r in survivors]
    if undecided:
        lines += ["", "Undecided (no verdict: the system failed):", ""]
        lines += [f"{_survivor(r)}: {r.undecided}" for r in undecided]
    thickness = mutation_named.render(results)
    lines += ["", thickness] if thickness else []
    return "\n".join(lines) + "\n"


def _bound(killed: int, checked: int) -> str:
    """The one-sided 95% Clopper-Pearson lower bound on a kill rate, as the report gives it."""
    return f", 95% lower bound {clopper_pearson_lower(killed, checked):.1%} (exact one-sided Clopper-Pearson)"


def _survivor(r: Result) -> str:
    """A survivor as a Markdown list item: where, the operator, the change, its recorded equivalence."""
    note = f" (equivalent: {r.equivalent})" if r.equivalent else ""
    return (
        f"* mutant-{r.number:04d} {r.mutation.module}.py:{r.mutation.line} "
        f"[{r.mutation.operator}] `{r.mutation.change}`{note}"
    )


def _verdict(result: Result, catalogue: bool) -> str:
    """One mutant's verdict for the progress line."""
    if result.undecided is not None:
        return f"UNDECIDED ({result.undecided})"
    verdicts = []
    if catalogue:
        verdicts.append(f"killed by {result.killed_by}" if result.killed_by else "SURVIVED")
    if result.kill_files is not None:
        verdicts.append(f"{len(result.kill_files)} killing files")
    if result.fuzz_alone is not None:
        verdicts.append(
            f"fuzzer alone: {result.fuzz_alone}" if result.killed_alone else "fuzzer alone: SURVIVED"
        )
    return "; ".join(verdicts)


def named_points(parser: argparse.ArgumentParser, wanted: Sequence[str]) -> list[tuple[int, Mutation]]:
    """The named mutants ``wanted`` (all when empty) as numbered mutations (from ``mutant-9001``)."""
    try:
        every = mutation_named.load(REFERENCE, serves=SERVES)
        mine = mutation_named.chosen(every, wanted)
    except ValueError as error:
        parser.error(str(error))
    numbers = {mutant.name: n for n, mutant in enumerate(every, start=mutation_named.FIRST_NUMBER)}
    return [
        (
            numbers[m.name],
            Mutation(m.module, "named", m.line, m.start, m.end, m.original, m.replacement, m.name, m.joins),
        )
        for m in mine
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidate", choices=sorted(TARGETS), default="spark-reference")
    every_module = sorted(set(SERVES) | set(STATEFUL_SERVES))
    parser.add_argument("--modules", nargs="+", choices=every_module, help="default: all of the candidate's")
    parser.add_argument("--sample", type=int, help="check a random sample of this many mutants")
    parser.add_argument(
        "--stratified",
        type=int,
        metavar="N",
        help="check a random sample of N non-equivalent mutants, stratified by module; the report gives "
        "each kill rate with its one-sided 95%% Clopper-Pearson lower bound",
    )
    parser.add_argument("--seed", type=int, default=20241124)
    parser.add_argument(
        "--only",
        action="append",
        metavar="MODULE:LINE[:CHANGE]",
        help="check only the mutants of this line (or this one change there); repeatable",
    )
    parser.add_argument("--fuzz", action="store_true", help="fuzz the catalogue's survivors (ci profile)")
    parser.add_argument(
        "--fuzz-alone",
        action="store_true",
        help="run each mutant through the fuzzer only (ci profile, no catalogue): the fuzzer's own kill rate",
    )
    parser.add_argument(
        "--with-catalogue",
        action="store_true",
        help="with --fuzz-alone: also run the catalogue, independently, and report both kill rates",
    )
    parser.add_argument(
        "--named",
        nargs="*",
        metavar="NAME",
        help="run spark-reference's hand-written mutants (tools/mutation-named.toml; all, or these), "
        "with --thickness",
    )
    parser.add_argument(
        "--thickness",
        action="store_true",
        help="count every catalogue file that kills each mutant (kill thickness), not stopping at the first",
    )
    parser.add_argument(
        "--scenarios",
        nargs="+",
        type=Path,
        default=[],
        metavar="PATH",
        help="judge by these catalogue files or folders only (default: the whole catalogue), e.g. new ones",
    )
    parser.add_argument(
        "--resume",
        type=Path,
        action="append",
        metavar="LOG",
        help="with --fuzz-alone: take the verdicts an earlier run of the same mutants gave from its progress "
        "log (its stderr) and check only the rest (undecided ones again); repeatable",
    )
    parser.add_argument("--list", action="store_true", help="list the mutation points and stop")
    parser.add_argument(
        "--markdown", type=Path, help="also write the report here (rewritten after each mutant)"
    )
    parser.add_argument("--spark-master", default=os.environ.get("KJOIN_SPARK_MASTER", "local[2]"))
    args = parser.parse_args(argv)
    target = TARGETS[args.candidate]
    modules = args.modules or sorted(target.serves)
    if unknown := sorted(set(modules) - set(target.serves)):
        parser.error(
            f"--modules: {', '.join(unknown)} not among {args.candidate}'s {', '.join(sorted(target.serves))}"
        )
    if args.with_catalogue and not args.fuzz_alone:
        parser.error("--with-catalogue goes with --fuzz-alone")
    if args.fuzz and args.fuzz_alone and not args.with_catalogue:
        parser.error("--fuzz fuzzes the catalogue's survivors: with --fuzz-alone it needs --with-catalogue")
    if args.resume is not None and (not args.fuzz_alone or args.with_catalogue):
        parser.error(
            "--resume reads the fuzzer-alone verdicts of an earlier run: it needs --fuzz-alone alone"
        )
    if missing := [str(log) for log in args.resume or [] if not log.is_file()]:
        parser.error(f"--resume: no such file {', '.join(missing)}")
    if args.sample and args.stratified:
        parser.error("--sample and --stratified are two ways to sample: choose one")
    catalogue = args.with_catalogue or not args.fuzz_alone
    if args.named is not None:
        if args.only or args.sample or args.stratified or args.candidate != "spark-reference":
            parser.error("--named runs spark-reference's named mutants: no --only, --sample, --stratified")
        args.thickness = True
        points = named_points(parser, args.named)
    else:
        points = list(enumerate(mutations(modules, target.folder, target.python_logic), start=1))
    missing = [str(path) for path in args.scenarios if not path.exists()]
    if missing:
        parser.error(f"--scenarios: no such file or folder {', '.join(missing)}")
    if args.thickness and not catalogue:
        parser.error("--thickness counts catalogue files: it needs the catalogue (not --fuzz-alone alone)")
    recorded = equivalents(target.section)
    chosen = selected(parser, args, points, recorded)
    if chosen is None:
        return 0
    sample = _sample_note(args, points, recorded, len(chosen))
    folder = Path(tempfile.mkdtemp(prefix="kjoin-mutants-"))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
    sys.path.insert(0, str(folder))
    from kjoin.conformance.harness.spark_session import start_session

    taken = resumed(args.resume, chosen, recorded) if args.resume is not None else {}
    spark = start_session(args.spark_master)
    results: list[Result] = []
    try:
        mutants = run_mutants(
            spark,
            [(number, mutation) for number, mutation in chosen if number not in taken],
            folder,
            fuzz_survivors=args.fuzz,
            catalogue=catalogue,
            fuzz_alone=args.fuzz_alone,
            target=target,
            thickness=args.thickness,
            scenarios=args.scenarios,
        )
        for result in itertools.chain((taken[n] for n, _ in chosen if n in taken), mutants):
            results.append(result)
            print(progress_line(len(results), len(chosen), result, catalogue), file=sys.stderr, flush=True)
            if args.markdown is not None:  # a run cut short still leaves the mutants it finished
                args.markdown.write_text(render(results, len(points), catalogue=catalogue, sample=sample))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    report = render(results, len(points), catalogue=catalogue, sample=sample)
    print(report)
    if args.markdown is not None:
        args.markdown.write_text(report, encoding="utf-8")
    return 0


def _sample_note(
    args: argparse.Namespace,
    points: Sequence[tuple[int, Mutation]],
    recorded: dict[tuple[str, str, int], str],
    size: int,
) -> str | None:
    """How the mutants were sampled, for the report; None when every selected mutant was checked."""
    if args.stratified:
        real = sum((m.module, m.change, m.line) not in recorded for _, m in points)
        return (
            f"{args.candidate}, a random sample of {size} of its {real} non-equivalent mutants stratified "
            f"by module (seed {args.seed})"
        )
    if args.sample:
        return f"{args.candidate}, a random sample of {size} of its {len(points)} mutants (seed {args.seed})"
    return None


if __name__ == "__main__":
    raise SystemExit(main())
