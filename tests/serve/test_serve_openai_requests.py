"""The chat API as front ends use it: sampling fields and ``n`` (official ``openai`` client),
SillyTavern's Continue and Open WebUI's background tasks (their raw bodies), ``/v1`` errors,
streaming while the model writes, and cached replies' usage."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace

import httpx
import openai
import pytest

from incanon.models import Completion, GenerationParams, ScriptedModel, load_chat_model
from incanon.models.streaming import piece_writer
from incanon.serve import ServeConfig
from incanon.serve.server import BackgroundServer

from serve_helpers import CHARACTER_RULES, DEFAULT_REPLY

LATER = ("Stormwren", "Lamp-Mistress", "betray", "elected", "the night of the flood")


@dataclass
class Served:
    url: str
    scripted: ScriptedModel
    api: openai.OpenAI

    def post(self, body: dict) -> httpx.Response:
        return httpx.post(self.url + "v1/chat/completions", json=body, timeout=60)


@pytest.fixture(scope="module")
def served_api(served) -> Iterator[Served]:
    scripted = ScriptedModel(CHARACTER_RULES, default=DEFAULT_REPLY, name="scripted-character")
    config = ServeConfig(canon=served.canon, runs=served.runs_path, model="scripted-character", cache=False)
    with BackgroundServer(config, model=load_chat_model(scripted)) as url:
        yield Served(url, scripted, openai.OpenAI(base_url=url + "v1", api_key="unused", max_retries=0))


# -- 1. sampling fields and n ---------------------------------------------------------------------

def test_sampling_fields_reach_the_methods_calls(served_api):
    before = len(served_api.scripted.calls)
    served_api.api.chat.completions.create(
        model="lanterns/Wren Callow@1-3/zero-shot", messages=[{"role": "user", "content": "Who rang the flood bell?"}],
        max_tokens=77, temperature=0.7, top_p=0.9, stop=["\nUser:"], presence_penalty=0.3, frequency_penalty=0.2,
        seed=7)
    (call,) = served_api.scripted.calls[before:]
    assert call.params.model_dump(include={"max_tokens", "temperature", "top_p", "stop", "presence_penalty",
                                           "frequency_penalty", "seed"}) == {
        "max_tokens": 77, "temperature": 0.7, "top_p": 0.9, "stop": ("\nUser:",), "presence_penalty": 0.3,
        "frequency_penalty": 0.2, "seed": 7}


def test_experts_keep_their_budget_and_are_not_cut_by_stop(served_api):
    # SillyTavern's body: its defaults and its stop strings; max_completion_tokens wins.
    before = len(served_api.scripted.calls)
    response = served_api.post({
        "model": "lanterns/Wren Callow@1-3/narrative-experts", "stream": False,
        "messages": [{"role": "system", "content": "Write Wren Callow's next reply."},
                     {"role": "user", "content": "Who rang the flood bell?"}],
        "temperature": 1, "frequency_penalty": 0, "presence_penalty": 0, "top_p": 1, "max_tokens": 300,
        "max_completion_tokens": 40, "stop": ["\nYou:", "\nWren Callow:"], "logit_bias": {}, "user": "tester"})
    assert response.status_code == 200, response.text
    calls = served_api.scripted.calls[before:]
    answer, experts = calls[-1], calls[:-1]
    assert experts and all(c.params.max_tokens >= 384 and c.params.stop == () for c in experts)
    assert answer.params.max_tokens == 40 and answer.params.stop == ("\nYou:", "\nWren Callow:")
    assert all(c.params.temperature == 1 for c in calls)


def test_left_out_fields_keep_the_servers_chat_settings(served_api):
    before = len(served_api.scripted.calls)
    served_api.api.chat.completions.create(model="Wren@1-3/zero-shot", messages=[{"role": "user", "content": "Hi"}])
    (call,) = served_api.scripted.calls[before:]
    assert (call.params.max_tokens, call.params.frequency_penalty) == (200, 0.5)


@pytest.mark.parametrize("field, value", [
    ("temperature", 3), ("temperature", "hot"), ("top_p", 1.5), ("max_tokens", 0), ("max_tokens", "many"),
    ("max_completion_tokens", 2.5), ("presence_penalty", -3), ("frequency_penalty", True), ("seed", "x"),
    ("stop", [1, 2]), ("stop", ["a", "b", "c", "d", "e"]), ("n", 0), ("n", 99)])
def test_bad_sampling_values_are_400s_naming_the_field(served_api, field, value):
    response = served_api.post({"model": "Wren@1-3", "messages": [{"role": "user", "content": "Hi"}], field: value})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["param"] == field and error["message"].startswith(field) and error["type"] == "invalid_request_error"


def test_n_gives_n_choices(served_api):
    reply = served_api.api.chat.completions.create(
        model="Wren@1-3/zero-shot", n=3, temperature=0.9, messages=[{"role": "user", "content": "Who rang the flood bell?"}])
    assert [c.index for c in reply.choices] == [0, 1, 2]
    assert all(c.message.content == CHARACTER_RULES[0][1] for c in reply.choices)
    with pytest.raises(openai.BadRequestError, match="stream"):
        served_api.api.chat.completions.create(model="Wren@1-3", n=2, stream=True,
                                               messages=[{"role": "user", "content": "Hi"}])


# -- 2. SillyTavern's Continue --------------------------------------------------------------------

def test_sillytavern_continue_goes_on_from_the_partial_message(served_api):
    before = len(served_api.scripted.calls)
    body = {
        "model": "lanterns/Wren Callow@1-3/zero-shot", "stream": False, "temperature": 1, "max_tokens": 300,
        "messages": [
            {"role": "system", "content": "Write Wren Callow's next reply in a fictional chat between Wren Callow and You."},
            {"role": "system", "content": "[Start a new Chat]"},
            {"role": "assistant", "content": "Evening. The lamps want trimming."},
            {"role": "user", "content": "Who rang the flood bell?"},
            {"role": "assistant", "content": "I heard it from the lamp-room, and"},
        ]}
    response = served_api.post(body)
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["choices"][0]["message"]["content"] == CHARACTER_RULES[0][1]
    assert data["incanon"]["continued"] is True
    (call,) = served_api.scripted.calls[before:]
    seen = [(m.role, m.content) for m in call.messages[1:]]
    # What the method sees: the dialogue up to the user's turn, which carries the partial reply.
    assert seen[0] == ("assistant", "Evening. The lamps want trimming.")
    assert seen[-1][0] == "user" and seen[-1][1].startswith("Who rang the flood bell?")
    assert "I heard it from the lamp-room, and" in seen[-1][1] and "Go on from exactly where it stops" in seen[-1][1]
    assert len(seen) == 2


# -- 3. Open WebUI's background tasks ----------------------------------------------------------------

HISTORY = ("<chat_history>\nUSER: Who rang the flood bell on the harbour wall?\n"
           "ASSISTANT: I heard the bell from the lamp-room, nothing more.\n</chat_history>")
OPEN_WEBUI_TASKS = {
    "title": ("### Task:\nGenerate a concise, 3-5 word title with an emoji summarizing the chat history.\n"
              "### Guidelines:\n- The title should clearly represent the main theme or subject of the conversation.\n"
              "### Output:\nJSON format: { \"title\": \"your concise title here\" }\n"
              "### Examples:\n- { \"title\": \"Remote Work Tips\" }\n### Chat History:\n" + HISTORY),
    "tags": ("### Task:\nGenerate 1-3 broad tags categorizing the main themes of the chat history, along with 1-3 "
             "more specific subtopic tags.\n### Guidelines:\n- Start with high-level domains\n"
             "### Output:\nJSON format: { \"tags\": [\"tag1\", \"tag2\", \"tag3\"] }\n### Chat History:\n" + HISTORY),
    "follow_ups": ("### Task:\nSuggest 3-5 relevant follow-up questions or prompts that the user might naturally "
                   "ask next in this conversation as a **user**.\n### Guidelines:\n- Write all follow-up questions "
                   "from the user's point of view.\n### Output:\nJSON format: { \"follow_ups\": [\"Question 1?\", "
                   "\"Question 2?\", \"Question 3?\"] }\n### Chat History:\n" + HISTORY),
}


@pytest.mark.parametrize("kind", sorted(OPEN_WEBUI_TASKS))
def test_open_webui_background_tasks_are_answered_plainly(served_api, kind):
    before = len(served_api.scripted.calls)
    response = served_api.post({"model": "lanterns/Wren Callow@1-3/in-canon", "stream": False,
                                "messages": [{"role": "user", "content": OPEN_WEBUI_TASKS[kind]}]})
    assert response.status_code == 200, response.text
    data = response.json()
    answer = json.loads(data["choices"][0]["message"]["content"])
    assert list(answer) == [kind]
    if kind == "title":
        assert isinstance(answer["title"], str) and 0 < len(answer["title"].split()) <= 6
    else:
        assert answer[kind] and all(isinstance(x, str) and x for x in answer[kind])
    assert served_api.scripted.calls[before:] == []  # no model call: the character never saw it
    assert data["incanon"]["task"] == kind and not data["incanon"]["evidence"]["chunks"]
    sent = json.dumps(data)
    assert DEFAULT_REPLY not in sent and not any(later in sent for later in LATER)


# -- 4. /v1 errors and one model ---------------------------------------------------------------------

def test_one_model_by_id_and_openai_shaped_404s(served_api):
    # An id by label (as listed before points were named by position) still finds its entry.
    known = served_api.api.models.retrieve("lanterns/Wren Callow@end of book 1")
    assert known.id == "lanterns/Wren Callow@1-3" and known.model_extra["incanon"]["character"] == "Wren Callow"
    assert served_api.api.models.retrieve("lanterns/Wren Callow@1-3").id == known.id
    with pytest.raises(openai.NotFoundError) as missing:
        served_api.api.models.retrieve("lanterns/Nobody@1-3")
    assert missing.value.body["code"] == "model_not_found" and missing.value.body["param"] == "model"
    for method, path in (("GET", "v1/nope"), ("POST", "v1/completions"), ("GET", "v1/chat/completions")):
        response = httpx.request(method, served_api.url + path)
        error = response.json()["error"]
        assert response.status_code in (404, 405) and set(error) == {"message", "type", "param", "code"}
        assert "detail" not in response.json()


# -- 5. streaming while the model writes ---------------------------------------------------------------

class SlowWriter:
    """A backend that writes its answer in two parts and waits between them until released,
    streaming when asked (as the embedded and OpenAI-compatible backends do)."""

    name = "slow-writer"

    def __init__(self) -> None:
        self.release = threading.Event()

    async def generate(self, messages, params: GenerationParams | None = None) -> Completion:
        if messages[0].role != "system":  # an expert's call: answer at once
            return Completion(text='{"status": "past", "present": true}', model=self.name)
        write = piece_writer()
        if write:
            write("I heard the bell ")
        await asyncio.to_thread(self.release.wait, 30)
        if write:
            write("from the lamp-room.")
        return Completion(text="I heard the bell from the lamp-room.", model=self.name, prompt_tokens=9,
                          completion_tokens=7)


@pytest.mark.parametrize("method", ["rag-cutoff", "in-canon"])
def test_the_answer_streams_while_it_is_written(served, method):
    writer = SlowWriter()
    config = ServeConfig(canon=served.canon, runs=served.runs_path, model="slow", cache=False)
    with BackgroundServer(config, model=load_chat_model(writer)) as url:
        body = {"model": f"lanterns/Wren Callow@1-3/{method}", "stream": True,
                "messages": [{"role": "user", "content": "Who rang the flood bell?"}]}
        with httpx.stream("POST", url + "v1/chat/completions", json=body, timeout=60) as response:
            lines = response.iter_lines()
            chunks = []
            for line in lines:
                if line.startswith("data: {"):
                    chunks.append(json.loads(line[6:]))
                    if chunks[-1]["choices"][0]["delta"].get("content"):
                        break
            # The first words are here while the model is still writing the rest.
            assert chunks[-1]["choices"][0]["delta"]["content"] == "I heard the bell"
            assert not writer.release.is_set()
            writer.release.set()
            for line in lines:
                if line.startswith("data: {"):
                    chunks.append(json.loads(line[6:]))
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    assert text == "I heard the bell from the lamp-room."
    last = chunks[-1]
    assert last["choices"][0]["finish_reason"] == "stop" and last["usage"]["completion_tokens"] >= 7
    assert last["incanon"]["method"] == method and "text" not in last["incanon"]


def test_an_openai_compatible_model_streams_from_a_server(served_api):
    from incanon.models.openai_compat import OpenAIChatModel
    from incanon.models.types import user

    model = OpenAIChatModel("Wren@1-3/zero-shot", base_url=served_api.url + "v1")
    pieces = asyncio.run(_collect(model.stream([user("Who rang the flood bell?")])))
    assert "".join(pieces) == CHARACTER_RULES[0][1] and len(pieces) > 1


async def _collect(stream) -> list[str]:
    return [piece async for piece in stream]


# -- 6. cached replies' usage ------------------------------------------------------------------------

def test_a_cached_reply_reports_what_it_cost_and_says_so(served, tmp_path):
    config = ServeConfig(canon=served.canon, runs=served.runs_path, model="scripted-character", cache=False)
    scripted = ScriptedModel(CHARACTER_RULES, default=DEFAULT_REPLY, name="scripted-character")
    with BackgroundServer(config, model=load_chat_model(scripted, cache=tmp_path / "cache.sqlite")) as url:
        api = openai.OpenAI(base_url=url + "v1", api_key="unused", max_retries=0)
        ask = dict(model="Wren@1-3/zero-shot", messages=[{"role": "user", "content": "Who rang the flood bell?"}])
        fresh = api.chat.completions.create(**ask)
        again = api.chat.completions.create(**ask)
        streamed = list(api.chat.completions.create(**ask, stream=True))
    assert len(scripted.calls) == 1
    assert fresh.usage.total_tokens > 0 and fresh.usage.model_extra["incanon_cached"] is False
    assert again.usage.total_tokens == fresh.usage.total_tokens
    assert again.usage.model_extra["incanon_cached"] is True and again.model_extra["incanon"]["cached"] is True
    assert streamed[-1].usage.total_tokens == fresh.usage.total_tokens
    assert streamed[-1].model_extra["incanon"]["cached"] is True


def test_follow_ups_ask_about_people_the_character_knows(served_api):
    response = served_api.post({"model": "lanterns/Wren Callow@1-3/in-canon", "stream": False,
                                "messages": [{"role": "user", "content": OPEN_WEBUI_TASKS["follow_ups"]}]})
    questions = json.loads(response.json()["choices"][0]["message"]["content"])["follow_ups"]
    assert len(questions) == 3 and all(q.endswith("?") for q in questions)
    # Someone Wren knows at the end of book 1, not a word of the reply taken as a topic.
    assert questions[0].startswith("What do you make of ")
    assert not any(q.startswith("Tell me more about") for q in questions)
    assert not any(later in json.dumps(questions) for later in LATER)
