"""Where and how a model runs: its dtype, its token budget, and device maps for models larger than a GPU.

Every decision here is a pure function of its inputs (the device's kind, free memory, the
checkpoint's dtype, the model's shape), so the GPU branches are tested on any machine:

* :func:`choose_dtype` — ``auto`` is the checkpoint's own dtype; a float32 checkpoint runs in
  bfloat16 on a CUDA device that has it; float32 on a CPU;
* :func:`batch_tokens_for` — ``auto`` token budget from free device memory and the memory one
  token takes through the model; a fixed 4,096 on a CPU;
* :func:`parse_max_memory` — ``--max-memory 0=20GiB,cpu=60GiB`` as accelerate's ``max_memory``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import torch

from probesmith.errors import UsageError

log = logging.getLogger(__name__)

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
#: The token budget on a CPU (caches stay warm; larger batches are no faster there).
CPU_BATCH_TOKENS = 4096
#: Bounds of the automatic budget on a GPU: below it the device idles between kernels, above
#: it nothing gets faster and a fragmented allocator can fail. Packed rows of GPT-2 124M on BEAR ran
#: faster at 65,536 than at 131,072 or 262,144 on an H100 and an H200, and a Llama-3.2-1B shape no
#: slower (BENCHMARKS.md, "GPU: one NVIDIA H100, packed rows").
MIN_AUTO_TOKENS, MAX_AUTO_TOKENS = 4096, 65536
#: Share of the free memory (after the LM head's working set) that the batches may take.
MEMORY_SHARE = 0.5
#: Rows of logits that scoring turns into log-probabilities at once on a GPU (scoring._Selected).
HEAD_ROWS = 4096


@dataclass(frozen=True)
class DtypeChoice:
    """The dtype a model is loaded in, and why (said in the log and recorded in the results)."""

    name: str
    reason: str

    @property
    def dtype(self) -> torch.dtype:
        """The torch dtype."""
        return DTYPES[self.name]


def dtype_name(dtype) -> str | None:
    """``float32``/``bfloat16``/``float16`` for a torch dtype or its name; None for anything else."""
    if isinstance(dtype, str):
        dtype = getattr(torch, dtype.removeprefix("torch."), None)
    return next((name for name, value in DTYPES.items() if value == dtype), None)


def checkpoint_dtype(config) -> str | None:
    """The dtype a transformers config says its weights are stored in (None when it says none)."""
    for attribute in ("dtype", "torch_dtype"):
        value = getattr(config, attribute, None)
        if value is not None:
            return dtype_name(value)
    return None


def choose_dtype(
    requested: str, checkpoint: str | None, device_type: str, bf16_supported: bool
) -> DtypeChoice:
    """The dtype to load in: ``requested`` unless it is ``auto``.

    ``auto``: on a CPU float32 (CPUs have no fast half-precision matrix units worth the rounding);
    on CUDA the checkpoint's dtype, except that a float32 (or unstated) checkpoint runs in
    bfloat16 where the device supports it — scores then move by bf16 rounding (BENCHMARKS.md:
    within 0.06 nats of float32 on BEAR with a float32 log-softmax); a bfloat16 checkpoint on a
    device without bfloat16 runs in float32.
    """
    if requested != "auto":
        if requested not in DTYPES:
            raise UsageError(f"unknown dtype {requested!r}: use auto or one of {sorted(DTYPES)}")
        return DtypeChoice(requested, "asked for")
    if device_type != "cuda":
        return DtypeChoice("float32", f"auto: float32 on {device_type}")
    if checkpoint in (None, "float32"):
        if bf16_supported:
            return DtypeChoice(
                "bfloat16", f"auto: the checkpoint is {checkpoint or 'unstated'}, the GPU has bf16"
            )
        return DtypeChoice("float32", "auto: the checkpoint is float32 and the GPU has no bf16")
    if checkpoint == "bfloat16" and not bf16_supported:
        return DtypeChoice("float32", "auto: the checkpoint is bfloat16 and the GPU has no bf16")
    return DtypeChoice(checkpoint, f"auto: the checkpoint's dtype ({checkpoint})")


def token_bytes(config, element_bytes: int) -> int:
    """Device memory one token of a batch takes through the model, at its peak, in bytes.

    The key/value cache of a prefix pass (kept while its continuations run, with a copy and a
    selection of it: 3 x 2 x layers x key/value width), and the largest transient activations
    of a layer (about 8 x hidden + 3 x the MLP's width).
    """
    hidden = _first(config, "hidden_size", "n_embd", "d_model")
    layers = _first(config, "num_hidden_layers", "n_layer", "num_layers")
    heads = _first(config, "num_attention_heads", "n_head") or 1
    kv_heads = _first(config, "num_key_value_heads") or heads
    head_dim = _first(config, "head_dim") or (hidden // heads if hidden else 0)
    inner = _first(config, "intermediate_size", "n_inner", "ffn_dim") or 4 * (hidden or 0)
    if not hidden or not layers:
        raise ValueError("the model's config names no hidden size or number of layers")
    return element_bytes * (6 * layers * kv_heads * head_dim + 8 * hidden + 3 * inner)


def batch_tokens_for(free_bytes: int, per_token_bytes: int, vocab: int) -> int:
    """A GPU's token budget: a share of its free memory (less the LM head's working set) per token.

    The result is a multiple of 1,024 between ``MIN_AUTO_TOKENS`` and ``MAX_AUTO_TOKENS``.
    """
    head = HEAD_ROWS * vocab * 4 * 3  # float32 logits, their log-softmax, and a gather
    usable = max(free_bytes - head, 0) * MEMORY_SHARE
    tokens = int(usable // max(per_token_bytes, 1)) // 1024 * 1024
    return max(MIN_AUTO_TOKENS, min(MAX_AUTO_TOKENS, tokens))


def auto_batch_tokens(model, device: torch.device) -> int:
    """``batch_tokens="auto"``: from the device's free memory and the model's shape on CUDA, else 4,096."""
    if device.type != "cuda":
        return CPU_BATCH_TOKENS
    free, _ = torch.cuda.mem_get_info(device)
    element = next(model.parameters()).element_size()
    config = model.config
    tokens = batch_tokens_for(free, token_bytes(config, element), getattr(config, "vocab_size", 0) or 0)
    log.info("batch_tokens auto: %d (%.1f GiB free on %s)", tokens, free / 2**30, device)
    return tokens


def parse_max_memory(text: str | None) -> dict | None:
    """``"0=20GiB,1=20GiB,cpu=64GiB"`` as accelerate's ``max_memory`` (GPU indices as integers)."""
    if not text:
        return None
    limits: dict = {}
    for part in text.split(","):
        key, _, value = part.strip().partition("=")
        if not key or not value:
            raise UsageError(
                f"--max-memory {text!r}: give device=amount pairs separated by commas, "
                "e.g. --max-memory 0=20GiB,cpu=64GiB"
            )
        limits[int(key) if key.isdigit() else key] = value
    return limits


def _first(config, *names):
    for name in names:
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return None
