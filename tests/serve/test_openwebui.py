"""A real client end to end: Open WebUI, installed from PyPI, talks to incanon's ``/v1`` through its
own proxy, as a builder deploying it would run it.

``./dev.sh test`` installs Open WebUI into a venv of its own (the lock in
``tests/serve/openwebui/lock.txt``, outside the checkout, once per machine) and points
``INCANON_OPENWEBUI`` at its ``open-webui`` command. The test starts incanon's server (the mini
world, the scripted model) and Open WebUI (no accounts, no model downloads, its OpenAI connection
set to incanon), signs in as Open WebUI's frontend does, then checks what its users get: the
characters in its model list, a chat answered by the character (whole and streamed, as the chat
page asks for it), and its background tasks (title, tags, follow-up suggestions) answered by incanon
without a model call, naming nothing the character cannot know at its point. Last, the same in
Open WebUI's own page in Chromium: a question sent to the character shows its answer, the chat's
title and the follow-up suggestions.

Without ``INCANON_OPENWEBUI`` the test is skipped (``INCANON_OPENWEBUI=skip ./dev.sh test``
leaves the install out), unless ``INCANON_REQUIRE_OPENWEBUI=1`` makes that a failure.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from incanon.canon import CanonStore
from incanon.canon.position import Position
from incanon.models import ScriptedModel, load_chat_model
from incanon.serve import BackgroundServer, ServeConfig
from incanon.testing.worlds import mini_world

from serve_helpers import DEFAULT_REPLY, character_model
from test_serve_browser import TIMEOUT_MS, browser  # noqa: F401  (browser is a fixture)

pytestmark = pytest.mark.slow

START_TIMEOUT_S = 180
MODEL = "lanterns/Wren Callow@1-3"


@dataclass
class OpenWebUI:
    url: str
    client: httpx.Client
    """Signed in as Open WebUI's frontend signs in when accounts are off."""
    scripted: ScriptedModel
    canon: Path
    incanon: str
    """incanon's own URL."""


def _executable() -> str:
    path = os.environ.get("INCANON_OPENWEBUI", "")
    if path and path != "skip" and os.access(path, os.X_OK):
        return path
    why = "INCANON_OPENWEBUI is not set to an open-webui command (./dev.sh test installs one)"
    if os.environ.get("INCANON_REQUIRE_OPENWEBUI") == "1":
        pytest.fail(f"INCANON_REQUIRE_OPENWEBUI=1 but {why}")
    pytest.skip(why)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"Open WebUI exited ({proc.returncode}):\n{log.read_text(errors='replace')[-4000:]}")
        try:
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"Open WebUI did not answer in {START_TIMEOUT_S} s:\n{log.read_text(errors='replace')[-4000:]}")


@pytest.fixture(scope="module")
def openwebui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OpenWebUI]:
    executable = _executable()
    root = tmp_path_factory.mktemp("openwebui")
    with CanonStore.open(root / "canon") as store:
        store.import_world(mini_world())
    scripted = character_model()
    config = ServeConfig(canon=root / "canon", runs=root / "runs.sqlite", model="scripted-character", cache=False)
    with BackgroundServer(config, model=load_chat_model(scripted)) as incanon_url:
        data, log = root / "data", root / "openwebui.log"
        data.mkdir()
        port = _free_port()
        env = {
            **os.environ, "DATA_DIR": str(data), "WEBUI_AUTH": "False", "WEBUI_SECRET_KEY": "incanon-test-" + "k" * 24,
            "ENABLE_OLLAMA_API": "False", "OPENAI_API_BASE_URL": incanon_url + "v1", "OPENAI_API_KEY": "unused",
            # Nothing leaves 127.0.0.1: no model downloads, no update checks, no telemetry.
            "OFFLINE_MODE": "True", "HF_HUB_OFFLINE": "1", "BYPASS_EMBEDDING_AND_RETRIEVAL": "True",
            "ENABLE_VERSION_UPDATE_CHECK": "False", "SCARF_NO_ANALYTICS": "true", "DO_NOT_TRACK": "true",
            "ANONYMIZED_TELEMETRY": "false",
        }
        with log.open("wb") as out:
            proc = subprocess.Popen([executable, "serve", "--host", "127.0.0.1", "--port", str(port)], env=env,
                                    stdout=out, stderr=subprocess.STDOUT, cwd=root)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(url, proc, log)
            with httpx.Client(base_url=url, timeout=60) as client:
                signed = client.post("/api/v1/auths/signin", json={"email": "", "password": ""})
                assert signed.status_code == 200, signed.text
                client.headers["Authorization"] = f"Bearer {signed.json()['token']}"
                yield OpenWebUI(url=url, client=client, scripted=scripted, canon=root / "canon",
                                incanon=incanon_url)
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()


def unknown_names(canon: Path, model: str) -> set[str]:
    """Every name of the work's characters and entities the character of ``model`` cannot use at
    its point (from what it witnessed and was told, not from any text being checked)."""
    work, rest = model.split("/", 1)
    name, at = rest.split("@", 1)
    with CanonStore.open(canon) as store:
        scope = store.scope(work, name, Position.parse(at))
        knows = scope.knowledge()
        names = {n for c in store.characters(work) for n in (c.name, *c.aliases)}
        names |= {n for e in knows.every_entity for n in (e.name, *e.aliases)}
        return {n for n in names if len(n) > 2 and not knows.knows_name(n)}


def leaked(text: str, unknown: set[str]) -> list[str]:
    """The unknown names ``text`` uses."""
    folded = text.casefold()
    return sorted(n for n in unknown if n.casefold() in folded)


def test_open_webui_lists_incanons_characters(openwebui: OpenWebUI) -> None:
    listed = openwebui.client.get("/api/models")
    assert listed.status_code == 200, listed.text
    theirs = {m["id"] for m in listed.json()["data"]}
    ours = {m["id"] for m in httpx.get(openwebui.incanon + "v1/models").json()["data"]}
    assert MODEL in ours and theirs == ours


def test_a_chat_through_open_webuis_proxy_is_the_characters_answer(openwebui: OpenWebUI) -> None:
    calls = len(openwebui.scripted.calls)
    body = {"model": MODEL, "messages": [{"role": "user", "content": "Did you hear the flood bell?"}]}
    whole = openwebui.client.post("/api/chat/completions", json={**body, "stream": False})
    assert whole.status_code == 200, whole.text
    answer = whole.json()
    assert answer["choices"][0]["message"]["content"] == "I heard the bell from the lamp-room, nothing more."
    assert answer["incanon"]["character"] == "Wren Callow" and answer["incanon"]["at"] == "1-3"
    # The chat page streams: the same answer arrives as server-sent events through the proxy.
    with openwebui.client.stream("POST", "/api/chat/completions", json={**body, "stream": True}) as streamed:
        assert streamed.status_code == 200
        events = [line[len("data: "):] for line in streamed.iter_lines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    text = "".join(json.loads(e)["choices"][0]["delta"].get("content") or "" for e in events[:-1]
                   if json.loads(e).get("choices"))
    assert text == "I heard the bell from the lamp-room, nothing more."
    # The character's prompt was built at 1-3: it carries its scope, one model call per answer
    # (the second answer may come from incanon's reply cache; it is off here).
    assert len(openwebui.scripted.calls) >= calls + 1
    system = openwebui.scripted.calls[-1].messages[0].content
    assert "Wren" in system
    assert not leaked(system, unknown_names(openwebui.canon, MODEL))


@pytest.mark.parametrize("task", ["title", "tags", "follow_up"])
def test_open_webuis_tasks_are_answered_without_a_model_call_and_in_scope(openwebui: OpenWebUI, task: str) -> None:
    history = [{"role": "user", "content": "Did you hear the flood bell?"},
               {"role": "assistant", "content": "I heard the bell from the lamp-room, nothing more."}]
    calls = len(openwebui.scripted.calls)
    reply = openwebui.client.post(f"/api/v1/tasks/{task}/completions",
                                  json={"model": MODEL, "messages": history, "chat_id": "local"})
    assert reply.status_code == 200, reply.text
    content = reply.json()["choices"][0]["message"]["content"]
    parsed = json.loads(content)
    key = {"title": "title", "tags": "tags", "follow_up": "follow_ups"}[task]
    assert parsed[key], content
    assert len(openwebui.scripted.calls) == calls  # Open WebUI's task went to no model
    assert DEFAULT_REPLY not in content
    assert not leaked(content, unknown_names(openwebui.canon, MODEL))
    if task == "follow_up":
        assert all(q.endswith("?") for q in parsed[key])
        assert not any(q.startswith("Tell me more about") for q in parsed[key])


def test_open_webuis_page_chats_with_the_character(openwebui: OpenWebUI, browser) -> None:  # noqa: F811
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    try:
        # Signed in by the page itself (accounts are off); its release notes come up once.
        tab.goto(openwebui.url + "/")
        tab.get_by_text("Okay, Let's Go!").click()
        # The chat page with the character chosen and the question written, as a link would open it.
        tab.goto(f"{openwebui.url}/?models={quote(MODEL)}&q={quote('Did you hear the flood bell?')}")
        tab.locator("#send-message-button").click()
        tab.get_by_text("I heard the bell from the lamp-room, nothing more.").first.wait_for()
        tab.get_by_text("Follow up").first.wait_for()
        page = tab.locator("body").inner_text()
        assert MODEL in page
        # The title Open WebUI asked incanon for, and suggestions from what Wren knows at 1-3.
        assert "Did you hear the flood bell" in tab.title() + page
        assert "What do you make of " in page and "Tell me more about" not in page
        assert not leaked(page, unknown_names(openwebui.canon, MODEL))
    finally:
        context.close()


def test_the_scope_check_catches_a_planted_name(openwebui: OpenWebUI) -> None:
    """The check of the tasks' answers can fail: a name Wren cannot know at 1-3 is found."""
    unknown = unknown_names(openwebui.canon, MODEL)
    assert unknown, "the mini world must hold a name Wren does not know at 1-3 for the check to mean anything"
    planted = json.dumps({"follow_ups": [f"What do you make of {sorted(unknown)[0]}?"]})
    assert leaked(planted, unknown)
