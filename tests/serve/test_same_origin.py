"""Which state-changing requests the app takes: only from its own origin (port included) or
from clients that are not browsers, and only JSON bodies. The browser itself is in
``test_serve_browser_cross_site.py``."""

from __future__ import annotations

import pytest

from incanon.serve.same_origin import refusal, same_origin


def _scope() -> dict:
    return {"type": "http", "scheme": "http", "method": "POST", "path": "/v1/chat/completions"}


@pytest.mark.parametrize(("origin", "host", "same"), [
    ("http://127.0.0.1:8765", "127.0.0.1:8765", True),
    ("http://127.0.0.1:9999", "127.0.0.1:8765", False),   # another port of the same host
    ("http://localhost:8765", "127.0.0.1:8765", False),   # another site
    ("http://localhost:8765", "localhost:8765", True),
    ("http://[::1]:8765", "[::1]:8765", True),
    ("http://127.0.0.1", "127.0.0.1:80", True),
    ("https://box.lan", "box.lan", True),                  # a proxy on the default port
    ("http://127.0.0.1:8765.evil.com", "127.0.0.1:8765", False),
    ("http://127.0.0.1:8765/x", "127.0.0.1:8765", False),
])
def test_same_origin_compares_scheme_host_and_port(origin, host, same):
    assert same_origin(origin, host, "http") is same


def test_a_client_that_is_no_browser_passes():
    assert refusal(_scope(), {"host": "127.0.0.1:8765", "content-type": "application/json",
                              "content-length": "10"}) is None
    # A POST with no body (regenerate) needs no type.
    assert refusal(_scope(), {"host": "127.0.0.1:8765"}) is None


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_fetch_metadata_of_another_site_or_port_is_refused(site):
    status, message = refusal(_scope(), {"host": "127.0.0.1:8765", "sec-fetch-site": site,
                                         "content-type": "application/json"})
    assert status == 403 and site in message


@pytest.mark.parametrize("kind", ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
                                  "multipart/form-data; boundary=x"])
def test_what_a_page_sends_without_asking_is_415_even_when_empty(kind):
    status, message = refusal(_scope(), {"host": "127.0.0.1:8765", "content-type": kind, "content-length": "0"})
    assert status == 415 and "application/json" in message


def test_a_body_without_a_type_is_415():
    status, _ = refusal(_scope(), {"host": "127.0.0.1:8765", "content-length": "12"})
    assert status == 415
