"""The plain (not streamed) ``POST /chat/completions`` of :mod:`incanon.models.openai_compat`,
sent with aiohttp directly.

The openai SDK's request path (typed options copied per call, URL parsing, httpx request and
response objects over its transport) cost about three quarters of a call's client CPU; at 16
calls in flight that CPU is paid while the other replies wait, so it capped a 50 ms endpoint at
~75 % of c/L (``benchmarks/models.py --http-only``). This path sends the same request (the SDK
still serves streamed calls) and fails the same way: an HTTP status becomes the error the SDK's
would (``Error code: N - <the body's error message>``), a timeout or a failed connection a
retryable error, and no exception that holds the request (and so the ``Authorization`` header)
is chained to ours.
"""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any

from incanon.errors import ModelError
from incanon.models.faults import MalformedResponseError, RetryableError, parse_retry_after, scrub

try:
    import aiohttp
except ImportError:  # pragma: no cover - the openai aiohttp extra is a dependency
    aiohttp = None  # type: ignore[assignment]


def available() -> bool:
    """True when aiohttp is installed (else the SDK sends every call)."""
    return aiohttp is not None


class DirectPoster:
    """One aiohttp session (per event loop) posting JSON to ``<base_url>/chat/completions``."""

    def __init__(self, base_url: str, key: str, timeout: float) -> None:
        self.url = f"{base_url}/chat/completions"
        self.timeout = timeout
        # The SDK's headers that servers read: every call is the client's first attempt (the
        # retry wrapper retries with a new call, as it did through the SDK).
        self._headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json",
                         "Accept": "application/json", "User-Agent": _user_agent(),
                         "x-stainless-retry-count": "0"}
        self._session: Any = None
        self._proxy: Any = None
        self._proxy_auth: Any = None
        self._url: Any = self.url

    def _open(self) -> Any:
        from aiohttp.helpers import get_env_proxy_for_url
        from yarl import URL

        # A proxy from the environment (HTTPS_PROXY, NO_PROXY...) looked up once here: aiohttp's
        # trust_env looks it (and ~/.netrc) up in a worker thread on every request.
        try:
            self._proxy, self._proxy_auth = get_env_proxy_for_url(URL(self.url))
        except LookupError:
            self._proxy, self._proxy_auth = None, None
        connector = aiohttp.TCPConnector(limit=1000, ssl=_tls_context())
        self._url = URL(self.url)  # parsed once: aiohttp parses a string URL on every request
        return aiohttp.ClientSession(connector=connector, headers=self._headers,
                                     timeout=aiohttp.ClientTimeout(total=self.timeout))

    async def post(self, body: dict[str, Any], where: str, secret: str) -> Any:
        """The reply's JSON data; our error (key scrubbed) for anything else."""
        if self._session is None:
            self._session = self._open()
        error: ModelError | None = None
        try:
            async with self._session.post(self._url, data=json.dumps(body).encode(), proxy=self._proxy,
                                          proxy_auth=self._proxy_auth) as response:
                raw = await response.read()
                status, headers = response.status, response.headers
        except asyncio.TimeoutError:
            error = RetryableError(f"{where}: no reply within the {self.timeout:g}s timeout")
        except aiohttp.ClientError as exc:
            error = RetryableError(f"{where}: connection failed ({_cause(exc)})")
        if error is not None:
            raise error  # raised outside the except block: aiohttp's exception is not chained
        if status >= 400:
            raise status_error(status, headers, raw, where, secret)
        try:
            return json.loads(raw)
        except ValueError as exc:
            failed = MalformedResponseError(scrub(f"{where}: unreadable reply ({type(exc).__name__}: {exc})", secret))
        raise failed

    async def close(self) -> None:
        """Close the session (on the loop it was opened on)."""
        if self._session is not None:
            await self._session.close()
            self._session = None


@functools.lru_cache(maxsize=1)
def _tls_context() -> Any:
    """The SDK's own TLS settings (certifi, ``SSL_CERT_FILE``), made once per process: loading the
    certificates costs tens of milliseconds, and every model on every event loop opens a session.
    (One context serves any number of connections and threads.)"""
    import httpx2

    return httpx2.create_ssl_context()


def _user_agent() -> str:
    import openai

    return f"AsyncOpenAI/Python {openai.__version__}"


def _cause(exc: BaseException) -> str:
    # The names the httpx path gave: a refused or dropped connection reads the same either way.
    if isinstance(exc, (aiohttp.ClientConnectorError, aiohttp.ClientOSError)):
        return "ConnectError"
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "RemoteProtocolError"
    return type(exc).__name__


def status_error(status: int, headers: Any, raw: bytes, where: str, secret: str) -> ModelError:
    """The error for an HTTP error status, worded as with the SDK (its ``translate_error``)."""
    detail = ""
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    found = body.get("error", body) if isinstance(body, dict) else None
    message = found.get("message") if isinstance(found, dict) else None
    if isinstance(message, str) and message:
        detail = message  # as the SDK: only the body's error message, never the rest of it
    return http_error(status, headers, detail or f"Error code: {status}", where, secret)


def http_error(status: int, headers: Any, detail: str, where: str, secret: str) -> ModelError:
    """``HTTP N: detail`` (the key scrubbed): retryable for 408/409/429/5xx with the server's
    ``retry-after-ms`` / ``Retry-After``, else a plain model error (with a hint for 401/403)."""
    retry_after = None
    if headers.get("retry-after-ms"):
        ms = parse_retry_after(headers.get("retry-after-ms"))
        retry_after = None if ms is None else ms / 1000
    if retry_after is None:
        retry_after = parse_retry_after(headers.get("retry-after"))
    text = scrub(f"{where}: HTTP {status}: {detail}", secret)
    if status in (408, 409, 429) or status >= 500:
        return RetryableError(text, status=status, retry_after=retry_after)
    if status in (401, 403):
        text += " (check the API key and its environment variable)"
    return ModelError(text)
