"""The evaluation's CUDA paths against its CPU paths, with only torch and transformers installed.

    bash benchmarks/gpu_issue28.sh prepare                          # here, once: .tok/ (tokenizer, statements)
    DEVICE=cpu OUT=/tmp/gpu_check bash benchmarks/gpu_issue28.sh check   # dry run: CPU against CPU
    # on the GPU machine (no polars or pyarrow there: only the modules below are imported):
    #   run(command="export PYTHONSAFEPATH=1; bash benchmarks/gpu_issue28.sh check", carry=[".tok"], timeout_s=300)

What each check compares (one JSON row each in ``$OUT/gpu_check.jsonl``; a failed check says so and the
script exits 1 at the end, after every check has run):

* ``load``: ``load_model`` of a float32 GPT-2 checkpoint on the device with ``dtype="auto"`` (bf16 where
  the GPU has it, with the reason) and with ``dtype="float32"``;
* ``causal``: a 2-layer GPT-2 (the real GPT-2 tokenizer) scoring BEAR statements in float32 on the device
  against the CPU (packed rows and the key/value path both), and in bf16 against float32;
* ``masked``: a 2-layer BERT (a WordPiece trained on the statements), both pseudo-log-likelihood
  variants, on the device against the CPU;
* ``editors``: the fine-tuning editor (DepEdit's weight editor) trained on the device and on the CPU with
  the same seed: both learn the facts and leave the base model unchanged (final losses and whether the
  in-context editor's greedy answers agree are reported).
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import sys
import tempfile
import time
import traceback
from pathlib import Path

import torch
import transformers
from transformers import BertConfig, BertForMaskedLM, GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

from probesmith.eval.editors import EditedLM, Fact, FineTuneEditor, InContextEditor, answer_questions
from probesmith.eval.models import load_model, train_wordpiece
from probesmith.eval.scoring import score_statements

DEVICE = os.environ.get("DEVICE", "cuda")
OUT = Path(os.environ.get("OUT", "/tmp/gpu_check"))
TOK = Path(os.environ.get("TOK", ".tok"))
ROWS = OUT / "gpu_check.jsonl"
FAILED: list[str] = []


def device_name() -> str:
    """The device in words, for every row."""
    return f"cuda ({torch.cuda.get_device_name(0)})" if DEVICE == "cuda" else DEVICE


def record(check: str, passed: bool, **fields) -> None:
    """Append one row to the JSON lines and print it; remember a failure."""
    row = {"check": check, "passed": passed, "device": device_name(), **fields}
    with ROWS.open("a") as fh:
        fh.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)
    if not passed:
        FAILED.append(check)


def largest_difference(a: list[float], b: list[float]) -> float:
    """The largest absolute difference of two score lists."""
    return max(abs(x - y) for x, y in zip(a, b, strict=True))


def largest_relative_difference(a: list[float], b: list[float]) -> float:
    """The largest difference relative to the reference ``b``'s magnitude."""
    return max(abs(x - y) / max(abs(y), 1e-6) for x, y in zip(a, b, strict=True))


def environment() -> None:
    """What the machine has: versions, and which of the project's other packages import."""
    present = {name: importlib.util.find_spec(name) is not None for name in ("polars", "pyarrow", "pytest")}
    record(
        "environment",
        True,
        python=platform.python_version(),
        torch=torch.__version__,
        transformers=transformers.__version__,
        bf16=DEVICE == "cuda" and torch.cuda.is_bf16_supported(),
        importable=present,
    )


def tiny_gpt2(folder: Path) -> Path:
    """A 2-layer GPT-2 with the real GPT-2 tokenizer, saved in float32 as any local model."""
    tokenizer = PreTrainedTokenizerFast.from_pretrained(str(TOK / "gpt2"))
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=len(tokenizer), n_layer=2, n_embd=64, n_head=2, n_positions=1024)
    GPT2LMHeadModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def check_load(folder: Path) -> None:
    """``load_model`` on the device: auto dtype and its reason, and float32 when asked."""
    auto = load_model(str(folder), device=DEVICE)
    full = load_model(str(folder), device=DEVICE, dtype="float32")
    expected = "bfloat16" if DEVICE == "cuda" and torch.cuda.is_bf16_supported() else "float32"
    record(
        "load",
        auto.dtype == expected
        and str(auto.device).startswith(DEVICE)
        and full.dtype == "float32"
        and next(full.model.parameters()).dtype == torch.float32,
        auto_dtype=auto.dtype,
        auto_reason=auto.dtype_reason,
        auto_on=str(auto.device),
        float32_dtype=full.dtype,
    )


def check_causal(folder: Path, statements: list[str]) -> None:
    """Float32 scores on the device equal the CPU's (both paths); bf16 stays close to float32."""
    on_cpu = load_model(str(folder), device="cpu", dtype="float32")
    on_device = load_model(str(folder), device=DEVICE, dtype="float32")
    start = time.perf_counter()
    cpu = score_statements(on_cpu.model, on_cpu.tokenizer, statements, progress=False)
    cpu_s = time.perf_counter() - start
    start = time.perf_counter()
    packed = score_statements(on_device.model, on_device.tokenizer, statements, packing=True, progress=False)
    device_s = time.perf_counter() - start
    cached = score_statements(on_device.model, on_device.tokenizer, statements, packing=False, progress=False)
    half = load_model(str(folder), device=DEVICE, dtype="bfloat16")
    bf16 = score_statements(half.model, half.tokenizer, statements, progress=False)
    differences = {
        "packed_vs_cpu": largest_difference(packed, cpu),
        "key_value_vs_cpu": largest_difference(cached, cpu),
        "bf16_relative_to_float32": largest_relative_difference(bf16, cpu),
    }
    record(
        "causal",
        differences["packed_vs_cpu"] <= 1e-3
        and differences["key_value_vs_cpu"] <= 1e-3
        and differences["bf16_relative_to_float32"] <= 3e-2,
        statements=len(statements),
        cpu_s=round(cpu_s, 2),
        device_s=round(device_s, 2),
        **{k: float(f"{v:.3g}") for k, v in differences.items()},
    )


def check_masked(statements: list[str]) -> None:
    """A BERT's pseudo-log-likelihoods on the device equal the CPU's, for both variants."""
    tokenizer = train_wordpiece(statements, vocab_size=2000)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=128,
    )
    model = BertForMaskedLM(config).eval()
    differences = {}
    for pll in ("original", "within_word_l2r"):
        cpu = score_statements(model.to("cpu"), tokenizer, statements, kind="masked", pll=pll, progress=False)
        device = score_statements(
            model.to(DEVICE), tokenizer, statements, kind="masked", pll=pll, progress=False
        )
        differences[pll] = float(f"{largest_difference(device, cpu):.3g}")
    record(
        "masked",
        max(differences.values()) <= 1e-3,
        statements=len(statements),
        largest_difference=differences,
    )


def capital_facts() -> list[Fact]:
    """Three facts with their questions, as a rules knowledge set gives them to an editor."""
    capitals = (
        ("France", "Paris", "Q142", "Q90"),
        ("Germany", "Berlin", "Q183", "Q64"),
        ("Italy", "Rome", "Q38", "Q220"),
    )
    return [
        Fact(
            country_id,
            "P36",
            city_id,
            f"What is the capital of {country}?",
            city,
            f"The capital of {country} is {city}.",
        )
        for country, city, country_id, city_id in capitals
    ]


def final_loss(edited: EditedLM, facts: list[Fact]) -> float:
    """The fine-tuned model's mean loss on the facts' answers."""
    from probesmith.eval.editors import _training_batch

    model = edited.lm.model
    ids, mask, labels = _training_batch(edited.lm.tokenizer, facts, next(model.parameters()).device)
    with torch.inference_mode():
        return float(model(input_ids=ids, attention_mask=mask, labels=labels).loss)


def check_editors(folder: Path) -> None:
    """The fine-tuning editor learns the facts on the device as on the CPU; in-context answers agree."""
    facts = capital_facts()
    questions = [f.question for f in facts]
    results = {}
    for label, where in (("cpu", "cpu"), ("on_device", DEVICE)):
        lm = load_model(str(folder), device=where, dtype="float32")
        before = [p.detach().clone() for p in lm.model.parameters()]
        start = time.perf_counter()
        edited = FineTuneEditor(epochs=40, learning_rate=3e-3).edit(EditedLM(lm), facts)
        seconds = time.perf_counter() - start
        unchanged = all(torch.equal(a, b) for a, b in zip(before, lm.model.parameters(), strict=True))
        in_context = InContextEditor().edit(EditedLM(lm), facts)
        results[label] = {
            "answers": answer_questions(edited, questions),
            "loss": final_loss(edited, facts),
            "base_unchanged": unchanged,
            "seconds": round(seconds, 2),
            "in_context_answers": answer_questions(in_context, questions),
        }
    cpu, device = results["cpu"], results["on_device"]
    gold = [f.answer for f in facts]
    # the losses and the untrained model's in-context answers are reported, not asserted: 40 AdamW
    # steps on two devices' reduction orders need not end at one loss, and a random model's greedy
    # continuation can turn on a near tie
    record(
        "editors",
        cpu["answers"] == gold
        and device["answers"] == gold
        and cpu["base_unchanged"]
        and device["base_unchanged"],
        in_context_answers_equal=cpu["in_context_answers"] == device["in_context_answers"],
        cpu=cpu,
        on_device=device,
    )


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    ROWS.unlink(missing_ok=True)
    statements = json.loads((TOK / "bear_template0.json").read_text())
    environment()
    with tempfile.TemporaryDirectory() as tmp:
        folder = tiny_gpt2(Path(tmp) / "tiny-gpt2")
        checks = (
            ("load", lambda: check_load(folder)),
            ("causal", lambda: check_causal(folder, statements[:: 10 if DEVICE == "cuda" else 200])),
            ("masked", lambda: check_masked(statements[:: 50 if DEVICE == "cuda" else 1000])),
            ("editors", lambda: check_editors(folder)),
        )
        for name, run in checks:
            try:
                run()
            except Exception:
                record(name, False, error=traceback.format_exc()[-2000:])
    print(f"failed: {FAILED}" if FAILED else "every check passed", flush=True)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
