"""``incanon doctor`` probes endpoints without printing their credentials."""

from __future__ import annotations

import socket

from incanon.doctor import endpoint_check


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_password_in_the_endpoint_url_is_not_shown():
    check = endpoint_check(f"http://user:PASSWORD@127.0.0.1:{_closed_port()}/v1")
    shown = " ".join([check.name, check.detail, check.fix])
    assert "PASSWORD" not in shown
    assert "127.0.0.1" in check.name and not check.ok
