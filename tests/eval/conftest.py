"""Audit fixtures: real WordNet items with a planted artifact, and a clean control."""

import json

import numpy as np
import polars as pl
import pytest

from probesmith.eval.mcqa import load_build


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
