"""Extraction of one chunk: local JSON repair, the model repair turn, cut-off answers, five failed
attempts, plot continuation across chunks."""

from __future__ import annotations

import json

from incanon.bench.coser.curate import ExtractSettings, PlotDraft, RetryPlan, continue_plots, extract_chunk
from incanon.bench.coser.curate.continuation import merge
from incanon.bench.coser.formats import Plot
from incanon.models import ScriptedModel, load_chat_model
from incanon.templates import PromptLibrary

PASSAGE = (
    "The Lamphouse smelled of oil. Wren came through the door at a run.\n\n"
    '"You\'re late, child," said Ottilie. Wren hung her cap on the peg.\n\n'
    "Quill Glassworks sat at the bottom of Furnace Stair. Sefa met Wren at the door.\n\n"
    '"It\'s beautiful," said Wren. The glass was clear as still water.'
)


def _plot(first: str, last: str, summary: str, state: str = "finished", continues: int = -1) -> dict:
    return {
        "chapter_title": "Chapter 1", "first_sentence": first, "last_sentence": last, "prominence": 50,
        "summary": summary,
        "key_characters": [{"name": "Wren Callow", "description": "An apprentice.", "summary": "Wren is late."}],
        "conversation": [{"scenario": "The Lamphouse at dawn.", "topic": "Lateness",
                          "key_characters": [{"name": "Wren Callow", "motivation": "Get in quietly."}],
                          "dialogues": [{"character": "Wren Callow", "message": "[Oops.] I'm late."}]}],
        "state": state, "continues": continues,
    }


GOOD = {
    "chapter_beginnings": [],
    "plots": [
        _plot("The Lamphouse smelled of oil.", "Wren hung her cap on the peg.", "Wren arrives late."),
        _plot("Quill Glassworks sat at the bottom of Furnace Stair.", "The glass was clear as still water.",
              "Sefa shows Wren a chimney."),
    ],
    "next_chunk_start": None,
}


async def _extract(model, unfinished=(), attempts: int = 5, start: int = 100):
    return await extract_chunk(
        load_chat_model(model, retry=None), PromptLibrary(), title="The Wall-Lamps", author="", passage=PASSAGE,
        passage_start=start, i_chunk=0, unfinished=list(unfinished),
        settings=ExtractSettings(retry=RetryPlan(max_attempts=attempts)))


async def test_good_answer_locates_raw_text_in_one_call():
    model = ScriptedModel(queue=[json.dumps(GOOD)])
    result = await _extract(model)
    assert result.ok and len(model.calls) == 1
    first, second = result.drafts
    assert first.plot.text == PASSAGE[: PASSAGE.index("peg.") + 4]
    assert first.offset == 100 and first.end == 100 + len(first.plot.text)
    assert second.plot.text.endswith("still water.")
    assert result.outcome.stats.calls == 1 and result.outcome.stats.repairs == 0
    prompt = model.calls[0].messages[-1].content
    assert PASSAGE in prompt and "Unfinished plots" in prompt
    assert model.calls[0].params.response_format["type"] == "json_schema"


async def test_slips_are_repaired_locally_without_another_call():
    text = "Here is the JSON:\n```json\n" + json.dumps(GOOD)[:-1] + ",}\n```"
    model = ScriptedModel(queue=[text])
    result = await _extract(model)
    assert result.ok and len(model.calls) == 1
    assert "json: trailing comma" in result.notes and "json: surrounding text" in result.notes


async def test_unreadable_answer_goes_to_a_model_repair_turn():
    model = ScriptedModel(queue=["Sorry, the plots are: Wren arrives, Sefa shows a chimney.", json.dumps(GOOD)])
    result = await _extract(model)
    assert result.ok and len(model.calls) == 2
    repair_prompt = model.calls[1].messages[-1].content
    assert "cannot be read" in repair_prompt and "Sorry, the plots are" in repair_prompt
    assert any("repaired by the model" in n for n in result.notes)
    assert result.outcome.stats.repairs == 1


async def test_missing_required_field_is_repaired():
    broken = json.loads(json.dumps(GOOD))
    del broken["plots"][0]["summary"]
    model = ScriptedModel(queue=[json.dumps(broken), json.dumps(GOOD)])
    result = await _extract(model)
    assert result.ok
    assert "plots[0].summary: Field required" in model.calls[1].messages[-1].content


async def test_cut_off_answer_keeps_complete_plots_and_carries_the_rest():
    text = json.dumps(GOOD)
    cut = text[: text.index('"summary": "Sefa') + 20]  # mid-way through the second plot
    model = ScriptedModel(queue=[cut])
    result = await _extract(model)
    assert result.ok and len(model.calls) == 1 and len(result.drafts) == 1
    assert any("unfinished plot" in n for n in result.notes)
    # Everything after the last complete plot is read again with the next chunk.
    assert result.carry_from == result.drafts[0].end
    assert PASSAGE[result.carry_from - 100 :].lstrip().startswith("Quill Glassworks")


async def test_a_chunk_failing_five_attempts_is_a_recorded_failure():
    model = ScriptedModel(default="I would rather not.")
    result = await _extract(model)
    assert not result.ok and result.drafts == []
    outcome = result.outcome
    assert outcome.stats.attempts == 5 and len(model.calls) == 10  # five generations, five repairs
    assert len(outcome.errors) == 5 and outcome.errors[0].startswith("attempt 1: no JSON")
    assert outcome.raw == "I would rather not."
    gens = [c.params for c in model.calls[0::2]]
    # A restart samples afresh (a greedy retry would be the cached first answer again).
    assert gens[0].temperature == 0 and all(p.temperature > 0 for p in gens[1:])
    assert [p.epoch for p in gens] == [0, 1, 2, 3, 4]


async def test_next_chunk_start_carries_the_unextracted_storyline():
    answer = dict(GOOD, plots=GOOD["plots"][:1], next_chunk_start="Quill Glassworks sat at the bottom of Furnace Stair")
    result = await _extract(ScriptedModel(queue=[json.dumps(answer)]), start=0)
    assert result.carry_from == PASSAGE.index("Quill Glassworks")


def _draft(summary: str, text: str, state: str = "finished", dialogues=None, i_chunk: int = 0, offset: int = 0):
    conv = {"scenario": "On the wall at night.", "key_characters": [{"name": "Wren Callow", "motivation": "m"}],
            "dialogues": dialogues or [{"character": "Wren Callow", "message": "One."}]}
    plot = Plot(text=text, summary=summary, key_characters=[{"name": "Wren Callow", "summary": "a"}],
                conversation=[conv], state=state)
    return PlotDraft(plot, i_chunk, offset, [], offset + len(text))


def test_continuation_by_claim_merges_text_characters_and_dialogue():
    old = _draft("Wren walks the wall in the storm.", "First half.", state="truncated")
    new = _draft("Wren walks the wall in the storm and relights lamp nine.", "Second half.", i_chunk=1, offset=50,
                 dialogues=[{"character": "Wren Callow", "message": "Two."}])
    fresh = _draft("Jory waits at the Beacon.", "Other.", i_chunk=1, offset=80)
    done, still = continue_plots([old], [new, fresh], [0, None])
    assert still == [] and len(done) == 2
    merged = done[0]
    assert merged.offset == 0 and merged.end == 62 and merged.i_chunk == 0
    assert merged.plot.summary.endswith("relights lamp nine.")
    assert [d.message for d in merged.plot.conversation[0].dialogues] == ["One.", "Two."]
    assert "continued in chunk 1" in merged.notes


def test_unclaimed_continuation_is_recognised_by_its_summary():
    old = _draft("Wren walks the wall in the storm.", "a", state="truncated")
    unrelated = _draft("Jory cooks eels on the barge.", "b", i_chunk=1)
    similar = _draft("Wren walks the wall in the storm and the storm grows.", "c", i_chunk=1, state="truncated")
    done, still = continue_plots([old], [unrelated, similar], [None, None])
    assert [d.plot.summary for d in done] == ["Jory cooks eels on the barge."]
    assert len(still) == 1 and still[0].plot.text == "a\nc"


def test_a_plot_never_continued_is_finished_not_lost():
    old = _draft("Wren walks the wall.", "a", state="truncated")
    done, still = continue_plots([old], [_draft("Something else entirely happens here.", "b", i_chunk=1)], [None])
    assert [d.plot.summary for d in done][0] == "Wren walks the wall." and done[0].plot.state == "finished"
    assert "never continued" in done[0].notes and still == []


def test_a_continuation_that_repeats_the_start_replaces_the_conversation():
    old = _draft("s", "a", dialogues=[{"character": "Wren Callow", "message": "One."}])
    new = _draft("s", "b", dialogues=[{"character": "Wren Callow", "message": "One."},
                                      {"character": "Wren Callow", "message": "Two."}])
    assert [d.message for d in merge(old, new).plot.conversation[0].dialogues] == ["One.", "Two."]


# --- refinement and names -----------------------------------------------------------------------

from incanon.bench.coser.curate.names import resolve  # noqa: E402
from incanon.bench.coser.curate.refine import quoted_dialogue, refine_conversation  # noqa: E402
from incanon.bench.coser.curate.schema import NameMapping  # noqa: E402
from incanon.bench.coser.formats import Conversation  # noqa: E402

CONV = Conversation.model_validate({
    "scenario": "The wall.", "topic": "t",
    "key_characters": [{"name": "Wren", "motivation": "m"}, {"name": "Dace", "motivation": "n"}],
    "dialogues": [{"character": "Dace", "message": "[Goad her.] Whoever's lamps are dark at dawn will know where they stand."},
                  {"character": "Wren", "message": "Keep it."}],
})
PLOT = Plot(summary="They quarrel.", conversation=[CONV])


def _setting(scenario: str, names=("Wren", "Dace")) -> str:
    return json.dumps({"scenario": scenario, "key_characters": [{"name": n, "motivation": f"{n} feels."} for n in names]})


async def test_refinement_replaces_the_setting():
    model = ScriptedModel(queue=[_setting("Dawn on the Sea Wall after a long night.")])
    refined, outcome = await refine_conversation(load_chat_model(model, retry=None), PromptLibrary(), title="T",
                                                 plot=PLOT, conv=CONV)
    assert refined.scenario == "Dawn on the Sea Wall after a long night."
    assert [c.motivation for c in refined.key_characters] == ["Wren feels.", "Dace feels."]
    assert refined.dialogues == CONV.dialogues and outcome.stats.calls == 1
    assert "list exactly these characters: Wren, Dace" in model.calls[0].messages[-1].content


async def test_refinement_that_quotes_the_dialogue_or_drops_a_character_is_refused():
    copied = _setting("Dace warns that whoever's lamps are dark at dawn will know where they stand.")
    model = ScriptedModel(queue=[copied, copied, _setting("Dawn.", names=("Wren",)), _setting("x", names=("Wren",)),
                                 _setting("Dawn, before a word is said.")])
    refined, outcome = await refine_conversation(load_chat_model(model, retry=None), PromptLibrary(), title="T",
                                                 plot=PLOT, conv=CONV)
    assert refined.scenario == "Dawn, before a word is said."
    assert "repeats the conversation's own words" in outcome.errors[0] and "missing ['Dace']" in outcome.errors[1]
    assert quoted_dialogue("Nothing of the sort is said here at all today my friend.", CONV) is None


async def test_refinement_failing_every_attempt_keeps_the_original():
    model = ScriptedModel(default="no")
    refined, outcome = await refine_conversation(load_chat_model(model, retry=None), PromptLibrary(), title="T",
                                                 plot=PLOT, conv=CONV, retry=RetryPlan(max_attempts=2))
    assert refined is None and len(outcome.errors) == 2 and len(model.calls) == 4


def test_name_resolution_fills_what_the_model_left_out():
    mapping = NameMapping(named_characters=["Wren Callow", "Dace Morrow"],
                          to_official_name={"Wren": "Wren Callow", "the guard": "impersonal", "Morrow": "dace morrow"})
    names = ["Wren", "the guard", "Morrow", "Wren Calow", "Callow", "Jory Callow", "a stranger", "Environment"]
    result, official, notes = resolve(names, mapping)
    assert result["Wren"] == "Wren Callow" and result["the guard"] == "impersonal"
    assert result["Morrow"] == "Dace Morrow"  # the model's spelling is matched to the official list
    assert result["Wren Calow"] == "Wren Callow"  # a close spelling
    assert result["Callow"] == "Wren Callow"  # its words belong to one official name only
    assert result["Jory Callow"] == "Jory Callow"  # a capitalised name stands for itself
    assert result["a stranger"] == "impersonal"
    assert official == ["Wren Callow", "Dace Morrow", "Jory Callow"]
    assert len(notes) == 4  # one per name the model left out (Environment is no name)
    # No mapping at all (every attempt failed): names stand for themselves where they can.
    result, official, _ = resolve(["Wren", "someone"], None)
    assert result == {"Wren": "Wren", "someone": "impersonal"} and official == ["Wren"]
