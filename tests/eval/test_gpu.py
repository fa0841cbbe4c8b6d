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


def test_cuda_fine_tuning_editor_learns_facts_and_leaves_the_base(tiny_gpt2_dir):
    """DepEdit's weight editor trains on CUDA as on the CPU: the facts learned, the base model untouched."""
    from probesmith.eval.editors import EditedLM, Fact, FineTuneEditor, answer_questions
    from probesmith.eval.models import load_model

    facts = [
        Fact(
            f"Q{i}",
            "P36",
            f"Q{i + 10}",
            f"What is the capital of {country}?",
            city,
            f"The capital of {country} is {city}.",
        )
        for i, (country, city) in enumerate((("France", "Paris"), ("Germany", "Berlin"), ("Italy", "Rome")))
    ]
    lm = load_model(str(tiny_gpt2_dir), device="cuda", dtype="float32")
    before = [p.detach().clone() for p in lm.model.parameters()]
    edited = FineTuneEditor(epochs=40, learning_rate=3e-3).edit(EditedLM(lm), facts)
    assert next(edited.lm.model.parameters()).device.type == "cuda"
    assert answer_questions(edited, [f.question for f in facts]) == ["Paris", "Berlin", "Rome"]
    assert all(torch.equal(a, b) for a, b in zip(before, lm.model.parameters(), strict=True))
