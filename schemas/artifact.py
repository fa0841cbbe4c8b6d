"""Atomic writing of a build folder that is a ready Hugging Face Hub dataset repository.

Layout::

    OUT/README.md                                   dataset card (YAML metadata + text)
    OUT/manifest.json                               files, hashes, spec, seed, sources
    OUT/<config>/<split>-00000-of-00002.parquet     zstd Parquet, declared schema

Everything is written into a hidden staging folder beside ``OUT`` and renamed into place at the
end, so an interrupted build leaves ``OUT`` as it was (absent, or the previous complete build)
and the build can simply be rerun.
"""

from __future__ import annotations

import logging
import os
import shutil
import uuid
from pathlib import Path
from typing import Any

import pyarrow as pa

from probesmith.errors import ArtifactError
from probesmith.schemas.card import CardInfo, render_card
from probesmith.schemas.manifest import (
    MANIFEST_FORMAT,
    MANIFEST_NAME,
    combine_hashes,
    file_sha256,
    logical_hash,
    write_manifest,
)
from probesmith.schemas.parquet import write_parquet
from probesmith.schemas.tables import TableSchema

log = logging.getLogger(__name__)

DEFAULT_ROWS_PER_SHARD = 250_000


def refuse_to_replace(out: Path, marker: str, what: str) -> None:
    """Raise unless ``out`` is missing, empty, or holds ``marker`` (a folder we wrote before).

    Output folders are replaced whole; this keeps a typo such as ``--out artifacts`` (the parent
    of the builds) from deleting a folder that is not ours.
    """
    if out.is_dir() and any(out.iterdir()) and not (out / marker).is_file():
        raise ArtifactError(
            f"{out} exists and is not {what} (no {marker}); it would be replaced whole, so nothing "
            f"was written. Pass a new or empty folder, e.g. {out / 'NAME'}"
        )
    if out.exists() and not out.is_dir():
        raise ArtifactError(f"{out} exists and is a file, not a folder: pass a folder path")


def swap_into_place(staging: Path, out: Path) -> None:
    """Replace ``out`` by the complete folder ``staging``: two renames, the old copy removed last.

    If the second rename fails, the previous folder is put back.
    """
    previous = None
    if out.exists():
        previous = out.parent / f".{out.name}.old-{uuid.uuid4().hex[:12]}"
        os.rename(out, previous)
    try:
        os.rename(staging, out)
    except OSError:
        if previous is not None:
            os.rename(previous, out)
        raise
    if previous is not None:
        shutil.rmtree(previous, ignore_errors=True)


class DatasetFolderWriter:
    """Stage tables, then publish a complete folder in one rename.

    Use as a context manager; ``commit`` must be called inside it, and an exception anywhere
    removes the staging folder and leaves the destination untouched::

        with DatasetFolderWriter(out) as writer:
            writer.add_table("hypernymy", "train", table, MULTIPLE_CHOICE)
            writer.commit(card_info, manifest_fields, summary_markdown)
    """

    def __init__(self, out: str | Path, rows_per_shard: int = DEFAULT_ROWS_PER_SHARD):
        self.out = Path(out).absolute()
        self.rows_per_shard = rows_per_shard
        self.staging = self.out.parent / f".{self.out.name}.tmp-{uuid.uuid4().hex[:12]}"
        self._configs: dict[str, dict[str, dict[str, Any]]] = {}
        self._schemas: dict[str, TableSchema] = {}
        self._committed = False

    def __enter__(self) -> DatasetFolderWriter:
        refuse_to_replace(self.out, MANIFEST_NAME, "a build folder")
        self.out.parent.mkdir(parents=True, exist_ok=True)
        for stale in self.out.parent.glob(f".{self.out.name}.tmp-*"):
            log.info("removing staging folder of an interrupted build: %s", stale)
            shutil.rmtree(stale, ignore_errors=True)
        self.staging.mkdir()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.staging.exists():
            shutil.rmtree(self.staging, ignore_errors=True)
        if exc_type is None and not self._committed:
            raise RuntimeError("DatasetFolderWriter closed without commit(); nothing was written")

    def add_table(self, config: str, split: str, table: pa.Table, schema: TableSchema) -> None:
        """Validate and write one split of one config, sharded by ``rows_per_shard``."""
        if config in self._schemas and self._schemas[config] is not schema:
            raise ValueError(f"config {config!r} already has schema {self._schemas[config].id}")
        self._schemas[config] = schema
        n_shards = max(1, -(-table.num_rows // self.rows_per_shard))
        files = []
        for shard in range(n_shards):
            rel = f"{config}/{split}-{shard:05d}-of-{n_shards:05d}.parquet"
            part = table.slice(shard * self.rows_per_shard, self.rows_per_shard)
            write_parquet(part, self.staging / rel, schema, where=f"{config}/{split}")
            files.append(rel)
        self._configs.setdefault(config, {})[split] = {
            "rows": table.num_rows,
            "files": files,
            "logical_hash": logical_hash(table),
            "schema": schema.id,
        }
        log.info("wrote %s/%s: %d rows in %d file(s)", config, split, table.num_rows, n_shards)

    def commit(self, card: CardInfo, manifest_fields: dict[str, Any], summary_markdown: str) -> dict:
        """Write manifest and card, then move the staged folder to its destination."""
        files = {}
        for splits in self._configs.values():
            for entry in splits.values():
                for rel in entry["files"]:
                    path = self.staging / rel
                    files[rel] = {"sha256": file_sha256(path), "bytes": path.stat().st_size}
        tables = {
            f"{config}/{split}": {k: v for k, v in entry.items() if k != "files"}
            for config, splits in self._configs.items()
            for split, entry in splits.items()
        }
        manifest = {
            "format": MANIFEST_FORMAT,
            **manifest_fields,
            "tables": tables,
            "logical_hash": combine_hashes({k: v["logical_hash"] for k, v in tables.items()}),
            "files": files,
        }
        write_manifest(self.staging, manifest)
        card_text = render_card(card, self._configs, self._schemas, manifest, summary_markdown)
        (self.staging / "README.md").write_text(card_text, encoding="utf-8")
        self._swap_into_place()
        self._committed = True
        return manifest

    def _swap_into_place(self) -> None:
        swap_into_place(self.staging, self.out)
        log.info("build folder ready: %s", self.out)
