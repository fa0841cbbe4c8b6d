"""The SPARQL client against real and misbehaving local HTTP servers (127.0.0.1 only)."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from probesmith.builders.sources.wikidata import (
    OxigraphServer,
    QueryCache,
    QueryError,
    SparqlClient,
    load_store,
)
from probesmith.errors import SourceError

from ...conftest import SHARED_DATA, slice_classes, slice_names

SLICE = SHARED_DATA / "wikidata_slice" / "wikidata_slice.nt.gz"
needs_slice = pytest.mark.skipif(not SLICE.is_file(), reason="shared Wikidata slice not present")
RESULT = json.dumps(
    {
        "head": {"vars": ["s"]},
        "results": {"bindings": [{"s": {"type": "uri", "value": "http://www.wikidata.org/entity/Q1"}}]},
    }
).encode()


class Script:
    """What the fake endpoint does on each request, and what it saw."""

    def __init__(self, actions):
        self.actions = list(actions)
        self.requests = []


def serve(script):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            self.rfile.read(length)
            script.requests.append({"agent": self.headers.get("User-Agent"), "time": time.monotonic()})
            action = script.actions.pop(0) if script.actions else "ok"
            if action.startswith("status:"):
                _, code, retry_after = (action.split(":") + [""])[:3]
                self.send_response(int(code))
                if retry_after:
                    self.send_header("Retry-After", retry_after)
                self.end_headers()
                self.wfile.write(b"slow down")
            elif action == "stall":
                time.sleep(3)
                self._ok(RESULT)
            elif action == "truncate":
                self.send_response(200)
                self.send_header("Content-Type", "application/sparql-results+json")
                self.send_header("Content-Length", str(len(RESULT)))
                self.end_headers()
                self.wfile.write(RESULT[: len(RESULT) // 2])
                self.wfile.flush()
                self.close_connection = True
            else:
                self._ok(RESULT)

        def _ok(self, body):
            self.send_response(200)
            self.send_header("Content-Type", "application/sparql-results+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/sparql"


@pytest.fixture
def endpoint():
    servers = []

    def start(*actions):
        script = Script(actions)
        server, url = serve(script)
        servers.append(server)
        return script, url

    yield start
    for server in servers:
        server.shutdown()


def client(url, **kwargs):
    return SparqlClient(url, user_agent="probesmith-test (test@example.org)", backoff=1.1, **kwargs)


def test_honours_retry_after_on_429_and_503(endpoint):
    script, url = endpoint("status:429:1", "status:503:1", "ok")
    rows = client(url).select("SELECT ?s WHERE { ?s ?p ?o }")
    assert rows == [{"s": "http://www.wikidata.org/entity/Q1"}]
    times = [r["time"] for r in script.requests]
    assert len(times) == 3 and times[1] - times[0] >= 0.95 and times[2] - times[1] >= 0.95
    assert all(r["agent"] == "probesmith-test (test@example.org)" for r in script.requests)


def test_a_cut_body_is_a_failed_query_not_data(endpoint):
    script, url = endpoint("truncate", "ok")
    assert len(client(url).select("SELECT ?s WHERE { ?s ?p ?o }")) == 1
    assert len(script.requests) == 2
    script, url = endpoint(*["truncate"] * 5)
    with pytest.raises(QueryError, match=r"failed 3 times.*(does not parse|IncompleteRead)"):
        client(url, max_retries=3).select("SELECT ?s WHERE { ?s ?p ?o }")


def test_a_stalled_query_times_out_and_is_retried(endpoint):
    script, url = endpoint("stall", "ok")
    assert len(client(url, timeout=1).select("SELECT ?s WHERE { ?s ?p ?o }")) == 1
    assert len(script.requests) == 2


def test_retries_are_bounded_and_the_error_says_what_happened(endpoint):
    script, url = endpoint(*["status:503:0"] * 10)
    with pytest.raises(QueryError, match=r"failed 4 times; last: HTTP 503"):
        client(url, max_retries=4).select("SELECT ?s WHERE { ?s ?p ?o }")
    assert len(script.requests) == 4


def test_unreachable_endpoint(tmp_path):
    with pytest.raises(QueryError, match="failed 2 times.*reachable"):
        client("http://127.0.0.1:9/sparql", max_retries=2).select("SELECT ?s WHERE { ?s ?p ?o }")


def test_service_clauses_are_refused_before_sending(endpoint):
    script, url = endpoint()
    query = 'SELECT ?s WHERE { ?s ?p ?o SERVICE wikibase:label { bd:serviceParam wikibase:language "en" } }'
    with pytest.raises(QueryError, match="SERVICE clause"):
        client(url).select(query)
    assert script.requests == []


def test_cache_record_replay_refresh(endpoint, tmp_path):
    script, url = endpoint()
    query = "SELECT ?s WHERE { ?s ?p ?o }"
    client(url, cache=QueryCache(tmp_path, "record")).select(query)
    client(url, cache=QueryCache(tmp_path, "record")).select(query)
    assert len(script.requests) == 1
    replay = client("http://127.0.0.1:9/sparql", cache=QueryCache(tmp_path, "replay"))
    with pytest.raises(QueryError, match="not in the cache"):
        replay.select(query)  # another endpoint: another key
    replayed = client(url, cache=QueryCache(tmp_path, "replay"))
    assert replayed.select(query) == [{"s": "http://www.wikidata.org/entity/Q1"}]
    assert replayed.log[0].cached
    client(url, cache=QueryCache(tmp_path, "refresh")).select(query)
    assert len(script.requests) == 2


def test_paging_needs_order_by_and_stops_on_a_short_page(endpoint):
    script, url = endpoint()
    with pytest.raises(QueryError, match="ORDER BY"):
        client(url).select_paged("SELECT ?s WHERE { ?s ?p ?o }")
    rows = client(url).select_paged("SELECT ?s WHERE { ?s ?p ?o } ORDER BY ?s", page_size=2)
    assert len(rows) == 1 and len(script.requests) == 1  # a short page ends the paging


@needs_slice
@pytest.mark.integration
def test_truncated_dump_leaves_no_store(tmp_path):
    data = SLICE.read_bytes()
    truncated = tmp_path / "slice.nt.gz"
    truncated.write_bytes(data[: len(data) // 3])
    with pytest.raises(SourceError, match=r"truncated or corrupt.*nothing was loaded"):
        load_store(truncated, tmp_path / "store", progress=False)
    assert not (tmp_path / "store").exists() and not list(tmp_path.glob(".store*"))
    broken = tmp_path / "broken.nt"
    broken.write_text("<http://a> <http://b> this is not n-triples .\n")
    with pytest.raises(SourceError, match="truncated or corrupt"):
        load_store(broken, tmp_path / "store2", progress=False)


@needs_slice
@pytest.mark.integration
@pytest.mark.parametrize("suffix", [".nt.bz2", ".nt.zst"])
def test_load_reads_every_dump_format_the_slice_reads(tmp_path, suffix):
    """One dump reader for `wikidata load` and `wikidata slice`: .bz2 and .zst load (the latter
    with the `zstd` program), and a truncated one names the byte and leaves no store."""
    import bz2
    import gzip
    import shutil
    import subprocess

    if suffix == ".nt.zst" and not shutil.which("zstd"):
        pytest.skip("zstd not installed")
    with gzip.open(SLICE, "rb") as fh:
        text = b"".join(fh.readline() for _ in range(5000))
    packed = (
        bz2.compress(text)
        if suffix == ".nt.bz2"
        else subprocess.run(["zstd", "-c"], input=text, capture_output=True, check=True).stdout
    )
    whole = tmp_path / f"dump{suffix}"
    whole.write_bytes(packed)
    assert load_store(whole, tmp_path / "store", progress=False)["triples"] == 5000
    cut = tmp_path / f"cut{suffix}"
    cut.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(SourceError, match=r"truncated or corrupt.*nothing was loaded"):
        load_store(cut, tmp_path / "store2", progress=False)
    assert not (tmp_path / "store2").exists() and not list(tmp_path.glob(".store2*"))


@needs_slice
@pytest.mark.integration
def test_same_query_text_on_the_local_store_over_http(wikidata_store):
    with OxigraphServer(wikidata_store) as server:
        c = client(server.endpoint)
        rows = c.select_paged(
            "PREFIX wdt: <http://www.wikidata.org/prop/direct/> PREFIX wd: <http://www.wikidata.org/entity/>\n"
            "SELECT ?capital WHERE { wd:Q183 wdt:P36 ?capital } ORDER BY ?capital",
            page_size=10,
        )
        assert rows == [{"capital": "http://www.wikidata.org/entity/Q64"}]  # Germany -> Berlin
    assert server.process is None


@needs_slice
@pytest.mark.integration
def test_classes_are_those_of_the_slice_and_asked_once_per_entity(wikidata_store):
    """``classes_of``: each entity's P31 classes as the slice's TSV gives them (none for an untyped one),
    and an entity already asked by this client is not asked again: only the new ones cost a query."""
    from probesmith.builders.sources.wikidata_queries import class_facts, classes_of

    classes = slice_classes()
    typed = sorted(classes)[:700]
    untyped = sorted(e for e in slice_names() if e not in classes)[:100]
    newcomers = sorted(classes)[700:750]
    assert len(typed) == 700 and len(untyped) == 100 and len(newcomers) == 50
    with OxigraphServer(wikidata_store) as server:
        c = client(server.endpoint)
        first = classes_of(c, typed + untyped)
        asked_first = len(c.log)
        again = classes_of(c, untyped + typed)
        asked_again = len(c.log) - asked_first
        facts = class_facts(c, newcomers + typed[:10])
        asked_newcomers = len(c.log) - asked_first - asked_again
    assert first == {e: frozenset(classes[e]) for e in typed} | dict.fromkeys(untyped, frozenset())
    assert again == first
    assert (asked_first, asked_again, asked_newcomers) == (2, 0, 1)  # 400 entities a query
    assert facts == [(e, "P31", kind) for e in newcomers + typed[:10] for kind in sorted(classes[e])]


def test_a_store_reloaded_with_other_data_is_not_answered_from_the_old_cache(tmp_path):
    """The cache is keyed by what the store was loaded from, not by its path."""
    from probesmith.builders.sources import WikidataSpec, open_wikidata

    store = tmp_path / "store"
    spec = WikidataSpec(source=str(store), cache=str(tmp_path / "cache"), cache_mode="record")
    query = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    counts = []
    for n in (3, 5):
        dump = tmp_path / f"dump{n}.nt"
        dump.write_text("".join(f"<http://x/{i}> <http://p> <http://y/{i}> .\n" for i in range(n)))
        load_store(dump, store, progress=False)  # the same folder, reloaded (ours: replaced)
        with open_wikidata(spec) as (client, _source):
            counts.append(int(client.select(query)[0]["n"]))
    assert counts == [3, 5]
    assert len(list((tmp_path / "cache").rglob("*.json"))) == 2


def test_a_local_store_is_recorded_by_its_content_not_by_its_port(tmp_path):
    """Two runs on the same store serve it on two ports; the manifest's query list names the store
    by what it was loaded from, so a rebuild's manifest does not churn on every query."""
    from probesmith.builders.sources import WikidataSpec, open_wikidata

    store = tmp_path / "store"
    dump = tmp_path / "dump.nt"
    dump.write_text("<http://x/1> <http://p> <http://y/1> .\n")
    load_store(dump, store, progress=False)
    spec = WikidataSpec(source=str(store), cache_mode="off")
    recorded = []
    for _ in range(2):
        with open_wikidata(spec) as (client, _source):
            client.select("SELECT ?s WHERE { ?s ?p ?o }")
            recorded.append([record.endpoint for record in client.log])
    assert recorded[0] == recorded[1] and recorded[0][0].startswith("oxigraph:")
    assert "127.0.0.1" not in recorded[0][0]
