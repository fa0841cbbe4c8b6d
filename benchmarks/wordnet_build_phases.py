"""Resident memory and time at each phase of one WordNetQA build: where its peak comes from.

    python benchmarks/wordnet_build_phases.py [--spec wordnet] [--out DIR] [--every 2000]

Runs the build in this process with a thread sampling the resident set size (``VmRSS``) every
quarter second and marks (time, RSS) where a phase starts and ends: loading the WordNet graph, the
popular-synset pools, every ``--every`` concepts of the concept loop, answer balancing, assembling
the tables, the validity report and the summary. Timing wrappers add next to nothing; nothing built
changes (the logical hash is printed). For wall and CPU time compare builds with
``wordnet_build_speed.py`` instead, which builds in a fresh process.
"""

from __future__ import annotations

import argparse
import functools
import tempfile
import threading
import time
from pathlib import Path

import probesmith.builders.build as build_module
import probesmith.builders.families.wordnetqa as wordnetqa
from probesmith.builders.registry import load_spec
from probesmith.builders.sources.wordnet import WordNetSource


def resident_mb() -> float:
    """This process's resident set size now, in MB (Linux ``/proc/self/status``)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status (Linux only)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", default="wordnet", help="spec name or YAML path (default: wordnet)")
    parser.add_argument("--out", type=Path, help="build folder (default: a temporary one)")
    parser.add_argument("--every", type=int, default=2000, help="mark every this many concepts")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="wordnet-phases-")) / "build"
    started = time.perf_counter()
    samples: list[float] = []
    marks: list[tuple[float, float, str]] = []

    def sample() -> None:
        while True:
            samples.append(resident_mb())
            time.sleep(0.25)

    def mark(name: str) -> None:
        marks.append((time.perf_counter() - started, resident_mb(), name))

    def wrap(owner, attribute: str, name: str) -> None:
        inner = getattr(owner, attribute)

        @functools.wraps(inner)
        def timed(*positional, **keywords):
            mark(f"{name} starts")
            result = inner(*positional, **keywords)
            mark(f"{name} ends")
            return result

        setattr(owner, attribute, timed)

    wrap(WordNetSource, "load", "WordNet graph")
    wrap(wordnetqa._Builder, "prepare_popular", "popular pools")
    wrap(wordnetqa, "balance_answers", "answer balancing")
    wrap(wordnetqa._Builder, "release_caches", "releasing the builder's caches")
    wrap(build_module, "assemble_tables", "assembling tables")
    wrap(build_module, "validity_report", "validity report")
    wrap(build_module, "summarize", "summary")
    items_for, done = wordnetqa._Builder.items_for, [0]

    def counted_items_for(builder, concept):
        done[0] += 1
        if done[0] % args.every == 0:
            mark(f"{done[0]:,} concepts")
        return items_for(builder, concept)

    wordnetqa._Builder.items_for = counted_items_for
    threading.Thread(target=sample, daemon=True).start()
    result = build_module.build(load_spec(args.spec), out)
    mark("built")
    for seconds, rss, name in marks:
        print(f"{seconds:7.1f} s {rss:7.0f} MB  {name}")
    print(f"peak RSS sampled: {max(samples):.0f} MB; logical hash {result.manifest['logical_hash'][:16]}")


if __name__ == "__main__":
    main()
