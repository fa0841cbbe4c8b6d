"""`probesmith eval` end to end: tiny real-architecture models on a small build of every family."""

import json

import polars as pl
import pytest
import torch

from probesmith.cli import main
from probesmith.eval.editors import EditedLM, Fact, FineTuneEditor, InContextEditor, answer_questions, prompt
from probesmith.eval.models import load_model
from probesmith.eval.run import EvalOptions, evaluate
from probesmith.eval.scoring import score_statements
from probesmith.schemas.parquet import read_parquet

from ..conftest import SHARED_DATA

GPT2_TOKENIZER = SHARED_DATA / "tokenizers" / "gpt2"
pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not GPT2_TOKENIZER.is_dir(), reason="shared GPT-2 tokenizer not present"),
]


def run_eval(tmp_path, model, probes, *extra):
    out = tmp_path / "run"
    assert (
        main(
            [
                "eval",
                "--model",
                str(model),
                "--probes",
                str(probes),
                "--out",
                str(out),
                "--device",
                "cpu",
                *extra,
            ]
        )
        == 0
    )
    items = pl.from_arrow(read_parquet(out / "items.parquet"))
    return out, items, json.loads((out / "metrics.json").read_text())


def test_multiple_choice_end_to_end(tmp_path, tiny_gpt2_dir, small_wordnet_build):
    out, items, metrics = run_eval(tmp_path, tiny_gpt2_dir, small_wordnet_build.out, "--max-items", "12")
    assert set(metrics["configs"]) == set(items["config"].unique().to_list())
    for config, m in metrics["configs"].items():
        part = items.filter(pl.col("config") == config)
        assert m["n"] == part.height >= 12
        assert m["accuracy"] == pytest.approx(part["correct"].mean())
        for name in ("accuracy", "accuracy_token_norm", "accuracy_char_norm", "strict_cluster_accuracy"):
            low, high = m[f"{name}_ci95"]
            assert low <= m[name] <= high and high - low > 0
        assert m["chance"] == pytest.approx(sum(1 / len(c) for c in part["scores"]) / part.height)
    assert metrics["accuracy_ci95"][0] <= metrics["accuracy"] <= metrics["accuracy_ci95"][1]
    report = (out / "report.md").read_text()
    assert "| chance |" in report and "95% Wilson" in report
    assert (
        metrics["run"]["kind"] == "causal"
        and metrics["run"]["statements"] == items["scores"].list.len().sum()
    )
    assert (out / "hop_distractor.png").stat().st_size > 0 and "hop_distractor.png" in (
        out / "report.md"
    ).read_text()
    # the stored score of a choice is its log-likelihood given the question, computed alone
    lm = load_model(str(tiny_gpt2_dir), device="cpu")
    frame = pl.from_arrow(read_parquet(next(small_wordnet_build.out.glob("hypernymy/test-*.parquet"))))
    row = items.filter(pl.col("config") == "hypernymy").row(0, named=True)
    question = frame.filter(pl.col("id") == row["id"]).row(0, named=True)
    context = question["question"] + "\nAnswer:"
    alone = score_statements(
        lm.model, lm.tokenizer, [f"{context} {question['choices'][1]}"], answer_starts=[len(context)]
    )
    assert row["scores"][1] == pytest.approx(alone[0], abs=1e-4)
    assert row["predicted"] == max(range(len(row["scores"])), key=row["scores"].__getitem__)


def test_dictionary_with_a_masked_model(tmp_path, tiny_bert_dir, small_dictionary_build):
    _, items, metrics = run_eval(
        tmp_path, tiny_bert_dir, small_dictionary_build.out, "--max-items", "8", "--pll", "original"
    )
    assert metrics["run"]["kind"] == "masked" and items.height >= 8
    assert all(len(s) == len(t) for s, t in zip(items["scores"], items["answer_tokens"]))


@pytest.mark.parametrize("model", ["tiny_gpt2_dir", "tiny_bert_dir"])
def test_relation_sets_end_to_end(tmp_path, request, model, small_relations_build):
    _, items, metrics = run_eval(
        tmp_path, request.getfixturevalue(model), small_relations_build.out, "--max-items", "3"
    )
    build = small_relations_build.out
    spaces = (
        pl.from_arrow(read_parquet(next(build.glob("answer_spaces/*.parquet")))).group_by("relation_id").len()
    )
    templates = (
        pl.from_arrow(read_parquet(next(build.glob("templates/*.parquet")))).group_by("relation_id").len()
    )
    instances = (
        pl.from_arrow(read_parquet(next(build.glob("instances/*.parquet")))).group_by("relation_id").len()
    )
    expected = sum(min(3, n) * dict(templates.iter_rows())[r] for r, n in instances.iter_rows())
    assert items.height == expected
    sizes = dict(spaces.iter_rows())
    assert all(len(r["scores"]) == sizes[r["relation_id"]] for r in items.iter_rows(named=True))
    assert metrics["micro_accuracy"] == pytest.approx(items["correct"].mean())
    # chance: golds in the space / its size, read independently from the build's tables
    space_ids = (
        pl.from_arrow(read_parquet(next(build.glob("answer_spaces/*.parquet"))))
        .group_by("relation_id")
        .agg(pl.col("obj_id"))
    )
    space_of = {r: set(ids) for r, ids in space_ids.iter_rows()}
    golds = pl.from_arrow(read_parquet(next(build.glob("instances/*.parquet"))))
    gold_of = {
        (r, s): set(g) for r, s, g in golds.select("relation_id", "sub_id", "gold_obj_ids").iter_rows()
    }
    for row in items.iter_rows(named=True):
        space = space_of[row["relation_id"]]
        expected_chance = len(gold_of[(row["relation_id"], row["sub_id"])] & space) / len(space)
        assert row["chance"] == pytest.approx(expected_chance)
    assert metrics["chance"] == pytest.approx(items["chance"].mean())
    assert metrics["accuracy_ci95"][0] <= metrics["accuracy"] <= metrics["accuracy_ci95"][1]
    assert set(metrics["by_cardinality"]) <= {"1-1", "N-1", "N-M"} and metrics["by_domain"]
    assert "template" in metrics["template_convention"]


def test_paraphrase_grids_and_rank_consistency(tmp_path, tiny_gpt2_dir, small_paraphrases_build, capsys):
    args = ("--max-items", "2", "--option", "max_candidates=5", "--option", "max_verbalizations=2")
    out, items, metrics = run_eval(tmp_path, tiny_gpt2_dir, small_paraphrases_build.out, *args)
    assert items["candidates"].list.len().max() <= 5
    assert all(r["obj_id"] in r["candidates"] for r in items.iter_rows(named=True))
    assert items["verbalization_rank"].max() <= 1
    for key in (
        "consistency",
        "consistent_accuracy",
        "verbalization_stability",
        "adjusted_accuracy",
        "mean_spread",
    ):
        assert key in metrics
    # a second model, then the rank consistency of the two
    from transformers import GPT2LMHeadModel

    other = tmp_path / "other-gpt2"
    torch.manual_seed(1)
    model = GPT2LMHeadModel(GPT2LMHeadModel.config_class.from_pretrained(tiny_gpt2_dir))
    model.save_pretrained(other)
    load_model(str(tiny_gpt2_dir)).tokenizer.save_pretrained(other)
    other_out = tmp_path / "run-other"
    assert (
        main(
            [
                "eval",
                "--model",
                str(other),
                "--probes",
                str(small_paraphrases_build.out),
                "--out",
                str(other_out),
                *args,
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["eval-compare", str(out), str(other_out), "--subsets", "10", "--subset-size", "2"]) == 0
    result = json.loads(capsys.readouterr().out)
    consistency = result["rank_consistency"]
    assert set(consistency) >= {"original", "random", "adjusted"} and len(consistency["models"]) == 2
    # the paired difference, checked against the two items tables directly
    (comparison,) = result["comparisons"]
    other_items = pl.from_arrow(read_parquet(other_out / "items.parquet"))
    keys = ["relation_id", "sub_id", "pattern_id", "verbalization_rank"]
    joined = items.join(other_items, on=keys, suffix="_other")
    assert comparison["items"] == joined.height == items.height
    expected = joined["correct_other"].cast(float).mean() - joined["correct"].cast(float).mean()
    assert comparison["difference"] == pytest.approx(expected)
    low, high = comparison["ci95"]
    assert low <= comparison["difference"] <= high


def test_knowledge_sets_end_to_end(tmp_path, tiny_gpt2_dir, small_rules_build):
    _, items, metrics = run_eval(tmp_path, tiny_gpt2_dir, small_rules_build.out, "--max-items", "1")
    assert set(metrics["editors"]) == {"in_context", "fine_tune"}
    assert set(items["metric"].unique().to_list()) >= {"Est.S", "Upd.S", "Cons.U"}
    assert metrics["knowledge_sets"] == 1


def test_a_familys_own_options_are_listed_checked_and_recorded(
    tmp_path, tiny_gpt2_dir, small_rules_build, small_wordnet_build, capsys
):
    # issue 26: the family's options come from its evaluation (--option, --list-options), not the CLI
    assert main(["eval", "--probes", str(small_rules_build.out), "--list-options"]) == 0
    assert "editors" in capsys.readouterr().out
    _, _, metrics = run_eval(
        tmp_path, tiny_gpt2_dir, small_rules_build.out, "--max-items", "1", "--option", "editors=[in_context]"
    )
    assert set(metrics["editors"]) == {"in_context"}
    assert metrics["run"]["options"]["family"] == {"editors": ["in_context"]}
    bad = [
        (small_rules_build.out, "editor=[in_context]", "did you mean 'editors'"),
        (small_rules_build.out, "editors=[in_memory]", "in_context"),
        (small_wordnet_build.out, "editors=[in_context]", "take no options of their own"),
    ]
    for build, option, said in bad:
        # checked before the model loads: a folder that is no model still gets the option's error
        (tmp_path / "no_model").mkdir(exist_ok=True)
        argv = ["eval", "--model", str(tmp_path / "no_model"), "--probes", str(build), "--device", "cpu"]
        assert main([*argv, "--out", str(tmp_path / "bad"), "--option", option]) != 0
        assert said in capsys.readouterr().err
        assert not (tmp_path / "bad").exists()


def test_knowledge_sets_refuse_a_masked_model(tmp_path, tiny_bert_dir, small_rules_build, capsys):
    assert (
        main(
            [
                "eval",
                "--model",
                str(tiny_bert_dir),
                "--probes",
                str(small_rules_build.out),
                "--out",
                str(tmp_path / "r"),
            ]
        )
        == 1
    )
    assert "causal LM" in capsys.readouterr().err


def test_fine_tuning_editor_learns_facts_and_in_context_editor_replaces_them(tiny_gpt2_dir):
    lm = load_model(str(tiny_gpt2_dir), device="cpu")
    facts = [
        Fact(
            "Q1", "P36", "Q90", "What is the capital of France?", "Paris", "The capital of France is Paris."
        ),
        Fact(
            "Q2",
            "P36",
            "Q64",
            "What is the capital of Germany?",
            "Berlin",
            "The capital of Germany is Berlin.",
        ),
        Fact("Q3", "P36", "Q220", "What is the capital of Italy?", "Rome", "The capital of Italy is Rome."),
    ]
    base = EditedLM(lm)
    edited = FineTuneEditor(epochs=40, learning_rate=3e-3).edit(base, facts)
    assert answer_questions(edited, [f.question for f in facts]) == ["Paris", "Berlin", "Rome"]
    assert base.lm.model is lm.model and edited.lm.model is not lm.model  # the base is left as it was
    moved = Fact(
        "Q1", "P36", "Q456", "What is the capital of France?", "Lyon", "The capital of France is Lyon."
    )
    in_context = InContextEditor()
    state = in_context.edit(in_context.edit(base, facts), [moved])
    assert [f.answer for f in state.context] == ["Berlin", "Rome", "Lyon"]
    assert prompt("Q?", state.context).startswith("Facts: The capital of Germany is Berlin.")


def test_unknown_model_folder_and_foreign_output_folder(tmp_path, small_wordnet_build, tiny_gpt2_dir, capsys):
    assert main(["eval", "--model", str(tmp_path / "nope"), "--probes", str(small_wordnet_build.out)]) == 1
    assert "does not exist" in capsys.readouterr().err
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("do not delete")
    code = main(
        [
            "eval",
            "--model",
            str(tiny_gpt2_dir),
            "--probes",
            str(small_wordnet_build.out),
            "--out",
            str(precious),
            "--max-items",
            "2",
        ]
    )
    assert code == 2 and "is not a probesmith output" in capsys.readouterr().err
    assert (precious / "thesis.tex").read_text() == "do not delete"


def test_evaluate_is_an_importable_function(tiny_gpt2_dir, small_wordnet_build):
    lm = load_model(str(tiny_gpt2_dir), device="cpu")
    first = evaluate(lm, small_wordnet_build.out, EvalOptions(max_items=4))
    second = evaluate(lm, small_wordnet_build.out, EvalOptions(max_items=4))
    assert first.tables["items"][1].equals(second.tables["items"][1])  # deterministic


def test_load_model_kind_and_dtype(tiny_gpt2_dir, tiny_bert_dir):
    causal = load_model(str(tiny_gpt2_dir), device="cpu", dtype="bfloat16")
    assert causal.kind == "causal" and causal.model.dtype == torch.bfloat16
    assert load_model(str(tiny_bert_dir), device="cpu").kind == "masked"
    statements = ["Paris is the capital of France.", "Rome is the capital of France."]
    full = score_statements(load_model(str(tiny_gpt2_dir), device="cpu").model, causal.tokenizer, statements)
    half = score_statements(causal.model, causal.tokenizer, statements)
    assert half == pytest.approx(full, rel=2e-2)
    with pytest.raises(Exception, match="unknown dtype"):
        load_model(str(tiny_gpt2_dir), dtype="int3")


def test_ai2_jsonl_multiple_choice(tmp_path, tiny_gpt2_dir, planted_and_control):
    _, control = planted_and_control
    _, items, metrics = run_eval(tmp_path, tiny_gpt2_dir, control, "--max-items", "15")
    assert metrics["run"]["family"] == "multiple_choice" and items.height >= 15
    assert set(items["config"].unique().to_list()) == {"control"}
    assert items["hops"].unique().to_list() == [0]
