"""``build_all`` builds the smaller specs in a spawned process (beside the largest with two workers, before it
with one): the same builds, reported in spec order (issue 26)."""

import json
import multiprocessing
import os
import shutil

import pytest

from probesmith.builders import batch
from probesmith.builders.build import REFERENCE_DIR, _outcome_of, build_all
from probesmith.builders.registry import load_spec
from probesmith.errors import SourceError

from ..conftest import FIXTURES, needs_gcide, needs_wordnet


@pytest.fixture(params=[1, 2], ids=["in-turn", "side-by-side"])
def workers(request):
    batch.set_build_workers(request.param)
    yield request.param
    batch.set_build_workers(None)


@needs_wordnet
@needs_gcide
def test_side_by_side_builds_are_the_builds_alone_in_spec_order(
    workers, small_dictionary_build, small_wordnet_build, tmp_path
):
    specs = [load_spec(FIXTURES / "dictionary_small.yaml"), load_spec(FIXTURES / "wordnet_small.yaml")]
    # the WordNet spec has the larger reference: it is built in this process, the dictionary beside it
    (tmp_path / REFERENCE_DIR).mkdir()
    for spec, alone in zip(specs, (small_dictionary_build, small_wordnet_build), strict=True):
        shutil.copy(alone.out / "manifest.json", tmp_path / REFERENCE_DIR / f"{spec.name}.manifest.json")
    reported = []
    results = build_all(tmp_path, on_built=reported.append, specs=specs)
    assert [r.manifest["name"] for r in reported] == [r.manifest["name"] for r in results]
    assert [r.manifest["name"] for r in results] == [s.name for s in specs]
    assert [r.logical_hash for r in results] == [
        small_dictionary_build.logical_hash,
        small_wordnet_build.logical_hash,
    ]
    assert [r.reference for r in results] == ["matches", "matches"]
    assert results[0].dropped == small_dictionary_build.dropped
    for spec in specs:
        assert json.loads((tmp_path / spec.name / "manifest.json").read_text())["name"] == spec.name


@needs_gcide
def test_a_failure_beside_is_raised_here(workers, tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text(f"include: {FIXTURES / 'wordnet_small.yaml'}\nsource_dir: {tmp_path / 'no-wordnet'}\n")
    specs = [load_spec(FIXTURES / "dictionary_small.yaml"), load_spec(broken)]
    with pytest.raises(SourceError):
        build_all(tmp_path / "out", specs=specs)


def _send_and_end(messages, value):
    messages.put(value)
    messages.close()
    messages.join_thread()
    os._exit(0)


def test_a_side_process_that_ends_is_read_to_its_last_message_or_named_dead():
    context = multiprocessing.get_context("spawn")
    messages = context.Queue()
    sender = context.Process(target=_send_and_end, args=(messages, "built"))
    sender.start()
    sender.join()  # ended before it is read: what it sent is still read
    assert _outcome_of(sender, messages) == "built"
    dying = context.Process(target=os._exit, args=(3,))
    dying.start()
    with pytest.raises(RuntimeError, match=r"died \(exit code 3\)"):
        _outcome_of(dying, messages)
    messages.close()
