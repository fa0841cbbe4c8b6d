"""Issue 27, the network and its secrets: credentials in an endpoint URL never leave the process,
a query has deadlines, an answer is checked before it is cached, error bodies are read for what
they are, and a full cache disk is blamed on the cache.

The endpoints are real: the local oxigraph server, or a test-local ``http.server`` that plays the
misbehaving endpoint (dripping bytes, answering another query's variables, a 403 for the User-Agent).
"""

from __future__ import annotations

import errno
import json
import logging
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from probesmith.builders.sources.wikidata import (
    OxigraphServer,
    QueryCache,
    QueryError,
    QueryTimeout,
    SparqlClient,
    projected_variables,
)
from probesmith.cli import main
from probesmith.redact import redact_text, redact_url, url_identity, userinfo_credentials

from .conftest import FIXTURES

PASSWORD, TOKEN = "PASSW0RD-S3CRET", "T0KEN-S3CRET"
QUERY = "SELECT ?s WHERE { ?s ?p ?o }"


def answer(variables, rows):
    return json.dumps(
        {"head": {"vars": variables}, "results": {"bindings": rows}}, ensure_ascii=False
    ).encode()


RIGHT = answer(["s"], [{"s": {"type": "uri", "value": "http://www.wikidata.org/entity/Q1"}}])


# ---- redaction -----------------------------------------------------------------------------------


def test_redact_url_masks_userinfo_and_every_query_value_but_the_allow_listed():
    url = f"https://bob:{PASSWORD}@host.example:8443/sparql?access_token={TOKEN}&format=json&x=1#frag"
    shown = redact_url(url)
    assert shown == "https://***@host.example:8443/sparql?access_token=***&format=json&x=***#***"
    for key in ("token", "key", "apikey", "api_key", "password", "secret", "auth", "sig", "whatever"):
        assert TOKEN not in redact_url(f"http://h/q?{key}={TOKEN}")
    assert redact_url("https://query.wikidata.org/sparql") == "https://query.wikidata.org/sparql"
    assert redact_url("/some/store") == "/some/store"
    text = f"query to http://u:{PASSWORD}@h:1/q?token={TOKEN} failed ('http://h/x?k={TOKEN}')"
    assert PASSWORD not in redact_text(text) and TOKEN not in redact_text(text)
    assert "http://***@h:1/q?token=***" in redact_text(text)
    # the cache key's identity: no credentials, the rest of the query kept
    assert url_identity(f"http://u:{PASSWORD}@h/q?access_token={TOKEN}&dataset=a") == "http://h/q?dataset=a"
    bare, credentials = userinfo_credentials(f"http://bob:{PASSWORD}@h:1/q?access_token={TOKEN}")
    assert bare == f"http://h:1/q?access_token={TOKEN}" and credentials == ("bob", PASSWORD)


def files_holding(root, secrets: list[str]) -> list[str]:
    """Every file under ``root`` whose bytes hold one of ``secrets`` (as text or in base64)."""
    import base64

    needles = [s.encode() for s in secrets] + [base64.b64encode(f"bob:{PASSWORD}".encode())]
    return [
        str(path)
        for path in sorted(root.rglob("*"))
        if path.is_file() and any(needle in path.read_bytes() for needle in needles)
    ]


@pytest.mark.integration
def test_no_secret_of_the_endpoint_url_reaches_output_logs_or_the_hub(
    wikidata_store, tmp_path, tmp_path_factory, monkeypatch, caplog, capsys
):
    """Build with a URL that carries a password and a token, export it twice and publish it: the
    secrets are in no file under tmp_path (build, exports, cache, the uploaded repository), no
    printed line and no log record; the build itself reached the store (the URL was used)."""
    import huggingface_hub

    from .schemas.test_hub import RecordingHfApi

    hub = RecordingHfApi(tmp_path / "hub")
    monkeypatch.setattr(huggingface_hub, "HfApi", lambda *args, **kwargs: hub)
    caplog.set_level(logging.DEBUG)
    spec = tmp_path_factory.mktemp("spec-without-secrets") / "relations_secret.yaml"
    spec.write_text(
        f"include: {FIXTURES / 'relations_small.yaml'}\nwikidata:\n  cache: {tmp_path / 'cache'}\n"
    )
    with OxigraphServer(wikidata_store) as server:
        url = f"http://bob:{PASSWORD}@127.0.0.1:{server.port}/query?access_token={TOKEN}"
        build = tmp_path / "build"
        assert main(["build", "relations", "--spec", str(spec), "--wikidata", url, "--out", str(build)]) == 0
        # the second build replays from the cache, keyed without the credentials
        again = tmp_path / "again"
        assert main(["build", "relations", "--spec", str(spec), "--wikidata", url, "--out", str(again)]) == 0
        assert main(["build", "relations", "--spec", str(spec), "--wikidata", url, "--dry-run"]) == 0
    assert main(["export", "bear", str(build), "--out", str(tmp_path / "bear")]) == 0
    assert main(["export", "lm-eval", str(build), "--out", str(tmp_path / "lm-eval")]) == 0
    assert main(["publish", str(build), "--repo-id", "someone/relations", "--force"]) == 0
    manifest = json.loads((build / "manifest.json").read_text())
    shown = f"http://***@127.0.0.1:{server.port}/query?access_token=***"
    assert manifest["sources"]["wikidata"]["endpoint"] == shown
    assert manifest["spec"]["wikidata"]["source"] == shown
    assert manifest["tables"]["instances/test"]["rows"] > 0
    assert shown in (build / "README.md").read_text()
    assert (
        any(call[0] == "create_commit" for call in hub.calls)
        and (tmp_path / "hub" / "manifest.json").is_file()
    )
    assert list((tmp_path / "cache").rglob("*.json"))
    assert files_holding(tmp_path, [PASSWORD, TOKEN]) == []
    captured = capsys.readouterr()
    for secret in (PASSWORD, TOKEN):
        assert secret not in captured.out and secret not in captured.err
        assert not [r for r in caplog.records if secret in r.getMessage()]


@pytest.mark.integration
def test_an_error_message_shows_the_url_redacted(tmp_path, capsys):
    """A refused endpoint (nothing listens on port 9): the error line names it, without secrets."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        f"include: {FIXTURES / 'relations_small.yaml'}\nwikidata:\n  max_retries: 1\n  cache_mode: 'off'\n"
    )
    url = f"http://bob:{PASSWORD}@127.0.0.1:9/query?access_token={TOKEN}"
    code = main(
        ["-q", "build", "relations", "--spec", str(spec), "--wikidata", url, "--out", str(tmp_path / "o")]
    )
    err = capsys.readouterr().err
    assert code == 1 and "http://***@127.0.0.1:9/query?access_token=***" in err, err
    assert PASSWORD not in err and TOKEN not in err


# ---- misbehaving endpoints -----------------------------------------------------------------------


class Endpoint:
    """A local HTTP endpoint that runs one action per request (the last one repeats)."""

    def __init__(self, *actions):
        self.actions, self.requests = list(actions), []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                endpoint.requests.append(dict(self.headers))
                action = endpoint.actions.pop(0) if len(endpoint.actions) > 1 else endpoint.actions[0]
                action(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/sparql"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoint():
    started = []

    def start(*actions):
        started.append(Endpoint(*actions))
        return started[-1]

    yield start
    for server in started:
        server.close()


def respond(status: int, body: bytes, **headers):
    def action(handler):
        handler.send_response(status)
        for name, value in headers.items():
            handler.send_header(name.replace("_", "-"), value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return action


def drip(handler):
    """Headers at once, then one byte of a valid answer every 2 s (each read alone is 'alive')."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/sparql-results+json")
    handler.send_header("Content-Length", str(len(RIGHT)))
    handler.end_headers()
    try:
        for byte in RIGHT:
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
            time.sleep(2)
    except OSError:
        pass  # the client hung up: what we want


def client(url, **options):
    return SparqlClient(url, user_agent="probesmith-test (test@example.org)", backoff=1.1, **options)


def test_retries_stop_at_the_query_overall_deadline(endpoint):
    """Three attempts of 2 s would take > 6 s; the overall deadline of 5 s stops them earlier."""
    server = endpoint(drip)
    c = client(server.url, timeout=2, max_retries=3, deadline=5)
    started = time.monotonic()
    with pytest.raises(QueryError, match="overall deadline of 5 s"):
        c.select(QUERY)
    assert time.monotonic() - started < 5 + 1.5
    assert len(server.requests) == 2


def test_an_answer_with_other_variables_is_an_error_and_not_cached(endpoint, tmp_path):
    wrong = answer(["x"], [{"x": {"type": "literal", "value": "stale"}}])
    server = endpoint(respond(200, wrong), respond(200, RIGHT))
    cache = QueryCache(tmp_path / "cache", "record")
    with pytest.raises(QueryError, match=r"variables \['x'\].*asks for \['s'\].*not used nor cached"):
        client(server.url, cache=cache).select(QUERY)
    assert not list((tmp_path / "cache").rglob("*.json"))
    # the endpoint is fixed: the query is asked again, answered and cached
    assert client(server.url, cache=cache).select(QUERY) == [{"s": "http://www.wikidata.org/entity/Q1"}]
    assert len(server.requests) == 2 and len(list((tmp_path / "cache").rglob("*.json"))) == 1


def test_an_answer_that_is_not_sparql_json_is_retried_not_cached(endpoint, tmp_path):
    server = endpoint(respond(200, b'{"head": {"vars": ["s"]}, "results": 3}'), respond(200, RIGHT))
    cache = QueryCache(tmp_path / "cache", "record")
    assert client(server.url, cache=cache).select(QUERY) == [{"s": "http://www.wikidata.org/entity/Q1"}]
    assert len(server.requests) == 2


def test_projected_variables():
    assert projected_variables("PREFIX a: <x>\nSELECT DISTINCT ?s ?o WHERE { ?s ?p ?o }") == {"s", "o"}
    assert projected_variables("SELECT (COUNT(*) AS ?n) ?g WHERE { ?s ?p ?g } GROUP BY ?g") == {"n", "g"}
    assert projected_variables("SELECT * WHERE { ?s ?p ?o }") is None


def test_query_timeout_as_data_is_data(endpoint):
    """A label that reads "Query timeout" is a value, not the endpoint giving up."""
    body = answer(["s"], [{"s": {"type": "literal", "value": "Query timeout (a 1999 film)"}}])
    server = endpoint(respond(200, body))
    assert client(server.url).select(QUERY) == [{"s": "Query timeout (a 1999 film)"}]


def test_the_query_services_timeout_is_still_a_timeout(endpoint):
    server = endpoint(respond(500, b"java.util.concurrent.TimeoutException\n\tat java.util..."))
    c = client(server.url)
    c.sleep = lambda seconds: pytest.fail("a timeout must not be retried")
    with pytest.raises(QueryTimeout, match="time limit"):
        c.select(QUERY)


def test_a_403_for_the_user_agent_names_the_policy_and_the_fix_at_once(endpoint):
    """Wikimedia's answer to a missing or generic User-Agent: one request, no retries."""
    body = b"Please set a user-agent and respect our robot policy https://w.wiki/4wJS."
    server = endpoint(respond(403, body))
    c = client(server.url, max_retries=5)
    c.sleep = lambda seconds: pytest.fail("a policy refusal must not be retried")
    started = time.monotonic()
    with pytest.raises(QueryError, match=r"User-Agent policy.*wikidata.user_agent") as error:
        c.select(QUERY)
    assert time.monotonic() - started < 2 and len(server.requests) == 1
    assert "reachable" not in str(error.value)


def test_a_full_cache_disk_blames_the_cache_folder_not_out(endpoint, tmp_path, monkeypatch):
    import probesmith.builders.sources.wikidata as wikidata

    def full_disk(path, data):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(wikidata, "write_bytes_atomic", full_disk)
    server = endpoint(respond(200, RIGHT))
    cache_folder = tmp_path / "my-cache"
    with pytest.raises(wikidata.CacheWriteError) as error:
        client(server.url, cache=QueryCache(cache_folder, "record")).select(QUERY)
    message = str(error.value)
    assert str(cache_folder) in message and "is full" in message
    assert "free space" in message and "cache_mode: off" in message


@pytest.mark.integration
def test_a_full_cache_disk_through_the_cli(wikidata_store, tmp_path, monkeypatch, capsys):
    """The same through `probesmith build` from the real store: one line, exit 1, naming the
    cache folder and the fix, not --out; nothing written."""
    import probesmith.builders.sources.wikidata as wikidata

    def full_disk(path, data):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(wikidata, "write_bytes_atomic", full_disk)
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"include: {FIXTURES / 'relations_small.yaml'}\nwikidata:\n  cache: {tmp_path / 'c'}\n")
    out = tmp_path / "out"
    with OxigraphServer(wikidata_store) as server:
        argv = [
            "-q",
            "build",
            "relations",
            "--spec",
            str(spec),
            "--wikidata",
            server.endpoint,
            "--out",
            str(out),
        ]
        code = main(argv)
    err = capsys.readouterr().err
    assert code == 1 and err.count("probesmith: error:") == 1, err
    assert f"query cache {tmp_path / 'c'} is full" in err and "cache_mode: off" in err
    assert "nothing is wrong with --out" in err
    assert not out.exists()


def test_an_error_body_that_echoes_the_token_is_scrubbed(endpoint, caplog):
    server = endpoint(respond(401, f"invalid access_token {TOKEN} for user bob".encode()))
    url = server.url.replace("http://", f"http://bob:{PASSWORD}@") + f"?access_token={TOKEN}"
    with pytest.raises(QueryError, match=r"HTTP 401 .*credentials") as error:
        client(url).select(QUERY)
    assert TOKEN not in str(error.value) and PASSWORD not in str(error.value)
    assert "access_token=***" in str(error.value) and len(server.requests) == 1
    # the request carried them: basic auth from the userinfo, the token in the query string
    assert server.requests[0]["Authorization"].startswith("Basic ")


def drip_headers(handler):
    """The status line, then one byte of a header every second: no read ever waits 2 s."""
    try:
        handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
        for byte in b"X-Slow: " + b"a" * 60 + b"\r\n":
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
            time.sleep(1)
    except OSError:
        pass


@pytest.mark.parametrize("handler", [drip, drip_headers], ids=["body", "headers"])
def test_an_endpoint_that_drips_is_abandoned_at_the_timeout(endpoint, handler):
    """One byte every 2 s, in the body or in the headers: the attempt ends at its 2 s deadline."""
    server = endpoint(handler)
    started = time.monotonic()
    with pytest.raises(QueryError, match=r"failed 1 times.*within the 2 s"):
        client(server.url, timeout=2, max_retries=1).select(QUERY)
    assert time.monotonic() - started < 2 + 1.5


# ---- the bad-input matrix's check, on the network rows -------------------------------------------


@pytest.mark.integration
@pytest.mark.parametrize(
    "status, body, words",
    [
        (
            403,
            b"Please set a user-agent and respect our robot policy https://w.wiki/4wJS.",
            "User-Agent policy",
        ),
        (401, f"bad access_token {TOKEN}".encode(), "credentials"),
        (400, b"Parse error: the query is not SPARQL", "refused the query: HTTP 400"),
    ],
    ids=["user-agent-403", "unauthorized-401", "bad-query-400"],
)
def test_a_refusing_endpoint_gets_one_clear_line_and_changes_nothing(
    status, body, words, endpoint, tmp_path, request, capsys, monkeypatch
):
    """`build relations --wikidata URL` against an endpoint that refuses: exit 1 at once, one line
    naming the refusal and the fix, no secret, every file as it was (the matrix's row check)."""
    from .test_bad_inputs import check_row

    server = endpoint(respond(status, body))
    url = server.url.replace("http://", f"http://bob:{PASSWORD}@") + f"?access_token={TOKEN}"

    def prepare(scratch):
        mine = scratch.user_folder()
        spec = scratch.file(
            "spec.yaml", f"include: {FIXTURES / 'relations_small.yaml'}\nwikidata:\n  cache_mode: 'off'\n"
        )
        return ["build", "relations", "--spec", str(spec), "--wikidata", url, "--out", str(mine / "build")]

    started = time.monotonic()
    check_row(1, words, prepare, tmp_path, request, capsys, monkeypatch)
    assert time.monotonic() - started < 20 and len(server.requests) == 1  # no retries into a refusal
