"""Wikidata source: SPARQL 1.1 over HTTP (requests built by SPARQLWrapper), query service or local store.

Two real backends run the same query text:

* the public Wikidata Query Service (``https://query.wikidata.org/sparql``), and
* a local oxigraph store built from an N-Triples dump or slice (``.nt``, ``.nt.gz``,
  ``.nt.bz2``, ``.nt.zst``) with :func:`load_store` and served on 127.0.0.1 by :class:`OxigraphServer`
  (the ``oxigraph`` server from PyPI, started and stopped by probesmith).

Queries use standard SPARQL only — labels through ``rdfs:label`` with a language filter, aliases
through ``skos:altLabel`` — and a ``SERVICE`` clause is refused before it reaches a local store.
:class:`SparqlClient` keeps the query service's etiquette: a descriptive User-Agent with a
contact, one query at a time, a deadline per attempt (connect and read: an endpoint that drips
bytes is abandoned at it) and one per query across its retries, ``429``/``503`` with
``Retry-After`` honoured, bounded retries with backoff, and a body that does not parse treated as a
failed query (a local oxigraph answers ``200`` before a query fails and then cuts the body). An
answer is checked before it is used or cached: SPARQL JSON whose variables are the query's.
:class:`QueryCache` keeps results content-addressed by endpoint and query text, in ``record``,
``replay`` or ``refresh`` mode. Credentials in an endpoint URL (``user:pass@``, ``?access_token=``)
are used for the request only: what is logged, cached or raised shows the URL redacted.
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
import urllib.parse
import urllib.request
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from SPARQLWrapper import JSON, POST, SPARQLWrapper
from tqdm.auto import tqdm

from probesmith.builders.sources.dumps import DumpStream, checked_dump
from probesmith.errors import ProbesmithError, SourceError
from probesmith.redact import (
    redact_text,
    redact_url,
    scrub,
    url_identity,
    url_secrets,
    userinfo_credentials,
)
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
# first, the query service answers 500 with a Java TimeoutException. Only read in a body that is
# not an answer: a 200 that parses is data, whatever words its labels hold.
_TIMED_OUT = re.compile(rb"operation has been cancelled|TimeoutException|Query timeout", re.IGNORECASE)


class QueryError(ProbesmithError):
    """A SPARQL query failed for good: the endpoint, the query and the last error say why."""


class QueryTimeout(QueryError):
    """The endpoint gave up on a query at its time limit; asking again gives the same answer."""


class CacheMiss(QueryError):
    """Replay mode asked for a query that was never recorded."""


class CacheWriteError(SourceError):
    """The query cache folder cannot take a result (full disk, read-only): its name and the fix."""


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
                f"query {self.key(endpoint, query)[:12]} for {redact_url(endpoint)} is not in the cache "
                f"{self.folder} (replay mode); record it first with cache mode `record`."
            )
        return None

    def put(self, endpoint: str, query: str, bindings: list[dict]) -> None:
        """Store bindings atomically; a full or read-only cache folder is an error that names it."""
        if self.mode == "off":
            return
        path = self._path(self.key(endpoint, query))
        record = {"endpoint": redact_url(endpoint), "query": query, "bindings": bindings}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_bytes_atomic(path, json.dumps(record).encode())
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
                problem, fix = "is full", "free space there"
            elif exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
                problem, fix = "is not writable", "make it writable"
            else:
                raise
            raise CacheWriteError(
                f"the SPARQL query cache {self.folder} {problem} ({exc.strerror}) while recording a "
                f"query result; nothing is wrong with --out. Fix: {fix}, point `wikidata.cache` at "
                "another folder, or set `wikidata.cache_mode: off`."
            ) from None


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
    """SPARQL SELECT over HTTP, with etiquette, deadlines, retries, checked answers and a cache.

    ``timeout`` bounds one attempt (connect and the whole answer); ``deadline`` bounds a query
    with its retries and waits (default: ``timeout`` x ``max_retries`` + 60 s).
    """

    endpoint: str
    user_agent: str = DEFAULT_USER_AGENT
    timeout: float = 60.0
    max_retries: int = 5
    deadline: float | None = None
    backoff: float = 2.0
    max_wait: float = 300.0
    cache: QueryCache | None = None
    cache_endpoint: str | None = None  # the cache key's endpoint, when the URL is not stable
    log: list[QueryRecord] = field(default_factory=list)
    known: dict[str, str] = field(default_factory=dict)  # what a build learnt of the source, asked once
    # each entity's classes (P31) as wikidata_queries.classes_of has asked them, once per client (a build's)
    classes: dict[str, frozenset[str]] = field(default_factory=dict, repr=False, compare=False)
    # a bar (probesmith.progress) that counts the queries asked, cached or not; None: no bar
    progress_bar: Any = field(default=None, repr=False, compare=False)
    sleep = staticmethod(time.sleep)
    _lock = threading.Lock()  # one query at a time, across clients

    @property
    def shown_endpoint(self) -> str:
        """The endpoint as logs, errors and manifests show it: credentials masked."""
        return redact_url(self.endpoint)

    @property
    def recorded_endpoint(self) -> str:
        """The endpoint as the manifest's query list records it.

        A store served on a port of this machine goes by its stable identity (``cache_endpoint``,
        the dump's digest), since the port changes with every build; any other endpoint as
        :attr:`shown_endpoint`.
        """
        return self.cache_endpoint or self.shown_endpoint

    @property
    def overall_deadline(self) -> float:
        """Seconds one query may take with all its retries and waits."""
        return self.deadline if self.deadline is not None else self.timeout * self.max_retries + 60.0

    @property
    def is_local(self) -> bool:
        """Whether the endpoint is on this machine."""
        host = urllib.parse.urlsplit(self.endpoint).hostname or ""
        return bool(re.fullmatch(r"127\.\d+\.\d+\.\d+|localhost|::1", host))

    def select(self, query: str) -> list[dict[str, str]]:
        """Run a SELECT query; each row maps variable names to values (IRIs and literals as text)."""
        if _SERVICE.search(query):
            raise QueryError(
                "the query has a SERVICE clause; probesmith sends standard SPARQL 1.1 only "
                "(labels through rdfs:label, aliases through skos:altLabel), so that one query "
                "runs on the query service and on a local store alike. Remove the SERVICE clause."
            )
        cache_key = self.cache_endpoint or url_identity(self.endpoint)
        digest = QueryCache.key(cache_key, query)
        if self.cache is not None:
            cached = self.cache.get(cache_key, query)
            if cached is not None:
                self.log.append(QueryRecord(self.recorded_endpoint, digest, len(cached), 0.0, True))
                if self.progress_bar is not None:
                    self.progress_bar.update()
                return cached
        started = time.perf_counter()
        with self._lock:
            rows = self._select_with_retries(query)
        seconds = time.perf_counter() - started
        self.log.append(QueryRecord(self.recorded_endpoint, digest, len(rows), round(seconds, 3), False))
        if self.progress_bar is not None:
            self.progress_bar.update()
        log.debug(  # one line per query: `probesmith -v`; the manifest's "queries" lists them all
            "queried %s: %d rows in %.2f s (query %s)", self.shown_endpoint, len(rows), seconds, digest[:12]
        )
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
        """Ask until an answer parses, within ``timeout`` per attempt and ``deadline`` in all."""
        projected = projected_variables(query)
        overall = time.monotonic() + self.overall_deadline
        last_error = ""
        attempt = 0
        for attempt in range(1, self.max_retries + 1):  # noqa: B007 (the count is reported)
            wait = min(self.max_wait, self.backoff**attempt)
            remaining = overall - time.monotonic()
            try:
                status, body = self._post(query, min(self.timeout, max(0.1, remaining)))
                return _checked_bindings(body, projected, self.shown_endpoint)
            except _HttpFailure as failure:
                last_error = f"HTTP {failure.status}"
                excerpt = _excerpt(failure.body, self.endpoint)
                if failure.status in (500, 503, 504) and _TIMED_OUT.search(failure.body[-4000:]):
                    raise QueryTimeout(
                        f"{self.shown_endpoint} stopped the query at its time limit (HTTP {failure.status})"
                    ) from None
                if failure.status in (429, 503):
                    wait = min(self.max_wait, _retry_after(failure.retry_after, wait))
                    last_error += f" (Retry-After {failure.retry_after})"
                elif failure.status == 403 and _USER_AGENT_POLICY.search(failure.body):
                    raise QueryError(
                        f"{self.shown_endpoint} refused the query under its User-Agent policy (HTTP 403: "
                        f"{excerpt}); the User-Agent sent was {self.user_agent!r}. Set "
                        "`wikidata.user_agent` in the spec to a descriptive one with your contact, e.g. "
                        "'my-project/1.0 (you@example.org)'."
                    ) from None
                elif failure.status in (401, 403):
                    raise QueryError(
                        f"{self.shown_endpoint} refused the query: HTTP {failure.status} "
                        f"({excerpt}). Check the endpoint's credentials and access rules."
                    ) from None
                elif 400 <= failure.status < 500:
                    raise QueryError(
                        f"{self.shown_endpoint} refused the query: HTTP {failure.status}: {excerpt}"
                    ) from None
            except _BadBody as exc:
                if _TIMED_OUT.search(exc.body[-2000:]):  # oxigraph cuts a 200 body with its verdict
                    raise QueryTimeout(
                        f"{self.shown_endpoint} cancelled the query at its time limit"
                    ) from None
                last_error = f"a response body that does not parse ({exc})"
            except _DeadlinePassed as exc:
                last_error = str(exc)
            except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
                last_error = redact_text(f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}")
            if attempt < self.max_retries:
                if time.monotonic() + wait >= overall:
                    raise QueryError(
                        f"query to {self.shown_endpoint} gave up after {attempt} attempt(s): the next "
                        f"retry would pass the query's overall deadline of {self.overall_deadline:.0f} s; "
                        f"last: {last_error}. Check that the endpoint is reachable and answering, or "
                        "replay recorded results with the cache."
                    )
                log.warning(
                    "query to %s failed (%s); retry %d/%d in %.1f s",
                    self.shown_endpoint,
                    last_error,
                    attempt,
                    self.max_retries - 1,
                    wait,
                )
                self.sleep(wait)
        raise QueryError(
            f"query to {self.shown_endpoint} failed {attempt} times; last: {last_error}. "
            "Check that the endpoint is reachable, or replay recorded results with the cache."
        )

    def _post(self, query: str, timeout: float) -> tuple[int, bytes]:
        """POST the query; the whole exchange (connect, headers, body) ends within ``timeout`` s.

        The socket's timeout is cut to what is left before each read, so an endpoint that drips a
        byte at a time is abandoned at the deadline, not one socket timeout per byte later.
        """
        deadline = time.monotonic() + timeout
        request = _sparql_request(self.endpoint, query, self.user_agent)
        watchdog = _Watchdog(deadline)
        try:
            try:
                response = _opener(watchdog).open(request, timeout=timeout)
            except urllib.error.HTTPError as exc:
                with exc:
                    body = _read_within(exc, deadline, watchdog, limit=64_000)
                raise _HttpFailure(exc.code, body, exc.headers.get("Retry-After")) from None
            with response:
                body = _read_within(response, deadline, watchdog)
                return response.status, body
        except (TimeoutError, OSError) as exc:
            if watchdog.fired or time.monotonic() >= deadline:
                raise _DeadlinePassed(
                    f"no complete answer within the {timeout:.0f} s per-query timeout"
                ) from None
            raise exc
        finally:
            watchdog.cancel()


def _sparql_request(endpoint: str, query: str, user_agent: str) -> urllib.request.Request:
    """The SPARQL protocol request SPARQLWrapper would send (POST, JSON results, Basic credentials).

    SPARQLWrapper builds it; we send it ourselves, because its ``query()`` bounds each socket read,
    not the exchange (an endpoint dripping a byte per read holds it for ever).
    """
    url, credentials = userinfo_credentials(endpoint)
    wrapper = SPARQLWrapper(url, agent=user_agent)
    wrapper.setMethod(POST)
    wrapper.setReturnFormat(JSON)
    wrapper.setQuery(query)
    if credentials is not None:
        wrapper.setCredentials(*credentials)
    return wrapper._createRequest()


class _Watchdog:
    """Shuts a response's socket down at a deadline, whatever a blocked read is waiting for."""

    def __init__(self, deadline: float):
        self.deadline, self.fired, self.sock = deadline, False, None
        self._timer: threading.Timer | None = None

    def arm(self, sock: socket.socket | None) -> None:
        if sock is None or self._timer is not None:
            return
        self.sock = sock
        self._timer = threading.Timer(max(0.0, self.deadline - time.monotonic()), self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        self.fired = True
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


def _opener(watchdog: _Watchdog) -> urllib.request.OpenerDirector:
    """A urllib opener whose connections hand their socket to ``watchdog`` once connected.

    So the deadline also bounds the wait for the status line and headers (an endpoint may drip
    those), not only the body.
    """

    def connection(base: type[http.client.HTTPConnection]):
        def make(*args, **kwargs):
            conn = base(*args, **kwargs)
            connect = conn.connect

            def connect_and_arm() -> None:
                connect()
                watchdog.arm(conn.sock)

            conn.connect = connect_and_arm
            return conn

        return make

    class Http(urllib.request.HTTPHandler):
        def http_open(self, req):
            return self.do_open(connection(http.client.HTTPConnection), req)

    class Https(urllib.request.HTTPSHandler):
        def https_open(self, req):
            return self.do_open(connection(http.client.HTTPSConnection), req, context=self._context)

    return urllib.request.build_opener(Http(), Https())


def _response_socket(response) -> socket.socket | None:
    raw = getattr(getattr(response, "fp", None), "raw", None)
    return getattr(raw, "_sock", None)


def _read_within(response, deadline: float, watchdog: _Watchdog, limit: int | None = None) -> bytes:
    sock = _response_socket(response)
    watchdog.arm(sock)
    chunks, size = [], 0
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("deadline")
        if sock is not None:
            sock.settimeout(remaining)
        chunk = response.read1(65536) if hasattr(response, "read1") else response.read(65536)
        if not chunk:
            if watchdog.fired:  # the socket was shut at the deadline: not the end of the answer
                raise TimeoutError("deadline")
            if getattr(response, "length", None):  # fewer bytes than Content-Length promised
                raise http.client.IncompleteRead(b"".join(chunks), response.length)
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if limit is not None and size >= limit:
            return b"".join(chunks)


class _HttpFailure(Exception):
    def __init__(self, status: int, body: bytes, retry_after: str | None):
        super().__init__(status)
        self.status, self.body, self.retry_after = status, body, retry_after


class _DeadlinePassed(Exception):
    pass


class _BadBody(Exception):
    def __init__(self, message: str, body: bytes = b""):
        super().__init__(message)
        self.body = body


class AnswerMismatch(QueryError):
    """An answer that parses but does not answer the query (other variables): never cached."""


_USER_AGENT_POLICY = re.compile(rb"user.?agent|robot policy", re.IGNORECASE)


def _excerpt(body: bytes, endpoint: str, size: int = 300) -> str:
    """The start of an error body, without the endpoint's secrets (a body may echo the token)."""
    return scrub(body[:size].decode("utf-8", errors="replace").strip(), url_secrets(endpoint))


def projected_variables(query: str) -> frozenset[str] | None:
    """The variables a SELECT query projects; None for ``SELECT *`` or a query not understood."""
    text = re.sub(r"#[^\n]*", "", query)
    match = re.search(
        r"\bSELECT\s+(?:DISTINCT\s+|REDUCED\s+)?(.*?)(?:\bWHERE\b|\{|\bFROM\b)", text, re.I | re.S
    )
    if match is None or match.group(1).strip().startswith("*"):
        return None
    projection = match.group(1)
    names = set(re.findall(r"\bAS\s+[?$](\w+)\s*\)", projection, re.I))
    while True:
        reduced = re.sub(r"\([^()]*\)", " ", projection)
        if reduced == projection:
            break
        projection = reduced
    names |= set(re.findall(r"[?$](\w+)", projection))
    return frozenset(names) or None


def _checked_bindings(body: bytes, projected: frozenset[str] | None, endpoint: str) -> list[dict[str, str]]:
    """An answer's rows, once it is SPARQL JSON that answers the query; else an error."""
    try:
        document = json.loads(body)
        variables = document["head"]["vars"]
        bindings = document["results"]["bindings"]
        if not isinstance(variables, list) or not isinstance(bindings, list):
            raise TypeError("head.vars and results.bindings must be lists")
        rows = [{v: row[v]["value"] for v in variables if v in row} for row in bindings]
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise _BadBody(f"{type(exc).__name__} after {len(body)} bytes", body) from None
    if not all(isinstance(value, str) for row in rows for value in row.values()):
        raise _BadBody("a binding whose value is not text", body)
    if projected is not None and set(variables) != projected:
        raise AnswerMismatch(
            f"{endpoint} answered with the variables {sorted(variables)}, but the query asks for "
            f"{sorted(projected)}: the answer is not this query's (a proxy or cache in between?), so it "
            "was not used nor cached. Check the endpoint URL; the query is asked again next run."
        )
    return rows


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
