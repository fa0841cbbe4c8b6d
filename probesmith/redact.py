"""Secrets in URLs never leave the process: what is logged, printed or written shows them masked.

An endpoint URL may carry credentials — ``https://user:pass@host/sparql`` or
``https://host/sparql?access_token=...`` — and probesmith writes its sources into logs, warnings,
error messages, ``manifest.json`` and the dataset card, which ``publish`` uploads. Everything shown
goes through :func:`redact_url` (one URL) or :func:`redact_text` / :func:`redact_data` (URLs inside
text or plain data); only the request itself uses the real URL.

The rule is an allow-list: userinfo becomes ``***`` and every query value is masked except those
of a few parameters known to carry no secret (``format``, ``output``, ...). A fragment is masked.
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Any

MASK = "***"
# query parameters whose values are shown: none of them can hold a credential
SHOWN_PARAMETERS = frozenset(
    {"format", "output", "timeout", "lang", "language", "default-graph-uri", "named-graph-uri", "debug"}
)
# parameters that are credentials by name: left out of anything derived from a URL (cache keys)
SECRET_PARAMETER = re.compile(
    r"token|key|secret|pass|pwd|auth|sig|session|cred|bearer|cookie|code|ticket", re.IGNORECASE
)
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`\\)\]}|]+")


def redact_url(url: str) -> str:
    """``url`` as it may be shown: userinfo as ``***``, query values masked but allow-listed ones.

    ``http://bob:pw@host:8000/q?access_token=T&format=json`` ->
    ``http://***@host:8000/q?access_token=***&format=json``. Text that is not a URL with a
    scheme and a host is returned unchanged.
    """
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return _mask_userinfo_crudely(url)
    if not parts.scheme or not parts.netloc:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        netloc = MASK + "@" + netloc.rpartition("@")[2]
    query = "&".join(_redact_parameter(pair) for pair in parts.query.split("&")) if parts.query else ""
    fragment = MASK if parts.fragment else ""
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def _redact_parameter(pair: str) -> str:
    name, equals, _value = pair.partition("=")
    if not equals:
        return pair if urllib.parse.unquote_plus(name).lower() in SHOWN_PARAMETERS else MASK
    if urllib.parse.unquote_plus(name).lower() in SHOWN_PARAMETERS:
        return pair
    return f"{name}={MASK}"


def _mask_userinfo_crudely(text: str) -> str:
    """For a URL ``urlsplit`` refuses (a bad port, brackets): mask userinfo and the whole query."""
    text = re.sub(r"(://)[^/?#]*@", r"\1" + MASK + "@", text)
    return re.sub(r"\?.*", "?" + MASK, text)


def redact_text(text: str) -> str:
    """``text`` with every URL in it redacted by :func:`redact_url` (for messages and logs)."""
    if "://" not in text:
        return text
    return _URL_IN_TEXT.sub(lambda match: redact_url(match.group(0)), text)


def redact_data(data: Any) -> Any:
    """A copy of plain data (dicts, lists, strings) with every URL in every string redacted."""
    if isinstance(data, str):
        return redact_text(data)
    if isinstance(data, dict):
        return {key: redact_data(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return type(data)(redact_data(value) for value in data)
    return data


def url_identity(url: str) -> str:
    """``url`` without what authenticates: no userinfo, no credential-named query parameter.

    Two URLs that reach the same data with other credentials have one identity, so a cache keyed
    by it survives a new token and no key is derived from a secret. Other query parameters (a
    dataset name) stay: they change the answer.
    """
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return redact_url(url)
    netloc = parts.netloc.rpartition("@")[2]
    kept = [
        pair
        for pair in parts.query.split("&")
        if pair and not SECRET_PARAMETER.search(urllib.parse.unquote_plus(pair.partition("=")[0]))
    ]
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "&".join(kept), ""))


def userinfo_credentials(url: str) -> tuple[str, tuple[str, str] | None]:
    """``url`` without its userinfo, and the (user, password) it carried (None without one).

    HTTP clients send userinfo as a basic ``Authorization`` header, not in the request line.
    """
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    bare = urllib.parse.urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    return bare, (urllib.parse.unquote(user), urllib.parse.unquote(password))


def url_secrets(url: str) -> list[str]:
    """The values :func:`redact_url` masks in ``url`` (password, user, masked query values), longest first.

    For text that may echo them outside a URL (an endpoint's error body: "invalid token ...").
    """
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return []
    found = set()
    if "@" in parts.netloc:
        user, _, password = parts.netloc.rpartition("@")[0].partition(":")
        found |= {user, password, urllib.parse.unquote(user), urllib.parse.unquote(password)}
    for pair in parts.query.split("&"):
        name, _, value = pair.partition("=")
        if urllib.parse.unquote_plus(name).lower() not in SHOWN_PARAMETERS:
            found |= {value, urllib.parse.unquote_plus(value)}
    if parts.fragment:
        found.add(parts.fragment)
    return sorted((s for s in found if len(s) >= 4), key=len, reverse=True)


def scrub(text: str, secrets: list[str]) -> str:
    """``text`` with its URLs redacted and every one of ``secrets`` replaced by ``***``."""
    text = redact_text(text)
    for secret in secrets:
        text = text.replace(secret, MASK)
    return text
