"""Which knowledge sources are available, where, and the fix for each missing one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from probesmith.builders.sources.gcide import DEBIAN_GCIDE_DIR, GcideSource
from probesmith.builders.sources.gcide import INSTALL_HINT as GCIDE_HINT
from probesmith.builders.sources.wordnet import (
    DEBIAN_WORDNET_DIR,
    missing_source_files,
    nltk_wordnet_dir,
    prepare_wordnet,
)
from probesmith.builders.sources.wordnet import INSTALL_HINT as WORDNET_HINT
from probesmith.errors import SourceError
from probesmith.paths import REPOSITORY_ROOT


@dataclass(frozen=True)
class SourceStatus:
    """One source's availability."""

    name: str
    available: bool
    where: str
    detail: str
    fix: str = ""


def check_sources(
    wordnet_dir: Path = DEBIAN_WORDNET_DIR, gcide_dir: Path = DEBIAN_GCIDE_DIR
) -> list[SourceStatus]:
    """The status of every source the builders read."""
    statuses = []
    missing = missing_source_files(wordnet_dir)
    statuses.append(
        SourceStatus(
            "wordnet",
            not missing,
            str(wordnet_dir),
            "WordNet 3.0 files present" if not missing else f"missing {', '.join(missing)}",
            "" if not missing else WORDNET_HINT,
        )
    )
    prepared = nltk_wordnet_dir()
    ready = (prepared / "lexnames").is_file()
    statuses.append(
        SourceStatus(
            "wordnet-nltk",
            ready,
            str(prepared),
            "NLTK copy prepared" if ready else "NLTK copy not prepared yet (made on first build)",
            "" if ready else "Run `probesmith data prepare`.",
        )
    )
    gcide = GcideSource(gcide_dir)
    present = gcide.index_path.is_file() and gcide.dict_path.is_file()
    statuses.append(
        SourceStatus(
            "gcide",
            present,
            str(gcide_dir),
            "gcide.index and gcide.dict.dz present" if present else "gcide files missing",
            "" if present else GCIDE_HINT,
        )
    )
    return statuses


def prepare_sources(wordnet_dir: Path = DEBIAN_WORDNET_DIR) -> Path:
    """Prepare the offline copies the builders need (WordNet for NLTK); return where."""
    return prepare_wordnet(wordnet_dir)


def data_path(path: str | Path, what: str) -> Path:
    """A source path from a spec, found from any working folder.

    As given, or — when relative and absent from the working folder — relative to the
    repository root, so the bundled specs' ``../shared/data/...`` paths work from anywhere. A
    path found in neither place is a :class:`SourceError`.
    """
    path = Path(path).expanduser()
    if path.is_absolute() or path.exists():
        found = path
    elif (REPOSITORY_ROOT / path).exists():
        found = REPOSITORY_ROOT / path
    else:
        found = path
    if not found.exists():
        raise SourceError(
            f"{what} {path} does not exist (looked in {Path.cwd()} and {REPOSITORY_ROOT}); set the "
            "spec's path to it, or to '' to do without this source."
        )
    return found
