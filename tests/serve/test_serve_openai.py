"""The OpenAI-compatible character endpoints, driven by the official ``openai`` client."""

from __future__ import annotations

import json
from dataclasses import replace

import openai
import pytest

from incanon.canon import CanonStore
from incanon.errors import InputError
from incanon.models import load_chat_model
from incanon.serve.characters import parse_model, stream_events
from incanon.serve.requests import dialogue_from_messages
from incanon.serve.server import BackgroundServer

from serve_helpers import DEFAULT_REPLY, character_model

METHODS = ("zero-shot", "rag-cutoff", "narrative-experts")


@pytest.fixture
def api(serve_config):
    with BackgroundServer(serve_config, model=load_chat_model(character_model())) as url:
        yield openai.OpenAI(base_url=url + "v1", api_key="unused", max_retries=0)


def test_the_model_grammar():
    assert parse_model("lanterns/Wren Callow@1-3", METHODS).id == "lanterns/Wren Callow@1-3/zero-shot"
    who = parse_model("Wren@end of book 1/rag-cutoff", METHODS)
    assert (who.work, who.character, who.at, who.method) == (None, "Wren", "end of book 1", "rag-cutoff")
    for bad in ("Wren", "@1-3", "Wren@", "Wren@1-3/no-such-method"):
        with pytest.raises(InputError):
            parse_model(bad, METHODS)


def test_messages_become_the_dialogue_without_system_turns():
    turns = dialogue_from_messages([
        {"role": "system", "content": "You are a pirate."},
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Well met."},
        {"role": "user", "content": [{"type": "text", "text": "Who rang the bell?"}]},
    ], "Wren Callow")
    assert [(t.speaker, t.text) for t in turns] == [
        ("user", "Hello"), ("Wren Callow", "Well met."), ("user", "Who rang the bell?")]
    with pytest.raises(InputError, match="last message"):
        dialogue_from_messages([{"role": "assistant", "content": "x"}], "W")


def test_models_lists_each_character_with_its_time_points(api):
    # No reader position: every point by its position; a label tells what happens there.
    listed = api.models.list().data
    ids = [m.id for m in listed]
    assert "lanterns/Wren Callow@1-3" in ids and "lanterns/Wren Callow@2-3-1" in ids
    info = next(m for m in listed if m.id == "lanterns/Wren Callow@1-3").model_extra["incanon"]
    assert info["names"] == ["Wren", "Wrennie"] and info["time_points"] == ["1-3"] and "description" not in info
    shown = json.dumps([[m.id, m.model_extra["incanon"]] for m in listed])
    assert "end of book 1" not in shown and "the night of the flood" not in shown and "Stormwren" not in shown
    # A reader at 1-3 gets labels, descriptions and names as of each point, nothing later.
    read = api.models.list(extra_headers={"X-Incanon-Reader-At": "1-3"}).data
    entry = next(m for m in read if m.id == "lanterns/Wren Callow@end of book 1")
    info = entry.model_extra["incanon"]
    # Only what stands at that point: names in use then, that point's description, the points
    # reached by then. Before, every alias ("Stormwren") and every later point's description.
    assert info["names"] == ["Wren", "Wrennie"] and "aliases" not in info
    assert info["time_points"] == ["end of book 1"] and "later_time_points" not in info
    assert info["description"].startswith("Has just won the Sea-Wall round")
    text = json.dumps([m.model_extra["incanon"] for m in read if m.id.startswith("lanterns/Wren")
                       and m.id.endswith("@end of book 1")])
    assert "Stormwren" not in text and "Lamp-Mistress" not in text and "the night of the flood" not in text


def test_models_name_later_points_only_with_spoilers(tmp_path):
    from incanon.sample import sample_world
    from incanon.serve.model_list import model_entries
    from incanon.serve.config import ServeConfig

    with CanonStore.open(tmp_path / "canon") as store:
        store.import_world(sample_world())
    plain = model_entries(ServeConfig(canon=tmp_path / "canon", runs=tmp_path / "runs.sqlite"))
    told = model_entries(ServeConfig(canon=tmp_path / "canon", runs=tmp_path / "runs.sqlite", spoilers=True))
    first = next(e for e in told if e["id"] == "lanterns/Wren Callow@end of book 1")["incanon"]
    assert first["later_time_points"][:1] == ["the night of the flood"]
    assert "description" in first and "the night of the flood" not in first["description"]
    assert all("later_time_points" not in e["incanon"] for e in plain)


def test_a_reply_through_the_official_client_with_evidence(api):
    reply = api.chat.completions.create(
        model="lanterns/Wren Callow@1-3",
        messages=[{"role": "system", "content": "ignored"}, {"role": "user", "content": "Who rang the flood bell?"}],
    )
    assert reply.choices[0].message.content == "I heard the bell from the lamp-room, nothing more."
    extra = reply.model_extra["incanon"]
    assert extra["character"] == "Wren Callow" and extra["at"] == "1-3" and extra["method"] == "in-canon"
    assert extra["scope"]["at"] == "1-3" and extra["scope"]["hidden"]["future_scenes"] > 0
    assert extra["ignored_system_messages"] == 1
    assert reply.usage.total_tokens > 0


def test_streaming_gives_the_same_text_and_the_evidence_last(api):
    stream = api.chat.completions.create(
        model="Stormwren@end of book 1/rag-cutoff", stream=True,
        messages=[{"role": "user", "content": "Were you at the Spring Fair?"}],
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text == "The fair? I was lighting the harbour lamps that night."
    assert chunks[-1].choices[0].finish_reason == "stop"
    evidence = chunks[-1].model_extra["incanon"]["evidence"]
    assert evidence["chunks"], "rag-cutoff retrieves canon"
    assert all(c["in_scope"] and c["position"].startswith("1-") for c in evidence["chunks"])


def test_the_reply_and_its_evidence_are_viewable_in_the_web_app(api, serve_config):
    reply = api.chat.completions.create(model="Wren@1-3", messages=[{"role": "user", "content": "Hi"}])
    import httpx

    base = str(api.base_url).removesuffix("v1/").removesuffix("v1")
    listed = httpx.get(base + "api/completions").json()
    assert listed[0]["id"] == reply.id and listed[0]["text"] == DEFAULT_REPLY
    detail = httpx.get(base + f"api/completions/{reply.id}").json()
    assert detail["character"] == "Wren Callow" and detail["evidence"]["at"] == "1-3"


def test_unknown_characters_and_bad_models_are_openai_errors(api):
    with pytest.raises(openai.NotFoundError, match=r"unknown character \(the requested character\)") as missing:
        api.chat.completions.create(model="Nobody@1-3", messages=[{"role": "user", "content": "Hi"}])
    assert "Nobody" not in str(missing.value)
    with pytest.raises(openai.BadRequestError, match="CHARACTER@AT"):
        api.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "Hi"}])


@pytest.mark.parametrize("model", ["<script>alert(1)</script>sk-" + "A" * 48 + "@1-3",
                                   "Wren Callow@" + "<b>9</b>" * 25, "x" * 200 + "/sk-live-secret"])
def test_an_error_never_echoes_the_model_value(api, model):
    with pytest.raises(openai.APIStatusError) as refused:
        api.chat.completions.create(model=model, messages=[{"role": "user", "content": "Hi"}])
    message = refused.value.body["message"] if isinstance(refused.value.body, dict) else str(refused.value.body)
    for piece in ("<script>", "sk-", "<b>", "x" * 40):
        assert piece not in message, message


def test_a_bearer_token_is_required_when_configured(serve_config):
    config = replace(serve_config, token="s3cret-token-value")
    with BackgroundServer(config, model=load_chat_model(character_model())) as url:
        wrong = openai.OpenAI(base_url=url + "v1", api_key="nope", max_retries=0)
        with pytest.raises(openai.AuthenticationError):
            wrong.models.list()
        right = openai.OpenAI(base_url=url + "v1", api_key="s3cret-token-value", max_retries=0)
        assert right.models.list().data


def test_stream_events_join_back_to_the_reply_exactly():
    from incanon.serve.characters import CharacterReply
    from incanon.chat.transcript import Evidence

    text = "  Two  spaces,\nnew lines\tand tabs; a long-long-long-long-long-long word. "
    reply = CharacterReply(id="x", model="m", text=text, created=0, evidence=Evidence(method="m", at="1", when="now"),
                           character="C", at="1", time_label=None, method="m", prompt_tokens=1,
                           completion_tokens=1, ignored_system=0)
    import json

    pieces = [json.loads(e[6:])["choices"][0]["delta"].get("content", "")
              for e in stream_events(reply) if e.startswith("data: {")]
    assert "".join(pieces) == text


def test_the_evidence_a_client_receives_is_scoped(api):
    # Before: the incanon field carried the whole-story persona (Stormwren, the betrayal, the
    # election) in its calls, and rag-cutoff's chunks of scenes Wren missed were "in scope".
    strict = api.chat.completions.create(model="lanterns/Wren Callow@1-3/in-canon",
                                         messages=[{"role": "user", "content": "Who rang the flood bell?"}])
    sent = json.dumps(strict.model_extra["incanon"])
    for later in ("Stormwren", "Lamp-Mistress Callow", "betray", "elected"):
        assert later not in sent
    chunks = strict.model_extra["incanon"]["evidence"]["chunks"]
    assert chunks and all(c["in_scope"] and c["label"] == "in scope" for c in chunks)
    assert not any(c["scene"] in ("1-2-1", "1-2-3") for c in chunks)

    baseline = api.chat.completions.create(
        model="lanterns/Wren Callow@1-3/rag-cutoff",
        messages=[{"role": "user", "content": "Ilse found payments to the Marrow Timber Company in the ledger."}])
    for c in baseline.model_extra["incanon"]["evidence"]["chunks"]:
        missed = c["scene"] in ("1-2-1", "1-2-3")
        assert c["label"] == ("before now, not witnessed" if missed else "in scope")
        assert c["in_scope"] is not missed


def test_continue_and_background_task_replies_are_scoped(api):
    # The paths added for SillyTavern's Continue and Open WebUI's tasks send nothing of the
    # story after 1-3, nor anything of scenes Wren missed.
    import httpx

    base = str(api.base_url)
    continued = httpx.post(base + "chat/completions", timeout=60, json={
        "model": "lanterns/Wren Callow@1-3/in-canon",
        "messages": [{"role": "user", "content": "Who rang the flood bell?"},
                     {"role": "assistant", "content": "Someone at the"}]}).json()
    task = httpx.post(base + "chat/completions", timeout=60, json={
        "model": "lanterns/Wren Callow@1-3/in-canon",
        "messages": [{"role": "user", "content": "### Task:\nGenerate 1-3 broad tags.\n### Output:\nJSON format: "
                      "{ \"tags\": [\"tag1\"] }\n### Chat History:\n<chat_history>\nUSER: Who rang the flood bell?\n"
                      "ASSISTANT: Someone at the harbour.\n</chat_history>"}]}).json()
    assert continued["incanon"]["continued"] and task["incanon"]["task"] == "tags"
    for response in (continued, task):
        sent = json.dumps(response)
        for later in ("Stormwren", "Lamp-Mistress Callow", "betray", "elected"):
            assert later not in sent
        assert not any(c["scene"] in ("1-2-1", "1-2-3") or not c["in_scope"]
                       for c in response["incanon"]["evidence"]["chunks"])
