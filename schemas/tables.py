"""Explicit, versioned Arrow schemas for every table probesmith writes, and their validation.

Schemas are never inferred from data: a table is built against its declared ``pyarrow.Schema``
and checked on write and on read. Errors name the table, the column and the problem.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from probesmith.errors import SchemaError

RowCheck = Callable[[pa.Table], "list[str]"]


#: Every table schema declared so far, by name (the built-in ones below and any family's own).
_DECLARED: dict[str, TableSchema] = {}
#: Callables that declare more schemas (by importing the modules that hold them); see add_schema_finder.
_SCHEMA_FINDERS: list[Callable[[], object]] = []


@dataclass(frozen=True)
class TableSchema:
    """A named, versioned table layout: its Arrow schema plus checks across columns."""

    name: str
    version: int
    schema: pa.Schema
    description: str
    checks: tuple[RowCheck, ...] = field(default=())

    def __post_init__(self) -> None:
        _DECLARED.setdefault(self.name, self)  # a family's own schema is known once its module is

    def from_rows(self, rows: list[dict]) -> pa.Table:
        """A table of this schema from row dicts (columns in the declared order and types)."""
        return pa.Table.from_pydict(
            {n: [row[n] for row in rows] for n in self.schema.names}, schema=self.schema
        )

    @property
    def id(self) -> str:
        """``name/vN``, the form written into manifests and Parquet metadata."""
        return f"{self.name}/v{self.version}"

    def validate(self, table: pa.Table, where: str) -> None:
        """Raise :class:`SchemaError` unless ``table`` conforms; ``where`` names it in errors."""
        problems = schema_differences(self.schema, table.schema)
        if not problems:
            for column in self.schema:
                if not column.nullable and table.column(column.name).null_count:
                    problems.append(
                        f"column {column.name!r}: {table.column(column.name).null_count} null "
                        "values in a column that must not be null"
                    )
        if not problems:
            for check in self.checks:
                problems.extend(check(table))
        if problems:
            listed = "; ".join(problems)
            raise SchemaError(
                f"table {where!r} does not conform to schema {self.id}: {listed}. "
                "This is a bug in the code that built the table, or the file was written by "
                "another tool or version: rebuild it with this version of probesmith."
            )


def schema_differences(expected: pa.Schema, actual: pa.Schema) -> list[str]:
    """Human-readable differences between two schemas (names, order-insensitive types)."""
    problems = []
    actual_fields = {f.name: f for f in actual}
    for f in expected:
        got = actual_fields.get(f.name)
        if got is None:
            problems.append(f"column {f.name!r} ({f.type}) is missing")
        elif not got.type.equals(f.type):
            problems.append(f"column {f.name!r} has type {got.type}, expected {f.type}")
    extra = [name for name in actual_fields if name not in expected.names]
    if extra:
        problems.append(f"unexpected columns {extra}")
    return problems


def _first_rows(mask: pa.ChunkedArray, limit: int = 3) -> list[int]:
    return [int(i) for i in pc.indices_nonzero(mask).to_pylist()[:limit]]


def _check_multiple_choice(table: pa.Table) -> list[str]:
    problems = []
    n_choices = pc.list_value_length(table.column("choices"))
    answer = table.column("answer_index")
    bad = pc.or_(pc.less(answer, 0), pc.greater_equal(answer, n_choices.cast(pa.int32())))
    if pc.any(bad).as_py():
        problems.append(f"column 'answer_index': out of range of 'choices' at rows {_first_rows(bad)}")
    for column in ("distractor_types", "distractor_hops", "choice_concepts"):
        lengths = pc.list_value_length(table.column(column))
        expected = pc.subtract(n_choices, 1) if column != "choice_concepts" else n_choices
        bad = pc.not_equal(lengths, expected)
        if pc.any(bad).as_py():
            problems.append(f"column {column!r}: length does not match 'choices' at rows {_first_rows(bad)}")
    too_few = pc.less(n_choices, 2)
    if pc.any(too_few).as_py():
        problems.append(f"column 'choices': fewer than 2 choices at rows {_first_rows(too_few)}")
    return problems


def _unique_ids(table: pa.Table) -> list[str]:
    ids = table.column("id")
    if pc.count_distinct(ids).as_py() != len(ids):
        return ["column 'id': ids are not unique"]
    return []


MULTIPLE_CHOICE = TableSchema(
    name="multiple_choice",
    version=1,
    description=(
        "One multiple-choice question per row, one gold answer; distractors tagged with their "
        "type and distance."
    ),
    schema=pa.schema(
        [
            pa.field("id", pa.string(), nullable=False),
            pa.field("probe", pa.string(), nullable=False),
            pa.field("question", pa.string(), nullable=False),
            pa.field("choices", pa.list_(pa.string()), nullable=False),
            pa.field("answer_index", pa.int32(), nullable=False),
            pa.field("cluster", pa.string(), nullable=False),
            pa.field("concept", pa.string(), nullable=False),
            pa.field("hops", pa.int32(), nullable=False),
            pa.field("distractor_types", pa.list_(pa.string()), nullable=False),
            pa.field("distractor_hops", pa.list_(pa.int32()), nullable=False),
            pa.field("choice_concepts", pa.list_(pa.string()), nullable=False),
            pa.field("pos", pa.string(), nullable=False),
            pa.field("framing", pa.string(), nullable=False),
            pa.field("perturbation", pa.int32(), nullable=False),
            pa.field("source", pa.string(), nullable=False),
        ],
        metadata={
            "id": "unique item id: <probe>:<concept>:<hops>:<perturbation>",
            "probe": "probe type (definitions, hypernymy, hyponymy, synonymy, word_sense)",
            "question": "question text, the concept introduced in context",
            "choices": "answer options",
            "answer_index": "index of the gold answer in choices",
            "cluster": "semantic cluster: every question about one concept shares it",
            "concept": "the concept asked about (WordNet synset name, or GCIDE headword#sense)",
            "hops": "ISA hops between the concept and the gold (0 where not an ISA probe)",
            "distractor_types": "type of each distractor, in choice order without the gold",
            "distractor_hops": "distance of each distractor (sister depth, ISA hops; null: random)",
            "choice_concepts": "the concept behind each choice, in choice order",
            "pos": "part of speech of the concept",
            "framing": "id of the question template used",
            "perturbation": "index of the distractor set among the same question's perturbations",
            "source": "knowledge source and version",
        },
    ),
    checks=(_check_multiple_choice, _unique_ids),
)

#: The multiple-choice columns the audit, the artifact filter and scoring read (types from
#: MULTIPLE_CHOICE), plus the split an item was read from: polars dtypes by column.
AUDITED_COLUMNS = (
    "id",
    "question",
    "choices",
    "answer_index",
    "cluster",
    "probe",
    "hops",
    "distractor_types",
)
_DECLARED_TYPES = pl.from_arrow(MULTIPLE_CHOICE.schema.empty_table()).schema
COLUMNS = {**{name: _DECLARED_TYPES[name] for name in AUDITED_COLUMNS}, "split": pl.String}

AUDIT_CELLS = TableSchema(
    name="audit_cells",
    version=1,
    description="Accuracy of one partial-input baseline on one cell of a dataset, against chance.",
    schema=pa.schema(
        [
            pa.field("dataset", pa.string(), nullable=False),
            pa.field("config", pa.string(), nullable=False),
            pa.field("baseline", pa.string(), nullable=False),
            pa.field("hops", pa.int32(), nullable=True),
            pa.field("distractor_type", pa.string(), nullable=False),
            pa.field("n", pa.int64(), nullable=False),
            pa.field("accuracy", pa.float64(), nullable=False),
            pa.field("ci_low", pa.float64(), nullable=False),
            pa.field("ci_high", pa.float64(), nullable=False),
            pa.field("chance", pa.float64(), nullable=False),
            pa.field("flagged", pa.bool_(), nullable=False),
        ],
        metadata={
            "hops": "ISA hops of the cell's items; null = all hops",
            "distractor_type": "items containing this distractor type; 'all' = every item",
            "ci_low": "lower bound of the 95% Wilson interval of accuracy",
            "flagged": "ci_low exceeds chance by more than the audit's margin",
        },
    ),
)


def unique_columns(*columns: str) -> RowCheck:
    """A check that no two rows share their values of ``columns``."""

    def check(table: pa.Table) -> list[str]:
        keys = table.select(list(columns)).group_by(list(columns)).aggregate([])
        if keys.num_rows != table.num_rows:
            return [f"columns {list(columns)}: {table.num_rows - keys.num_rows} duplicate keys"]
        return []

    return check


#: Every table layout by name, for readers that find a schema id in a file.
SCHEMAS: dict[str, TableSchema] = {
    s.name: s
    for s in (
        MULTIPLE_CHOICE,
        AUDIT_CELLS,
    )
}


def declared_schemas(*, find: bool = True) -> dict[str, TableSchema]:
    """Every table schema declared so far, by name; with ``find``, after each finder has run.

    A family's own schemas are declared when its module is imported; the layer that knows the
    families (``probesmith.builders.registry``) adds a finder with :func:`add_schema_finder`, so
    this layer never imports the ones above it.
    """
    for finder in _SCHEMA_FINDERS if find else ():
        finder()
    return dict(_DECLARED)


def add_schema_finder(finder: Callable[[], object]) -> None:
    """Call ``finder()`` before a schema lookup misses: it imports modules that declare schemas."""
    if finder not in _SCHEMA_FINDERS:
        _SCHEMA_FINDERS.append(finder)
