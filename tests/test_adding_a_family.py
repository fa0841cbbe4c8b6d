"""A new multiple-choice family, defined in this module alone, goes through every command.

WordNet antonymy ("The opposite of "hot" is" -> cold): a spec class, a generator, a YAML spec.
Nothing else in probesmith changes; build, audit, eval, the report, review-sample and the
lm-evaluation-harness export take it because it is a multiple-choice family. This is the
example of docs/adding-a-family.md.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from probesmith.builders.registry import (
    DraftChoice,
    DraftItem,
    MultipleChoiceOutput,
    get_family,
    load_spec,
    register_family,
    unregister_family,
)
from probesmith.builders.sampling import stable_hash
from probesmith.builders.sources.wordnet import WordNetSource
from probesmith.probes.spec import MultipleChoiceSpec, spec_field
from probesmith.schemas.card import CardInfo

from .conftest import needs_wordnet

pytestmark = [pytest.mark.integration, needs_wordnet]


@dataclass(frozen=True)
class AntonymySpec(MultipleChoiceSpec):
    """Spec of the antonymy family."""

    limit: int = spec_field(300, help="Adjectives asked about at most (a seeded sample).", minimum=1)
    distractors: int = spec_field(3, help="Random adjectives per item.", minimum=1)


def generate_antonymy(spec: AntonymySpec) -> MultipleChoiceOutput:
    """One item per adjective lemma with an antonym: the antonym among random adjectives."""
    wordnet = WordNetSource().reader()
    pairs = sorted(
        (lemma.name(), antonym.name(), synset.name())
        for synset in wordnet.all_synsets("a")
        for lemma in synset.lemmas()
        for antonym in lemma.antonyms()
    )
    pairs = sorted(pairs, key=lambda p: stable_hash(spec.seed, "antonymy", *p))[: spec.limit]
    adjectives = sorted({word for word, _, _ in pairs} | {antonym for _, antonym, _ in pairs})
    items = []
    for word, antonym, synset in pairs:
        rng = random.Random(stable_hash(spec.seed, "distractors", word, antonym))
        others = [a for a in adjectives if a not in (word, antonym)]
        items.append(
            DraftItem(
                id=f"antonymy:{word}:{antonym}",
                probe="antonymy",
                question=f'The opposite of "{word.replace("_", " ")}" is',
                gold=DraftChoice(antonym.replace("_", " "), antonym, "gold", None),
                distractors=[
                    DraftChoice(a.replace("_", " "), a, "random", None)
                    for a in rng.sample(others, spec.distractors)
                ],
                cluster=f"ant:{synset}",
                concept=synset,
                hops=0,
                pos="adjective",
                framing="antonymy-0",
                perturbation=0,
                source="wordnet-3.0",
            )
        )
    card = CardInfo(
        pretty_name="WordNet antonyms", description="Adjectives and their WordNet antonyms.", license="other"
    )
    return MultipleChoiceOutput(card, {"wordnet": WordNetSource().version()}, items={"antonymy": items})


@pytest.fixture
def antonymy(tmp_path):
    """The family registered for one test, with its YAML spec; forgotten afterwards."""
    spec_path = tmp_path / "antonymy.yaml"
    spec_path.write_text("family: antonymy\nname: antonyms\nlimit: 300\nsplits:\n  train_items: 100\n")
    register_family("antonymy", AntonymySpec, str(spec_path), "WordNet antonyms")(generate_antonymy)
    yield spec_path
    unregister_family("antonymy")


def test_a_multiple_choice_family_from_one_module_goes_through_every_command(
    antonymy, tmp_path, tiny_gpt2_dir
):
    from probesmith.builders.build import build
    from probesmith.cli import main
    from probesmith.eval.audit import audit, write_audit
    from probesmith.eval.harness import export_lm_eval
    from probesmith.eval.models import load_model
    from probesmith.eval.review import write_review_sheet
    from probesmith.eval.run import EvalOptions, evaluate, write_results
    from probesmith.schemas.manifest import verify_folder

    assert get_family("antonymy").kind == "multiple_choice"
    result = build(load_spec(antonymy), tmp_path / "antonyms")
    assert verify_folder(result.out) == []
    assert (result.out / "validity.json").is_file()
    assert result.manifest["tables"]["antonymy/train"]["rows"] <= 100

    audited = audit(result.out)
    assert set(audited.cells["baseline"].unique()) >= {"choice_only", "answer_frequency"}
    write_audit(audited, result.out / "audit")

    lm = load_model(str(tiny_gpt2_dir))
    evaluation = evaluate(lm, result.out, EvalOptions(max_items=40), progress=False)
    assert evaluation.family == "antonymy"
    assert 0 < evaluation.metrics["configs"]["antonymy"]["n"] <= 45  # whole clusters up to 40 items
    runs = write_results(evaluation, tmp_path / "run")
    assert "| antonymy | " in (runs / "report.md").read_text()

    sheet = write_review_sheet(result.out, n=10)
    assert len(sheet.read_text().splitlines()) == 11

    exported = export_lm_eval(result.out, tmp_path / "lm_eval")
    assert list(exported["tasks"]) == ["probesmith_antonyms_antonymy"]

    # the CLI offers the family like any other, with the multiple-choice options
    assert main(["build", "antonymy", "--out", str(tmp_path / "cli"), "--filter-artifacts", "--dry-run"]) == 0
