"""Atomic writing of a build folder that is a ready Hugging Face Hub dataset repository.

Layout::

    OUT/README.md                                   dataset card (YAML metadata + text)
    OUT/manifest.json                               files, hashes, spec, seed, sources
    OUT/<config>/<split>-00000-of-00002.parquet     zstd Parquet, declared schema

Everything is written through :class:`~probesmith.schemas.output.OutputFolder`: checked and locked
before the build starts, staged beside ``OUT`` and swapped in at the end, so an interrupted or
failed build leaves ``OUT`` as it was (absent, or the previous complete build), and a folder that
is not a build of the same family is never replaced.
"""

from __future__ import annotations

import logging
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
    read_manifest,
    write_manifest,
)
from probesmith.schemas.output import OutputFolder, failpoint
from probesmith.schemas.parquet import read_parquet, write_parquet
from probesmith.schemas.tables import TableSchema

log = logging.getLogger(__name__)

DEFAULT_ROWS_PER_SHARD = 250_000


class DatasetFolderWriter:
    """Stage tables, then publish a complete folder in one atomic swap.

    Enter it *before* generating anything: entering checks the destination and takes its lock,
    so a bad ``out`` fails at once. ``commit`` must be called inside the block; an exception
    anywhere leaves the destination untouched::

        with DatasetFolderWriter(out, kind="build:wordnet") as writer:
            writer.add_table("hypernymy", "train", table, MULTIPLE_CHOICE)
            writer.commit(card_info, manifest_fields, summary_markdown)

    A build with no rows at all is refused unless ``allow_empty`` (it would replace a good build
    with nothing, and it is almost always a missing source or a spec that matches nothing).
    """

    def __init__(
        self,
        out: str | Path,
        kind: str,
        *,
        force: bool = False,
        allow_empty: bool = False,
        rows_per_shard: int = DEFAULT_ROWS_PER_SHARD,
    ):
        self._output = OutputFolder(out, kind, force=force)
        self.out = self._output.out
        self.allow_empty = allow_empty
        self.rows_per_shard = rows_per_shard
        self.staging = self._output.staging
        self._configs: dict[str, dict[str, dict[str, Any]]] = {}
        self._schemas: dict[str, TableSchema] = {}
        self._committed = False

    def __enter__(self) -> DatasetFolderWriter:
        self._output.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None and not self._committed:
            error = RuntimeError("DatasetFolderWriter closed without commit(); nothing was written")
            self._output.__exit__(type(error), error, None)
            raise error
        self._output.__exit__(exc_type, exc, tb)

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
            failpoint("parquet")
        self._configs.setdefault(config, {})[split] = {
            "rows": table.num_rows,
            "num_bytes": table.nbytes,
            "files": files,
            "logical_hash": logical_hash(table),
            "schema": schema.id,
        }
        log.info("wrote %s/%s: %d rows in %d file(s)", config, split, table.num_rows, n_shards)

    def add_file(self, name: str, text: str) -> None:
        """Write a text file (a report such as ``validity.json``) at the top of the folder."""
        if "/" in name or name in (MANIFEST_NAME, "README.md"):
            raise ValueError(f"{name!r} is not a report file name")
        (self.staging / name).write_text(text, encoding="utf-8")

    def commit(self, card: CardInfo, manifest_fields: dict[str, Any], summary_markdown: str) -> dict:
        """Write manifest and card; the folder is swapped into place when the block ends."""
        rows = sum(e["rows"] for splits in self._configs.values() for e in splits.values())
        if rows == 0 and not self.allow_empty:
            dropped = manifest_fields.get("dropped") or {}
            reasons = "; ".join(f"{n:,} {r}" for r, n in sorted(dropped.items(), key=lambda kv: -kv[1])[:3])
            raise ArtifactError(
                f"the build of {self.out.name} produced no rows"
                + (f" (dropped: {reasons})" if reasons else "")
                + "; nothing was written. Check that the sources are there (`probesmith data check`) "
                "and that the spec matches something, or pass --allow-empty to write an empty build."
            )
        files = {}
        for splits in self._configs.values():
            for entry in splits.values():
                for rel in entry["files"]:
                    path = self.staging / rel
                    files[rel] = {"sha256": file_sha256(path), "bytes": path.stat().st_size}
        tables = {
            f"{config}/{split}": {k: v for k, v in entry.items() if k not in ("files", "num_bytes")}
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
        self._committed = True
        return manifest


def table_files(
    folder: str | Path, config: str, split: str | None = None, manifest: dict | None = None
) -> list[Path]:
    """The shard files of ``config`` (one ``split``, or all) exactly as the manifest lists them.

    A shard listed but missing, or a Parquet file beside the shards that the manifest does not
    list (``train-00000-of-00001 (copy).parquet``, a ``.bak.parquet``), is an error naming the
    file and the fix: a build folder is read as built or not at all.
    """
    folder = Path(folder)
    manifest = manifest if manifest is not None else read_manifest(folder)
    names = [
        t
        for t in manifest["tables"]
        if t.split("/")[0] == config and (split is None or t.endswith(f"/{split}"))
    ]
    if not names:
        known = sorted({t.split("/")[0] for t in manifest["tables"]})
        table = f"{config}/{split}" if split else config
        raise ArtifactError(
            f"{folder} has no table {table} (it has {', '.join(known) or 'none'}): is it a build "
            f"of the family you meant (this one is {manifest.get('family')!r})?"
        )
    prefixes = tuple(f"{name}-" for name in names)
    listed = sorted(rel for rel in manifest["files"] if rel.startswith(prefixes))
    missing = [rel for rel in listed if not (folder / rel).is_file()]
    if missing:
        raise ArtifactError(
            f"{folder / missing[0]} is listed in the manifest but missing: the build is incomplete. "
            "Rebuild it (`probesmith build`) or copy it again."
        )
    on_disk = {
        p.relative_to(folder).as_posix()
        for p in (folder / config).glob("*.parquet")
        if split is None or p.name.startswith(f"{split}-")
    }
    extra = sorted(on_disk - set(listed))
    if extra:
        raise ArtifactError(
            f"{folder / extra[0]} is not listed in the manifest (a stray copy?); it would be read as "
            "part of the build. Remove it, or rebuild the folder."
        )
    return [folder / rel for rel in listed]


def read_table(folder: str | Path, config: str, split: str | None = None, manifest: dict | None = None):
    """One table of a build folder (one split, or all stacked), from exactly its listed shards."""
    import polars as pl

    return pl.concat([pl.from_arrow(read_parquet(p)) for p in table_files(folder, config, split, manifest)])


def require_family(folder: str | Path, families: tuple[str, ...], command: str) -> dict:
    """The manifest of the build ``folder``, if it is of one of ``families``; else a clear error."""
    manifest = read_manifest(folder)
    if manifest["family"] not in families:
        wanted = " or ".join(families)
        raise ArtifactError(
            f"{folder} is a {manifest['family']} build; `probesmith {command}` takes a {wanted} build. "
            "Pass a build folder of that family."
        )
    return manifest
