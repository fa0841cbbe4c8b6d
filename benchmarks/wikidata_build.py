"""Time to load the shared Wikidata slice into a store, and to build relation sets and grids.

    python benchmarks/wikidata_build.py [--out DIR]

Each step in its own process (peak RSS per step); the SPARQL cache is off, so every query runs.
"""

import argparse
import json
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SLICE = Path(__file__).resolve().parents[2] / "shared/data/wikidata_slice/wikidata_slice.nt.gz"


def step(name: str, out: Path) -> dict:
    started = time.perf_counter()
    if name == "load":
        from probesmith.builders.sources.wikidata import load_store

        info = load_store(SLICE, out / "store", progress=False)
        detail = f"{info['triples']:,} triples"
    else:
        from probesmith.builders.build import build
        from probesmith.builders.registry import load_spec

        spec = load_spec(name)
        spec = type(spec)(
            **{**spec.__dict__, "wikidata": type(spec.wikidata)(source=str(out / "store"), cache_mode="off")}
        )
        result = build(spec, out / name)
        detail = ", ".join(f"{k.split('/')[0]} {v['rows']:,}" for k, v in result.manifest["tables"].items())
    return {
        "step": name,
        "seconds": round(time.perf_counter() - started, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "detail": detail,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="probesmith-wd-"))
    if args.one:
        print(json.dumps(step(args.one, out)))
        return
    cores = len(__import__("os").sched_getaffinity(0))
    print(f"machine: {platform.machine()}, {cores} cores, Python {platform.python_version()}")
    for name in ("load", "relations", "paraphrases"):
        proc = subprocess.run(
            [sys.executable, __file__, "--one", name, "--out", str(out)],
            capture_output=True,
            text=True,
            check=True,
        )
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        print(f"{r['step']:12} {r['seconds']:>7} s {r['peak_rss_mb']:>7,} MB  {r['detail']}")


if __name__ == "__main__":
    main()
