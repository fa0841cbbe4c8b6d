"""The explicit schema of the multiple-choice evaluation's per-item score table (``probesmith eval``).

A table family's own score table is declared beside its evaluation (``probesmith.eval.families``),
found by the schema finder the evaluation registry adds.
"""

from __future__ import annotations

import pyarrow as pa

from probesmith.schemas.tables import TableSchema

MC_SCORES = TableSchema(
    name="mc_scores",
    version=1,
    description="One multiple-choice item scored by a model: per-choice scores and predictions.",
    schema=pa.schema(
        [
            pa.field("id", pa.string(), nullable=False),
            pa.field("config", pa.string(), nullable=False),
            pa.field("cluster", pa.string(), nullable=False),
            pa.field("hops", pa.int32(), nullable=False),
            pa.field("distractor_types", pa.list_(pa.string()), nullable=False),
            pa.field("answer_index", pa.int32(), nullable=False),
            pa.field("scores", pa.list_(pa.float64()), nullable=False),
            pa.field("answer_tokens", pa.list_(pa.int32()), nullable=False),
            pa.field("answer_chars", pa.list_(pa.int32()), nullable=False),
            pa.field("predicted", pa.int32(), nullable=False),
            pa.field("predicted_token_norm", pa.int32(), nullable=False),
            pa.field("predicted_char_norm", pa.int32(), nullable=False),
            pa.field("correct", pa.bool_(), nullable=False),
            pa.field("correct_token_norm", pa.bool_(), nullable=False),
            pa.field("correct_char_norm", pa.bool_(), nullable=False),
        ],
        metadata={
            "scores": "log-likelihood of each choice given the question (causal) or its PLL in "
            "context (masked)",
            "predicted_token_norm": "argmax of score / answer tokens",
            "predicted_char_norm": "argmax of score / the choice's characters (lm-evaluation-harness's "
            "acc_norm)",
        },
    ),
)


RESULT_SCHEMAS: dict[str, TableSchema] = {MC_SCORES.name: MC_SCORES}
