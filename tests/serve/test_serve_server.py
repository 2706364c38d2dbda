"""Serving the app: loopback by default, a warning elsewhere, clear errors for busy ports."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import httpx
import pytest

from incanon.errors import ConfigError
from incanon.models import load_chat_model
from incanon.serve import BackgroundServer, bind, is_loopback
from incanon.testing.cli import run_cli

from serve_helpers import character_model


@pytest.mark.parametrize("host,expected", [("127.0.0.1", True), ("localhost", True), ("::1", True),
                                           ("127.0.0.2", True), ("0.0.0.0", False), ("192.168.1.4", False)])
def test_loopback_hosts(host, expected):
    assert is_loopback(host) is expected


def test_a_busy_port_is_a_config_error_naming_it():
    first = bind("127.0.0.1", 0)
    try:
        port = first.getsockname()[1]
        with pytest.raises(ConfigError, match=f"port {port} on 127.0.0.1 is in use"):
            bind("127.0.0.1", port)
    finally:
        first.close()


def test_connections_of_the_bound_socket_send_without_delay():
    """With Nagle's algorithm on, every reply waited for the client's delayed ACK (~40 ms a
    request); asyncio switches it off only on sockets bound with proto IPPROTO_TCP."""
    import asyncio
    import socket

    async def nodelay_of_an_accepted_connection() -> int:
        accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            accepted.set_result(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(on_connect, sock=bind("127.0.0.1", 0))
        async with server:
            port = server.sockets[0].getsockname()[1]
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            value = await accepted
            writer.close()
        return value

    assert asyncio.run(nodelay_of_an_accepted_connection()) != 0


def test_background_server_answers_on_loopback(serve_config):
    with BackgroundServer(serve_config, model=load_chat_model(character_model())) as url:
        assert url.startswith("http://127.0.0.1:")
        info = httpx.get(url + "api/info", timeout=10).json()
        assert info["model"] == "scripted-character"
        chat = httpx.post(url + "api/chats", json={"character": "Wren", "at": "1-3"}, timeout=30).json()
        reply = httpx.post(url + f"api/chats/{chat['id']}/say", json={"line": "Tell me about the flood bell"},
                           timeout=30).json()
        assert reply["outcome"]["turn"]["text"].startswith("I heard the bell")


def _start(args, env):
    return subprocess.Popen([sys.executable, "-m", "incanon", "serve", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_url(proc, seconds=60.0) -> tuple[str, str]:
    seen = ""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        seen += line
        found = re.search(r"(http://\S+/)", line)
        if found:
            return found.group(1), seen
    raise AssertionError(f"no URL announced; stderr so far: {seen!r}")


def test_cli_serves_on_loopback_with_a_free_port(served, tmp_path):
    env = {**os.environ, "INCANON_HOME": str(tmp_path / "home")}
    proc = _start(["--store", str(served.canon), "--runs", str(served.runs_path), "--port", "0",
                   "--model", "scripted:missing.json"], env)
    try:
        url, said = _wait_for_url(proc)
        assert url.startswith("http://127.0.0.1:") and "warning" not in said
        runs = httpx.get(url + "api/runs", timeout=30).json()
        assert runs["total"] == 3
        # The model loads on the first chat: a bad model spec is that chat's error, not a crash.
        failed = httpx.post(url + "api/chats", json={"character": "Wren", "at": "1-3"}, timeout=30)
        assert failed.status_code == 400 and "missing.json" in failed.json()["error"]
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_cli_json_says_where_it_listens(served, tmp_path):
    env = {**os.environ, "INCANON_HOME": str(tmp_path / "home")}
    proc = _start(["--store", str(served.canon), "--runs", str(served.runs_path), "--port", "0", "--json",
                   "--model", "scripted:missing.json"], env)
    try:
        url, _ = _wait_for_url(proc)
        info = json.loads(proc.stdout.readline())
        assert info["url"] == url and info["api"] == url + "v1" and info["host"] == "127.0.0.1"
        assert info["port"] == int(url.rsplit(":", 1)[1].strip("/")) and info["runs"] == str(served.runs_path)
        assert httpx.get(info["api"] + "/models", timeout=30).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_cli_warns_before_listening_beyond_loopback(served, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    import incanon.serve.server as server
    from incanon.cli.main import app

    started = {}
    monkeypatch.setattr(server, "serve", lambda config, **kw: started.update(kw, config=config))
    result = CliRunner().invoke(app, ["serve", "--store", str(served.canon), "--runs", str(served.runs_path),
                                      "--host", "0.0.0.0", "--port", "8123", "-o", "k=2"])
    assert result.exit_code == 0, result.output
    assert "warning" in result.output and "no login" in result.output and "0.0.0.0:8123" in result.output
    assert started["host"] == "0.0.0.0" and started["config"].runs == served.runs_path
    assert started["config"].options == {"k": 2}


def test_cli_missing_canon_store_exits_2(tmp_path):
    proc = run_cli(["serve", "--store", str(tmp_path / "none")], timeout=60,
                   env={**os.environ, "INCANON_HOME": str(tmp_path / "home")})
    assert proc.returncode == 2 and "no canon store at" in proc.stderr


def test_cli_missing_run_store_exits_2_and_creates_nothing(served, tmp_path):
    missing = tmp_path / "typo.sqlite"
    proc = run_cli(["serve", "--store", str(served.canon), "--runs", str(missing)], timeout=60,
                   env={**os.environ, "INCANON_HOME": str(tmp_path / "home")})
    assert proc.returncode == 2 and f"no run store at {missing}" in proc.stderr
    assert not missing.exists()


def test_cli_a_folder_without_a_canon_store_exits_2_and_creates_nothing(served, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run_cli(["serve", "--store", str(empty), "--runs",
                   str(served.runs_path)], timeout=60,
                   env={**os.environ, "INCANON_HOME": str(tmp_path / "home")})
    assert proc.returncode == 2 and f"no canon store at {empty}" in proc.stderr
    assert list(empty.iterdir()) == []
