"""Issue 28 on a GPU: packed rows (one forward pass per batch, block attention mask) against the
key/value-cache path and against the code before (``.tok/head_scoring.py``), back to back.

    bash benchmarks/gpu_issue28.sh prepare && git show COMMIT:eval/scoring.py > .tok/head_scoring.py
    DEVICE=cpu OUT=/tmp/issue28 python3 benchmarks/gpu_issue28_packed.py      # dry run: tiny shapes
    # on the GPU machine, probesmith assembled on PYTHONPATH as gpu_issue28.sh does:
    #   run(command="bash benchmarks/gpu_issue28.sh packed", carry=[".whl", ".tok"], timeout_s=420)

GPT-2 124M shape (random init, bf16) on BEAR template 0, first 30 instances of all 60 relations
(57,060 statements, ``.tok/bear_template0.json``): statements/s and effective MFU
(``benchmarks/scoring.py``'s ``statement_flops`` over the dense peak) of each variant, every
variant warmed first (token cache, plans, kernels), then three rounds in turn; max |diff| of the
scores against the code before. Then the first model on a build (tokeniser and plan cold), fp32
parity of the three paths, a profile of one warm run of each path, and the Llama-3.2-1B shape.
Rows go to ``$OUT/issue28_packed.jsonl``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import sys
import time
import traceback
from pathlib import Path

import torch
import transformers
from scoring import PEAK_FLOPS, statement_flops  # benchmarks/scoring.py
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from probesmith.eval import placement, scoring

DEVICE = os.environ.get("DEVICE", "cuda")
CPU = DEVICE == "cpu"
OUT = Path(os.environ.get("OUT", "/tmp/issue28"))
OUT.mkdir(parents=True, exist_ok=True)
ROWS = OUT / "issue28_packed.jsonl"
STARTED = time.perf_counter()


def load_head_module():
    """The scoring module before this change, under its own name."""
    spec = importlib.util.spec_from_file_location("head_scoring", ".tok/head_scoring.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


head = load_head_module()
tokenizer = PreTrainedTokenizerFast.from_pretrained(".tok/gpt2")
statements = json.loads(Path(".tok/bear_template0.json").read_text())
if CPU:
    statements = statements[::40]
name = torch.cuda.get_device_name() if not CPU else platform.machine()
setting = {
    "device": f"{DEVICE} ({name})",
    "torch": torch.__version__,
    "transformers": transformers.__version__,
    "statements": len(statements),
}
print(json.dumps(setting), flush=True)


def emit(row: dict) -> None:
    """Print a row and append it to the JSONL file."""
    row = {**setting, **row, "elapsed_s": round(time.perf_counter() - STARTED, 1)}
    print(json.dumps(row), flush=True)
    with ROWS.open("a") as handle:
        handle.write(json.dumps(row) + "\n")


def sync() -> None:
    """Wait for the device."""
    if not CPU:
        torch.cuda.synchronize()


def peak(dtype_name: str):
    """The dense peak FLOP/s of this card in this dtype (None on CPU)."""
    if CPU:
        return None
    return next((p for (part, kind), p in PEAK_FLOPS.items() if part in name and kind == dtype_name), None)


LENGTHS = {}


def flops(model, texts, counts) -> float:
    """FLOPs the statements need scored alone (benchmarks/scoring.py)."""
    key = id(texts)
    if key not in LENGTHS:
        LENGTHS[key] = [len(ids) + 1 for ids in tokenizer(texts)["input_ids"]]  # + the BOS
    return statement_flops(model, "causal", LENGTHS[key], counts)


def timed(module, model, texts, **kwargs):
    """Seconds, scores and scored-token counts of one score_statements call."""
    sync()
    start = time.perf_counter()
    scores, counts = module.score_statements(
        model, tokenizer, texts, progress=False, return_token_counts=True, **kwargs
    )
    sync()
    return time.perf_counter() - start, scores, counts


def max_diff(a, b) -> float:
    """The largest absolute difference of two score lists."""
    return float(f"{max(abs(x - y) for x, y in zip(a, b, strict=True)):.2e}")


def report(what, model, texts, seconds, counts, dtype_name, reference=None, scores=None, **extra):
    """One row: statements/s, effective MFU, and max |diff| against ``reference``."""
    total = flops(model, texts, counts)
    top = peak(dtype_name)
    row = {
        "what": what,
        "dtype": dtype_name,
        "seconds": round(seconds, 4),
        "statements_per_s": round(len(texts) / seconds, 1),
        "effective_mfu": round(total / seconds / top, 4) if top else None,
        **extra,
    }
    if reference is not None:
        row["max_abs_diff_vs_before"] = max_diff(scores, reference)
    emit(row)


def section(title, body) -> None:
    """Run one part; a failure leaves a row and the other parts run."""
    try:
        body()
    except Exception as exc:
        traceback.print_exc()
        emit({"what": title, "error": f"{type(exc).__name__}: {exc}"[:500]})
    if not CPU:
        torch.cuda.empty_cache()


def gpt2(dtype):
    """The GPT-2 124M shape (tiny on the CPU dry run), randomly initialised, on the device."""
    shape = dict(n_layer=2, n_embd=64, n_head=2) if CPU else dict(n_layer=12, n_embd=768, n_head=12)
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(tokenizer), n_positions=256, **shape)).eval()
    return model.to(DEVICE, dtype=dtype)


def gpt2_rows() -> None:
    dtype, dname = (torch.float32, "float32") if CPU else (torch.bfloat16, "bfloat16")
    model = gpt2(dtype)
    auto = placement.auto_batch_tokens(model, torch.device(DEVICE))
    variants = {
        "before (HEAD code), auto": (head, {}),
        "new, key/value cache path, auto": (scoring, {"packing": False}),
        "new, packed, auto": (scoring, {}),
        "new, packed, 65536": (scoring, {"batch_tokens": 65536}),
        "new, packed, 262144": (scoring, {"batch_tokens": 262144}),
    }
    reference = None
    for module, kwargs in variants.values():  # token cache, plans, kernels
        _, scores, _ = timed(module, model, statements, **kwargs)
        reference = reference or scores
    for round_number in range(3):
        for what, (module, kwargs) in variants.items():
            seconds, scores, counts = timed(module, model, statements, **kwargs)
            report(
                what,
                model,
                statements,
                seconds,
                counts,
                dname,
                reference,
                scores,
                round=round_number,
                batch_tokens=kwargs.get("batch_tokens", auto),
            )
    # the first model on a build: tokeniser, plan and batches cold
    scoring.TokenCache.clear_memory()
    scoring._PLANS.clear()
    seconds, scores, counts = timed(scoring, model, statements)
    report(
        "new, packed, auto, tokeniser and plan cold",
        model,
        statements,
        seconds,
        counts,
        dname,
        reference,
        scores,
        batch_tokens=auto,
    )
    if not CPU:
        profile(model)


def profile(model) -> None:
    """The top CUDA-time operations of one warm run of each path (printed to the log)."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as profiler

    for what, module, kwargs in (
        ("before", head, {}),
        ("kv", scoring, {"packing": False}),
        ("packed", scoring, {}),
    ):
        with profiler(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            timed(module, model, statements, **kwargs)
        print(f"---- profile: {what}", flush=True)
        print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=14, max_name_column_width=50))


def parity_rows() -> None:
    model = gpt2(torch.float32)
    texts = statements[:: max(1, len(statements) // 5000)]
    before = head.score_statements(model, tokenizer, texts, progress=False)
    kv = scoring.score_statements(model, tokenizer, texts, progress=False, packing=False)
    packed = scoring.score_statements(model, tokenizer, texts, progress=False)
    emit(
        {
            "what": "fp32 parity",
            "statements": len(texts),
            "packed_vs_before": max_diff(packed, before),
            "kv_vs_before": max_diff(kv, before),
            "packed_vs_kv": max_diff(packed, kv),
        }
    )


def llama_rows() -> None:
    shape = (
        dict(
            hidden_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            intermediate_size=128,
        )
        if CPU
        else dict(
            hidden_size=2048,
            num_hidden_layers=16,
            num_attention_heads=32,
            num_key_value_heads=8,
            intermediate_size=8192,
        )
    )
    config = LlamaConfig(
        vocab_size=128256,
        max_position_embeddings=256,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        **shape,
    )
    torch.manual_seed(0)
    with torch.device(DEVICE):
        model = LlamaForCausalLM(config)
    dtype_name = "float32" if CPU else "bfloat16"
    model.to(dtype=getattr(torch, dtype_name)).eval()
    texts = statements[: len(statements) * 2 // 3]
    variants = {
        "before (HEAD code)": (head, {}),
        "new, kv": (scoring, {"packing": False}),
        "new, packed": (scoring, {}),
    }
    reference = None
    for module, kwargs in variants.values():
        _, scores, _ = timed(module, model, texts, **kwargs)
        reference = reference or scores
    for what, (module, kwargs) in variants.items():
        seconds, scores, counts = timed(module, model, texts, **kwargs)
        report(f"llama-1b {what}, auto", model, texts, seconds, counts, dtype_name, reference, scores)


section("gpt2-124m", gpt2_rows)
section("fp32 parity", parity_rows)
section("llama-1b", llama_rows)
emit({"what": "done"})
