"""The template sheet: every template, pattern or question form of a table build, filled as evaluated."""

import csv
import shutil

import polars as pl
import pytest

from probesmith.builders.families.rules import fill_cloze
from probesmith.builders.text import fill_template
from probesmith.cli import main
from probesmith.eval.review import write_review_sheet, write_template_sheet
from probesmith.eval.statements import answer_spaces, statement_documents, templates_by_relation
from probesmith.schemas.artifact import read_table

from ..conftest import needs_wordnet

pytestmark = pytest.mark.integration


def _rows(sheet) -> list[dict[str, str]]:
    return list(csv.DictReader(open(sheet, encoding="utf-8")))


def _copy(build, tmp_path):
    folder = tmp_path / "build"
    shutil.copytree(build.out, folder)
    return folder


def test_every_relation_template_is_listed_and_filled_as_the_evaluation_fills_it(
    small_relations_build, tmp_path
):
    folder = _copy(small_relations_build, tmp_path)
    rows = _rows(write_template_sheet(folder, per_template=2, seed=3))
    templates = read_table(folder, "templates")
    assert [r["template_id"] for r in rows] == sorted(templates["pattern_id"].to_list())
    instances = read_table(folder, "instances")
    evaluated = {
        statements[instance["answer_idx"]]
        for instance, _, _, statements in statement_documents(
            instances, answer_spaces(folder), templates_by_relation(folder)
        )
    }
    fills = [r[f"filled_{i}"] for r in rows for i in (1, 2) if r[f"filled_{i}"]]
    per_relation = instances.group_by("relation_id").len()
    assert len(fills) == sum(
        min(2, n) * len(templates.filter(pl.col("relation_id") == rid)) for rid, n in per_relation.iter_rows()
    )
    assert fills and all(fill in evaluated for fill in fills)  # the gold's statement, as scored
    assert all(r["build"].startswith("relations:") and not r["reads_naturally"] for r in rows)
    assert _rows(write_template_sheet(folder, per_template=2, seed=3, force=True)) == rows  # seeded


def test_every_paraphrase_pattern_and_every_question_form_is_listed(
    small_paraphrases_build, small_rules_build, tmp_path
):
    folder = _copy(small_paraphrases_build, tmp_path / "p")
    rows = _rows(write_template_sheet(folder, per_template=3))
    assert [r["template_id"] for r in rows] == sorted(read_table(folder, "patterns")["pattern_id"].to_list())
    grid = read_table(folder, "grid").filter(pl.col("verbalization_rank") == 0)
    labels = {
        (r, o): label
        for r, o, label in read_table(folder, "answer_spaces")
        .select("relation_id", "obj_id", "obj_label")
        .iter_rows()
    }
    evaluated = {
        fill_template(s, obj=labels[(r, o)])
        for r, o, s in grid.select("relation_id", "obj_id", "statement").iter_rows()
    }
    fills = [r[f"filled_{i}"] for r in rows for i in (1, 2, 3) if r[f"filled_{i}"]]
    assert fills and all(fill in evaluated and "[X]" not in fill and "[Y]" not in fill for fill in fills)

    folder = _copy(small_rules_build, tmp_path / "r")
    rows = _rows(write_template_sheet(folder, per_template=3))
    items = read_table(folder, "knowledge_items")
    forms = {
        f"{relation}/" + ("question" if i == 0 else f"rephrasing-{i}")
        for relation, question, rephrasings in items.select("relation", "question", "rephrasings").iter_rows()
        for i in range(1 + len(rephrasings))
    }
    assert {r["template_id"] for r in rows} == forms and len(rows) == len(forms)
    # a question with its bare answer, a cloze with what its blank stands for and the cloze so filled
    stored = {
        f"{text} -> {answer}" if "___" not in text else f"{text} -> {blank} ({fill_cloze(text, blank)})"
        for question, rephrasings, answer, blank in items.select(
            "question", "rephrasings", "answer", "cloze_answer"
        ).iter_rows()
        for text in [question, *rephrasings]
    }
    assert all(r[f"filled_{i}"] in stored for r in rows for i in (1, 2, 3) if r[f"filled_{i}"])


def test_the_item_sheet_and_the_template_sheet_keep_each_other(small_relations_build, tmp_path):
    folder = _copy(small_relations_build, tmp_path)
    write_review_sheet(folder, n=5)
    item_sheet = (folder / "review" / "sheet.csv").read_bytes()
    write_template_sheet(folder, per_template=1)
    assert (folder / "review" / "sheet.csv").read_bytes() == item_sheet
    templates = (folder / "review" / "templates.csv").read_bytes()
    write_review_sheet(folder, n=7, force=True)
    assert (folder / "review" / "templates.csv").read_bytes() == templates
    assert len(_rows(folder / "review" / "sheet.csv")) == 7
    assert main(["verify", str(folder)]) == 0  # both live beside the data


@needs_wordnet
def test_a_multiple_choice_build_has_no_template_sheet(small_wordnet_build, tmp_path, capsys):
    folder = _copy(small_wordnet_build, tmp_path)
    assert main(["review-sample", str(folder), "--templates", "2"]) == 1
    err = capsys.readouterr().err
    assert "has no templates to list" in err and "relations, paraphrases, rules" in err
    assert not (folder / "review").exists()
