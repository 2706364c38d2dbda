"""The web app's JSON API, through an in-process client: chat, canon, runs, samples, reports."""

from __future__ import annotations

import pytest

from serve_helpers import DEFAULT_REPLY


def start(client, **body):
    payload = {"character": "Wren", "at": "1-3", "method": "zero-shot", **body}
    response = client.post("/api/chats", json=payload)
    assert response.status_code == 201, response.text
    return response.json()


def say(client, chat_id, line):
    response = client.post(f"/api/chats/{chat_id}/say", json={"line": line})
    assert response.status_code == 200, response.text
    return response.json()


def test_page_and_static_assets_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and '<script type="module" src="/static/app.js">' in page.text
    assert "function chatView" in client.get("/static/app.js").text
    info = client.get("/api/info").json()
    assert info["model"] == "scripted-character" and info["version"]


def test_works_timeline_and_methods(client):
    works = client.get("/api/works").json()
    assert [w["id"] for w in works] == ["lanterns"] and "Wren Callow" in works[0]["characters"]
    line = client.get("/api/works/lanterns/timeline").json()
    assert line["stops"][0]["at"] == "1-1-1"
    methods = {m["name"]: m["description"] for m in client.get("/api/methods").json()}
    assert "rag-cutoff" in methods and "knowledge scope" in methods["rag-cutoff"]
    assert "dialsim-oracle" not in methods
    missing = client.get("/api/works/nowhere/timeline")
    assert missing.status_code == 404 and "nowhere" in missing.json()["error"]


def test_a_chat_turn_keeps_history_scope_and_evidence(client):
    chat = start(client)
    assert (chat["character"], chat["at"], chat["time_label"]) == ("Wren Callow", "1-3", "end of book 1")
    assert chat["scope"]["hidden"]["future_scenes"] > 0
    result = say(client, chat["id"], "Who rang the flood bell?")
    assert result["outcome"]["kind"] == "reply"
    reply = result["outcome"]["turn"]
    assert reply["text"] == "I heard the bell from the lamp-room, nothing more."
    assert reply["evidence"]["method"] == "zero-shot" and reply["evidence"]["at"] == "1-3"
    assert reply["evidence"]["calls"][0]["prompt"] == "Who rang the flood bell?"
    turns = result["chat"]["turns"]
    assert [t["speaker"] for t in turns] == ["user", "Wren Callow"]
    second = say(client, chat["id"], "And you?")["chat"]["turns"]
    assert len(second) == 4 and second[-1]["text"] == DEFAULT_REPLY


def test_moving_in_story_time_rebuilds_the_scope_and_keeps_the_turns(client):
    chat = start(client, at="1-1-1")
    say(client, chat["id"], "Hello")
    before = client.get(f"/api/chats/{chat['id']}").json()["scope"]
    moved = say(client, chat["id"], "/at end of book 2")
    assert moved["outcome"]["kind"] == "moved" and moved["chat"]["at"] == "2-4"
    after = moved["chat"]["scope"]
    assert after["visible"]["scenes"] > before["visible"]["scenes"]
    assert after["hidden"]["future_scenes"] < before["hidden"]["future_scenes"]
    assert len(moved["chat"]["turns"]) == 2
    bad = say(client, chat["id"], "/at the day after never")
    assert bad["outcome"]["kind"] == "error" and "time points" in bad["outcome"]["message"]
    assert bad["chat"]["at"] == "2-4"


def test_method_switch_is_limited_to_chat_methods(client):
    chat = start(client)
    switched = say(client, chat["id"], "/method zero-shot-cot")
    assert switched["outcome"]["kind"] == "method" and switched["chat"]["method"] == "zero-shot-cot"
    refused = say(client, chat["id"], "/method dialsim-oracle")
    assert refused["outcome"]["kind"] == "error" and refused["chat"]["method"] == "zero-shot-cot"


def test_retrieval_evidence_shows_only_canon_in_scope(client):
    chat = start(client, method="rag-cutoff", at="1-3")
    reply = say(client, chat["id"], "Were you at the Spring Fair?")["outcome"]["turn"]
    chunks = reply["evidence"]["chunks"]
    assert chunks, "rag-cutoff retrieves canon"
    assert all(c["position"].startswith("1-") and c["in_scope"] for c in chunks)
    why = say(client, chat["id"], "/why")["outcome"]
    assert why["kind"] == "why" and [c["id"] for c in why["evidence"]["chunks"]] == [c["id"] for c in chunks]


def test_save_downloads_and_writes_nothing_on_the_server(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    chat = start(client)
    say(client, chat["id"], "Hello")
    saved = say(client, chat["id"], f"/save {tmp_path / 'x.json'}")
    assert saved["outcome"]["kind"] == "saved" and list(tmp_path.iterdir()) == []
    download = client.get(f"/api/chats/{chat['id']}/transcript")
    assert download.status_code == 200 and "attachment" in download.headers["content-disposition"]
    doc = download.json()
    assert doc["format"] == "incanon-chat/1" and [t["speaker"] for t in doc["turns"]] == ["user", "Wren Callow"]


def test_chat_errors_are_one_line_and_typed(client):
    unknown = client.post("/api/chats", json={"character": "Nobody", "at": "1-3"})
    assert unknown.status_code == 404 and "Nobody" in unknown.json()["error"]
    method = client.post("/api/chats", json={"character": "Wren", "at": "1-3", "method": "nope"})
    assert method.status_code == 400 and "not offered" in method.json()["error"]
    empty = client.post("/api/chats", json={"character": "", "at": "1-3"})
    assert empty.status_code == 422
    assert client.post("/api/chats/missing/say", json={"line": "hi"}).status_code == 404
    chat = start(client)
    assert client.delete(f"/api/chats/{chat['id']}").status_code == 204
    assert client.get(f"/api/chats/{chat['id']}").status_code == 404


def test_runs_list_with_filters_and_facets(client, served):
    listing = client.get("/api/runs").json()
    assert {r["id"] for r in listing["runs"]} == {served.demo, *served.timechara}
    assert listing["facets"]["benchmark"] == ["demo", "timechara"]
    assert set(listing["facets"]["method"]) == {"in-canon", "zero-shot", "narrative-experts"}
    only = client.get("/api/runs", params={"benchmark": "timechara", "method": "narrative-experts"}).json()
    assert [r["methods"] for r in only["runs"]] == [["narrative-experts"]] and only["total"] == 3
    assert client.get("/api/runs", params={"model": "no-such-model"}).json()["runs"] == []
    run = client.get(f"/api/runs/{served.timechara[0][:14]}").json()
    assert run["id"] == served.timechara[0] and run["ok"] == 5 and run["label"].startswith("scripted-agent / ")


def test_samples_filter_by_type_and_open_one(client, served):
    run = served.timechara[0]
    page = client.get(f"/api/runs/{run}/samples").json()
    assert page["total"] == 5 and page["types"] == {"past-absence": 1, "past-presence": 1, "future": 1, "past-only": 2}
    future = client.get(f"/api/runs/{run}/samples", params={"type": "future"}).json()["rows"]
    assert len(future) == 1 and future[0]["scores"]["spatiotemporal"] == 0.0
    detail = client.get(f"/api/runs/{run}/sample", params={"item": future[0]["item_id"]}).json()
    assert detail["rationales"]["temporal_rationale"].startswith("It leaks the future")
    assert detail["calls"] and detail["usage"]["calls"] >= 3 and detail["answer"] == "I have no idea what you mean."
    assert client.get(f"/api/runs/{run}/sample", params={"item": "nope"}).status_code == 404
    assert client.get(f"/api/runs/{run}/samples", params={"limit": 0}).status_code == 422


def test_report_has_paper_tables_and_drawn_charts(client, served):
    report = client.get("/api/report", params=[("run", r) for r in served.timechara]).json()
    (section,) = report["sections"]
    assert section["benchmark"] == "timechara" and "Table 5" in section["title"]
    tables = [b for b in section["blocks"] if b["kind"] == "table"]
    assert tables and "Past-absence" in tables[0]["table"]["columns"]
    assert section["charts"] and all(c["image"].startswith("data:image/png;base64,") for c in section["charts"])
    assert client.get("/api/report", params={"run": "zzz"}).status_code == 404


@pytest.mark.parametrize("path", ["/api/runs/zzz", "/api/runs/zzz/samples"])
def test_unknown_runs_are_404_naming_the_run(client, path):
    response = client.get(path)
    assert response.status_code == 404 and "zzz" in response.json()["error"]


def test_configured_method_options_reach_every_chat(serve_config):
    from dataclasses import replace

    from fastapi.testclient import TestClient

    from incanon.models import load_chat_model
    from incanon.serve import create_app
    from serve_helpers import character_model

    config = replace(serve_config, options={"k": 1})
    with TestClient(create_app(config, model=load_chat_model(character_model())), base_url="http://127.0.0.1") as narrow:
        chat = start(narrow, method="rag-cutoff", at="2-4")
        reply = say(narrow, chat["id"], "Who rang the flood bell?")["outcome"]["turn"]
    assert len(reply["evidence"]["chunks"]) == 1


def test_regenerate_replaces_the_last_reply_and_the_model_never_sees_it(serve_config):
    from fastapi.testclient import TestClient

    from incanon.models import ScriptedModel, load_chat_model
    from incanon.serve import create_app

    model = ScriptedModel([], default="unused", name="scripted-character")
    model.queue.extend(["An old reply.", "A middle reply.", "A fresh reply."])
    with TestClient(create_app(serve_config, model=load_chat_model(model)), base_url="http://127.0.0.1") as client:
        chat = start(client)
        nothing = client.post(f"/api/chats/{chat['id']}/regenerate")
        assert nothing.status_code == 400 and "no reply" in nothing.json()["error"]
        say(client, chat["id"], "Where were you?")
        say(client, chat["id"], "And then?")
        response = client.post(f"/api/chats/{chat['id']}/regenerate")
        assert response.status_code == 200, response.text
        result = response.json()
        assert result["outcome"]["kind"] == "reply" and result["outcome"]["turn"]["text"] == "A fresh reply."
        assert [(t["index"], t["text"]) for t in result["chat"]["turns"]] == [
            (0, "Where were you?"), (1, "An old reply."), (2, "And then?"), (3, "A fresh reply.")]
        # The regenerated call went through the method with the same line and without the reply it replaces.
        last = model.calls[-1].messages
        assert last[-1].content == "And then?"
        assert "A middle reply." not in [m.content for m in last] and "An old reply." in [m.content for m in last]
        assert result["outcome"]["turn"]["evidence"]["calls"][0]["prompt"] == "And then?"


@pytest.mark.parametrize("path", ["/api/docs", "/docs", "/redoc"])
def test_no_docs_page_whose_script_comes_from_a_cdn_but_a_hint_to_the_description(client, path):
    # It was Swagger UI with its bundle from a CDN: offline, "SwaggerUIBundle is not defined".
    response = client.get(path)
    assert response.status_code == 404 and "/api/openapi.json" in response.json()["error"]
    assert "<script" not in response.text
    described = client.get("/api/openapi.json")
    assert described.status_code == 200 and "/v1/chat/completions" in described.json()["paths"]
