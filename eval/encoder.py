"""The transformer choice-only baseline: an encoder fine-tuned on the answer choices alone.

Each choice is encoded without its question and scored by a one-logit head; the softmax runs
over an item's choices. ``model`` is a local path or hub id of a pretrained encoder, or
``"tiny"``: a small BERT built from its config with a WordPiece vocabulary trained on the
train choices, which needs no download (what the tests and offline machines use). It runs on
the GPU when there is one.
"""

from __future__ import annotations

import logging

import numpy as np
import polars as pl
import torch

from probesmith.builders.baselines import Baseline
from probesmith.eval.models import default_device, train_wordpiece

log = logging.getLogger(__name__)


def tiny_bert(vocab_size: int, max_length: int, seed: int):
    """A 2-layer, 64-wide BERT with a one-logit head, randomly initialised from its config."""
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=vocab_size,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=128,
        max_position_embeddings=max_length + 2,
        num_labels=1,
    )
    return BertForSequenceClassification(config)


class EncoderChoiceOnly(Baseline):
    """A transformer that sees only the choices."""

    name = "encoder_choice_only"

    def __init__(
        self,
        model: str = "tiny",
        epochs: int = 3,
        batch_items: int = 32,
        learning_rate: float | None = None,
        max_length: int = 64,
        device: str | None = None,
        seed: int = 0,
    ):
        self.model_name, self.epochs, self.batch_items = model, epochs, batch_items
        self.learning_rate = learning_rate or (1e-3 if model == "tiny" else 3e-5)
        self.max_length, self.device, self.seed = max_length, device or default_device(), seed
        self.tokenizer = None
        self.model = None

    def _load(self, train: pl.DataFrame) -> None:
        if self.model_name == "tiny":
            texts = [c for choices in train["choices"].to_list() for c in choices]
            self.tokenizer = train_wordpiece(texts)
            self.model = tiny_bert(len(self.tokenizer), self.max_length, self.seed)
        else:
            from transformers import AutoModelForSequenceClassification, AutoTokenizer

            self.tokenizer = AutoTokenizer.from_pretrained(self.model_name)
            self.model = AutoModelForSequenceClassification.from_pretrained(self.model_name, num_labels=1)
        self.model.to(self.device)

    def _logits(self, choices: list[list[str]]) -> torch.Tensor:
        flat = [c for item in choices for c in item]
        batch = self.tokenizer(
            flat, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt"
        ).to(self.device)
        scores = self.model(**batch).logits.squeeze(-1)
        width = max(len(item) for item in choices)
        logits = torch.full((len(choices), width), float("-inf"), device=self.device)
        start = 0
        for row, item in enumerate(choices):
            logits[row, : len(item)] = scores[start : start + len(item)]
            start += len(item)
        return logits

    def fit(self, train: pl.DataFrame) -> EncoderChoiceOnly:
        """Fine-tune on the choices of ``train`` with cross-entropy over each item's choices."""
        self._load(train)
        optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.learning_rate)
        generator = np.random.default_rng(self.seed)
        choices, answers = train["choices"].to_list(), train["answer_index"].to_list()
        self.model.train()
        for epoch in range(self.epochs):
            order = generator.permutation(len(choices))
            total = 0.0
            for start in range(0, len(order), self.batch_items):
                batch = order[start : start + self.batch_items]
                logits = self._logits([choices[i] for i in batch])
                target = torch.tensor([answers[i] for i in batch], device=self.device)
                loss = torch.nn.functional.cross_entropy(logits, target)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += loss.item() * len(batch)
            log.info("encoder choice-only epoch %d: loss %.4f", epoch + 1, total / len(order))
        return self

    def scores(self, data: pl.DataFrame) -> list[np.ndarray]:
        """The encoder's logit for every choice."""
        if self.model is None:
            raise RuntimeError("encoder_choice_only: call fit() before scores()")
        self.model.eval()
        choices = data["choices"].to_list()
        out: list[np.ndarray] = []
        with torch.no_grad():
            for start in range(0, len(choices), self.batch_items * 4):
                batch = choices[start : start + self.batch_items * 4]
                logits = self._logits(batch).float().cpu().numpy()
                out.extend(row[: len(item)] for row, item in zip(logits, batch, strict=True))
        return out
