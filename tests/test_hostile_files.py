"""Issue 27: no write outside --out, owned processes and spill folders, internal errors as messages.

Rows go through ``check_row`` of the bad-input matrix (one clear line, every file unchanged);
the rest run the real parts: a real oxigraph server killed with its parent, a real slice.
"""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import torch

from probesmith.builders.families.bear import write_bear_files
from probesmith.builders.registry import resolve_spec
from probesmith.builders.sources import _load_once
from probesmith.builders.sources.wikidata import STORE_INFO, load_store
from probesmith.builders.sources.wikidata_dump import SPILL_PREFIX, slice_dump
from probesmith.errors import OutputError, SourceError
from probesmith.schemas.output import path_under

from .conftest import SHARED_DATA
from .test_bad_inputs import GOOD_AI2, Scratch, check_row, tree

pytestmark = pytest.mark.integration
SLICE = SHARED_DATA / "wikidata_slice" / "wikidata_slice.nt.gz"
needs_slice = pytest.mark.skipif(not SLICE.is_file(), reason="shared Wikidata slice not present")
REPOSITORY = Path(__file__).resolve().parents[1]
BEAR_META = {"templates": ["[X] was born in [Y]."], "answer_space_ids": ["Q1"], "answer_space_labels": ["a"]}


def _bear_with_escaping_key(s: Scratch) -> list[str]:
    """The issue's reproduction: key ``../escape`` with ``escape.jsonl`` beside the BEAR folder."""
    instance = {"sub_id": "Q2", "sub_label": "b", "obj_id": "Q1", "obj_label": "a", "answer_idx": 0}
    s.file("escape.jsonl", json.dumps(instance) + "\n")
    s.file("bear/P19.jsonl", json.dumps(instance) + "\n")
    s.file("bear/metadata_relations.json", json.dumps({"P19": BEAR_META, "../escape": BEAR_META}))
    return ["import", "bear", str(s.root / "bear"), "--out", str(s.root / "imported")]


def _long_ai2_items(s: Scratch) -> list[str]:
    """Ten items (some land in the test split) each longer than the tiny GPT-2's 1024 positions."""
    items = []
    for i in range(10):
        item = json.loads(GOOD_AI2)
        item["id"], item["question"]["stem"] = f"long-{i}", f"q{i} " + "word " * 1100
        items.append(json.dumps(item))
    return ["eval", "--model", str(s.model()), "--probes", str(s.ai2(*items)), "--out", str(s.root / "run")]


class _RunsCode:
    def __reduce__(self):
        return (print, ("unpickled",))


def _pickle_checkpoint(s: Scratch) -> list[str]:
    from safetensors.torch import load_file

    folder = s.root / "pickled-model"
    shutil.copytree(s.model(), folder)
    weights = load_file(folder / "model.safetensors")
    (folder / "model.safetensors").unlink()
    torch.save({**weights, "extra": _RunsCode()}, folder / "pytorch_model.bin")
    return ["eval", "--model", str(folder), "--probes", str(s.ai2(GOOD_AI2)), "--out", str(s.root / "run")]


def _dump_of_control_bytes(s: Scratch) -> list[str]:
    """A batch holding every control byte cannot be split into lines: a clear error, not ComputeError."""
    line = "<http://www.wikidata.org/entity/Q1> <http://p> " + "".join(map(chr, range(1, 32))) + " .\n"
    return ["wikidata", "slice", str(s.file("d.nt", line)), "--out", str(s.root / "cut.nt.gz")]


# fmt: off
ROWS = [
    ("import bear: a relation key escaping the folder", 1, "'../escape' is not a Wikidata property id", _bear_with_escaping_key),
    ("eval: an AI2 item longer than the model's context", 1, "more than the model's context of 1024 tokens", _long_ai2_items),
    ("eval: a pickle checkpoint", 1, "holds a pickle checkpoint", _pickle_checkpoint),
    ("wikidata slice: a batch of every control byte", 1, "is not N-Triples", _dump_of_control_bytes),
]
# fmt: on


@pytest.mark.parametrize("code, words, prepare", [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_hostile_file_gets_one_clear_line_and_changes_nothing(
    code, words, prepare, tmp_path, request, capsys, monkeypatch
):
    check_row(code, words, prepare, tmp_path, request, capsys, monkeypatch)


def test_the_long_item_is_named_by_its_id(tmp_path, request, capsys, monkeypatch):
    check_row(1, "item 'long-", _long_ai2_items, tmp_path, request, capsys, monkeypatch)


# ---- no write outside --out


@pytest.mark.parametrize("name", ["../escape.jsonl", "/tmp/x.jsonl", "a/../../b", "", "."])
def test_path_under_refuses_names_that_leave_the_folder(tmp_path, name):
    with pytest.raises(OutputError, match="nothing is written outside"):
        path_under(tmp_path / "out", name)


def test_path_under_refuses_a_link_leading_outside(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "P1.jsonl").symlink_to(tmp_path / "elsewhere.jsonl")
    with pytest.raises(OutputError, match="outside"):
        path_under(tmp_path / "out", "P1.jsonl")
    assert path_under(tmp_path / "out", "P2.jsonl") == tmp_path / "out" / "P2.jsonl"


def test_a_bear_export_never_writes_outside_its_folder(tmp_path):
    """Relations named from data (an imported build's relation_id) are property ids or refused."""
    out = tmp_path / "d" / "x"
    out.mkdir(parents=True)
    (tmp_path / "d" / "escape.jsonl").write_text("keep\n")
    before = tree(tmp_path)
    relations = {"P19": {**BEAR_META, "instances": []}, "../escape": {**BEAR_META, "instances": []}}
    with pytest.raises(SourceError, match="'../escape' is not a Wikidata property id"):
        write_bear_files(out, relations)
    assert {k: v for k, v in tree(tmp_path).items() if not k.startswith("d/x/")} == before


# ---- owned processes and spill folders


def _tiny_dump(folder: Path, lines: int = 2000) -> Path:
    with gzip.open(SLICE, "rt", encoding="utf-8") as fh:
        text = "".join(next(fh) for _ in range(lines))
    path = folder / "tiny.nt"
    path.write_text(text)
    return path


@needs_slice
@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux's")
def test_the_oxigraph_server_dies_with_its_parent(tmp_path):
    store = tmp_path / "store"
    load_store(_tiny_dump(tmp_path), store, progress=False)
    script = textwrap.dedent(
        f"""
        import sys, time
        from probesmith.builders.sources.wikidata import OxigraphServer
        server = OxigraphServer({str(store)!r}).__enter__()
        print(server.process.pid, flush=True)
        time.sleep(600)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    server_pid = int(parent.stdout.readline())
    os.kill(server_pid, 0)  # running
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(server_pid, 0)
        except ProcessLookupError:
            return
        _reap(server_pid)
        time.sleep(0.1)
    os.kill(server_pid, signal.SIGKILL)
    pytest.fail(f"the oxigraph server (pid {server_pid}) outlived its killed parent")


def _reap(pid: int) -> None:
    """A zombie still answers kill(pid, 0): reap it if it became our child (a subreaper)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@needs_slice
def test_a_stale_spill_folder_is_removed_at_the_next_slice(tmp_path):
    dump = _tiny_dump(tmp_path)
    stale = tmp_path / f"{SPILL_PREFIX}{_dead_pid()}-abcd1234"
    (stale / "facts-000000.parquet").parent.mkdir()
    (stale / "facts-000000.parquet").write_bytes(b"left by a kill -9")
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        running = tmp_path / f"{SPILL_PREFIX}{alive.pid}-efgh5678"
        running.mkdir()
        report = slice_dump(dump, resolve_spec("relations"), tmp_path / "cut.nt.gz", progress=False)
        assert report.triples == 2000
        assert not stale.exists()
        assert running.is_dir()  # a live slice's spill is left alone
        assert not [p for p in tmp_path.glob(SPILL_PREFIX + "*") if p not in (running,)]
    finally:
        alive.kill()
        alive.wait()


@needs_slice
def test_a_control_byte_in_a_dump_line_is_sliced_as_any_line(tmp_path):
    """``\\x01`` was polars' field separator (ComputeError); another absent byte splits the lines."""
    lines = _tiny_dump(tmp_path).read_text().splitlines(keepends=True)
    dump = tmp_path / "ctrl.nt"
    dump.write_text("".join(lines[:10] + ['<http://x/a> <http://p> "a\x01b\x02c" .\n'] + lines[10:]))
    report = slice_dump(dump, resolve_spec("relations"), tmp_path / "cut.nt", progress=False)
    clean = slice_dump(tmp_path / "tiny.nt", resolve_spec("relations"), tmp_path / "clean.nt", progress=False)
    assert report.triples == 2001 and report.malformed == 0
    assert (tmp_path / "cut.nt").read_bytes() == (tmp_path / "clean.nt").read_bytes()
    assert clean.facts == report.facts


@needs_slice
def test_a_second_build_of_a_new_dump_waits_for_the_first_load(tmp_path):
    """Two builds from one new dump: the second waits for the load and reuses it, no 'another --out'."""
    dump = _tiny_dump(tmp_path)
    store = tmp_path / "stores" / "abc"
    store.parent.mkdir()
    fd = os.open(store.parent / "abc.load-lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # the first build, loading
    errors = []
    second = threading.Thread(target=lambda: _capture(errors, _load_once, dump, store))
    second.start()
    time.sleep(1.0)
    assert second.is_alive() and not store.exists()  # waiting, not refused
    load_store(dump, store, progress=False)  # the first build's load ends
    before = (store / STORE_INFO).read_bytes()
    os.close(fd)
    second.join(30)
    assert not second.is_alive() and not errors
    assert (store / STORE_INFO).read_bytes() == before  # reused, not loaded again


def _capture(errors: list, function, *args) -> None:
    try:
        function(*args)
    except Exception as exc:  # reported by the test
        errors.append(exc)
