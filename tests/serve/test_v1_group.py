"""SillyTavern group chats over ``/v1``: one request per character, the group's history in
``messages``. The other characters' lines (by their ``name`` field or a leading ``Name:``) are
what the answering character heard, under the names it knows them by, never its own words; a
secret name is never joined to its person; the answering character is the scoped builder's."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from incanon.canon import CanonStore
from incanon.canon.position import Position
from incanon.errors import InputError
from incanon.models import ScriptedModel
from incanon.serve import ServeConfig, create_app
from incanon.serve.requests import client_lines, completion_name, leading_label, readable_name
from incanon.serve.scene_group import group_history

from tests.canon.secret_world import secret_world

NEUTRAL = "I would rather not say."
#: The will Ord read himself (1-2-1): it names Vane and Crane together, and he knows it.
WILL = "Ord took the will of Aurel Vane from his safe. Every penny was to go to Silas Crane"


@pytest.fixture
def vane_store(tmp_path: Path) -> Iterator[CanonStore]:
    store = CanonStore.open(tmp_path / "canon")
    store.import_world(secret_world())
    yield store
    store.close()


class Group:
    """The app over the Jekyll-like world, a scripted model keeping every call."""

    def __init__(self, client: TestClient, model: ScriptedModel) -> None:
        self.client, self.model = client, model
        self.answer = ""
        """The last reply's in-character prompt (its call's messages, one text)."""

    def ask(self, model: str, messages: list[dict]) -> tuple[dict, list[str]]:
        """The reply to a group request, and every message of every call it made (the
        in-character call last)."""
        before = len(self.model.calls)
        response = self.client.post("/v1/chat/completions", json={"model": model, "messages": messages})
        assert response.status_code == 200, response.text
        calls = self.model.calls[before:]
        assert calls and calls[-1].messages[0].role == "system", "the in-character call comes last"
        self.answer = "\n\n".join(m.content for m in calls[-1].messages)
        return response.json(), [m.content for call in calls for m in call.messages]


@pytest.fixture
def group(tmp_path: Path) -> Iterator[Group]:
    # The bundled embedder, as served (four chunks: seconds). An embedder in the server's own
    # process (a test double, an endpoint) meets a store-opening bug here, see the report.
    with CanonStore.open(tmp_path / "canon") as store:
        store.import_world(secret_world())
    model = ScriptedModel(default=NEUTRAL, name="scripted-group")
    config = ServeConfig(canon=tmp_path / "canon", runs=tmp_path / "runs.sqlite", model="scripted-group",
                         cache=False, chats=False)
    with TestClient(create_app(config, model=model), base_url="http://127.0.0.1") as client:
        yield Group(client, model)


def _linked(messages: list[str]) -> list[str]:
    """Sentences that put Silas Crane beside Vane, other than the will Ord read himself."""
    return [sentence for text in messages for sentence in re.split(r"(?<=[.!?])\s+|\n", text.replace(WILL, ""))
            if "Silas Crane" in sentence and "Vane" in sentence]


# -- reading the request --------------------------------------------------------------------------

def test_names_are_read_as_sillytavern_writes_them():
    assert leading_label("Aurel Vane: Good evening.") == ("Aurel Vane", "Good evening.")
    assert leading_label("Ottilie Brand\uff1a hush") == ("Ottilie Brand", "hush")
    for plain in ("(Ord lowers his voice.) Listen: no.", "Who is it? Crane: no", "A long, winding: road", "Ord:"):
        assert leading_label(plain) is None, plain
    assert completion_name("Dr. Aurel Vane") == "Dr__Aurel_Vane" and readable_name("Aurel_Vane") == "Aurel Vane"
    assert readable_name("_____") == ""
    lines = client_lines([{"role": "system", "content": "[Start a new group chat.]"},
                          {"role": "user", "content": "Hi", "name": "You"},
                          {"role": "assistant", "content": [{"type": "text", "text": "Evening."}],
                           "name": "Aurel_Vane"}])
    assert [(l.index, l.role, l.text, l.name) for l in lines] == [(1, "user", "Hi", "You"),
                                                                (2, "assistant", "Evening.", "Aurel_Vane")]
    with pytest.raises(InputError, match=r"messages\[0\]\.name"):
        client_lines([{"role": "assistant", "content": "x", "name": 3}])


def _history(store: CanonStore, own: str, at: str, messages: list[dict]):
    record = store.character("vane", own)
    return group_history(store, "vane", record, Position.parse(at), client_lines(messages))


def test_each_line_goes_to_its_speaker(vane_store):
    messages = [
        {"role": "user", "content": "An evening call.", "name": "You"},
        {"role": "assistant", "name": "Aurel_Vane", "content": "Aurel Vane: Good evening, Ord."},  # both, repeated
        {"role": "assistant", "content": "Doctor Vane: The fire is warm."},  # an alias in use, in the content
        {"role": "assistant", "content": "Matthias Ord: Sit down, Vane."},  # his own, labelled
        {"role": "assistant", "content": "Indeed."},  # no label: his own
        {"role": "assistant", "name": "Silas_Crane", "content": "I have business here."},  # a secret name
        {"role": "assistant", "content": "Edward Pike: I am only the cabman."},  # nobody of the work
        {"role": "user", "content": "What of the will?"},
    ]
    history = _history(vane_store, "Ord", "1-2-1", messages)
    assert [(l.speaker, l.text) for l in history.lines] == [
        ("narrator", "An evening call."), ("Aurel Vane", "Good evening, Ord."), ("Aurel Vane", "The fire is warm."),
        ("Matthias Ord", "Sit down, Vane."), ("Matthias Ord", "Indeed."),
        ("Silas Crane", "I have business here."), ("Edward Pike", "I am only the cabman."),
        ("narrator", "What of the will?")]
    assert [r.name for r in history.cast] == ["Aurel Vane"] and history.unknown == ["Silas Crane", "Edward Pike"]
    assert all(l.heard_by == ["Matthias Ord"] for l in history.lines)
    # For Vane himself his secret name is his own: he knows it.
    own = _history(vane_store, "Doctor Vane", "1-2-1", messages)
    assert [l.speaker for l in own.lines if l.text == "I have business here."] == ["Aurel Vane"]


def test_a_one_to_one_chat_is_not_a_group(vane_store):
    # Nobody but the user and Ord: read as before (None), even with Ord's own name field and label.
    assert _history(vane_store, "Ord", "1-2-1", [
        {"role": "user", "content": "Hello", "name": "You"},
        {"role": "assistant", "name": "Matthias_Ord", "content": "Matthias Ord: Good day."},
        {"role": "user", "content": "Note: the will is here."}]) is None


# -- through /v1 -------------------------------------------------------------------------------------

def test_the_other_characters_line_is_heard_as_theirs_not_as_his_own(group):
    # SillyTavern's default in groups: every character's line prefixed with its name; the user's not.
    messages = [
        {"role": "system", "content": "[Start a new group chat. Group members: Matthias Ord, Aurel Vane]"},
        {"role": "user", "content": "An evening call at the lawyer's."},
        {"role": "assistant", "content": "Aurel Vane: Good evening, Ord. The fire is welcome."},
        {"role": "assistant", "content": "Matthias Ord: Sit down, Vane."},
        {"role": "user", "content": "What do you make of the will?"},
        {"role": "system", "content": "[Write the next reply only as Matthias Ord.]"},
    ]
    reply, sent = group.ask("vane/Matthias Ord@1-2-1", messages)
    assert reply["choices"][0]["message"]["content"] == NEUTRAL
    assert reply["incanon"]["character"] == "Matthias Ord" and reply["incanon"]["at"] == "1-2-1"
    answer = group.model.calls[-1].messages
    turns = [(m.role, m.content) for m in answer[1:]]
    assert turns[0][0] == "user" and "You are in a scene with Aurel Vane." in turns[0][1]
    assert "Aurel Vane: Good evening, Ord. The fire is welcome." in turns[0][1]
    assert turns[1] == ("assistant", "Sit down, Vane.")  # his own, without his label
    assert turns[2][0] == "user" and turns[2][1].startswith("What do you make of the will?")
    # Vane's words never come as Ord's own.
    assert all("The fire is welcome" not in m.content for m in answer if m.role == "assistant")
    # Ord is the scoped builder's, at 1-2-1: his persona, not Vane's.
    assert answer[0].role == "system" and answer[0].content.startswith("You are Matthias Ord")
    assert "In secret you are also" not in group.answer

    # The same history by "names in completion" (the name field, sanitized) reads the same.
    by_field = [dict(m) for m in messages]
    by_field[2] = {"role": "assistant", "name": "Aurel_Vane", "content": "Good evening, Ord. The fire is welcome."}
    by_field[3] = {"role": "assistant", "name": "Matthias_Ord", "content": "Sit down, Vane."}
    group.ask("vane/Matthias Ord@1-2-1", by_field)
    assert [(m.role, m.content) for m in group.model.calls[-1].messages[1:]] == turns


def test_the_secret_is_jekylls_until_he_says_it_in_the_history(group):
    history = [
        {"role": "user", "content": "An evening call at the lawyer's; Tull is by the fire."},
        {"role": "assistant", "name": "Aurel_Vane", "content": "Good evening, Ord."},
        {"role": "user", "content": "Ord, what do you make of your friend?"},
    ]
    _, before = group.ask("vane/Matthias Ord@1-2-1", history)
    assert before and not _linked(before)
    assert "Aurel Vane: Good evening, Ord." in group.answer
    assert all("In secret you are also" not in m for m in before)
    # Vane, answering in the same group, knows: his own prompt says so, and Ord's line is Ord's.
    _, his = group.ask("vane/Aurel Vane@1-2-1", [*history[:2], {"role": "assistant", "name": "Matthias_Ord",
                                                                  "content": "Vane, you look pale."}])
    assert "In secret you are also Silas Crane" in group.answer
    assert "Matthias Ord: Vane, you look pale." in group.answer

    # Once Vane says it in the scene, Ord has heard it: as Vane's words, and only as those.
    said = [*history, {"role": "assistant", "name": "Aurel_Vane", "content": "Utterly between us: I am Silas Crane."},
            {"role": "user", "content": "Ord?"}]
    _, after = group.ask("vane/Matthias Ord@1-2-1", said)
    prompt = group.answer
    assert "Aurel Vane: Utterly between us: I am Silas Crane." in prompt
    assert _linked(after) and all("I am Silas Crane" in s for s in _linked(after))
    assert "In secret you are also" not in prompt
    # Tull has never met Vane: a stranger says it, and no name of Vane's reaches him.
    _, tull = group.ask("vane/Bram Tull@1-2-1", said)
    assert "Stranger: Utterly between us: I am Silas Crane." in group.answer
    assert all("Vane" not in m for m in tull)


def test_a_line_under_a_secret_name_is_never_joined_to_its_person(group):
    messages = [{"role": "user", "content": "A knock at the lawyer's door."},
                {"role": "assistant", "name": "Silas_Crane", "content": "I have business with Mr Ord."},
                {"role": "user", "content": "Who is at the door, Ord?"}]
    _, sent = group.ask("vane/Matthias Ord@1-2-1", messages)
    prompt = group.answer
    assert "Silas Crane: I have business with Mr Ord." in prompt
    assert "You are in a scene with Silas Crane." in prompt and not _linked(sent)


def test_a_card_under_another_name_alone_is_still_a_one_to_one_chat(vane_store):
    # "Names in completion" with Ord's card named otherwise: one unknown name, his own lines.
    alone = [{"role": "user", "content": "Hello", "name": "You"},
             {"role": "assistant", "name": "The_Lawyer", "content": "Good day."},
             {"role": "user", "content": "And the will?", "name": "You"}]
    assert _history(vane_store, "Ord", "1-2-1", alone) is None
    # A second unknown name beside it is someone else speaking: a group, both heard as written.
    pair = [*alone[:2], {"role": "assistant", "name": "Edward_Pike", "content": "The cab is waiting."}, alone[2]]
    history = _history(vane_store, "Ord", "1-2-1", pair)
    assert [(l.speaker, l.text) for l in history.lines][1:3] == [("The Lawyer", "Good day."),
                                                                 ("Edward Pike", "The cab is waiting.")]


def test_a_continue_in_a_group_goes_on_from_his_own_line(group):
    messages = [{"role": "user", "content": "An evening call."},
                {"role": "assistant", "name": "Aurel_Vane", "content": "Good evening, Ord."},
                {"role": "assistant", "name": "Matthias_Ord", "content": "Sit down, Vane, and tell me"}]
    reply, _ = group.ask("vane/Matthias Ord@1-2-1", messages)
    assert reply["incanon"]["continued"] is True
    last = group.model.calls[-1].messages[-1]
    assert last.role == "user" and "Aurel Vane: Good evening, Ord." in last.content
    assert "Sit down, Vane, and tell me" in last.content and "Go on from exactly where it stops" in last.content
