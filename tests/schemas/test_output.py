"""The atomic output primitive: what it refuses, what it replaces, and how it fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from probesmith.errors import ArtifactError, OutputError
from probesmith.schemas.output import MARKER, OutputFile, OutputFolder, check_destination, owner_of


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes (hidden ones included)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def write_folder(out: Path, kind: str = "build:test", text: str = "v1", **options) -> None:
    with OutputFolder(out, kind, **options) as staging:
        (staging / "data.txt").write_text(text)


def test_new_folder_is_written_whole_with_its_marker(tmp_path):
    write_folder(tmp_path / "out")
    assert (tmp_path / "out" / "data.txt").read_text() == "v1"
    marker = json.loads((tmp_path / "out" / MARKER).read_text())
    assert marker["kind"] == "build:test" and marker["entries"] == ["data.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no lock, no staging left


def test_our_folder_of_the_same_kind_is_replaced(tmp_path):
    write_folder(tmp_path / "out", text="v1")
    write_folder(tmp_path / "out", text="v2")
    assert (tmp_path / "out" / "data.txt").read_text() == "v2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_an_empty_folder_may_be_filled(tmp_path):
    (tmp_path / "out").mkdir()
    write_folder(tmp_path / "out")
    assert (tmp_path / "out" / "data.txt").is_file()


@pytest.mark.parametrize(
    "prepare, message",
    [
        (
            lambda out: (out.mkdir(), (out / "thesis.txt").write_text("my notes")),
            "is not a probesmith output",
        ),
        (lambda out: out.write_text("a file"), "is a file, but a folder"),
    ],
    ids=["user folder", "user file"],
)
def test_what_is_not_ours_is_refused_before_any_work(tmp_path, prepare, message):
    out = tmp_path / "out"
    prepare(out)
    before = tree(tmp_path)
    worked = []
    with pytest.raises(OutputError, match=message), OutputFolder(out, "build:test", force=True):
        worked.append(True)
    assert not worked and tree(tmp_path) == before


def test_the_parent_of_builds_is_never_replaced(tmp_path):
    artifacts = tmp_path / "artifacts"
    write_folder(artifacts / "wordnetqa", "build:wordnet")
    (artifacts / "thesis.txt").write_text("my notes")
    before = tree(tmp_path)
    for kind in ("export:bear", "build:wordnet"):
        with pytest.raises(OutputError, match="not a probesmith output"):
            check_destination(artifacts, kind, folder=True, force=True)
    assert tree(tmp_path) == before


def test_a_file_the_user_added_to_our_folder_keeps_it(tmp_path):
    write_folder(tmp_path / "out")
    (tmp_path / "out" / "notes.md").write_text("mine")
    with pytest.raises(OutputError, match="also holds notes.md"):
        write_folder(tmp_path / "out", force=True)
    assert (tmp_path / "out" / "notes.md").read_text() == "mine"


def test_another_kind_needs_force_and_another_identity_too(tmp_path):
    write_folder(tmp_path / "out", "build:wordnet")
    with pytest.raises(OutputError, match=r"another kind \(build:wordnet, not build:dictionary\)"):
        write_folder(tmp_path / "out", "build:dictionary")
    write_folder(tmp_path / "out", "build:dictionary", force=True)
    assert owner_of(tmp_path / "out")["kind"] == "build:dictionary"

    write_folder(tmp_path / "runs", "eval", identity={"model": "m1/final", "probes": "h"})
    with pytest.raises(OutputError, match="m1/final"):
        write_folder(tmp_path / "runs", "eval", identity={"model": "m2/final", "probes": "h"})
    write_folder(tmp_path / "runs", "eval", identity={"model": "m1/final", "probes": "h"}, text="again")
    assert (tmp_path / "runs" / "data.txt").read_text() == "again"


def test_files_are_ours_only_while_unchanged(tmp_path):
    out = tmp_path / "export.jsonl"
    with OutputFile(out, "export:depedit") as tmp:
        tmp.write_text("one\n")
    with OutputFile(out, "export:depedit") as tmp:
        tmp.write_text("two\n")
    assert out.read_text() == "two\n"
    out.write_text("edited by hand\n")
    with pytest.raises(OutputError, match="edited since"), OutputFile(out, "export:depedit") as tmp:
        tmp.write_text("three\n")
    assert out.read_text() == "edited by hand\n"
    (tmp_path / "mine.jsonl").write_text("user data\n")
    with pytest.raises(OutputError), OutputFile(tmp_path / "mine.jsonl", "export:depedit", force=True):
        pass
    assert (tmp_path / "mine.jsonl").read_text() == "user data\n"


def test_an_exception_leaves_the_previous_output_and_no_leftovers(tmp_path):
    write_folder(tmp_path / "out", text="v1")
    before = tree(tmp_path)
    with pytest.raises(KeyboardInterrupt), OutputFolder(tmp_path / "out", "build:test") as staging:
        (staging / "data.txt").write_text("half")
        raise KeyboardInterrupt
    assert tree(tmp_path) == before and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_second_writer_is_refused_while_the_first_holds_the_lock(tmp_path):
    out = tmp_path / "out"
    with OutputFolder(out, "build:test") as staging:
        (staging / "data.txt").write_text("first")
        with pytest.raises(ArtifactError, match=rf"another probesmith process \(pid {os.getpid()}\)"):
            write_folder(out, text="second")
    assert (out / "data.txt").read_text() == "first"


def test_leftovers_of_a_crash_are_recovered(tmp_path):
    out = tmp_path / "out"
    write_folder(out, text="v1")
    # the state a crash between the two renames of a non-exchanging file system leaves behind
    os.rename(out, tmp_path / ".out.old-0123456789ab")
    (tmp_path / ".out.tmp-0123456789ab").mkdir()
    assert owner_of(out) is None
    with pytest.raises(RuntimeError), OutputFolder(out, "build:test"):
        assert (out / "data.txt").read_text() == "v1"  # put back before any work
        raise RuntimeError("stop")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_write_failure_is_one_clear_error_and_the_previous_output_stays(tmp_path):
    """A real write failure (file size limit: EFBIG, as a full disk gives ENOSPC) in a child process."""
    out = tmp_path / "out"
    write_folder(out, text="v1")
    before = tree(tmp_path)
    script = textwrap.dedent(
        f"""
        import resource, signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        from probesmith.errors import ArtifactError
        from probesmith.schemas.output import OutputFolder
        try:
            with OutputFolder({str(out)!r}, "build:test") as staging:
                (staging / "data.txt").write_bytes(b"x" * 100_000)
        except ArtifactError as exc:
            print(exc)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert f"could not write {out}" in done.stdout and "Nothing there was changed" in done.stdout, done
    assert tree(tmp_path) == before


@pytest.fixture
def small_disk(tmp_path):
    """A 1 MiB tmpfs (root and mount needed; skipped where the sandbox forbids mounting)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True
    ).returncode:
        pytest.skip("cannot mount a tmpfs here (needs root and mount permission)")
    yield mount
    subprocess.run(["umount", str(mount)], check=False)


def test_full_disk_and_read_only_disk(small_disk):
    out = small_disk / "out"
    write_folder(out, text="v1")
    before = tree(small_disk)
    with pytest.raises(ArtifactError, match="the disk is full"), OutputFolder(out, "build:test") as staging:
        (staging / "data.txt").write_bytes(b"x" * 2_000_000)
    assert tree(small_disk) == before
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    with pytest.raises(ArtifactError, match="read-only"):
        write_folder(out, text="v2")
    assert tree(small_disk) == before


def test_the_command_line_says_read_only_in_one_line(small_disk, tmp_path, capsys):
    from probesmith.cli import main

    dump = tmp_path / "d.nt"
    dump.write_text("<http://x/1> <http://p> <http://y/1> .\n")
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    assert main(["-q", "wikidata", "load", str(dump), "--store", str(small_disk / "store")]) == 1
    err = capsys.readouterr().err
    assert err.count("probesmith: error:") == 1 and "read-only" in err and "Traceback" not in err


def test_nothing_but_the_primitive_deletes_or_renames():
    """A grep: no ``rmtree``/``unlink``/``os.remove``/``rename`` of a path outside schemas/output.py."""
    import re

    root = Path(__file__).resolve().parents[2]
    pattern = re.compile(r"rmtree\(|\.unlink\(|os\.remove\(|os\.rename\(|os\.replace\(|\.rename\((?!\{)")
    offenders = [
        f"{path.relative_to(root)}:{number}: {line.strip()}"
        for folder in ("builders", "eval", "schemas", "probes", "probesmith")
        for path in sorted((root / folder).rglob("*.py"))
        if path.name != "output.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []
