"""WordNetQA's concept loop shared over worker processes builds what one process builds (issue 26).

The workers are forced on for the small spec (it would otherwise stay in one process): the same
logical hash, the same dropped counts and the same drafts in the same order as the in-process loop.
"""

import pytest

from probesmith.builders import batch
from probesmith.builders.build import build
from probesmith.builders.families import wordnetqa
from probesmith.builders.registry import load_spec

from ...conftest import FIXTURES, needs_wordnet

pytestmark = needs_wordnet


@pytest.fixture
def workers_forced(monkeypatch):
    """Worker processes for any number of concepts; the process-wide setting restored after."""
    monkeypatch.setattr(wordnetqa, "PARALLEL_MIN_CONCEPTS", 1)
    monkeypatch.setattr(wordnetqa, "_CHUNK_CONCEPTS", 97)  # several chunks, the last one short
    yield batch.set_build_workers
    batch.set_build_workers(None)


@pytest.mark.parametrize("workers", [2, 3])
def test_workers_build_the_same_rows_and_drop_counts(small_wordnet_build, workers_forced, tmp_path, workers):
    workers_forced(workers)
    result = build(load_spec(FIXTURES / "wordnet_small.yaml"), tmp_path / "built")
    assert result.logical_hash == small_wordnet_build.logical_hash
    assert result.dropped == small_wordnet_build.dropped


def test_workers_give_the_same_drafts_in_the_same_order(workers_forced):
    spec = load_spec(FIXTURES / "wordnet_small.yaml")
    workers_forced(1)
    one = wordnetqa.generate_wordnet(spec)
    workers_forced(2)
    two = wordnetqa.generate_wordnet(spec)
    assert list(two.items) == list(one.items)
    for probe, items in one.items.items():
        assert two.items[probe] == items, probe
    assert two.dropped == one.dropped


def test_units_are_split_into_groups_of_about_equal_cost():
    spec = load_spec("wordnet")
    units = wordnetqa.work_units(spec)
    assert len(units) == len(set(units)) == 2 + 2 * spec.max_hops
    groups = wordnetqa._split_units(units, 2)
    assert sorted(u for group in groups for u in group) == sorted(units)
    costs = [sum(wordnetqa.UNIT_COST.get(u, 1.0) for u in group) for group in groups]
    assert max(costs) <= 1.2 * min(costs)
    assert len(wordnetqa._split_units(units, 64)) == len(units)  # no empty group


def test_workers_setting_is_checked():
    with pytest.raises(ValueError, match="1 or more"):
        batch.set_build_workers(0)
    batch.set_build_workers(3)
    assert batch.build_workers() == 3
    batch.set_build_workers(None)
    assert batch.build_workers() == 1  # the default: one process
