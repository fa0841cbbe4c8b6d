"""A new table family, defined in this module alone, goes through every command.

WordNet part meronyms ("A wheel is a part of a car."): a table family in the shape of relations,
copied and changed. Its spec class, generator, table schema and validity rules; its evaluation
(runner, result schema, metrics, report section, review rows, lm-evaluation-harness tasks) and its
exporter: each registered from here, through the registries the shared machinery reads. Nothing else
in probesmith changes. This is the table-family example of docs/adding-a-family.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest

from probesmith.builders.registry import (
    Converter,
    TableOutput,
    get_family,
    load_spec,
    register_exporter,
    register_family,
    single_split_tables,
    unregister_family,
)
from probesmith.builders.sampling import stable_hash
from probesmith.builders.sources.wordnet import WordNetSource
from probesmith.eval.registry import Evaluation, register_evaluation, unregister_evaluation
from probesmith.probes.spec import ProbeSpec, spec_field
from probesmith.schemas.card import CardInfo
from probesmith.schemas.tables import TableSchema

from .conftest import needs_wordnet

pytestmark = [pytest.mark.integration, needs_wordnet]

# ------------------------------------------------------------------ builders: spec, schema, generator

MERONYMS = TableSchema(
    name="meronym_instances",
    version=1,
    description="A whole, one of its parts (the gold), and the answer index of the part in the space.",
    schema=pa.schema(
        [
            pa.field("whole_id", pa.string(), nullable=False),
            pa.field("whole", pa.string(), nullable=False),
            pa.field("part_id", pa.string(), nullable=False),
            pa.field("part", pa.string(), nullable=False),
            pa.field("answer_idx", pa.int32(), nullable=False),
        ]
    ),
)
PART_SPACE = TableSchema(
    name="meronym_parts",
    version=1,
    description="The answer space: every part any instance asks for, in answer_idx order.",
    schema=pa.schema(
        [pa.field("answer_idx", pa.int32(), nullable=False), pa.field("part", pa.string(), nullable=False)]
    ),
)
MERONYM_RULES = {"part_listed": "the gold part is in the answer space at answer_idx"}


@dataclass(frozen=True)
class MeronymySpec(ProbeSpec):
    """Spec of the meronymy family (a table family: its spec derives from ProbeSpec alone)."""

    limit: int = spec_field(60, help="Wholes asked about at most (a seeded sample).", minimum=1)


def label(synset) -> str:
    return synset.lemmas()[0].name().replace("_", " ")


def generate_meronymy(spec: MeronymySpec) -> TableOutput:
    """One instance per noun synset with a part meronym: the whole and its first part."""
    wordnet = WordNetSource().reader()
    pairs = sorted(
        (s.name(), label(s), s.part_meronyms()[0].name(), label(s.part_meronyms()[0]))
        for s in wordnet.all_synsets("n")
        if s.part_meronyms()
    )
    pairs = sorted(pairs, key=lambda p: stable_hash(spec.seed, "meronymy", p[0]))[: spec.limit]
    space = sorted({part for *_, part in pairs})
    rows = [
        {"whole_id": w, "whole": wl, "part_id": p, "part": pl_, "answer_idx": space.index(pl_)}
        for w, wl, p, pl_ in sorted(pairs)
    ]
    checked = sum(space[row["answer_idx"]] == row["part"] for row in rows)
    validity = {
        "rules": MERONYM_RULES,
        "totals": {"part_listed": len(rows) - checked},
        "instances": len(rows),
    }
    card = CardInfo(pretty_name="WordNet meronyms", description="Wholes and their parts.", license="other")
    tables = single_split_tables(
        {
            "instances": (MERONYMS, rows),
            "parts": (PART_SPACE, [{"answer_idx": i, "part": part} for i, part in enumerate(space)]),
        }
    )
    summary = pl.DataFrame({"instances": [len(rows)], "parts": [len(space)]})
    return TableOutput(
        card, {"wordnet": WordNetSource().version()}, tables=tables, summary=summary, validity=validity
    )


def export_jsonl(folder: Path, out: Path, *, force: bool = False) -> Path:
    """The build's instances as JSONL, one whole per line (the family's own exporter)."""
    from probesmith.schemas.artifact import read_table

    out = Path(out)
    if out.exists() and not force:
        raise FileExistsError(out)
    rows = read_table(Path(folder), "instances").iter_rows(named=True)
    out.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return out


# ------------------------------------------------------------------ eval: runner, metrics, report, review


SCORES = TableSchema(
    name="meronym_scores",
    version=1,
    description="One whole scored against every part of the space.",
    schema=pa.schema(
        [
            pa.field("whole_id", pa.string(), nullable=False),
            pa.field("predicted", pa.string(), nullable=False),
            pa.field("correct", pa.bool_(), nullable=False),
        ]
    ),
)


def statement(whole: str, part: str) -> str:
    return f"A {part} is a part of a {whole}."


def score_meronymy(ctx, probes: Path, manifest: dict) -> None:
    """Every instance's statement with each part of the space; right when the gold scores highest."""
    from probesmith.eval.run import argmax
    from probesmith.schemas.artifact import read_table

    instances = read_table(probes, "instances").head(ctx.options.max_items or 10_000)
    space = read_table(probes, "parts").sort("answer_idx")["part"].to_list()
    statements = [statement(row["whole"], part) for row in instances.iter_rows(named=True) for part in space]
    scores, _ = ctx.score(statements)
    rows = []
    for i, row in enumerate(instances.iter_rows(named=True)):
        best = space[argmax(scores[i * len(space) : (i + 1) * len(space)])]
        rows.append({"whole_id": row["whole_id"], "predicted": best, "correct": best == row["part"]})
    frame = pl.from_arrow(SCORES.from_rows(rows))
    ctx.result.tables["items"] = (SCORES, frame)
    ctx.result.metrics.update(
        {"accuracy": frame["correct"].mean(), "n": frame.height, "chance": 1 / len(space)}
    )


def meronymy_section(metrics: dict, folder: Path) -> list[str]:
    return [
        f"Meronym accuracy: {metrics['accuracy']:.3f} over {metrics['n']} wholes (chance {metrics['chance']:.3f})."
    ]


def meronymy_review_rows(folder: Path, n: int, seed: int) -> tuple[list[str], list[list]]:
    from probesmith.eval.review import REVIEW_COLUMNS
    from probesmith.schemas.artifact import read_table

    rows = read_table(Path(folder), "instances").head(n).iter_rows(named=True)
    header = ["item_id", "config", "question", "gold", *REVIEW_COLUMNS]
    return header, [
        [r["whole_id"], "instances", statement(r["whole"], "___"), r["part"], "", "", "", ""] for r in rows
    ]


def meronymy_tasks(build: Path, manifest: dict, staging: Path, prefix: str) -> dict:
    """One lm-eval task: every statement of an instance as its options, the gold's index the target."""
    from probesmith.eval import harness
    from probesmith.schemas.artifact import read_table

    instances = read_table(build, "instances", manifest=manifest)
    space = read_table(build, "parts", manifest=manifest).sort("answer_idx")["part"].to_list()
    docs = [
        {"text_options": [statement(r["whole"], p) for p in space], "gold": r["answer_idx"]}
        for r in instances.iter_rows(named=True)
    ]
    (staging / "data").mkdir()
    (staging / "data" / "statements.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    body = {
        "task": prefix,
        "output_type": "multiple_choice",
        "test_split": "test",
        "doc_to_text": "",
        "doc_to_choice": "text_options",
        "doc_to_target": "gold",
        "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
        "metadata": harness.task_metadata(manifest),
    }
    harness.write_task(staging, body, {"files": ["data/statements.jsonl"]})
    return {"group": prefix, "tasks": {prefix: {"documents": len(docs)}}, "convention": "whole statements"}


@pytest.fixture
def meronymy(tmp_path):
    """The family, its evaluation and its exporter registered for one test; forgotten afterwards."""
    spec_path = tmp_path / "meronymy.yaml"
    spec_path.write_text("family: meronymy\nname: meronyms\nlimit: 40\n")
    register_family("meronymy", MeronymySpec, str(spec_path), "WordNet part meronyms")(generate_meronymy)
    register_exporter(
        "meronymy",
        Converter(
            "meronym-jsonl", "A meronymy build to JSONL.", export_jsonl, lambda path, out: f"JSONL: {path}"
        ),
    )
    register_evaluation(
        Evaluation(
            "meronymy",
            score_meronymy,
            meronymy_section,
            ("whole_id",),
            "correct",
            review_rows=meronymy_review_rows,
            lm_eval_tasks=meronymy_tasks,
        )
    )
    yield spec_path
    unregister_family("meronymy")
    unregister_evaluation("meronymy")


def test_a_table_family_from_one_module_goes_through_every_command(meronymy, tmp_path, tiny_gpt2_dir, capsys):
    from probesmith.builders.build import build
    from probesmith.cli import main
    from probesmith.eval.harness import export_lm_eval
    from probesmith.eval.models import load_model
    from probesmith.eval.review import write_review_sheet
    from probesmith.eval.run import EvalOptions, evaluate, write_results
    from probesmith.schemas.manifest import verify_folder

    assert get_family("meronymy").kind == "table"
    result = build(load_spec(meronymy), tmp_path / "meronyms")
    assert verify_folder(result.out) == []
    assert result.manifest["tables"]["instances/test"]["rows"] == 40
    validity = json.loads((result.out / "validity.json").read_text())
    assert validity["totals"] == {"part_listed": 0} and validity["instances"] == 40

    lm = load_model(str(tiny_gpt2_dir))
    evaluation = evaluate(lm, result.out, EvalOptions(max_items=8), progress=False)
    assert evaluation.family == "meronymy" and evaluation.metrics["n"] == 8
    runs = write_results(evaluation, tmp_path / "run")
    assert "Meronym accuracy: " in (runs / "report.md").read_text()

    sheet = write_review_sheet(result.out, n=5)
    assert len(sheet.read_text().splitlines()) == 6

    exported = export_lm_eval(result.out, tmp_path / "lm_eval")
    assert exported["tasks"] == {"probesmith_meronyms": {"documents": 40}}

    # the CLI offers the family's build, and its exporter, from the registry
    assert main(["build", "meronymy", "--out", str(tmp_path / "cli"), "--dry-run"]) == 0
    out = tmp_path / "meronyms.jsonl"
    assert main(["export", "meronym-jsonl", str(result.out), "--out", str(out)]) == 0
    assert f"JSONL: {out}" in capsys.readouterr().out
    assert len(out.read_text().splitlines()) == 40
