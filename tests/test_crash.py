"""Crash consistency: every writing command killed mid-way leaves the previous output byte-identical.

Each command runs as ``python -m probesmith`` in a subprocess with ``PROBESMITH_FAILPOINT`` set to
a point of the write (during generation, after a Parquet shard, just before the swap); when the
process reaches it, the test kills it (SIGKILL: no cleanup at all; SIGINT: Ctrl-C), then checks
that the destination is exactly as before and that rerunning the command succeeds and leaves no
leftovers (staging folders, locks).
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import FIXTURES, SHARED_DATA, needs_gcide

pytestmark = pytest.mark.integration

DICTIONARY_SPEC = str(FIXTURES / "dictionary_small.yaml")


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def probesmith(args: list[str], env: dict | None = None, **popen) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "probesmith", "-q", *args],
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


def run_ok(args: list[str]) -> None:
    proc = probesmith(args)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err


def kill_at(failpoint: str, sig: int, args: list[str], tmp_path: Path) -> int:
    """Run ``args`` until it reaches ``failpoint``, send ``sig``, return the exit status."""
    ready = tmp_path / f"ready-{failpoint}-{sig}-{time.monotonic_ns()}"
    proc = probesmith(args, env={"PROBESMITH_FAILPOINT": failpoint, "PROBESMITH_FAILPOINT_READY": str(ready)})
    deadline = time.monotonic() + 300
    while not ready.exists():
        if proc.poll() is not None:
            pytest.fail(f"{args} ended before reaching {failpoint}: {proc.communicate()[1][-2000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"{args} did not reach {failpoint}")
        time.sleep(0.05)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    if sig != signal.SIGKILL:
        assert "Traceback" not in err and "interrupted" in err, err
    return proc.returncode


def assert_survives(command: list[str], out: Path, failpoints: list[str], tmp_path: Path) -> None:
    """``out`` already holds a complete output of ``command``; kill a rerun at each point."""
    parent = out.parent
    before = tree(out)
    for failpoint in failpoints:
        for sig in (signal.SIGKILL, signal.SIGINT, signal.SIGTERM):
            code = kill_at(failpoint, sig, command, tmp_path)
            assert code != 0
            assert tree(out) == before, f"{out} changed after {signal.Signals(sig).name} at {failpoint}"
            if sig != signal.SIGKILL:  # a clean interruption leaves no staging copy or lock behind
                assert not [p.name for p in parent.iterdir() if p.name.startswith(f".{out.name}.")]
    run_ok(command)  # a rerun succeeds after all those crashes ...
    leftovers = [p.name for p in parent.iterdir() if p.name.startswith(f".{out.name}.")]
    assert leftovers in ([], [f".{out.name}.probesmith.json"]), leftovers  # ... and cleans up


@needs_gcide
def test_build_killed_while_generating_writing_or_swapping(tmp_path):
    out = tmp_path / "artifacts" / "dictionary"
    command = ["build", "dictionary", "--spec", DICTIONARY_SPEC, "--out", str(out)]
    run_ok(command)
    assert_survives(command, out, ["generate", "parquet", "swap"], tmp_path)
    assert json.loads((out / "manifest.json").read_text())["family"] == "dictionary"


@needs_gcide
def test_audit_killed_before_its_swap(tmp_path):
    build = tmp_path / "dictionary"
    run_ok(["build", "dictionary", "--spec", DICTIONARY_SPEC, "--out", str(build)])
    command = ["audit", str(build), "--baselines", "choice_only", "answer_frequency"]
    run_ok(command)
    assert_survives(command, build / "audit", ["swap"], tmp_path)


def test_store_load_and_snapshot_killed_before_their_swap(tmp_path):
    slice_path = SHARED_DATA / "wikidata_slice" / "wikidata_slice.nt.gz"
    if not slice_path.is_file():
        pytest.skip("shared Wikidata slice not present")
    dump = tmp_path / "small.nt.gz"
    with gzip.open(slice_path, "rt", encoding="utf-8") as src:
        lines = src.readlines()
    facts = [line for line in lines if "/prop/direct/P36>" in line]
    entities = {part for line in facts for part in line.split()[::2][:2]}
    labels = [line for line in lines if line.split(" ", 1)[0] in entities and "rdf-schema#label" in line]
    with gzip.open(dump, "wt", encoding="utf-8") as dst:
        dst.writelines(facts + labels)
    store = tmp_path / "stores" / "wd"
    command = ["wikidata", "load", str(dump), "--store", str(store)]
    run_ok(command)
    assert_survives(command, store, ["swap"], tmp_path)

    spec = tmp_path / "snap.yaml"
    cache = tmp_path / "cache"
    spec.write_text(
        f"include: relations\nname: snap\nrelations: [P36]\nwikidata: {{source: {store}, cache: {cache}}}\n"
    )
    snapshot = tmp_path / "frozen.nt.bz2"
    command = ["wikidata", "snapshot", "--spec", str(spec), "--out", str(snapshot)]
    run_ok(command)
    before = snapshot.read_bytes()
    assert before.startswith(b"BZh")  # the extension asked for is the format written
    for sig in (signal.SIGKILL, signal.SIGINT):
        kill_at("swap", sig, command, tmp_path)
        assert snapshot.read_bytes() == before
    for cached in cache.rglob("*.json"):  # killed queries leave whole cache entries or none
        json.loads(cached.read_text())
    run_ok(command)
    assert snapshot.read_bytes() == before  # same source, same bytes


def test_exports_import_and_eval_killed_before_their_swap(
    tmp_path, small_relations_build, small_rules_build, small_dictionary_build, tiny_gpt2_dir
):
    bear = tmp_path / "bear"
    command = ["export", "bear", str(small_relations_build.out), "--out", str(bear)]
    run_ok(command)
    assert_survives(command, bear, ["swap"], tmp_path)

    jsonl = tmp_path / "depedit.jsonl"
    command = ["export", "depedit", str(small_rules_build.out), "--out", str(jsonl)]
    run_ok(command)
    before = jsonl.read_bytes()
    for sig in (signal.SIGKILL, signal.SIGINT):
        kill_at("swap", sig, command, tmp_path)
        assert jsonl.read_bytes() == before
    run_ok(command)

    imported = tmp_path / "imported"
    command = ["import", "bear", str(bear), "--out", str(imported)]
    run_ok(command)
    assert_survives(command, imported, ["parquet", "swap"], tmp_path)

    run = tmp_path / "runs" / "gpt2"
    command = [
        "eval",
        "--model",
        str(tiny_gpt2_dir),
        "--probes",
        str(small_dictionary_build.out),
        "--out",
        str(run),
        "--max-items",
        "3",
        "--device",
        "cpu",
    ]
    run_ok(command)
    assert_survives(command, run, ["swap"], tmp_path)


@needs_gcide
def test_a_second_writer_is_refused_while_the_first_runs(tmp_path):
    out = tmp_path / "dictionary"
    command = ["build", "dictionary", "--spec", DICTIONARY_SPEC, "--out", str(out)]
    ready = tmp_path / "ready"
    first = probesmith(
        command, env={"PROBESMITH_FAILPOINT": "generate", "PROBESMITH_FAILPOINT_READY": str(ready)}
    )
    try:
        while not ready.exists():
            assert first.poll() is None, first.communicate()[1]
            time.sleep(0.05)
        second = probesmith(command)
        _, err = second.communicate(timeout=120)
        assert second.returncode == 1 and f"another probesmith process (pid {first.pid})" in err, err
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)
    assert not out.exists()
    run_ok(command)  # the lock died with the first process
