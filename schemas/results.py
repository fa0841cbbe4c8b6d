"""Explicit schemas of the evaluation's per-item score tables (``probesmith eval`` output)."""

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

RELATION_SCORES = TableSchema(
    name="relation_scores",
    version=2,
    description="One (instance, template) of a relation set: the answer space scored, the prediction.",
    schema=pa.schema(
        [
            pa.field("relation_id", pa.string(), nullable=False),
            pa.field("sub_id", pa.string(), nullable=False),
            pa.field("pattern_id", pa.string(), nullable=False),
            pa.field("template_index", pa.int32(), nullable=False),
            pa.field("obj_id", pa.string(), nullable=False),
            pa.field("predicted_obj_id", pa.string(), nullable=False),
            pa.field("correct", pa.bool_(), nullable=False),
            pa.field("scores", pa.list_(pa.float64()), nullable=False),
            pa.field("chance", pa.float64(), nullable=False),
        ],
        metadata={
            "scores": "statement score of every answer, in answer_idx order",
            "chance": "the accuracy of a uniform guess: golds in the answer space / its size",
        },
    ),
)

GRID_SCORES = TableSchema(
    name="grid_scores",
    version=1,
    description="One grid statement (instance x pattern x verbalization) scored over its candidates.",
    schema=pa.schema(
        [
            pa.field("relation_id", pa.string(), nullable=False),
            pa.field("sub_id", pa.string(), nullable=False),
            pa.field("obj_id", pa.string(), nullable=False),
            pa.field("pattern_id", pa.string(), nullable=False),
            pa.field("verbalization_rank", pa.int32(), nullable=False),
            pa.field("candidates", pa.list_(pa.string()), nullable=False),
            pa.field("scores", pa.list_(pa.float64()), nullable=False),
            pa.field("predicted_obj_id", pa.string(), nullable=False),
            pa.field("correct", pa.bool_(), nullable=False),
        ],
        metadata={"candidates": "object ids scored: the gold and distractors from the answer space"},
    ),
)

EDIT_SCORES = TableSchema(
    name="edit_scores",
    version=1,
    description="One knowledge-set question after an edit: the model's answer and its matches.",
    schema=pa.schema(
        [
            pa.field("editor", pa.string(), nullable=False),
            pa.field("set_id", pa.string(), nullable=False),
            pa.field("variant", pa.string(), nullable=False),
            pa.field("metric", pa.string(), nullable=False),
            pa.field("question", pa.string(), nullable=False),
            pa.field("answer", pa.string(), nullable=False),
            pa.field("object", pa.string(), nullable=False),
            pa.field("prediction", pa.string(), nullable=False),
            pa.field("exact", pa.bool_(), nullable=False),
            pa.field("alias", pa.bool_(), nullable=False),
        ],
        metadata={
            "metric": "Est.S, Est.I, Upd.S, Cons.NS, Cons.U, Upd.I or Cons.NI",
            "exact": "normalised prediction equals the normalised answer",
            "alias": "normalised prediction equals a normalised alias of the answer entity",
        },
    ),
)

RESULT_SCHEMAS: dict[str, TableSchema] = {
    s.name: s for s in (MC_SCORES, RELATION_SCORES, GRID_SCORES, EDIT_SCORES)
}
