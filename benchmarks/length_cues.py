"""Length cues of multiple-choice builds beside the 2020 release: shortest, longest, fewest and most words.

    python benchmarks/length_cues.py BUILD_DIR [BUILD_DIR ...] [--release DIR] [--split test]

For every config of each build (its ``--split`` items) and every training file of the release
(``../shared/data/wordnetqa_2020``: WordNetQA's four probes and DictionaryQA, the choices as the
release shows them), prints the accuracy of the untrained length baselines of
``probesmith.builders.baselines`` (the choice with the fewest / most characters or words wins,
ties broken at random: the tied choices share the credit), a 95% interval (normal approximation
over items), and chance (the mean of 1 / number of choices). The audit runs the same baselines
(``probesmith audit BUILD --baselines shortest longest fewest_words most_words``) on held-out
items of the training split; this script reads every item of a split.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq

from probesmith.eval.baselines import make_baseline

CUES = ("shortest", "longest", "fewest_words", "most_words")
DEFAULT_RELEASE = Path(__file__).resolve().parents[2] / "shared" / "data" / "wordnetqa_2020"


def build_frames(build: Path, split: str) -> dict[str, pl.DataFrame]:
    """Each config's ``split`` items of a probesmith build (question, choices, answer_index)."""
    frames = {}
    for folder in sorted(p for p in build.iterdir() if p.is_dir() and list(p.glob(f"{split}-*.parquet"))):
        tables = [
            pq.read_table(f, columns=["question", "choices", "answer_index"])
            for f in sorted(folder.glob(f"{split}-*.parquet"))
        ]
        frames[folder.name] = pl.concat([pl.from_arrow(t) for t in tables])
    return frames


def release_frames(release: Path) -> dict[str, pl.DataFrame]:
    """Each training file of the release, its choices as shown."""
    frames = {}
    for path in sorted(release.glob("*.train.jsonl.gz")):
        rows = []
        with gzip.open(path, "rt") as fh:
            for line in fh:
                item = json.loads(line)
                choices = item["question"]["choices"]
                labels = [str(c["label"]) for c in choices]
                rows.append(
                    {
                        "question": item["question"]["stem"],
                        "choices": [c["text"] for c in choices],
                        "answer_index": labels.index(str(item["answerKey"])),
                    }
                )
        frames[path.name.split(".")[0]] = pl.DataFrame(rows)
    return frames


def measure(frame: pl.DataFrame) -> dict:
    """Accuracy and 95% half-width of each length cue, and chance, over every item of ``frame``."""
    out = {"items": frame.height, "chance": round(float(np.mean([1 / len(c) for c in frame["choices"]])), 4)}
    for cue in CUES:
        credit = make_baseline(cue).credits(frame)
        half = 1.96 * credit.std(ddof=1) / np.sqrt(len(credit)) if len(credit) > 1 else 0.0
        out[cue] = (round(float(credit.mean()), 4), round(float(half), 4))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("builds", type=Path, nargs="*", help="probesmith build folders")
    parser.add_argument("--release", type=Path, default=DEFAULT_RELEASE)
    parser.add_argument("--split", default="test")
    args = parser.parse_args()
    results = {}
    for build in args.builds:
        for config, frame in build_frames(build, args.split).items():
            results[f"{build.name} {config} ({args.split})"] = measure(frame)
    if args.release.is_dir():
        for config, frame in release_frames(args.release).items():
            results[f"release-2020 {config} (train)"] = measure(frame)
    print(f"| data | items | chance | {' | '.join(CUES)} |")
    print("|---|---|---|" + "---|" * len(CUES))
    for name, r in results.items():
        cells = " | ".join(f"{r[c][0]:.3f} ± {r[c][1]:.3f}" for c in CUES)
        print(f"| {name} | {r['items']:,} | {r['chance']:.3f} | {cells} |")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
