import json

import pyarrow as pa
import pytest

from probesmith.errors import ArtifactError
from probesmith.schemas.artifact import DatasetFolderWriter
from probesmith.schemas.card import CardInfo
from probesmith.schemas.manifest import logical_hash, read_manifest, verify_folder
from probesmith.schemas.parquet import read_parquet, write_parquet
from probesmith.schemas.tables import MULTIPLE_CHOICE

from ..schemas.test_tables import table

CARD = CardInfo(pretty_name="Test", description="A test dataset.", license="cc0-1.0")


def test_round_trip_keeps_declared_schema(tmp_path):
    path = tmp_path / "t.parquet"
    write_parquet(table(), path, MULTIPLE_CHOICE, "t")
    back = read_parquet(path)  # schema found through the file's metadata
    assert back.schema.remove_metadata().equals(MULTIPLE_CHOICE.schema.remove_metadata())
    assert back.to_pylist() == table().to_pylist()


def test_truncated_parquet_gives_a_clear_error(tmp_path):
    path = tmp_path / "t.parquet"
    write_parquet(table(), path, MULTIPLE_CHOICE, "t")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ArtifactError, match=r"not a readable Parquet file \(truncated or corrupt"):
        read_parquet(path)


def test_logical_hash_ignores_row_order_and_encoding(tmp_path):
    t = table(n=5, id=[f"q{i}" for i in range(5)], hops=[1, 2, 3, 4, 1])
    shuffled = t.take(pa.array([3, 0, 4, 1, 2]))
    assert logical_hash(t) == logical_hash(shuffled)
    assert logical_hash(t) != logical_hash(table(n=5, hops=[1, 2, 3, 4, 2]))


def test_folder_layout_manifest_and_verify(tmp_path):
    out = tmp_path / "ds"
    with DatasetFolderWriter(out, "build:test", rows_per_shard=2) as writer:
        writer.add_table("hypernymy", "train", table(n=3), MULTIPLE_CHOICE)
        writer.commit(CARD, {"name": "ds", "family": "test", "seed": 0}, "summary")
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.parquet"))
    assert files == ["hypernymy/train-00000-of-00002.parquet", "hypernymy/train-00001-of-00002.parquet"]
    manifest = read_manifest(out)
    assert set(manifest["files"]) == set(files) and manifest["tables"]["hypernymy/train"]["rows"] == 3
    assert verify_folder(out) == []
    (out / files[0]).write_bytes(b"garbage")
    assert any("sha256 differs" in p for p in verify_folder(out))
    card = (out / "README.md").read_text()
    assert card.startswith("---\n") and "config_name: hypernymy" in card and "license: cc0-1.0" in card


def test_failed_build_leaves_previous_folder_untouched(tmp_path):
    out = tmp_path / "ds"
    with DatasetFolderWriter(out, "build:test") as writer:
        writer.add_table("hypernymy", "train", table(), MULTIPLE_CHOICE)
        writer.commit(CARD, {"name": "ds", "family": "test"}, "")
    before = json.loads((out / "manifest.json").read_text())
    with pytest.raises(RuntimeError, match="interrupted"), DatasetFolderWriter(out, "build:test") as writer:
        writer.add_table("hypernymy", "train", table(n=2), MULTIPLE_CHOICE)
        raise RuntimeError("interrupted")
    assert json.loads((out / "manifest.json").read_text()) == before
    assert [p.name for p in tmp_path.iterdir()] == ["ds"]  # no staging folder left


def test_interrupted_first_build_leaves_nothing(tmp_path):
    out = tmp_path / "ds"
    with pytest.raises(KeyboardInterrupt), DatasetFolderWriter(out, "build:test") as writer:
        writer.add_table("hypernymy", "train", table(), MULTIPLE_CHOICE)
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []
