"""Where a Wikidata build gets its SPARQL: an endpoint URL, a store folder, or a dump file.

``open_wikidata(source)`` yields a :class:`~probesmith.builders.sources.wikidata.SparqlClient` and the
source's description for the manifest. A dump is loaded once into a store under probesmith's
data folder (keyed by the dump's sha256) and reused; a store is served by a local oxigraph
server for the duration of the build.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from probesmith.builders.sources.catalog import load_catalog
from probesmith.builders.sources.wikidata import (
    DEFAULT_USER_AGENT,
    PREFIXES,
    STORE_INFO,
    OxigraphServer,
    QueryCache,
    SparqlClient,
    load_store,
    store_info,
)
from probesmith.builders.sources.wikidata_queries import (
    aliases_query,
    containment_edges,
    facts_of,
    facts_query,
)
from probesmith.builders.sources.wikidata_queries import batched_select as batched
from probesmith.builders.sources.wikidata_snapshot import (
    describe_snapshot,
    end_time_qualifiers,
    snapshot_sidecar,
)
from probesmith.builders.sources.wordnet import data_home
from probesmith.errors import SourceError
from probesmith.paths import REPOSITORY_ROOT
from probesmith.probes.spec import spec_field
from probesmith.progress import progress
from probesmith.redact import redact_url
from probesmith.schemas.manifest import file_sha256
from probesmith.schemas.output import OutputFile, write_bytes_atomic

log = logging.getLogger(__name__)
#: seconds our deadline for a query to the local oxigraph server trails the server's own time limit
LOCAL_DEADLINE_GRACE_S = 10.0


@dataclass(frozen=True)
class WikidataSpec:
    """Where and how Wikidata is queried."""

    source: str = spec_field(
        "../shared/data/wikidata_slice/wikidata_slice.nt.gz",
        help="A SPARQL endpoint URL (e.g. https://query.wikidata.org/sparql), an oxigraph store "
        "folder, or an N-Triples dump (.nt, .nt.gz, .nt.bz2) loaded once into a store.",
    )
    user_agent: str = spec_field(
        DEFAULT_USER_AGENT,
        help="User-Agent sent to the endpoint; the query service asks for a contact in it.",
    )
    timeout: float = spec_field(
        60.0,
        help="Seconds one attempt at a query may take, connecting and reading the whole answer; a "
        "query with its retries and waits gets timeout x max_retries + 60 s in all.",
        minimum=1,
    )
    max_retries: int = spec_field(5, help="Attempts per query (429/503, timeouts, cut bodies).", minimum=1)
    cache: str = spec_field("", help="Query cache folder; empty = <data home>/sparql-cache.")
    cache_mode: Literal["record", "replay", "refresh", "off"] = spec_field(
        "record", help="record, replay (offline), refresh, or off."
    )
    page_size: int = spec_field(50_000, help="Rows per page of large queries (LIMIT/OFFSET).", minimum=1)
    min_popularity: int = spec_field(
        0,
        help="Only subjects with at least this popularity (sitelinks on the query service; the "
        "degree a `probesmith wikidata slice` recorded) enter answer counts and samples: the way to "
        "keep a relation of millions of facts under the endpoint's timeout. 0 = every subject.",
    )


def _cache(spec: WikidataSpec) -> QueryCache:
    folder = Path(spec.cache) if spec.cache else data_home() / "sparql-cache"
    return QueryCache(folder, spec.cache_mode)  # type: ignore[arg-type]


@contextlib.contextmanager
def open_wikidata(spec: WikidataSpec) -> Iterator[tuple[SparqlClient, dict]]:
    """A client for the spec's source, and the source's description for the manifest."""
    source = spec.source
    client_options = dict(
        user_agent=spec.user_agent, timeout=spec.timeout, max_retries=spec.max_retries, cache=_cache(spec)
    )
    if source.startswith(("http://", "https://")):
        # the URL with its credentials is for the request only; the manifest and card show it redacted
        shown = redact_url(source)
        client = SparqlClient(source, **client_options)
        with _counted(client):
            yield client, {"endpoint": shown, **describe_snapshot(endpoint=shown)}
        return
    path = Path(source).expanduser()
    if not path.is_absolute() and not path.exists() and (REPOSITORY_ROOT / path).exists():
        path = REPOSITORY_ROOT / path  # the bundled specs' ../shared/data paths, from any folder
    if path.is_dir() and (path / STORE_INFO).is_file():
        info = store_info(path)
        store = path
        described = {"store": str(path.resolve()), "dump_sha256": info.get("dump_sha256")}
        loaded_from = Path(info["dump"]) if info.get("dump") else None
        described.update(describe_snapshot(dump=loaded_from, dump_sha256=info.get("dump_sha256")))
    elif path.is_file():
        digest = file_sha256(path)
        store = data_home() / "stores" / digest[:16]
        _load_once(path, store)
        described = {"dump": str(path.resolve()), "dump_sha256": digest}
        described.update(describe_snapshot(dump=path, dump_sha256=digest))
    else:
        raise SourceError(
            f"Wikidata source {redact_url(source)!r} is neither an endpoint URL, a store folder nor a dump "
            "file. Pass --wikidata with one of those (the shared slice is "
            "../shared/data/wikidata_slice/wikidata_slice.nt.gz)."
        )
    with OxigraphServer(store, query_timeout=spec.timeout) as server:
        # the port changes every run, and a folder can be reloaded with other data: cache by the
        # content the store was loaded from (its dump's sha256), never by its port or path
        cache_endpoint = f"oxigraph:{described['dump_sha256']}"
        # the server cancels a query at `timeout`; our deadline comes later, so that its verdict (a
        # timeout naming the relation and the fix) arrives before we give up on the connection
        client_options["timeout"] = spec.timeout + LOCAL_DEADLINE_GRACE_S
        # a fact about the store, asked of it directly: neither cached nor in the build's query log
        probe = SparqlClient(server.endpoint, **{**client_options, "cache": None})
        described["end_time_qualifiers"] = end_time_qualifiers(probe)
        client = SparqlClient(server.endpoint, cache_endpoint=cache_endpoint, **client_options)
        with _counted(client):
            yield client, described


@contextlib.contextmanager
def _counted(client: SparqlClient) -> Iterator[SparqlClient]:
    """``client`` with a bar that counts its queries while a build uses it (a terminal only)."""
    with progress(desc="wikidata queries", unit="query") as bar:
        client.progress_bar = bar
        try:
            yield client
        finally:
            client.progress_bar = None


def _load_once(dump: Path, store: Path) -> None:
    """Load ``dump`` into the shared ``store`` unless it is there; a second build of the same dump waits.

    Two builds started from one new dump would both load it, and the second would be refused
    (the store is being written). A lock beside the store makes the second wait for the first's
    load and then reuse the store.
    """
    if (store / STORE_INFO).is_file():
        return
    store.parent.mkdir(parents=True, exist_ok=True)
    lock_path = store.parent / f"{store.name}.load-lock"
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
            log.warning(
                "another probesmith process (pid %s) is loading %s into %s; waiting for it to finish",
                holder,
                dump,
                store,
            )
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        if not (store / STORE_INFO).is_file():  # the other load may have failed: load it ourselves
            log.info("loading %s into a local store at %s (once)", dump, store)
            load_store(dump, store)
    finally:
        os.close(fd)  # releases the lock


def _nt_literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"@en'


SNAPSHOT_SUFFIXES = (".nt", ".nt.gz", ".nt.bz2")
_WDT = "http://www.wikidata.org/prop/direct/"
_WD = "http://www.wikidata.org/entity/"


def _typing_and_containment(client, spec, relations: list[str], objects: set[str]) -> set[str]:
    """The triples a relations build reads besides facts and labels.

    The P31 types its catalog constrains on, and every containment edge above the objects, so
    that type filters, golds and nesting replay exactly from the snapshot.
    """
    lines: set[str] = set()
    containment = tuple(getattr(spec, "containment", ()))
    catalog = load_catalog(spec.catalog) if hasattr(spec, "catalog") else {}
    classes = sorted(
        {q for p in relations if p in catalog for q in catalog[p].subject_types + catalog[p].object_types}
    )
    if classes:
        values = " ".join(f"wd:{q}" for q in classes)
        for row in client.select(
            PREFIXES + f"SELECT ?e ?t WHERE {{ VALUES ?t {{ {values} }} ?e wdt:P31 ?t }}"
        ):
            lines.add(f"<{row['e']}> <{_WDT}P31> <{row['t']}> .")
    if containment:
        ids = sorted(e.rsplit("/", 1)[-1] for e in objects if "/entity/Q" in e)
        for entity, parents in containment_edges(client, ids, containment).items():
            for prop, parent in parents:
                lines.add(f"<{_WD}{entity}> <{_WDT}{prop}> <{_WD}{parent}> .")
    return lines


def snapshot_wikidata(spec, out: str | Path, *, force: bool = False) -> dict:
    """Freeze what a Wikidata spec needs — its relations' facts, labels, aliases — as N-Triples.

    ``out`` ends in ``.nt``, ``.nt.gz`` or ``.nt.bz2`` and is compressed accordingly; it is checked
    before anything is queried, written atomically, and replaces only an earlier snapshot of
    ours. Its lines are sorted, so the same source gives the same file.
    """
    import bz2
    import gzip

    out = Path(out)
    if not out.name.endswith(SNAPSHOT_SUFFIXES):
        raise SourceError(
            f"{out}: a snapshot is N-Triples; name it .nt, .nt.gz or .nt.bz2 (compressed to match)."
        )
    relations = list(getattr(spec, "relations", ()) or load_catalog(spec.catalog))
    lines: set[str] = set()
    entities: set[str] = set()
    objects: set[str] = set()
    with OutputFile(out, "snapshot", command="wikidata snapshot", force=force) as tmp:
        with open_wikidata(spec.wikidata) as (client, source):
            for pid in relations:
                for row in client.select_paged(facts_query(pid), spec.wikidata.page_size):
                    s, o = row["s"], row["o"]
                    entities.update((s, o))
                    objects.add(o)
                    lines.add(f"<{s}> <http://www.wikidata.org/prop/direct/{pid}> <{o}> .")
                    lines.add(
                        f"<{s}> <http://www.w3.org/2000/01/rdf-schema#label> {_nt_literal(row['sLabel'])} ."
                    )
                    lines.add(
                        f"<{o}> <http://www.w3.org/2000/01/rdf-schema#label> {_nt_literal(row['oLabel'])} ."
                    )
            lines |= _typing_and_containment(client, spec, relations, objects)
            ids = sorted(e.rsplit("/", 1)[-1] for e in entities)
            alt_label = "<http://www.w3.org/2004/02/skos/core#altLabel>"
            for row in batched(client, aliases_query, ids):
                lines.add(f"<{row['e']}> {alt_label} {_nt_literal(row['alias'])} .")
            # every entity's classes: the builds judge labels by them (a person, a work, a river, a team named
            # in the plural), so that the snapshot replays those drops as the source does
            for entity, _, kind in facts_of(client, [i for i in ids if i.startswith("Q")], ["P31"]):
                lines.add(f"<{_WD}{entity}> <{_WDT}P31> <{_WD}{kind}> .")
        if not lines:
            raise SourceError(
                f"{source} returned no facts for {', '.join(relations)}; nothing was written. Check the "
                "source (an empty store?) and the spec's relations."
            )
        text = ("\n".join(sorted(lines)) + "\n").encode()
        if out.name.endswith(".gz"):
            with open(tmp, "wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as fh:
                fh.write(text)
        elif out.name.endswith(".bz2"):
            tmp.write_bytes(bz2.compress(text))
        else:
            tmp.write_bytes(text)
    read_from = source.get("endpoint") or source.get("dump") or source.get("store")
    sidecar = {
        "name": f"probesmith snapshot of {read_from}",
        "date": source.get("snapshot_date", "unknown"),
        "dump_id": source.get("dump_id", "unknown"),
        "note": f"{len(relations)} relations' facts, labels and aliases frozen by `probesmith wikidata "
        f"snapshot` from {source.get('snapshot', read_from)}",
    }
    _write_sidecar(snapshot_sidecar(out), sidecar)
    log.info("snapshot of %d relations: %d triples from %s into %s", len(relations), len(lines), source, out)
    return {"relations": relations, "triples": len(lines), "source": source, "out": str(out)}


SIDECAR_WRITER = "probesmith wikidata snapshot"


def _write_sidecar(path: Path, sidecar: dict) -> None:
    """Write the snapshot's dated sidecar, atomically; one a person wrote is left alone (logged)."""
    if path.exists():
        try:
            earlier = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            earlier = None
        if not isinstance(earlier, dict) or earlier.get("written_by") != SIDECAR_WRITER:
            log.warning("%s was not written by probesmith; left as it is (it dates the snapshot)", path)
            return
    text = json.dumps({**sidecar, "written_by": SIDECAR_WRITER}, indent=1, sort_keys=True) + "\n"
    write_bytes_atomic(path, text.encode("utf-8"))
