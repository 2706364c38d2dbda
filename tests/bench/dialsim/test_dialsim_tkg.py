"""TKG extraction: per session, checked, cached, failures reported."""

from __future__ import annotations

import json

import pytest

from dialsim_helpers import tiny_store
from incanon.bench.dialsim import RELATIONS, TKG, TKGExtractor, load_script, normalize_relation, quads_from_rows
from incanon.bench.dialsim.tkg import parse_triples
from incanon.errors import InputError
from incanon.models import ScriptedModel


def test_thirty_two_relations_and_their_spellings():
    assert len(RELATIONS) == 32
    assert normalize_relation("Ex_Girlfriend") == "ex-girlfriend"
    assert normalize_relation("place-of-work") == "place of work"
    assert normalize_relation("dating") == "dating with"
    assert normalize_relation("ex girlfriend") == "ex-girlfriend"
    assert normalize_relation("best friend") is None


def test_triples_are_read_from_json_in_any_wrapping():
    assert parse_triples('{"triples": [{"head": "Ben", "relation": "job", "tail": "baker"}]}') == [["Ben", "job", "baker"]]
    assert parse_triples('Sure!\n```json\n[["Ben", "job", "baker"]]\n```') == [["Ben", "job", "baker"]]
    with pytest.raises(ValueError):
        parse_triples("Ben is a baker.")


def _extractor_model():
    def reply(messages):
        prompt = messages[0].content
        if "Bread at four" in prompt:
            return json.dumps({"triples": [{"head": "ben", "relation": "occupation", "tail": "baker"},
                                           {"head": "Ben", "relation": "best friend", "tail": "Ana"}]})
        if "new smith" in prompt:
            return "I could not find anything."  # unreadable, and so is the repair
        return '{"triples": []}'
    return ScriptedModel(default=reply)


async def test_extraction_checks_every_triple_and_caches_each_session(tmp_path):
    store = tiny_store(tmp_path / "canon")
    script = load_script(store, "tiny", "Ana")
    model = _extractor_model()
    cache = tmp_path / "tkg_cache.json"
    tkg = await TKGExtractor(model, cache_path=cache).extract(script)
    assert [(q.head, q.relation, q.tail, q.session, q.date) for q in tkg.quads] == [
        ("Ben", "job", "baker", "session-1", "2020-01-01")]
    errors = [f["error"] for f in tkg.failures]
    assert any("best friend" in e for e in errors), "an unknown relation is reported, not silently dropped"
    assert any(f["session"] == "session-2" and "I could not find" in f["raw"] for f in tkg.failures)
    first_calls = len(model.calls)
    assert first_calls == 5 + 1  # one call per session, plus one repair for the unreadable one
    again = _extractor_model()
    tkg2 = await TKGExtractor(again, cache_path=cache).extract(script)
    assert len(again.calls) == 2 and tkg2.quads == tkg.quads, "only the failed session is asked again"


async def test_the_extraction_prompt_asks_for_the_32_relations_under_a_grammar(tmp_path):
    store = tiny_store(tmp_path / "canon")
    script = load_script(store, "tiny", "Ana")
    model = ScriptedModel(default='{"triples": []}')
    await TKGExtractor(model).session_triples(script, script.sessions[0])
    call = model.calls[0]
    assert "place of work" in call.messages[0].content and "Bread at four" in call.messages[0].content
    schema = call.params.response_format["json_schema"]["schema"]
    assert len(schema["properties"]["triples"]["items"]["properties"]["relation"]["enum"]) == 32


def test_rows_are_validated_and_saved(tmp_path):
    store = tiny_store(tmp_path / "canon")
    script = load_script(store, "tiny", "Ana")
    tkg = quads_from_rows([["ben", "job", "baker", "session-1"], ["Ben", "job", "baker", "session-1"]], script)
    assert len(tkg.quads) == 1 and tkg.quads[0].head == "Ben"
    tkg.save(tmp_path / "tkg.json")
    assert TKG.load(tmp_path / "tkg.json") == tkg
    with pytest.raises(InputError, match="32 relations"):
        quads_from_rows([["Ben", "hobby", "rowing", "session-1"]], script)
    with pytest.raises(Exception, match="unknown session"):
        quads_from_rows([["Ben", "job", "baker", "session-9"]], script)


class _CutModel:
    """Replies like a small model that lists facts until the token limit cuts it off."""

    name = "cut"

    def __init__(self):
        self.calls = 0

    async def generate(self, messages, params=None):
        from incanon.models import Completion

        self.calls += 1
        text = ('{"triples": [{"head": "Ben", "relation": "job", "tail": "baker"}, '
                '{"head": "Ben", "relation": "job", "tail": "baker"}, {"head": "Ben", "rel')
        return Completion(text=text, model="cut", finish_reason="length")


async def test_a_reply_cut_at_the_token_limit_keeps_its_complete_triples_and_says_so(tmp_path):
    store = tiny_store(tmp_path / "canon")
    script = load_script(store, "tiny", "Ana")
    model = _CutModel()
    tkg = await TKGExtractor(model).extract(script.first(1))
    assert [(q.head, q.relation, q.tail) for q in tkg.quads] == [("Ben", "job", "baker")]
    assert model.calls == 1, "no repair turn is needed for salvageable output"
    assert tkg.failures and "token limit" in tkg.failures[0]["error"]
