"""Wall time, user CPU and peak memory of one WordNetQA build, and of the same build at an older commit.

    python benchmarks/wordnet_build_speed.py [--spec wordnet] [--before COMMIT] [--out DIR] [--workers N]
    python benchmarks/wordnet_build_speed.py --all [--before COMMIT] [--workers N]   # probesmith build all

Builds ``--spec`` (a spec name or YAML path; default: the default spec, ``probesmith build
wordnet``) in a fresh process with the working tree's code and prints its wall time, user and
system CPU, peak RSS, the build's own split (generate / assemble / write) and its logical hash.
With ``--before COMMIT`` the same spec is first built, back to back, with that commit's code
(``git archive`` into a temporary folder, imported ahead of the installed package), and the
two logical hashes are compared: a speed-up must not change a row. The load average before and
after each build is printed too, since other processes on the machine slow a build.

A build may run in several processes (``--workers N``; the build's default is 1): user CPU is
the whole tree's (``wait4`` counts the workers the build waited for), and memory is sampled every
half second as the sum of RSS, and of PSS (shared pages split between the processes sharing them),
over the build's process and all its descendants; ``peak RSS`` is the largest single process.
``--all`` times ``probesmith build all`` (every family, each compared with its reference) instead.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# the installed package maps these names to the repository's folders (pyproject's package-dir)
PACKAGE_DIRS = {"builders": "builders", "schemas": "schemas", "probes": "probes", "eval": "eval"}

# runs in the child: one build, its own timings and logical hash as one JSON line
CHILD = """
import json, sys
from probesmith.builders.build import build
from probesmith.builders.registry import load_spec
import probesmith.builders.families.wordnetqa as family
if sys.argv[3] != "default":
    from probesmith.builders.batch import set_build_workers  # absent before issue 26's workers
    set_build_workers(int(sys.argv[3]))
result = build(load_spec(sys.argv[1]), sys.argv[2])
print(json.dumps({
    "code": family.__file__,
    "build_s": result.seconds,
    **result.timings,
    "logical_hash": result.manifest["logical_hash"],
    "rows": sum(t["rows"] for t in result.manifest["tables"].values()),
}))
"""


def checkout(commit: str, into: Path) -> Path:
    """``commit``'s tracked files under ``into/tree`` and an import folder whose ``probesmith`` is them.

    Returns the folder to put first on ``PYTHONPATH``. Nothing in the repository changes.
    """
    tree, site = into / "tree", into / "site"
    tree.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", commit], capture_output=True, check=True
    ).stdout
    archive_path = into / "tree.tar"
    archive_path.write_bytes(archive)
    with tarfile.open(archive_path) as tar:
        tar.extractall(tree, filter="data")
    package = site / "probesmith"
    package.mkdir(parents=True)
    for entry in (tree / "probesmith").iterdir():
        (package / entry.name).symlink_to(entry)
    for name, folder in PACKAGE_DIRS.items():
        (package / name).symlink_to(tree / folder)
    return site


# runs in the child for --all: `probesmith build all`, its lines, then the same JSON line
CHILD_ALL = """
import json, sys, time
from probesmith import cli
started = time.perf_counter()
args = ["build", "all", "--out", sys.argv[2]] + ([] if sys.argv[3] == "default" else ["--workers", sys.argv[3]])
code = cli.main(args)
print(json.dumps({"code": cli.__file__, "exit": code, "build_s": time.perf_counter() - started}), flush=True)
"""


def _tree(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    found, frontier = [pid], [pid]
    while frontier:
        parent = frontier.pop()
        try:
            children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
        except OSError:
            continue
        found += map(int, children)
        frontier += map(int, children)
    return found


def _rss_pss_kb(pid: int) -> tuple[int, int]:
    try:
        fields = dict(
            line.split(":", 1) for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]
        )
    except OSError:
        return 0, 0
    return int(fields["Rss"].split()[0]), int(fields["Pss"].split()[0])


class TreeMemory(threading.Thread):
    """Samples the summed RSS and PSS of a process tree every half second; keeps the peaks (MB)."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak_rss_mb, self.peak_pss_mb, self.most_processes = pid, 0.0, 0.0, 1
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(0.5):
            pids = _tree(self.pid)
            sizes = [_rss_pss_kb(pid) for pid in pids]
            self.peak_rss_mb = max(self.peak_rss_mb, sum(r for r, _ in sizes) / 1024)
            self.peak_pss_mb = max(self.peak_pss_mb, sum(p for _, p in sizes) / 1024)
            self.most_processes = max(self.most_processes, len(pids))


def run_build(
    spec: str, out: Path, python_path: Path | None, workers: str = "default", everything: bool = False
) -> dict:
    """One build in a child process: wall, CPU and peak RSS (from ``wait4``), tree memory, the child's report."""
    env = dict(os.environ)
    if python_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(python_path), env.get("PYTHONPATH")]))
    if everything:  # each family compared with its reference, and the largest built beside the others
        shutil.copytree(REPO / "artifacts" / "reference", out / "reference", dirs_exist_ok=True)
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as stdout:
        child = subprocess.Popen(
            # -P: the working folder is not put first on sys.path, so PYTHONPATH's code is what runs
            [sys.executable, "-P", "-c", CHILD_ALL if everything else CHILD, spec, str(out), workers],
            stdout=stdout,
            stderr=subprocess.DEVNULL,
            cwd=REPO,  # relative source paths (the Wikidata slice) resolve as for the working tree
            env=env,
        )
        memory = TreeMemory(child.pid)
        memory.start()
        _, status, usage = os.wait4(child.pid, 0)
        memory.stopped.set()
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        if child.returncode:
            raise SystemExit(f"the build of {spec} into {out} failed (exit {child.returncode})")
        stdout.seek(0)
        lines = stdout.read().strip().splitlines()
        report = json.loads(lines[-1])
        if everything:
            report["lines"] = lines[:-1]
    return {
        "tree_rss_mb": memory.peak_rss_mb,
        "tree_pss_mb": memory.peak_pss_mb,
        "processes": memory.most_processes,
        "wall_s": wall,
        "user_s": usage.ru_utime,
        "sys_s": usage.ru_stime,
        "peak_rss_mb": usage.ru_maxrss / 1024,
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        **report,
    }


def describe(label: str, r: dict) -> str:
    if r.get("exit"):
        raise SystemExit(f"{label}: the command exited {r['exit']}:\n" + "\n".join(r.get("lines", [])))
    memory = (
        f"peak RSS {r['peak_rss_mb']:6.0f} MB, tree RSS {r['tree_rss_mb']:6.0f} MB, tree PSS "
        f"{r['tree_pss_mb']:6.0f} MB ({r['processes']} processes)"
    )
    if "lines" in r:
        return "\n".join(
            [
                f"{label:8} wall {r['wall_s']:6.1f} s  user {r['user_s']:6.1f} s  {memory}  "
                f"load {r['load_before']:.2f}->{r['load_after']:.2f}",
                *(f"    {line}" for line in r["lines"]),
            ]
        )
    return (
        f"{label:8} wall {r['wall_s']:6.1f} s  user {r['user_s']:6.1f} s  sys {r['sys_s']:4.1f} s  "
        f"{memory}  (generate {r['generate_s']:.1f}, assemble "
        f"{r['assemble_s']:.1f}, write {r['write_s']:.1f})  rows {r['rows']:,}  "
        f"load {r['load_before']:.2f}->{r['load_after']:.2f}  logical hash {r['logical_hash'][:16]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", default="wordnet", help="spec name or YAML path (default: wordnet)")
    parser.add_argument("--before", help="a commit to build the same spec with first, back to back")
    parser.add_argument("--out", type=Path, help="folder for the builds (default: a temporary one)")
    parser.add_argument(
        "--workers",
        default="default",
        help="processes the 'after' build may use (default: the build's own, 1)",
    )
    parser.add_argument("--before-workers", default="default", help="the same for the 'before' build")
    parser.add_argument("--all", action="store_true", help="time `probesmith build all` instead")
    args = parser.parse_args()
    spec = str(Path(args.spec).resolve()) if Path(args.spec).is_file() else args.spec
    out = args.out or Path(tempfile.mkdtemp(prefix="wordnet-speed-"))
    out.mkdir(parents=True, exist_ok=True)
    print(
        f"machine: {platform.machine()}, {len(os.sched_getaffinity(0))} cores, "
        f"Python {platform.python_version()}; spec {args.spec}"
    )
    results = {}
    if args.before:
        with tempfile.TemporaryDirectory(prefix="wordnet-speed-before-") as folder:
            site = checkout(args.before, Path(folder))
            results["before"] = run_build(spec, out / "before", site, args.before_workers, args.all)
            if not results["before"]["code"].startswith(folder):
                raise SystemExit(f"the 'before' build ran {results['before']['code']}, not {args.before}")
        print(describe("before", results["before"]))
    results["after"] = run_build(spec, out / "after", None, args.workers, args.all)
    print(describe("after", results["after"]))
    if args.all:
        return
    if args.before:
        before, after = results["before"], results["after"]
        same = before["logical_hash"] == after["logical_hash"]
        print(
            f"speed-up: wall {before['wall_s'] / after['wall_s']:.2f}x, user CPU "
            f"{before['user_s'] / after['user_s']:.2f}x; logical hashes "
            + ("equal" if same else f"DIFFER ({before['logical_hash']} / {after['logical_hash']})")
        )
        if not same:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
