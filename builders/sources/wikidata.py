"""Wikidata source: SPARQL 1.1 over HTTP (SPARQLWrapper) to the query service or a local store.

Two real backends run the same query text:

* the public Wikidata Query Service (``https://query.wikidata.org/sparql``), and
* a local oxigraph store built from an N-Triples dump or slice (``.nt``, ``.nt.gz``,
  ``.nt.bz2``, ``.nt.zst``) with :func:`load_store` and served on 127.0.0.1 by :class:`OxigraphServer`
  (the ``oxigraph`` server from PyPI, started and stopped by probesmith).

Queries use standard SPARQL only — labels through ``rdfs:label`` with a language filter, aliases
through ``skos:altLabel`` — and a ``SERVICE`` clause is refused before it reaches a local store.
:class:`SparqlClient` keeps the query service's etiquette: a descriptive User-Agent with a
contact, one query at a time, a timeout, ``429``/``503`` with ``Retry-After`` honoured, bounded
retries with backoff, and a body that does not parse treated as a failed query (a local oxigraph
answers ``200`` before a query fails and then cuts the body). :class:`QueryCache` keeps results
content-addressed by endpoint and query text, in ``record``, ``replay`` or ``refresh`` mode.
"""

from __future__ import annotations

import contextlib
import email.utils
import errno
import hashlib
import http.client
import json
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

from tqdm.auto import tqdm

from probesmith.builders.sources.dumps import DumpStream, checked_dump
from probesmith.errors import ProbesmithError, SourceError
from probesmith.schemas.manifest import file_sha256
from probesmith.schemas.output import OutputFolder, write_bytes_atomic

log = logging.getLogger(__name__)

WDQS_ENDPOINT = "https://query.wikidata.org/sparql"
DEFAULT_USER_AGENT = (
    "probesmith/0.1 (knowledge-probing datasets; set `wikidata.user_agent` with your contact)"
)
STORE_INFO = "probesmith-store.json"
PREFIXES = """\
PREFIX wd: <http://www.wikidata.org/entity/>
PREFIX wdt: <http://www.wikidata.org/prop/direct/>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX wikibase: <http://wikiba.se/ontology#>
PREFIX schema: <http://schema.org/>
"""
_SERVICE = re.compile(r"\bSERVICE\s+(SILENT\s+)?(<|[?$]|[A-Za-z_][\w-]*:)", re.IGNORECASE)
_ENTITY = "http://www.wikidata.org/entity/"
# what an endpoint says when it gives up at its time limit: oxigraph cuts a 200 body with the
# first, the query service answers 500 with a Java TimeoutException
_TIMED_OUT = re.compile(rb"operation has been cancelled|TimeoutException|Query timeout", re.IGNORECASE)


class QueryError(ProbesmithError):
    """A SPARQL query failed for good: the endpoint, the query and the last error say why."""


class QueryTimeout(QueryError):
    """The endpoint gave up on a query at its time limit; asking again gives the same answer."""


class CacheMiss(QueryError):
    """Replay mode asked for a query that was never recorded."""


def entity_id(iri: str) -> str:
    """``http://www.wikidata.org/entity/Q42`` -> ``Q42``."""
    return iri[len(_ENTITY) :] if iri.startswith(_ENTITY) else iri


# ---- loading a dump into a store ---------------------------------------------------------------


class _ProgressReader:
    """A dump's text that advances a progress bar by the compressed bytes consumed."""

    def __init__(self, stream: DumpStream, bar: tqdm):
        self.stream, self.bar = stream, bar

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self.bar.update(self.stream.compressed_read - self.bar.n)
        return data

    def readable(self) -> bool:
        return True


def load_store(dump: str | Path, store: str | Path, progress: bool = True, *, force: bool = False) -> dict:
    """Load an N-Triples dump into an oxigraph store folder, streaming; return its info.

    ``store`` must be new, empty, or a store probesmith loaded (checked before the dump is read).
    The store is built in a staging folder and swapped into place, so a truncated or corrupt dump
    — or an interrupted load — leaves the previous store (or none); rerunning the command starts
    the load again. ``store/probesmith-store.json`` records the dump's sha256, which keys the
    SPARQL cache of builds from this store.
    """
    import pyoxigraph

    dump = checked_dump(dump)
    started = time.perf_counter()
    with OutputFolder(store, "store", command="wikidata load", force=force) as staging:
        stream = DumpStream(dump, outcome="nothing was loaded")
        try:
            with tqdm(
                total=stream.size,
                unit="B",
                unit_scale=True,
                desc=f"loading {dump.name}",
                disable=None if progress else True,  # None: off when not a terminal
            ) as bar:
                oxi = pyoxigraph.Store(str(staging))
                oxi.bulk_load(input=_ProgressReader(stream, bar), format=pyoxigraph.RdfFormat.N_TRIPLES)
                oxi.flush()
                triples = len(oxi)
                del oxi
                stream.close()  # the decompressor's verdict: a clean end, or a truncated archive
        except (EOFError, zlib.error, SyntaxError, ValueError) as exc:
            raise SourceError(
                f"dump {dump} is truncated or corrupt ({type(exc).__name__}: {exc}); nothing was "
                "loaded. Download or copy it again."
            ) from None
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EFBIG):
                raise
            raise SourceError(
                f"dump {dump} is truncated or corrupt ({type(exc).__name__}: {exc}); nothing was "
                "loaded. Download or copy it again."
            ) from None
        finally:
            stream.abort()  # a no-op after a clean end; else the decompressor must not outlive us
        if triples == 0:
            raise SourceError(f"dump {dump} holds no triples; nothing was loaded. Pass a non-empty dump.")
        info = {
            "dump": str(dump.resolve()),
            "dump_sha256": file_sha256(dump),
            "triples": triples,
            "seconds": round(time.perf_counter() - started, 1),
        }
        (staging / STORE_INFO).write_text(json.dumps(info, indent=2))
    log.info("loaded %s triples from %s into %s in %.1f s", f"{triples:,}", dump, store, info["seconds"])
    return info


def store_info(store: Path) -> dict:
    """The info file of a store made by :func:`load_store`."""
    path = Path(store) / STORE_INFO
    if not path.is_file():
        raise SourceError(
            f"{store} is not a probesmith store; make one with "
            f"`probesmith wikidata load DUMP --store {store}`."
        )
    return json.loads(path.read_text())


# ---- serving a store -------------------------------------------------------------------------


def oxigraph_binary() -> str:
    """The ``oxigraph`` server executable (from the ``oxigraph`` package on PyPI)."""
    beside = Path(sys.executable).parent / "oxigraph"
    found = str(beside) if beside.is_file() else shutil.which("oxigraph")
    if not found:
        raise SourceError("the oxigraph server is not installed: `pip install oxigraph`.")
    return found


class OxigraphServer:
    """A read-only oxigraph SPARQL server on 127.0.0.1, for the lifetime of a ``with`` block."""

    def __init__(
        self,
        store: str | Path,
        port: int | None = None,
        start_timeout: float = 60.0,
        query_timeout: float | None = None,
    ):
        self.store = Path(store)
        store_info(self.store)
        self.port = port or _free_port()
        self.start_timeout = start_timeout
        self.query_timeout = query_timeout  # the server cancels a query after this many seconds
        self.process: subprocess.Popen | None = None

    @property
    def endpoint(self) -> str:
        """The SPARQL endpoint URL."""
        return f"http://127.0.0.1:{self.port}/query"

    def __enter__(self) -> OxigraphServer:
        command = [
            oxigraph_binary(),
            "serve-read-only",
            "--location",
            str(self.store),
            "--bind",
            f"127.0.0.1:{self.port}",
        ]
        if self.query_timeout:
            command += ["--timeout-s", str(max(1, round(self.query_timeout)))]
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: a Ctrl-C reaches us, we end it
            preexec_fn=_die_with_parent(os.getpid()) if sys.platform == "linux" else None,
        )
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                error = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
                raise SourceError(f"the oxigraph server for {self.store} exited: {error.strip()}")
            try:
                url = self.endpoint + "?query=" + urllib.request.quote("ASK { }")
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        log.info("oxigraph serving %s at %s", self.store, self.endpoint)
                        return self
            except (TimeoutError, urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
        self.__exit__(None, None, None)
        raise SourceError(
            f"the oxigraph server for {self.store} did not answer within {self.start_timeout} s"
        )

    def __exit__(self, *exc) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process = None


def _die_with_parent(parent_pid: int):
    """A ``preexec_fn`` that asks Linux to SIGTERM the child when its parent dies (even by kill -9).

    ``PR_SET_PDEATHSIG`` fires when the thread that started the child ends: servers are started
    from the main thread. A parent already gone before the call is caught by the ppid check.
    """

    def preexec() -> None:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        if os.getppid() != parent_pid:
            os._exit(1)

    return preexec


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# ---- the query cache ---------------------------------------------------------------------------

CacheMode = Literal["record", "replay", "refresh", "off"]


class QueryCache:
    """Results keyed by sha256(endpoint, query text), one JSON file each.

    ``record``: answer from the cache, query and store on a miss; ``replay``: the cache only (a
    miss is an error: nothing reaches the endpoint); ``refresh``: always query, overwrite.
    """

    def __init__(self, folder: str | Path, mode: CacheMode = "record"):
        if mode not in ("record", "replay", "refresh", "off"):
            raise SourceError(f"cache mode {mode!r}: use record, replay, refresh or off")
        self.folder, self.mode = Path(folder), mode

    @staticmethod
    def key(endpoint: str, query: str) -> str:
        """The content address of a query at an endpoint."""
        return hashlib.sha256(f"{endpoint}\n{query}".encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, endpoint: str, query: str) -> list[dict] | None:
        """Cached bindings, or None (an error in replay mode)."""
        if self.mode in ("off", "refresh"):
            return None
        path = self._path(self.key(endpoint, query))
        if path.is_file():
            try:
                return json.loads(path.read_text(encoding="utf-8"))["bindings"]
            except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
                if self.mode == "replay":
                    raise CacheMiss(
                        f"cached result {path} is unreadable ({type(exc).__name__}); record it again "
                        "with cache mode `refresh`."
                    ) from None
                log.warning("cached result %s is unreadable (%s); querying again", path, type(exc).__name__)
                return None
        if self.mode == "replay":
            raise CacheMiss(
                f"query {self.key(endpoint, query)[:12]} for {endpoint} is not in the cache "
                f"{self.folder} (replay mode); record it first with cache mode `record`."
            )
        return None

    def put(self, endpoint: str, query: str, bindings: list[dict]) -> None:
        """Store bindings atomically."""
        if self.mode == "off":
            return
        path = self._path(self.key(endpoint, query))
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(
            path, json.dumps({"endpoint": endpoint, "query": query, "bindings": bindings}).encode()
        )


# ---- the client --------------------------------------------------------------------------------


@dataclass
class QueryRecord:
    """What was asked, for the manifest."""

    endpoint: str
    query_sha256: str
    rows: int
    seconds: float
    cached: bool


@dataclass
class SparqlClient:
    """SPARQL SELECT over HTTP with SPARQLWrapper, with etiquette, retries and a cache."""

    endpoint: str
    user_agent: str = DEFAULT_USER_AGENT
    timeout: float = 60.0
    max_retries: int = 5
    backoff: float = 2.0
    max_wait: float = 300.0
    cache: QueryCache | None = None
    cache_endpoint: str | None = None  # the cache key's endpoint, when the URL is not stable
    log: list[QueryRecord] = field(default_factory=list)
    known: dict[str, str] = field(default_factory=dict)  # what a build learnt of the source, asked once
    sleep = staticmethod(time.sleep)
    _lock = threading.Lock()  # one query at a time, across clients

    @property
    def is_local(self) -> bool:
        """Whether the endpoint is on this machine."""
        return bool(re.match(r"https?://(127\.\d+\.\d+\.\d+|localhost|\[::1\])[:/]", self.endpoint))

    def select(self, query: str) -> list[dict[str, str]]:
        """Run a SELECT query; each row maps variable names to values (IRIs and literals as text)."""
        if _SERVICE.search(query):
            raise QueryError(
                "the query has a SERVICE clause; probesmith sends standard SPARQL 1.1 only "
                "(labels through rdfs:label, aliases through skos:altLabel), so that one query "
                "runs on the query service and on a local store alike. Remove the SERVICE clause."
            )
        cache_key = self.cache_endpoint or self.endpoint
        digest = QueryCache.key(cache_key, query)
        if self.cache is not None:
            cached = self.cache.get(cache_key, query)
            if cached is not None:
                self.log.append(QueryRecord(self.endpoint, digest, len(cached), 0.0, True))
                return cached
        started = time.perf_counter()
        with self._lock:
            rows = self._select_with_retries(query)
        seconds = time.perf_counter() - started
        self.log.append(QueryRecord(self.endpoint, digest, len(rows), round(seconds, 3), False))
        log.info("queried %s: %d rows in %.2f s (query %s)", self.endpoint, len(rows), seconds, digest[:12])
        if self.cache is not None:
            self.cache.put(cache_key, query, rows)
        return rows

    def select_paged(self, query: str, page_size: int = 50_000) -> list[dict[str, str]]:
        """Run a SELECT with an ORDER BY in pages of LIMIT/OFFSET until a page comes back short."""
        if not re.search(r"\bORDER\s+BY\b", query, re.IGNORECASE):
            raise QueryError("paged queries need an ORDER BY, or pages are not stable; add one.")
        rows: list[dict[str, str]] = []
        offset = 0
        while True:
            page = self.select(f"{query}\nLIMIT {page_size} OFFSET {offset}")
            rows.extend(page)
            if len(page) < page_size:
                return rows
            offset += page_size

    def _select_with_retries(self, query: str) -> list[dict[str, str]]:
        from SPARQLWrapper import JSON, POST, SPARQLWrapper

        last_error = ""
        for attempt in range(1, self.max_retries + 1):
            wait = min(self.max_wait, self.backoff**attempt)
            try:
                client = SPARQLWrapper(self.endpoint, agent=self.user_agent)
                client.setQuery(query)
                client.setMethod(POST)
                client.setReturnFormat(JSON)
                client.setTimeout(int(self.timeout))
                response = client.query().response
                body = response.read()
                if _TIMED_OUT.search(body[-2000:]):
                    raise QueryTimeout(f"{self.endpoint} cancelled the query at its time limit")
                return _parse_bindings(body)
            except urllib.error.HTTPError as exc:
                last_error = f"HTTP {exc.code}"
                detail = exc.read()
                if _TIMED_OUT.search(detail):
                    raise QueryTimeout(
                        f"{self.endpoint} stopped the query at its time limit (HTTP {exc.code})"
                    ) from None
                if exc.code in (429, 503):
                    wait = min(self.max_wait, _retry_after(exc.headers.get("Retry-After"), wait))
                    last_error += f" (Retry-After {exc.headers.get('Retry-After')})"
                elif 400 <= exc.code < 500:
                    raise QueryError(
                        f"{self.endpoint} refused the query: HTTP {exc.code}: {detail[:300]!r}"
                    ) from None
            except QueryTimeout:
                raise
            except _BadBody as exc:
                last_error = f"a response body that does not parse ({exc})"
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError, TimeoutError) as exc:
                last_error = f"{type(exc).__name__}: {exc}"
            except Exception as exc:  # SPARQLWrapper wraps 400/404/500 in its own exceptions
                last_error = f"{type(exc).__name__}: {str(exc)[:300]}"
                if _TIMED_OUT.search(str(exc).encode()):
                    raise QueryTimeout(f"{self.endpoint} stopped the query at its time limit") from None
                if type(exc).__name__ in ("QueryBadFormed", "EndPointNotFound", "Unauthorized", "URITooLong"):
                    raise QueryError(f"{self.endpoint} refused the query: {last_error}") from None
            if attempt < self.max_retries:
                log.warning(
                    "query to %s failed (%s); retry %d/%d in %.1f s",
                    self.endpoint,
                    last_error,
                    attempt,
                    self.max_retries - 1,
                    wait,
                )
                self.sleep(wait)
        raise QueryError(
            f"query to {self.endpoint} failed {self.max_retries} times; last: {last_error}. "
            "Check that the endpoint is reachable, or replay recorded results with the cache."
        )


class _BadBody(Exception):
    pass


def _parse_bindings(body: bytes) -> list[dict[str, str]]:
    try:
        document = json.loads(body)
        variables = document["head"]["vars"]
        bindings = document["results"]["bindings"]
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as exc:
        raise _BadBody(f"{type(exc).__name__} after {len(body)} bytes") from None
    return [{v: row[v]["value"] for v in variables if v in row} for row in bindings]


def _retry_after(header: str | None, default: float) -> float:
    if not header:
        return default
    with contextlib.suppress(ValueError):
        return max(0.0, float(header))
    with contextlib.suppress(TypeError, ValueError):
        when = email.utils.parsedate_to_datetime(header)
        return max(0.0, when.timestamp() - time.time())
    return default


def query_log(client: SparqlClient) -> list[dict]:
    """The client's queries as plain records (for manifests)."""
    return [asdict(record) for record in client.log]
