"""BEAR / lm-pub-quiz layout: import, export, and the relation catalog made from BEAR's metadata.

The layout (Wiland et al. 2024; what ``lm_pub_quiz.Dataset.from_path`` reads)::

    <folder>/P19.jsonl               {"sub_id", "sub_label", "sub_aliases", "obj_id", "obj_label",
                                      "answer_idx"} per line
    <folder>/metadata_relations.json {"P19": {"templates": [...], "answer_space_labels": [...],
                                              "answer_space_ids": [...]}, ...}
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from probesmith.errors import SourceError
from probesmith.schemas.output import OutputFolder, path_under

# BEAR's 60 relations (lm-pub-quiz/BEAR, metadata_relations.json): the card's coverage table
BEAR_RELATIONS = (
    "P6 P19 P20 P26 P27 P30 P36 P37 P50 P53 P57 P58 P69 P87 P98 P103 P105 P108 P115 P127 P131 P137 "
    "P162 P170 P171 P175 P176 P177 P178 P179 P185 P190 P206 P272 P291 P344 P364 P403 P412 P413 P427 "
    "P449 P463 P466 P509 P610 P611 P641 P676 P1303 P1376 P1412 P1441 P1532 P2632 P3373 P4552 P6886 "
    "P7937 P7959"
).split()
# gold_obj_ids: written by probesmith beside answer_idx (every gold of the subject); BEAR has none
INSTANCE_KEYS = ("sub_id", "sub_label", "sub_aliases", "obj_id", "obj_label", "answer_idx", "gold_obj_ids")
# a relation id names a file (<id>.jsonl): a Wikidata property id and nothing else
RELATION_ID = re.compile(r"P\d+")


def read_bear(folder: str | Path) -> dict[str, dict]:
    """Read a BEAR-layout folder, records exactly as in the files.

    Returns ``{relation: {"templates", "answer_space_ids", "answer_space_labels", "instances"}}``.
    """
    folder = Path(folder)
    metadata_path = folder / "metadata_relations.json"
    if not metadata_path.is_file():
        raise SourceError(f"{folder} has no metadata_relations.json: it is not in BEAR's layout.")
    try:
        metadata = json.loads(metadata_path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise SourceError(f"{metadata_path} is not valid JSON ({exc}); copy BEAR's files again.") from None
    _check_metadata(metadata, metadata_path)
    relations = {}
    for relation, meta in metadata.items():
        path = folder / f"{relation}.jsonl"
        if not path.is_file():
            continue  # BEAR-big lists P414 with templates but no instances
        instances = []
        with open(path, encoding="utf-8") as fh:
            for line_no, line in enumerate(fh, 1):
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise SourceError(f"{path}, line {line_no}: not valid JSON ({exc}).") from None
                missing = [
                    k for k in ("sub_id", "sub_label", "obj_id", "obj_label", "answer_idx") if k not in record
                ]
                if not isinstance(record, dict) or missing:
                    raise SourceError(
                        f"{path}, line {line_no}: a BEAR instance needs sub_id, sub_label, obj_id, "
                        f"obj_label and answer_idx (missing {missing or 'all'})."
                    )
                instances.append(record)
        relations[relation] = {**meta, "instances": instances}
    return relations


def _check_metadata(metadata, path: Path) -> None:
    """BEAR's ``metadata_relations.json``: relation -> templates and a parallel answer space."""
    if not isinstance(metadata, dict) or not metadata:
        raise SourceError(f"{path} must map relation ids to their metadata; it is {type(metadata).__name__}.")
    for relation, meta in metadata.items():
        problem = None
        if not RELATION_ID.fullmatch(relation):
            raise SourceError(
                f"{path}: relation {relation[:80]!r} is not a Wikidata property id (P followed by "
                "digits, e.g. P19), and it names a file; rename or remove that key."
            )
        if not isinstance(meta, dict):
            problem = "is not a mapping"
        elif not isinstance(meta.get("templates"), list) or not meta["templates"]:
            problem = "has no list of templates"
        elif not isinstance(meta.get("answer_space_ids"), list) or not isinstance(
            meta.get("answer_space_labels"), list
        ):
            problem = "lacks answer_space_ids or answer_space_labels"
        elif len(meta["answer_space_ids"]) != len(meta["answer_space_labels"]):
            problem = "has answer_space_ids and answer_space_labels of different lengths"
        if problem:
            raise SourceError(f"{path}: relation {relation!r} {problem}; it is not in BEAR's layout.")


def write_bear(folder: str | Path, relations: dict[str, dict], *, force: bool = False) -> Path:
    """Write relations in BEAR's layout into ``folder``, atomically (see ``OutputFolder``)."""
    with OutputFolder(folder, "export:bear", force=force) as staging:
        write_bear_files(staging, relations)
    return Path(folder)


def write_bear_files(folder: Path, relations: dict[str, dict]) -> None:
    """Write ``P*.jsonl`` and ``metadata_relations.json`` into the (staging) folder ``folder``.

    A relation id must be a Wikidata property id (P and digits): it names a file, and no file is
    written outside ``folder``.
    """
    metadata = {}
    for relation, data in relations.items():
        if not RELATION_ID.fullmatch(str(relation)):
            raise SourceError(
                f"relation {str(relation)[:80]!r} is not a Wikidata property id (P followed by digits); "
                "it would name a file outside the export. Rebuild or re-import from a clean source."
            )
        metadata[relation] = {
            k: data[k] for k in ("templates", "answer_space_labels", "answer_space_ids") if k in data
        }
        with open(path_under(folder, f"{relation}.jsonl"), "w", encoding="utf-8") as fh:
            for record in data["instances"]:
                fh.write(
                    json.dumps(
                        {k: record[k] for k in INSTANCE_KEYS if k in record},
                        ensure_ascii=False,
                        separators=(",", ":"),
                    )
                    + "\n"
                )
    (folder / "metadata_relations.json").write_text(json.dumps(metadata, ensure_ascii=False, indent=1))
