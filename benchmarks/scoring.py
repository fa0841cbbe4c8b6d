"""Statement scoring throughput: probesmith against lm-pub-quiz 0.3.3, same model, same statements.

    python benchmarks/scoring.py [--device cpu|cuda] [--size tiny|base] [--relations 4] [--instances 20]
                                 [--dtype float32|bfloat16] [--batch-tokens N] [--pub-quiz-batch 32]

BEAR relations from ../shared/data/bear (template 0, every answer of the answer space), scored
by a causal model (GPT-2 architecture, the real GPT-2 tokenizer) and a masked one (BERT
architecture, a WordPiece trained on the statements), randomly initialised from their configs:
``tiny`` (2 layers, 64 wide) or ``base`` (GPT-2 small / BERT base sizes). lm-pub-quiz runs its
own ``evaluate_dataset`` (one instance's answers per batch); probesmith scores the same
statements with ``score_statements``. Prints statements/s for each, their ratio and the largest
score difference.
"""

import argparse
import json
import platform
import time
from pathlib import Path

import torch

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
BEAR = SHARED / "bear" / "BEAR"


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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--size", choices=["tiny", "base"], default="tiny")
    parser.add_argument("--relations", type=int, default=4)
    parser.add_argument("--instances", type=int, default=20)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--batch-tokens", type=int, default=4096)
    parser.add_argument("--pub-quiz-batch", type=int, default=32)
    parser.add_argument("--kind", action="append", choices=["causal", "masked"])
    args = parser.parse_args()

    import lm_pub_quiz
    from transformers import PreTrainedTokenizerFast

    from probesmith.eval.encoder import train_wordpiece
    from probesmith.eval.scoring import score_statements

    dataset = lm_pub_quiz.Dataset.from_path(str(BEAR))
    codes = sorted(dataset.relation_codes)[: args.relations]
    subset = dataset.filter_subset({c: list(range(args.instances)) for c in codes}, keep_answer_space=True)
    dtype = getattr(torch, args.dtype)
    print(
        f"machine: {platform.processor() or platform.machine()}, {torch.get_num_threads()} threads, "
        f"device {args.device}"
        + (f" ({torch.cuda.get_device_name()})" if args.device.startswith("cuda") else "")
        + f"; torch {torch.__version__}; size {args.size}; dtype {args.dtype}; relations {codes}"
    )
    for kind in args.kind or ["causal", "masked"]:
        gpt2 = PreTrainedTokenizerFast.from_pretrained(str(SHARED / "tokenizers" / "gpt2"))
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
        statements, theirs = [], []
        for relation in subset:
            for sub in relation.instance_table["sub_label"]:
                statements += [
                    evaluator.replace_placeholders(template=relation.templates[0], subject=sub, answer=a)[0]
                    for a in relation.answer_space
                ]
        # warm-up, then timed runs
        score_statements(
            model, tokenizer, statements[:64], kind=kind, batch_tokens=args.batch_tokens, progress=False
        )
        _sync(args.device)
        start = time.perf_counter()
        results = evaluator.evaluate_dataset(
            subset, template_index=0, batch_size=args.pub_quiz_batch, reduction="sum"
        )
        _sync(args.device)
        theirs_seconds = time.perf_counter() - start
        for result in results:
            theirs += [float(x) for scores in result.instance_table["pll_scores"] for x in scores]
        start = time.perf_counter()
        ours = score_statements(
            model, tokenizer, statements, kind=kind, batch_tokens=args.batch_tokens, progress=False
        )
        _sync(args.device)
        ours_seconds = time.perf_counter() - start
        diff = max(abs(a - b) for a, b in zip(ours, theirs, strict=True))
        row = {
            "kind": kind,
            "statements": len(statements),
            "lm_pub_quiz_per_s": round(len(statements) / theirs_seconds, 1),
            "probesmith_per_s": round(len(statements) / ours_seconds, 1),
            "ratio": round(theirs_seconds / ours_seconds, 2),
            "max_abs_diff": float(f"{diff:.2e}"),
        }
        print(json.dumps(row))


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


if __name__ == "__main__":
    main()
