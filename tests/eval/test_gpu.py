"""GPU checks: the same scores on CUDA as on CPU, and bf16 close to them. Skipped without a GPU."""

import pytest
import torch

from probesmith.eval.scoring import score_statements

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device"),
]


def test_cuda_scores_equal_cpu_scores(tiny_gpt2_dir):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_gpt2_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2_dir).eval()
    statements = [
        f"{city} is the capital of {country}."
        for city in ("Paris", "Rome")
        for country in ("France", "Italy")
    ]
    on_cpu = score_statements(model, tokenizer, statements)
    on_gpu = score_statements(model.to("cuda"), tokenizer, statements)
    assert on_gpu == pytest.approx(on_cpu, abs=1e-3)
    half = score_statements(model.to(torch.bfloat16), tokenizer, statements)
    assert half == pytest.approx(on_cpu, rel=3e-2)


def test_cuda_packed_rows_equal_the_key_value_path(tiny_gpt2_dir):
    """On CUDA (efficient attention with the block mask) packed rows give the cache path's scores."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_gpt2_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2_dir).eval().to("cuda")
    statements = [
        f"{city} is the capital of {country}."
        for city in ("Paris", "Rome", "Vienna", "Bern")
        for country in ("France", "Italy", "Austria", "Switzerland", "the United Kingdom")
    ]
    packed = score_statements(model, tokenizer, statements, packing=True)
    cached = score_statements(model, tokenizer, statements, packing=False)
    assert packed == pytest.approx(cached, abs=1e-4)
