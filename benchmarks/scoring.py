"""Statement scoring throughput: probesmith against lm-pub-quiz 0.3.3 and lm-evaluation-harness 0.4.13.

    python benchmarks/scoring.py [--device cpu|cuda] [--size tiny|base] [--relations 4] [--instances 20]
                                 [--dtype float32|bfloat16] [--batch-tokens N] [--pub-quiz-batch 32]
                                 [--lm-eval-batch 32] [--kind causal|masked] [--no-lm-eval] [--data DIR]
                                 [--json FILE]

BEAR relations from ``DIR/bear/BEAR`` (default ../shared/data; template 0, every answer of the
answer space), scored by a causal model (GPT-2 architecture, the real GPT-2 tokenizer from
``DIR/tokenizers/gpt2``) and a masked one (BERT architecture, a WordPiece trained on the
statements), randomly initialised from their configs: ``tiny`` (2 layers, 64 wide) or ``base``
(GPT-2 small / BERT base sizes). In one run, on the same model and statements:

* lm-pub-quiz runs its own ``evaluate_dataset`` (one instance's answers per batch);
* lm-evaluation-harness (causal only: it has no pseudo-log-likelihood) scores every statement as
  a ``loglikelihood`` request with an empty context, as its own BEAR task does, through its
  ``HFLM`` backend;
* probesmith scores them with ``score_statements``.

Prints one JSON line per (model, tool): statements/s, tokens/s, the model FLOPs those statements
need (each statement scored alone: every token through the body, the LM head at each scored
position) per second, MFU against the device's dense peak for the dtype where it is known, the
ratio to probesmith and the largest score difference from probesmith's.
"""

import argparse
import json
import platform
import time
from pathlib import Path

import torch

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
#: Dense peak FLOP/s by (device name fragment, dtype): NVIDIA's data sheets (SXM parts).
PEAK_FLOPS = {
    ("H100", "bfloat16"): 989.4e12,
    ("H100", "float32"): 66.9e12,
    ("H200", "bfloat16"): 989.4e12,
    ("H200", "float32"): 66.9e12,
    ("A100", "bfloat16"): 312e12,
    ("A100", "float32"): 19.5e12,
}


def models(size: str, kind: str, tokenizer):
    from transformers import BertConfig, BertForMaskedLM, GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    if kind == "causal":
        shape = (
            dict(n_layer=2, n_embd=64, n_head=2)
            if size == "tiny"
            else dict(n_layer=12, n_embd=768, n_head=12)
        )
        return GPT2LMHeadModel(GPT2Config(vocab_size=len(tokenizer), n_positions=256, **shape))
    shape = (
        dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=2, intermediate_size=128)
        if size == "tiny"
        else dict(num_hidden_layers=12, hidden_size=768, num_attention_heads=12, intermediate_size=3072)
    )
    vocab = len(tokenizer) if size == "tiny" else max(len(tokenizer), 30522)
    return BertForMaskedLM(BertConfig(vocab_size=vocab, max_position_embeddings=256, **shape))


def statement_flops(model, kind: str, lengths: list[int], scored: list[int]) -> float:
    """Forward FLOPs the statements need when each is scored alone, without shared prefixes.

    Body: 2 x (non-embedding parameters) per token plus attention scores and mixing
    (4 x layers x width x length per token). Head: 2 x width x vocabulary per scored position
    (for BERT also its width x width transform). A masked statement runs once per scored token.
    """
    config = model.config
    width, layers, vocab = config.hidden_size, config.num_hidden_layers, config.vocab_size
    body = sum(
        p.numel()
        for n, p in model.base_model.named_parameters()
        if not any(part in n for part in ("embed", "wte", "wpe"))
    )
    head = 2 * width * vocab + (2 * width * width if kind == "masked" else 0)
    total = 0.0
    for length, k in zip(lengths, scored, strict=True):
        forward = length * (2 * body + 4 * layers * width * length)
        total += (k * forward if kind == "masked" else forward) + k * head
    return total


def peak_flops(device: str, dtype: str) -> float | None:
    if not device.startswith("cuda"):
        return None
    name = torch.cuda.get_device_name()
    return next((peak for (part, kind), peak in PEAK_FLOPS.items() if part in name and kind == dtype), None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--size", choices=["tiny", "base"], default="tiny")
    parser.add_argument("--relations", type=int, default=4)
    parser.add_argument("--instances", type=int, default=20)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--batch-tokens", type=int, default=None, help="default: 4096 on CPU, 65536 on GPU")
    parser.add_argument("--pub-quiz-batch", type=int, default=32)
    parser.add_argument("--lm-eval-batch", default="32", help="an integer, or 'auto' (the harness probes)")
    parser.add_argument("--no-lm-eval", action="store_true")
    parser.add_argument(
        "--lm-eval-softmax-dtype",
        default=None,
        help="the harness's softmax_dtype (default: the model's dtype)",
    )
    parser.add_argument(
        "--sweep", default="", help="also time probesmith alone at these comma-separated batch_tokens values"
    )
    parser.add_argument("--kind", action="append", choices=["causal", "masked"])
    parser.add_argument("--data", type=Path, default=SHARED)
    parser.add_argument("--json", type=Path, default=None, help="append the rows to this file")
    parser.add_argument(
        "--items",
        type=Path,
        default=None,
        help="also score multiple-choice items with probesmith and lm-eval: a JSONL file (question, "
        "choices) or a build folder (its test split, --items-per-config items of each config, by id)",
    )
    parser.add_argument("--items-per-config", type=int, default=1250)
    args = parser.parse_args()
    batch_tokens = args.batch_tokens or (65536 if args.device.startswith("cuda") else 4096)

    import lm_pub_quiz
    from transformers import PreTrainedTokenizerFast

    from probesmith.eval.models import train_wordpiece
    from probesmith.eval.scoring import score_statements

    dataset = lm_pub_quiz.Dataset.from_path(str(args.data / "bear" / "BEAR"))
    codes = sorted(dataset.relation_codes)[: args.relations]
    subset = dataset.filter_subset({c: list(range(args.instances)) for c in codes}, keep_answer_space=True)
    dtype = getattr(torch, args.dtype)
    peak = peak_flops(args.device, args.dtype)
    setting = {
        "device": args.device
        + (
            f" ({torch.cuda.get_device_name()})"
            if args.device.startswith("cuda")
            else f" ({platform.machine()})"
        ),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "size": args.size,
        "dtype": args.dtype,
        "relations": len(codes),
        "batch_tokens": batch_tokens,
    }
    print(json.dumps(setting))
    rows = []
    for kind in args.kind or ["causal", "masked"]:
        gpt2 = PreTrainedTokenizerFast.from_pretrained(str(args.data / "tokenizers" / "gpt2"))
        texts = []
        for relation in subset:
            template = relation.templates[0]
            for sub in relation.instance_table["sub_label"]:
                texts += [template.replace("[X]", sub).replace("[Y]", a) for a in relation.answer_space]
        tokenizer = gpt2 if kind == "causal" else train_wordpiece(texts, vocab_size=4000)
        model = models(args.size, kind, tokenizer).to(args.device, dtype=dtype).eval()
        evaluator = lm_pub_quiz.Evaluator.from_model(
            model, tokenizer=tokenizer, model_type="CLM" if kind == "causal" else "MLM", device=args.device
        )
        statements = []
        for relation in subset:
            for sub in relation.instance_table["sub_label"]:
                statements += [
                    evaluator.replace_placeholders(template=relation.templates[0], subject=sub, answer=a)[0]
                    for a in relation.answer_space
                ]
        # warm-up (kernels, allocator), then timed runs
        score_statements(
            model, tokenizer, statements[:2048], kind=kind, batch_tokens=batch_tokens, progress=False
        )
        _sync(args.device)
        start = time.perf_counter()
        ours, counts = score_statements(
            model,
            tokenizer,
            statements,
            kind=kind,
            batch_tokens=batch_tokens,
            progress=False,
            return_token_counts=True,
        )
        _sync(args.device)
        ours_seconds = time.perf_counter() - start
        lengths = [len(ids) for ids in tokenizer(statements)["input_ids"]]
        lengths = [n + 1 for n in lengths] if kind == "causal" else lengths  # the BOS context
        flops = statement_flops(model, kind, lengths, counts)
        tokens = sum(lengths)
        timings = {"probesmith": (ours_seconds, ours)}
        for budget in [int(v) for v in args.sweep.split(",") if v]:
            start = time.perf_counter()
            scores = score_statements(
                model, tokenizer, statements, kind=kind, batch_tokens=budget, progress=False
            )
            _sync(args.device)
            timings[f"probesmith (batch_tokens {budget})"] = (time.perf_counter() - start, scores)

        start = time.perf_counter()
        results = evaluator.evaluate_dataset(
            subset, template_index=0, batch_size=args.pub_quiz_batch, reduction="sum"
        )
        _sync(args.device)
        theirs = [
            float(x) for result in results for scores in result.instance_table["pll_scores"] for x in scores
        ]
        timings["lm-pub-quiz"] = (time.perf_counter() - start, theirs)

        if kind == "causal" and not args.no_lm_eval:
            timings["lm-eval"] = harness_scores(model, tokenizer, [("", x) for x in statements], args)
        what = {"kind": kind, "statements": len(statements)}
        rows += timing_rows(timings, setting, what, tokens, flops, peak)
        del model, evaluator
        if args.device.startswith("cuda"):
            torch.cuda.empty_cache()
    if args.items:
        rows += multiple_choice(args, setting, batch_tokens, dtype, peak)
    if args.json:
        with args.json.open("a") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")


def harness_scores(model, tokenizer, pairs: list[tuple[str, str]], args) -> tuple[float, list[float]]:
    """Seconds and log-likelihoods of (context, continuation) pairs through lm-eval's HFLM."""
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    batch = args.lm_eval_batch if args.lm_eval_batch == "auto" else int(args.lm_eval_batch)
    harness = HFLM(
        pretrained=model,
        tokenizer=tokenizer,
        batch_size=batch,
        max_batch_size=4096,
        softmax_dtype=args.lm_eval_softmax_dtype,
    )
    requests = [
        Instance(request_type="loglikelihood", doc={}, arguments=pair, idx=i) for i, pair in enumerate(pairs)
    ]
    start = time.perf_counter()
    answers = harness.loglikelihood(requests, disable_tqdm=True)
    _sync(args.device)
    return time.perf_counter() - start, [score for score, _ in answers]


def timing_rows(timings: dict, setting: dict, what: dict, tokens: int, flops: float, peak) -> list[dict]:
    """One printed JSON row per tool: rates, model FLOP/s, MFU, speedup and score agreement."""
    ours_seconds, ours = timings["probesmith"]
    rows = []
    for tool, (seconds, scores) in timings.items():
        row = {
            **what,
            "tool": tool,
            "seconds": round(seconds, 2),
            "statements_per_s": round(what["statements"] / seconds, 1),
            "tokens_per_s": round(tokens / seconds),
            "model_tflops_per_s": round(flops / seconds / 1e12, 2),
            "mfu": round(flops / seconds / peak, 4) if peak else None,
            "probesmith_speedup": round(seconds / ours_seconds, 2),
            "max_abs_diff": float(f"{max(abs(a - b) for a, b in zip(ours, scores, strict=True)):.2e}"),
        }
        rows.append({**setting, **row})
        print(json.dumps(row), flush=True)
    return rows


def multiple_choice(args, setting: dict, batch_tokens: int, dtype, peak: float | None) -> list[dict]:
    """Choices scored given their question (``question\\nAnswer: choice``), probesmith against lm-eval.

    probesmith runs with ``bos=False``: the harness conditions a choice on its question alone
    (GPT-2's tokenizer adds no BOS, so its ``add_bos_token`` changes nothing), and so the two
    compute the same scores.
    """
    from transformers import PreTrainedTokenizerFast

    from probesmith.eval.scoring import score_statements

    if args.items.is_dir():
        import polars as pl

        from probesmith.eval.mcqa import load_build

        items = []
        for _, frame in sorted(load_build(args.items, ("test",)).items()):
            frame = frame.filter(pl.col("split") == "test").sort("id").head(args.items_per_config)
            items += frame.select("question", "choices").to_dicts()
    else:
        items = [json.loads(line) for line in args.items.open()]
    contexts, continuations = [], []
    for item in items:
        for choice in item["choices"]:
            contexts.append(f"{item['question']}\nAnswer:")
            continuations.append(f" {choice}")
    statements = [c + x for c, x in zip(contexts, continuations, strict=True)]
    starts = [len(c) for c in contexts]
    tokenizer = PreTrainedTokenizerFast.from_pretrained(str(args.data / "tokenizers" / "gpt2"))
    model = models(args.size, "causal", tokenizer).to(args.device, dtype=dtype).eval()
    score_statements(
        model,
        tokenizer,
        statements[:1000],
        answer_starts=starts[:1000],
        batch_tokens=batch_tokens,
        progress=False,
        bos=False,
    )
    _sync(args.device)
    start = time.perf_counter()
    ours, counts = score_statements(
        model,
        tokenizer,
        statements,
        answer_starts=starts,
        batch_tokens=batch_tokens,
        progress=False,
        return_token_counts=True,
        bos=False,
    )
    _sync(args.device)
    ours_seconds = time.perf_counter() - start
    lengths = [len(ids) for ids in tokenizer(statements)["input_ids"]]
    flops = statement_flops(model, "causal", lengths, counts)
    timings = {
        "probesmith": (ours_seconds, ours),
        "lm-eval": harness_scores(model, tokenizer, list(zip(contexts, continuations, strict=True)), args),
    }
    what = {"kind": "causal multiple choice (WordNetQA)", "items": len(items), "statements": len(statements)}
    return timing_rows(timings, setting, what, sum(lengths), flops, peak)


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


if __name__ == "__main__":
    main()
