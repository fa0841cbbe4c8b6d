"""score_statements against lm-pub-quiz 0.3.3 on tiny real-architecture models (fp32, CPU)."""

import json

import pytest
import torch

from probesmith.eval import score_statements
from probesmith.eval.models import train_wordpiece

from ..conftest import SHARED_DATA, tiny_gpt2_model

BEAR = SHARED_DATA / "bear" / "BEAR"
GPT2_TOKENIZER = SHARED_DATA / "tokenizers" / "gpt2"
pytestmark = pytest.mark.skipif(
    not BEAR.is_dir() or not GPT2_TOKENIZER.is_dir(), reason="shared data not present"
)


@pytest.fixture(scope="module")
def relation():
    instances = [json.loads(line) for line in (BEAR / "P36.jsonl").read_text().splitlines()]
    return instances, json.loads((BEAR / "metadata_relations.json").read_text())["P36"]


def tiny_bert(tokenizer):
    """A 2-layer, 64-wide BERT masked LM, randomly initialised with seed 0."""
    from transformers import BertConfig, BertForMaskedLM

    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=128,
    )
    return BertForMaskedLM(config).eval()


def parity(evaluator, model, tokenizer, relation, kind, pll="within_word_l2r"):
    instances, meta = relation
    for instance in instances[:2]:
        for template in meta["templates"]:
            answers = meta["answer_space_labels"]
            theirs = evaluator.evaluate_instance(
                template=template,
                answers=answers,
                subject=instance["sub_label"],
                reduction="sum",
                batch_size=8,
            )
            statements = [
                evaluator.replace_placeholders(template=template, subject=instance["sub_label"], answer=a)[0]
                for a in answers
            ]
            ours = score_statements(model, tokenizer, statements, kind=kind, pll=pll, batch_tokens=700)
            assert ours == pytest.approx(theirs, abs=1e-4)


def test_causal_parity_with_lm_pub_quiz(relation):
    lm_pub_quiz = pytest.importorskip("lm_pub_quiz")
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tokenizer = PreTrainedTokenizerFast.from_pretrained(str(GPT2_TOKENIZER))
    torch.manual_seed(0)
    model = GPT2LMHeadModel(
        GPT2Config(vocab_size=len(tokenizer), n_layer=2, n_embd=64, n_head=2, n_positions=128)
    ).eval()
    evaluator = lm_pub_quiz.Evaluator.from_model(model, tokenizer=tokenizer, model_type="CLM", device="cpu")
    parity(evaluator, model, tokenizer, relation, "causal")
    # by hand: a statement's score is the sum over its tokens of log p(token | BOS, earlier tokens)
    ids = [tokenizer.bos_token_id, *tokenizer("Paris is").input_ids]
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0]
    expected = sum(torch.log_softmax(logits[i - 1], -1)[ids[i]].item() for i in range(1, len(ids)))
    assert score_statements(model, tokenizer, ["Paris is"]) == pytest.approx([expected], abs=1e-5)


@pytest.mark.parametrize("pll", ["original", "within_word_l2r"])
def test_masked_parity_with_lm_pub_quiz(relation, pll):
    lm_pub_quiz = pytest.importorskip("lm_pub_quiz")

    instances, meta = relation
    texts = [
        t.replace("[X]", r["sub_label"]).replace("[Y]", r["obj_label"])
        for r in instances
        for t in meta["templates"]
    ]
    tokenizer = train_wordpiece(texts, vocab_size=600)
    model = tiny_bert(tokenizer)
    evaluator = lm_pub_quiz.Evaluator.from_model(
        model, tokenizer=tokenizer, model_type="MLM", device="cpu", pll_metric=pll
    )
    parity(evaluator, model, tokenizer, relation, "masked", pll)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="kind must be 'causal' or 'masked'"):
        score_statements(None, None, ["x"], kind="seq2seq")
    with pytest.raises(ValueError, match="pll must be"):
        score_statements(None, None, ["x"], kind="masked", pll="sentence_l2r")


@pytest.fixture(scope="module")
def tiny_gpt2():
    return tiny_gpt2_model(width=64)


def bear_statements(relation, n_instances=3):
    instances, meta = relation
    return [
        t.replace("[X]", r["sub_label"]).replace("[Y]", a)
        for r in instances[:n_instances]
        for t in meta["templates"]
        for a in meta["answer_space_labels"]
    ]


def test_shared_prefixes_give_the_scores_of_whole_statements(tiny_gpt2, relation):
    import numpy as np

    from probesmith.eval.scoring import _causal_rows, _prefix_groups

    model, tokenizer = tiny_gpt2
    statements = bear_statements(relation) + ["Paris", "Paris is", "Paris is a city."]
    rows = _causal_rows(tokenizer, statements, None)
    plain, member_group, members, shared = _prefix_groups(rows, np.flatnonzero(rows.last > 0))
    assert len(shared) and len(members) > len(statements) // 2
    assert sorted([*plain.tolist(), *members.tolist()]) == list(range(len(statements)))
    for group, prefix in enumerate(shared.tolist()):  # every member holds the prefix, and more
        heads = {tuple(rows.encoded.row(m)[:prefix]) for m in members[member_group == group].tolist()}
        assert len(heads) == 1 and prefix >= 3
        assert all(len(rows.encoded.row(m)) > prefix for m in members[member_group == group].tolist())
    alone = score_statements(model, tokenizer, statements, share_prefixes=False)
    for budget in (64, 300, 4096):
        shared = score_statements(model, tokenizer, statements, batch_tokens=budget)
        assert shared == pytest.approx(alone, abs=1e-5)


def test_answer_starts_score_the_answer_given_its_context(tiny_gpt2):
    model, tokenizer = tiny_gpt2
    questions = ["The capital of France is", "The capital of France is", "Rome is in"]
    answers = ["Paris", "the city of Lyon", "Italy"]
    statements = [f"{q} {a}" for q, a in zip(questions, answers)]
    starts = [len(q) for q in questions]
    conditional, counts = score_statements(
        model, tokenizer, statements, answer_starts=starts, return_token_counts=True
    )
    whole = score_statements(model, tokenizer, statements)
    context = score_statements(model, tokenizer, questions)
    # GPT-2's BPE splits at the space, so the question's tokens are a prefix of the statement's
    assert conditional == pytest.approx([w - c for w, c in zip(whole, context)], abs=1e-5)
    assert counts == [len(tokenizer(" " + a).input_ids) for a in answers]


def test_masked_answer_span_pll_by_hand(relation):
    tokenizer = train_wordpiece(bear_statements(relation), vocab_size=600)
    model = tiny_bert(tokenizer)
    statement, start = "the capital of france is paris", len("the capital of france is")
    (score,), (count,) = score_statements(
        model,
        tokenizer,
        [statement],
        kind="masked",
        pll="original",
        answer_starts=[start],
        return_token_counts=True,
    )
    encoded = tokenizer(statement, return_special_tokens_mask=True)
    ids = encoded.input_ids
    answer = tokenizer("paris", add_special_tokens=False).input_ids
    words = [i for i, special in enumerate(encoded.special_tokens_mask) if not special]
    expected = 0.0
    for position in words[-len(answer) :]:
        masked = list(ids)
        masked[position] = tokenizer.mask_token_id
        with torch.no_grad():
            logits = model(torch.tensor([masked])).logits[0, position]
        expected += torch.log_softmax(logits, -1)[ids[position]].item()
    assert count == len(answer)
    assert score == pytest.approx(expected, abs=1e-5)


def test_answer_starts_must_match_statements():
    with pytest.raises(ValueError, match="answer_starts has 1 entries for 2 statements"):
        score_statements(None, None, ["a", "b"], answer_starts=[0])


def test_masked_copies_of_a_statement_share_a_batch(relation):
    from probesmith.eval.scoring import _masked_batches, _masked_copies

    texts = bear_statements(relation)
    tokenizer = train_wordpiece(texts, vocab_size=600)
    copies = _masked_copies(tokenizer, texts, None, "within_word_l2r")
    batches = list(_masked_batches(copies, batch_tokens=200))
    assert sorted(i for b in batches for i in b.tolist()) == list(range(len(copies.owners)))
    seen = {}
    for number, batch in enumerate(batches):
        assert copies.lengths[batch].max() * len(batch) <= 200
        for owner in set(copies.owners[batch].tolist()):
            assert seen.setdefault(owner, number) == number, f"statement {owner} split across batches"
