"""Knowledge editors for the DepEdit protocol, and answering questions by greedy generation.

An editor is small: ``edit(edited, facts) -> EditedLM`` returns the model after learning
``facts`` on top of ``edited`` (which it must not change). ``EditedLM`` carries the weights and
the facts placed in the prompt, so weight editors and in-context editors share one answering
path. Two editors come with probesmith:

* :class:`FineTuneEditor` — a copy of the model fine-tuned on the facts as question-answer
  pairs (loss on the answer tokens only);
* :class:`InContextEditor` — the facts are placed before the question; a fact replaces an
  earlier one with the same subject and relation.

Others implement :class:`Editor` and are passed to ``probesmith.eval.run.evaluate``.
"""

from __future__ import annotations

import copy
import re
import string
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import torch

from probesmith.eval.models import LanguageModel


@dataclass(frozen=True)
class Fact:
    """One fact of a knowledge set, with its question and a declarative statement."""

    subject: str
    relation: str
    object: str
    question: str
    answer: str
    statement: str


@dataclass(frozen=True)
class EditedLM:
    """A language model after edits: its (possibly changed) weights and facts in the prompt."""

    lm: LanguageModel
    context: tuple[Fact, ...] = field(default=())


class Editor(ABC):
    """Learns facts into a model; subclasses set ``name`` and implement :meth:`edit`."""

    name: str = "editor"

    @abstractmethod
    def edit(self, edited: EditedLM, facts: Sequence[Fact]) -> EditedLM:
        """The model after learning ``facts`` on top of ``edited`` (left unchanged)."""


class InContextEditor(Editor):
    """In-context editing: the edited facts are written before each question."""

    name = "in_context"

    def edit(self, edited: EditedLM, facts: Sequence[Fact]) -> EditedLM:
        """Replace facts with the same subject and relation; append the new ones."""
        keys = {(f.subject, f.relation) for f in facts}
        kept = [f for f in edited.context if (f.subject, f.relation) not in keys]
        return replace(edited, context=tuple(kept) + tuple(dict.fromkeys(facts)))


class FineTuneEditor(Editor):
    """Fine-tuning on the edited facts: a model copy trained on "Question: q / Answer: a"."""

    name = "fine_tune"

    def __init__(self, epochs: int = 5, learning_rate: float = 1e-3, batch_size: int = 8, seed: int = 0):
        self.epochs, self.learning_rate, self.batch_size, self.seed = epochs, learning_rate, batch_size, seed

    def edit(self, edited: EditedLM, facts: Sequence[Fact]) -> EditedLM:
        """A copy of the model after ``epochs`` passes over ``facts`` with AdamW."""
        lm = edited.lm
        if lm.kind != "causal":
            raise ValueError("the fine-tuning editor answers by generation and needs a causal LM")
        model = copy.deepcopy(lm.model)
        model.train()
        optimizer = torch.optim.AdamW(model.parameters(), lr=self.learning_rate)
        generator = torch.Generator().manual_seed(self.seed)
        facts = list(dict.fromkeys(facts))
        device = next(model.parameters()).device
        # dropout draws from the global generator: seed it here, and leave the caller's as it was
        with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
            torch.manual_seed(self.seed)
            self._train(model, lm.tokenizer, facts, optimizer, generator, device)
        model.eval()
        return replace(edited, lm=replace(lm, model=model))

    def _train(self, model, tokenizer, facts, optimizer, generator, device) -> None:
        for _ in range(self.epochs):
            order = torch.randperm(len(facts), generator=generator).tolist()
            for start in range(0, len(order), self.batch_size):
                batch = [facts[i] for i in order[start : start + self.batch_size]]
                ids, mask, labels = _training_batch(tokenizer, batch, device)
                loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()


def prompt(question: str, context: Sequence[Fact] = ()) -> str:
    """The question prompt, after the facts in context (if any)."""
    facts = " ".join(f.statement for f in context)
    return (f"Facts: {facts}\n" if facts else "") + f"Question: {question}\nAnswer:"


def _with_bos(tokenizer, text: str) -> list[int]:
    ids = tokenizer(text).input_ids
    if tokenizer.bos_token_id is not None and (not ids or ids[0] != tokenizer.bos_token_id):
        ids = [tokenizer.bos_token_id, *ids]
    return ids


def _training_batch(tokenizer, facts: Sequence[Fact], device):
    rows = []
    for fact in facts:
        context = _with_bos(tokenizer, prompt(fact.question))
        answer = tokenizer(" " + fact.answer + "\n", add_special_tokens=False).input_ids
        rows.append((context + answer, [-100] * len(context) + answer))
    width = max(len(ids) for ids, _ in rows)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    ids = torch.full((len(rows), width), pad, dtype=torch.long)
    labels = torch.full((len(rows), width), -100, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, (tokens, targets) in enumerate(rows):
        ids[i, : len(tokens)] = torch.tensor(tokens)
        labels[i, : len(tokens)] = torch.tensor(targets)
        mask[i, : len(tokens)] = 1
    return ids.to(device), mask.to(device), labels.to(device)


def answer_questions(
    edited: EditedLM, questions: Sequence[str], max_new_tokens: int = 12, batch_size: int = 16
) -> list[str]:
    """Greedy answers of the edited model, cut at the first line break."""
    lm = edited.lm
    if lm.kind != "causal":
        raise ValueError("answering by generation needs a causal LM")
    tokenizer = lm.tokenizer
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    device = lm.device
    answers = []
    for start in range(0, len(questions), batch_size):
        encoded = [
            _with_bos(tokenizer, prompt(q, edited.context)) for q in questions[start : start + batch_size]
        ]
        width = max(len(e) for e in encoded)
        ids = torch.full((len(encoded), width), pad, dtype=torch.long)
        mask = torch.zeros((len(encoded), width), dtype=torch.long)
        for i, e in enumerate(encoded):  # left padding: generation continues every row at the end
            ids[i, width - len(e) :] = torch.tensor(e)
            mask[i, width - len(e) :] = 1
        with torch.inference_mode():
            out = lm.model.generate(
                input_ids=ids.to(device),
                attention_mask=mask.to(device),
                max_new_tokens=max_new_tokens,
                do_sample=False,
                pad_token_id=pad,
            )
        for row in out[:, width:].tolist():
            text = tokenizer.decode(row, skip_special_tokens=True)
            answers.append(text.split("\n")[0].strip())
    return answers


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalise_answer(text: str) -> str:
    """SQuAD normalisation: lower case, no punctuation, no articles, single spaces."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())
