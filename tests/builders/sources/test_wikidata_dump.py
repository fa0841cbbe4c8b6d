"""Wikidata at scale: the streaming dump filter, bounded plans on a grown dump, endpoint timeouts."""

import bz2
import gzip
import importlib.util
import logging
import shutil
import threading
import urllib.parse
import urllib.request
from collections import Counter, defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import polars as pl
import pytest

from probesmith.builders.build import build
from probesmith.builders.registry import load_spec, resolve_spec
from probesmith.builders.sources.wikidata import OxigraphServer, QueryTimeout, SparqlClient, load_store
from probesmith.builders.sources.wikidata_dump import slice_dump
from probesmith.builders.sources.wikidata_queries import RECORDED_DEGREE
from probesmith.errors import SourceError

from ...conftest import FIXTURES, SHARED_DATA

pytestmark = pytest.mark.integration
SLICE = SHARED_DATA / "wikidata_slice" / "wikidata_slice.nt.gz"
REPOSITORY = Path(__file__).resolve().parents[3]
needs_slice = pytest.mark.skipif(not SLICE.is_file(), reason="shared Wikidata slice not present")


def table(folder: Path, config: str) -> pl.DataFrame:
    return pl.concat([pl.read_parquet(p) for p in sorted(folder.glob(f"{config}/*.parquet"))])


def spec_file(tmp_path: Path, include: str, source: Path | str, **extra: str) -> Path:
    path = tmp_path / f"spec-{len(list(tmp_path.glob('spec-*')))}.yaml"
    lines = [f"include: {include}", "wikidata:", f"  source: {source}", "  cache_mode: 'off'"]
    lines += [f"{key}: {value}" for key, value in extra.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def tsv_degree() -> Counter:
    """Each entity's degree counted from the slice's TSV (every fact, both ends), not by probesmith."""
    degree = Counter()
    with gzip.open(SHARED_DATA / "wikidata_slice" / "facts.tsv.gz", "rt", encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            s, _, o = line.split("\t")[:3]
            degree[s] += 1
            degree[o] += 1
    return degree


@pytest.fixture(scope="module")
def default_slice(tmp_path_factory):
    """The shared slice cut with the default relations spec (the whole catalog)."""
    if not SLICE.is_file():
        pytest.skip("shared Wikidata slice not present")
    out = tmp_path_factory.mktemp("slice") / "relations.nt.gz"
    report = slice_dump(SLICE, resolve_spec("relations"), out, progress=False)
    return out, report


def test_slice_then_build_gives_the_same_relation_sets(default_slice, tmp_path):
    """The issue's round trip: a relations build from the cut equals one from the original slice."""
    out, report = default_slice
    assert report.triples == 735_569 and report.malformed == 0 and report.popularity == "degree"
    assert 0 < report.facts < 398_547  # the catalog's relations, not the slice's 115
    original = build(load_spec(spec_file(tmp_path, "relations", SLICE)), tmp_path / "original")
    cut = build(load_spec(spec_file(tmp_path, "relations", out)), tmp_path / "cut")
    assert cut.logical_hash == original.logical_hash
    assert table(cut.out, "instances")["popularity"].null_count() == 0


def test_the_cut_records_each_entitys_degree_over_the_whole_dump(default_slice):
    """Degree counted independently from the slice's TSV (every fact, both ends), not the cut's."""
    out, _ = default_slice
    degree = tsv_degree()
    recorded, facts = {}, 0
    with gzip.open(out, "rt", encoding="utf-8") as fh:
        for line in fh:
            if f"<{RECORDED_DEGREE}>" in line:
                entity = line.split(">", 1)[0].rsplit("/", 1)[1]
                recorded[entity] = int(line.split('"')[1])
            elif "/prop/direct/" in line:
                facts += 1
    assert recorded and all(recorded[e] == degree[e] for e in recorded)
    assert set(recorded) >= {"Q64", "Q183"}  # Berlin, Germany: kept, with their whole-dump degree


def _small_dump(tmp_path: Path, lines: int = 4000) -> list[str]:
    with gzip.open(SLICE, "rt", encoding="utf-8") as fh:
        return [next(fh) for _ in range(lines)]


@needs_slice
def test_malformed_lines_are_counted_skipped_and_sampled(tmp_path, caplog):
    lines = _small_dump(tmp_path)
    broken = ["<http://www.wikidata.org/entity/Q1> <oops\n", "not a triple at all\n", "<a> <b> .\n"]
    dump = tmp_path / "dump.nt.gz"
    with gzip.open(dump, "wt", encoding="utf-8") as fh:
        fh.writelines(lines[:100] + broken + lines[100:])
    spec = resolve_spec("relations")
    with caplog.at_level(logging.WARNING):
        report = slice_dump(dump, spec, tmp_path / "cut.nt.gz", progress=False)
    assert report.malformed == 3 and report.triples == len(lines)
    assert "3 malformed lines skipped" in caplog.text and "not a triple at all" in caplog.text
    plain = tmp_path / "dump.nt"
    plain.write_text("".join(lines))
    again = slice_dump(plain, spec, tmp_path / "cut.nt", progress=False)
    assert again.facts == report.facts and again.malformed == 0


@needs_slice
@pytest.mark.parametrize("suffix", [".nt.gz", ".nt.bz2", ".nt.zst"])
def test_a_truncated_archive_names_where_it_ended_and_writes_nothing(tmp_path, suffix):
    if suffix == ".nt.zst" and not shutil.which("zstd"):
        pytest.skip("zstd not installed")
    text = "".join(_small_dump(tmp_path, 20_000)).encode()
    whole = tmp_path / f"whole{suffix}"
    if suffix == ".nt.gz":
        whole.write_bytes(gzip.compress(text))
    elif suffix == ".nt.bz2":
        whole.write_bytes(bz2.compress(text))
    else:
        import subprocess

        whole.write_bytes(subprocess.run(["zstd", "-c"], input=text, capture_output=True, check=True).stdout)
    spec = resolve_spec("relations")
    assert slice_dump(whole, spec, tmp_path / "whole-cut.nt.gz", progress=False).triples == 20_000
    cut = tmp_path / f"cut{suffix}"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    out = tmp_path / "out.nt.gz"
    with pytest.raises(
        SourceError, match=r"truncated or corrupt: decompression failed at byte [\d,]+ of [\d,]+"
    ):
        slice_dump(cut, spec, out, progress=False)
    assert not out.exists() and not list(tmp_path.glob(".probesmith-slice-*"))


def test_bad_slice_requests_are_named(tmp_path):
    spec = resolve_spec("relations")
    with pytest.raises(SourceError, match="does not exist"):
        slice_dump(tmp_path / "missing.nt.gz", spec, tmp_path / "out.nt.gz")
    (tmp_path / "dump.ttl").write_text("")
    with pytest.raises(SourceError, match="must be N-Triples"):
        slice_dump(tmp_path / "dump.ttl", spec, tmp_path / "out.nt.gz")
    if SLICE.is_file():
        with pytest.raises(SourceError, match=r"name the slice \.nt or \.nt\.gz"):
            slice_dump(SLICE, spec, tmp_path / "out.ttl")


def _scale_module():
    path = REPOSITORY / "benchmarks" / "wikidata_scale.py"
    module_spec = importlib.util.spec_from_file_location("wikidata_scale", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


@needs_slice
def test_bounded_plans_balance_exactly_on_a_grown_dump(tmp_path):
    """The small relations spec, cut from the slice, grown 2x as Wikidata grows, built again:
    every answer exactly k times, every subject's every object a gold, and no more rows fetched
    than at 1x times 1.5."""
    small = resolve_spec(str(FIXTURES / "relations_small.yaml"))
    cut = tmp_path / "small.nt.gz"
    slice_dump(SLICE, small, cut, progress=False)
    grown = tmp_path / "small-x2.nt.gz"
    info = _scale_module().grow_dump(cut, grown, 2)
    assert info["triples"] > 1.8 * sum(1 for _ in gzip.open(cut))
    builds = {}
    for name, dump in (("x1", cut), ("x2", grown)):
        store = tmp_path / f"store-{name}"
        load_store(dump, store, progress=False)
        spec = spec_file(tmp_path, str(FIXTURES / "relations_small.yaml"), store, name=f"small-{name}")
        builds[name] = build(load_spec(spec), tmp_path / name)
    facts = defaultdict(set)
    with gzip.open(grown, "rt", encoding="utf-8") as fh:
        for line in fh:
            if "/prop/direct/" in line:
                s, p, o = (term.strip("<>").rsplit("/", 1)[1] for term in line.split(" ")[:3])
                facts[(p, s)].add(o)
    instances = table(builds["x2"].out, "instances")
    assert set(instances["relation_id"]) == set(table(builds["x1"].out, "instances")["relation_id"])
    for pid in instances["relation_id"].unique().to_list():
        rows = instances.filter(pl.col("relation_id") == pid)
        assert len(set(Counter(rows["obj_id"].to_list()).values())) == 1, pid  # exact balance
        assert rows["sub_id"].n_unique() == rows.height
        for row in rows.iter_rows(named=True):
            assert facts[(pid, row["sub_id"])] <= set(row["gold_obj_ids"]), (pid, row["sub_label"])
    assert any(int(s[1:]) > 10**9 for s in instances["sub_id"])  # the grown copies are sampled too
    rows_fetched = {name: sum(q["rows"] for q in b.manifest["queries"]) for name, b in builds.items()}
    assert rows_fetched["x2"] <= 1.5 * rows_fetched["x1"], rows_fetched


def test_the_store_cancelling_a_query_is_a_timeout_not_a_retry(wikidata_store):
    """Real oxigraph with --timeout-s 1: the cut body is recognised, not retried five times."""
    heavy = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?b . ?b ?q ?c . ?c ?r ?d }"  # paths of three facts
    with OxigraphServer(wikidata_store, query_timeout=1) as server:
        client = SparqlClient(server.endpoint, max_retries=5)
        client.sleep = lambda seconds: pytest.fail("a timeout must not be retried")
        with pytest.raises(QueryTimeout, match="time limit"):
            client.select(heavy)


@pytest.fixture
def query_service_that_times_out_on(wikidata_store):
    """The query service's timeout, as it answers (HTTP 500, a Java TimeoutException), for queries
    about one relation; every other query goes to the real store. Records what was asked."""
    asked = []

    def start(relation: str):
        server_context = OxigraphServer(wikidata_store)
        backend = server_context.__enter__()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                query = urllib.parse.parse_qs(body.decode())["query"][0]
                asked.append((self.headers.get("User-Agent"), query))
                if f"wdt:{relation} " in query:
                    self.send_response(500)
                    self.end_headers()
                    self.wfile.write(b"java.util.concurrent.TimeoutException\n\tat java.util.concurrent...")
                    return
                request = urllib.request.Request(backend.endpoint, data=body, headers=dict(self.headers))
                with urllib.request.urlopen(request) as response:
                    data = response.read()
                    self.send_response(response.status)
                    self.send_header("Content-Type", response.headers["Content-Type"])
                    self.end_headers()
                    self.wfile.write(data)

            def log_message(self, *args):
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append((server, server_context))
        return f"http://127.0.0.1:{server.server_port}/sparql", asked

    started = []
    yield start
    for server, context in started:
        server.shutdown()
        context.__exit__(None, None, None)


def test_a_relation_too_large_for_the_endpoint_names_itself_and_the_fix(
    query_service_that_times_out_on, tmp_path
):
    endpoint, asked = query_service_that_times_out_on("P19")
    spec = spec_file(tmp_path, str(FIXTURES / "relations_small.yaml"), endpoint, relations="[P36, P19, P30]")
    out = tmp_path / "out"
    with pytest.raises(SourceError) as error:
        build(load_spec(spec), out)
    message = str(error.value)
    assert "relation P19" in message and "time limit" in message
    assert "wikidata.min_popularity" in message and "Nothing was written" in message
    assert not out.exists()
    # P36 was built before P19 was reached; P19's failing query was asked once, with our User-Agent
    timed_out = [q for _, q in asked if "wdt:P19 " in q]
    assert len(timed_out) == 1 and any("wdt:P36 " in q for _, q in asked)
    assert all(agent.startswith("probesmith/") for agent, _ in asked)


def test_a_popularity_floor_asks_only_popular_subjects(default_slice, tmp_path):
    """`wikidata.min_popularity` on a cut slice: every instance's subject has at least that degree
    over the whole dump, counted here from the slice's TSV (not from what the cut recorded)."""
    out, _ = default_slice
    degree = tsv_degree()
    spec = tmp_path / "popular.yaml"
    spec.write_text(
        f"include: {FIXTURES / 'relations_small.yaml'}\nname: popular\nwikidata:\n  source: {out}\n"
        "  cache_mode: 'off'\n  min_popularity: 40\n"
    )
    result = build(load_spec(spec), tmp_path / "popular")
    instances = table(result.out, "instances")
    assert instances.height > 0
    assert min(degree[s] for s in instances["sub_id"]) >= 40
    assert instances["popularity"].min() >= 40
