"""Loading the model under evaluation: a hub id or a local folder, causal or masked, on a device.

``dtype="auto"`` and device maps are decided in ``placement.py``: the checkpoint's dtype
(bfloat16 for a float32 checkpoint on a GPU that has it, float32 on a CPU), and for models larger
than one device accelerate's big-model inference (``device_map="auto"``, ``max_memory``, an
offload folder for what fits nowhere), scored through the same ``score_statements``.
"""

from __future__ import annotations

import logging
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from probesmith.errors import ProbesmithError
from probesmith.eval.placement import DTYPES, checkpoint_dtype, choose_dtype
from probesmith.eval.scoring import input_device

log = logging.getLogger(__name__)

#: Model types that are masked LMs when a config names no architecture.
MASKED_TYPES = {
    "bert",
    "roberta",
    "xlm-roberta",
    "distilbert",
    "albert",
    "electra",
    "deberta",
    "deberta-v2",
    "mpnet",
}


class ModelLoadError(ProbesmithError):
    """A model or tokenizer could not be loaded."""


@dataclass
class LanguageModel:
    """A model ready to score: the module, its tokenizer, ``causal`` or ``masked``, and a name.

    ``dtype`` and ``dtype_reason`` say what it was loaded in and why; ``device_map`` is where
    accelerate placed its modules when it was loaded with one (None: one device).
    """

    model: Any
    tokenizer: Any
    kind: str
    name: str
    dtype: str = "float32"
    dtype_reason: str = "asked for"
    device_map: dict | None = None

    @property
    def device(self) -> torch.device:
        """The device inputs go to: the input embeddings' (a device-mapped model's first device)."""
        return input_device(self.model)


def default_device() -> str:
    """``cuda`` when a GPU is visible, else ``cpu``."""
    return "cuda" if torch.cuda.is_available() else "cpu"


def model_kind(config) -> str:
    """``masked`` or ``causal`` from a transformers config (architectures, else model type)."""
    architectures = list(getattr(config, "architectures", None) or [])
    if any("MaskedLM" in a or a.endswith("ForPreTraining") for a in architectures):
        return "masked"
    if any("CausalLM" in a or "LMHeadModel" in a for a in architectures):
        return "causal"
    return "masked" if getattr(config, "model_type", "") in MASKED_TYPES else "causal"


def load_model(
    name_or_path: str,
    kind: str = "auto",
    device: str | None = None,
    dtype: str = "auto",
    device_map: str | dict | None = None,
    max_memory: dict | None = None,
    offload_folder: str | Path | None = None,
) -> LanguageModel:
    """Load a causal or masked LM and its tokenizer from a hub id or a local folder.

    ``kind`` is ``auto`` (from the config's architectures), ``causal`` or ``masked``; ``dtype``
    is ``auto`` (``placement.choose_dtype``: the checkpoint's, bf16 for float32 checkpoints on a
    GPU with bf16, float32 on CPU), ``float32``, ``bfloat16`` or ``float16``; ``device``
    defaults to the GPU when there is one. ``device_map`` (``"auto"``, ``"balanced"``,
    ``"sequential"`` or a module -> device dict) places a model larger than one device across
    the visible GPUs, then the CPU, then ``offload_folder`` (accelerate's big-model inference),
    each device given at most its ``max_memory`` entry; ``device`` is then not used.
    """
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    if dtype != "auto" and dtype not in DTYPES:
        raise ModelLoadError(f"unknown dtype {dtype!r}: use auto or one of {sorted(DTYPES)}")
    if kind not in ("auto", "causal", "masked"):
        raise ModelLoadError(f"unknown model kind {kind!r}: use auto, causal or masked")
    if device_map is None and (max_memory or offload_folder):
        raise ModelLoadError(
            "--max-memory and --offload-folder place a model across devices: give --device-map auto too"
        )
    device = device or default_device()
    if str(device).startswith("cuda") and not torch.cuda.is_available():
        raise ModelLoadError(f"--device {device}: no CUDA device is visible here. Use --device cpu.")
    local = Path(name_or_path).expanduser()
    if not local.exists() and (name_or_path.startswith((".", "/", "~")) or name_or_path.count("/") > 1):
        raise ModelLoadError(
            f"model folder {name_or_path} does not exist: pass a folder with config.json, the "
            "weights and the tokenizer files (save_pretrained writes them), or a hub id"
        )
    try:
        config = AutoConfig.from_pretrained(name_or_path)
        kind = model_kind(config) if kind == "auto" else kind
        auto = AutoModelForCausalLM if kind == "causal" else AutoModelForMaskedLM
        target = "cuda" if device_map is not None and torch.cuda.is_available() else torch.device(device).type
        bf16 = target == "cuda" and torch.cuda.is_bf16_supported()
        choice = choose_dtype(dtype, checkpoint_dtype(config), target, bf16)
        placement = {}
        if device_map is not None:
            placement = {"device_map": device_map, "max_memory": max_memory}
            if offload_folder is not None:
                placement["offload_folder"] = str(offload_folder)
        model = auto.from_pretrained(name_or_path, dtype=choice.dtype, **placement)
        tokenizer = AutoTokenizer.from_pretrained(name_or_path)
    except pickle.UnpicklingError as exc:  # loaded with weights_only: a pickle of more than tensors
        lines = [line.strip() for line in str(exc).splitlines() if "Unsupported global" in line]
        first = (lines[0].split(" was not ")[0] if lines else type(exc).__name__)[:200]
        raise ModelLoadError(
            f"model {name_or_path!r} holds a pickle checkpoint (pytorch_model.bin) that is not plain "
            f"tensors ({first}); it is not loaded, as unpickling can run code. Convert it to "
            "safetensors where you trust it (model.save_pretrained(folder, safe_serialization=True)), "
            "or pass a model that ships model.safetensors."
        ) from None
    except (OSError, ValueError) as exc:
        raise ModelLoadError(
            f"could not load model {name_or_path!r}: {exc}. Pass a local folder written by "
            "save_pretrained (model and tokenizer), or a hub id on a machine that can reach the hub."
        ) from exc
    _check_tokenizer(tokenizer, name_or_path)
    placed = getattr(model, "hf_device_map", None) if device_map is not None else None
    if placed is None:
        model.to(device)
    model.eval()
    where = f"across {sorted(set(map(str, placed.values())))}" if placed else f"on {device}"
    log.info(
        "loaded %s model %s (%s) in %s (%s) %s",
        kind,
        name_or_path,
        type(model).__name__,
        choice.name,
        choice.reason,
        where,
    )
    return LanguageModel(
        model=model,
        tokenizer=tokenizer,
        kind=kind,
        name=str(name_or_path),
        dtype=choice.name,
        dtype_reason=choice.reason,
        device_map={k: str(v) for k, v in placed.items()} if placed else None,
    )


def _check_tokenizer(tokenizer, name_or_path: str) -> None:
    """A tokenizer that turns text into nothing would make every score 0 and accuracy = position."""
    vocabulary = len(tokenizer) if tokenizer is not None else 0
    ids = tokenizer("The cat sat on the mat.", add_special_tokens=False)["input_ids"] if vocabulary else []
    if (
        vocabulary < 2
        or not ids
        or (tokenizer.unk_token_id is not None and set(ids) <= {tokenizer.unk_token_id})
    ):
        raise ModelLoadError(
            f"{name_or_path} has no usable tokenizer (vocabulary {vocabulary}, English text -> {ids[:8]}): "
            "save the tokenizer beside the model (tokenizer.save_pretrained(folder))."
        )


def train_wordpiece(texts: list[str], vocab_size: int = 4000):
    """A BERT WordPiece tokenizer trained on ``texts`` (as a transformers fast tokenizer)."""
    from tokenizers import BertWordPieceTokenizer
    from transformers import PreTrainedTokenizerFast

    tokenizer = BertWordPieceTokenizer(lowercase=True)
    tokenizer.train_from_iterator(texts, vocab_size=vocab_size, min_frequency=1, show_progress=False)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer._tokenizer,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
