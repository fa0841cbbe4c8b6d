"""Dataset-card rendering: the README.md that makes a build folder a Hub dataset repository."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from probesmith.errors import ArtifactError
from probesmith.redact import redact_text
from probesmith.schemas.output import write_bytes_atomic
from probesmith.schemas.tables import TableSchema

if TYPE_CHECKING:
    import datasets


@dataclass(frozen=True)
class CardInfo:
    """What a builder says about its dataset for the card."""

    pretty_name: str
    description: str
    license: str
    license_name: str | None = None
    license_link: str | None = None
    licence_text: str = ""
    tags: tuple[str, ...] = ()
    task_categories: tuple[str, ...] = ("multiple-choice", "question-answering")
    citation: str = ""
    extra_sections: tuple[tuple[str, str], ...] = field(default=())


def hf_features(schema: TableSchema) -> datasets.Features:
    """The Hugging Face features equivalent to a table schema."""
    import datasets  # deferred: ~0.26 s and ~25 MB that every command would pay at start-up

    return datasets.Features.from_arrow_schema(schema.schema.remove_metadata())


def _size_category(rows: int) -> str:
    for limit, name in (
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
        (10_000_000, "1M<n<10M"),
    ):
        if rows < limit:
            return name
    return "10M<n<100M"


def _splits_note(configs: dict[str, dict[str, dict[str, Any]]]) -> str:
    """What the splits mean: by concept where there are several, else that there is one."""
    names = sorted({split for splits in configs.values() for split in splits})
    if len(names) > 1:
        return (
            "Splits are by concept (all questions about one concept share its cluster): no concept "
            "appears in two splits; an answer may be the gold in several splits."
        )
    if names:
        return f"Every config has one split, `{names[0]}`: the build makes no train/dev/test division."
    return "The build wrote no rows."


def render_card(
    info: CardInfo,
    configs: dict[str, dict[str, dict[str, Any]]],
    schemas: dict[str, TableSchema],
    manifest: dict[str, Any],
    summary_markdown: str,
) -> str:
    """Render README.md: YAML metadata (configs, features, licence) and a readable body.

    ``configs`` maps config name -> split name -> {"rows": int, "num_bytes": int, "files": [...]};
    ``num_bytes`` (the split's Arrow size) is what ``datasets`` needs to read the split info
    instead of warning that the YAML is malformed.
    """
    total_rows = sum(s["rows"] for splits in configs.values() for s in splits.values())
    metadata: dict[str, Any] = {"pretty_name": info.pretty_name, "license": info.license}
    if info.license_name:
        metadata["license_name"] = info.license_name
    if info.license_link:
        metadata["license_link"] = info.license_link
    metadata.update(
        language=["en"],
        task_categories=list(info.task_categories),
        size_categories=[_size_category(total_rows)],
        tags=list(info.tags),
        configs=[
            {
                "config_name": config,
                "data_files": [{"split": split, "path": f"{config}/{split}-*.parquet"} for split in splits],
            }
            for config, splits in configs.items()
        ],
        dataset_info=[
            {
                "config_name": config,
                "features": hf_features(schemas[config])._to_yaml_list(),
                "splits": [
                    {"name": split, "num_bytes": entry.get("num_bytes", 0), "num_examples": entry["rows"]}
                    for split, entry in splits.items()
                ],
                "dataset_size": sum(entry.get("num_bytes", 0) for entry in splits.values()),
            }
            for config, splits in configs.items()
        ],
    )
    header = yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True, width=1000)
    counts = "\n".join(
        f"| `{config}` | {split} | {entry['rows']:,} |"
        for config, splits in configs.items()
        for split, entry in splits.items()
    )
    sources = "\n".join(
        f"- **{name}**: " + ", ".join(f"{k} `{redact_text(str(v))}`" for k, v in sorted(src.items()))
        for name, src in sorted(manifest.get("sources", {}).items())
    )
    first_config = next(iter(configs), "CONFIG")  # an --allow-empty build has none
    body = [
        f"# {info.pretty_name}",
        "",
        info.description.strip(),
        "",
        "## Configs and splits",
        "",
        "| config | split | rows |",
        "|---|---|---|",
        counts,
        "",
        _splits_note(configs),
        "",
        "## Summary",
        "",
        summary_markdown.strip(),
        "",
        "## Loading",
        "",
        "```python",
        "import datasets",
        f'ds = datasets.load_dataset("PATH_OR_REPO_ID", "{first_config}")',
        "```",
        "",
        "## Reproducing this build",
        "",
        f"Built by probesmith {manifest.get('probesmith_version')} from spec "
        f"`{manifest.get('spec', {}).get('name')}` (version {manifest.get('spec', {}).get('version')})"
        f" with seed {manifest.get('seed')}. Logical content hash: `{manifest.get('logical_hash')}`.",
        "`manifest.json` holds the resolved spec, the source versions and per-file sha256.",
        "",
        "Sources:",
        "",
        sources,
        "",
        "## Licence",
        "",
        info.licence_text.strip() or f"`{info.license}`",
    ]
    for title, text in info.extra_sections:
        body += ["", f"## {title}", "", text.strip()]
    if info.citation:
        body += ["", "## Citation", "", "```bibtex", info.citation.strip(), "```"]
    return f"---\n{header}---\n\n" + "\n".join(body) + "\n"


def set_card_section(folder: str | Path, key: str, title: str, markdown: str) -> Path:
    """Put the section ``title`` into a build's card (README.md), replacing an earlier one of ``key``.

    Sections written after the build (the human review's validated accuracy) sit between
    ``<!-- probesmith:KEY -->`` markers before the citation, so a second call replaces the first.
    The card is replaced atomically; the build's tables and manifest are untouched (the card is
    not among the manifest's hashed files).
    """
    card = Path(folder) / "README.md"
    if not card.is_file():
        raise ArtifactError(f"{folder} has no dataset card (README.md): rebuild it with `probesmith build`.")
    text = card.read_text(encoding="utf-8")
    begin, end = f"<!-- probesmith:{key} -->", f"<!-- /probesmith:{key} -->"
    section = f"{begin}\n## {title}\n\n{markdown.strip()}\n{end}\n"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end) + r"\n?", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: section, text, count=1)
    elif "\n## Citation\n" in text:
        head, tail = text.split("\n## Citation\n", 1)
        text = f"{head}\n{section}\n## Citation\n{tail}"
    else:
        text = text.rstrip("\n") + "\n\n" + section
    write_bytes_atomic(card, text.encode("utf-8"))
    return card
