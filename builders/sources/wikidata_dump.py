"""Cut what a spec needs out of a Wikidata truthy N-Triples dump, in one streaming pass.

``probesmith wikidata slice DUMP --spec SPEC --out slice.nt.gz`` reads the dump once (``.nt``,
``.nt.gz``, ``.nt.bz2``, ``.nt.zst``) and keeps:

* the ``wdt:`` item-to-item facts of the spec's relations (the catalog's, when the spec names
  none), of its containment relations, and of ``P31`` for every entity kept (type constraints);
* the English labels (``rdfs:label``) and aliases (``skos:altLabel``) of every entity kept, and the
  labels of their classes (builders read a class by its label);
* a popularity per entity kept: its sitelinks where the dump has them (``wikibase:sitelinks``),
  else its degree — the ``wdt:`` triples it takes part in — counted over the **whole** dump and
  written as ``<entity> <https://w3id.org/probesmith#degree> N``, which the builders read before
  counting a degree in the (much smaller) slice.

Memory stays bounded: lines are parsed in batches by polars (regular expressions in Rust), the
kept facts, the entity-attached triples and each batch's degree counts are spilled to Parquet
in a temporary folder, and joined once at the end. Decompression runs in a separate process
(``pigz``/``gzip``, ``lbzip2``/``pbzip2``/``bzip2``, ``zstd``) where one is installed, so it
overlaps the parsing. Malformed lines are counted and skipped with a sample in the log; a
truncated or corrupt archive is an error that names where it ended, and nothing is written.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import logging
import os
import queue
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
from tqdm.auto import tqdm

from probesmith.builders.sources.catalog import DEFAULT_CATALOG, load_catalog
from probesmith.builders.sources.dumps import DumpStream, checked_dump
from probesmith.builders.sources.wikidata_queries import RECORDED_DEGREE, SITELINKS
from probesmith.errors import SourceError
from probesmith.schemas.output import OutputFile, remove_folders_of_dead_processes

log = logging.getLogger(__name__)

SLICE_SUFFIXES = (".nt", ".nt.gz")
_WD = "http://www.wikidata.org/entity/"
_WDT = "http://www.wikidata.org/prop/direct/"
_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
_ALIAS = "http://www.w3.org/2004/02/skos/core#altLabel"
_ENTITY_DATA = "https://www.wikidata.org/wiki/Special:EntityData/"
_INTEGER = "<http://www.w3.org/2001/XMLSchema#integer>"
BATCH_BYTES = 32 << 20
_MEMBER_BYTES = 16 << 20
SPILL_COMPRESSION = "lz4"  # spill files are read once, soon: speed over size


@dataclass
class SliceReport:
    """What a slice kept and how long it took (printed by the CLI, logged, benchmarked)."""

    dump: str
    out: str
    relations: list[str]
    dump_bytes: int = 0
    text_bytes: int = 0
    triples: int = 0
    malformed: int = 0
    malformed_sample: list[str] = field(default_factory=list)
    facts: int = 0
    entities: int = 0
    labels: int = 0
    aliases: int = 0
    popularity: str = "degree"
    written: int = 0
    decompressor: str = ""
    seconds: float = 0.0
    pass_seconds: float = 0.0  # the streaming pass over the dump, before the final join and write

    @property
    def text_mb_per_s(self) -> float:
        """Decompressed text read per second, the whole command."""
        return self.text_bytes / 1e6 / max(self.seconds, 1e-9)

    @property
    def pass_mb_per_s(self) -> float:
        """Decompressed text read per second during the pass (what grows with the dump)."""
        return self.text_bytes / 1e6 / max(self.pass_seconds, 1e-9)


def slice_relations(spec) -> tuple[list[str], list[str]]:
    """(the relations a spec builds from, its containment relations); the catalog's if it names none."""
    relations = list(getattr(spec, "relations", ()) or ())
    if not relations:
        relations = list(load_catalog(getattr(spec, "catalog", DEFAULT_CATALOG)))
    return relations, list(getattr(spec, "containment", ()))


def _read_ahead(stream: DumpStream, size: int, depth: int = 2):
    """The stream's chunks of ``size`` bytes, read by a thread up to ``depth`` chunks ahead.

    A pipe holds 64 KB: read only between batches, the decompressor would wait while each
    batch is parsed. Read ahead, it keeps decompressing (its own process, or zlib/bz2 without
    the GIL) while polars parses. An error of the reader (a truncated archive) is raised here.
    """
    chunks: queue.Queue = queue.Queue(maxsize=depth)

    def reader() -> None:
        try:
            while chunk := stream.read(size):
                chunks.put(chunk)
            chunks.put(b"")
        except BaseException as exc:  # handed to the consumer, raised there
            chunks.put(exc)

    thread = threading.Thread(target=reader, name="dump-reader", daemon=True)
    thread.start()
    finished = False
    try:
        while True:
            chunk = chunks.get()
            if isinstance(chunk, BaseException):
                raise chunk
            if not chunk:
                finished = True
                return
            yield chunk
    finally:
        if not finished:  # stopped early: end the decompressor so that the reader ends too
            stream.abort()
            while thread.is_alive():
                with contextlib.suppress(queue.Empty):
                    chunks.get(timeout=0.1)
        thread.join()


def _batches(stream: DumpStream, bar: tqdm):
    """Whole lines of text, about ``BATCH_BYTES`` at a time."""
    rest = b""
    for chunk in _read_ahead(stream, BATCH_BYTES):
        chunk = rest + chunk
        cut = chunk.rfind(b"\n") + 1
        rest = chunk[cut:]
        bar.update(stream.compressed_read - bar.n)
        if cut:
            yield chunk[:cut]
    if rest.strip():
        yield rest + b"\n"


# control bytes Wikidata escapes (\\u0001): one absent from a batch splits it into whole lines
_SEPARATORS = [bytes([b]) for b in (*range(1, 9), 11, 12, *range(14, 32))]


class UnsplittableBatch(ValueError):
    """A batch of lines holds every candidate separator byte: it cannot be split into lines."""


def _separator(chunk: bytes) -> str:
    for byte in _SEPARATORS:
        if chunk.find(byte) < 0:
            return byte.decode()
    raise UnsplittableBatch("every control byte occurs in these lines")


def _parse(chunk: bytes) -> pl.DataFrame:
    """One batch of lines as columns s, p, o (raw N-Triples terms) and ``line``; malformed: s null.

    The lines are split and checked in polars (Rust), never as Python strings: a triple is
    ``S P O .`` with single spaces (as Wikidata writes them), S an IRI or blank node, P an IRI.
    Splitting at the first two spaces parses twice as fast as one regular expression per line.
    """
    frame = pl.read_csv(
        io.BytesIO(chunk),
        has_header=False,
        separator=_separator(chunk),  # a byte absent from the batch: each line is one field
        quote_char=None,
        new_columns=["line"],
        schema={"line": pl.String},
        encoding="utf8-lossy",
    )
    line = pl.col("line")
    frame = frame.filter(line.is_not_null() & ~line.str.starts_with("#") & (line.str.strip_chars() != ""))
    parts = frame.select(line.str.strip_chars_end().str.splitn(" ", 3).alias("t")).unnest("t")
    s, p, rest = (parts.get_column(c) for c in parts.columns)
    o = rest.str.strip_suffix(" .")
    well_formed = (
        (s.str.starts_with("<") & s.str.ends_with(">") | s.str.starts_with("_:"))
        & ~s.str.slice(1, s.str.len_bytes() - 2).str.contains("[<>]")
        & p.str.starts_with("<")
        & p.str.ends_with(">")
        & rest.str.ends_with(" .")
        & (o.str.len_bytes() > 0)
    ).fill_null(False)
    return frame.with_columns(
        s=pl.when(well_formed).then(s.str.strip_prefix("<").str.strip_suffix(">")),
        p=pl.when(well_formed).then(p.str.slice(1, p.str.len_bytes() - 2)),
        o=pl.when(well_formed).then(o.str.strip_chars_end()),
    )


def slice_dump(
    dump: str | Path, spec, out: str | Path, *, force: bool = False, progress: bool = True
) -> SliceReport:
    """Stream a Wikidata truthy dump once and write what ``spec`` needs as N-Triples (see the module).

    ``out`` (``.nt`` or ``.nt.gz``) is checked before the dump is read, written atomically, and
    replaces only an earlier output of ours; it loads with ``probesmith wikidata load`` and
    builds as the dump would for the spec's relations.
    """
    dump, out = checked_dump(dump), Path(out)
    if not out.name.endswith(SLICE_SUFFIXES):
        raise SourceError(f"{out}: name the slice .nt or .nt.gz (compressed to match).")
    relations, containment = slice_relations(spec)
    wanted = sorted({*relations, *containment})
    report = SliceReport(str(dump), str(out), wanted)
    started = time.perf_counter()
    with (
        OutputFile(out, "wikidata slice", command="wikidata slice", force=force) as tmp,
        _spill_folder(out.parent) as spill_dir,
    ):
        spill = Path(spill_dir)
        stream = DumpStream(dump)
        report.dump_bytes, report.decompressor = stream.size, stream.decompressor
        log.info("slicing %s (%s) for %d relations", dump, stream.decompressor, len(report.relations))
        with tqdm(
            total=stream.size,
            unit="B",
            unit_scale=True,
            desc=f"slicing {dump.name}",
            disable=None if progress else True,
        ) as bar:
            for i, chunk in enumerate(_batches(stream, bar)):
                report.text_bytes += len(chunk)
                try:
                    parsed = _parse(chunk)
                except (UnsplittableBatch, pl.exceptions.ComputeError) as exc:
                    at = report.text_bytes - len(chunk)
                    raise SourceError(
                        f"dump {dump} is not N-Triples in the lines after byte {at:,} of its text "
                        f"({exc}); nothing was written. Pass a Wikidata truthy dump."
                    ) from None
                _spill_batch(parsed, i, spill, wanted, report)
                bar.set_postfix(triples=f"{report.triples:,}", kept=f"{report.facts:,}", refresh=False)
            stream.close()
        report.pass_seconds = round(time.perf_counter() - started, 2)
        if report.malformed:
            log.warning(
                "%s: %d malformed lines skipped; for example: %s",
                dump,
                report.malformed,
                " | ".join(report.malformed_sample),
            )
        _write_slice(spill, tmp, out, report)
        if not report.facts:
            raise SourceError(
                f"dump {dump} has no wdt: item facts of {', '.join(report.relations[:8])}...; nothing was "
                "written. Is it a Wikidata truthy dump (latest-truthy.nt.*)?"
            )
    report.seconds = round(time.perf_counter() - started, 2)
    log.info(
        "sliced %s: %s triples read (%.1f MB/s of text; the pass %.1f MB/s), kept %s facts of %s "
        "entities, %s triples written to %s",
        dump,
        f"{report.triples:,}",
        report.text_mb_per_s,
        report.pass_mb_per_s,
        f"{report.facts:,}",
        f"{report.entities:,}",
        f"{report.written:,}",
        out,
    )
    return report


SPILL_PREFIX = ".probesmith-slice-"


def remove_stale_spills(parent: Path) -> list[Path]:
    """Remove the spill folders in ``parent`` left by a slice whose process is gone (kill -9).

    A spill folder is named ``.probesmith-slice-<pid>-<random>``; one whose pid no longer runs
    is removed. Folders of live processes, and names of another shape, are left alone.
    """
    removed = remove_folders_of_dead_processes(parent, SPILL_PREFIX)
    for folder in removed:
        log.info("removed %s, the spill folder of an interrupted slice", folder)
    return removed


def _spill_folder(parent: Path) -> tempfile.TemporaryDirectory:
    """A fresh spill folder beside the output, named with our pid; stale ones are removed first."""
    remove_stale_spills(parent)
    return tempfile.TemporaryDirectory(prefix=f"{SPILL_PREFIX}{os.getpid()}-", dir=parent)


def _spill_batch(
    batch: pl.DataFrame, index: int, spill: Path, wanted: list[str], report: SliceReport
) -> None:
    malformed = batch["s"].null_count()
    if malformed:
        report.malformed += malformed
        room = 5 - len(report.malformed_sample)
        bad = batch.filter(pl.col("s").is_null())["line"].head(max(room, 0))
        report.malformed_sample += [line[:120] for line in bad.to_list()]
    report.triples += batch.height - malformed
    # one lazy plan for the three spills: each reads only the columns it needs (no copies of the
    # whole batch per filter), and they run side by side; malformed rows (null s) match no filter
    triples = batch.lazy()
    direct = triples.filter(pl.col("p").str.starts_with(_WDT))
    entity_object = pl.col("o").str.starts_with(f"<{_WD}")
    # degree as the builders' degree query counts it: each wdt: triple, at its subject and at an
    # entity object; summed over every batch and kept only for the entities the slice keeps
    degree = (
        pl.concat(
            [
                direct.select(e=pl.col("s")),
                direct.filter(entity_object).select(
                    e=pl.col("o").str.slice(1, pl.col("o").str.len_chars() - 2)
                ),
            ]
        )
        .group_by("e")
        .len()
    )
    items = direct.filter(pl.col("s").str.starts_with(f"{_WD}Q") & pl.col("o").str.starts_with(f"<{_WD}Q"))
    pid = pl.col("p").str.slice(len(_WDT))
    facts = items.filter(pid.is_in(wanted)).select(
        "s", "line", o=pl.col("o").str.slice(1).str.strip_chars_end(">")
    )
    attached = pl.concat(
        [
            # the classes of every entity kept (type constraints), unless P31 is kept whole
            items.filter((pid == "P31") & pl.lit("P31" not in wanted)).select(
                e=pl.col("s"), kind=pl.lit("type"), line=pl.col("line")
            ),
            triples.filter((pl.col("p") == _LABEL) & pl.col("o").str.ends_with('"@en')).select(
                e=pl.col("s"), kind=pl.lit("label"), line=pl.col("line")
            ),
            triples.filter((pl.col("p") == _ALIAS) & pl.col("o").str.ends_with('"@en')).select(
                e=pl.col("s"), kind=pl.lit("alias"), line=pl.col("line")
            ),
            triples.filter(pl.col("p") == SITELINKS).select(
                e=pl.col("s").str.replace(_ENTITY_DATA, _WD, literal=True),
                kind=pl.lit("sitelinks"),
                line=pl.col("o").str.extract(r'^"?(\d+)', 1),
            ),
        ]
    )
    for name, frame in zip(
        ("degree", "facts", "attached"), pl.collect_all([degree, facts, attached]), strict=True
    ):
        frame.write_parquet(spill / f"{name}-{index:06d}.parquet", compression=SPILL_COMPRESSION)
        if name == "facts":
            report.facts += frame.height


def _write_slice(spill: Path, tmp: Path, out: Path, report: SliceReport) -> None:
    facts = pl.scan_parquet(spill / "facts-*.parquet")
    kept = pl.concat([facts.select(e=pl.col("s")), facts.select(e=pl.col("o"))]).unique().collect()
    report.entities = kept.height
    every_attached = pl.scan_parquet(spill / "attached-*.parquet")
    attached = every_attached.join(kept.lazy(), on="e", how="semi").collect()
    # the English labels of the kept entities' classes too: builders read a class by its label ("boys school")
    classes = (
        attached.filter(pl.col("kind") == "type")
        .select(e=pl.col("line").str.extract(rf"<{_WDT}P31> <([^>]+)>", 1))
        .drop_nulls()
        .unique()
    )
    class_labels = (
        every_attached.filter(pl.col("kind") == "label")
        .join(classes.lazy(), on="e", how="semi")
        .join(kept.lazy(), on="e", how="anti")
        .collect()
    )
    attached = pl.concat([attached, class_labels])
    counts = attached.group_by("kind").len()
    count_of = dict(zip(counts["kind"].to_list(), counts["len"].to_list(), strict=True))
    report.labels, report.aliases = count_of.get("label", 0), count_of.get("alias", 0)
    sitelinks = attached.filter(pl.col("kind") == "sitelinks")
    if sitelinks.height:
        report.popularity = "sitelinks"
        popularity = (
            sitelinks.group_by("e", maintain_order=True)
            .first()
            .select(line=pl.format("<{}> <" + SITELINKS + '> "{}"^^' + _INTEGER + " .", "e", "line"))
        )
    else:
        degree = (
            pl.scan_parquet(spill / "degree-*.parquet")
            .join(kept.lazy(), on="e", how="semi")
            .group_by("e")
            .agg(pl.col("len").sum())
            .sort("e")
            .collect()
        )
        popularity = degree.select(
            line=pl.format("<{}> <" + RECORDED_DEGREE + '> "{}"^^' + _INTEGER + " .", "e", "len")
        )
    lines = [
        facts.select("line").collect(),
        attached.filter(pl.col("kind") != "sitelinks").select("line").unique().sort("line"),  # same bytes
        popularity,
    ]
    compress = out.name.endswith(".gz")
    with open(tmp, "wb") as raw, ThreadPoolExecutor(max(os.cpu_count() or 1, 1)) as pool:
        for frame in lines:
            if not frame.height:
                continue
            text = io.BytesIO()  # one field per line, written by polars: no quoting, no header
            frame.select("line").write_csv(text, include_header=False, quote_style="never", separator="\x01")
            report.written += frame.height
            if not compress:
                raw.write(text.getbuffer())
                continue
            # gzip members of 16 MB compressed side by side (zlib runs without the GIL) at level 1:
            # a slice is written once and read once; one level-9 stream took 40% of the whole pass
            data = text.getbuffer()
            pieces = [data[i : i + _MEMBER_BYTES] for i in range(0, len(data), _MEMBER_BYTES)]
            for member in pool.map(_gzip_member, pieces):
                raw.write(member)
            del pieces, data


def _gzip_member(piece) -> bytes:
    return gzip.compress(piece, compresslevel=1, mtime=0)
