"""The most a scorer can gain over lm-evaluation-harness on multiple choice, counted in FLOPs.

Both score each choice as ``"{question}\\nAnswer: {choice}"``. The harness runs question and
choice together once per choice and computes the LM head at every position (lm-eval 0.4:
``HFLM._loglikelihood_tokens`` feeds context + continuation[:-1]); probesmith runs the question
once per item and the head only where a choice token is scored. When both are bound by the
matrix work (a CPU with a 124M model), the ratio printed here bounds probesmith's speed-up:
no host work makes up for FLOPs that must be spent.

    python benchmarks/mc_flop_bound.py BUILD [--items 400] [--tokenizer ../shared/data/tokenizers/gpt2]

Counts per token: the transformer body 2 x non-embedding parameters (GPT-2 124M: 85 M), the head
2 x d_model x vocabulary; attention's own FLOPs (small at these lengths) are left out.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import polars as pl
from transformers import AutoTokenizer

REPO = Path(__file__).resolve().parents[1]
DEFAULT_TOKENIZER = REPO.parent / "shared" / "data" / "tokenizers" / "gpt2"


def flop_ratio(items: pl.DataFrame, tokenizer, body_flops: float, head_flops: float) -> float:
    """lm-eval's FLOPs over probesmith's for these items (question, choices)."""
    harness = ours = 0.0
    for question, choices in zip(items["question"], items["choices"], strict=True):
        context = len(tokenizer(f"{question}\nAnswer:")["input_ids"])
        lengths = [len(tokenizer(f" {choice}")["input_ids"]) for choice in choices]
        ours += body_flops * (context + sum(lengths)) + head_flops * sum(lengths)
        harness += sum((body_flops + head_flops) * (context + n - 1) for n in lengths)
    return harness / ours


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path, help="a WordNetQA or DictionaryQA build folder")
    parser.add_argument("--items", type=int, default=400, help="test items sampled per config")
    parser.add_argument("--tokenizer", default=str(DEFAULT_TOKENIZER))
    parser.add_argument("--body-params", type=float, default=85e6, help="non-embedding parameters")
    parser.add_argument("--d-model", type=int, default=768)
    args = parser.parse_args()
    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer)
    head_flops = 2 * args.d_model * tokenizer.vocab_size
    for config in sorted(p for p in args.build.iterdir() if p.is_dir()):
        files = sorted(config.glob("test-*.parquet"))
        if not files:
            continue
        items = pl.read_parquet(files)
        items = items.sample(min(args.items, items.height), seed=0)
        ratio = flop_ratio(items, tokenizer, 2 * args.body_params, head_flops)
        print(f"{config.name:12s} {items.height:5d} items  lm-eval FLOPs / probesmith FLOPs = {ratio:.2f}")


if __name__ == "__main__":
    main()
