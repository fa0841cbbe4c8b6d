"""The statements a relation-set build asks, in one order, for `probesmith eval` and the harness export.

One (instance, template) is one document: the template filled with the subject and each answer
of the relation's answer space, in ``answer_idx`` order. Evaluation and the lm-eval export both
read them from here, so the two score the same strings.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import polars as pl

from probesmith.builders.text import fill_template
from probesmith.schemas.artifact import read_table


def answer_spaces(folder: Path, manifest: dict | None = None) -> dict[str, list[tuple[str, str]]]:
    """Per relation, its answer space as (obj_id, obj_label) in ``answer_idx`` order."""
    spaces: dict[str, list[tuple[str, str]]] = defaultdict(list)
    table = read_table(folder, "answer_spaces", manifest=manifest).sort("relation_id", "answer_idx")
    for row in table.iter_rows(named=True):
        spaces[row["relation_id"]].append((row["obj_id"], row["obj_label"]))
    return spaces


def templates_by_relation(folder: Path, manifest: dict | None = None) -> dict[str, list[dict]]:
    """Per relation, its template rows in ``pattern_id`` order (the template index is the position)."""
    templates: dict[str, list[dict]] = defaultdict(list)
    table = read_table(folder, "templates", manifest=manifest).sort("relation_id", "pattern_id")
    for row in table.iter_rows(named=True):
        templates[row["relation_id"]].append(row)
    return templates


def statement_documents(
    instances: pl.DataFrame, spaces: dict[str, list[tuple[str, str]]], templates: dict[str, list[dict]]
) -> Iterator[tuple[dict, int, dict, list[str]]]:
    """(instance row, template index, template row, one statement per answer) for every pair."""
    for inst in instances.iter_rows(named=True):
        rid = inst["relation_id"]
        for index, template in enumerate(templates[rid]):
            statements = [
                fill_template(template["template"], inst["sub_label"], label) for _, label in spaces[rid]
            ]
            yield inst, index, template, statements
