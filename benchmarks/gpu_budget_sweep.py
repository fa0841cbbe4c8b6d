"""Token budget against throughput on one GPU: GPT-2-124M shape, bf16, BEAR template-0 statements.

Scores the 57,060 statements of ``.tok/bear_template0.json`` (``bash benchmarks/gpu_issue28.sh
prepare``) once to warm the token cache, then at each ``batch_tokens`` of the sweep, and prints
statements/s, effective MFU (``benchmarks/scoring.py``'s ``statement_flops``) and peak memory:
what ``batch_tokens="auto"``'s upper bound should be. Run on the GPU machine the way
``gpu_issue28.sh`` runs (probesmith assembled on PYTHONPATH, ``PYTHONSAFEPATH=1``)::

    python3 benchmarks/gpu_budget_sweep.py 131072 262144 524288
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch
from scoring import PEAK_FLOPS, statement_flops
from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

from probesmith.eval import scoring


def main(budgets: list[int]) -> None:
    tokenizer = PreTrainedTokenizerFast.from_pretrained(".tok/gpt2")
    statements = json.loads(Path(".tok/bear_template0.json").read_text())
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(tokenizer), n_positions=256)).eval()
    model.to("cuda", dtype=torch.bfloat16)
    name = torch.cuda.get_device_name()
    peak = next(p for (part, kind), p in PEAK_FLOPS.items() if part in name and kind == "bfloat16")
    lengths = [len(ids) + 1 for ids in tokenizer(statements)["input_ids"]]
    scoring.score_statements(model, tokenizer, statements, progress=False)  # token cache, kernels
    reference = None
    for budget in budgets:
        for repeat in range(2):
            torch.cuda.reset_peak_memory_stats()
            torch.cuda.synchronize()
            start = time.perf_counter()
            scores, counts = scoring.score_statements(
                model, tokenizer, statements, batch_tokens=budget, progress=False, return_token_counts=True
            )
            torch.cuda.synchronize()
            seconds = time.perf_counter() - start
            flops = statement_flops(model, "causal", lengths, counts)
            reference = reference or scores
            row = {
                "device": name,
                "batch_tokens": budget,
                "repeat": repeat,
                "statements_per_s": round(len(statements) / seconds),
                "effective_mfu": round(flops / seconds / peak, 4),
                "peak_gib": round(torch.cuda.max_memory_allocated() / 2**30, 1),
                "max_abs_diff": max(abs(a - b) for a, b in zip(scores, reference, strict=True)),
            }
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main([int(b) for b in sys.argv[1:]] or [65536, 131072, 262144, 524288])
