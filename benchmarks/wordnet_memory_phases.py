"""Peak memory of one WordNetQA build, phase by phase.

    python benchmarks/wordnet_memory_phases.py [--spec wordnet] [--out DIR]

Builds the spec in this process (one process, ``--workers 1``) while a thread reads the process's
resident set size (``VmRSS``) every 0.25 s, and marks where each phase begins: the graph read,
the popular pools (``prepare_popular``), the concept loop, the caches' release at its end,
the tables (``assemble_tables``), the validity report, the summary and the Parquet writing.
Prints each phase's seconds, its peak RSS and the RSS at its end, then the build's peak
(``ru_maxrss``), user CPU and logical hash: a memory change must not change a row. Linux only
(``/proc``).
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import threading
import time
from pathlib import Path

import probesmith.builders.build as build_module
import probesmith.builders.families.wordnetqa as wordnetqa
from probesmith.builders.registry import load_spec
from probesmith.schemas.artifact import DatasetFolderWriter

SAMPLE_SECONDS = 0.25


def resident_mb() -> int:
    """This process's resident set size in MB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return 0


class PhaseMarks:
    """When each phase began (its first call), and the RSS samples taken meanwhile."""

    def __init__(self) -> None:
        self.began: dict[str, float] = {"imports and graph": time.time()}
        self.samples: list[tuple[float, int]] = []

    def sample_forever(self) -> None:
        while True:
            self.samples.append((time.time(), resident_mb()))
            time.sleep(SAMPLE_SECONDS)

    def mark_calls(self, owner, attribute: str, phase: str) -> None:
        """Record ``phase`` as begun at the first call of ``owner.attribute``."""
        original = getattr(owner, attribute)

        def marked(*args, **kwargs):
            self.began.setdefault(phase, time.time())
            return original(*args, **kwargs)

        setattr(owner, attribute, marked)

    def table(self, ended: float) -> list[str]:
        starts = sorted(self.began.items(), key=lambda item: item[1])
        lines = ["| phase | s | peak RSS MB | RSS at its end MB |", "|---|---:|---:|---:|"]
        for (phase, start), stop in zip(starts, [t for _, t in starts[1:]] + [ended], strict=True):
            inside = [rss for t, rss in self.samples if start <= t < stop]
            peak, last = (f"{max(inside):,}", f"{inside[-1]:,}") if inside else ("-", "-")  # under one sample
            lines.append(f"| {phase} | {stop - start:.1f} | {peak} | {last} |")
        return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", default="wordnet", help="spec name or YAML path (default: wordnet)")
    parser.add_argument("--out", help="folder for the build (default: a temporary one)")
    args = parser.parse_args()
    marks = PhaseMarks()
    threading.Thread(target=marks.sample_forever, daemon=True).start()
    marks.mark_calls(wordnetqa._Builder, "prepare_popular", "popular pools")
    marks.mark_calls(wordnetqa, "_items_here", "concept loop")
    marks.mark_calls(wordnetqa._Builder, "release_caches", "caches released, answer balance")
    marks.mark_calls(build_module, "assemble_tables", "tables")
    marks.mark_calls(build_module, "validity_report", "validity report")
    marks.mark_calls(build_module, "summarize", "summary")
    marks.mark_calls(DatasetFolderWriter, "add_table", "Parquet writing")
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(args.out) if args.out else Path(scratch) / "build"
        result = build_module.build(load_spec(args.spec), out)
    ended = time.time()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print("\n".join(marks.table(ended)))
    print(
        f"peak RSS {usage.ru_maxrss // 1024:,} MB, user CPU {usage.ru_utime:.1f} s, "
        f"wall {ended - marks.began['imports and graph']:.1f} s, logical hash {result.manifest['logical_hash'][:16]}"
    )


if __name__ == "__main__":
    main()
