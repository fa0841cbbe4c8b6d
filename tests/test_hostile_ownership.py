"""Issue 27, output ownership: a folder is ours by record, --force never replaces an input, and a
bad --out is refused before any work (items 1, 7, 11 and the last case of 13).

Fast checks of the primitive first, then the issue's reproductions through the command line
(real builds, real model, real files), each leaving every file that existed before byte-identical.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from probesmith.cli import main
from probesmith.errors import ArtifactError, OutputError
from probesmith.schemas.output import (
    MARKER,
    OutputFolder,
    check_destination,
    check_not_an_input,
    foreign_entries,
    owner_of,
)

from .conftest import FIXTURES
from .test_bad_inputs import Scratch, check_row, tree

WORDNET_SPEC = FIXTURES / "wordnet_small.yaml"


def write_folder(out: Path, kind: str = "build:test", **options) -> None:
    with OutputFolder(out, kind, **options) as staging:
        (staging / "data.txt").write_text("v1")
        (staging / "tables").mkdir()
        (staging / "tables" / "part-0.parquet").write_text("rows")


# ---- ownership by record (item 1) ---------------------------------------------------------------

LOOKALIKES = [
    ("eval", "metrics.json", {"run": "x"}),
    ("build:relations", "manifest.json", {"family": "relations"}),
    ("store", "probesmith-store.json", {"dump_sha256": "0" * 64}),
    ("audit", "audit.json", {"source_logical_hash": "h"}),
]


@pytest.mark.parametrize("kind, name, data", LOOKALIKES, ids=[row[1] for row in LOOKALIKES])
def test_a_folder_that_only_looks_like_an_output_is_not_ours(tmp_path, kind, name, data):
    user = tmp_path / "u"
    user.mkdir()
    (user / name).write_text(json.dumps(data))
    (user / "NOTES.md").write_text("keep")
    before = tree(tmp_path)
    assert owner_of(user) is None
    for force in (False, True):
        with pytest.raises(
            OutputError, match=r"not a probesmith output.*NOTES\.md.*Pass a new or empty folder"
        ):
            check_destination(user, kind, folder=True, force=force)
        with pytest.raises(OutputError), OutputFolder(user, kind, force=force):
            pytest.fail("the block must not run")
    assert tree(tmp_path) == before


def test_a_marker_without_the_list_of_what_was_written_is_not_ours(tmp_path):
    user = tmp_path / "u"
    user.mkdir()
    (user / MARKER).write_text(json.dumps({"kind": "eval"}))
    (user / "NOTES.md").write_text("keep")
    assert owner_of(user) is None
    with pytest.raises(OutputError, match="not a probesmith output"):
        check_destination(user, "eval", folder=True, force=True)


def test_the_marker_lists_every_file_and_a_file_added_anywhere_is_foreign(tmp_path):
    out = tmp_path / "out"
    write_folder(out)
    marker = json.loads((out / MARKER).read_text())
    assert marker["entries"] == ["data.txt", "tables"]
    assert marker["files"] == ["data.txt", "tables/part-0.parquet"]
    write_folder(out)  # ours, nothing added: replaced
    (out / "tables" / "NOTES.md").write_text("keep")
    before = tree(tmp_path)
    assert foreign_entries(out) == ["tables/NOTES.md"]
    for force in (False, True):
        with pytest.raises(OutputError, match=r"also holds tables/NOTES\.md.*--force does not change"):
            write_folder(out, force=force)
    assert tree(tmp_path) == before


def test_a_nested_output_counts_only_when_it_is_ours_and_clean(tmp_path):
    build = tmp_path / "build"
    write_folder(build, "build:wordnet")
    write_folder(build / "audit", "audit")
    (build / ".review.lock").write_text("123")  # a review-sample writer's lock beside its folder
    assert foreign_entries(build) == []
    write_folder(build, "build:wordnet")  # the build is rebuilt; its audit went with it
    write_folder(build / "audit", "audit")
    (build / "audit" / "NOTES.md").write_text("keep")
    assert foreign_entries(build) == ["audit/NOTES.md"]
    (build / "audit" / "NOTES.md").unlink()
    (build / "review").mkdir()
    (build / "review" / "sheet.csv").write_text("my sheet, not probesmith's")
    before = tree(tmp_path)
    with pytest.raises(OutputError, match="also holds review"):
        write_folder(build, "build:wordnet", force=True)
    assert tree(tmp_path) == before


# ---- an input is never an output (item 7, and 13's eval --out B/runs) --------------------------


def test_an_output_that_is_holds_or_lies_in_an_input_is_refused(tmp_path):
    build = tmp_path / "artifacts" / "b"
    write_folder(build, "build:wordnet")
    link = tmp_path / "link"
    link.symlink_to(build)
    for out, source, how in [
        (build, build, "is the input FOLDER"),
        (link, build, "is the input FOLDER"),
        (build, build / "tables", "holds the input FOLDER"),
        (build / "runs", build, "lies inside the input FOLDER"),
        (build / "audit", build, "lies inside the input FOLDER"),
    ]:
        with pytest.raises(OutputError, match=how) as caught:
            check_not_an_input(out, {"FOLDER": source})
        assert "--force" not in str(caught.value) and "neither is, holds nor lies inside" in str(caught.value)
    check_not_an_input(build / "audit", {"PATH": build}, nested="audit")  # audit's own place
    check_not_an_input(tmp_path / "elsewhere", {"FOLDER": build, "--model": "gpt2", "--spec": None})
    # a folder that is not ours at all is refused by check_destination, naming what it holds
    check_not_an_input(tmp_path / "artifacts", {"FOLDER": build})
    with pytest.raises(OutputError, match=r"not a probesmith output .*\(b\)"):
        check_destination(tmp_path / "artifacts", "export:bear", folder=True, force=True)


# ---- refused before any work (item 11) ---------------------------------------------------------


@pytest.fixture
def read_only_place(tmp_path):
    """A folder nobody may write in: chmod 555, or (as root, where chmod does not bind) a ro tmpfs."""
    place = tmp_path / "ro"
    place.mkdir()
    place.chmod(0o555)
    if not os.access(place, os.W_OK):
        yield place
        place.chmod(0o755)
        return
    place.chmod(0o755)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(place)], capture_output=True
    )
    if mounted.returncode:
        pytest.skip("running as root and cannot mount a read-only tmpfs here")
    yield place
    subprocess.run(["umount", str(place)], check=False)


def test_a_read_only_place_is_refused_by_the_check_itself(read_only_place):
    for out in (read_only_place / "out", read_only_place / "new" / "deeper"):
        with pytest.raises(
            ArtifactError, match=r"is not writable \((the file system is read-only|permission denied)\)"
        ):
            check_destination(out, "eval", folder=True)


def _no_work(what: str):
    def called(*args, **kwargs):
        pytest.fail(f"{what} ran although --out was refusable")

    return called


@pytest.mark.integration
@pytest.mark.parametrize("place", ["read-only folder", "parent is a file"])
def test_eval_and_audit_refuse_before_scoring(
    place, tmp_path, request, capsys, monkeypatch, small_wordnet_build, tiny_gpt2_dir
):
    monkeypatch.setattr("probesmith.eval.models.load_model", _no_work("the model load"))
    monkeypatch.setattr("probesmith.eval.run.evaluate", _no_work("scoring"))
    monkeypatch.setattr("probesmith.eval.audit.audit", _no_work("the audit"))
    if place == "read-only folder":
        parent = request.getfixturevalue("read_only_place")
        code, words = 1, "is not writable"
    else:
        parent = tmp_path / "afile"
        parent.write_text("a file, not a folder")
        code, words = 2, "is a file, not a folder"
    build = str(small_wordnet_build.out)
    for argv in (
        ["eval", "--model", str(tiny_gpt2_dir), "--probes", build, "--out", str(parent / "r")],
        ["audit", build, "--out", str(parent / "a")],
    ):
        check_row(code, words, lambda scratch, argv=argv: argv, tmp_path, request, capsys, monkeypatch)


# ---- the reproductions through the command line ----------------------------------------


def lookalike(scratch: Scratch, name: str, data: dict) -> Path:
    folder = scratch.root / "u"
    folder.mkdir()
    (folder / name).write_text(json.dumps(data))
    (folder / "NOTES.md").write_text("keep")
    return folder


def our_export(scratch: Scratch) -> Path:
    """A BEAR folder as ``export bear`` leaves it: ours, of kind ``export:bear``."""
    folder = scratch.root / "bear"
    with OutputFolder(folder, "export:bear") as staging:
        (staging / "metadata_relations.json").write_text("{}")
    return folder


ROWS = [
    (
        "eval into a folder with metrics.json {run} and NOTES.md",
        2,
        "NOTES.md",
        lambda s: [
            "eval",
            "--model",
            str(s.model()),
            "--probes",
            str(s.build("small_wordnet_build")),
            "--out",
            str(lookalike(s, "metrics.json", {"run": "x"})),
            "--force",
        ],
    ),
    (
        "build into a folder with manifest.json {family} and NOTES.md",
        2,
        "NOTES.md",
        lambda s: [
            "build",
            "wordnet",
            "--spec",
            str(WORDNET_SPEC),
            "--out",
            str(lookalike(s, "manifest.json", {"family": "wordnet"})),
        ],
    ),
    (
        "build relations into a folder with manifest.json {family: relations}",
        2,
        "NOTES.md",
        lambda s: [
            "build",
            "relations",
            "--spec",
            str(FIXTURES / "relations_small.yaml"),
            "--out",
            str(lookalike(s, "manifest.json", {"family": "relations"})),
            "--force",
        ],
    ),
    (
        "export bear B --out B --force",
        2,
        "is the input FOLDER",
        lambda s: ["export", "bear", str(b := s.build("small_wordnet_build")), "--out", str(b), "--force"],
    ),
    (
        "audit B --out B --force",
        2,
        "is the input PATH",
        lambda s: ["audit", str(b := s.build("small_wordnet_build")), "--out", str(b), "--force"],
    ),
    (
        "export lm-eval B/hypernymy --out B --force (the output holds the input)",
        2,
        "holds the input FOLDER",
        lambda s: [
            "export",
            "lm-eval",
            str((b := s.build("small_wordnet_build")) / "hypernymy"),
            "--out",
            str(b),
            "--force",
        ],
    ),
    (
        "export lm-eval B --out (the user's folder holding B) --force",
        2,
        "is not a probesmith output",
        lambda s: [
            "export",
            "lm-eval",
            str(b := s.build("small_wordnet_build")),
            "--out",
            str(b.parent),
            "--force",
        ],
    ),
    (
        "eval --probes B --out B --force",
        2,
        "is the input --probes",
        lambda s: [
            "eval",
            "--model",
            str(s.model()),
            "--probes",
            str(b := s.build("small_wordnet_build")),
            "--out",
            str(b),
            "--force",
        ],
    ),
    (
        "eval --out B/runs inside the build",
        2,
        "lies inside the input --probes",
        lambda s: [
            "eval",
            "--model",
            str(s.model()),
            "--probes",
            str(b := s.build("small_wordnet_build")),
            "--out",
            str(b / "runs"),
        ],
    ),
    (
        "eval --out the model folder --force",
        2,
        "is not a probesmith output",
        lambda s: [
            "eval",
            "--model",
            str(m := s.model()),
            "--probes",
            str(s.build("small_wordnet_build")),
            "--out",
            str(m),
            "--force",
        ],
    ),
    (
        "import bear E --out E --force",
        2,
        "is the input FOLDER",
        lambda s: ["import", "bear", str(e := our_export(s)), "--out", str(e), "--force"],
    ),
    (
        "wikidata load DUMP --store (the folder holding DUMP) --force",
        2,
        "is not a probesmith output",
        lambda s: [
            "wikidata",
            "load",
            str(s.file("st/d.nt", "<http://x/1> <http://p> <http://y/1> .\n")),
            "--store",
            str(s.root / "st"),
            "--force",
        ],
    ),
]


@pytest.mark.integration
@pytest.mark.parametrize("code, words, prepare", [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_reproductions(code, words, prepare, tmp_path, request, capsys, monkeypatch):
    check_row(code, words, prepare, tmp_path, request, capsys, monkeypatch)


@pytest.mark.integration
@pytest.mark.parametrize(
    "argv",
    [
        lambda b: ["export", "bear", str(b), "--out", str(b), "--force"],
        lambda b: ["audit", str(b), "--out", str(b), "--force"],
    ],
    ids=["export bear", "audit"],
)
def test_the_refusal_of_an_input_never_suggests_force(argv, tmp_path, capsys, small_wordnet_build):
    build = tmp_path / "b"
    subprocess.run(["cp", "-a", str(small_wordnet_build.out), str(build)], check=True)
    capsys.readouterr()
    assert main(["-q", *argv(build)]) == 2
    err = capsys.readouterr().err
    assert "nothing was written" in err and "--force" not in err.split("error:", 1)[1], err
    assert main(["-q", "verify", str(build)]) == 0  # the build is whole


@pytest.mark.integration
def test_our_build_is_still_replaced_and_audited_in_place(tmp_path, capsys):
    """The rules refuse only what is not ours: a rebuild over our build, and BUILD/audit, still work."""
    out = tmp_path / "b"
    assert main(["-q", "build", "wordnet", "--spec", str(WORDNET_SPEC), "--out", str(out)]) == 0
    assert main(["-q", "audit", str(out), "--out", str(out / "audit")]) == 0
    assert (out / "audit" / "audit.json").is_file()
    assert main(["-q", "build", "wordnet", "--spec", str(WORDNET_SPEC), "--out", str(out)]) == 0
    assert main(["-q", "verify", str(out)]) == 0
