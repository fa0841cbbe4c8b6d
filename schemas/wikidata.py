"""Tables over Wikidata facts that more than one Wikidata family writes.

Relation instances, answer spaces, templates and patterns, aliases: the relation sets, the paraphrase
bank and the knowledge sets share them. A family's own tables are declared in its module
(``probesmith.builders.families``).
"""

from __future__ import annotations

import pyarrow as pa

from probesmith.schemas.tables import TableSchema, unique_columns

RELATION_INSTANCES = TableSchema(
    name="relation_instances",
    version=1,
    description="Balanced relation set instances: a subject, its sampled gold object and all its golds.",
    schema=pa.schema(
        [
            pa.field("relation_id", pa.string(), nullable=False),
            pa.field("sub_id", pa.string(), nullable=False),
            pa.field("sub_label", pa.string(), nullable=False),
            pa.field("sub_aliases", pa.list_(pa.string()), nullable=False),
            pa.field("obj_id", pa.string(), nullable=False),
            pa.field("obj_label", pa.string(), nullable=False),
            pa.field("answer_idx", pa.int32(), nullable=False),
            pa.field("gold_obj_ids", pa.list_(pa.string()), nullable=False),
            pa.field("popularity", pa.int64(), nullable=True),
        ],
        metadata={
            "obj_id": "the gold this instance was sampled for (balanced within the relation)",
            "answer_idx": "index of obj_id in the relation's answer space",
            "gold_obj_ids": "every gold object of the subject (N-M: any counts as correct)",
            "popularity": "degree of the subject in the source (facts it takes part in)",
        },
    ),
    checks=(unique_columns("relation_id", "sub_id"),),
)

ANSWER_SPACES = TableSchema(
    name="answer_spaces",
    version=1,
    description="Per relation, the answer options every instance is ranked against.",
    schema=pa.schema(
        [
            pa.field("relation_id", pa.string(), nullable=False),
            pa.field("answer_idx", pa.int32(), nullable=False),
            pa.field("obj_id", pa.string(), nullable=False),
            pa.field("obj_label", pa.string(), nullable=False),
        ]
    ),
    checks=(unique_columns("relation_id", "obj_id"), unique_columns("relation_id", "answer_idx")),
)

PATTERNS = TableSchema(
    name="patterns",
    version=1,
    description="Templates of a relation with [X] (subject) and [Y] (object).",
    schema=pa.schema(
        [
            pa.field("relation_id", pa.string(), nullable=False),
            pa.field("pattern_id", pa.string(), nullable=False),
            pa.field("template", pa.string(), nullable=False),
            pa.field("object_final", pa.bool_(), nullable=False),
            pa.field("origin", pa.string(), nullable=False),
            pa.field("form", pa.string(), nullable=False),
        ],
        metadata={
            "object_final": "[Y] ends the template (final punctuation aside): causal LMs can predict it",
            "form": "'sentence' (a statement with a main verb) or 'fragment' (a noun phrase or an appositive "
            "clause: ParaRel's 'Kleisoura, located in Cyprus.', a cloze to complete, not a sentence)",
        },
    ),
    checks=(unique_columns("relation_id", "pattern_id"),),
)

ALIASES = TableSchema(
    name="aliases",
    version=1,
    description="Up to K verbalizations per entity: its label (rank 0) and filtered aliases.",
    schema=pa.schema(
        [
            pa.field("entity_id", pa.string(), nullable=False),
            pa.field("alias", pa.string(), nullable=False),
            pa.field("rank", pa.int32(), nullable=False),
            pa.field("source", pa.string(), nullable=False),
        ]
    ),
    checks=(unique_columns("entity_id", "rank"),),
)
