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

import contextlib
import copy
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch
import torch.distributed as dist
from tqdm.auto import tqdm

from probesmith.errors import ProbesmithError

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


class StatementTooLong(ProbesmithError):
    """A statement has more tokens than the model's context: it is refused, never truncated.

    Truncating would score another text than the one asked (and silently, per model); the
    statement's ``index`` lets a caller name the item it came from.
    """

    def __init__(self, index: int, statement: str, tokens: int, limit: int, what: str | None = None):
        self.index, self.statement, self.tokens, self.limit = index, statement, tokens, limit
        shown = statement if len(statement) <= 60 else statement[:57] + "..."
        what = what or f"statement {index} ({shown!r})"
        super().__init__(
            f"{what} is {tokens} tokens long, more than the model's context of {limit} tokens; nothing "
            "was scored. Shorten or remove it, or evaluate a model with a longer context."
        )

    def naming(self, what: str) -> StatementTooLong:
        """The same error, the statement named as ``what`` (e.g. its item's id)."""
        return StatementTooLong(self.index, self.statement, self.tokens, self.limit, what)


def context_length(model, tokenizer) -> int | None:
    """The most tokens ``model`` takes at once: its position table, or its tokenizer's limit if less."""
    config = getattr(model, "config", None)
    limits = [getattr(config, name, None) for name in ("n_positions", "max_position_embeddings")]
    limits = [n for n in limits if isinstance(n, int) and n > 0][:1]
    if getattr(config, "model_type", "") in ("roberta", "xlm-roberta", "camembert"):
        limits = [n - 2 for n in limits]  # two positions are the padding offset
    model_max = getattr(tokenizer, "model_max_length", None)
    if isinstance(model_max, int) and 0 < model_max < 1_000_000:
        limits.append(model_max)
    return min(limits) if limits else None


def _check_context(lengths, statements, limit: int | None) -> None:
    if limit is None:
        return
    for index, length in enumerate(lengths):
        if length > limit:
            raise StatementTooLong(index, statements[index], int(length), limit)


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
    bos: bool = True,
) -> list[float] | tuple[list[float], list[int]]:
    """Sum of token log-probabilities (causal) or pseudo-log-likelihood (masked) per statement.

    ``answer_starts[i]`` restricts statement i's scored tokens to those ending after that
    character offset. ``share_prefixes`` (causal) runs shared token prefixes once.
    ``return_token_counts`` also returns the number of scored tokens per statement (for
    length-normalised scores). ``progress`` shows a statements/s bar (None: when a terminal).
    ``device`` is where inputs go, by default the model's device (the model is not moved).
    ``bos=False`` (causal) does not prepend a BOS text when the tokenizer adds none: the first
    token is then context and never scored, as lm-evaluation-harness scores a continuation
    after a non-empty context (``answer_starts`` gives that context).
    """
    if kind not in ("causal", "masked"):
        raise ValueError(f"kind must be 'causal' or 'masked', not {kind!r}")
    if pll not in ("original", "within_word_l2r"):
        raise ValueError(f"pll must be 'original' or 'within_word_l2r', not {pll!r}")
    if answer_starts is not None and len(answer_starts) != len(statements):
        raise ValueError(f"answer_starts has {len(answer_starts)} entries for {len(statements)} statements")
    if batch_tokens < 1:
        raise ValueError(f"batch_tokens must be positive, not {batch_tokens}")
    if not statements:
        return ([], []) if return_token_counts else []
    device = torch.device(device) if device is not None else next(model.parameters()).device
    model.eval()
    counts = [0] * len(statements)
    if kind == "causal":
        rows = _causal_rows(tokenizer, statements, answer_starts, bos)
        _check_context([len(ids) for ids, *_ in rows], statements, context_length(model, tokenizer))
        plain, groups = _prefix_groups(rows) if share_prefixes else (rows, [])
        for _, targets, owner, _ in rows:
            counts[owner] += len(targets)
        work = [("plain", b) for b in _plain_batches(plain, batch_tokens)]
        work += [("shared", b) for b in _group_batches(groups, batch_tokens)]
    else:
        masked = _masked_copies(tokenizer, statements, answer_starts, pll)
        lengths = np.zeros(len(statements), dtype=np.int64)  # each statement's, from its copies
        np.maximum.at(lengths, masked.owners, masked.lengths)
        _check_context(lengths.tolist(), statements, context_length(model, tokenizer))
        counts = np.bincount(masked.owners, minlength=len(statements)).tolist()
        copy_counts = np.maximum(np.asarray(counts, dtype=np.float64), 1)
        work = [("masked", b) for b in _masked_batches(masked, batch_tokens)]
    rank, world = (dist.get_rank(), dist.get_world_size()) if is_distributed() else (0, 1)
    mine = work[rank::world]
    totals = torch.zeros(len(statements), dtype=torch.float64)
    shown = progress if rank == 0 else False  # one bar, on the first rank
    bar = tqdm(
        total=len(statements), desc="scoring", unit="stmt", disable=None if shown is None else not shown
    )
    done = 0.0
    with torch.inference_mode(), _attention_kernels(device):
        for what, batch in mine:
            if what == "masked":
                owners, scores = _score_masked(model, masked, batch, device)
                done += float((1 / copy_counts[owners]).sum())
            elif what == "plain":
                owners, scores = _score_plain(model, batch, device)
                done += len(batch)
            else:
                owners, scores = _score_shared(model, batch, device)
                done += len(owners)
            totals.index_add_(0, _index(owners), scores)
            bar.update(int(done) - bar.n)
    bar.close()
    if world > 1:
        dist.all_reduce(totals, op=dist.ReduceOp.SUM)
    scores = totals.tolist()
    return (scores, counts) if return_token_counts else scores


def _attention_kernels(device: torch.device):
    """On CUDA, attention by the memory-efficient or flash kernels rather than cuDNN's.

    cuDNN's attention plans a graph for every new batch shape; scoring's batches change shape
    all the time, and on an H100 that planning doubled the wall time of BEAR's statements
    (benchmarks/scoring.py, GPT-2 small in bfloat16: 7.4 s -> 3.7 s).
    """
    if device.type != "cuda":
        return contextlib.nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel

    return sdpa_kernel(
        [SDPBackend.EFFICIENT_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.MATH], set_priority=True
    )


def is_distributed() -> bool:
    """Whether this process is one of several ranks of an initialised torch.distributed group."""
    return dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1


# ---------------------------------------------------------------- rows: (ids, scored positions, owner)


def _encode(tokenizer, texts: list[str], offsets: bool = True, words: bool = True) -> list[tuple]:
    """(ids, special-token mask, character offsets, word ids) per text, with special tokens.

    A fast tokenizer's backend is called directly (the transformers wrapper costs more than the
    tokenization itself) unless it carries padding or truncation settings of its own.
    """
    backend = getattr(tokenizer, "backend_tokenizer", None) if getattr(tokenizer, "is_fast", False) else None
    if backend is not None and backend.padding is None and backend.truncation is None:
        # reading an Encoding attribute builds a Python list: read only what is needed
        return [
            (e.ids, e.special_tokens_mask, e.offsets if offsets else None, e.word_ids if words else None)
            for e in backend.encode_batch(texts, add_special_tokens=True)
        ]
    encoded = tokenizer(
        texts, add_special_tokens=True, return_special_tokens_mask=True, return_offsets_mapping=True
    )
    return [
        (
            encoded["input_ids"][i],
            encoded["special_tokens_mask"][i],
            encoded["offset_mapping"][i],
            encoded.word_ids(i),
        )
        for i in range(len(texts))
    ]


def _scored(special, offsets, start: int | None, shift: int = 0) -> list[int]:
    if start is None:
        return [i for i, s in enumerate(special) if not s]
    return [i for i, s in enumerate(special) if not s and offsets[i][1] > start + shift]


def _causal_rows(tokenizer, statements, answer_starts, bos: bool = True):
    if bos and tokenizer.bos_token is None:
        raise ValueError(
            "causal scoring needs a BOS token as first context, and this tokenizer has none: "
            "set tokenizer.bos_token (for example to its eos token)"
        )
    texts = list(statements)
    bos_text, bos_id = tokenizer.bos_token, tokenizer.bos_token_id
    with_offsets = answer_starts is not None
    # like lm-pub-quiz: without a BOS from the tokenizer, the BOS text is prepended; whether the
    # tokenizer adds one does not depend on the text, so the first statement decides for all
    first = _encode(tokenizer, texts[:1], False, False)
    prepend = bos and bool(texts) and (not first[0][0] or first[0][0][0] != bos_id)
    encoded = _encode(tokenizer, [bos_text + t for t in texts] if prepend else texts, with_offsets, False)
    shift = len(bos_text) if prepend else 0
    rows = []
    for i, (ids, special, offsets, _) in enumerate(encoded):
        start = answer_starts[i] if answer_starts is not None else None
        scored = _scored(special, offsets, start, shift)
        targets = [p for p in scored if p >= 1]
        rows.append((ids, targets, i, [ids[p] for p in targets]))
    return rows


@dataclass
class _MaskedCopies:
    """Every masked copy of every statement as one padded matrix plus per-copy arrays."""

    matrix: np.ndarray  # copies x longest statement, token ids (0 after each length)
    lengths: np.ndarray
    positions: np.ndarray  # the scored (masked) position of each copy
    labels: np.ndarray  # the original token there
    owners: np.ndarray  # the statement each copy belongs to


def _masked_copies(tokenizer, statements, answer_starts, pll: str) -> _MaskedCopies:
    mask_id = tokenizer.mask_token_id
    if mask_id is None:
        raise ValueError("masked scoring needs a tokenizer with a mask token")
    encoded = _encode(tokenizer, list(statements), answer_starts is not None, pll == "within_word_l2r")
    scored = [
        _scored(special, offsets, answer_starts[i] if answer_starts is not None else None)
        for i, (_, special, offsets, _) in enumerate(encoded)
    ]
    total = sum(len(s) for s in scored)
    width = max((len(e[0]) for e in encoded), default=1)
    matrix = np.zeros((total, width), dtype=np.int64)
    lengths, positions, labels, owners = (np.zeros(total, dtype=np.int64) for _ in range(4))
    row = 0
    for i, ((ids, _, _, words), chosen) in enumerate(zip(encoded, scored, strict=True)):
        if not chosen:
            continue
        k, n = len(chosen), len(ids)
        block = slice(row, row + k)
        at = np.asarray(chosen)
        tokens = np.asarray(ids, dtype=np.int64)
        masked = np.zeros((k, n), dtype=bool)
        masked[np.arange(k), at] = True
        if pll == "within_word_l2r":
            # the rest of the word to the right: later scored tokens with the same word id
            word = np.array([-1 - j if w is None else w for j, w in enumerate(words)])
            later = np.zeros((k, n), dtype=bool)
            later[:, at] = True
            later &= np.arange(n)[None, :] > at[:, None]
            later &= word[None, :] == word[at][:, None]
            masked |= later
        matrix[block, :n] = np.where(masked, mask_id, tokens[None, :])
        lengths[block], positions[block], labels[block], owners[block] = n, at, tokens[at], i
        row += k
    return _MaskedCopies(matrix, lengths, positions, labels, owners)


def _masked_batches(copies: _MaskedCopies, batch_tokens: int):
    """Index arrays of copies sorted by length that fill the token budget.

    A statement's copies are never split across batches unless they alone exceed the budget.
    """
    order = np.lexsort((copies.owners, copies.lengths))
    lengths, owners = copies.lengths[order], copies.owners[order]
    start = 0
    while start < len(order):
        end, width = start + 1, int(lengths[start])
        while end < len(order):
            width = max(width, int(lengths[end]))
            if width * (end - start + 1) > batch_tokens:
                break
            end += 1
        if end < len(order) and owners[end] == owners[end - 1]:
            first = end - 1
            while first > start and owners[first - 1] == owners[end]:
                first -= 1
            if first > start:
                end = first
        yield order[start:end]
        start = end


def _score_masked(model, copies: _MaskedCopies, index: np.ndarray, device):
    lengths = copies.lengths[index]
    width = int(lengths.max())
    ids = torch.from_numpy(copies.matrix[index, :width]).to(device)
    # equal lengths (the common case after sorting) need no mask: attention takes its fast path
    uniform = bool((lengths == width).all())
    mask = (
        None
        if uniform
        else torch.from_numpy((np.arange(width)[None, :] < lengths[:, None]).astype(np.int64)).to(device)
    )
    selected, _ = _forward(
        model,
        ids,
        mask,
        torch.arange(len(index), device=device),
        torch.from_numpy(copies.positions[index]).to(device),
    )
    return copies.owners[index], selected.token_log_probs(copies.labels[index])


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
            # joining shares `candidate` tokens of the new row but shortens every member's
            # shared prefix by `shared - candidate`: join only when that saves tokens
            if (
                candidate >= MIN_SHARED_PREFIX
                and len(members) < MAX_GROUP
                and candidate >= (shared - candidate) * (len(members) - 1)
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
        # the continuation pass holds every member's copy of its prefix's key/value cache
        if batch and (cost > batch_tokens or n * (width + tails) > 2 * batch_tokens):
            yield batch
            batch, width, tails, n = [], shared, tail, len(members)
        batch.append(group)
        prefix_width, tail_width, n_members = width, tails, n
    if batch:
        yield batch


# ---------------------------------------------------------------- forward passes


def _index(values, device=None) -> torch.Tensor:
    """An int64 tensor of ``values`` (a list or array), built through numpy.

    ``torch.tensor`` on a long Python list costs more than the forward pass on a GPU.
    """
    array = (
        values if isinstance(values, np.ndarray) else np.fromiter(values, dtype=np.int64, count=len(values))
    )
    tensor = torch.from_numpy(np.ascontiguousarray(array, dtype=np.int64))
    return tensor if device is None else tensor.to(device)


class _Selected:
    """Hidden states (or logits) at selected positions, turned into log-probabilities in chunks.

    Chunks keep each block of vocabulary-sized logits in cache on CPUs; on GPUs they are large.
    """

    def __init__(self, states: torch.Tensor, head):
        self.states, self.head = states, head
        self.chunk = 64 if states.device.type == "cpu" else 4096

    def _logits(self, index: slice) -> torch.Tensor:
        states = self.states[index]
        return (self.head(states) if self.head is not None else states).float()

    def token_log_probs(self, labels: list[int], start: int = 0) -> torch.Tensor:
        """The log-probability of each label at selected rows ``start, start + 1, ...`` (CPU float64)."""
        device = self.states.device
        labels_t = _index(labels, device)
        parts = []
        for at in range(0, len(labels), self.chunk):
            logits = self._logits(slice(start + at, start + at + self.chunk))
            parts.append(torch.log_softmax(logits, -1).gather(1, labels_t[at : at + self.chunk, None])[:, 0])
        return torch.cat(parts).double().cpu() if parts else torch.zeros(0, dtype=torch.float64)

    def log_softmax(self, start: int, end: int) -> torch.Tensor:
        """Whole log-distributions at selected rows ``start:end``."""
        return torch.log_softmax(self._logits(slice(start, end)), -1)


def _forward(model, input_ids, attention_mask, rows, positions, position_ids=None, past=None, cache=False):
    """The (row, position) pairs' states as :class:`_Selected`, and the key/value cache if asked."""
    kwargs = {"input_ids": input_ids, "attention_mask": attention_mask}
    if position_ids is not None:
        kwargs["position_ids"] = position_ids
    if cache or past is not None:
        kwargs.update(past_key_values=past, use_cache=True)
    head = PLAIN_HEADS.get(type(model).__name__)
    if head is not None:
        out = model.base_model(**kwargs)
        selected = _Selected(out.last_hidden_state[rows, positions], getattr(model, head))
    else:
        out = model(**kwargs)
        selected = _Selected(out.logits[rows, positions], None)
    return selected, getattr(out, "past_key_values", None)


def _tail_chunks(lengths: list[int], waste: float = 0.25) -> list[list[int]]:
    """Member indices in chunks of similar tail length: padding at most ``waste`` of a chunk."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    chunks: list[list[int]] = []
    real = 0
    for m in order:
        if chunks and (len(chunks[-1]) + 1) * lengths[m] <= (1 + waste) * (real + lengths[m]):
            chunks[-1].append(m)
            real += lengths[m]
        else:
            chunks.append([m])
            real = lengths[m]
    return chunks


def _pad(sequences, device):
    """Right-padded ids and attention mask of token sequences (lists or arrays)."""
    lengths = np.fromiter((len(s) for s in sequences), dtype=np.int64, count=len(sequences))
    filled = np.arange(lengths.max()) < lengths[:, None]
    ids = np.zeros(filled.shape, dtype=np.int64)
    ids[filled] = np.fromiter(
        itertools.chain.from_iterable(sequences), dtype=np.int64, count=int(lengths.sum())
    )
    return torch.from_numpy(ids).to(device), torch.from_numpy(filled.astype(np.int64)).to(device)


def _score_plain(model, batch, device):
    """Causal rows without a shared prefix: each row is predicted from its own earlier tokens."""
    ids, mask = _pad([r[0] for r in batch], device)
    counts = np.fromiter((len(r[1]) for r in batch), dtype=np.int64, count=len(batch))
    total = int(counts.sum())
    if not total:
        return [], torch.zeros(0, dtype=torch.float64)
    rows = np.repeat(np.arange(len(batch)), counts)
    owners = np.repeat(np.fromiter((r[2] for r in batch), dtype=np.int64, count=len(batch)), counts)
    positions = (
        np.fromiter(itertools.chain.from_iterable(r[1] for r in batch), dtype=np.int64, count=total) - 1
    )
    labels = np.fromiter(itertools.chain.from_iterable(r[3] for r in batch), dtype=np.int64, count=total)
    selected, _ = _forward(model, ids, mask, _index(rows, device), _index(positions, device))
    return owners, selected.token_log_probs(labels)


def _score_shared(model, batch, device):
    """One prefix pass for the groups of the batch, then one pass over all their continuations."""
    ids, mask = _pad([members[0][0][:shared] for shared, members in batch], device)
    # from the prefix pass: log p(token) of every scored prefix token (once per group), and the
    # whole distribution at each group's last prefix position, which predicts every member's
    # first continuation token
    prefix_slots, prefix_labels = [], []
    for g, (shared, members) in enumerate(batch):
        tokens = members[0][0]
        for p in sorted({p for _, targets, *_ in members for p in targets if p < shared}):
            prefix_slots.append((g, p - 1))
            prefix_labels.append(tokens[p])
    last_slots = [(g, shared - 1) for g, (shared, _) in enumerate(batch)]
    wanted = prefix_slots + last_slots
    selected, cache = _forward(
        model,
        ids,
        mask,
        _index([g for g, _ in wanted], device),
        _index([p for _, p in wanted], device),
        position_ids=torch.arange(ids.shape[1], device=device).expand_as(ids),
        cache=True,
    )
    token_log_prob = dict(zip(prefix_slots, selected.token_log_probs(prefix_labels).tolist(), strict=True))
    last = selected.log_softmax(len(prefix_slots), len(wanted))
    owners, prefix_scores, tails, group_of, offsets = [], [], [], [], []
    first_rows, first_labels = [], []
    rows, positions, labels = [], [], []
    for g, (shared, members) in enumerate(batch):
        sums: dict[tuple[int, ...], float] = {}
        for member_ids, targets, owner, _ in members:
            in_prefix = tuple(p for p in targets if p < shared)
            if in_prefix not in sums:
                sums[in_prefix] = sum(token_log_prob[(g, p - 1)] for p in in_prefix)
            m = len(owners)
            owners.append(owner)
            prefix_scores.append(sums[in_prefix])
            tails.append(member_ids[shared:])
            group_of.append(g)
            offsets.append(shared)
            for p in targets:
                if p == shared:
                    first_rows.append(m)
                    first_labels.append(member_ids[p])
                elif p > shared:
                    rows.append(m)
                    positions.append(p - shared - 1)
                    labels.append(member_ids[p])
    scores = torch.tensor(prefix_scores, dtype=torch.float64)
    if first_rows:
        first = last[
            _index([group_of[m] for m in first_rows], last.device),
            _index(first_labels, last.device),
        ]
        scores.index_add_(0, _index(first_rows), first.double().cpu())
    if rows:
        chunks = _tail_chunks([len(t) for t in tails])
        entries_of: dict[int, list[int]] = {}
        for k, m in enumerate(rows):
            entries_of.setdefault(m, []).append(k)
        for chunk in chunks:
            # members of one chunk have tails of similar length: little padding in their pass
            local = {m: j for j, m in enumerate(chunk)}
            picked = [k for m in chunk for k in entries_of.get(m, ())]
            groups = _index([group_of[m] for m in chunk], device)
            past = copy.deepcopy(cache) if len(chunks) > 1 else cache
            past.batch_select_indices(groups)
            tail_ids, tail_mask = _pad([tails[m] for m in chunk], device)
            position_ids = _index([offsets[m] for m in chunk], device)[:, None] + torch.arange(
                tail_ids.shape[1], device=device
            )
            tail, _ = _forward(
                model,
                tail_ids,
                torch.cat([mask[groups], tail_mask], dim=1),
                _index([local[rows[k]] for k in picked], device),
                _index([positions[k] for k in picked], device),
                position_ids=position_ids,
                past=past,
            )
            scores.index_add_(
                0, _index([rows[k] for k in picked]), tail.token_log_probs([labels[k] for k in picked])
            )
    return owners, scores
