import pyarrow as pa
import pytest

from probesmith.errors import SchemaError
from probesmith.schemas.tables import MULTIPLE_CHOICE


def rows(n=3, **overrides):
    base = {
        "id": [f"q{i}" for i in range(n)],
        "probe": ["hypernymy"] * n,
        "question": ["A dog is a kind of"] * n,
        "choices": [["canine", "cat", "tree"]] * n,
        "answer_index": [0] * n,
        "cluster": ["wn:dog.n.01"] * n,
        "concept": ["dog.n.01"] * n,
        "hops": [1] * n,
        "distractor_types": [["sister", "random"]] * n,
        "distractor_hops": [[1, None]] * n,
        "choice_concepts": [["canine.n.02", "cat.n.01", "tree.n.01"]] * n,
        "pos": ["noun"] * n,
        "framing": ["hypernymy-0"] * n,
        "perturbation": [0] * n,
        "source": ["wordnet-3.0"] * n,
    }
    base.update(overrides)
    return base


def table(**overrides):
    return pa.Table.from_pydict(rows(**overrides), schema=MULTIPLE_CHOICE.schema)


def test_conforming_table_passes():
    MULTIPLE_CHOICE.validate(table(), "hypernymy/train")


def test_answer_out_of_range_names_table_column_and_rows():
    with pytest.raises(SchemaError, match=r"'hypernymy/train'.*'answer_index': out of range.*rows \[1\]"):
        MULTIPLE_CHOICE.validate(table(answer_index=[0, 3, 2]), "hypernymy/train")


def test_distractor_lists_must_match_choices():
    bad = table(distractor_types=[["sister"], ["sister", "random"], ["sister", "random"]])
    with pytest.raises(
        SchemaError, match=r"'distractor_types': length does not match 'choices' at rows \[0\]"
    ):
        MULTIPLE_CHOICE.validate(bad, "t")


def test_missing_column_wrong_type_and_nulls():
    data = rows()
    del data["cluster"]
    with pytest.raises(SchemaError, match=r"column 'cluster' \(string\) is missing"):
        MULTIPLE_CHOICE.validate(pa.table(data), "t")
    wrong = table().set_column(4, "answer_index", pa.array([0, 0, 0], pa.int64()))
    with pytest.raises(SchemaError, match=r"'answer_index' has type int64, expected int32"):
        MULTIPLE_CHOICE.validate(wrong, "t")
    nulls = table(question=["a", None, "c"])
    with pytest.raises(SchemaError, match=r"'question': 1 null values"):
        MULTIPLE_CHOICE.validate(nulls, "t")


def test_duplicate_ids_are_refused():
    with pytest.raises(SchemaError, match="ids are not unique"):
        MULTIPLE_CHOICE.validate(table(id=["a", "a", "b"]), "t")
