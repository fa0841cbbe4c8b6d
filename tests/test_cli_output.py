"""What a build prints (issue 26): one line per family, no per-query log lines unless ``-v``, bars
that change nothing a build writes.

The command runs in a fresh interpreter, as on a console (logging configured by ``main``, stderr
not a terminal), on the small fixture specs against the shared Wikidata slice with the query
cache off, so that every query really runs.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from probesmith.builders.build import build, build_all, result_line
from probesmith.builders.registry import load_spec
from probesmith.progress import progress_shown, show_progress

from .conftest import FIXTURES, needs_gcide

pytestmark = pytest.mark.integration

QUERY_LINE = "probesmith.builders.sources.wikidata: queried"


@pytest.fixture(scope="module")
def relations_spec(tmp_path_factory, wikidata_store):
    """The small relations spec on the slice's store, every query asked (no cache)."""
    path = tmp_path_factory.mktemp("specs") / "relations_small.yaml"
    path.write_text(
        f"include: {FIXTURES / 'relations_small.yaml'}\nwikidata:\n  source: {wikidata_store}\n"
        "  cache_mode: 'off'\n"
    )
    return path


def _probesmith(*argv: str, cwd) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "probesmith", *argv], capture_output=True, text=True, cwd=cwd, timeout=900
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def _asked(out) -> int:
    """Queries the build sent to the store (the manifest lists every query, cached or not)."""
    queries = json.loads((out / "manifest.json").read_text())["queries"]
    return sum(1 for query in queries if not query["cached"])


def test_a_default_build_prints_no_log_lines_and_verbose_prints_one_per_query(relations_spec, tmp_path):
    quiet_out, verbose_out = tmp_path / "default", tmp_path / "verbose"
    default = _probesmith(
        "build", "relations", "--spec", str(relations_spec), "--out", str(quiet_out), cwd=tmp_path
    )
    verbose = _probesmith(
        "-v", "build", "relations", "--spec", str(relations_spec), "--out", str(verbose_out), cwd=tmp_path
    )
    asked = _asked(quiet_out)
    assert asked > 10  # the queries ran, so a per-query line had something to say
    # by default only warnings (a retried query, say) reach stderr; no bar either (not a terminal)
    shown = default.stderr.splitlines()
    assert not [line for line in shown if " WARNING " not in line and " ERROR " not in line], shown[:20]
    assert str(quiet_out) in default.stdout and "logical hash" in default.stdout
    query_lines = [line for line in verbose.stderr.splitlines() if QUERY_LINE in line]
    # every query of the build's log, and the one fact asked of the store itself (end-time
    # qualifiers: neither cached nor in the build's query log)
    assert len(query_lines) == _asked(verbose_out) + 1 == asked + 1
    assert all(" DEBUG " in line for line in query_lines)
    assert " INFO probesmith.builders.build: building relations-small" in verbose.stderr
    same = [json.loads((o / "manifest.json").read_text())["logical_hash"] for o in (quiet_out, verbose_out)]
    assert same[0] == same[1]


@needs_gcide
def test_build_all_says_one_line_per_family(relations_spec, tmp_path, capsys):
    specs = [load_spec(relations_spec), load_spec(FIXTURES / "dictionary_small.yaml")]
    lines: list[str] = []
    results = build_all(tmp_path, on_built=lambda result: lines.append(result_line(result)), specs=specs)
    assert len(lines) == len(results) == 2
    for line, result, spec in zip(lines, results, specs, strict=True):
        rows = sum(entry["rows"] for entry in result.manifest["tables"].values())
        assert "\n" not in line
        assert line.startswith(f"built {spec.name} ({spec.family}): {rows:,} rows in ")
        assert f"{result.seconds:.1f} s -> {tmp_path / spec.name}" in line
        assert rows > 0


def test_the_cli_build_all_prints_the_lines_build_all_reports(relations_spec, tmp_path, monkeypatch, capsys):
    """`probesmith build all` prints what ``on_built`` receives, one line each, nothing else."""
    import probesmith.cli as cli

    spec = load_spec(relations_spec)
    real_build_all = cli.build_all
    monkeypatch.setattr(cli, "build_all", lambda out, on_built: real_build_all(out, on_built, specs=[spec]))
    assert cli.main(["build", "all", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 1 and printed[0].startswith("built relations-small (relations): ")


def test_a_progress_bar_changes_nothing_a_build_writes(relations_spec, tmp_path, capsys):
    before = progress_shown()
    try:
        show_progress(False)
        without = build(load_spec(relations_spec), tmp_path / "without")
        assert "wikidata queries" not in capsys.readouterr().err
        show_progress(True)
        with_bars = build(load_spec(relations_spec), tmp_path / "with")
        shown = capsys.readouterr().err
    finally:
        show_progress(before)
    assert "wikidata queries" in shown and "relations: writing" in shown  # the bars were drawn
    assert with_bars.logical_hash == without.logical_hash
    for name in ("manifest.json",):
        ours = json.loads((tmp_path / "with" / name).read_text())["tables"]
        theirs = json.loads((tmp_path / "without" / name).read_text())["tables"]
        assert {k: v["logical_hash"] for k, v in ours.items()} == {
            k: v["logical_hash"] for k, v in theirs.items()
        }


@needs_gcide
def test_the_family_bars_follow_the_progress_setting(tmp_path, capsys):
    # -q / a terminal decide every bar, the families' own too (issue 26): with bars forced on, the
    # GCIDE family's word bar is drawn though stderr is not a terminal (a bar of its own, left to
    # tqdm's default, would not be)
    before = progress_shown()
    try:
        show_progress(True)
        build(load_spec(FIXTURES / "dictionary_small.yaml"), tmp_path / "with")
    finally:
        show_progress(before)
    assert "gcide words" in capsys.readouterr().err
