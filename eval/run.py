r"""Score a language model on a build folder and compute its family's metrics.

``evaluate(lm, probes)`` reads the build's manifest to find its family, scores every item in as
few ``score_statements`` calls as possible (so prefixes are shared and batches fill up), and
returns per-item tables plus metrics; ``write_results`` writes them (Parquet with declared
schemas, ``metrics.json``, ``report.md`` and plots) into a folder atomically.

What is scored per family (each family's evaluation is registered in ``registry.py``):

* multiple-choice builds (``wordnet``, ``dictionary``, any ``MultipleChoiceSpec`` family) and
  AI2 multiple-choice JSONL (OpenBookQA, ARC, ...) — here: ``"{question}\nAnswer: {choice}"``,
  the choice scored given the question (causal) or as a span in context (masked);
* ``relations`` — ``families/relations.py``: every template x every answer of the relation's answer
  space, as whole statements (BEAR's convention);
* ``paraphrases`` — ``families/paraphrases.py``: every grid statement (pattern x verbalization) with each
  candidate object: the gold and up to ``max_candidates - 1`` other answers of the space (the
  family's own options: ``EvalOptions.family``);
* ``rules`` — ``families/rules.py``: the DepEdit protocol per knowledge set and editor:
  establish the init facts, then each update variant; answers by greedy generation.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import torch.distributed as dist

from probesmith.builders.registry import MULTIPLE_CHOICE_KIND
from probesmith.builders.sampling import stable_hash
from probesmith.errors import ArtifactError, UsageError
from probesmith.eval import models as eval_models
from probesmith.eval.editors import (
    Editor,
    FineTuneEditor,
    InContextEditor,
)
from probesmith.eval.models import LanguageModel
from probesmith.eval.placement import auto_batch_tokens
from probesmith.eval.registry import evaluation_for, family_options
from probesmith.eval.report import render_report
from probesmith.eval.scoring import score_statements
from probesmith.probes.spec import describe_fields, spec_field, to_dict
from probesmith.schemas.manifest import MANIFEST_NAME, read_manifest
from probesmith.schemas.output import OutputFolder, SharedReadLock, check_destination, check_unchanged
from probesmith.schemas.parquet import write_parquet
from probesmith.schemas.tables import TableSchema

log = logging.getLogger(__name__)

EDITORS: dict[str, type[Editor]] = {"in_context": InContextEditor, "fine_tune": FineTuneEditor}


def make_editors(names: tuple[str, ...], seed: int = 0) -> list[Editor]:
    """The built-in editors by name (``in_context``, ``fine_tune``)."""
    unknown = [n for n in names if n not in EDITORS]
    if unknown:
        raise UsageError(
            f"unknown editor(s) {unknown}: built-in editors are {sorted(EDITORS)} "
            "(e.g. --option editors=[in_context])"
        )
    return [FineTuneEditor(seed=seed) if n == "fine_tune" else EDITORS[n]() for n in names]


@dataclass(frozen=True)
class EvalOptions:
    """What to score and how."""

    split: str = spec_field("test", help="Split of multiple-choice builds to score (train, dev or test).")
    pll: str = spec_field(
        "within_word_l2r", help="Masked LMs: PLL variant, original or within_word_l2r (lm-pub-quiz's)."
    )
    batch_tokens: int | str = spec_field(
        "auto",
        help="Token budget of one forward pass, or auto: from the GPU's free memory and the model's "
        "size on CUDA, 4096 on CPU (the value used is recorded in metrics.json).",
    )
    bos: bool = spec_field(
        True,
        help="Causal LMs: condition on a BOS token (lm-pub-quiz's convention). False scores a choice "
        "after its question alone, as lm-evaluation-harness does for tokenizers that add no BOS.",
    )
    max_items: int | None = spec_field(
        None,
        help="At most this many items per config (multiple choice, whole clusters), instances per "
        "relation (relation sets, grids) or knowledge sets; a seeded sample. None: all.",
    )
    seed: int = spec_field(0, help="Seed of the samples above and of the fine-tuning editor.")
    family: Mapping[str, Any] = spec_field(
        default_factory=dict,
        help="The build family's own options by name (its evaluation's ``options`` dataclass; "
        "`probesmith eval --probes BUILD --list-options` lists them); unset ones keep their defaults.",
    )


@dataclass
class EvalResult:
    """Per-item tables (schema, frame), metrics, and what was evaluated."""

    family: str
    model: str
    probes: str
    tables: dict[str, tuple[TableSchema, pl.DataFrame]] = field(default_factory=dict)
    metrics: dict = field(default_factory=dict)
    seconds: float = 0.0
    statements: int = 0


def build_evaluation(probes: str | Path) -> tuple[dict, str, Any]:
    """The build ``probes``' manifest, family and registered evaluation (AI2 JSONL: multiple choice)."""
    probes = Path(probes)
    if (probes / MANIFEST_NAME).is_file():
        manifest = read_manifest(probes)
        family = manifest.get("family")
    else:  # AI2 multiple-choice JSONL (a file, or a folder of train/dev/test.jsonl)
        manifest, family = {}, MULTIPLE_CHOICE_KIND
    try:
        return manifest, family, evaluation_for(family)
    except ArtifactError as exc:
        raise ArtifactError(f"{probes}: {exc}") from None


def family_option_fields(probes: str | Path) -> list[tuple[str, str, str]]:
    """(name, default, help) of each option of the family of the build ``probes`` (its ``options``)."""
    options = build_evaluation(probes)[2].options
    return describe_fields(options) if options else []


def evaluate(
    lm: LanguageModel,
    probes: str | Path,
    options: EvalOptions | None = None,
    editors: list[Editor] | None = None,
    progress: bool | None = None,
) -> EvalResult:
    """Score ``lm`` on the build folder ``probes``; the family comes from its manifest."""
    options = options or EvalOptions()
    probes = Path(probes)
    manifest, family, evaluation = build_evaluation(probes)
    start = time.perf_counter()
    result = EvalResult(family=family, model=lm.name, probes=str(probes))
    batch_tokens = resolved_batch_tokens(lm, options.batch_tokens)
    context = EvalContext(lm, options, progress, result, batch_tokens=batch_tokens)
    context.token_cache = token_cache_folder(manifest.get("logical_hash"))
    context.family_options = family_options(evaluation, options.family)
    if evaluation.uses_editors:
        names = context.family_options.editors
        context.editors = editors if editors is not None else make_editors(tuple(names), options.seed)
    evaluation.run(context, probes, manifest)
    result.seconds = time.perf_counter() - start
    result.metrics["run"] = {
        "model": lm.name,
        "kind": lm.kind,
        "probes": str(probes),
        "family": family,
        "build_hash": manifest.get("logical_hash"),
        # the family's own options as run, defaults included (eval-compare compares them)
        "options": {**to_dict(options), "family": to_dict(context.family_options or {})},
        "dtype": lm.dtype,
        "dtype_reason": lm.dtype_reason,
        "batch_tokens": batch_tokens,
        "device": str(lm.device),
        "device_map": lm.device_map,
        "statements": result.statements,
        "seconds": round(result.seconds, 2),
        "statements_per_second": round(result.statements / result.seconds, 1) if result.seconds else None,
    }
    return result


@dataclass
class EvalContext:
    """What a family's runner scores with: the model, the options, and the result it fills."""

    lm: LanguageModel
    options: EvalOptions
    progress: bool | None
    result: EvalResult
    editors: list[Editor] = field(default_factory=list)
    batch_tokens: int = 4096
    family_options: Any = None  # the family's own options (its evaluation's ``options`` dataclass)
    token_cache: Path | None = None

    def score(self, statements: list[str], answer_starts: list[int] | None = None):
        """Score ``statements`` with the context's model and options; counts them in the result."""
        self.result.statements += len(statements)
        log.info("scoring %d statements with %s", len(statements), self.lm.name)
        return score_statements(
            self.lm.model,
            self.lm.tokenizer,
            statements,
            kind=self.lm.kind,
            pll=self.options.pll,
            batch_tokens=self.batch_tokens,
            answer_starts=answer_starts,
            token_cache=self.token_cache,
            return_token_counts=True,
            progress=self.progress,
            bos=self.options.bos,
        )


def resolved_batch_tokens(lm: LanguageModel, requested: int | str) -> int:
    """``batch_tokens`` as used: the option, or for ``auto`` ``placement.auto_batch_tokens``."""
    if requested == "auto":
        return auto_batch_tokens(lm.model, lm.device)
    if isinstance(requested, int) and not isinstance(requested, bool) and requested > 0:
        return requested
    raise UsageError(f"batch_tokens {requested!r}: give a positive number of tokens or auto")


def token_cache_folder(build_hash: str | None) -> Path | None:
    """Where a build's statement encodings are kept: ``<data home>/token-cache/<build hash>``.

    The data home is ``$PROBESMITH_DATA`` or ``~/.local/share/probesmith`` (as for the SPARQL
    cache); the build folder is never written. None (memory only) for inputs without a logical
    hash (AI2 JSONL) or when ``PROBESMITH_TOKEN_CACHE=0``.
    """
    import os

    if not build_hash or os.environ.get("PROBESMITH_TOKEN_CACHE", "1") == "0":
        return None
    home = Path(os.environ.get("PROBESMITH_DATA", Path.home() / ".local/share/probesmith"))
    return home / "token-cache" / str(build_hash)[:32]


def sample_keys(keys: list, limit: int | None, seed: int, *salt) -> set:
    """At most ``limit`` of ``keys``, a seeded sample (all of them when ``limit`` is None)."""
    if limit is None or len(keys) <= limit:
        return set(keys)
    return set(sorted(keys, key=lambda k: stable_hash(seed, "eval", *salt, k))[:limit])


def sample_instances(ctx: EvalContext, instances: pl.DataFrame) -> pl.DataFrame:
    """At most ``max_items`` instances per relation (a seeded sample of subjects), sorted."""
    keep = []
    for rid, frame in instances.group_by("relation_id"):
        subjects = sample_keys(frame["sub_id"].to_list(), ctx.options.max_items, ctx.options.seed, rid[0])
        keep.append(frame.filter(pl.col("sub_id").is_in(sorted(subjects))))
    return pl.concat(keep).sort("relation_id", "sub_id")


def argmax(values: list[float]) -> int:
    """The index of the largest value (the first on ties)."""
    return max(range(len(values)), key=lambda i: (values[i], -i))


# ---------------------------------------------------------------- output


def default_results_folder(model: str, probes: str | Path, root: str | Path = "runs") -> Path:
    """``runs/<model>-<build>``, unique per model: a local model folder adds a hash of its path.

    (Two models saved as ``m1/final`` and ``m2/final`` would otherwise share ``runs/final-<build>``.)
    """
    local = Path(model).expanduser()
    if local.exists():
        tag = f"{local.resolve().name}-{stable_hash(0, str(local.resolve())) % 16**6:06x}"
    else:
        tag = model.replace("/", "--")
    return Path(root) / f"{tag}-{Path(probes).resolve().name}"


def write_results(result: EvalResult, out: str | Path, *, force: bool = False) -> Path:
    """Write items Parquet, ``metrics.json``, ``report.md`` and plots into ``out``, atomically.

    ``out`` may hold an earlier evaluation of the same model on the same build (it is replaced);
    results of another model or build are kept unless ``force``. Under ``torch.distributed`` only
    rank 0 writes.
    """
    out = Path(out)
    if dist.is_available() and dist.is_initialized() and dist.get_rank() != 0:
        return out
    with OutputFolder(out, "eval", identity=results_identity(result), force=force) as staging:
        for name, (schema, frame) in result.tables.items():
            table = frame.to_arrow().select(schema.schema.names).cast(schema.schema)
            write_parquet(table, staging / f"{name}.parquet", schema, f"{out.name}/{name}")
        (staging / "metrics.json").write_text(
            json.dumps(result.metrics, indent=2, sort_keys=True, default=str) + "\n"
        )
        (staging / "report.md").write_text(render_report(result, staging))
    log.info("wrote evaluation of %s on %s to %s", result.model, result.probes, out)
    return out


def init_distributed(lm: LanguageModel) -> int | None:
    """Join the process group when launched by torchrun (WORLD_SIZE > 1); one device per rank.

    Returns this process's rank, or None outside ``torchrun``.
    """
    import os

    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return None
    import torch

    if not dist.is_initialized():
        dist.init_process_group("nccl" if lm.device.type == "cuda" else "gloo")
    if lm.device.type == "cuda" and lm.device_map is None:  # a device map places the model itself
        local = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local)
        lm.model.to(f"cuda:{local}")
    return dist.get_rank()


def run_evaluation(
    model: str,
    probes: str | Path,
    options: EvalOptions | None = None,
    *,
    out: str | Path | None = None,
    kind: str = "auto",
    device: str | None = None,
    dtype: str = "auto",
    force: bool = False,
    device_map: str | None = None,
    max_memory: dict | None = None,
    offload_folder: str | Path | None = None,
) -> tuple[EvalResult, Path, bool]:
    """What ``probesmith eval`` does: load ``model``, score ``probes``, write the results folder.

    ``out`` defaults to ``runs/<model>-<build>``; it is checked before the model loads. Under
    ``torchrun`` every rank joins the process group and scores its share. Returns the result,
    the results folder, and whether this process is the one that reports (rank 0, or alone).
    ``device_map``/``max_memory``/``offload_folder`` place a model larger than one device
    (``models.load_model``); under ``torchrun`` each rank then holds its own placement.
    """
    out = Path(out) if out is not None else default_results_folder(model, probes)
    check_destination(out, "eval", folder=True, force=force)
    if not Path(probes).exists():
        raise UsageError(f"--probes {probes} does not exist: pass a build folder or AI2 JSONL.")
    # the family's own options, checked before the model loads (a misspelt --option costs no load)
    family_options(build_evaluation(probes)[2], (options or EvalOptions()).family)
    lm = eval_models.load_model(  # by attribute: a test replaces it to prove nothing loads
        model,
        kind=kind,
        device=device,
        dtype=dtype,
        device_map=device_map,
        max_memory=max_memory,
        offload_folder=offload_folder,
    )
    rank = init_distributed(lm)
    # the build's shared lock while it is scored and the results written (a rebuild is refused)
    with SharedReadLock(probes, "eval"):
        result = evaluate(lm, probes, options)
        if (Path(probes) / MANIFEST_NAME).exists() or result.metrics["run"]["build_hash"] is not None:
            check_unchanged(probes, result.metrics["run"]["build_hash"], "eval")
        write_results(result, out, force=force)
    return result, out, rank in (None, 0)


def results_identity(result: EvalResult) -> dict:
    """What an evaluation folder is of: the model and the build (its logical hash, or its path)."""
    run = result.metrics.get("run", {})
    model = Path(result.model).expanduser()
    return {
        "model": str(model.resolve()) if model.exists() else result.model,
        "probes": run.get("build_hash") or str(Path(result.probes).resolve()),
    }
