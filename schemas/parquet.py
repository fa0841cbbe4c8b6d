"""Parquet writer and reader that validate against the declared schema on both sides."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from probesmith.errors import ArtifactError, SchemaError
from probesmith.schemas.results import RESULT_SCHEMAS
from probesmith.schemas.tables import SCHEMAS, TableSchema, declared_schemas

SCHEMA_METADATA_KEY = b"probesmith.schema"


def write_parquet(table: pa.Table, path: Path, schema: TableSchema, where: str) -> None:
    """Validate ``table`` against ``schema`` and write it to ``path`` (zstd, schema id in metadata).

    The table is cast to the declared schema's column order and field metadata first, so the
    file carries exactly the declared schema whatever order the builder assembled columns in.
    """
    schema.validate(table, where)
    table = table.select(schema.schema.names).cast(schema.schema)
    metadata = dict(schema.schema.metadata or {})
    metadata[SCHEMA_METADATA_KEY] = schema.id.encode()
    table = table.replace_schema_metadata(metadata)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd", compression_level=6, write_statistics=True)


def read_parquet(path: str | Path, schema: TableSchema | None = None) -> pa.Table:
    """Read a Parquet file written by probesmith and validate it.

    The schema is taken from the file's metadata unless given. A truncated or corrupt file, or
    one that does not conform, raises an error that names the file and the way out.
    """
    path = Path(path)
    if not path.is_file():
        raise ArtifactError(f"Parquet file {path} does not exist. Build it first (`probesmith build`).")
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, pa.ArrowIOError, OSError) as exc:
        raise ArtifactError(
            f"{path} is not a readable Parquet file (truncated or corrupt: {exc}). "
            "Rebuild it with `probesmith build`, or download it again."
        ) from None
    if schema is None:
        schema_id = (table.schema.metadata or {}).get(SCHEMA_METADATA_KEY)
        if schema_id is None:
            raise ArtifactError(
                f"{path} has no probesmith schema id in its metadata; pass the schema to "
                "read it, or rebuild it with `probesmith build`."
            )
        schema = schema_by_id(schema_id.decode())
    schema.validate(table, str(path))
    return table


def schema_by_id(schema_id: str) -> TableSchema:
    """Look up a schema by ``name/vN``; fail with the known ids.

    Built-in and result schemas are known here; a family's own schema once a schema finder (the
    family registry adds one when imported) has declared it.
    """
    name, _, version = schema_id.partition("/v")
    every = {**declared_schemas(find=False), **SCHEMAS, **RESULT_SCHEMAS}
    if name not in every:  # declared in a module not imported yet (a family's own schema)
        every = {**declared_schemas(), **SCHEMAS, **RESULT_SCHEMAS}
    schema = every.get(name)
    if schema is None or str(schema.version) != version:
        known = ", ".join(s.id for s in every.values())
        raise SchemaError(f"unknown table schema {schema_id!r}; this probesmith knows {known}.")
    return schema
