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

* causal statements are tokenised once, in one batched call of the fast tokenizer, into flat
  arrays (``tokens.py``), and kept per (tokenizer, statements) so that the next model with the
  same tokenizer starts at once (``token_cache``);
* causal statements that share a token prefix (the options of one question, the answers of one
  relation template for one subject) are grouped: the prefix runs once and its key/value cache
  is reused by every continuation. Grouping, batching and every index are numpy operations over
  the flat arrays (a sort of the token rows as byte strings, common-prefix lengths of
  neighbours), never a Python loop over statements;
* batches are prepared on a background thread (into pinned memory on CUDA) while the previous
  batch runs, and scores are summed on the device: no synchronisation until the end;
* work is batched up to a token budget, sorted by length; a statement's tokens after its last
  scored one never run; continuations run in chunks of similar length;
* all masked copies of a statement go through the same batches, and for the common
  architectures the LM head runs only at the positions that are scored;
* under ``torch.distributed`` (``torchrun``) every rank scores a share of the batches and the
  scores are summed across ranks, so each rank returns the single-device result.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import itertools
import weakref
from collections import deque
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import torch
import torch.distributed as dist
from tqdm.auto import tqdm

from probesmith.errors import ProbesmithError
from probesmith.eval.placement import auto_batch_tokens
from probesmith.eval.tokens import Encoded, TokenCache

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


#: Causal models whose attention takes a 4D mask and explicit position ids as given (the packed path).
PACKABLE = {
    "GPT2LMHeadModel",
    "GPTNeoXForCausalLM",
    "LlamaForCausalLM",
    "MistralForCausalLM",
    "Qwen2ForCausalLM",
}


def packable(model) -> bool:
    """Whether ``model`` can score packed rows: a :data:`PACKABLE` class with sdpa or eager attention."""
    implementation = getattr(getattr(model, "config", None), "_attn_implementation", None)
    return type(model).__name__ in PACKABLE and implementation in ("sdpa", "eager")


def _additive_masks(model) -> bool:
    """Whether the model's attention adds its mask (eager) rather than taking a boolean one (sdpa)."""
    return getattr(getattr(model, "config", None), "_attn_implementation", None) == "eager"


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
    over = np.flatnonzero(np.asarray(lengths) > limit)
    if len(over):
        index = int(over[0])
        raise StatementTooLong(index, statements[index], int(lengths[index]), limit)


#: The least number of shared tokens (BOS included) worth a separate prefix pass.
MIN_SHARED_PREFIX = 3
#: The most continuations that share one prefix pass.
MAX_GROUP = 512
#: Prefix grouping compares at most this many leading tokens of each statement.
MAX_PREFIX_COLUMNS = 512


def input_device(model) -> torch.device:
    """Where a model takes its inputs: its input embeddings' device (a device-mapped model's first)."""
    embeddings = model.get_input_embeddings() if hasattr(model, "get_input_embeddings") else None
    weight = getattr(embeddings, "weight", None)
    if weight is not None and weight.device.type != "meta":
        return weight.device
    hook = getattr(embeddings, "_hf_hook", None)  # offloaded: where accelerate runs it
    if getattr(hook, "execution_device", None) is not None:
        return torch.device(hook.execution_device)
    return next((p.device for p in model.parameters() if p.device.type != "meta"), torch.device("cpu"))


def score_statements(
    model,
    tokenizer,
    statements: Sequence[str],
    kind: Literal["causal", "masked"] = "causal",
    pll: Literal["original", "within_word_l2r"] = "within_word_l2r",
    batch_tokens: int | Literal["auto"] = "auto",
    device: str | torch.device | None = None,
    answer_starts: Sequence[int] | None = None,
    share_prefixes: bool = True,
    return_token_counts: bool = False,
    progress: bool | None = None,
    bos: bool = True,
    token_cache: TokenCache | str | Path | None = None,
    prefetch: bool | None = None,
    packing: bool | None = None,
) -> list[float] | tuple[list[float], list[int]]:
    """Sum of token log-probabilities (causal) or pseudo-log-likelihood (masked) per statement.

    ``answer_starts[i]`` restricts statement i's scored tokens to those ending after that
    character offset. ``share_prefixes`` (causal) runs shared token prefixes once.
    ``return_token_counts`` also returns the number of scored tokens per statement (for
    length-normalised scores). ``progress`` shows a statements/s bar (None: when a terminal).
    ``device`` is where inputs go, by default the model's input embeddings' device (the model is
    not moved; a model placed across devices by a device map is scored as it lies).
    ``batch_tokens`` is the token budget of one forward pass; ``"auto"`` sizes it from the free
    memory of a CUDA device and the model (``placement.auto_batch_tokens``), and is 4096 on CPU.
    ``bos=False`` (causal) does not prepend a BOS text when the tokenizer adds none: the first
    token is then context and never scored, as lm-evaluation-harness scores a continuation
    after a non-empty context (``answer_starts`` gives that context).
    ``token_cache`` (causal): a :class:`TokenCache` or a folder for one; by default encodings are
    kept in memory for the process only. ``prefetch``: prepare batch k+1 on a background thread
    while batch k runs (None: on CUDA devices, where the host would otherwise leave the GPU
    waiting; on a CPU the thread would take a core from the model's own threads).
    ``packing`` (causal, with ``share_prefixes``): a group's prefix and its continuations run in one
    row of a single forward pass, several groups to a row, with a block attention mask (see
    :func:`_packed_batches`); None: where the model takes such a mask (:func:`packable`), else the
    prefix runs first and the continuations from its key/value cache.
    """
    if kind not in ("causal", "masked"):
        raise ValueError(f"kind must be 'causal' or 'masked', not {kind!r}")
    if pll not in ("original", "within_word_l2r"):
        raise ValueError(f"pll must be 'original' or 'within_word_l2r', not {pll!r}")
    if answer_starts is not None and len(answer_starts) != len(statements):
        raise ValueError(f"answer_starts has {len(answer_starts)} entries for {len(statements)} statements")
    if batch_tokens != "auto" and (not isinstance(batch_tokens, int) or batch_tokens < 1):
        raise ValueError(f"batch_tokens must be a positive integer or 'auto', not {batch_tokens!r}")
    if not statements:
        return ([], []) if return_token_counts else []
    device = torch.device(device) if device is not None else input_device(model)
    if batch_tokens == "auto":
        batch_tokens = auto_batch_tokens(model, device)
    if packing and kind == "causal" and not packable(model):
        raise ValueError(
            "packing=True needs a causal model that takes a 4D attention mask "
            f"({', '.join(sorted(PACKABLE))} with sdpa or eager attention); leave packing=None "
            "to use the key/value cache path"
        )
    model.eval()
    # float64 sums on the device; MPS has no float64
    totals = torch.zeros(len(statements), dtype=torch.float32 if device.type == "mps" else torch.float64)
    totals = totals.to(device)
    if kind == "causal":
        if not isinstance(token_cache, TokenCache):
            token_cache = TokenCache(token_cache)
        packing = packable(model) if packing is None else packing
        rows, work = _planned(
            tokenizer, statements, answer_starts, bos, token_cache, batch_tokens, share_prefixes, packing
        )
        _check_context(rows.encoded.lengths, statements, context_length(model, tokenizer))
        counts = np.bincount(rows.owner_of_token[rows.scored], minlength=len(statements))
        prepare = _CausalPreparer(rows, device)
        additive = _additive_masks(model)
    else:
        masked = _masked_copies(tokenizer, statements, answer_starts, pll)
        lengths = np.zeros(len(statements), dtype=np.int64)  # each statement's, from its copies
        np.maximum.at(lengths, masked.owners, masked.lengths)
        _check_context(lengths, statements, context_length(model, tokenizer))
        counts = np.bincount(masked.owners, minlength=len(statements))
        copy_counts = np.maximum(counts.astype(np.float64), 1)
        work = [("masked", b) for b in _masked_batches(masked, batch_tokens)]
        prepare = None
    rank, world = (dist.get_rank(), dist.get_world_size()) if is_distributed() else (0, 1)
    mine = work[rank::world]
    shown = progress if rank == 0 else False  # one bar, on the first rank
    bar = tqdm(
        total=len(statements), desc="scoring", unit="stmt", disable=None if shown is None else not shown
    )
    done = 0.0
    prefetch = device.type == "cuda" if prefetch is None else prefetch
    pinned = device.type == "cuda" and prefetch
    batches = _prefetched(mine, prepare, pinned, prefetch) if prepare is not None else mine
    with torch.inference_mode(), _attention_kernels(device):
        for what, batch in batches:
            if what == "masked":
                owners, scores = _score_masked(model, masked, batch, device)
                totals.index_add_(0, _index(owners, totals.device), scores.to(totals.device, totals.dtype))
                done += float((1 / copy_counts[owners]).sum())
            elif what == "plain":
                _score_plain(model, batch, device, totals)
                done += batch["statements"]
            elif what == "packed":
                _score_packed(model, batch, device, totals, additive)
                done += batch["statements"]
            else:
                _score_shared(model, batch, device, totals)
                done += batch["statements"]
            bar.update(int(done) - bar.n)
    bar.close()
    if world > 1:
        dist.all_reduce(totals, op=dist.ReduceOp.SUM)
    scores = totals.cpu().double().tolist()
    return (scores, counts.tolist()) if return_token_counts else scores


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


def _prefetched(work, prepare, pinned: bool, background: bool, ahead: int = 2):
    """``(what, prepare(item))`` per work item, prepared ``ahead`` items early on one background thread.

    The thread builds numpy arrays and CPU tensors (pinned for CUDA); numpy and torch release
    the GIL in their loops, so preparation runs while the device works on the batch before.
    """
    if not background:
        for what, item in work:
            yield what, prepare(what, item, pinned)
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="probesmith-batches") as pool:
        pending: deque = deque()
        items = iter(work)
        for what, item in itertools.islice(items, ahead):
            pending.append((what, pool.submit(prepare, what, item, pinned)))
        while pending:
            what, future = pending.popleft()
            for next_what, next_item in itertools.islice(items, 1):
                pending.append((next_what, pool.submit(prepare, next_what, next_item, pinned)))
            yield what, future.result()


# ---------------------------------------------------------------- causal rows as flat arrays


@dataclass(frozen=True)
class _CausalRows:
    """Every causal statement's tokens (one row per statement) and which of them are scored.

    ``scored`` is aligned with ``encoded.ids``: a token is scored when it is no special token,
    not the first of its row (it is context), and ends after the answer start where one is given.
    ``last`` is each row's last scored position (0: nothing scored); tokens after it never run.
    """

    encoded: Encoded
    scored: np.ndarray
    owner_of_token: np.ndarray
    position: np.ndarray  # each token's position in its row
    last: np.ndarray


def _causal_encoding(tokenizer, statements, offsets: bool, bos: bool, cache: TokenCache | None):
    """The statements' encoding, a BOS text prepended where needed, and that text's length."""
    if bos and tokenizer.bos_token is None:
        raise ValueError(
            "causal scoring needs a BOS token as first context, and this tokenizer has none: "
            "set tokenizer.bos_token (for example to its eos token)"
        )
    cache = cache if cache is not None else TokenCache()
    texts = list(statements)
    bos_text, bos_id = tokenizer.bos_token, tokenizer.bos_token_id
    # like lm-pub-quiz: without a BOS from the tokenizer, the BOS text is prepended; whether the
    # tokenizer adds one does not depend on the text, so the first statement decides for all
    first = _encode(tokenizer, texts[:1], False, False)
    prepend = bos and bool(texts) and (not first[0][0] or first[0][0][0] != bos_id)
    encoded = cache.encode(tokenizer, [bos_text + t for t in texts] if prepend else texts, offsets)
    return encoded, len(bos_text) if prepend else 0


def _rows_of(encoded: Encoded, answer_starts, shift: int) -> _CausalRows:
    """Which tokens are scored: not special, not first, ending after the answer start (+ ``shift``)."""
    lengths = encoded.lengths
    count = len(lengths)
    owner = np.repeat(np.arange(count, dtype=np.int64), lengths)
    position = np.arange(len(encoded.ids), dtype=np.int64) - encoded.starts[:-1][owner]
    scored = ~encoded.special & (position >= 1)
    if answer_starts is not None:
        starts = np.asarray(answer_starts, dtype=np.int64) + shift
        scored &= encoded.ends > starts[owner]
    last = np.zeros(count, dtype=np.int64)
    np.maximum.at(last, owner[scored], position[scored])
    return _CausalRows(encoded, scored, owner, position, last)


def _causal_rows(tokenizer, statements, answer_starts, bos: bool = True, cache: TokenCache | None = None):
    """Every statement's tokens and scored positions (see :class:`_CausalRows`)."""
    encoded, shift = _causal_encoding(tokenizer, statements, answer_starts is not None, bos, cache)
    return _rows_of(encoded, answer_starts, shift)


#: Plans of recent encodings (kept while the token cache keeps the encoding): a second model with
#: the same tokenizer and budget reuses the rows and batches of the first.
_PLANS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _planned(
    tokenizer, statements, answer_starts, bos, cache, batch_tokens: int, share_prefixes: bool, packing: bool
):
    """The causal rows and their batches, reused when the same encoding was planned alike before."""
    encoded, shift = _causal_encoding(tokenizer, statements, answer_starts is not None, bos, cache)
    starts = (
        None if answer_starts is None else hashlib.sha1(np.asarray(answer_starts, dtype=np.int64)).hexdigest()
    )
    key = (shift, starts, batch_tokens, share_prefixes, packing)
    plans = _PLANS.setdefault(encoded, {})
    if key not in plans:
        plans.clear()  # one plan per encoding is what a run of several models needs
        rows = _rows_of(encoded, answer_starts, shift)
        plans[key] = (rows, _causal_plan(rows, batch_tokens, share_prefixes, packing))
    return plans[key]


def _prefix_groups(rows: _CausalRows, candidates: np.ndarray):
    """Split rows into plain ones and groups sharing a token prefix, by array operations.

    Rows are sorted as byte strings of their (big-endian) token ids, which is the lexicographic
    order of the id lists, so rows with common prefixes are neighbours. ``common[e]`` is the
    common prefix of neighbours e and e+1, cut so every row keeps a token after it. An edge
    joins its rows when it shares at least ``MIN_SHARED_PREFIX`` tokens and no less than the
    better edge of either row (a row between two subjects goes with neither), and a group
    shares the least common prefix of its edges.

    Returns (plain rows, group of each member, members in group order, shared tokens per group).
    """
    empty = np.zeros(0, dtype=np.int64)
    if len(candidates) < 2:
        return candidates, empty, empty, empty
    encoded = rows.encoded
    lengths = rows.last[candidates] + 1  # the tokens that matter: up to the last scored one
    width = int(min(lengths.max(), MAX_PREFIX_COLUMNS))
    columns = np.arange(width)
    inside = columns < lengths[:, None]
    flat = encoded.starts[candidates][:, None] + np.minimum(columns, lengths[:, None] - 1)
    matrix = np.where(inside, encoded.ids[flat] + 1, 0).astype(">u4")  # 0 pads: shorter first
    keys = np.ascontiguousarray(matrix).view(f"S{4 * width}").ravel()
    order = np.argsort(keys, kind="stable")
    ordered = matrix[order]
    lengths = lengths[order]
    same = ordered[1:] == ordered[:-1]
    common = np.where(same.all(axis=1), width, same.argmin(axis=1))
    common = np.minimum(common, np.minimum(lengths[1:], lengths[:-1]) - 1)
    best = np.zeros(len(order), dtype=np.int64)  # each row's better edge
    best[:-1] = common
    best[1:] = np.maximum(best[1:], common)
    cut = (common < MIN_SHARED_PREFIX) | (common < np.minimum(best[:-1], best[1:]))
    group = np.concatenate([[0], np.cumsum(cut)])
    first = np.flatnonzero(np.concatenate([[True], cut]))
    within = np.arange(len(order)) - first[group]
    cut |= within[1:] % MAX_GROUP == 0  # at most MAX_GROUP rows share one prefix pass
    group = np.concatenate([[0], np.cumsum(cut)])
    first = np.flatnonzero(np.concatenate([[True], cut]))
    sizes = np.bincount(group)
    edges = np.append(np.where(cut, np.iinfo(np.int64).max, common), np.iinfo(np.int64).max)
    shared = np.minimum.reduceat(edges, first)
    grouped = sizes[group] > 1
    plain = candidates[order[~grouped]]
    members = candidates[order[grouped]]
    kept = np.flatnonzero(sizes > 1)
    renumber = np.full(len(sizes), -1, dtype=np.int64)
    renumber[kept] = np.arange(len(kept))
    return plain, renumber[group[grouped]], members, shared[kept]


def _causal_plan(
    rows: _CausalRows, batch_tokens: int, share_prefixes: bool, packing: bool = False
) -> list[tuple[str, dict]]:
    """The batches of causal work: ``("plain", {rows})`` and ``("shared"|"packed", {groups})`` items."""
    candidates = np.flatnonzero(rows.last > 0)  # a statement with nothing scored needs no pass
    if share_prefixes:
        plain, member_group, members, shared = _prefix_groups(rows, candidates)
    else:
        plain, member_group, members, shared = candidates, *(np.zeros(0, dtype=np.int64),) * 3
    work: list[tuple[str, dict]] = [
        ("plain", {"rows": b}) for b in _plain_batches(rows.last[plain], plain, batch_tokens)
    ]
    if packing:
        work += [("packed", b) for b in _packed_batches(rows, member_group, members, shared, batch_tokens)]
    else:
        work += [("shared", b) for b in _group_batches(rows, member_group, members, shared, batch_tokens)]
    return work


# ---------------------------------------------------------------- batching


def _plain_batches(inputs: np.ndarray, rows: np.ndarray, batch_tokens: int):
    """Rows sorted by the tokens they run (``inputs``), cut where padding would pass the budget."""
    order = np.argsort(inputs, kind="stable")
    inputs, rows = inputs[order], rows[order]
    start = 0
    while start < len(rows):
        # the widest row is the last: the batch [start, end) costs inputs[end - 1] * (end - start)
        ends = np.arange(start + 1, len(rows) + 1)
        fits = inputs[ends - 1] * (ends - start) <= batch_tokens
        end = start + 1 + int(np.argmin(fits[1:])) if not fits[1:].all() else len(rows)
        end = max(end, start + 1)
        yield rows[start:end]
        start = end


def _group_batches(rows: _CausalRows, member_group, members, shared, batch_tokens: int):
    """Groups in batches: one prefix pass (groups x widest prefix) and the continuations' passes.

    A batch holds groups while ``groups x widest prefix + members x widest continuation`` fits
    the budget and the continuations' copies of the prefix key/value cache stay within twice it.
    """
    if not len(members):
        return
    tails = rows.last[members] - shared[member_group]
    n_groups = len(shared)
    size = np.bincount(member_group, minlength=n_groups)
    tail = np.zeros(n_groups, dtype=np.int64)
    np.maximum.at(tail, member_group, tails)
    first = np.concatenate([[0], np.cumsum(size)[:-1]])
    order = np.lexsort((tail, shared))
    batch: list[int] = []
    prefix_width = tail_width = n_members = 0
    for g in order.tolist():
        width, tails_w, n = max(prefix_width, shared[g]), max(tail_width, tail[g]), n_members + size[g]
        cost = (len(batch) + 1) * width + n * tails_w
        if batch and (cost > batch_tokens or n * (width + tails_w) > 2 * batch_tokens):
            yield _group_batch(batch, first, size, members, shared)
            batch, width, tails_w, n = [], shared[g], tail[g], size[g]
        batch.append(g)
        prefix_width, tail_width, n_members = int(width), int(tails_w), int(n)
    if batch:
        yield _group_batch(batch, first, size, members, shared)


def _group_batch(groups: list[int], first, size, members, shared) -> dict:
    groups_a = np.asarray(groups, dtype=np.int64)
    counts = size[groups_a]
    local = np.repeat(np.arange(len(groups_a)), counts)
    offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    return {
        "shared": shared[groups_a],
        "members": members[np.repeat(first[groups_a], counts) + offsets],
        "member_group": local,
    }


#: The least width of a packed row: rows hold several groups (prefix and continuations) each.
PACKED_WIDTH = 256


def _ragged_arange(counts: np.ndarray) -> np.ndarray:
    """``concatenate([arange(c) for c in counts])`` without a Python loop."""
    total = int(counts.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    starts = np.cumsum(counts) - counts
    return np.arange(total, dtype=np.int64) - np.repeat(starts, counts)


def _packed_batches(rows: _CausalRows, member_group, members, shared, batch_tokens: int):
    """Groups packed into rows of one width, several to a row, and rows into batches of the budget.

    A *unit* is a group's prefix followed by the continuations (inputs after the prefix, up to the
    last scored token) of some of its members; a group whose continuations do not fit one row is
    split into units that each repeat the prefix. Units are laid end to end into rows of
    ``width`` tokens (at least :data:`PACKED_WIDTH`), longest first, each into the first row with
    room (about 97% of a row's tokens are real on BEAR); in the row a continuation's tokens see
    their unit's prefix and their own earlier tokens, nothing else (``_packed_mask``), and take
    the positions they have in their statement. A batch is ``batch_tokens // width`` rows (at
    least one): one forward pass, no key/value cache. Members must come in group order.
    """
    if not len(members):
        return
    tails = rows.last[members] - shared[member_group]  # continuation inputs: positions s .. last - 1
    n_groups = len(shared)
    longest_tail = np.zeros(n_groups, dtype=np.int64)
    np.maximum.at(longest_tail, member_group, tails)
    width = int(max(PACKED_WIDTH, -(-int((shared + longest_tail).max()) // 16) * 16))
    # units: members whose tails start within the same stretch of `room` tokens of their group
    room = np.maximum(width - shared - longest_tail, 1)
    size = np.bincount(member_group, minlength=n_groups)
    group_first = np.cumsum(size) - size
    before = np.cumsum(tails) - tails
    within = before - before[group_first][member_group]  # tail tokens of the group before the member
    stretch = within // room[member_group]
    new_unit = np.concatenate([[True], (np.diff(member_group) != 0) | (np.diff(stretch) != 0)])
    unit_of = np.cumsum(new_unit) - 1
    unit_first = np.flatnonzero(new_unit)
    unit_group = member_group[unit_first]
    unit_length = shared[unit_group] + np.add.reduceat(tails, unit_first)
    # rows: first fit, longest unit first (a loop over units, not statements)
    n_units = len(unit_length)
    unit_row = np.zeros(n_units, dtype=np.int64)
    unit_at = np.zeros(n_units, dtype=np.int64)  # where the unit starts in its row
    free = np.full(n_units, width, dtype=np.int64)  # room left in each row opened so far (+ one fresh)
    n_rows = 0
    for u in np.argsort(-unit_length, kind="stable").tolist():
        length = unit_length[u]
        r = int(np.argmax(free[: n_rows + 1] >= length))
        unit_row[u], unit_at[u] = r, width - free[r]
        free[r] -= length
        n_rows = max(n_rows, r + 1)
    # units (and their members) in row order, so that a batch of rows is a contiguous stretch
    unit_order = np.lexsort((unit_at, unit_row))
    unit_size = np.diff(np.append(unit_first, len(members)))[unit_order]
    member_order = np.repeat(unit_first[unit_order], unit_size) + _ragged_arange(unit_size)
    unit_rank = np.empty(n_units, dtype=np.int64)
    unit_rank[unit_order] = np.arange(n_units)
    unit_flat = (unit_row * width + unit_at)[unit_order]
    tail_at = (shared[member_group] + within - within[unit_first][unit_of])[member_order]
    member_unit = unit_rank[unit_of[member_order]]
    member_flat = unit_flat[member_unit] + tail_at
    unit_group, unit_member = unit_group[unit_order], members[unit_first[unit_order]]
    members = members[member_order]
    row_of_unit = unit_row[unit_order]
    unit_member_first = np.cumsum(unit_size) - unit_size
    per_batch = max(1, batch_tokens // width)
    for first_row in range(0, n_rows, per_batch):
        u0, u1 = np.searchsorted(row_of_unit, [first_row, first_row + per_batch])
        m0 = unit_member_first[u0]
        m1 = unit_member_first[u1] if u1 < n_units else len(members)
        offset = first_row * width
        yield {
            "width": width,
            "rows": int(min(per_batch, n_rows - first_row)),
            "unit_flat": unit_flat[u0:u1] - offset,
            "unit_prefix": shared[unit_group[u0:u1]],
            "unit_member": unit_member[u0:u1],
            "members": members[m0:m1],
            "member_unit": member_unit[m0:m1] - u0,
            "member_flat": member_flat[m0:m1] - offset,
        }


#: Continuation chunk widths: each continuation runs padded to the next of these (at most 41% padding,
#: about 15% on BEAR), so a batch's continuations take a few passes rather than one per length.
_TAIL_LADDER = np.unique(np.round(np.sqrt(2) ** np.arange(0, 40)).astype(np.int64))


class _CausalPreparer:
    """Turns a plan item into the arrays of its forward passes (run on the background thread)."""

    def __init__(self, rows: _CausalRows, device: torch.device):
        self.rows, self.device = rows, device

    def __call__(self, what: str, item: dict, pinned: bool) -> dict:
        if what == "plain":
            arrays = self.plain(item["rows"])
        elif what == "packed":
            arrays = self.packed(item)
        else:
            arrays = self.shared(item)
        return _tensors(arrays, pinned)

    def packed(self, item: dict) -> dict:
        """A batch of packed rows (``_packed_batches``): ids, positions, unit and segment of each token.

        ``unit`` is the unit a token belongs to (-1: padding), ``segment`` the member whose
        continuation it is (-1: the unit's prefix); scored tokens are read at ``slots`` (flat
        positions in the rows), one slot per (unit, prefix position) however many members score it.
        """
        encoded, scored_flat = self.rows.encoded, self.rows.scored
        width, n_rows = item["width"], item["rows"]
        members, member_unit = item["members"], item["member_unit"]
        prefix = item["unit_prefix"]
        member_prefix = prefix[member_unit]
        ids = np.zeros(n_rows * width, dtype=np.int64)
        positions = np.zeros(n_rows * width, dtype=np.int64)
        unit = np.full(n_rows * width, -1, dtype=np.int64)
        segment = np.full(n_rows * width, -1, dtype=np.int64)
        step = _ragged_arange(prefix)  # the units' prefixes
        at = np.repeat(item["unit_flat"], prefix) + step
        ids[at] = encoded.ids[np.repeat(encoded.starts[item["unit_member"]], prefix) + step]
        positions[at], unit[at] = step, np.repeat(np.arange(len(prefix)), prefix)
        tails = self.rows.last[members] - member_prefix  # the members' continuations
        step = _ragged_arange(tails)
        at = np.repeat(item["member_flat"], tails) + step
        source = np.repeat(member_prefix, tails) + step
        ids[at] = encoded.ids[np.repeat(encoded.starts[members], tails) + source]
        positions[at], unit[at] = source, np.repeat(member_unit, tails)
        segment[at] = np.repeat(np.arange(len(members)), tails)
        # every scored token p of every member, read where token p - 1 is: in the prefix or the continuation
        last = self.rows.last[members]
        columns = np.arange(int(last.max()) + 1)
        inside = (columns <= last[:, None]) & (columns >= 1)
        flat = np.where(inside, encoded.starts[members][:, None] + columns, 0)
        m, p = np.nonzero(inside & scored_flat[flat])
        s = member_prefix[m]
        slot = np.where(p <= s, item["unit_flat"][member_unit[m]] + p - 1, item["member_flat"][m] + p - 1 - s)
        slots, slot_of = np.unique(slot, return_inverse=True)
        order = np.argsort(slot_of, kind="stable")
        return {
            "ids": ids.reshape(n_rows, width),
            "position_ids": positions.reshape(n_rows, width),
            "unit": unit.reshape(n_rows, width),
            "segment": segment.reshape(n_rows, width),
            "slot_rows": slots // width,
            "slot_positions": slots % width,
            "entry_slots": slot_of[order],
            "labels": encoded.ids[encoded.starts[members[m]] + p][order],
            "owners": members[m][order],
            "statements": len(members),
        }

    def _window(self, rows: np.ndarray, offsets: np.ndarray, lengths: np.ndarray):
        """Ids (0-padded), filled mask and scored mask of ``lengths`` tokens from ``offsets`` in rows."""
        encoded = self.rows.encoded
        width = max(int(lengths.max()), 1) if len(lengths) else 1
        columns = np.arange(width)
        filled = columns < lengths[:, None]
        flat = np.where(filled, encoded.starts[rows][:, None] + offsets[:, None] + columns, 0)
        return np.where(filled, encoded.ids[flat], 0), filled, filled & self.rows.scored[flat]

    def plain(self, rows: np.ndarray) -> dict:
        """Rows predicted from their own earlier tokens: inputs up to each row's last scored token."""
        last = self.rows.last[rows]
        ids, filled, _ = self._window(rows, np.zeros_like(last), last)
        _, _, scored = self._window(rows, np.ones_like(last), last)  # token p + 1 scored at input p
        r, p = np.nonzero(scored)
        labels = self.rows.encoded.ids[self.rows.encoded.starts[rows[r]] + p + 1]
        return {
            "ids": ids,
            "mask": filled.astype(np.int64),
            "rows": r,
            "positions": p,
            "labels": labels,
            "owners": rows[r],
            "statements": len(rows),
        }

    def shared(self, item: dict) -> dict:
        """A prefix pass per group and continuation passes in chunks of similar length."""
        encoded, scored_flat = self.rows.encoded, self.rows.scored
        shared, members, member_group = item["shared"], item["members"], item["member_group"]
        representative = members[np.concatenate([[0], np.flatnonzero(np.diff(member_group)) + 1])]
        prefix_ids, prefix_filled, _ = self._window(representative, np.zeros_like(shared), shared)
        width = prefix_ids.shape[1]
        # every scored token of every member: (member, position p), predicted at position p - 1
        last = self.rows.last[members]
        columns = np.arange(int(last.max()) + 1)
        inside = (columns <= last[:, None]) & (columns >= 1)
        flat = np.where(inside, encoded.starts[members][:, None] + columns, 0)
        m, p = np.nonzero(inside & scored_flat[flat])
        labels = encoded.ids[encoded.starts[members[m]] + p]
        g = member_group[m]
        s = shared[g]
        # tokens up to the first after the prefix are predicted by the prefix pass: one slot per
        # (group, position), however many members score it
        in_prefix = p <= s
        keys = g[in_prefix] * width + p[in_prefix] - 1
        slots, slot_of = np.unique(keys, return_inverse=True)
        order = np.argsort(slot_of, kind="stable")
        arrays = {
            "ids": prefix_ids,
            "mask": prefix_filled.astype(np.int64),
            "slot_rows": slots // width,
            "slot_positions": slots % width,
            "entry_slots": slot_of[order],
            "labels": labels[in_prefix][order],
            "owners": members[m[in_prefix]][order],
            "statements": len(members),
            "chunks": [],
        }
        # the rest from the continuations, whose prefix comes from the prefix pass's cache
        rest = ~in_prefix
        if rest.any():
            tail_members = np.unique(m[rest])
            tail_length = last[tail_members] - shared[member_group[tail_members]]
            bucket = np.searchsorted(_TAIL_LADDER, tail_length)
            by_bucket = np.argsort(bucket, kind="stable")
            tail_members, tail_length, bucket = (
                tail_members[by_bucket],
                tail_length[by_bucket],
                bucket[by_bucket],
            )
            local = np.full(len(members), -1, dtype=np.int64)
            bounds = np.flatnonzero(np.diff(bucket)) + 1
            chunk_first = np.concatenate([[0], bounds])
            chunk_of = np.repeat(np.arange(len(chunk_first)), np.diff(np.append(chunk_first, len(bucket))))
            local[tail_members] = np.arange(len(tail_members)) - chunk_first[chunk_of]
            entry_chunk = np.full(len(members), -1, dtype=np.int64)
            entry_chunk[tail_members] = chunk_of
            em, ep = m[rest], p[rest]
            e_chunk = entry_chunk[em]
            e_order = np.argsort(e_chunk, kind="stable")
            em, ep, e_labels, e_chunk = em[e_order], ep[e_order], labels[rest][e_order], e_chunk[e_order]
            e_bounds = np.searchsorted(e_chunk, np.arange(len(chunk_first) + 1))
            chunk_end = np.append(chunk_first[1:], len(tail_members))
            for c, (start, end) in enumerate(zip(chunk_first.tolist(), chunk_end.tolist(), strict=True)):
                chunk_members = tail_members[start:end]
                groups = member_group[chunk_members]
                offsets = shared[groups]
                tail_ids, tail_filled, _ = self._window(
                    members[chunk_members], offsets, tail_length[start:end]
                )
                a, b = e_bounds[c], e_bounds[c + 1]
                arrays["chunks"].append(
                    {
                        "groups": groups,
                        "ids": tail_ids,
                        "mask": tail_filled.astype(np.int64),
                        "offsets": offsets,
                        "rows": local[em[a:b]],
                        "positions": ep[a:b] - shared[member_group[em[a:b]]] - 1,
                        "labels": e_labels[a:b],
                        "owners": members[em[a:b]],
                    }
                )
        return arrays


def _tensors(arrays: dict, pinned: bool) -> dict:
    """Arrays as CPU tensors (pinned when the device is CUDA); other values as they are."""
    out = {}
    for key, value in arrays.items():
        if isinstance(value, np.ndarray):
            tensor = torch.from_numpy(np.ascontiguousarray(value, dtype=np.int64))
            out[key] = tensor.pin_memory() if pinned else tensor
        elif isinstance(value, list):
            out[key] = [_tensors(v, pinned) for v in value]
        else:
            out[key] = value
    return out


def _on(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    return tensor.to(device, non_blocking=tensor.is_pinned())


# ---------------------------------------------------------------- masked copies


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
    return copies.owners[index], selected.token_log_probs(_index(copies.labels[index], device))


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
        # a device-mapped model's head moves its input to its own device (accelerate's hook)
        return (self.head(states) if self.head is not None else states).float()

    def token_log_probs(
        self, labels: torch.Tensor, rows: np.ndarray | None = None, rows_on_device: torch.Tensor | None = None
    ) -> torch.Tensor:
        """The log-probability of ``labels[k]`` at selected row ``rows[k]`` (row k when None), float64.

        ``rows`` (host, non-decreasing) lets many labels share one row's log-softmax, which is
        computed once; ``rows_on_device`` is the same on the states' device, when the caller has
        it (a copy from pageable memory would wait for the device). The result lies on the states'
        device.
        """
        one_each = rows is None
        rows = np.arange(len(labels)) if one_each else rows
        rows_t = None if one_each else rows_on_device
        if rows_t is None and not one_each:
            rows_t = _index(rows, self.states.device)
        labels = labels.to(self.states.device)
        parts = []
        for at in range(0, len(self.states), self.chunk):
            lo, hi = np.searchsorted(rows, [at, at + self.chunk])
            if lo == hi:
                continue
            # (torch.logsumexp and a gather instead: 3.7x the GPU time of log_softmax on an H200)
            logits = torch.log_softmax(self._logits(slice(at, at + self.chunk)), -1)
            labels_chunk = labels[lo:hi].to(logits.device)
            if one_each:
                picked = logits.gather(1, labels_chunk[:, None])[:, 0]
            else:
                picked = logits[rows_t[lo:hi].to(logits.device) - at, labels_chunk]
            parts.append(picked.to(self.states.device))
        if not parts:
            return torch.zeros(0, dtype=torch.float64, device=self.states.device)
        return torch.cat(parts).double()


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
        states = out.last_hidden_state
        selected = _Selected(
            states[rows.to(states.device), positions.to(states.device)], getattr(model, head)
        )
    else:
        out = model(**kwargs)
        logits = out.logits
        selected = _Selected(logits[rows.to(logits.device), positions.to(logits.device)], None)
    return selected, getattr(out, "past_key_values", None)


def _score_plain(model, batch: dict, device, totals: torch.Tensor) -> None:
    """Causal rows without a shared prefix: each row is predicted from its own earlier tokens."""
    if not len(batch["labels"]):
        return
    selected, _ = _forward(
        model,
        _on(batch["ids"], device),
        _on(batch["mask"], device),
        _on(batch["rows"], device),
        _on(batch["positions"], device),
    )
    scores = selected.token_log_probs(_on(batch["labels"], device))
    totals.index_add_(0, _on(batch["owners"], totals.device), scores.to(totals.device, totals.dtype))


def _packed_mask(unit: torch.Tensor, segment: torch.Tensor, additive_dtype: torch.dtype | None):
    """The (rows, 1, width, width) attention mask of packed rows.

    A token sees the earlier tokens of its unit's prefix and of its own continuation (padding sees
    earlier padding, so no row is empty).
    Boolean (True: attend) for sdpa; with ``additive_dtype`` 0 / the dtype's least value (eager).
    """
    width = unit.shape[1]
    order = torch.arange(width, device=unit.device)
    causal = order[:, None] >= order[None, :]
    same_unit = unit[:, :, None] == unit[:, None, :]
    visible = (segment[:, None, :] < 0) | (segment[:, :, None] == segment[:, None, :])
    mask = (same_unit & visible & causal)[:, None]
    if additive_dtype is None:
        return mask
    zero = torch.zeros((), dtype=additive_dtype, device=mask.device)
    return torch.where(mask, zero, torch.finfo(additive_dtype).min)


def _score_packed(model, batch: dict, device, totals: torch.Tensor, additive: bool) -> None:
    """One forward pass over packed rows; each scored token read at its slot."""
    ids = _on(batch["ids"], device)
    dtype = next((p.dtype for p in model.parameters() if p.is_floating_point()), torch.float32)
    unit, segment = _on(batch["unit"], device), _on(batch["segment"], device)
    mask = _packed_mask(unit, segment, dtype if additive else None)
    selected, _ = _forward(
        model,
        ids,
        mask,
        _on(batch["slot_rows"], device),
        _on(batch["slot_positions"], device),
        position_ids=_on(batch["position_ids"], device),
    )
    scores = selected.token_log_probs(
        _on(batch["labels"], device), batch["entry_slots"].numpy(), _on(batch["entry_slots"], device)
    )
    totals.index_add_(0, _on(batch["owners"], totals.device), scores.to(totals.device, totals.dtype))


def _select_cache(cache, index: torch.Tensor, last: bool):
    """The prefix cache's rows ``index`` (one per continuation), leaving ``cache`` as it is unless ``last``.

    Layers holding plain key/value tensors are selected into a shallow copy (no copy of the whole
    cache first); a device-mapped model keeps each layer's cache on that layer's device.
    """
    layers = getattr(cache, "layers", None)
    plain = layers is not None and all(
        isinstance(getattr(layer, "keys", None), torch.Tensor)
        and isinstance(getattr(layer, "values", None), torch.Tensor)
        for layer in layers
    )
    if not plain:
        past = cache if last else copy.deepcopy(cache)
        past.batch_select_indices(index)
        return past
    past = copy.copy(cache)
    past.layers = []
    for layer in layers:
        selected = copy.copy(layer)
        rows = index.to(layer.keys.device)
        selected.keys, selected.values = layer.keys[rows], layer.values[rows]
        past.layers.append(selected)
    return past


def _score_shared(model, batch: dict, device, totals: torch.Tensor) -> None:
    """One prefix pass for the groups of the batch, then the continuations' passes from its cache."""
    ids, mask = _on(batch["ids"], device), _on(batch["mask"], device)
    selected, cache = _forward(
        model,
        ids,
        mask,
        _on(batch["slot_rows"], device),
        _on(batch["slot_positions"], device),
        position_ids=torch.arange(ids.shape[1], device=device).expand_as(ids),
        cache=True,
    )
    scores = selected.token_log_probs(
        _on(batch["labels"], device), batch["entry_slots"].numpy(), _on(batch["entry_slots"], device)
    )
    totals.index_add_(0, _on(batch["owners"], totals.device), scores.to(totals.device, totals.dtype))
    chunks = batch["chunks"]
    for number, chunk in enumerate(chunks):
        groups = _on(chunk["groups"], device)
        past = _select_cache(cache, groups, last=number == len(chunks) - 1)
        tail_ids = _on(chunk["ids"], device)
        position_ids = _on(chunk["offsets"], device)[:, None] + torch.arange(tail_ids.shape[1], device=device)
        tail, _ = _forward(
            model,
            tail_ids,
            torch.cat([mask[groups], _on(chunk["mask"], device)], dim=1),
            _on(chunk["rows"], device),
            _on(chunk["positions"], device),
            position_ids=position_ids,
            past=past,
        )
        scores = tail.token_log_probs(_on(chunk["labels"], device))
        totals.index_add_(0, _on(chunk["owners"], totals.device), scores.to(totals.device, totals.dtype))
