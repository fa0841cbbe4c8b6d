"""Host-side scoring throughput: what bounds a GPU's statements/s for small models, on any machine.

    python benchmarks/host_scoring.py [--instances 30] [--relations 60] [--repeats 3] [--data DIR]
                                      [--batch-tokens 65536] [--threads 1] [--prefetch auto|on|off]
                                      [--module OLD_SCORING_PY] [--shape host|base]
                                      [--json FILE]

Scores BEAR's template-0 statements (``DIR/bear/BEAR``, default ../shared/data; the first
``--instances`` instances of each of the first ``--relations`` relations, every answer of the
relation's answer space) with a causal model so small that nearly all the time is host work: a
GPT-2 configuration with 1 layer, 8 wide, randomly initialised, and the real GPT-2 tokenizer
from ``DIR/tokenizers/gpt2``. Statements are read from BEAR's JSONL directly (lm-pub-quiz is not
needed): ``template.replace("[X]", subject).replace("[Y]", answer)``.

Prints one JSON line per repeat and a summary: wall statements/s, and the wall time split into

* ``tokenise``: calls of the tokenizer (``scoring._encode`` and, where present, the token cache);
* ``model``: the forward passes and log-softmaxes (``scoring._forward`` and ``_Selected``);
* ``host``: everything else on the critical path (prefix grouping, batching, index building);

and ``host_statements_per_s`` = statements / (wall - model): the rate the host side allows a
device that took no time at all. The first repeat is cold (tokenisation included); later ones
reuse what a cache kept, which is the second-model case.
"""

import argparse
import json
import platform
import time
from pathlib import Path

import torch

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def bear_statements(folder: Path, relations: int, instances: int) -> list[str]:
    """Template-0 statements of BEAR: every answer of the space for the first ``instances`` subjects."""
    meta = json.loads((folder / "metadata_relations.json").read_text())
    statements = []
    for code in sorted(meta)[:relations]:
        template = meta[code]["templates"][0]
        rows = [json.loads(line) for line in (folder / f"{code}.jsonl").read_text().splitlines()[:instances]]
        for row in rows:
            filled = template.replace("[X]", row["sub_label"])
            statements += [filled.replace("[Y]", answer) for answer in meta[code]["answer_space_labels"]]
    return statements


class Clock:
    """Wraps module functions to sum the seconds spent in them (outermost calls only)."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self.depth = 0

    def wrap(self, owner, name: str, phase: str):
        original = getattr(owner, name, None)
        if original is None:
            return
        clock = self

        def timed(*args, **kwargs):
            if clock.depth:
                return original(*args, **kwargs)
            clock.depth += 1
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                clock.depth -= 1
                clock.seconds[phase] = clock.seconds.get(phase, 0.0) + time.perf_counter() - start

        setattr(owner, name, timed)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=SHARED)
    parser.add_argument("--relations", type=int, default=60)
    parser.add_argument("--instances", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-tokens", type=int, default=65536, help="the GPU rows' budget")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (1: the model's time disturbs the host's least)"
    )
    parser.add_argument(
        "--prefetch",
        choices=["auto", "on", "off"],
        default="auto",
        help="batches prepared on a background thread (auto: as score_statements decides, off on CPU)",
    )
    parser.add_argument(
        "--module",
        type=Path,
        default=None,
        help="score with this scoring.py instead (e.g. `git show 52a04a5:eval/scoring.py`: before issue 28)",
    )
    parser.add_argument(
        "--shape",
        choices=["host", "base"],
        default="host",
        help="host: 1 layer x 8; base: GPT-2 small (124M)",
    )
    parser.add_argument("--json", type=Path, default=None, help="append the rows to this file")
    parser.add_argument("--scores", type=Path, default=None, help="write the scores (JSON) to this file")
    args = parser.parse_args()

    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    if args.module is not None:  # another version of the module, under the same name
        import importlib.util
        import sys

        spec = importlib.util.spec_from_file_location("probesmith.eval.scoring", args.module)
        scoring = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = scoring
        spec.loader.exec_module(scoring)
    else:
        from probesmith.eval import scoring

    torch.set_num_threads(args.threads)
    statements = bear_statements(args.data / "bear" / "BEAR", args.relations, args.instances)
    tokenizer = PreTrainedTokenizerFast.from_pretrained(str(args.data / "tokenizers" / "gpt2"))
    torch.manual_seed(0)
    shape = (
        dict(n_layer=1, n_embd=8, n_head=1)
        if args.shape == "host"
        else dict(n_layer=12, n_embd=768, n_head=12)
    )
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(tokenizer), n_positions=256, **shape)).eval()
    clock = Clock()
    for name in ("_encode", "_tokenise"):
        clock.wrap(scoring, name, "tokenise")
    if hasattr(scoring, "TokenCache"):  # encodings from the token cache, or tokenised on a miss
        clock.wrap(scoring.TokenCache, "encode", "tokenise")
    clock.wrap(scoring, "_forward", "model")
    for name in ("token_log_probs", "log_softmax"):
        clock.wrap(scoring._Selected, name, "model")
    setting = {
        "machine": f"{platform.machine()}, {torch.get_num_threads()} torch threads",
        "torch": torch.__version__,
        "statements": len(statements),
        "batch_tokens": args.batch_tokens,
        "module": str(args.module or "eval/scoring.py"),
        "shape": args.shape,
    }
    print(json.dumps(setting))
    rows, scores = [], None
    for repeat in range(args.repeats):
        clock.seconds = {}
        start = time.perf_counter()
        prefetch = {"auto": {}, "on": {"prefetch": True}, "off": {"prefetch": False}}[args.prefetch]
        prefetch = prefetch if args.module is None else {}
        scores = scoring.score_statements(
            model, tokenizer, statements, batch_tokens=args.batch_tokens, progress=False, **prefetch
        )
        wall = time.perf_counter() - start
        model_s, tokenise_s = clock.seconds.get("model", 0.0), clock.seconds.get("tokenise", 0.0)
        row = {
            **setting,
            "repeat": repeat,
            "wall_s": round(wall, 3),
            "statements_per_s": round(len(statements) / wall),
            "tokenise_s": round(tokenise_s, 3),
            "host_s": round(wall - model_s - tokenise_s, 3),
            "model_s": round(model_s, 3),
            "host_statements_per_s": round(len(statements) / max(wall - model_s, 1e-9)),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        with args.json.open("a") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")
    if args.scores:
        args.scores.write_text(json.dumps(scores))


if __name__ == "__main__":
    main()
