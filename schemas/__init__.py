"""Explicit Arrow schemas, validation, Parquet I/O, manifests and dataset cards."""

from probesmith.schemas.artifact import DatasetFolderWriter
from probesmith.schemas.card import CardInfo, hf_features, render_card
from probesmith.schemas.manifest import (
    logical_hash,
    read_manifest,
    verify_folder,
)
from probesmith.schemas.parquet import read_parquet, schema_by_id, write_parquet
from probesmith.schemas.tables import MULTIPLE_CHOICE, SCHEMAS, TableSchema

__all__ = [
    "MULTIPLE_CHOICE",
    "SCHEMAS",
    "CardInfo",
    "DatasetFolderWriter",
    "TableSchema",
    "hf_features",
    "logical_hash",
    "read_manifest",
    "read_parquet",
    "render_card",
    "schema_by_id",
    "verify_folder",
    "write_parquet",
]
