"""Human review of a build: a stratified sample sheet out, a validated accuracy in.

``probesmith review-sample BUILD --n 200`` writes ``BUILD/review/sheet.csv`` (and ``sheet.html`` to
read comfortably): items drawn evenly across config x hops, each with its choices, the gold's
letter, and empty columns for the reviewer:

* ``gold_is_correct`` — ``y`` or ``n``: is the marked answer right? (empty: not reviewed)
* ``other_correct`` — is another choice also right? ``y``, ``n`` or empty (no), or the letters
  of those choices (``C`` or ``B D``);
* ``reads_naturally`` — ``y`` or ``n``: is the question English a native speaker would write?
* ``notes``;
* ``build`` — the build's family and logical hash: the sheet is read back only into that build.

The sheet is bound to its build: ``review/sample.json`` (written with it) records the build's
logical hash and the sampled item ids, and a sheet read back must carry that hash on every row and
only those ids, each once. Cells that a spreadsheet would run as a formula (starting with ``=``,
``+``, ``-``, ``@``, a tab or a carriage return) are written with a leading ``'`` and read back
without it. Writing and reading hold the build's shared lock, so the build cannot be replaced
meanwhile.

A relations build gets one row per sampled instance instead, spread evenly over relations: the
statement with the object blank, the gold, every listed gold and the answer space;
``other_correct`` then is ``y``/``n``, or names any other right object (an option of the space, or a
gold the source misses).

``probesmith review-sample BUILD --read FILLED.csv`` reads a filled sheet back and reports the
validated accuracy — the share of reviewed items whose gold is right and that have no second
right answer — with its 95% Wilson interval, per config and overall, into ``BUILD/review/``
and into the card's *Human review* section (a later sheet replaces it).
"""

from __future__ import annotations

import contextlib
import csv
import html
import json
import shutil
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl

from probesmith.builders.sampling import stable_hash
from probesmith.errors import ArtifactError
from probesmith.eval.mcqa import load_build
from probesmith.eval.registry import evaluation_for
from probesmith.schemas.card import set_card_section
from probesmith.schemas.manifest import read_manifest
from probesmith.schemas.output import OutputFolder, SharedReadLock, check_unchanged, logical_hash_of
from probesmith.stats import wilson_interval

REVIEW_FOLDER = "review"
LETTERS = "ABCDEFGHIJ"
REVIEW_COLUMNS = ("gold_is_correct", "other_correct", "reads_naturally", "notes")
TEMPLATE_COLUMNS = ("reads_naturally", "states_the_relation", "notes")
TEMPLATE_SHEET = "templates.csv"
TEMPLATE_FILES = (TEMPLATE_SHEET, "templates.html")
ITEM_INSTRUCTIONS = (
    "Fill the last four columns in sheet.csv (gold_is_correct y/n, other_correct y/n or letters, "
    "reads_naturally y/n, notes), then run <code>probesmith review-sample BUILD --read sheet.csv</code>."
)
TEMPLATE_INSTRUCTIONS = (
    "Every template of the build, filled with some of its instances as the evaluation fills them. Mark "
    "reads_naturally (y/n: English a native speaker would write, for each fill) and states_the_relation "
    "(y/n: says exactly the relation, not more or less) in templates.csv."
)
BUILD_COLUMN = "build"
SAMPLE_FILE = "sample.json"
#: First characters that make a spreadsheet run a cell as a formula (OWASP: CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _needs_escape(value: str) -> bool:
    return value.startswith(FORMULA_STARTS) or (value.startswith("'") and _needs_escape(value[1:]))


def escape_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: a leading ``'`` before a formula's first character.

    A value that already starts with ``'`` before such a character gets one more, so that
    :func:`unescape_cell` gives back exactly the original.
    """
    if isinstance(value, str) and _needs_escape(value):
        return "'" + value
    return value


def unescape_cell(value: str) -> str:
    """The original value of a cell :func:`escape_cell` wrote."""
    if value.startswith("'") and _needs_escape(value[1:]):
        return value[1:]
    return value


def review_sample(folder: str | Path, n: int = 200, seed: int = 0) -> pl.DataFrame:
    """``n`` items of a build, spread over config x hops as evenly as the strata allow (seeded)."""
    frames = load_build(Path(folder))
    items = pl.concat([frame.with_columns(config=pl.lit(config)) for config, frame in frames.items()])
    strata: dict[tuple, list[dict]] = defaultdict(list)
    for row in items.iter_rows(named=True):
        strata[(row["config"], row["hops"])].append(row)
    for rows in strata.values():
        rows.sort(key=lambda r: stable_hash(seed, "review", r["id"]))
    chosen: list[dict] = []
    keys = sorted(strata)
    while len(chosen) < n and any(strata[k] for k in keys):  # round robin: small strata are seen too
        for key in keys:
            if strata[key] and len(chosen) < n:
                chosen.append(strata[key].pop(0))
    return pl.DataFrame(chosen).sort("config", "hops", "id")


def multiple_choice_review_rows(
    folder: str | Path, n: int = 200, seed: int = 0
) -> tuple[list[str], list[list]]:
    """Header and rows of a multiple-choice build's review sheet: the stratified sample, lettered."""
    sample = review_sample(folder, n, seed)
    width = max(len(c) for c in sample["choices"].to_list())
    header = ["item_id", "config", "split", "hops", "question"]
    header += [LETTERS[i] for i in range(width)] + ["gold", *REVIEW_COLUMNS]
    rows = []
    for row in sample.iter_rows(named=True):
        choices = list(row["choices"]) + [""] * (width - len(row["choices"]))
        rows.append(
            [row["id"], row["config"], row["split"], row["hops"], row["question"], *choices]
            + [LETTERS[row["answer_index"]], "", "", "", ""]
        )
    return header, rows


def write_review_sheet(folder: str | Path, n: int = 200, seed: int = 0, *, force: bool = False) -> Path:
    """Write ``review/sheet.csv`` and ``review/sheet.html`` into the build ``folder``; return the CSV.

    Multiple-choice builds and the table families that register review rows (relation sets);
    see the module docstring.
    """
    folder = Path(folder)
    family, evaluation = _evaluation_with(
        folder,
        "review_rows",
        "has no review sheet; review-sample takes multiple-choice and relations builds.",
    )
    with SharedReadLock(folder, "review-sample"):
        logical_hash = logical_hash_of(folder)
        header, rows = evaluation.review_rows(folder, n, seed)
        bound = f"{family}:{logical_hash}"
        header, rows = [*header, BUILD_COLUMN], [[*row, bound] for row in rows]
        sample = {
            "family": family,
            "logical_hash": logical_hash,
            "n": n,
            "seed": seed,
            "items": {str(row[0]): str(row[1]) for row in rows},  # item id -> config
        }
        check_unchanged(folder, logical_hash, "review-sample")
        return _write_sheet(folder, header, rows, sample, force)


def _evaluation_with(folder: Path, hook: str, refusal: str) -> tuple[str, Any]:
    """The build's family and its evaluation, refused (``refusal``) when the family lacks ``hook``."""
    family = read_manifest(folder).get("family")
    evaluation = evaluation_for(family)
    if getattr(evaluation, hook) is None:
        raise ArtifactError(f"{folder} is a {family} build, which {refusal}")
    return family, evaluation


def _write_sheet(folder: Path, header: list[str], rows: list[list], sample: dict, force: bool) -> Path:
    with _review_staging(folder, keep=TEMPLATE_FILES, force=force, command="review-sample") as staging:
        _write_csv(staging / "sheet.csv", header, rows)
        (staging / "sheet.html").write_text(_sheet_html(folder.name, header, rows), encoding="utf-8")
        (staging / SAMPLE_FILE).write_text(json.dumps(sample, indent=1, sort_keys=True) + "\n")
    return folder / REVIEW_FOLDER / "sheet.csv"


def _write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows([escape_cell(value) for value in row] for row in rows)


@contextlib.contextmanager
def _review_staging(folder: Path, *, keep: tuple[str, ...], force: bool, command: str) -> Iterator[Path]:
    """A staging folder that replaces ``BUILD/review`` whole, holding the ``keep`` files already there.

    The item sheet and the template sheet share ``review/``: writing one keeps the other.
    """
    with OutputFolder(folder / REVIEW_FOLDER, "review", force=force, command=command) as staging:
        for name in keep:
            if (folder / REVIEW_FOLDER / name).is_file():
                shutil.copyfile(folder / REVIEW_FOLDER / name, staging / name)
        yield staging


def write_template_sheet(
    folder: str | Path, per_template: int = 3, seed: int = 0, *, force: bool = False
) -> Path:
    """Write ``review/templates.csv`` (and ``.html``), every template of a build filled; return the CSV.

    Each template is filled with ``per_template`` of its instances exactly as the evaluation fills
    them (seeded). A sample of items shows a template only when one of its instances is drawn; this
    sheet shows every template, pattern or question form, which is what a reader needs to find a
    template that is not English or does not state its relation. The reviewer marks ``reads_naturally`` and
    ``states_the_relation`` (``y``/``n``) per template. The item sheet in ``review/`` is kept.
    """
    folder = Path(folder)
    family, evaluation = _evaluation_with(
        folder,
        "template_rows",
        "has no templates to list; review-sample --templates takes the table families whose statements "
        "are filled templates (relations, paraphrases, rules).",
    )
    with SharedReadLock(folder, "review-sample --templates"):
        logical_hash = logical_hash_of(folder)
        templates = evaluation.template_rows(folder, per_template, seed)
        width = max((len(fills) for *_, fills in templates), default=0)
        header = ["template_id", "relation", "template", *(f"filled_{i + 1}" for i in range(width))]
        header += [*TEMPLATE_COLUMNS, BUILD_COLUMN]
        bound = f"{family}:{logical_hash}"
        rows = [
            [template_id, group, template, *fills, *[""] * (width - len(fills)), "", "", "", bound]
            for template_id, group, template, fills in templates
        ]
        check_unchanged(folder, logical_hash, "review-sample --templates")
        review = folder / REVIEW_FOLDER
        keep = tuple(
            p.name
            for p in (review.iterdir() if review.is_dir() else ())
            if not p.name.startswith(".") and p.name not in TEMPLATE_FILES
        )
        with _review_staging(folder, keep=keep, force=force, command="review-sample --templates") as staging:
            _write_csv(staging / TEMPLATE_SHEET, header, rows)
            (staging / "templates.html").write_text(
                _sheet_html(folder.name, header, rows, TEMPLATE_INSTRUCTIONS), encoding="utf-8"
            )
    return folder / REVIEW_FOLDER / TEMPLATE_SHEET


def read_review_sheet(folder: str | Path, sheet: str | Path, *, force: bool = False) -> dict[str, Any]:
    """Validated accuracy of a filled sheet, per config and overall; kept in ``review/result.json``.

    The sheet must be this build's (its ``build`` column: the family and logical hash recorded in
    ``review/sample.json``), carry only the sampled item ids, each once, and only ``y``/``n`` (or
    nothing) in its verdict columns; anything else is one :class:`ArtifactError` and nothing is
    written. The build's shared lock is held throughout, and nothing is written if the build
    changed meanwhile.
    """
    folder, sheet = Path(folder), Path(sheet)
    with SharedReadLock(folder, "review-sample --read"):
        logical_hash = logical_hash_of(folder)
        records = _sheet_records(sheet)
        sample = _checked_sample(folder, logical_hash)
        by_config, natural, seconds = _verdicts(folder, sheet, records, sample)
        result: dict[str, Any] = {
            "sheet": str(sheet),
            "build_logical_hash": logical_hash,
            "configs": {},
            "overall": {
                **_accuracy([v for vs in by_config.values() for v in vs]),
                "second_right_answer": sum(v for vs in seconds.values() for v in vs),
            },
        }
        for config, verdicts in sorted(by_config.items()):
            result["configs"][config] = {**_accuracy(verdicts), "second_right_answer": sum(seconds[config])}
            if natural.get(config):
                result["configs"][config]["reads_naturally"] = _share(natural[config])
        if natural:
            result["overall"]["reads_naturally"] = _share([v for vs in natural.values() for v in vs])
        sample_bytes = (folder / REVIEW_FOLDER / SAMPLE_FILE).read_bytes()
        check_unchanged(folder, logical_hash, "review-sample --read")
        kept = (*TEMPLATE_FILES, "sheet.html")
        with _review_staging(folder, keep=kept, force=force, command="review-sample --read") as staging:
            (staging / "sheet.csv").write_bytes(sheet.read_bytes())
            (staging / SAMPLE_FILE).write_bytes(sample_bytes)
            (staging / "result.json").write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
        set_card_section(folder, "review", "Human review", review_markdown(result))
    return result


def _sheet_records(sheet: Path) -> list[dict[str, str]]:
    """The sheet's rows as dicts, cells un-escaped; refused unless it has the review columns."""
    try:
        with open(sheet, newline="", encoding="utf-8") as fh:
            records = [
                {key: unescape_cell(value or "") for key, value in record.items() if key is not None}
                for record in csv.DictReader(fh)
            ]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ArtifactError(f"cannot read the review sheet {sheet}: {exc}") from None
    required = ("item_id", "config", "gold_is_correct", "other_correct", BUILD_COLUMN)
    missing = [c for c in required if records and c not in records[0]]
    if not records or missing:
        raise ArtifactError(
            f"{sheet} is not a filled review sheet (missing columns {missing or 'and rows'}); "
            "write one with `probesmith review-sample BUILD` and fill its gold_is_correct column."
        )
    return records


def _checked_sample(folder: Path, logical_hash: str | None) -> dict[str, Any]:
    """The build's ``review/sample.json``, refused when missing or written for another build."""
    path = folder / REVIEW_FOLDER / SAMPLE_FILE
    try:
        sample = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise ArtifactError(
            f"{folder} has no review sample ({path} is missing or unreadable), so no sheet can be "
            f"checked against it; write a sheet with `probesmith review-sample {folder}` and fill that."
        ) from None
    if not isinstance(sample, dict) or sample.get("logical_hash") != logical_hash:
        raise ArtifactError(
            f"{path} was written for another version of {folder} (the build was rebuilt since); "
            f"write a new sheet with `probesmith review-sample {folder} --force` and fill that."
        )
    return sample


def _verdicts(
    folder: Path, sheet: Path, records: list[dict[str, str]], sample: dict[str, Any]
) -> tuple[dict[str, list[bool]], dict[str, list[bool]], dict[str, list[bool]]]:
    """Per config: each reviewed item's verdict, whether it has a second right answer, reads-naturally.

    The verdict: the gold is right and there is no second right answer.
    """
    bound = f"{sample['family']}:{sample['logical_hash']}"
    items: dict[str, str] = sample["items"]
    seen: dict[str, int] = {}
    by_config: dict[str, list[bool]] = defaultdict(list)
    natural: dict[str, list[bool]] = defaultdict(list)
    seconds: dict[str, list[bool]] = defaultdict(list)
    for line, record in enumerate(records, 2):
        where = f"{sheet}, line {line}"
        theirs = record[BUILD_COLUMN].strip()
        if theirs != bound:
            family = theirs.split(":", 1)[0]
            what = (
                f"a {family} build's sheet, and {folder} is a {sample['family']} build"
                if family != sample["family"]
                else f"the sheet of another {family} build ({theirs.split(':', 1)[-1][:12]}...)"
            )
            raise ArtifactError(
                f"{where}: this is {what}; nothing was written. Read each sheet into the build it was "
                f"written for, or write a new one with `probesmith review-sample {folder}`."
            )
        item_id = record["item_id"].strip()
        if item_id not in items:
            raise ArtifactError(
                f"{where}: item {item_id!r} is not in {folder}'s review sample; nothing was written. "
                "Keep the item_id column as review-sample wrote it."
            )
        if item_id in seen:
            raise ArtifactError(
                f"{where}: item {item_id!r} is there twice (first on line {seen[item_id]}); nothing was "
                "written. Keep one row per item."
            )
        seen[item_id] = line
        if record["config"].strip() != items[item_id]:
            raise ArtifactError(
                f"{where}: item {item_id!r} is of config {items[item_id]!r}, not {record['config']!r}; "
                "nothing was written. Keep the config column as review-sample wrote it."
            )
        verdict = _yes_no(record["gold_is_correct"], "gold_is_correct", where)
        reads = _yes_no(record.get("reads_naturally") or "", "reads_naturally", where)
        second = _second_answer(record, where)
        if verdict is None:
            continue
        by_config[items[item_id]].append(verdict and not second)
        seconds[items[item_id]].append(second)
        if reads is not None:
            natural[items[item_id]].append(reads)
    if not by_config:
        raise ArtifactError(f"{sheet} has no reviewed rows: fill gold_is_correct (y or n) first.")
    return by_config, natural, seconds


def _yes_no(cell: str, column: str, where: str) -> bool | None:
    """``y`` -> True, ``n`` -> False, empty -> None (case and spaces ignored); anything else refused."""
    value = cell.strip().lower()
    if not value:
        return None
    if value not in ("y", "n"):
        raise ArtifactError(f"{where}: {column} must be y, n or empty, not {cell!r}; nothing was written.")
    return value == "y"


def _second_answer(record: dict[str, str], where: str) -> bool:
    """Whether ``other_correct`` says another choice is also right: ``y``, or the choices it names.

    ``n`` and empty say no. Multiple-choice sheets may name letters of the row's choices (checked);
    a relations sheet may name any right object, in the answer space or not (a gold the source
    misses), so any other text there is a second right answer.
    """
    cell = record["other_correct"].strip()
    if cell.lower() in ("", "n"):
        return False
    if cell.lower() == "y":
        return True
    if "answer_space" in record:  # a relations sheet: the reviewer may name a gold the space lacks
        return True
    letters = {c for c in LETTERS if (record.get(c) or "").strip()}
    named = [c for c in cell.replace(",", " ").split() if c]
    if not named or any(c.upper() not in letters for c in named):
        raise ArtifactError(
            f"{where}: other_correct must be y, n, empty, or the letters of other choices on the row, "
            f"not {cell!r}; nothing was written."
        )
    return True


def review_markdown(result: dict[str, Any]) -> str:
    """The card's *Human review* section: validated accuracy per config with its 95% interval."""
    rows = [*result["configs"].items(), ("overall", result["overall"])]
    lines = [
        "A stratified sample (config x hops) read item by item (`review/sheet.csv`; "
        "`probesmith review-sample BUILD --read SHEET`). Validated accuracy: the share of reviewed "
        "items whose gold is right and that have no second right answer. Second right answers: "
        "reviewed items where the reviewer found another choice also right (a distractor a reader "
        "could defend). Measured on this sample, not guaranteed.",
        "",
        "| config | reviewed | validated accuracy | 95% interval | second right answer | reads naturally |",
        "|---|---:|---:|---|---:|---:|",
    ]
    for config, entry in rows:
        low, high = entry["ci95"]
        natural = entry.get("reads_naturally")
        second = entry.get("second_right_answer")
        second_text = f"{second}/{entry['reviewed']}" if second is not None else "not rated"
        lines.append(
            f"| `{config}` | {entry['reviewed']} | {entry['validated_accuracy']:.3f} | "
            f"[{low:.3f}, {high:.3f}] | {second_text} | "
            f"{f'{natural:.3f}' if natural is not None else 'not rated'} |"
        )
    return "\n".join(lines)


def _share(verdicts: list[bool]) -> float:
    return round(sum(verdicts) / len(verdicts), 4)


def _accuracy(verdicts: list[bool]) -> dict[str, Any]:
    accuracy = sum(verdicts) / len(verdicts)
    low, high = wilson_interval(accuracy, len(verdicts))
    return {
        "reviewed": len(verdicts),
        "validated_accuracy": round(accuracy, 4),
        "ci95": [round(low, 4), round(high, 4)],
    }


def _sheet_html(name: str, header: list[str], rows: list[list], instructions: str = "") -> str:
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "\n".join(
        "<tr>" + "".join(f"<td>{html.escape(str(value))}</td>" for value in row) + "</tr>" for row in rows
    )
    return (
        f"<!doctype html><meta charset='utf-8'><title>Review sheet: {html.escape(name)}</title>"
        "<style>body{font-family:sans-serif}td,th{border:1px solid #ccc;padding:4px;vertical-align:top}"
        "table{border-collapse:collapse}</style>"
        f"<h1>Review sheet: {html.escape(name)}</h1><p>{instructions or ITEM_INSTRUCTIONS}</p>"
        f"<table><tr>{cells}</tr>\n{body}</table>\n"
    )
