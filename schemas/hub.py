"""Publishing a build folder to the Hugging Face Hub, in one commit.

``publish`` uploads README.md (the card), manifest.json, every Parquet file the manifest lists
and the audit report, with ``huggingface_hub``. The token comes from the usual places
(``HF_TOKEN``, ``huggingface-cli login``) and is never logged or written by probesmith. A folder
whose files do not match its manifest, or whose audit flags artifacts (or audited other data),
is refused unless forced.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from probesmith.errors import ArtifactError
from probesmith.schemas.manifest import MANIFEST_NAME, read_manifest, verify_folder

log = logging.getLogger(__name__)

AUDIT_SUMMARY = Path("audit") / "audit.json"


def files_to_publish(folder: Path) -> list[str]:
    """Repository paths to upload: card, manifest, the manifest's files, the audit report."""
    manifest = read_manifest(folder)
    paths = ["README.md", MANIFEST_NAME, *sorted(manifest["files"])]
    paths += [name for name in ("validity.json",) if (folder / name).is_file()]
    for report in ("audit", "review"):
        if (folder / report).is_dir():
            paths += sorted(
                p.relative_to(folder).as_posix()
                for p in (folder / report).iterdir()
                if p.is_file() and not p.name.startswith(".")
            )
    return paths


def check_publishable(folder: Path) -> list[str]:
    """Reasons not to publish ``folder`` (empty when it is fine)."""
    reasons = [f"manifest mismatch: {p}" for p in verify_folder(folder)]
    if not (folder / "README.md").is_file():
        reasons.append("README.md (the dataset card) is missing")
    audit_path = folder / AUDIT_SUMMARY
    if audit_path.is_file():
        summary = json.loads(audit_path.read_text())
        if summary.get("source_logical_hash") != read_manifest(folder)["logical_hash"]:
            reasons.append("the audit in audit/ is of other data: rerun `probesmith audit`")
        elif summary.get("flagged_cells", 0):
            reasons.append(
                f"the audit flags {summary['flagged_cells']} cell(s) where a partial-input "
                "baseline beats chance (see audit/report.md): rebuild with --filter-artifacts"
            )
    else:
        log.warning("%s has no audit; run `probesmith audit %s` before publishing", folder, folder)
    return reasons


def publish(
    folder: str | Path,
    repo_id: str,
    *,
    private: bool = False,
    revision: str | None = None,
    force: bool = False,
    commit_message: str | None = None,
    api=None,
):
    """Upload a build folder as a dataset repository in one commit; return the commit info."""
    from huggingface_hub import HfApi

    folder = Path(folder)
    reasons = check_publishable(folder)
    if reasons and not force:
        raise ArtifactError(
            f"refusing to publish {folder}: " + "; ".join(reasons) + ". Pass --force to publish anyway."
        )
    for reason in reasons:
        log.warning("publishing despite: %s", reason)
    api = api or HfApi()
    paths = files_to_publish(folder)
    manifest = read_manifest(folder)
    try:
        return _commit(api, folder, repo_id, paths, manifest, private, revision, commit_message)
    except Exception as exc:
        if not _is_hub_error(exc):
            raise
        raise ArtifactError(
            f"could not publish {folder} to the Hub dataset {repo_id}: {type(exc).__name__}: {exc}. "
            "Nothing was committed; check the network, the repository id and your token "
            "(HF_TOKEN or `huggingface-cli login`), then retry."
        ) from None


#: Libraries whose exceptions mean an unreachable or refusing Hub (network, HTTP status, auth).
_HUB_ERROR_MODULES = {"httpx", "httpx2", "httpcore", "requests", "urllib3", "huggingface_hub"}


def _is_hub_error(exc: Exception) -> bool:
    return isinstance(exc, OSError | ConnectionError | TimeoutError) or (
        type(exc).__module__.split(".")[0] in _HUB_ERROR_MODULES
    )


def _commit(api, folder, repo_id, paths, manifest, private, revision, commit_message):
    from huggingface_hub import CommitOperationAdd

    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    if revision is not None:
        api.create_branch(repo_id, branch=revision, repo_type="dataset", exist_ok=True)
    operations = [CommitOperationAdd(path_in_repo=p, path_or_fileobj=str(folder / p)) for p in paths]
    message = commit_message or (
        f"probesmith {manifest.get('probesmith_version')}: {manifest.get('name')} "
        f"(logical hash {manifest['logical_hash'][:12]})"
    )
    log.info(
        "publishing %d files of %s to dataset %s%s",
        len(paths),
        folder,
        repo_id,
        f" (revision {revision})" if revision else "",
    )
    return api.create_commit(
        repo_id, operations, commit_message=message, repo_type="dataset", revision=revision
    )
