"""Time and peak memory of the default builds (the README's main job), one process per family.

    python benchmarks/build_default.py [--out DIR] [--family NAME ...]

Prints, per family: items, wall time split into generate / assemble / write, and peak RSS.
"""

import argparse
import json
import platform
import resource
import subprocess
import sys
import tempfile
from pathlib import Path


def run_one(family: str, out: Path) -> dict:
    from probesmith.builders.build import build
    from probesmith.builders.registry import get_family, load_spec

    spec = load_spec(get_family(family).default_spec)
    result = build(spec, out / spec.name)
    rows = sum(t["rows"] for t in result.manifest["tables"].values())
    return {
        "family": family,
        "items": rows,
        "seconds": round(result.seconds, 1),
        **{k: round(v, 1) for k, v in result.timings.items()},
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path)
    parser.add_argument("--family", action="append")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="probesmith-bench-"))
    if args.one:
        print(json.dumps(run_one(args.one, out)))
        return
    from probesmith.builders.registry import families

    names = args.family or list(families())
    print(
        f"machine: {platform.processor() or platform.machine()}, "
        f"{len(__import__('os').sched_getaffinity(0))} cores, Python {platform.python_version()}"
    )
    header = ("family", "items", "total s", "generate", "assemble", "write", "peak MB")
    print(f"{header[0]:12} " + " ".join(f"{h:>9}" for h in header[1:]))
    for name in names:
        proc = subprocess.run(
            [sys.executable, __file__, "--one", name, "--out", str(out)],
            capture_output=True,
            text=True,
            check=True,
        )
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        values = (
            f"{r['items']:,}",
            r["seconds"],
            r["generate_s"],
            r["assemble_s"],
            r["write_s"],
            f"{r['peak_rss_mb']:,}",
        )
        print(f"{r['family']:12} " + " ".join(f"{v:>9}" for v in values))


if __name__ == "__main__":
    main()
