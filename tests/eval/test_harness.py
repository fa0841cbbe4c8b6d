"""lm-evaluation-harness bridge: exported tasks run offline in lm_eval 0.4.13 and agree with probesmith.

Parity is checked on small real builds with a tiny GPT-2 (the real GPT-2 tokenizer): every
per-choice log-likelihood the harness computes equals ``probesmith eval``'s within 1e-4, and
``acc`` / ``acc_norm`` are identical item by item. The BOS convention, which differs by design
for multiple choice, is pinned.
"""

import json

import pytest

from probesmith.errors import ArtifactError, UsageError
from probesmith.eval.harness import export_lm_eval
from probesmith.eval.models import load_model
from probesmith.eval.run import EvalOptions, evaluate

lm_eval = pytest.importorskip("lm_eval", reason="lm_eval is in the dev extra")

LIMIT = 40


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")


def run_harness(export, tasks, model_dir, limit=LIMIT) -> dict:
    from lm_eval.tasks import TaskManager

    results = lm_eval.simple_evaluate(
        model="hf",
        model_args=f"pretrained={model_dir}",
        tasks=tasks,
        task_manager=TaskManager(include_path=str(export)),
        limit=limit,
        log_samples=True,
        device="cpu",
        batch_size=16,
    )
    return results


def per_doc(samples) -> dict:
    return {s["doc"]["id"]: s for s in samples}


@pytest.fixture(scope="module")
def wordnet_export(small_wordnet_build, tmp_path_factory):
    out = tmp_path_factory.mktemp("harness") / "wordnet"
    summary = export_lm_eval(small_wordnet_build.out, out)
    return out, summary


def test_multiple_choice_export_layout(wordnet_export, small_wordnet_build):
    out, summary = wordnet_export
    configs = sorted(k.split("/")[0] for k in small_wordnet_build.manifest["tables"] if k.endswith("/test"))
    assert sorted(t["config"] for t in summary["tasks"].values()) == configs
    for task, entry in summary["tasks"].items():
        assert (out / f"{task}.yaml").is_file()
        assert entry["documents"] == small_wordnet_build.manifest["tables"][f"{entry['config']}/test"]["rows"]
    assert (out / f"_{summary['group']}.yaml").is_file()
    readme = (out / "README.md").read_text()
    assert "--no-bos" in readme and summary["group"] in readme


def test_multiple_choice_scores_equal_probesmith_without_bos(
    wordnet_export, small_wordnet_build, tiny_gpt2_dir
):
    out, summary = wordnet_export
    results = run_harness(out, [summary["group"]], tiny_gpt2_dir)
    lm = load_model(str(tiny_gpt2_dir), kind="causal", device="cpu")
    ours = evaluate(lm, small_wordnet_build.out, EvalOptions(bos=False), progress=False)
    with_bos = evaluate(lm, small_wordnet_build.out, EvalOptions(), progress=False)
    items = {row["id"]: row for row in ours.tables["items"][1].iter_rows(named=True)}
    items_bos = {row["id"]: row for row in with_bos.tables["items"][1].iter_rows(named=True)}
    compared, moved = 0, 0
    for task in summary["tasks"]:
        samples = per_doc(results["samples"][task])
        assert len(samples) == min(LIMIT, summary["tasks"][task]["documents"])
        for doc_id, sample in samples.items():
            item = items[doc_id]
            theirs = [ll for ll, _ in sample["filtered_resps"]]
            assert theirs == pytest.approx(item["scores"], abs=1e-4)
            assert sample["acc"] == float(item["correct"])
            assert sample["acc_norm"] == float(item["correct_char_norm"])
            moved += sum(abs(a - b) > 1e-3 for a, b in zip(theirs, items_bos[doc_id]["scores"], strict=True))
            compared += len(theirs)
    assert compared >= 4 * LIMIT
    # probesmith's default puts a BOS before the question; the harness does not (by design)
    assert moved > 0.9 * compared


@pytest.fixture(scope="module")
def relations_export(small_relations_build, tmp_path_factory):
    out = tmp_path_factory.mktemp("harness") / "relations"
    return out, export_lm_eval(small_relations_build.out, out)


def test_relation_set_scores_and_golds_equal_probesmith(
    relations_export, small_relations_build, tiny_gpt2_dir
):
    out, summary = relations_export
    headline, first = summary["group"], f"{summary['group']}_template0"
    results = run_harness(out, [headline, first], tiny_gpt2_dir, limit=60)
    lm = load_model(str(tiny_gpt2_dir), kind="causal", device="cpu")
    ours = evaluate(lm, small_relations_build.out, EvalOptions(), progress=False)
    items = {
        f"{r['relation_id']}:{r['sub_id']}:{r['template_index']}": r
        for r in ours.tables["items"][1].iter_rows(named=True)
    }
    for task in (headline, first):
        for doc_id, sample in per_doc(results["samples"][task]).items():
            theirs = [ll for ll, _ in sample["filtered_resps"]]
            assert theirs == pytest.approx(items[doc_id]["scores"], abs=1e-4)
            assert sample["acc"] == float(items[doc_id]["correct"])
    # every template-0 document: the same prediction counted right, any gold counting, in both
    full = run_harness(out, [first], tiny_gpt2_dir, limit=None)
    samples = per_doc(full["samples"][first])
    assert len(samples) == summary["tasks"][first]["documents"]
    several = [s for s in samples.values() if len(s["doc"]["gold_indices"]) > 1]
    assert several  # subjects with more than one gold in the space are exported with all of them
    for doc_id, sample in samples.items():
        assert sample["acc"] == float(items[doc_id]["correct"])
    assert full["results"][first]["acc,none"] == pytest.approx(ours.metrics["accuracy_first_template"])


def test_export_refuses_other_families_and_hub_for_relations(
    small_rules_build, small_relations_build, tmp_path
):
    with pytest.raises(ArtifactError, match="export lm-eval"):
        export_lm_eval(small_rules_build.out, tmp_path / "rules")
    with pytest.raises(UsageError, match="--hub-repo"):
        export_lm_eval(small_relations_build.out, tmp_path / "hub", hub_repo="user/relations")
    assert not (tmp_path / "rules").exists() and not (tmp_path / "hub").exists()


def test_hub_tasks_name_the_repo_and_config(small_dictionary_build, tmp_path):
    out = tmp_path / "hub"
    summary = export_lm_eval(small_dictionary_build.out, out, hub_repo="user/dictionaryqa")
    task = next(iter(summary["tasks"]))
    text = (out / f"{task}.yaml").read_text()
    assert "dataset_path: user/dictionaryqa" in text and "dataset_name: word_sense" in text
    assert "custom_dataset" not in text and not (out / "utils.py").exists()
    assert json.loads((out / "probesmith_export.json").read_text())["family"] == "dictionary"
