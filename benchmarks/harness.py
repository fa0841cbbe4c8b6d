"""`probesmith eval` against lm-evaluation-harness 0.4.13 (and lm-pub-quiz) on the same items, end to end.

    python benchmarks/harness.py --relations BUILD --wordnet BUILD [--size tiny|base] [--items 40]
                                 [--lm-eval-batch 64] [--device cpu] [--json FILE]

For each build: ``probesmith eval`` (the library's ``evaluate``, reading the build included)
on a seeded sample (``--items`` instances per relation / items per config), then the build
exported with ``probesmith export lm-eval`` and ``lm_eval.simple_evaluate`` on exactly the
same documents (its ``samples=`` argument), the HF backend at ``--lm-eval-batch``. Relation
sets also run lm-pub-quiz 0.3.3 on the BEAR export of the same subjects, every template. The
model is a GPT-2 (the real tokenizer) randomly initialised from its config, ``tiny`` (2
layers, 64 wide) or ``base`` (124M), saved to a local folder as a user's model would be.
Prints one JSON line per (build, tool): seconds, statements/s, speedup, and the agreement of
the accuracies.
"""

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import torch

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def save_model(size: str, folder: Path) -> Path:
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tokenizer = PreTrainedTokenizerFast.from_pretrained(str(SHARED / "tokenizers" / "gpt2"))
    shape = (
        dict(n_layer=2, n_embd=64, n_head=2) if size == "tiny" else dict(n_layer=12, n_embd=768, n_head=12)
    )
    torch.manual_seed(0)
    GPT2LMHeadModel(GPT2Config(vocab_size=len(tokenizer), n_positions=1024, **shape)).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def doc_indices(export: Path, summary: dict, build: Path, ids: set[str]) -> dict[str, list[int]]:
    """Per exported task, the positions of the documents probesmith scored."""
    import polars as pl

    from probesmith.schemas.artifact import table_files

    chosen = {}
    for task, entry in summary["tasks"].items():
        if "config" in entry:  # multiple choice: the test shards in order
            frame = pl.concat([pl.read_parquet(p) for p in table_files(build, entry["config"], "test")])
            keys = frame["id"].to_list()
        else:
            name = "statements_template0" if task.endswith("_template0") else "statements"
            keys = pl.read_parquet(export / "data" / f"{name}.parquet")["id"].to_list()
        chosen[task] = [i for i, key in enumerate(keys) if key in ids]
    return chosen


def run(build: Path, model_dir: Path, args, family: str) -> list[dict]:
    import lm_eval
    from lm_eval.tasks import TaskManager

    from probesmith.eval.harness import export_lm_eval
    from probesmith.eval.models import load_model
    from probesmith.eval.run import EvalOptions, evaluate

    lm = load_model(str(model_dir), kind="causal", device=args.device)
    multiple_choice = family == "wordnet"
    options = EvalOptions(max_items=args.items, bos=not multiple_choice)
    evaluate(lm, build, EvalOptions(max_items=2, bos=options.bos), progress=False)  # warm-up
    start = time.perf_counter()
    ours = evaluate(lm, build, options, progress=False)
    ours_seconds = time.perf_counter() - start
    items = ours.tables["items"][1]
    if multiple_choice:
        ids = set(items["id"].to_list())
    else:
        ids = {
            f"{r}:{s}:{t}" for r, s, t in items.select("relation_id", "sub_id", "template_index").iter_rows()
        }
    with tempfile.TemporaryDirectory() as tmp:
        export = Path(tmp) / "tasks"
        summary = export_lm_eval(build, export)
        tasks = [t for t in summary["tasks"] if not t.endswith("_template0")]
        samples = {t: v for t, v in doc_indices(export, summary, build, ids).items() if t in tasks}
        start = time.perf_counter()
        theirs = lm_eval.simple_evaluate(
            model="hf",
            model_args=f"pretrained={model_dir}",
            tasks=tasks,
            task_manager=TaskManager(include_path=str(export)),
            samples=samples,
            device=args.device,
            batch_size=int(args.lm_eval_batch) if args.lm_eval_batch.isdigit() else args.lm_eval_batch,
            log_samples=True,
        )
        harness_seconds = time.perf_counter() - start
        harness_correct = [s["acc"] for t in tasks for s in theirs["samples"][t]]
        agreement = {}
        if multiple_choice:  # item by item: lm-eval's acc against probesmith's correct, by item id
            theirs_by_id = {s["doc"]["id"]: bool(s["acc"]) for t in tasks for s in theirs["samples"][t]}
            ours_by_id = dict(zip(items["id"].to_list(), items["correct"].to_list(), strict=True))
            shared_ids = ours_by_id.keys() & theirs_by_id.keys()
            agreement = {
                "items_compared": len(shared_ids),
                "items_disagreeing": sum(ours_by_id[i] != theirs_by_id[i] for i in shared_ids),
            }
        timings = {"probesmith eval": (ours_seconds, float(items["correct"].mean()))}
        timings["lm-eval"] = (harness_seconds, sum(harness_correct) / len(harness_correct))
        if not multiple_choice:
            timings["lm-pub-quiz"] = pub_quiz(build, model_dir, items, Path(tmp), args)
    rows = []
    for tool, (seconds, accuracy) in timings.items():
        row = {
            "build": build.name,
            "size": args.size,
            "tool": tool,
            "documents": len(items),
            "statements": ours.statements,
            "seconds": round(seconds, 2),
            "statements_per_s": round(ours.statements / seconds, 1),
            "probesmith_speedup": round(seconds / ours_seconds, 2),
            "accuracy": round(accuracy, 4),
            **(agreement if tool == "lm-eval" else {}),
        }
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def pub_quiz(build: Path, model_dir: Path, items, tmp: Path, args) -> tuple[float, float]:
    """lm-pub-quiz on the BEAR export of the same subjects, every template (single-gold instances)."""
    import lm_pub_quiz

    from probesmith.builders.families.relations import export_bear

    export_bear(build, tmp / "bear")
    dataset = lm_pub_quiz.Dataset.from_path(str(tmp / "bear"))
    wanted = {}
    for relation in dataset:
        subjects = set(items.filter(items["relation_id"] == relation.relation_code)["sub_id"].to_list())
        wanted[relation.relation_code] = [
            i for i, sub in enumerate(relation.instance_table["sub_id"]) if sub in subjects
        ]
    subset = dataset.filter_subset(wanted, keep_answer_space=True)
    evaluator = lm_pub_quiz.Evaluator.from_model(str(model_dir), model_type="CLM", device=args.device)
    start = time.perf_counter()
    results = evaluator.evaluate_dataset(subset, template_index=None, batch_size=32, reduction="sum")
    seconds = time.perf_counter() - start
    accuracy = results.get_metrics(["accuracy"], accumulate=True)["accuracy"]
    return seconds, float(accuracy)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--relations", type=Path, help="a relations build folder")
    parser.add_argument("--wordnet", type=Path, help="a WordNetQA build folder")
    parser.add_argument("--size", choices=["tiny", "base"], default="tiny")
    parser.add_argument("--items", type=int, default=40, help="instances per relation / items per config")
    parser.add_argument("--lm-eval-batch", default="64")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    print(
        json.dumps(
            {"machine": platform.machine(), "threads": torch.get_num_threads(), "torch": torch.__version__}
        )
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = save_model(args.size, Path(tmp) / "model")
        if args.relations:
            rows += run(args.relations, model_dir, args, "relations")
        if args.wordnet:
            rows += run(args.wordnet, model_dir, args, "wordnet")
    if args.json:
        with args.json.open("a") as handle:
            handle.writelines(json.dumps(row) + "\n" for row in rows)


if __name__ == "__main__":
    main()
