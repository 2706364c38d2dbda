"""Which state-changing requests come from the app's own pages (or from no page at all).

A page of another origin on the same machine (``http://127.0.0.1:OTHERPORT``,
``http://localhost:OTHERPORT``) can make the browser send a *simple* request without asking the
server first: a ``text/plain`` form POST, ``navigator.sendBeacon``, a ``no-cors`` fetch. The
reply is hidden from the page, but the request runs: it spent the user's API budget on
``/v1/chat/completions`` and regenerated kept chats. A host name check alone lets these through
(the host is ours, only the port differs). So for POST, PUT, PATCH and DELETE:

- ``Sec-Fetch-Site`` (sent by every current browser) must be ``same-origin`` or ``none`` (the
  user typed it); ``same-site`` (another port of the same host) and ``cross-site`` are refused.
- ``Origin``, when sent, must be the origin the request was addressed to: scheme, host and port
  of its ``Host`` header (a Host without a port, as a proxy on the default port sends it, is
  compared by name); ``null`` (a sandboxed frame, a ``data:`` page) is refused.
- A body must be JSON (``Content-Type: application/json``): the three types a page may send
  without asking (form, multipart, text) are refused with 415 even when empty, so a browser that
  sent no Origin still cannot reach the app with them.

Clients that are not browsers (the ``openai`` library, curl with ``-H 'Content-Type:
application/json'``, Open WebUI's and SillyTavern's servers) send neither ``Origin`` nor
``Sec-Fetch-Site`` and are not affected.
"""

from __future__ import annotations

import re
from typing import Any

#: What a page may send cross-origin without a preflight (the Fetch standard's safelisted types).
_SIMPLE_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data", "text/plain")
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
_ORIGIN = re.compile(r"^(?P<scheme>https?)://(?P<host>\[[0-9a-f:.%]+\]|[^\[\]:/?#@\s]+)(?::(?P<port>[0-9]{1,5}))?/?$")
_HOST = re.compile(r"^(?P<host>\[[0-9a-f:.%]+\]|[^\[\]:/?#@\s]+)(?::(?P<port>[0-9]{1,5}))?$")

#: Shown with every refusal: what a legitimate client does instead.
HINT = ("this server takes changes only from its own pages and from clients that are not browsers "
        "(the openai library, curl, a front end's server)")


def _origin_parts(origin: str) -> tuple[str, str, int] | None:
    match = _ORIGIN.match(origin.strip().lower())
    if match is None:
        return None
    scheme = match.group("scheme")
    port = int(match.group("port")) if match.group("port") else _DEFAULT_PORTS[scheme]
    return scheme, match.group("host"), port


def _host_parts(host: str) -> tuple[str, int | None] | None:
    match = _HOST.match(host.strip().lower())
    if match is None:
        return None
    return match.group("host"), int(match.group("port")) if match.group("port") else None


def same_origin(origin: str, host: str, scheme: str) -> bool:
    """True when the ``Origin`` header value names the origin a request with ``Host: host`` over
    ``scheme`` was addressed to."""
    seen = _origin_parts(origin)
    addressed = _host_parts(host)
    if seen is None or addressed is None:
        return False
    _, name, port = seen
    target_name, target_port = addressed
    if name != target_name:
        return False
    # No port in Host: a proxy on the default port forwards it, and may speak TLS to the browser.
    return target_port is None or port == target_port


def media_type(value: str | None) -> str:
    """The media type of a ``Content-Type`` value, lower case, without parameters."""
    return (value or "").split(";", 1)[0].strip().lower()


def _has_body(headers: dict[str, str]) -> bool:
    length = headers.get("content-length")
    if length is not None:
        return length.strip() not in ("", "0")
    return "transfer-encoding" in headers


def refusal(scope: dict[str, Any], headers: dict[str, str]) -> tuple[int, str] | None:
    """``(status, message)`` when a state-changing request must be refused, else None.
    ``headers``: the request's headers, names in lower case."""
    site = headers.get("sec-fetch-site", "").strip().lower()
    if site in ("cross-site", "same-site"):
        return 403, f"cross-origin request refused ({site}): {HINT}"
    origin = headers.get("origin")
    if origin is not None:
        scheme = str(scope.get("scheme", "http"))
        if origin.strip().lower() == "null" or not same_origin(origin, headers.get("host", ""), scheme):
            return 403, f"cross-origin request refused (a page of another origin): {HINT}"
    if scope.get("type") != "http":
        return None
    kind = media_type(headers.get("content-type"))
    if kind in _SIMPLE_TYPES or (_has_body(headers) and kind != "application/json"):
        shown = kind if kind and len(kind) <= 60 and kind.isprintable() else "none"
        return 415, f"a request body must be JSON, sent with Content-Type: application/json (got {shown})"
    return None


__all__ = ["HINT", "media_type", "refusal", "same_origin"]
