"""Where a Wikidata build gets its SPARQL: an endpoint URL, a store folder, or a dump file.

``open_wikidata(source)`` yields a :class:`~probesmith.builders.wikidata.SparqlClient` and the
source's description for the manifest. A dump is loaded once into a store under probesmith's
data folder (keyed by the dump's sha256) and reused; a store is served by a local oxigraph
server for the duration of the build.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from probesmith.builders.wikidata import (
    STORE_INFO,
    OxigraphServer,
    QueryCache,
    SparqlClient,
    load_store,
)
from probesmith.builders.wordnet import data_home
from probesmith.errors import SourceError
from probesmith.probes.spec import spec_field
from probesmith.schemas.manifest import file_sha256

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WikidataSpec:
    """Where and how Wikidata is queried."""

    source: str = spec_field(
        "../shared/data/wikidata_slice/wikidata_slice.nt.gz",
        help="A SPARQL endpoint URL (e.g. https://query.wikidata.org/sparql), an oxigraph store "
        "folder, or an N-Triples dump (.nt, .nt.gz, .nt.bz2) loaded once into a store.",
    )
    user_agent: str = spec_field(
        "probesmith/0.1 (knowledge-probing datasets; contact: set wikidata.user_agent)",
        help="User-Agent sent to the endpoint; the query service asks for a contact in it.",
    )
    timeout: float = spec_field(60.0, help="Seconds a query may take.")
    max_retries: int = spec_field(5, help="Attempts per query (429/503, timeouts, cut bodies).")
    cache: str = spec_field("", help="Query cache folder; empty = <data home>/sparql-cache.")
    cache_mode: str = spec_field("record", help="record, replay (offline), refresh, or off.")
    page_size: int = spec_field(50_000, help="Rows per page of large queries (LIMIT/OFFSET).")


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
        yield SparqlClient(source, **client_options), {"endpoint": source}
        return
    path = Path(source)
    if path.is_dir() and (path / STORE_INFO).is_file():
        store, described = path, {"store": str(path.resolve())}
    elif path.is_file():
        digest = file_sha256(path)
        store = data_home() / "stores" / digest[:16]
        if not (store / STORE_INFO).is_file():
            log.info("loading %s into a local store at %s (once)", path, store)
            load_store(path, store)
        described = {"dump": str(path.resolve()), "dump_sha256": digest}
    else:
        raise SourceError(
            f"Wikidata source {source!r} is neither an endpoint URL, a store folder nor a dump "
            "file. Pass --wikidata with one of those (the shared slice is "
            "../shared/data/wikidata_slice/wikidata_slice.nt.gz)."
        )
    with OxigraphServer(store) as server:
        # the local port changes every run; cache by the store, not the port
        cache_endpoint = f"oxigraph:{described.get('dump_sha256') or described['store']}"
        yield SparqlClient(server.endpoint, cache_endpoint=cache_endpoint, **client_options), described


def _nt_literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"@en'


def snapshot_wikidata(spec, out: str | Path) -> dict:
    """Freeze what a Wikidata spec needs — its relations' facts, labels, aliases — as N-Triples.

    ``out`` (``.nt`` or ``.nt.gz``) is written atomically, its lines sorted, so the same source
    gives the same file; a build from it is reproducible without the endpoint.
    """
    import gzip
    import os
    import uuid

    from probesmith.builders.relations import aliases_query, facts_query, load_catalog
    from probesmith.builders.relations import batched_select as batched

    relations = list(getattr(spec, "relations", ()) or load_catalog(spec.catalog))
    out = Path(out)
    lines: set[str] = set()
    entities: set[str] = set()
    with open_wikidata(spec.wikidata) as (client, source):
        for pid in relations:
            for row in client.select_paged(facts_query(pid), spec.wikidata.page_size):
                s, o = row["s"], row["o"]
                entities.update((s, o))
                lines.add(f"<{s}> <http://www.wikidata.org/prop/direct/{pid}> <{o}> .")
                lines.add(
                    f"<{s}> <http://www.w3.org/2000/01/rdf-schema#label> {_nt_literal(row['sLabel'])} ."
                )
                lines.add(
                    f"<{o}> <http://www.w3.org/2000/01/rdf-schema#label> {_nt_literal(row['oLabel'])} ."
                )
        ids = sorted(e.rsplit("/", 1)[-1] for e in entities)
        for row in batched(client, aliases_query, ids):
            lines.add(
                f"<{row['e']}> <http://www.w3.org/2004/02/skos/core#altLabel> {_nt_literal(row['alias'])} ."
            )
    staging = out.parent / f".{out.name}.tmp-{uuid.uuid4().hex[:8]}"
    out.parent.mkdir(parents=True, exist_ok=True)
    text = ("\n".join(sorted(lines)) + "\n").encode()
    try:
        if out.name.endswith(".gz"):
            with (
                open(staging, "wb") as raw,
                gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as fh,
            ):
                fh.write(text)
        else:
            staging.write_bytes(text)
        os.replace(staging, out)
    finally:
        staging.unlink(missing_ok=True)
    log.info("snapshot of %d relations: %d triples from %s into %s", len(relations), len(lines), source, out)
    return {"relations": relations, "triples": len(lines), "source": source, "out": str(out)}
