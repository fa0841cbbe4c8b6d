"""`probesmith eval` on the default builds in artifacts/ with tiny models: statements/s and wall time.

    python benchmarks/eval_default.py [--max-items 20] [--family relations ...] [--device cpu]

A 2-layer GPT-2 (the real GPT-2 tokenizer) and a 2-layer BERT (a WordPiece trained on the
relation labels), randomly initialised, each saved and loaded as a local model. Knowledge sets
run causal only (answers are generated). Prints one JSON line per (family, model).
"""

import argparse
import json
import platform
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
BUILDS = {
    "wordnet": "wordnetqa",
    "dictionary": "dictionaryqa",
    "relations": "relations",
    "paraphrases": "paraphrases",
    "rules": "rules",
}


def save_models(folder: Path) -> dict[str, Path]:
    import polars as pl
    from transformers import BertConfig, BertForMaskedLM, GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    from probesmith.eval.models import train_wordpiece

    gpt2 = PreTrainedTokenizerFast.from_pretrained(str(SHARED / "tokenizers" / "gpt2"))
    torch.manual_seed(0)
    GPT2LMHeadModel(GPT2Config(vocab_size=len(gpt2), n_layer=2, n_embd=64, n_head=2)).save_pretrained(
        folder / "gpt2"
    )
    gpt2.save_pretrained(folder / "gpt2")
    labels = pl.read_parquet(next((ROOT / "artifacts" / "relations" / "instances").glob("*.parquet")))
    wordpiece = train_wordpiece(
        labels["sub_label"].to_list() + labels["obj_label"].to_list(), vocab_size=4000
    )
    BertForMaskedLM(
        BertConfig(
            vocab_size=len(wordpiece),
            hidden_size=64,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=128,
        )
    ).save_pretrained(folder / "bert")
    wordpiece.save_pretrained(folder / "bert")
    return {"causal": folder / "gpt2", "masked": folder / "bert"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-items", type=int, default=20)
    parser.add_argument("--family", action="append", choices=sorted(BUILDS))
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()

    from probesmith.eval.models import load_model
    from probesmith.eval.run import EvalOptions, evaluate

    print(f"machine: {platform.machine()}, {torch.get_num_threads()} threads, device {args.device}")
    with tempfile.TemporaryDirectory() as tmp:
        models = save_models(Path(tmp))
        for family in args.family or sorted(BUILDS):
            for kind, path in models.items():
                if family == "rules" and kind == "masked":
                    continue
                lm = load_model(str(path), device=args.device)
                options = EvalOptions(max_items=args.max_items if family != "rules" else 1)
                start = time.perf_counter()
                result = evaluate(lm, ROOT / "artifacts" / BUILDS[family], options, progress=False)
                seconds = time.perf_counter() - start
                print(
                    json.dumps(
                        {
                            "family": family,
                            "kind": kind,
                            "max_items": options.max_items,
                            "items": result.tables["items"][1].height,
                            "statements": result.statements,
                            "seconds": round(seconds, 1),
                            "statements_per_s": round(result.statements / seconds, 1),
                        }
                    ),
                    flush=True,
                )


if __name__ == "__main__":
    main()
