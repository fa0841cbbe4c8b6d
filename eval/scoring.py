"""Statement scores of causal and masked language models: the unit the evaluation builds on.

* causal LMs: the log-likelihood of a statement, the sum of its tokens' log-probabilities
  given the tokens before them, after a BOS token (which is context, never scored);
* masked LMs: the pseudo-log-likelihood (Salazar et al. 2020) in lm-pub-quiz's variants —
  ``original`` masks each token alone, ``within_word_l2r`` masks the token and the rest of its
  word to the right (Kauf & Ivanova 2023).

With ``answer_starts`` only the tokens that end after that character are scored: the
conditional log-likelihood of an answer given its question (causal), or the PLL of the answer
span in its context (masked). Special tokens are never scored. The conventions equal
lm-pub-quiz 0.3.3's (tests/eval/test_scoring.py checks parity to 1e-4).

How it is fast:

* work is batched up to a token budget, sorted by length, with one vectorised gather per batch;
* causal statements that share a token prefix (the options of one question, the answers of one
  relation template for one subject) are grouped: the prefix runs once and its key/value cache
  is reused by every continuation;
* all masked copies of a statement go through the same batches, and for the common
  architectures the LM head runs only at the positions that are scored;
* under ``torch.distributed`` (``torchrun``) every rank scores a share of the batches and the
  scores are summed across ranks, so each rank returns the single-device result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import torch
import torch.distributed as dist
from tqdm.auto import tqdm

#: Wrappers whose logits are exactly ``head(base_model(...).last_hidden_state)``; for these the
#: head runs on the scored positions only. Others (logit soft-capping, scaling) use ``.logits``.
PLAIN_HEADS = {
    "GPT2LMHeadModel": "lm_head",
    "GPTNeoXForCausalLM": "embed_out",
    "LlamaForCausalLM": "lm_head",
    "MistralForCausalLM": "lm_head",
    "Qwen2ForCausalLM": "lm_head",
    "BertForMaskedLM": "cls",
    "RobertaForMaskedLM": "lm_head",
    "XLMRobertaForMaskedLM": "lm_head",
}
#: The least number of shared tokens (BOS included) worth a separate prefix pass.
MIN_SHARED_PREFIX = 3
#: The most continuations that share one prefix pass.
MAX_GROUP = 512


def score_statements(
    model,
    tokenizer,
    statements: Sequence[str],
    kind: Literal["causal", "masked"] = "causal",
    pll: Literal["original", "within_word_l2r"] = "within_word_l2r",
    batch_tokens: int = 4096,
    device: str | torch.device | None = None,
    answer_starts: Sequence[int] | None = None,
    share_prefixes: bool = True,
    return_token_counts: bool = False,
    progress: bool | None = None,
) -> list[float] | tuple[list[float], list[int]]:
    """Sum of token log-probabilities (causal) or pseudo-log-likelihood (masked) per statement.

    ``answer_starts[i]`` restricts statement i's scored tokens to those ending after that
    character offset. ``share_prefixes`` (causal) runs shared token prefixes once.
    ``return_token_counts`` also returns the number of scored tokens per statement (for
    length-normalised scores). ``progress`` shows a statements/s bar (None: when a terminal).
    """
    if kind not in ("causal", "masked"):
        raise ValueError(f"kind must be 'causal' or 'masked', not {kind!r}")
    if pll not in ("original", "within_word_l2r"):
        raise ValueError(f"pll must be 'original' or 'within_word_l2r', not {pll!r}")
    if answer_starts is not None and len(answer_starts) != len(statements):
        raise ValueError(f"answer_starts has {len(answer_starts)} entries for {len(statements)} statements")
    if batch_tokens < 1:
        raise ValueError(f"batch_tokens must be positive, not {batch_tokens}")
    device = torch.device(device) if device is not None else next(model.parameters()).device
    model.eval()
    if kind == "causal":
        rows = _causal_rows(tokenizer, statements, answer_starts)
        plain, groups = _prefix_groups(rows) if share_prefixes else (rows, [])
    else:
        rows = _masked_rows(tokenizer, statements, answer_starts, pll)
        plain, groups = rows, []
    counts = [0] * len(statements)
    for _, targets, owner, _ in rows if kind == "causal" else plain:
        counts[owner] += len(targets)
    copies = [0] * len(statements)
    for _, _, owner, _ in plain:
        copies[owner] += 1
    work = [("plain", b) for b in _plain_batches(plain, batch_tokens)]
    work += [("shared", b) for b in _group_batches(groups, batch_tokens)]
    rank, world = (dist.get_rank(), dist.get_world_size()) if _distributed() else (0, 1)
    mine = work[rank::world]
    totals = torch.zeros(len(statements), dtype=torch.float64)
    bar = tqdm(
        total=len(statements), desc="scoring", unit="stmt", disable=None if progress is None else not progress
    )
    done = 0.0
    with torch.inference_mode():
        for what, batch in mine:
            if what == "plain":
                owners, scores = _score_plain(model, batch, kind, device)
                done += sum(1 / copies[o] for o in owners)
            else:
                owners, scores = _score_shared(model, batch, device)
                done += len(owners)
            totals.index_add_(0, torch.tensor(owners, dtype=torch.long), scores)
            bar.update(int(done) - bar.n)
    bar.close()
    if world > 1:
        dist.all_reduce(totals, op=dist.ReduceOp.SUM)
    scores = totals.tolist()
    return (scores, counts) if return_token_counts else scores


def _distributed() -> bool:
    return dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1


# ---------------------------------------------------------------- rows: (ids, scored positions, owner)


def _encode(tokenizer, texts: list[str], with_offsets: bool):
    return tokenizer(
        texts,
        add_special_tokens=True,
        return_special_tokens_mask=True,
        return_offsets_mapping=with_offsets,
    )


def _scored(encoding, row: int, start: int | None, shift: int = 0) -> list[int]:
    special = encoding["special_tokens_mask"][row]
    if start is None:
        return [i for i, s in enumerate(special) if not s]
    offsets = encoding["offset_mapping"][row]
    return [i for i, s in enumerate(special) if not s and offsets[i][1] > start + shift]


def _causal_rows(tokenizer, statements, answer_starts):
    if tokenizer.bos_token is None:
        raise ValueError(
            "causal scoring needs a BOS token as first context, and this tokenizer has none: "
            "set tokenizer.bos_token (for example to its eos token)"
        )
    texts = list(statements)
    with_offsets = answer_starts is not None
    encoding = _encode(tokenizer, texts, with_offsets)
    # like lm-pub-quiz: without a BOS from the tokenizer, the BOS text is prepended
    redo = [i for i, ids in enumerate(encoding["input_ids"]) if not ids or ids[0] != tokenizer.bos_token_id]
    again = _encode(tokenizer, [tokenizer.bos_token + texts[i] for i in redo], with_offsets) if redo else None
    where = {i: j for j, i in enumerate(redo)}
    rows = []
    for i in range(len(texts)):
        start = answer_starts[i] if with_offsets else None
        if i in where:
            ids = again["input_ids"][where[i]]
            scored = _scored(again, where[i], start, len(tokenizer.bos_token))
        else:
            ids = encoding["input_ids"][i]
            scored = _scored(encoding, i, start)
        targets = [p for p in scored if p >= 1]
        rows.append((ids, targets, i, [ids[p] for p in targets]))
    return rows


def _masked_rows(tokenizer, statements, answer_starts, pll: str):
    if tokenizer.mask_token_id is None:
        raise ValueError("masked scoring needs a tokenizer with a mask token")
    encoding = _encode(tokenizer, list(statements), answer_starts is not None)
    rows = []
    for i in range(len(statements)):
        ids = encoding["input_ids"][i]
        words = encoding.word_ids(i)
        scored = _scored(encoding, i, answer_starts[i] if answer_starts is not None else None)
        for j, position in enumerate(scored):
            masked = list(ids)
            masked[position] = tokenizer.mask_token_id
            if pll == "within_word_l2r" and words[position] is not None:
                for later in scored[j + 1 :]:
                    if words[later] != words[position]:
                        break
                    masked[later] = tokenizer.mask_token_id
            rows.append((masked, [position], i, [ids[position]]))
    return rows


def _common_prefix(a: list[int], b: list[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _prefix_groups(rows):
    """Split causal rows into plain ones and groups sharing a token prefix.

    A group is (prefix length, members); every member keeps at least one token after the
    prefix. Rows are sorted by token ids so rows with common prefixes are neighbours.
    """
    order = sorted(range(len(rows)), key=lambda i: rows[i][0])
    plain, groups = [], []
    members: list[int] = []
    shared = 0

    def close():
        if len(members) > 1:
            groups.append((shared, [rows[m] for m in members]))
        else:
            plain.extend(rows[m] for m in members)

    for index in order:
        ids = rows[index][0]
        if members:
            first = rows[members[0]][0]
            common = min(_common_prefix(first, ids), len(ids) - 1, len(first) - 1)
            if len(members) == 1:
                candidate = common
            else:
                candidate = min(common, shared)
            if (
                candidate >= MIN_SHARED_PREFIX
                and len(members) < MAX_GROUP
                and (len(members) == 1 or 4 * candidate >= 3 * shared)
            ):
                members.append(index)
                shared = candidate
                continue
            close()
        members, shared = [index], 0
    if members:
        close()
    return plain, groups


# ---------------------------------------------------------------- batching


def _plain_batches(rows, batch_tokens: int):
    order = sorted(range(len(rows)), key=lambda i: len(rows[i][0]))
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and len(rows[order[end]][0]) * (end - start + 1) <= batch_tokens:
            end += 1
        yield [rows[i] for i in order[start:end]]
        start = end


def _group_batches(groups, batch_tokens: int):
    groups = sorted(groups, key=lambda g: (g[0], max(len(m[0]) for m in g[1])))
    batch, prefix_width, tail_width, n_members = [], 0, 0, 0
    for group in groups:
        shared, members = group
        tail = max(len(ids) - shared for ids, *_ in members)
        width, tails, n = max(prefix_width, shared), max(tail_width, tail), n_members + len(members)
        cost = (len(batch) + 1) * width + n * tails
        if batch and (cost > batch_tokens or n * width > 4 * batch_tokens):
            yield batch
            batch, width, tails, n = [], shared, tail, len(members)
        batch.append(group)
        prefix_width, tail_width, n_members = width, tails, n
    if batch:
        yield batch


# ---------------------------------------------------------------- forward passes


def _forward(model, input_ids, attention_mask, rows, positions, position_ids=None, past=None, cache=False):
    """Float32 logits at the (row, position) pairs, and the key/value cache when asked for."""
    kwargs = {"input_ids": input_ids, "attention_mask": attention_mask}
    if position_ids is not None:
        kwargs["position_ids"] = position_ids
    if cache or past is not None:
        kwargs.update(past_key_values=past, use_cache=True)
    head = PLAIN_HEADS.get(type(model).__name__)
    if head is not None:
        out = model.base_model(**kwargs)
        logits = getattr(model, head)(out.last_hidden_state[rows, positions])
    else:
        out = model(**kwargs)
        logits = out.logits[rows, positions]
    return logits.float(), getattr(out, "past_key_values", None)


def _pad(sequences, device):
    width = max(len(s) for s in sequences)
    ids = torch.zeros((len(sequences), width), dtype=torch.long)
    mask = torch.zeros((len(sequences), width), dtype=torch.long)
    for row, s in enumerate(sequences):
        ids[row, : len(s)] = torch.tensor(s, dtype=torch.long)
        mask[row, : len(s)] = 1
    return ids.to(device), mask.to(device)


def _log_probs(logits: torch.Tensor, labels: list[int]) -> torch.Tensor:
    labels_t = torch.tensor(labels, dtype=torch.long, device=logits.device)
    return torch.log_softmax(logits, -1).gather(1, labels_t[:, None])[:, 0].double().cpu()


def _score_plain(model, batch, kind: str, device):
    ids, mask = _pad([r[0] for r in batch], device)
    rows, positions, labels, owners = [], [], [], []
    for row, (_, targets, owner, row_labels) in enumerate(batch):
        for position, label in zip(targets, row_labels, strict=True):
            rows.append(row)
            positions.append(position - 1 if kind == "causal" else position)
            labels.append(label)
            owners.append(owner)
    if not rows:
        return [], torch.zeros(0, dtype=torch.float64)
    logits, _ = _forward(
        model, ids, mask, torch.tensor(rows, device=device), torch.tensor(positions, device=device)
    )
    return owners, _log_probs(logits, labels)


def _score_shared(model, batch, device):
    """One prefix pass for the groups of the batch, then one pass over all their continuations."""
    ids, mask = _pad([members[0][0][:shared] for shared, members in batch], device)
    # logits needed from the prefix pass: at p-1 for every scored prefix token p, and at the last
    # prefix position, which predicts each member's first continuation token
    wanted: list[tuple[int, int]] = []
    for g, (shared, members) in enumerate(batch):
        wanted += [
            (g, p - 1) for p in sorted({p for _, targets, *_ in members for p in targets if p < shared})
        ]
        wanted.append((g, shared - 1))
    slot = {key: k for k, key in enumerate(wanted)}
    logits, cache = _forward(
        model,
        ids,
        mask,
        torch.tensor([g for g, _ in wanted], device=device),
        torch.tensor([p for _, p in wanted], device=device),
        position_ids=torch.arange(ids.shape[1], device=device).expand_as(ids),
        cache=True,
    )
    prefix_log_probs = torch.log_softmax(logits, -1)
    # the log-probability of each scored prefix token, looked up once per group
    prefix_tokens = [(k, batch[g][1][0][0][p + 1]) for k, (g, p) in enumerate(wanted) if p + 1 < batch[g][0]]
    token_log_prob = dict(
        zip(
            [k for k, _ in prefix_tokens],
            prefix_log_probs[
                torch.tensor([k for k, _ in prefix_tokens], dtype=torch.long, device=device),
                torch.tensor([t for _, t in prefix_tokens], dtype=torch.long, device=device),
            ]
            .double()
            .tolist(),
            strict=True,
        )
    )
    owners, prefix_scores, tails, group_of, offsets = [], [], [], [], []
    first_slots, first_rows, first_labels = [], [], []
    rows, positions, labels = [], [], []
    for g, (shared, members) in enumerate(batch):
        sums: dict[tuple[int, ...], float] = {}
        for member_ids, targets, owner, _ in members:
            in_prefix = tuple(p for p in targets if p < shared)
            if in_prefix not in sums:
                sums[in_prefix] = sum(token_log_prob[slot[(g, p - 1)]] for p in in_prefix)
            m = len(owners)
            owners.append(owner)
            prefix_scores.append(sums[in_prefix])
            tails.append(member_ids[shared:])
            group_of.append(g)
            offsets.append(shared)
            for p in targets:
                if p == shared:
                    first_slots.append(slot[(g, shared - 1)])
                    first_rows.append(m)
                    first_labels.append(member_ids[p])
                elif p > shared:
                    rows.append(m)
                    positions.append(p - shared - 1)
                    labels.append(member_ids[p])
    scores = torch.tensor(prefix_scores, dtype=torch.float64)
    if first_rows:
        first = prefix_log_probs[
            torch.tensor(first_slots, dtype=torch.long, device=device),
            torch.tensor(first_labels, dtype=torch.long, device=device),
        ]
        scores.index_add_(0, torch.tensor(first_rows, dtype=torch.long), first.double().cpu())
    if rows:
        groups = torch.tensor(group_of, dtype=torch.long, device=device)
        cache.batch_select_indices(groups)
        tail_ids, tail_mask = _pad(tails, device)
        position_ids = torch.tensor(offsets, device=device)[:, None] + torch.arange(
            tail_ids.shape[1], device=device
        )
        tail_logits, _ = _forward(
            model,
            tail_ids,
            torch.cat([mask[groups], tail_mask], dim=1),
            torch.tensor(rows, device=device),
            torch.tensor(positions, device=device),
            position_ids=position_ids,
            past=cache,
        )
        scores.index_add_(0, torch.tensor(rows, dtype=torch.long), _log_probs(tail_logits, labels))
    return owners, scores
