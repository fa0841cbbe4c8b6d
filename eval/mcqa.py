"""Multiple-choice data for the audit and the evaluation: our builds and AI2-format JSONL.

Both load into one polars layout per config::

    id, question, choices (list[str]), answer_index, cluster, probe, hops,
    distractor_types (list[str]), split

AI2's multiple-choice JSONL (OpenBookQA, ARC, WordNetQA) has one item per line::

    {"id": ..., "question": {"stem": ..., "choices": [{"text": ..., "label": "A"}, ...]},
     "answerKey": "A"}

either as a folder of ``train.jsonl`` / ``dev.jsonl`` / ``test.jsonl`` or as one file, which is
then split by cluster (items with the same question stem share a cluster).
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from probesmith.builders.registry import multiple_choice_families
from probesmith.builders.sampling import stable_hash
from probesmith.errors import ArtifactError
from probesmith.schemas.artifact import read_table
from probesmith.schemas.manifest import MANIFEST_NAME, read_manifest
from probesmith.schemas.tables import COLUMNS, MULTIPLE_CHOICE

AI2_SPLITS = ("train", "dev", "test")


def load_multiple_choice(path: str | Path) -> dict[str, pl.DataFrame]:
    """Load a probesmith build folder or AI2 JSONL (folder or file) into frames per config."""
    path = Path(path)
    if path.is_dir() and (path / MANIFEST_NAME).is_file():
        return load_build(path)
    if path.is_dir() and any((path / f"{s}.jsonl").is_file() for s in AI2_SPLITS):
        return {path.name: load_ai2_folder(path)}
    if path.is_file() and path.suffix == ".jsonl":
        return {path.stem: load_ai2_file(path)}
    raise ArtifactError(
        f"{path} is neither a probesmith build folder (with {MANIFEST_NAME}) nor AI2 "
        "multiple-choice JSONL (a .jsonl file, or a folder with train.jsonl / dev.jsonl / "
        "test.jsonl). Pass one of those."
    )


def load_build(folder: Path, splits: tuple[str, ...] | None = None) -> dict[str, pl.DataFrame]:
    """Every config of a build folder, its splits (or ``splits``) stacked with a ``split`` column.

    Only multiple-choice builds qualify; a table build (relation sets, grids, rules) is refused
    with the families that do.
    """
    manifest = read_manifest(folder)
    choice_tables = sorted(t for t, e in manifest["tables"].items() if e.get("schema") == MULTIPLE_CHOICE.id)
    if not choice_tables:
        raise ArtifactError(
            f"{folder} is a {manifest['family']} build, which has no multiple-choice tables; the "
            f"audit and multiple-choice scoring take {' or '.join(multiple_choice_families())} builds "
            "(the multiple-choice families), or AI2 JSONL."
        )
    frames: dict[str, list[pl.DataFrame]] = {}
    for table_name in choice_tables:
        config, split = table_name.split("/")
        if splits is not None and split not in splits:
            continue
        frame = read_table(folder, config, split, manifest).with_columns(split=pl.lit(split))
        frames.setdefault(config, []).append(frame.select(list(COLUMNS)).cast(COLUMNS))
    if not frames:
        raise ArtifactError(f"{folder} has no multiple-choice items in split(s) {', '.join(splits or ())}.")
    return {config: pl.concat(parts) for config, parts in frames.items()}


def load_ai2_folder(folder: Path) -> pl.DataFrame:
    """An AI2 folder: each of train/dev/test.jsonl that exists becomes its split."""
    parts = [
        _ai2_rows(folder / f"{split}.jsonl", split)
        for split in AI2_SPLITS
        if (folder / f"{split}.jsonl").is_file()
    ]
    return pl.DataFrame([row for part in parts for row in part], schema=COLUMNS)


def load_ai2_file(path: Path, train_share: float = 0.6, seed: int = 0) -> pl.DataFrame:
    """One AI2 file, split into train and test by cluster (question stem)."""
    rows = _ai2_rows(path, split="")
    for row in rows:
        row["split"] = "train" if stable_hash(seed, row["cluster"]) / 2**64 < train_share else "test"
    return pl.DataFrame(rows, schema=COLUMNS)


def _ai2_rows(path: Path, split: str) -> list[dict]:
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path}, line {line_no}"
            try:
                record = json.loads(line)
                stem = record["question"]["stem"]
                choices = record["question"]["choices"]
                labels = [c["label"] for c in choices]
                texts = [c["text"] for c in choices]
                if not isinstance(stem, str) or not stem.strip():
                    raise ArtifactError(f"{where}: question.stem must be a non-empty string, got {stem!r}.")
                bad = [t for t in texts if not isinstance(t, str) or not t.strip()]
                if bad or len(texts) < 2:
                    raise ArtifactError(
                        f"{where}: every choice text must be a non-empty string, and there must be at "
                        f"least two choices (got {texts!r}). Fix or remove the line."
                    )
                answer = labels.index(record["answerKey"])
            except json.JSONDecodeError as exc:
                raise ArtifactError(f"{where} is not valid JSON ({exc}).") from None
            except (KeyError, TypeError) as exc:
                raise ArtifactError(
                    f"{where} lacks {exc} : AI2 items need question.stem, question.choices "
                    "[{text, label}] and answerKey."
                ) from None
            except ValueError:
                raise ArtifactError(
                    f"{where}: answerKey {record.get('answerKey')!r} is not among the choice labels {labels}."
                ) from None
            rows.append(
                {
                    "id": str(record.get("id", f"{path.stem}-{line_no}")),
                    "question": stem,
                    "choices": texts,
                    "answer_index": answer,
                    "cluster": f"stem:{stable_hash('stem', stem.strip().lower()):016x}",
                    "probe": path.parent.name if split else path.stem,
                    "hops": 0,
                    "distractor_types": ["unknown"] * (len(texts) - 1),
                    "split": split,
                }
            )
    if not rows:
        raise ArtifactError(f"{path} holds no items.")
    return rows
