"""Wikidata at scale: the Wikidata builds on stores 1x and Nx the shared slice, and the dump filter.

    python benchmarks/wikidata_scale.py [--factor 10] [--timeout 10] [--work DIR]

1. ``grow_dump`` writes a Wikidata-shaped truthy dump ``factor`` times the shared slice, grown
   the way Wikidata grows: many more subjects (people, works, places) over mostly the same
   answer objects. An entity that is the object of at least ``HUB_IN_DEGREE`` facts (a country,
   an occupation, a language, a class) stays one entity; every other entity gets ``factor - 1``
   copies with their own IDs (``Q<id + copy * 10^9>``) and labels and aliases (``"<label> <copy>"``),
   and every fact is copied with its ends mapped. Each copy keeps the slice's degree
   distribution; hubs gain in-degree ``factor`` times over.
2. For the 1x slice and the Nx dump: ``probesmith wikidata load``, then the default relations,
   paraphrases and rules builds against the store, served by ``oxigraph serve-read-only
   --timeout-s TIMEOUT`` (the spec's ``wikidata.timeout``), SPARQL cache off, each build in its own
   process. Reports queries, rows fetched, the largest query (rows, seconds), wall time and the
   builder's peak RSS.
3. ``probesmith wikidata slice`` of the Nx dump (.nt.gz and .nt.bz2) with the default relations
   spec, against ``gzip -dc`` / ``bzip2 -dc`` of the same files in the same run, in MB/s of
   decompressed text.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

SLICE = Path(__file__).resolve().parents[2] / "shared/data/wikidata_slice/wikidata_slice.nt.gz"
HUB_IN_DEGREE = 20
COPY_OFFSET = 10**9
_WD = "http://www.wikidata.org/entity/Q"
_TRIPLE = r"^<(?<s>[^>]+)> <(?<p>[^>]+)> (?<o>.+) \.$"
FAMILIES = ("relations", "paraphrases", "rules")


def _read_triples(dump: Path) -> pl.DataFrame:
    with (
        gzip.open(dump, "rt", encoding="utf-8")
        if dump.suffix == ".gz"
        else open(dump, encoding="utf-8") as fh
    ):
        lines = pl.Series("line", fh.read().splitlines(), dtype=pl.String)
    return lines.to_frame().with_columns(pl.col("line").str.extract_groups(_TRIPLE).alias("t")).unnest("t")


def grow_dump(source: Path, out: Path, factor: int, hub_in_degree: int = HUB_IN_DEGREE) -> dict:
    """Write ``out`` (.nt.gz): the ``source`` N-Triples grown ``factor`` times (see the module)."""
    triples = _read_triples(source).filter(pl.col("s").is_not_null())
    entity_object = pl.col("o").str.starts_with(f"<{_WD}")
    in_degree = (
        triples.filter(entity_object & pl.col("p").str.starts_with("http://www.wikidata.org/prop/direct/"))
        .group_by("o")
        .len()
    )
    hubs = set(
        in_degree.filter(pl.col("len") >= hub_in_degree)["o"].str.strip_chars("<>").to_list()
    )  # plain IRIs
    subject_is_item = pl.col("s").str.starts_with(_WD)
    object_is_item = entity_object
    replicated_s = subject_is_item & ~pl.col("s").is_in(list(hubs))
    replicated_o = object_is_item & ~pl.col("o").str.strip_chars("<>").is_in(list(hubs))
    triples = triples.with_columns(rep_s=replicated_s, rep_o=replicated_o)
    # copies of a triple exist when one of its ends is replicated (a label of a copied entity too)
    copied = triples.filter(pl.col("rep_s") | pl.col("rep_o"))
    literal = pl.col("o").str.starts_with('"')

    def shifted(column: str, copy: int) -> pl.Expr:
        iri = pl.col(column).str.strip_chars("<>")
        number = iri.str.slice(len(_WD)).cast(pl.Int64) + copy * COPY_OFFSET
        return pl.format("<{}{}>", pl.lit(_WD), number)

    written = 0
    with (
        open(out, "wb") as raw,
        gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0, compresslevel=1) as fh,
    ):
        fh.write(("\n".join(triples["line"].to_list()) + "\n").encode())
        written += triples.height
        for copy in range(1, factor):
            lines = copied.select(
                s=pl.when(pl.col("rep_s")).then(shifted("s", copy)).otherwise(pl.format("<{}>", "s")),
                p=pl.format("<{}>", "p"),
                o=pl.when(pl.col("rep_o"))
                .then(shifted("o", copy))
                .when(literal & pl.col("rep_s"))
                .then(pl.col("o").str.replace(r'"(@[a-z-]+)?$', f' {copy}"$1'))
                .otherwise(pl.col("o")),
            ).select(line=pl.format("{} {} {} .", "s", "p", "o"))
            fh.write(("\n".join(lines["line"].to_list()) + "\n").encode())
            written += lines.height
    return {"triples": written, "hubs": len(hubs), "copied_per_copy": copied.height, "factor": factor}


def _child(command: list[str]) -> tuple[int, float, int, str]:
    """Run a command; (exit code, seconds, its own peak RSS in MB, output tail).

    The peak is the process's own high-water mark (``VmHWM``), polled while it runs: ``wait4``'s
    ``ru_maxrss`` would also count the oxigraph server a build starts and reaps.
    """
    started = time.perf_counter()
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        peak_kb = 0
        while process.poll() is None:
            try:
                status = Path(f"/proc/{process.pid}/status").read_text()
                peak_kb = max(peak_kb, int(status.split("VmHWM:")[1].split()[0]))
            except (OSError, IndexError, ValueError):
                pass
            time.sleep(0.2)
        seconds = time.perf_counter() - started
        output.seek(0)
        tail = output.read().decode(errors="replace")[-1500:]
    return process.returncode, seconds, peak_kb // 1024, tail


def build_at(family: str, store: Path, out: Path, timeout: int) -> dict:
    """A default build against a store, in a child process measured with ``wait4``."""
    spec = out / f"{family}.yaml"
    spec.write_text(
        f"include: {family}\nname: {family}-scale\nwikidata:\n  source: {store}\n  cache_mode: 'off'\n"
        f"  timeout: {timeout}\n  max_retries: 1\n"
    )
    folder = out / f"{family}-build"
    command = [
        sys.executable,
        "-m",
        "probesmith",
        "-q",
        "build",
        family,
        "--spec",
        str(spec),
        "--out",
        str(folder),
    ]
    code, seconds, rss, output = _child([*command, "--force"])
    if code != 0:
        return {"family": family, "ok": False, "error": output[-800:]}
    manifest = json.loads((folder / "manifest.json").read_text())
    queries = manifest["queries"]
    largest = max(queries, key=lambda q: (q["rows"], q["seconds"]))
    slowest = max(queries, key=lambda q: q["seconds"])
    return {
        "family": family,
        "ok": True,
        "queries": len(queries),
        "rows": sum(q["rows"] for q in queries),
        "largest_rows": largest["rows"],
        "largest_seconds": largest["seconds"],
        "slowest_seconds": slowest["seconds"],
        "seconds": round(seconds, 1),
        "peak_rss_mb": rss,
        "items": sum(t["rows"] for t in manifest["tables"].values()),
        "logical_hash": manifest["logical_hash"][:12],
    }


def decompress_rate(command: list[str], path: Path) -> tuple[float, int]:
    """(MB/s of decompressed text, text bytes) of a decompressor writing to /dev/null."""
    started = time.perf_counter()
    with open(path, "rb") as src:
        process = subprocess.Popen(command, stdin=src, stdout=subprocess.PIPE)
        total = 0
        while chunk := process.stdout.read(1 << 22):
            total += len(chunk)
        process.wait()
    return total / 1e6 / (time.perf_counter() - started), total


def slice_rate(dump: Path, out: Path) -> dict:
    """``probesmith wikidata slice`` of a dump with the default relations spec, in a child process."""
    from probesmith.builders.registry import resolve_spec
    from probesmith.builders.sources.wikidata_dump import slice_dump

    report = slice_dump(dump, resolve_spec("relations"), out, force=True, progress=False)
    return {
        "dump": dump.name,
        "decompressor": report.decompressor,
        "text_mb": round(report.text_bytes / 1e6),
        "seconds": report.seconds,
        "mb_per_s": round(report.text_mb_per_s, 1),
        "pass_mb_per_s": round(report.pass_mb_per_s, 1),
        "facts_kept": report.facts,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--factor", type=int, default=10)
    parser.add_argument("--timeout", type=int, default=10, help="oxigraph --timeout-s per query")
    parser.add_argument("--work", type=Path, help="work folder (default: a temporary one)")
    parser.add_argument("--skip-builds", action="store_true")
    parser.add_argument("--skip-slice", action="store_true")
    parser.add_argument("--family", action="append", choices=FAMILIES, help="default: all three")
    parser.add_argument("--grow-into", type=Path, help=argparse.SUPPRESS)  # the child that grows the dump
    args = parser.parse_args()
    if args.grow_into:
        print(json.dumps(grow_dump(SLICE, args.grow_into, args.factor)))
        return
    work = args.work or Path(tempfile.mkdtemp(prefix="probesmith-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; work: {work}")
    dumps = {1: SLICE}
    grown = work / f"wikidata_x{args.factor}.nt.gz"
    if not grown.is_file():
        # in a child: a child's peak RSS counts from its parent's at fork, so the parent stays small
        code, seconds, rss, output = _child(
            [sys.executable, __file__, "--factor", str(args.factor), "--grow-into", str(grown)]
        )
        print(f"grew x{args.factor}: {output.strip()} in {seconds:.0f} s (peak RSS {rss} MB)")
    dumps[args.factor] = grown
    rows = []
    for factor, dump in dumps.items():
        store = work / f"store-x{factor}"
        if not store.is_dir():
            code, seconds, rss, tail = _child(
                [
                    sys.executable,
                    "-m",
                    "probesmith",
                    "-q",
                    "wikidata",
                    "load",
                    str(dump),
                    "--store",
                    str(store),
                ]
            )
            print(f"load x{factor}: {seconds:.0f} s, peak RSS {rss} MB")
        if args.skip_builds:
            continue
        for family in args.family or FAMILIES:
            out = work / f"x{factor}"
            out.mkdir(exist_ok=True)
            row = {"factor": factor, **build_at(family, store, out, args.timeout)}
            print(json.dumps(row))
            rows.append(row)
    if rows:
        print(
            "\n| family | size | queries | rows fetched | largest query (rows, s) | slowest query (s) | build (s) | peak RSS (MB) |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            if r["ok"]:
                print(
                    f"| {r['family']} | {r['factor']}x | {r['queries']:,} | {r['rows']:,} | {r['largest_rows']:,}, "
                    f"{r['largest_seconds']} | {r['slowest_seconds']} | {r['seconds']} | {r['peak_rss_mb']} |"
                )
            else:
                print(f"| {r['family']} | {r['factor']}x | failed: {r['error'][-200:]!r} |")
    if args.skip_slice:
        return
    # the dump filter against plain decompression of the same files
    bz2_dump = work / grown.name.replace(".gz", ".bz2")
    if not bz2_dump.is_file():
        subprocess.run(f"gzip -dc {grown} | bzip2 -1 > {bz2_dump}", shell=True, check=True)
    print(
        "\n| file | decompressor alone (MB/s) | `wikidata slice` (MB/s) | ratio | its pass (MB/s) | ratio "
        "| slice decompressor |"
    )
    print("|---|---|---|---|---|---|---|")
    for dump, command in ((grown, ["gzip", "-dc"]), (bz2_dump, ["bzip2", "-dc"])):
        rate, _ = decompress_rate(command, dump)
        cut = slice_rate(dump, work / f"slice-of-{dump.name.split('.')[0]}.nt.gz")
        print(
            f"| {dump.name} ({cut['text_mb']} MB text) | {rate:.1f} (`{' '.join(command)}`) | {cut['mb_per_s']} | "
            f"{cut['mb_per_s'] / rate:.2f} | {cut['pass_mb_per_s']} | {cut['pass_mb_per_s'] / rate:.2f} | "
            f"{cut['decompressor']} |"
        )
    shutil.rmtree(work / "x1", ignore_errors=True)


if __name__ == "__main__":
    main()
