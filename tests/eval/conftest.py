"""Eval fixtures: real WordNet items with a planted artifact and a clean control; tiny saved models."""

import json

import numpy as np
import polars as pl
import pytest
import torch

from probesmith.eval.mcqa import load_build
from probesmith.eval.models import train_wordpiece
from probesmith.schemas.parquet import read_parquet

from ..conftest import SHARED_DATA

GPT2_TOKENIZER = SHARED_DATA / "tokenizers" / "gpt2"


def write_ai2(path, frame, answer_of):
    with open(path, "w") as fh:
        for row in frame.iter_rows(named=True):
            labels = "ABCDE"[: len(row["choices"])]
            fh.write(
                json.dumps(
                    {
                        "id": row["id"],
                        "question": {
                            "stem": row["question"],
                            "choices": [{"text": t, "label": l} for t, l in zip(row["choices"], labels)],
                        },
                        "answerKey": labels[answer_of(row)],
                    }
                )
                + "\n"
            )
    return path


@pytest.fixture(scope="session")
def wordnet_items(small_wordnet_build):
    frames = load_build(small_wordnet_build.out)
    return pl.concat([frames["synonymy"], frames["definitions"], frames["hyponymy"]])


@pytest.fixture(scope="session")
def planted_and_control(wordnet_items, tmp_path_factory):
    """Planted: the gold is always the longest choice. Control: the gold is a random choice."""
    folder = tmp_path_factory.mktemp("ai2")
    rng = np.random.default_rng(0)
    planted = write_ai2(
        folder / "planted.jsonl", wordnet_items, lambda r: int(np.argmax([len(c) for c in r["choices"]]))
    )
    control = write_ai2(
        folder / "control.jsonl", wordnet_items, lambda r: int(rng.integers(len(r["choices"])))
    )
    return planted, control


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory, small_relations_build):
    """A 2-layer BERT with a WordPiece trained on the relation build's labels."""
    from transformers import BertConfig, BertForMaskedLM

    folder = tmp_path_factory.mktemp("models") / "tiny-bert"
    labels = pl.from_arrow(read_parquet(next(small_relations_build.out.glob("instances/*.parquet"))))
    tokenizer = train_wordpiece(labels["sub_label"].to_list() + labels["obj_label"].to_list(), vocab_size=800)
    torch.manual_seed(0)
    BertForMaskedLM(
        BertConfig(
            vocab_size=len(tokenizer),
            hidden_size=32,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=64,
        )
    ).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
