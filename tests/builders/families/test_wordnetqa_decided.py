"""WordNetQA's reused decisions and skipped shuffles give what computing them again gave (issue 26).

:class:`_Decided` answers a candidate's second-answer reason and labels once per concept;
:func:`advance_as_shuffle` replaces a shuffle whose result was never read. Both are compared with
the code they stand for over real data: every choice of every item of the small build, asked
against every gold its concept's items have, and the generator's state after shuffles of every
length the small spec's pools have; the item checks reusing the builder's decisions, with the
checks deciding every row again over every row of the small build.
"""

import random
from collections import defaultdict

import polars as pl
import pytest

from probesmith.builders import random_draws
from probesmith.builders.build import build
from probesmith.builders.families.wordnetqa import _Builder, _Decided, generate_wordnet
from probesmith.builders.families.wordnetqa_answers import (
    SecondAnswers,
    WordNetItemChecks,
    choice_labels,
    shown_words,
)
from probesmith.builders.morphology import StemAnalyser
from probesmith.builders.random_draws import advance_as_shuffle
from probesmith.builders.registry import load_spec
from probesmith.builders.sources.wordnet import WordNetSource
from probesmith.schemas.artifact import DatasetFolderWriter

from ...conftest import FIXTURES, needs_wordnet

pytestmark = needs_wordnet


def test_advance_as_shuffle_leaves_the_generator_where_a_shuffle_does(wordnet_graph):
    builder = _Builder(load_spec(FIXTURES / "wordnet_small.yaml"), wordnet_graph, WordNetSource().reader())
    real_lengths = {len(builder._sister_family(c, up)) for c in builder.concepts() for up in (1, 2)}
    assert sum(length >= 40 for length in real_lengths) > 20, real_lengths  # the batched shuffle's
    pool_lengths = real_lengths | set(range(0, 80)) | {127, 128, 129, 255, 256, 257, 1024}
    for length in sorted(pool_lengths):
        for seed in range(20):
            shuffled, advanced, batched = (random.Random(f"{seed}:{length}") for _ in range(3))
            shuffled.shuffle(list(range(length)))
            random_draws.shuffle(batched, list(range(length)))
            advance_as_shuffle(advanced, length)
            assert advanced.getstate() == shuffled.getstate() == batched.getstate(), (seed, length)


def test_decided_once_per_concept_equals_deciding_every_time(wordnet_graph, small_wordnet_build):
    answers = SecondAnswers(wordnet_graph, StemAnalyser(WordNetSource().lexicon()))
    index = wordnet_graph.index
    by_concept: dict[tuple[str, int], list[tuple]] = defaultdict(list)
    for path in sorted(small_wordnet_build.out.glob("*/*.parquet")):
        columns = ["probe", "concept", "choices", "answer_index", "choice_concepts"]
        for probe, concept, choices, answer, names in pl.read_parquet(path, columns=columns).rows():
            by_concept[(probe, index[concept])].append((choices, answer, [index[n] for n in names]))
    asked, found = 0, defaultdict(int)
    for (probe, concept), items in by_concept.items():
        decided = _Decided()
        golds = {nodes[answer] for _, answer, nodes in items}
        for choices, _, nodes in items:
            for text, node in zip(choices, nodes, strict=True):
                for gold in sorted(golds):  # twice: the second answer comes from the memo
                    for _ in range(2):
                        reason = decided.reason(answers, probe, (concept, gold), node, text)
                        assert reason == answers.reason(probe, concept, gold, node, shown_words(probe, text))
                        assert decided.labels(probe, text) == choice_labels(probe, text)
                    asked += 1
                    found[reason] += 1
    assert asked > 15_000
    assert found[None] and sum(n for reason, n in found.items() if reason) > 1_000, dict(found)


@pytest.mark.parametrize("length", [0, 1, 2])
def test_advance_as_shuffle_of_fewer_than_two_items_draws_nothing_or_as_shuffle(length):
    shuffled, advanced = random.Random(7), random.Random(7)
    shuffled.shuffle(list(range(length)))
    advance_as_shuffle(advanced, length)
    assert advanced.getstate() == shuffled.getstate()


def test_item_checks_reuse_the_builders_decisions_and_find_what_they_found(small_wordnet_build):
    """Every row of the small build: the checks with the builder's decided keys equal the checks without."""
    output = generate_wordnet(load_spec(FIXTURES / "wordnet_small.yaml"))
    reusing = output.item_checks
    assert reusing.decided
    recomputing = WordNetItemChecks(reusing.graph, stems=reusing.stems, answers=reusing.answers)
    rows_checked, reused = 0, 0
    for config in sorted(p.name for p in small_wordnet_build.out.iterdir() if p.is_dir()):
        rows = []
        for path in sorted((small_wordnet_build.out / config).glob("*.parquet")):
            rows += pl.read_parquet(path, columns=list(WordNetItemChecks.columns)).to_dicts()
        assert reusing.check(rows) == recomputing.check(rows)
        rows_checked += len(rows)
        reused += sum(reusing._decided_already(row) for row in rows)
    assert rows_checked > 3_000 and reused == rows_checked  # every row written is one the builder drew
    # a row whose choices the builder never drew together is asked again, and its reasons found
    row = dict(rows[0])
    row["choices"], row["choice_concepts"] = list(row["choices"]), list(row["choice_concepts"])
    gold = row["answer_index"]
    other = next(i for i in range(len(row["choices"])) if i != gold)
    row["choices"][other], row["choice_concepts"][other] = row["choices"][gold], row["choice_concepts"][gold]
    assert not reusing._decided_already(row)
    assert reusing.check([row]) == recomputing.check([row]) != [[]]
    # released once the build's report is made, the caches refill on demand: the same findings
    found = reusing.check(rows)
    assert reusing.stems.text_stems.cache_info().currsize > 0
    reusing.release()
    assert reusing.stems.text_stems.cache_info().currsize == 0
    assert reusing.stems._question_parts.cache_info().currsize == 0
    assert reusing.answers._senses.cache_info().currsize == 0
    assert reusing.check(rows) == found


def test_the_item_checks_are_released_after_the_report_and_before_the_writing(tmp_path, monkeypatch):
    calls = []
    for owner, name in (
        (WordNetItemChecks, "check"),
        (WordNetItemChecks, "release"),
        (DatasetFolderWriter, "add_table"),
    ):
        original = getattr(owner, name)

        def recorded(*args, _original=original, _name=name, **kwargs):
            calls.append(_name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(owner, name, recorded)
    build(load_spec(FIXTURES / "wordnet_small.yaml"), tmp_path / "small")
    released = calls.index("release")
    assert calls.count("release") == 1 and set(calls[:released]) == {"check"}
    assert set(calls[released + 1 :]) == {"add_table"}
