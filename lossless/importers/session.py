"""The HTTP session of `lossless import` (NetBox through pynetbox, Nautobot's GraphQL): every
answer of a source of truth comes in here, and what an answer can make lossless do is
bounded here, once for both.

* The token goes only to --url's scheme, host and port (its origin). A request anywhere else
  is refused before it is sent, so a redirect to another host, port or scheme (http:// for
  https://) stops the import with a message naming where it led; a NetBox page's `next` link
  is followed on the origin (netbox.py). The token is also scrubbed from every message
  (deploy/credentials.py `scrub`, which the CLI's error line goes through): a 400 answer
  quoting the request's headers does not print it.
* Every request has a deadline: connecting, the headers and the whole body within --timeout
  seconds (urllib3's own timeout is the longest wait for one packet: a server sending a byte
  every second would hold it forever). A request past its deadline is a Timeout, retried as
  one.
* Connection errors, timeouts, 429 and 5xx are retried with exponential backoff (honouring
  Retry-After, bounded). Only reads are sent (GET, and Nautobot's GraphQL query POST), so a
  retry changes nothing.
* An answer is read up to MAX_ANSWER_BYTES, counted after decompression (a small gzip answer
  can expand a thousandfold); a larger one is refused.
* Its JSON is read by text/json_read.py: nesting too deep or an integer too long to read is a
  message naming the answer, never a traceback.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests
from requests.adapters import HTTPAdapter
from requests.utils import guess_json_utf

from lossless.deploy.credentials import remember_secret
from lossless.errors import UsageError
from lossless.system.files import MAX_INPUT_BYTES
from lossless.text.json_read import UnreadableJSON, loads

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 60.0
# The largest answer read: a page of 1,000 NetBox interfaces is about 3 MiB; input files are
# capped at the same
MAX_ANSWER_BYTES = MAX_INPUT_BYTES
MAX_PAGES = 1000  # pages of one list: a server that never ends a list is refused
CHUNK_BYTES = 64 * 1024  # an answer is read (and decompressed) this much at a time

Origin = tuple[str, str, int]


def origin(url: str) -> Origin | None:
    """(scheme, host, port) of a URL, the port filled in for http and https; None for a URL
    that does not parse."""
    try:
        parts = urlsplit(url)
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower(), 0)
    except ValueError:  # a port that is not a number
        return None
    return parts.scheme.lower(), (parts.hostname or "").lower(), port


class DeadlineExceeded(requests.Timeout):
    """No whole answer within the deadline (retried as any timeout)."""


class ImportSession(requests.Session):
    """A requests session bound to one server (`bind`) before it sends anything."""

    def __init__(self, adapter: _Adapter):
        super().__init__()
        self.adapter = adapter
        self.mount("https://", adapter)
        self.mount("http://", adapter)
        self.base = ""
        self.origin: Origin | None = None

    def bind(self, source: str, base: str, token: str) -> None:
        """Send to `base`'s origin only, and scrub `token` from every message from now on.
        source: "NetBox", "Nautobot", as messages name the server."""
        remember_secret(token)
        self.base, self.origin = base, origin(base)
        self.adapter.server = f"{source} at {base}"

    def on_origin(self, url: str) -> str:
        """url with --url's scheme, host and port (its path and query kept)."""
        base, parts = urlsplit(self.base), urlsplit(url)
        return urlunsplit((base.scheme, base.netloc, parts.path, parts.query, ""))

    def send(self, request: Any, **kwargs: Any) -> Any:
        # requests sends each hop of a redirect through here too
        if self.origin is None:
            raise RuntimeError("an ImportSession sends nothing before bind()")
        if origin(request.url) != self.origin:
            where = urlsplit(request.url)
            raise UsageError(
                f"{self.adapter.server} sent lossless to {where.scheme}://{where.netloc}: the "
                "token goes only to --url's scheme, host and port; give --url the address "
                "the server answers at"
            )
        return super().send(request, **kwargs)


class _Answer(requests.Response):
    """A response whose JSON is read as JSON from outside: the caller gets the data, a
    JSONDecodeError for text that is not JSON (pynetbox and the readers say so), or a usage
    error naming the answer for JSON Python will not read."""

    server = "the server"

    def json(self, **kwargs: Any) -> Any:
        try:
            text = self.content.decode(self.encoding or guess_json_utf(self.content) or "utf-8")
        except (UnicodeDecodeError, LookupError):  # LookupError: a charset Python lacks
            raise json.JSONDecodeError("not text in a known encoding", "", 0) from None
        try:
            return loads(text)
        except UnreadableJSON as error:
            raise UsageError(
                f"{self.server}: its answer to {urlsplit(self.url).path} cannot be read: "
                f"{error.reason} (line {error.line}, column {error.column})"
            ) from None


class _Adapter(HTTPAdapter):
    def __init__(
        self, timeout: float, retries: int, backoff: float, sleep: Callable[[float], None]
    ):
        super().__init__()
        self.timeout, self.retries, self.backoff, self.sleep = timeout, retries, backoff, sleep
        self.server = "the server"

    def send(self, request: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                response = self._within_deadline(request, kwargs)
            except (requests.ConnectionError, requests.Timeout) as error:
                if last:
                    raise UsageError(self._unreachable(request, error)) from None
                self.sleep(self.backoff * 2**attempt)
                continue
            if response.status_code not in RETRY_STATUS or last:
                return response
            self.sleep(self._delay(response, attempt))
        raise AssertionError("unreachable")  # the last attempt returns or raises

    def _unreachable(self, request: Any, error: Exception) -> str:
        if isinstance(error, requests.Timeout):
            return (
                f"{self.server} sent no whole answer to {urlsplit(request.url).path} within "
                f"{self.timeout:g} s (--timeout)"
            )
        return f"cannot reach {self.server}: {type(error).__name__}"

    def _delay(self, response: Any, attempt: int) -> float:
        retry_after = response.headers.get("Retry-After", "")
        if retry_after.isdigit():
            return min(float(retry_after), MAX_RETRY_AFTER_S)
        return float(self.backoff * 2**attempt)

    def _within_deadline(self, request: Any, kwargs: dict[str, Any]) -> Any:
        """One attempt, read whole within the deadline. It runs in a thread of its own,
        waited for up to the deadline: a server can hold any step (the status line, a
        header, the body) one packet at a time, each inside urllib3's timeout. Past the
        deadline the socket is shut down, which ends the thread's read."""
        outcome: dict[str, Any] = {}
        done = threading.Event()

        def attempt() -> None:
            try:
                outcome["response"] = self._read_whole(request, kwargs, outcome)
            except BaseException as error:  # handed to the waiting thread
                outcome["error"] = error
            finally:
                done.set()

        threading.Thread(target=attempt, name="lossless-import-request", daemon=True).start()
        if not done.wait(self.timeout):
            streaming = outcome.get("streaming")
            if streaming is not None and hasattr(streaming.raw, "shutdown"):  # urllib3 2.3+
                with suppress(OSError, ValueError, RuntimeError):  # closed or released already
                    streaming.raw.shutdown()
            raise DeadlineExceeded(f"no whole answer within {self.timeout:g} s")
        if "error" in outcome:
            raise outcome["error"]
        return outcome["response"]

    def _read_whole(self, request: Any, kwargs: dict[str, Any], outcome: dict[str, Any]) -> Any:
        """The response with its body read, decompressed, up to MAX_ANSWER_BYTES."""
        kwargs = {**kwargs, "stream": True, "timeout": kwargs.get("timeout") or self.timeout}
        response = super().send(request, **kwargs)
        outcome["streaming"] = response
        chunks, size = [], 0
        for chunk in response.iter_content(CHUNK_BYTES):
            size += len(chunk)
            if size > MAX_ANSWER_BYTES:
                response.close()
                raise UsageError(
                    f"{self.server}: its answer to {urlsplit(request.url).path} is larger "
                    f"than {MAX_ANSWER_BYTES // 2**20} MiB"
                    + (" decompressed" if response.headers.get("Content-Encoding") else "")
                    + ": narrow the import with --filter, or lower --page-size"
                )
            chunks.append(chunk)
        response._content, response._content_consumed = b"".join(chunks), True
        return response

    def build_response(self, req: Any, resp: Any) -> Any:
        """requests' response, its json() ours (the same object, of our subclass)."""
        response = super().build_response(req, resp)
        response.__class__ = _Answer
        assert isinstance(response, _Answer)
        response.server = self.server
        return response


def http_session(
    timeout: float = 30.0,
    retries: int = 3,
    backoff: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
) -> ImportSession:
    return ImportSession(_Adapter(timeout, retries, backoff, sleep))
