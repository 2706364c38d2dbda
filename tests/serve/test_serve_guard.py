"""The web app answers only its own host names, refuses cross-origin writes and huge bodies."""

from __future__ import annotations

import socket
from dataclasses import replace

import httpx
import pytest
from fastapi.testclient import TestClient

from incanon.models import load_chat_model
from incanon.serve import ServeConfig, create_app
from incanon.serve.server import BackgroundServer

from serve_helpers import character_model


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "127.0.0.1.nip.io", "0.0.0.0"])
def test_a_rebound_host_name_is_refused(client, host):
    response = client.get("/api/runs", headers={"Host": host})
    assert response.status_code == 421
    assert client.post("/api/chats", json={"character": "x", "at": "1"}, headers={"Host": host}).status_code == 421


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:8765", "localhost:8765", "[::1]:8765"])
def test_the_bound_names_are_answered(client, host):
    assert client.get("/api/info", headers={"Host": host}).status_code == 200


def test_allow_host_adds_a_name(serve_config):
    config = replace(serve_config, host="0.0.0.0", allow_hosts=("box.lan",))
    with TestClient(create_app(config, model=load_chat_model(character_model())), base_url="http://box.lan") as lan:
        assert lan.get("/api/info").status_code == 200
        assert lan.get("/api/info", headers={"Host": "other.lan"}).status_code == 421


def test_a_cross_origin_write_is_refused_and_a_same_origin_one_is_not(client):
    body = {"character": "Mira", "at": "1"}
    refused = client.post("/api/chats", json=body, headers={"Origin": "https://evil.example"})
    assert refused.status_code == 403
    assert client.post("/api/chats", json=body, headers={"Origin": "null"}).status_code == 403
    assert client.post("/api/chats", json=body, headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    allowed = client.post("/api/chats", json=body, headers={"Origin": "http://127.0.0.1:8765"})
    assert allowed.status_code != 403
    # Reads are not writes: a GET with a foreign Origin still answers (CORS keeps the page from reading it).
    assert client.get("/api/info", headers={"Origin": "https://evil.example"}).status_code == 200


@pytest.mark.parametrize("host", ["127.0.0.1:18765.evil.com", "127.0.0.1:80:81", "127.0.0.1:http",
                                  "127.0.0.1:99999", "[::1]:8765.evil.com", "user@127.0.0.1", "127.0.0.1 evil"])
def test_a_host_with_anything_after_its_port_is_refused(client, host):
    assert client.get("/api/info", headers={"Host": host}).status_code == 421


@pytest.mark.parametrize("origin", ["http://127.0.0.1:18765.evil.com", "http://127.0.0.1:8765@evil.com",
                                    "http://127.0.0.1:x", "http://localhost:8765/../evil"])
def test_an_origin_that_only_starts_like_ours_is_refused(client, origin):
    response = client.post("/api/chats", json={"character": "Mira", "at": "1"}, headers={"Origin": origin})
    assert response.status_code == 403


def test_a_large_body_is_refused_without_echo(client):
    huge = b'{"line": "' + b"A" * (2 << 20) + b'"}'
    response = client.post("/api/chats/nope/say", content=huge, headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert len(response.content) < 300


def test_a_large_body_without_a_length_is_refused(client):
    def chunks():
        for _ in range(40):
            yield b"B" * (64 << 10)

    response = client.post("/api/chats/nope/say", content=chunks(), headers={"Content-Type": "application/json"})
    assert response.status_code == 413


def test_validation_errors_name_the_field_and_do_not_echo_the_input(client):
    response = client.post("/api/chats", json={"character": "", "at": "1", "junk": "Z" * 5000})
    assert response.status_code == 422
    assert "character" in response.json()["error"] and "ZZZZ" not in response.text


@pytest.mark.parametrize("epoch", ["99999999999999999999999", "-1"])
def test_out_of_range_numbers_are_422_not_500(client, served, epoch):
    run = served.timechara[0]
    response = client.get(f"/api/runs/{run}/sample", params={"item": "x", "epoch": epoch})
    assert response.status_code == 422


def test_the_real_server_refuses_a_rebound_host(serve_config: ServeConfig):
    with BackgroundServer(serve_config, model=load_chat_model(character_model())) as url:
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        assert httpx.get(url + "api/info").status_code == 200
        # What a DNS-rebinding page sends: the loopback address, under the attacker's name.
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(b"GET /api/runs HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n")
            reply = sock.recv(200)
        assert reply.startswith(b"HTTP/1.1 421")
