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


def test_a_core_install_without_the_local_model_does_not_end_green(monkeypatch, tmp_path):
    """Before, doctor warned twice and ended "The embedded defaults work." (exit 0) on an install
    where chat, serve and demo all fail; now it says which commands fail and exits 1."""
    import os
    import sys

    from incanon.testing.cli import run_cli

    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # as if llama-cpp-python were not installed
    res = run_cli(["doctor", "--quick"], env=dict(os.environ, INCANON_HOME=str(tmp_path), COLUMNS="200"))
    assert res.returncode == 1, res.stdout
    assert "The embedded defaults work" not in res.stdout
    assert "embedded defaults" in res.stdout and "FAIL" in res.stdout
    for command in ("chat", "serve", "demo"):
        assert command in res.stdout
