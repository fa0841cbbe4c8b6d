"""dtype and batch_tokens "auto" (issue 28): the decisions as pure functions, the GPU branches included."""

import pytest
import torch

from probesmith.errors import UsageError
from probesmith.eval.placement import (
    CPU_BATCH_TOKENS,
    MAX_AUTO_TOKENS,
    MIN_AUTO_TOKENS,
    auto_batch_tokens,
    batch_tokens_for,
    checkpoint_dtype,
    choose_dtype,
    parse_max_memory,
    token_bytes,
)


@pytest.mark.parametrize(
    "requested,checkpoint,device,bf16,expected",
    [
        ("auto", "float32", "cpu", False, "float32"),
        ("auto", "bfloat16", "cpu", False, "float32"),  # CPUs: float32 whatever the checkpoint
        ("auto", "float32", "cuda", True, "bfloat16"),  # the fast thing on a GPU
        ("auto", None, "cuda", True, "bfloat16"),
        ("auto", "float32", "cuda", False, "float32"),  # no bf16 (e.g. a V100): float32, not fp16
        ("auto", "bfloat16", "cuda", True, "bfloat16"),
        ("auto", "bfloat16", "cuda", False, "float32"),
        ("auto", "float16", "cuda", True, "float16"),  # the checkpoint's own dtype
        ("float32", "bfloat16", "cuda", True, "float32"),  # asked for: as asked
        ("bfloat16", "float32", "cpu", False, "bfloat16"),
    ],
)
def test_dtype_auto(requested, checkpoint, device, bf16, expected):
    choice = choose_dtype(requested, checkpoint, device, bf16)
    assert choice.name == expected and choice.dtype == getattr(torch, expected)
    assert choice.reason.startswith("auto" if requested == "auto" else "asked")


def test_unknown_dtype_is_named():
    with pytest.raises(UsageError, match="unknown dtype 'fp8'"):
        choose_dtype("fp8", None, "cuda", True)


def test_checkpoint_dtype_from_a_config():
    from transformers import GPT2Config

    assert checkpoint_dtype(GPT2Config(dtype="bfloat16")) == "bfloat16"
    assert checkpoint_dtype(GPT2Config(torch_dtype=torch.float16)) == "float16"
    assert checkpoint_dtype(GPT2Config()) in (None, "float32")


def gpt2_small():
    from transformers import GPT2Config

    return GPT2Config(n_layer=12, n_embd=768, n_head=12)


def llama_1b():
    from transformers import LlamaConfig

    return LlamaConfig(
        hidden_size=2048,
        num_hidden_layers=16,
        num_attention_heads=32,
        num_key_value_heads=8,
        intermediate_size=8192,
        vocab_size=128256,
    )


def test_token_bytes_follow_the_model_shape():
    # GPT-2 small in bf16: 2 x (6 x 12 x 768 + 8 x 768 + 3 x 3072)
    assert token_bytes(gpt2_small(), 2) == 2 * (6 * 12 * 768 + 8 * 768 + 3 * 3072)
    # Llama's grouped keys/values: 8 heads of 64, not 32
    assert token_bytes(llama_1b(), 2) == 2 * (6 * 16 * 8 * 64 + 8 * 2048 + 3 * 8192)
    assert token_bytes(gpt2_small(), 4) == 2 * token_bytes(gpt2_small(), 2)


def test_batch_tokens_auto_on_a_gpu_from_free_memory():
    per_token = token_bytes(gpt2_small(), 2)
    h100_free = 78 * 2**30
    assert batch_tokens_for(h100_free, per_token, 50257) == MAX_AUTO_TOKENS  # bounded above
    small = batch_tokens_for(6 * 2**30, per_token, 50257)
    assert MIN_AUTO_TOKENS < small < MAX_AUTO_TOKENS and small % 1024 == 0
    # half the free memory after the head's working set, per token
    head = 4096 * 50257 * 4 * 3
    assert small == int((6 * 2**30 - head) * 0.5 // per_token) // 1024 * 1024
    assert batch_tokens_for(1 * 2**30, per_token, 128256) == MIN_AUTO_TOKENS  # bounded below
    # more free memory never gives a smaller budget; a larger model never a larger one
    budgets = [batch_tokens_for(g * 2**30, per_token, 50257) for g in range(1, 80)]
    assert budgets == sorted(budgets)
    assert batch_tokens_for(10 * 2**30, token_bytes(llama_1b(), 2), 128256) <= small


def test_batch_tokens_auto_on_cpu_is_fixed():
    from transformers import GPT2Config, GPT2LMHeadModel

    model = GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=8, n_head=1, vocab_size=100))
    assert auto_batch_tokens(model, torch.device("cpu")) == CPU_BATCH_TOKENS == 4096


def test_max_memory_is_parsed_and_bad_text_named():
    assert parse_max_memory("0=20GiB, 1=20GiB,cpu=64GiB") == {0: "20GiB", 1: "20GiB", "cpu": "64GiB"}
    assert parse_max_memory(None) is None
    with pytest.raises(UsageError, match="device=amount pairs"):
        parse_max_memory("20GiB")


def test_eval_records_dtype_and_batch_tokens_as_used(tiny_gpt2_dir, tmp_path):
    import json

    from probesmith.eval.models import load_model
    from probesmith.eval.run import EvalOptions, evaluate

    items = tmp_path / "items.jsonl"
    question = {
        "stem": "Which of these is a city?",
        "choices": [{"text": t, "label": l} for t, l in zip(("Paris", "blue", "seven"), "ABC")],
    }
    items.write_text(json.dumps({"id": "q1", "question": question, "answerKey": "A"}) + "\n")
    lm = load_model(str(tiny_gpt2_dir), device="cpu")
    run = evaluate(lm, items, progress=False).metrics["run"]
    assert (run["dtype"], run["dtype_reason"], run["batch_tokens"]) == (
        "float32",
        "auto: float32 on cpu",
        4096,
    )
    assert run["options"]["batch_tokens"] == "auto" and run["device_map"] is None
    assert (
        evaluate(lm, items, EvalOptions(batch_tokens=512), progress=False).metrics["run"]["batch_tokens"]
        == 512
    )
    with pytest.raises(UsageError, match="positive number of tokens or auto"):
        evaluate(lm, items, EvalOptions(batch_tokens=0), progress=False)
