import json

import pytest

from probesmith.errors import ArtifactError
from probesmith.eval.mcqa import load_multiple_choice


def item(i, answer="B", stem=None):
    return {
        "id": f"q{i}",
        "question": {
            "stem": stem or f"Question {i}?",
            "choices": [
                {"text": "red", "label": "A"},
                {"text": "green", "label": "B"},
                {"text": "blue", "label": "C"},
            ],
        },
        "answerKey": answer,
    }


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_ai2_folder_keeps_its_splits(tmp_path):
    folder = tmp_path / "obqa"
    folder.mkdir()
    write(folder / "train.jsonl", [item(i) for i in range(4)])
    write(folder / "test.jsonl", [item(i, "C") for i in range(4, 6)])
    frame = load_multiple_choice(folder)["obqa"]
    assert frame["split"].to_list() == ["train"] * 4 + ["test"] * 2
    assert frame["answer_index"].to_list() == [1] * 4 + [2] * 2
    assert frame["choices"][0].to_list() == ["red", "green", "blue"]


def test_ai2_single_file_is_split_by_question_stem(tmp_path):
    records = [item(i, stem=f"stem {i % 10}") for i in range(200)]
    frame = load_multiple_choice(write(tmp_path / "one.jsonl", records))["one"]
    assert set(frame["split"].unique()) == {"train", "test"}
    by_cluster = frame.group_by("cluster").agg(
        frame["split"].n_unique().alias("n")
        if False
        else __import__("polars").col("split").n_unique().alias("n")
    )
    assert by_cluster["n"].max() == 1  # no question stem in two splits


@pytest.mark.parametrize(
    "line, message",
    [
        ("{not json", r"line 2 is not valid JSON"),
        (json.dumps({"id": 1, "question": {"stem": "x"}, "answerKey": "A"}), r"line 2 lacks 'choices'"),
        (json.dumps(item(9, answer="E")), r"answerKey 'E' is not among the choice labels \['A', 'B', 'C'\]"),
    ],
)
def test_bad_ai2_lines_are_named(tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(item(0)) + "\n" + line + "\n")
    with pytest.raises(ArtifactError, match=message):
        load_multiple_choice(path)


def test_unknown_input_says_what_is_accepted(tmp_path):
    with pytest.raises(ArtifactError, match="neither a probesmith build folder"):
        load_multiple_choice(tmp_path)
