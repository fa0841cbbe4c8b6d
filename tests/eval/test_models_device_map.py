"""Models larger than one device (issue 28): a model placed by a device map across the CPU and disk
offload scores as the same model on one device; dtype "auto" is recorded."""

import json

import pytest
import torch

from probesmith.eval.models import ModelLoadError, load_model
from probesmith.eval.scoring import score_statements

from ..conftest import SHARED_DATA

BEAR = SHARED_DATA / "bear" / "BEAR"
pytestmark = pytest.mark.skipif(not BEAR.is_dir(), reason="shared data not present")


@pytest.fixture(scope="module")
def statements():
    meta = json.loads((BEAR / "metadata_relations.json").read_text())["P36"]
    rows = [json.loads(line) for line in (BEAR / "P36.jsonl").read_text().splitlines()[:3]]
    return [
        meta["templates"][0].replace("[X]", r["sub_label"]).replace("[Y]", a)
        for r in rows
        for a in meta["answer_space_labels"]
    ]


def test_cpu_and_disk_offload_give_the_single_device_scores(tiny_gpt2_dir, statements, tmp_path):
    alone = load_model(str(tiny_gpt2_dir), device="cpu")
    assert (alone.dtype, alone.device_map) == ("float32", None)
    expected, counts = score_statements(alone.model, alone.tokenizer, statements, return_token_counts=True)
    # the second block lives on disk and is loaded into memory only while it runs
    placement = {
        "transformer.wte": "cpu",
        "transformer.wpe": "cpu",
        "transformer.h.0": "cpu",
        "transformer.h.1": "disk",
        "transformer.ln_f": "cpu",
        "lm_head": "cpu",
    }
    split = load_model(str(tiny_gpt2_dir), device_map=placement, offload_folder=tmp_path / "offload")
    assert split.device_map["transformer.h.1"] == "disk" and split.device.type == "cpu"
    # not in memory: read from the checkpoint (safetensors) or the offload folder when it runs
    assert split.model.transformer.h[1].attn.c_attn.weight.device.type == "meta"
    for budget in (4096, 200):
        scores, split_counts = score_statements(
            split.model, split.tokenizer, statements, batch_tokens=budget, return_token_counts=True
        )
        assert scores == pytest.approx(expected, abs=1e-5) and split_counts == counts


def test_max_memory_places_what_does_not_fit_on_disk(tiny_gpt2_dir, statements, tmp_path):
    alone = load_model(str(tiny_gpt2_dir), device="cpu")
    expected = score_statements(alone.model, alone.tokenizer, statements)
    # the tied embeddings and head (50257 x 64 floats, 12.9 MB) fit; the blocks go to disk
    split = load_model(
        str(tiny_gpt2_dir),
        device_map="auto",
        max_memory={"cpu": "13500KB"},
        offload_folder=tmp_path / "offload",
    )
    assert split.device_map["transformer.h"] == "disk" and split.device_map["lm_head"] == "cpu"
    assert score_statements(split.model, split.tokenizer, statements) == pytest.approx(expected, abs=1e-5)


def test_placement_options_without_a_device_map_are_refused(tiny_gpt2_dir, tmp_path):
    with pytest.raises(ModelLoadError, match="give --device-map auto too"):
        load_model(str(tiny_gpt2_dir), offload_folder=tmp_path)


def test_dtype_auto_on_cpu_is_float32_and_said(tiny_gpt2_dir, caplog):
    import logging

    with caplog.at_level(logging.INFO, logger="probesmith.eval.models"):
        lm = load_model(str(tiny_gpt2_dir), device="cpu")
    assert lm.dtype == "float32" and lm.dtype_reason == "auto: float32 on cpu"
    assert next(lm.model.parameters()).dtype == torch.float32
    assert "float32 (auto: float32 on cpu)" in caplog.text
    asked = load_model(str(tiny_gpt2_dir), device="cpu", dtype="bfloat16")
    assert (asked.dtype, next(asked.model.parameters()).dtype) == ("bfloat16", torch.bfloat16)
