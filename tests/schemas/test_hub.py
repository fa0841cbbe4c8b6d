"""Publishing, with HfApi replaced by a recorder (the Hub cannot be reached from here)."""

import json
import logging
import shutil
from pathlib import Path

import datasets
import pytest

from probesmith.errors import ArtifactError
from probesmith.eval.audit import AuditOptions, audit, write_audit
from probesmith.schemas.hub import publish

from ..conftest import needs_gcide


class RecordingHfApi:
    """Records the calls publish makes and keeps the uploaded bytes, like a repository would."""

    def __init__(self, repo_dir: Path):
        self.repo_dir = repo_dir
        self.calls = []

    def create_repo(self, repo_id, **kwargs):
        self.calls.append(("create_repo", repo_id, kwargs))

    def create_branch(self, repo_id, **kwargs):
        self.calls.append(("create_branch", repo_id, kwargs))

    def create_commit(self, repo_id, operations, **kwargs):
        operations = list(operations)
        self.calls.append(
            ("create_commit", repo_id, {**kwargs, "paths": [o.path_in_repo for o in operations]})
        )
        for op in operations:
            target = self.repo_dir / op.path_in_repo
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(op.path_or_fileobj, target)
        return type("CommitInfo", (), {"commit_url": f"https://hub.invalid/{repo_id}/commit/1"})()


@pytest.fixture
def built(small_dictionary_build, tmp_path):
    folder = tmp_path / "dictionaryqa"
    shutil.copytree(small_dictionary_build.out, folder)
    return folder


def audited(folder, flagged: bool):
    margin = -0.5 if flagged else 0.9  # below chance everything is flagged; 0.9 above, nothing
    write_audit(audit(folder, AuditOptions(baselines=("choice_only",), margin=margin)), folder / "audit")


pytestmark = [pytest.mark.integration, needs_gcide]


def test_publish_sends_one_commit_that_loads_like_the_hub(built, tmp_path, monkeypatch, caplog, capsys):
    monkeypatch.setenv("HF_TOKEN", "hf_secret_token_never_logged")
    audited(built, flagged=False)
    api = RecordingHfApi(tmp_path / "hub")
    with caplog.at_level(logging.DEBUG):
        publish(built, "someone/dictionaryqa", private=True, revision="v1", api=api)
    names = [c[0] for c in api.calls]
    assert names == ["create_repo", "create_branch", "create_commit"]
    assert api.calls[0][2] == {"repo_type": "dataset", "private": True, "exist_ok": True}
    assert api.calls[1][2]["branch"] == "v1"
    commit = api.calls[2][2]
    assert commit["repo_type"] == "dataset" and commit["revision"] == "v1"
    manifest = json.loads((built / "manifest.json").read_text())
    assert set(commit["paths"]) == {
        "README.md",
        "manifest.json",
        "validity.json",
        *manifest["files"],
        "audit/audit.json",
        "audit/cells.parquet",
        "audit/heatmap.png",
        "audit/report.md",
    }
    ds = datasets.load_dataset(str(tmp_path / "hub"), "word_sense")
    assert {s: ds[s].num_rows for s in ds} == {
        s: manifest["tables"][f"word_sense/{s}"]["rows"] for s in ("train", "dev", "test")
    }
    everything = (
        caplog.text
        + capsys.readouterr().out
        + "".join(
            p.read_text(errors="ignore")
            for p in (tmp_path / "hub").rglob("*")
            if p.suffix in (".md", ".json")
        )
    )
    assert "hf_secret_token_never_logged" not in everything


def test_refuses_a_folder_that_does_not_match_its_manifest(built, tmp_path):
    audited(built, flagged=False)
    next(built.glob("word_sense/train-*.parquet")).write_bytes(b"changed")
    api = RecordingHfApi(tmp_path / "hub")
    with pytest.raises(ArtifactError, match=r"refusing to publish.*sha256 differs.*--force"):
        publish(built, "someone/x", api=api)
    assert api.calls == []


def test_refuses_flagged_audit_unless_forced(built, tmp_path):
    audited(built, flagged=True)
    api = RecordingHfApi(tmp_path / "hub")
    with pytest.raises(ArtifactError, match=r"audit flags \d+ cell\(s\).*--filter-artifacts"):
        publish(built, "someone/x", api=api)
    publish(built, "someone/x", api=api, force=True)
    assert [c[0] for c in api.calls] == ["create_repo", "create_commit"]


def test_refuses_a_stale_audit(built, tmp_path):
    audited(built, flagged=False)
    summary = json.loads((built / "audit" / "audit.json").read_text())
    summary["source_logical_hash"] = "0" * 64
    (built / "audit" / "audit.json").write_text(json.dumps(summary))
    with pytest.raises(ArtifactError, match="audit in audit/ is of other data"):
        publish(built, "someone/x", api=RecordingHfApi(tmp_path / "hub"))


@pytest.mark.parametrize(
    "build", ["small_wordnet_build", "small_dictionary_build", "small_relations_build", "small_rules_build"]
)
def test_every_config_loads_with_datasets_without_card_warnings(build, request):
    """`datasets` reads the card's split info (no "splits field in YAML is malformed" warning)."""

    folder = request.getfixturevalue(build).out
    manifest = json.loads((folder / "manifest.json").read_text())
    configs = sorted({key.split("/")[0] for key in manifest["tables"]})
    records: list[logging.LogRecord] = []
    handler = logging.Handler(level=logging.WARNING)
    handler.emit = records.append
    logger = logging.getLogger("datasets")
    logger.addHandler(handler)
    try:
        for config in configs:
            ds = datasets.load_dataset(str(folder), config)
            for split, table in ds.items():
                rows = manifest["tables"][f"{config}/{split}"]["rows"]
                assert table.num_rows == rows
                assert table.info.splits[split].num_examples == rows  # read from the card, not ignored
    finally:
        logger.removeHandler(handler)
    assert not [
        r.getMessage() for r in records if "dataset_info" in r.getMessage() or "YAML" in r.getMessage()
    ]
