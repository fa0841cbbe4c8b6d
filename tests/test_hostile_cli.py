"""Hostile specs and command-line messages (issue 27, items 4, 9 and 13).

Alias bombs and oversized specs are refused quickly and in little memory, ``include:`` reads only
specs and never echoes a foreign file, ``--help`` works for every command, and the messages of
``wikidata slice``, ``export lm-eval --task-prefix``, ``review-sample`` and SIGTERM say what
happened and the fix.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from probesmith.cli import _parser, main
from probesmith.errors import OutputError, SpecError
from probesmith.eval.harness import check_task_prefix
from probesmith.probes.spec import SPEC_MAX_BYTES, SPEC_MAX_VALUES, load_spec_layers, shown

from .conftest import FIXTURES
from .test_bad_inputs import check_row
from .test_crash import kill_at

REPO = Path(__file__).resolve().parents[1]


def alias_bomb(levels: int = 8, where: str = "description", *, width: int = 9) -> str:
    """A spec whose ``where`` holds ``width ** levels`` strings in a few hundred bytes."""
    lines = ["family: wordnet", "name: bomb", f"{where}:"]
    lines.append("  a: &a [" + ",".join(['"x"'] * width) + "]")
    previous = "a"
    for name in "bcdefghijklmnop"[: levels - 1]:
        lines.append(f"  {name}: &{name} [" + ",".join([f"*{previous}"] * width) + "]")
        previous = name
    return "\n".join(lines) + "\n"


def one_level_alias(levels: int = 8) -> str:
    """The 405-byte kind: the bomb's top alias used as the value of a string field (echoed once)."""
    lines = [
        "family: wordnet",
        "description:",
        '  a: &a ["xxxxxxxxxx","xxxxxxxxxx","xxxxxxxxxx","xxxxxxxxxx"]',
    ]
    previous = "a"
    for name in "bcdefghijklmnop"[: levels - 1]:
        lines.append(f"  {name}: &{name} [" + ",".join([f"*{previous}"] * 5) + "]")
        previous = name
    lines.append(f"name: *{previous}")
    return "\n".join(lines) + "\n"


# ---- bounded YAML ---------------------------------------------------------------------------


def test_alias_bomb_is_refused_in_under_2_s_and_200_mb(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(alias_bomb(8))
    assert len(bomb.read_bytes()) < 500
    # a fresh interpreter runs the command and reports the peak memory of its child alone
    measure = (
        "import resource, subprocess, sys, time\n"
        "start = time.monotonic()\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "seconds = time.monotonic() - start\n"
        "peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(done.returncode, seconds, peak_kb)\n"
        "sys.stderr.write(done.stderr)\n"
    )
    command = [sys.executable, "-m", "probesmith", "-q", "build", "wordnet", "--spec", str(bomb)]
    command += ["--out", str(tmp_path / "out")]
    done = subprocess.run(
        [sys.executable, "-c", measure, *command], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    code, _, peak_kb = done.stdout.split()
    assert int(code) == 2, done.stderr
    assert int(peak_kb) < 200 * 1024, f"peak RSS {int(peak_kb) // 1024} MB"
    assert "alias" in done.stderr and str(bomb) in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr) < 500
    assert not (tmp_path / "out").exists()
    # the refusal itself, apart from the interpreter's start-up (imports take most of a second)
    start = time.monotonic()
    with pytest.raises(SpecError, match="aliases"):
        load_spec_layers(bomb)
    assert time.monotonic() - start < 2


def test_alias_in_a_string_field_gives_a_short_message(tmp_path, capsys):
    spec = tmp_path / "long.yaml"
    spec.write_text(one_level_alias(8))
    assert len(spec.read_bytes()) < 500
    assert main(["-q", "build", "wordnet", "--spec", str(spec), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("probesmith: error:") and len(err) < 500, err[:1000]
    # below the budget the value reaches the type check, which shows it cut to 80 characters
    small = tmp_path / "small.yaml"
    small.write_text(one_level_alias(3))
    assert main(["-q", "build", "wordnet", "--spec", str(small), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "expected a string" in err and len(err) < 500, err[:1000]


def test_aliases_within_the_budget_still_load(tmp_path):
    spec = tmp_path / "ok.yaml"
    spec.write_text("include: wordnet\nname: ok\nprobes: &p [hypernymy]\ndescription: 'x'\n")
    assert load_spec_layers(spec)[-1]["probes"] == ["hypernymy"]
    # a budget just too small for a plain (alias-free) list is refused the same way
    big = tmp_path / "big.yaml"
    big.write_text("family: wordnet\nname: big\nprobes: [" + ",".join(["a"] * SPEC_MAX_VALUES) + "]\n")
    with pytest.raises(SpecError, match="more than"):
        load_spec_layers(big)


def test_self_referring_alias_is_refused(tmp_path):
    spec = tmp_path / "loop.yaml"
    spec.write_text("family: wordnet\nname: loop\ndescription: &d [*d]\n")
    with pytest.raises(SpecError, match="contains it"):
        load_spec_layers(spec)


def test_oversized_spec_is_refused_before_parsing(tmp_path):
    spec = tmp_path / "huge.yaml"
    # not YAML at all past the first line: parsing it would fail with another message
    spec.write_bytes(b"family: wordnet\n" + b"[" * (SPEC_MAX_BYTES + 10))
    with pytest.raises(SpecError, match="larger than 1 MB") as caught:
        load_spec_layers(spec)
    assert str(spec) in str(caught.value)


def test_yaml_syntax_error_does_not_echo_the_file(tmp_path):
    spec = tmp_path / "bad.yaml"
    spec.write_text("family: wordnet\nname: [TOPSECRET_LINE\n")
    with pytest.raises(SpecError, match="not valid YAML") as caught:
        load_spec_layers(spec)
    assert "TOPSECRET" not in str(caught.value) and "line" in str(caught.value)


def test_shown_cuts_any_value_to_80_characters():
    huge = [["x" * 1000] * 1000] * 1000  # shared rows: cheap to build, 10^9 characters as repr
    assert len(shown(huge)) <= 80 and len(shown("y" * 10**6)) <= 80


# ---- include: only specs --------------------------------------------------------------------


@pytest.mark.parametrize("how", ["relative", "absolute"])
def test_include_of_a_foreign_file_is_not_read(tmp_path, how):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET: 1\n")
    target = "secret.txt" if how == "relative" else str(secret)
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"include: [wordnet, {target}]\nname: x\n")
    with pytest.raises(SpecError, match="not read") as caught:
        load_spec_layers(spec)
    message = str(caught.value)
    assert "TOPSECRET" not in message and "include only specs" in message.lower()


def test_include_of_a_foreign_file_from_the_command_line(tmp_path, request, capsys, monkeypatch):
    def prepare(scratch):
        scratch.file("secret.txt", "TOPSECRET: 1\n")
        spec = scratch.file("spec.yaml", "include: [wordnet, secret.txt]\nname: x\n")
        return ["build", "wordnet", "--spec", str(spec), "--out", str(tmp_path / "o")]

    check_row(2, "not read", prepare, tmp_path, request, capsys, monkeypatch)
    # the message itself never showed the file (check_row captured it already: run once more)
    assert main(["-q", "build", "wordnet", "--spec", str(tmp_path / "spec.yaml"), "--out", "o"]) == 2
    assert "TOPSECRET" not in capsys.readouterr().err


def test_include_of_specs_by_name_and_path_still_works(tmp_path):
    base = tmp_path / "base.yml"
    base.write_text("include: wordnet\nname: base\n")
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"include: [base.yml, {FIXTURES / 'wordnet_small.yaml'}]\nname: mine\n")
    layers = load_spec_layers(spec)
    assert layers[-1] == {"name": "mine"} and len(layers) >= 4


@pytest.mark.parametrize("entry", ["../wordnet", "{a: 1}", "''"])
def test_include_entries_that_are_not_spec_names(tmp_path, entry):
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"include: {entry}\nname: x\n")
    with pytest.raises(SpecError, match="include"):
        load_spec_layers(spec)


# ---- --help of every command ----------------------------------------------------------------


def _command_paths(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield path
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _command_paths(sub, (*path, name))


COMMANDS = list(_command_paths(_parser()))


def test_every_command_is_walked():
    assert ("export", "lm-eval") in COMMANDS and ("build", "wordnet") in COMMANDS and len(COMMANDS) > 15


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "probesmith")
def test_help_of_every_command(command):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exited:
        main([*command, "--help"])
    assert exited.value.code == 0
    assert out.getvalue().startswith("usage: probesmith")


# ---- messages -------------------------------------------------------------------------------


def test_wikidata_slice_refuses_a_spec_that_does_not_query_wikidata(tmp_path, request, capsys, monkeypatch):
    def prepare(scratch):
        dump = scratch.file("tiny.nt", "<http://www.wikidata.org/entity/Q1> <http://x/p> <http://x/o> .\n")
        return ["wikidata", "slice", str(dump), "--spec", "wordnet", "--out", str(tmp_path / "s.nt")]

    check_row(2, "does not query Wikidata", prepare, tmp_path, request, capsys, monkeypatch)


@pytest.mark.parametrize("prefix", ["!!!", "", "../x", "a b", "_x", "x" * 65, "é"])
def test_task_prefix_outside_the_grammar(prefix, tmp_path, request, capsys, monkeypatch):
    def prepare(scratch):
        folder = scratch.user_folder("build")  # refused before the folder is read
        return ["export", "lm-eval", str(folder), "--out", str(tmp_path / "t"), "--task-prefix", prefix]

    check_row(2, "is not a task name", prepare, tmp_path, request, capsys, monkeypatch)


def test_task_prefix_grammar_accepts_task_names():
    for prefix in ("probesmith_wordnet", "X", "a1_b2", "a" * 64):
        check_task_prefix(prefix)


def test_sigterm_exits_143_and_sigint_130(tmp_path):
    dump = tmp_path / "tiny.nt"
    dump.write_text(
        "<http://www.wikidata.org/entity/Q1> <http://www.wikidata.org/prop/direct/P36> "
        "<http://www.wikidata.org/entity/Q2> .\n"
    )
    command = ["wikidata", "slice", str(dump), "--spec", "relations", "--out", str(tmp_path / "s.nt")]
    assert kill_at("swap", signal.SIGTERM, command, tmp_path) == 143
    assert kill_at("swap", signal.SIGINT, command, tmp_path) == 130
    assert not (tmp_path / "s.nt").exists()


def test_sigterm_message_is_one_clear_line(tmp_path):
    """A slow command (it sleeps at a failpoint) stopped by SIGTERM says so in one line."""
    ready = tmp_path / "ready"
    dump = tmp_path / "tiny.nt"
    dump.write_text(
        "<http://www.wikidata.org/entity/Q1> <http://www.wikidata.org/prop/direct/P36> "
        "<http://www.wikidata.org/entity/Q2> .\n"
    )
    env = {**os.environ, "PROBESMITH_FAILPOINT": "swap", "PROBESMITH_FAILPOINT_READY": str(ready)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "probesmith",
            "-q",
            "wikidata",
            "slice",
            str(dump),
            "--out",
            str(tmp_path / "s.nt"),
        ],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not ready.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ready.exists(), "the command ended or hung before its failpoint"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert err.splitlines() == ["probesmith: interrupted (SIGTERM); outputs were left as they were before."]


def test_review_sample_fix_names_no_out(tmp_path):
    """review-sample has no --out: its output errors name the fix that works."""
    from probesmith.cli import _fix_without_out

    place = tmp_path / "build" / "review"
    with pytest.raises(OutputError) as caught, _fix_without_out("review-sample", place):
        raise OutputError(
            f"{place} already exists and is not a probesmith output; nothing was written. "
            f"Pass a new or empty folder (e.g. {place / 'NAME'}) with --out."
        )
    message = str(caught.value)
    assert "--out." not in message and "with --out" not in message and "--force" not in message
    assert f"review-sample always writes {place} (no --out)" in message
    with pytest.raises(OutputError, match="add --force") as caught, _fix_without_out("review-sample", place):
        raise OutputError(f"{place} holds an audit; nothing was written. Pass another --out, or --force.")


@pytest.mark.integration
def test_review_sample_in_a_foreign_folder(tmp_path, request, capsys, monkeypatch):
    def prepare(scratch):
        build = scratch.build("small_wordnet_build")
        scratch.file(f"{build.relative_to(tmp_path)}/review/NOTES.md", "keep\n")
        return ["review-sample", str(build)]

    check_row(2, "(no --out): move what is there away", prepare, tmp_path, request, capsys, monkeypatch)


@pytest.mark.parametrize("loader_name", ["load_catalog", "load_questions"])
def test_a_catalog_a_spec_points_at_is_read_within_the_same_budget(loader_name, tmp_path):
    """`catalog:` and `questions:` may name a user's file: it is bounded like the spec itself."""
    from probesmith.builders.families.rules import load_questions
    from probesmith.builders.sources.catalog import load_catalog

    loader = {"load_catalog": load_catalog, "load_questions": load_questions}[loader_name]
    bomb = tmp_path / "catalog.yaml"
    bomb.write_text(alias_bomb(8, where="relations"))
    with pytest.raises(SpecError, match="alias") as caught:
        loader(str(bomb))
    assert str(bomb) in str(caught.value)
