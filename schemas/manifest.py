"""Build manifests: per-file sha256, logical content hashes, spec, seed and source versions.

The logical hash of a table depends only on its rows as values: not on row order, Parquet
encoding, compression or sharding. Two builds with the same spec, seed and sources have the
same logical hash; ``verify_folder`` checks that a folder's files are the ones its manifest lists.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pyarrow as pa

from probesmith.errors import ArtifactError
from probesmith.redact import redact_data

MANIFEST_NAME = "manifest.json"
MANIFEST_FORMAT = 1
AUDIT_FOLDER = "audit"  # the audit report lives beside the data, outside the manifest


# rows turned into Python objects at a time: 65,536 rows of a WordNetQA table were ~95 MB of them, on
# top of the build's peak while it writes; 4,096 rows ~13 MB, and no slower (BENCHMARKS, issue 26 part 12)
HASH_BATCH_ROWS = 4_096


def logical_hash(table: pa.Table) -> str:
    """Order-independent hash of a table's rows (canonical JSON per row, sorted digests)."""
    digests = []
    columns = table.column_names
    for batch in table.to_batches(max_chunksize=HASH_BATCH_ROWS):
        for row in zip(*(batch.column(c).to_pylist() for c in columns), strict=True):
            record = json.dumps(
                dict(zip(columns, row, strict=True)),
                sort_keys=True,
                ensure_ascii=False,
                separators=(",", ":"),
            )
            digests.append(hashlib.sha256(record.encode()).digest())
    digests.sort()
    outer = hashlib.sha256()
    outer.update(",".join(sorted(columns)).encode())
    for digest in digests:
        outer.update(digest)
    return outer.hexdigest()


def combine_hashes(hashes: dict[str, str]) -> str:
    """One hash over named hashes (e.g. every table of a build)."""
    outer = hashlib.sha256()
    for name in sorted(hashes):
        outer.update(f"{name}={hashes[name]}\n".encode())
    return outer.hexdigest()


def file_sha256(path: Path, chunk_size: int = 1 << 20) -> str:
    """sha256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


def write_manifest(folder: Path, manifest: dict[str, Any]) -> Path:
    """Write ``manifest.json`` (sorted keys, stable formatting) into ``folder``.

    Every URL in it is redacted (userinfo, query values): an endpoint's credentials in the spec
    or the sources never reach a file that ``publish`` uploads.
    """
    path = folder / MANIFEST_NAME
    text = json.dumps(redact_data(manifest), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    path.write_text(text)
    return path


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """Read a build folder's manifest; fail clearly when it is missing or unreadable."""
    path = Path(folder) / MANIFEST_NAME
    if not path.is_file():
        raise ArtifactError(
            f"{folder} has no {MANIFEST_NAME}: it is not a probesmith build folder, or the build "
            "did not finish. Rebuild it with `probesmith build`."
        )
    try:
        manifest = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ArtifactError(f"{path} is not valid JSON ({exc}); rebuild the folder.") from None
    if not isinstance(manifest, dict):
        raise ArtifactError(f"{path} is not a manifest (a JSON object is expected); rebuild the folder.")
    if manifest.get("format") != MANIFEST_FORMAT:
        raise ArtifactError(
            f"{path} has manifest format {manifest.get('format')!r}; this probesmith reads "
            f"format {MANIFEST_FORMAT}. Rebuild the folder with this version."
        )
    problems = [
        f"{key!r} {'is missing' if key not in manifest else 'is not ' + kind.__name__}"
        for key, kind in (("family", str), ("tables", dict), ("files", dict), ("logical_hash", str))
        if not isinstance(manifest.get(key), kind)
    ]
    problems += [
        f"files[{rel!r}] lacks its sha256"
        for rel, entry in (manifest.get("files") or {}).items()
        if not isinstance(entry, dict) or "sha256" not in entry
    ][:1]
    if problems:
        raise ArtifactError(
            f"{path} is incomplete or was edited by hand ({'; '.join(problems)}); rebuild the folder "
            "with `probesmith build` (or restore the manifest)."
        )
    return manifest


def verify_folder(folder: str | Path) -> list[str]:
    """Problems with a build folder's files against its manifest; empty when all match."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    problems = []
    listed = manifest.get("files", {})
    for rel, entry in sorted(listed.items()):
        path = folder / rel
        if not path.is_file():
            problems.append(f"{rel}: listed in the manifest but missing")
        elif file_sha256(path) != entry["sha256"]:
            problems.append(f"{rel}: sha256 differs from the manifest (file changed or corrupt)")
    for path in sorted(folder.rglob("*.parquet")):
        rel = path.relative_to(folder).as_posix()
        if rel not in listed and not rel.startswith((f"{AUDIT_FOLDER}/", "review/")):
            problems.append(f"{rel}: present but not listed in the manifest")
    return problems
