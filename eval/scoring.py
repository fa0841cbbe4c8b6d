"""Statement scores of causal and masked language models: the unit the evaluation builds on.

* causal LMs: the log-likelihood of a statement, the sum of its tokens' log-probabilities
  given the tokens before them, after a BOS token (which is context, never scored);
* masked LMs: the pseudo-log-likelihood (Salazar et al. 2020) in lm-pub-quiz's variants —
  ``original`` masks each token alone, ``within_word_l2r`` masks the token and the rest of its
  word to the right (Kauf & Ivanova 2023).

Special tokens are never scored. Statements are sorted by length and batched up to a token
budget; the masked copies of a statement go into the same batches. The conventions equal
lm-pub-quiz 0.3.3's (tests/eval/test_scoring.py checks parity to 1e-4).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import torch


def score_statements(
    model,
    tokenizer,
    statements: Sequence[str],
    kind: Literal["causal", "masked"] = "causal",
    pll: Literal["original", "within_word_l2r"] = "within_word_l2r",
    batch_tokens: int = 4096,
    device: str | torch.device | None = None,
) -> list[float]:
    """Sum of token log-probabilities (causal) or pseudo-log-likelihood (masked) per statement."""
    if kind not in ("causal", "masked"):
        raise ValueError(f"kind must be 'causal' or 'masked', not {kind!r}")
    if pll not in ("original", "within_word_l2r"):
        raise ValueError(f"pll must be 'original' or 'within_word_l2r', not {pll!r}")
    device = torch.device(device) if device is not None else next(model.parameters()).device
    model.eval()
    if kind == "causal":
        rows = [_causal_row(tokenizer, s, index) for index, s in enumerate(statements)]
    else:
        rows = [r for index, s in enumerate(statements) for r in _masked_rows(tokenizer, s, index, pll)]
    totals = [0.0] * len(statements)
    order = sorted(range(len(rows)), key=lambda i: len(rows[i][0]))
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and len(rows[order[end]][0]) * (end - start + 1) <= batch_tokens:
            end += 1
        batch = [rows[i] for i in order[start:end]]
        for (_, _, statement, _), score in zip(batch, _score_batch(model, batch, kind, device), strict=True):
            totals[statement] += score
        start = end
    return totals


def _causal_row(tokenizer, statement: str, index: int):
    encoded = tokenizer(statement, add_special_tokens=True, return_special_tokens_mask=True)
    if not encoded["input_ids"] or encoded["input_ids"][0] != tokenizer.bos_token_id:
        encoded = tokenizer(
            tokenizer.bos_token + statement, add_special_tokens=True, return_special_tokens_mask=True
        )
    ids = encoded["input_ids"]
    # position i is predicted from positions < i; position 0 (BOS) is context only
    targets = [(i, ids[i]) for i in range(1, len(ids)) if not encoded["special_tokens_mask"][i]]
    return ids, targets, index, None


def _masked_rows(tokenizer, statement: str, index: int, pll: str):
    encoded = tokenizer(statement, add_special_tokens=True, return_special_tokens_mask=True)
    ids = encoded["input_ids"]
    words = encoded.word_ids()
    scored = [i for i, special in enumerate(encoded["special_tokens_mask"]) if not special]
    rows = []
    for j, position in enumerate(scored):
        masked = list(ids)
        masked[position] = tokenizer.mask_token_id
        if pll == "within_word_l2r" and words[position] is not None:
            for later in scored[j + 1 :]:
                if words[later] != words[position]:
                    break
                masked[later] = tokenizer.mask_token_id
        rows.append((masked, [(position, ids[position])], index, None))
    return rows


def _score_batch(model, batch, kind: str, device) -> list[float]:
    width = max(len(ids) for ids, *_ in batch)
    input_ids = torch.zeros((len(batch), width), dtype=torch.long)
    attention = torch.zeros((len(batch), width), dtype=torch.long)
    for row, (ids, *_) in enumerate(batch):
        input_ids[row, : len(ids)] = torch.tensor(ids)
        attention[row, : len(ids)] = 1
    with torch.no_grad():
        logits = model(input_ids=input_ids.to(device), attention_mask=attention.to(device)).logits.float()
    rows, positions, labels, owners = [], [], [], []
    for row, (_, targets, *_) in enumerate(batch):
        for position, label in targets:
            rows.append(row)
            positions.append(position - 1 if kind == "causal" else position)
            labels.append(label)
            owners.append(row)
    if not rows:
        return [0.0] * len(batch)
    selected = logits[torch.tensor(rows, device=logits.device), torch.tensor(positions, device=logits.device)]
    token_scores = torch.log_softmax(selected, -1)[
        torch.arange(len(labels)), torch.tensor(labels, device=logits.device)
    ]
    sums = torch.zeros(len(batch), dtype=torch.float64).index_add_(
        0, torch.tensor(owners), token_scores.double().cpu()
    )
    return sums.tolist()
