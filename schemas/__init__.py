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
from probesmith.schemas.wikidata import ALIASES, ANSWER_SPACES, PATTERNS, RELATION_INSTANCES

__all__ = [
    "ALIASES",
    "ANSWER_SPACES",
    "MULTIPLE_CHOICE",
    "PATTERNS",
    "RELATION_INSTANCES",
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
