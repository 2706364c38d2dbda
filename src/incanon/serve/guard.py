"""The web app's door: which requests reach it at all.

``incanon serve`` has no login; it is safe because it listens on loopback. That alone does not
stop a web page the user visits from reaching it: with DNS rebinding, ``evil.example`` resolves
to 127.0.0.1 and the page's scripts talk to the app under their own host name. So:

- **Host**: only the names the app is bound to (``127.0.0.1``, ``localhost``, ``[::1]``, the
  ``--host`` given, and any ``--allow-host``) are answered; others get 421.
- **Origin**: a request that changes state (POST, PUT, PATCH, DELETE) from a browser page must
  come from the app's own origin, port included (``Origin`` / ``Sec-Fetch-Site``); others get
  403, and a body that is not JSON gets 415 (:mod:`incanon.serve.same_origin`). Clients that
  send no Origin (curl, the ``openai`` client) are not browsers and pass.
- **Body size**: bodies over ``max_body`` bytes get 413, whether or not they declare a length;
  nothing of them is echoed back.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterable
from typing import Any, Awaitable, Callable

from incanon.serve.same_origin import HINT, refusal

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

DEFAULT_MAX_BODY = 1 << 20
"""1 MiB: a chat line is capped at 4,000 characters, nothing the app takes comes near it."""

_UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


# host[:port] with a decimal port, or [v6][:port]; anything after the port (``:80.evil.com``)
# or a port that is not a number makes the whole value unparseable, hence refused.
_HOST_PORT = re.compile(r"^(?:\[(?P<v6>[0-9a-f:.%]+)\]|(?P<name>[^\[\]:/@\s]+))(?::(?P<port>[0-9]{1,5}))?$")
_ORIGIN = re.compile(r"^(?P<scheme>https?)://(?P<hostport>[^/?#@\s]+)/?$")


def _hostname(value: str) -> str:
    """The host part of a Host header value or of an origin (no port, IPv6 unbracketed,
    lowercase); ``""`` when the value is not strictly ``host[:port]`` (or ``scheme://host[:port]``)
    so that a look-alike such as ``127.0.0.1:18765.evil.com`` matches no allowed name."""
    value = value.strip().lower()
    if "://" in value:
        origin = _ORIGIN.match(value)
        if origin is None:
            return ""
        value = origin.group("hostport")
    if value.count(":") > 1 and not value.startswith("["):
        return value if _is_bare_v6(value) else ""  # a bound address such as ``::1``
    match = _HOST_PORT.match(value)
    if match is None:
        return ""
    port = match.group("port")
    if port is not None and not 0 < int(port) < 65536:
        return ""
    return match.group("v6") or match.group("name") or ""


def _is_bare_v6(value: str) -> bool:
    try:
        ipaddress.IPv6Address(value)
    except ValueError:
        return False
    return True


def allowed_hosts(bound: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """Host names the app answers to when bound to ``bound``."""
    names = {*_LOOPBACK_NAMES, _hostname(bound), *(_hostname(h) for h in extra)}
    return frozenset(n for n in names if n and n not in {"0.0.0.0", "::"})


async def _reply(send: Send, status: int, message: str, scope: Scope | None = None) -> None:
    error: Any = message
    if scope is not None and str(scope.get("path", "")).startswith("/v1/"):
        # OpenAI's shape under /v1, so its clients show the message.
        error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    body = json.dumps({"error": error}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class RequestGuard:
    """ASGI middleware applying the checks of this module's docstring."""

    def __init__(self, app: ASGIApp, *, hosts: frozenset[str], max_body: int = DEFAULT_MAX_BODY):
        self.app = app
        self.hosts = hosts
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = _hostname(headers.get("host", ""))
        if host not in self.hosts:
            await _reply(send, 421, f"this server answers only to {', '.join(sorted(self.hosts))} "
                                    f"(start it with --allow-host NAME to add one)")
            return
        method = scope.get("method", "GET").upper()
        if method in _UNSAFE or scope["type"] == "websocket":
            origin = headers.get("origin")
            if origin is not None and (origin == "null" or _hostname(origin) not in self.hosts):
                await _reply(send, 403, f"cross-origin request refused: {HINT}", scope)
                return
            refused = refusal(scope, headers)
            if refused is not None:
                await _reply(send, *refused, scope)
                return
        declared = headers.get("content-length")
        if declared is not None:
            try:
                too_big = int(declared) > self.max_body
            except ValueError:
                await _reply(send, 400, "bad Content-Length")
                return
            if too_big:
                await _reply(send, 413, f"request body over {self.max_body:,} bytes")
                return
        if declared is None and scope["type"] == "http" and method in _UNSAFE:
            # No declared length (chunked upload): read it here, within the cap, and replay it;
            # an error raised inside the app's own body reading would come out as a 400.
            messages: list[dict[str, Any]] = []
            size = 0
            while True:
                message = await receive()
                messages.append(message)
                size += len(message.get("body", b""))
                if size > self.max_body:
                    await _reply(send, 413, f"request body over {self.max_body:,} bytes")
                    return
                if message.get("type") != "http.request" or not message.get("more_body"):
                    break

            async def replay() -> dict[str, Any]:
                return messages.pop(0) if messages else await receive()

            await self.app(scope, replay, send)
            return
        await self.app(scope, receive, send)
