#!/usr/bin/env bash
# Issue 28 on a GPU, in one run of under 6 minutes on an H100/H200: writes $OUT/issue28.jsonl and $OUT/log.txt.
#
#   1. here, once:   bash benchmarks/gpu_issue28.sh prepare     # .tok/: GPT-2 tokenizer, statements, old scoring
#   2. dry run here: DEVICE=cpu OUT=/tmp/issue28 bash benchmarks/gpu_issue28.sh
#   3. on the GPU:   run(command="bash benchmarks/gpu_issue28.sh", carry=[".whl", ".tok"], timeout_s=480)
#   packed rows (benchmarks/gpu_issue28_packed.py): bash benchmarks/gpu_issue28.sh packed
#   the evaluation's CUDA paths against its CPU paths (benchmarks/gpu_check.py): bash benchmarks/gpu_issue28.sh check
#   beside lm-pub-quiz (wheels in .whl/, BEAR in .tok/shared/): bash benchmarks/gpu_issue28.sh pubquiz
#
# The GPU machine's python3 has torch, transformers, accelerate, numpy, tokenizers (and tqdm, a
# transformers dependency); nothing else is needed, so .whl/ may be empty (wheels there are
# installed into /tmp/site if present). probesmith is put on the path as a package without
# installing it: probesmith/ plus a link to eval/ (probesmith.eval imports nothing else lazily).
#
# What it measures (one JSON row per measurement in issue28.jsonl):
#   gpt2-124m  GPT-2 small shape (random init from its config, float32 checkpoint), BEAR template 0,
#              the first 30 instances of all 60 relations (57,060 statements, as BENCHMARKS.md's H100
#              rows): statements/s and MFU with dtype/batch_tokens "auto" (cold tokeniser, then warm
#              token cache), against the old settings (bfloat16 + 65,536; float32 + 4,096) and against
#              the scoring code before issue 28 (.tok/old_scoring.py, bfloat16 + 65,536); max |diff|.
#   llama-1b   Llama-3.2-1B shape (hidden 2048, 16 layers, 32 heads, 8 key/value heads, MLP 8192,
#              vocabulary 128,256, tied embeddings), random init in bfloat16; statements tokenised by
#              the GPT-2 tokenizer (its ids < 50,257 are valid ids of the larger vocabulary; a stand-in
#              for Llama-3's tokenizer, with about the same number of tokens per English statement):
#              statements/s and MFU with "auto".
#   device-map GPT-2 small shape in float32, saved and loaded with device_map="auto" and max_memory so
#              that part of it lies on the GPU and part on the CPU: its scores against the same
#              model on the GPU alone (2,000 statements).
# MFU counts the FLOPs each statement needs scored alone (benchmarks/scoring.py's statement_flops),
# against the dense bf16/fp32 peak (989.4 / 66.9 TFLOP/s for H100/H200 SXM).
set -uo pipefail

if [ "${1:-}" = "prepare" ]; then
  set -e
  mkdir -p .tok .whl
  rm -rf .tok/gpt2 && cp -r ../shared/data/tokenizers/gpt2 .tok/gpt2
  git show 52a04a5:eval/scoring.py > .tok/old_scoring.py   # score_statements before issue 28
  python3 - <<'EOF'
import json, sys
from pathlib import Path
sys.path.insert(0, "benchmarks")
from host_scoring import bear_statements
statements = bear_statements(Path("../shared/data/bear/BEAR"), 60, 30)
Path(".tok/bear_template0.json").write_text(json.dumps(statements))
print(f"{len(statements)} statements in .tok/bear_template0.json")
EOF
  du -sh .tok .whl
  exit 0
fi

OUT=${OUT:-/tmp/issue28}
mkdir -p "$OUT"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
fi
PKG=$(mktemp -d)
mkdir -p "$PKG/probesmith" && cp probesmith/*.py "$PKG/probesmith/" && ln -s "$PWD/eval" "$PKG/probesmith/eval"
export PYTHONPATH=/tmp/site:$PKG:$PWD/benchmarks:$PWD/.tok
export PYTHONSAFEPATH=1  # else the checkout's own probesmith/ (cwd, first on sys.path) shadows $PKG's
export DEVICE=${DEVICE:-cuda} OUT
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null | tee "$OUT/log.txt"
if [ "${1:-}" = "packed" ]; then  # packed rows vs the key/value path vs .tok/head_scoring.py: gpu_issue28_packed.py
  python3 benchmarks/gpu_issue28_packed.py 2>&1 | tee -a "$OUT/log.txt"
  exit 0
fi
if [ "${1:-}" = "check" ]; then  # the evaluation's CUDA paths against its CPU paths: gpu_check.py
  python3 benchmarks/gpu_check.py 2>&1 | tee -a "$OUT/log.txt"
  exit "${PIPESTATUS[0]}"
fi
if [ "${1:-}" = "pubquiz" ]; then  # probesmith (cold, auto budget) beside lm-pub-quiz 0.3.3 (wheels in .whl/)
  [ "$DEVICE" = "cpu" ] && SIZE=tiny RELATIONS=2 INSTANCES=5 || SIZE=base RELATIONS=60 INSTANCES=30
  python3 benchmarks/scoring.py --device "$DEVICE" --size "$SIZE" --relations "$RELATIONS" --instances "$INSTANCES" \
      --dtype bfloat16 --kind causal --batch-tokens 131072 --pub-quiz-batch 64 --no-lm-eval --data .tok/shared \
      --json "$OUT/issue28_pubquiz.jsonl" 2>&1 | tee -a "$OUT/log.txt"
  exit 0
fi

python3 - 2>&1 <<'EOF' | tee -a "$OUT/log.txt"
import json, os, platform, shutil, sys, tempfile, time, traceback
from pathlib import Path

import torch
import transformers

import old_scoring
from probesmith.eval import placement, scoring
from probesmith.eval.models import load_model
from scoring import PEAK_FLOPS, statement_flops  # benchmarks/scoring.py

DEVICE = os.environ["DEVICE"]
CPU = DEVICE == "cpu"
OUT = Path(os.environ["OUT"])
ROWS = OUT / "issue28.jsonl"
started = time.perf_counter()
statements = json.loads(Path(".tok/bear_template0.json").read_text())
if CPU:
    statements = statements[::40]  # the dry run: every 40th statement, tiny models
from transformers import (
    GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast,
)

tokenizer = PreTrainedTokenizerFast.from_pretrained(".tok/gpt2")
name = torch.cuda.get_device_name() if not CPU else platform.machine()
setting = {"device": f"{DEVICE} ({name})", "torch": torch.__version__, "transformers": transformers.__version__,
           "statements": len(statements)}
print(json.dumps(setting), flush=True)


def emit(row):
    row = {**setting, **row, "elapsed_s": round(time.perf_counter() - started, 1)}
    print(json.dumps(row), flush=True)
    with ROWS.open("a") as handle:
        handle.write(json.dumps(row) + "\n")


def sync():
    if not CPU:
        torch.cuda.synchronize()


def peak(dtype):
    if CPU:
        return None
    return next((p for (part, kind), p in PEAK_FLOPS.items() if part in name and kind == dtype), None)


def timed(module, model, texts, dtype_name, **kwargs):
    sync()
    start = time.perf_counter()
    scores, counts = module.score_statements(model, tokenizer, texts, progress=False, return_token_counts=True, **kwargs)
    sync()
    return time.perf_counter() - start, scores, counts


def flops_of(model, texts, counts):
    lengths = [len(ids) + 1 for ids in tokenizer(texts)["input_ids"]]  # + the BOS
    return statement_flops(model, "causal", lengths, counts)


def report(what, model, texts, seconds, scores, counts, dtype_name, batch_tokens, reference=None, **extra):
    flops = flops_of(model, texts, counts)
    top = peak(dtype_name)
    row = {"what": what, "dtype": dtype_name, "batch_tokens": batch_tokens, "seconds": round(seconds, 3),
           "statements_per_s": round(len(texts) / seconds, 1),
           "model_tflops_per_s": round(flops / seconds / 1e12, 2),
           "mfu": round(flops / seconds / top, 4) if top else None, **extra}
    if reference is not None:
        row["max_abs_diff"] = float(f"{max(abs(a - b) for a, b in zip(scores, reference)):.2e}")
    emit(row)


def section(title, body):
    try:
        body()
    except Exception as exc:  # one failed section still leaves the others' rows
        traceback.print_exc()
        emit({"what": title, "error": f"{type(exc).__name__}: {exc}"[:500]})
    if not CPU:
        torch.cuda.empty_cache()


# ---------------------------------------------------------------- GPT-2 small shape
def gpt2_rows():
    shape = dict(n_layer=2, n_embd=64, n_head=2) if CPU else dict(n_layer=12, n_embd=768, n_head=12)
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(tokenizer), n_positions=256, **shape)).eval()
    choice = placement.choose_dtype("auto", "float32", torch.device(DEVICE).type,
                                    not CPU and torch.cuda.is_bf16_supported())
    emit({"what": "gpt2-124m dtype auto", "dtype": choice.name, "reason": choice.reason})
    model.to(DEVICE, dtype=choice.dtype)
    auto_tokens = placement.auto_batch_tokens(model, torch.device(DEVICE))
    emit({"what": "gpt2-124m batch_tokens auto", "batch_tokens": auto_tokens})
    warm = statements[-2048:]
    scoring.score_statements(model, tokenizer, warm, progress=False)  # kernels, allocator
    scoring.TokenCache.clear_memory()
    seconds, auto_scores, counts = timed(scoring, model, statements, choice.name)
    report("gpt2-124m new auto, cold tokeniser", model, statements, seconds, auto_scores, counts, choice.name, auto_tokens)
    for repeat in range(2):
        seconds, scores, counts = timed(scoring, model, statements, choice.name)
        report(f"gpt2-124m new auto, warm token cache ({repeat})", model, statements, seconds, scores, counts,
               choice.name, auto_tokens, auto_scores)
    bf16 = torch.bfloat16 if not CPU else torch.float32
    model.to(dtype=bf16)
    dname = "bfloat16" if not CPU else "float32"
    seconds, new_scores, counts = timed(scoring, model, statements, dname, batch_tokens=65536)
    report("gpt2-124m new, old tuned settings (bf16, 65536)", model, statements, seconds, new_scores, counts, dname, 65536)
    old_scoring.score_statements(model, tokenizer, warm, batch_tokens=65536, progress=False)
    seconds, old_scores, old_counts = timed(old_scoring, model, statements, dname, batch_tokens=65536)
    report("gpt2-124m OLD code (before issue 28), bf16, 65536", model, statements, seconds, old_scores, old_counts,
           dname, 65536, new_scores, counts_equal=old_counts == counts)
    model.to(dtype=torch.float32)
    seconds, fp32_scores, counts = timed(scoring, model, statements, "float32", batch_tokens=4096)
    report("gpt2-124m new, old defaults (fp32, 4096)", model, statements, seconds, fp32_scores, counts, "float32", 4096)
    seconds, scores, counts = timed(scoring, model, statements, "float32", batch_tokens=65536)
    report("gpt2-124m new, fp32, 65536", model, statements, seconds, scores, counts, "float32", 65536, fp32_scores)
    subset = statements[:: max(1, len(statements) // 5000)]
    seconds, old_fp32, _ = timed(old_scoring, model, subset, "float32", batch_tokens=65536)
    seconds, new_fp32, _ = timed(scoring, model, subset, "float32", batch_tokens=65536)
    emit({"what": "gpt2-124m fp32 parity new vs OLD code", "statements": len(subset),
          "max_abs_diff": float(f"{max(abs(a - b) for a, b in zip(new_fp32, old_fp32)):.2e}")})


# ---------------------------------------------------------------- Llama-3.2-1B shape
def llama_rows():
    shape = (dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                  intermediate_size=128) if CPU else
             dict(hidden_size=2048, num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8,
                  intermediate_size=8192))
    config = LlamaConfig(vocab_size=128256, max_position_embeddings=256, tie_word_embeddings=True,
                         bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id, **shape)
    torch.manual_seed(0)
    with torch.device(DEVICE):
        model = LlamaForCausalLM(config)
    dtype_name = "float32" if CPU else "bfloat16"  # what "auto" picks for a bf16 checkpoint on a GPU
    model.to(dtype=getattr(torch, dtype_name)).eval()
    tokens = placement.auto_batch_tokens(model, torch.device(DEVICE))
    texts = statements[: len(statements) * 2 // 3]
    scoring.score_statements(model, tokenizer, texts[:2048], progress=False)
    for repeat in range(2):
        seconds, scores, counts = timed(scoring, model, texts, dtype_name)
        report(f"llama-1b new auto ({repeat})", model, texts, seconds, scores, counts, dtype_name, tokens,
               parameters=sum(p.numel() for p in model.parameters()))
    seconds, scores2, counts = timed(scoring, model, texts, dtype_name, batch_tokens=65536)
    report("llama-1b new, 65536", model, texts, seconds, scores2, counts, dtype_name, 65536, scores)


# ---------------------------------------------------------------- device map
def device_map_rows():
    shape = dict(n_layer=2, n_embd=64, n_head=2) if CPU else dict(n_layer=12, n_embd=768, n_head=12)
    folder = Path(tempfile.mkdtemp()) / "gpt2-small-shape"
    torch.manual_seed(0)
    GPT2LMHeadModel(GPT2Config(vocab_size=len(tokenizer), n_positions=256, **shape)).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    texts = statements[:2000]
    alone = load_model(str(folder), device=DEVICE, dtype="float32")
    expected = scoring.score_statements(alone.model, alone.tokenizer, texts, progress=False)
    del alone
    if CPU:  # the dry run: CPU and disk offload
        limits, offload = {"cpu": "13200KB"}, folder.parent / "offload"  # embeddings in memory, blocks on disk
    else:  # about half the blocks on the GPU, the rest on the CPU (run on the GPU as they are needed)
        limits, offload = {0: "400MiB", "cpu": "16GiB"}, None
    split = load_model(str(folder), device_map="auto", dtype="float32", max_memory=limits, offload_folder=offload)
    start = time.perf_counter()
    scores = scoring.score_statements(split.model, split.tokenizer, texts, progress=False)
    seconds = time.perf_counter() - start
    places = sorted(set(split.device_map.values())) if split.device_map else ["one device"]
    emit({"what": "device-map parity (gpt2-124m fp32)", "placement": places, "device_map": split.device_map,
          "statements": len(texts), "seconds": round(seconds, 2),
          "max_abs_diff": float(f"{max(abs(a - b) for a, b in zip(scores, expected)):.2e}"),
          "allclose_1e-3": all(abs(a - b) <= 1e-3 for a, b in zip(scores, expected))})
    shutil.rmtree(folder.parent, ignore_errors=True)


section("gpt2-124m", gpt2_rows)
section("llama-1b", llama_rows)
section("device-map", device_map_rows)
emit({"what": "done"})
EOF
echo "rows: $OUT/issue28.jsonl"
