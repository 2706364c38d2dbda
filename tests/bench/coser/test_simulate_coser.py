"""The multi-agent simulation: prompts, visibility of thoughts, next-speaker rules, continue-from."""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np
import pytest

from incanon.agents import create_agent
from incanon.bench.coser.agents import clean_reply
from incanon.bench.coser.formats import BookData, TestSample
from incanon.bench.coser.simulation import (
    BookMemory, Cast, SimulationConfig, case_domain, case_id, decide, parse_prediction, parse_rag, simulate_case,
)
from incanon.bench.coser.simulation.nsp import Prediction, case_rng, fallback_pool
from incanon.bench.coser.simulation.rag import documents, involved_plots
from incanon.bench.coser.textsplit import split_text
from incanon.errors import ConfigError
from incanon.models import Message, ScriptedModel

SPEAKERS = ["Mr Bennet", "Elizabeth Bennet", "Environment"]
UNFILLED = re.compile(r"\{\{\s*\w|\w\s*\}\}|\{%|\{[a-z_]+\}")


def sample_data(**changes) -> dict:
    data = {
        "book": "Pride and Prejudice", "i_c": 0, "tag": "id",
        "scenario": "Mr Bennet's study, late afternoon. He holds a letter from Mr Collins.",
        "topic": "the letter",
        "key_characters": [
            {"name": "Elizabeth Bennet", "thought": "I dread what this letter says about Mr Darcy."},
            {"name": "Mr Bennet", "motivation": "This letter promises fine sport at Lizzy's expense."},
        ],
        "dialogues": [
            {"character": "Mr Bennet", "message": "[ORIG-THOUGHT-1 I can barely contain myself.] Lizzy, come into my room."},
            {"character": "Elizabeth Bennet", "message": "[ORIG-THOUGHT-2 Dread.] (follows him) What is it, Papa?"},
            {"character": "Mr Bennet", "message": "[ORIG-THOUGHT-3] I have a letter that astonished me."},
            {"character": "Environment", "message": "The fire crackles in the grate."},
            {"character": "Elizabeth Bennet", "message": "[ORIG-THOUGHT-4] From whom, Papa?"},
        ],
        "speaking_characters_w_env": SPEAKERS,
        "major_characters": ["Mr Bennet", "Elizabeth Bennet"],
        "plot": {"summary": "Mr Collins writes about rumours of an engagement.", "i_p": 70,
                 "key_characters": [{"name": "Mr Bennet", "description": "Her sardonic father, in his library."}]},
        "character_profiles": {"Mr Bennet": "PROFILE-BENNET: father of five, fond of irony.",
                               "Elizabeth Bennet": "PROFILE-LIZZY: quick-witted second daughter."},
    }
    data.update(changes)
    return data


def secret_actor() -> ScriptedModel:
    counter = {"n": 0}

    def reply(messages: Sequence[Message]) -> str:
        name = re.match(r"You are (.+?), a character", messages[0].content).group(1)
        counter["n"] += 1
        return f"[SECRET-{name}-{counter['n']}] (looks up) Speech number {counter['n']}."

    return ScriptedModel(default=reply, name="actor")


def cast(nsp_reply="random", actor=None, env=None) -> Cast:
    return Cast(actor=actor or secret_actor(), nsp=ScriptedModel(default=nsp_reply, name="nsp"),
                environment=env or ScriptedModel(default="[ENV-HIDDEN?] A log shifts in the fire.", name="env"))


async def test_prompts_hold_motivation_from_either_field_profiles_and_no_placeholder():
    the_cast = cast()
    sim = await simulate_case(TestSample.model_validate(sample_data()), the_cast, SimulationConfig(max_rounds=2))
    lizzy, bennet = sim.prompts["Elizabeth Bennet"], sim.prompts["Mr Bennet"]
    assert "I dread what this letter says about Mr Darcy." in lizzy          # published as "thought"
    assert "fine sport at Lizzy's expense" in bennet                        # published as "motivation"
    assert "fine sport" not in lizzy and "I dread" not in bennet             # only one's own motivation
    assert "PROFILE-LIZZY" in lizzy and "PROFILE-BENNET" in lizzy            # own and the others' profiles
    assert "Her sardonic father" in bennet and "PROFILE-BENNET" in bennet    # plot description + book profile
    assert "Mr Bennet's study" in lizzy
    assert "Mr Bennet, Elizabeth Bennet" in sim.prompts["Environment"]
    assert all(name in sim.prompts["NSP"] for name in SPEAKERS)
    for prompt in sim.prompts.values():
        assert not UNFILLED.search(prompt), prompt
    for call in the_cast.actor.calls + the_cast.environment.calls + the_cast.nsp.calls:  # type: ignore[attr-defined]
        for message in call.messages:
            assert not UNFILLED.search(message.content)


async def test_thoughts_never_reach_another_agent():
    the_cast = cast()
    sample = TestSample.model_validate(sample_data())
    sim = await simulate_case(sample, the_cast, SimulationConfig(max_rounds=12, continue_from=2))
    assert len(sim.messages) == 12
    for call in the_cast.actor.calls:  # type: ignore[attr-defined]
        me = re.match(r"You are (.+?), a character", call.messages[0].content).group(1)
        seen = "\n".join(m.content for m in call.messages)
        for other in ("Mr Bennet", "Elizabeth Bennet"):
            if other != me:
                assert f"SECRET-{other}" not in seen
        own_originals = {"Mr Bennet": "ORIG-THOUGHT-1", "Elizabeth Bennet": "ORIG-THOUGHT-2"}
        for who, marker in own_originals.items():
            assert (marker in seen) == (who == me)
    for call in the_cast.environment.calls + the_cast.nsp.calls:  # type: ignore[attr-defined]
        seen = "\n".join(m.content for m in call.messages)
        assert "SECRET-" not in seen and "ORIG-THOUGHT" not in seen
    assert any("SECRET-" in m.content for m in sim.messages)  # the record itself keeps them


async def test_end_before_round_five_is_ignored():
    the_cast = cast(nsp_reply="<END CHAT>")
    sim = await simulate_case(TestSample.model_validate(sample_data()), the_cast)
    assert len(sim.messages) == 6 and sim.ended_by == "nsp"
    assert [d.fallback for d in sim.decisions[:5]] == ["end before round 5"] * 5
    assert sim.decisions[5].speaker is None and sim.decisions[5].after_round == 5


async def test_twenty_round_cap_and_no_prediction_after_the_last_round():
    the_cast = cast(nsp_reply="I am not sure.")
    sim = await simulate_case(TestSample.model_validate(sample_data()), the_cast)
    assert len(sim.messages) == 20 and sim.ended_by == "max_rounds"
    assert len(the_cast.nsp.calls) == 19  # type: ignore[attr-defined]
    assert all(d.fallback == "no speaker named" for d in sim.decisions)
    for before, after in zip(sim.messages, sim.messages[1:]):
        assert before.role != after.role  # a random pick never repeats the speaker
    again = await simulate_case(TestSample.model_validate(sample_data()), cast(nsp_reply="I am not sure."))
    assert [m.role for m in again.messages] == [m.role for m in sim.messages]  # seeded per case


async def test_named_speakers_are_followed():
    names = iter(["Elizabeth Bennet", "**Environment**.", "Next: Mr Bennet", "Lizzy? no: Elizabeth", "END"])
    the_cast = cast(nsp_reply=lambda messages: next(names))
    sim = await simulate_case(TestSample.model_validate(sample_data()), the_cast,
                              SimulationConfig(end_from_round=3))
    assert [m.role for m in sim.messages] == ["Mr Bennet", "Elizabeth Bennet", "Environment", "Mr Bennet",
                                              "Elizabeth Bennet"]
    assert [m.source for m in sim.messages] == ["actor", "actor", "environment", "actor", "actor"]
    assert sim.messages[2].content == "[ENV-HIDDEN?] A log shifts in the fire."


async def test_continue_from_replays_the_original_without_model_calls():
    the_cast = cast(nsp_reply="END")
    sample = TestSample.model_validate(sample_data())
    sim = await simulate_case(sample, the_cast, SimulationConfig(continue_from=3))
    assert [m.source for m in sim.messages[:3]] == ["original"] * 3
    assert [m.content for m in sim.messages[:3]] == [t.message for t in sample.dialogues[:3]]
    assert sim.messages[3].role == "Environment"  # the original's fourth speaker acts next
    assert sim.decisions[0].raw == "original: Environment"
    assert len(the_cast.environment.calls) >= 1  # type: ignore[attr-defined]
    first_actor_call = the_cast.actor.calls[0]  # type: ignore[attr-defined]
    assert "Lizzy, come into my room." in "\n".join(m.content for m in first_actor_call.messages)
    # The whole original replayed, then it ends (after round 5 the original's end is honoured).
    long = sample_data(dialogues=sample_data()["dialogues"] * 2)
    sim = await simulate_case(TestSample.model_validate(long), cast(), SimulationConfig(continue_from=50))
    assert len(sim.messages) == 10 and sim.ended_by == "original"
    assert all(m.source == "original" for m in sim.messages)


@pytest.mark.parametrize(("text", "expected"), [
    ("Mr Bennet", Prediction(kind="name", name="Mr Bennet")),
    ("**Elizabeth Bennet**.", Prediction(kind="name", name="Elizabeth Bennet")),
    ("Next speaker: environment", Prediction(kind="name", name="Environment")),
    ('{"next_speaker": "Mr Bennet"}', Prediction(kind="name", name="Mr Bennet")),
    ("Elizabeth", Prediction(kind="name", name="Elizabeth Bennet")),
    ("<END CHAT>", Prediction(kind="end")),
    ("The scene ends.", Prediction(kind="end")),
    ("END", Prediction(kind="end")),
    ("random", Prediction(kind="random")),
    ("Bennet", Prediction(kind="unknown")),  # names two candidates
    ("nobody", Prediction(kind="unknown")),
])
def test_parse_prediction(text, expected):
    assert parse_prediction(text, SPEAKERS) == expected


def test_decide_fallbacks():
    rng = case_rng(0, "case")
    kwargs = dict(current="Mr Bennet", speakers=SPEAKERS, majors=["Mr Bennet", "Elizabeth Bennet"], rng=rng)
    same = decide(Prediction(kind="name", name="Mr Bennet"), raw="Mr Bennet", round_index=7, **kwargs)
    assert same.fallback == "same speaker again" and same.speaker in ("Elizabeth Bennet", "Environment")
    assert decide(Prediction(kind="end"), raw="END", round_index=5, **kwargs).speaker is None
    assert decide(Prediction(kind="end"), raw="END", round_index=4, **kwargs).fallback == "end before round 5"
    assert decide(Prediction(kind="name", name="Jane"), raw="Jane", round_index=1, **kwargs).fallback
    assert fallback_pool("Mr Bennet", SPEAKERS + ["Mr Collins"], ["Mr Bennet"]) == ["Environment"]
    assert fallback_pool("A", ["A"], []) == ["A"]


def test_clean_reply():
    others = SPEAKERS
    assert clean_reply("Mr Bennet: [Ha.] Lizzy!", "Mr Bennet", others) == "[Ha.] Lizzy!"
    assert clean_reply("**Mr Bennet**: Lizzy!\nElizabeth Bennet: Papa?\nMr Bennet: more", "Mr Bennet", others) == "Lizzy!"
    assert clean_reply("Lizzy!\n\nEnvironment: wind", "Mr Bennet", others) == "Lizzy!"
    assert clean_reply("(waves)\nMr Bennet: and again", "Mr Bennet", others) == "(waves)"


def test_case_id_and_domain():
    sample = TestSample.model_validate(sample_data())
    assert case_id(sample) == "Pride and Prejudice-70-0"
    assert case_domain(sample) == "in-domain"
    assert case_domain(TestSample.model_validate(sample_data(tag="ood"))) == "out-of-domain"
    assert case_domain(TestSample.model_validate(sample_data(tag=None))) is None


def test_agent_is_registered_and_needs_its_setting():
    with pytest.raises(ConfigError, match="setting"):
        create_agent("coser-gca", ScriptedModel(default="x"))


# -- retrieval --------------------------------------------------------------------------------

def book() -> BookData:
    plots = []
    for i in range(10):
        plots.append({
            "summary": f"plot {i}", "chapter": f"Chapter {i}", "text": f"RAW-TEXT-{i} " + "word " * 30,
            "key_characters": [{"name": "Elizabeth Bennet", "description": "d", "experience": f"LIZZY-EXP-{i}"}],
            "conversation": [{"scenario": f"scene {i}", "topic": "talk",
                              "key_characters": [{"name": "Elizabeth Bennet", "motivation": "t"}],
                              "dialogues": [{"character": "Elizabeth Bennet", "message": f"[own {i}] LIZZY-CONV-{i}"},
                                            {"character": "Jane Bennet", "message": f"[JANE-SECRET-{i}] Yes."}]}],
        })
    lizzy = {"profile": "p", "plots": [{"name": "Elizabeth Bennet", "i_p": i} for i in range(10)],
             "conversations": [], "utterances": []}
    return BookData.model_validate({"title": "Pride and Prejudice", "plots": plots, "split_plot_index": 8,
                                    "character_datasets": {"Elizabeth Bennet": lizzy}})


class CountingEmbedder:
    name, dim = "fake", 4

    def __init__(self):
        self.queries: list[str] = []

    def embed(self, texts, kind="passage"):
        # Later plots score higher, so a leak past the cut-off would be retrieved first.
        if kind == "query":
            self.queries.extend(texts)
        rows = []
        for text in texts:
            digits = re.findall(r"\d+", text)
            n = float(digits[-1]) if digits and kind == "passage" else 1.0
            rows.append([1.0, n, 0.0, 0.0] if kind == "passage" else [0.0, 1.0, 0.0, 0.0])
        vectors = np.asarray(rows, dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_parse_rag():
    spec = parse_rag("expr3_conv1")
    assert (spec.experiences, spec.conversations, spec.name) == (3, 1, "expr3_conv1")
    assert parse_rag("conv1").experiences == 0 and parse_rag("expr10").conversations == 0
    assert parse_rag("raw_text").kinds() == [("book", 1)] and parse_rag("raw_text").name == "raw_text"
    assert parse_rag(None) is None and parse_rag("none") is None
    with pytest.raises(ConfigError):
        parse_rag("expr")
    with pytest.raises(ConfigError):
        parse_rag("everything")


def test_scope_keeps_later_plots_out_unless_asked():
    b = book()
    assert involved_plots(b, "Elizabeth Bennet", 5, "before") == [0, 1, 2, 3, 4]
    assert involved_plots(b, "Elizabeth Bennet", None, "before") == list(range(8))  # the held-out split
    assert involved_plots(b, "Elizabeth Bennet", 5, "book") == list(range(10))  # as CoSER's code
    assert involved_plots(b, "Jane Bennet", 5, "book") == []  # no character data: no retrieval


def test_documents_of_each_kind():
    b = book()
    assert documents(b, "Elizabeth Bennet", "experience", [3]) == ["Plot: plot 3\nElizabeth Bennet's part: LIZZY-EXP-3"]
    (conv,) = documents(b, "Elizabeth Bennet", "conversation", [3])
    assert conv.startswith("Plot: plot 3\n\nScene: scene 3\n\nTopic: talk\n\nConversation:")
    assert "Elizabeth Bennet: LIZZY-CONV-3" in conv and "[" not in conv  # every thought removed, as the reference
    assert documents(b, "Elizabeth Bennet", "book", [1, 2])[1].startswith("RAW-TEXT-2")


def test_split_text_cuts_with_overlap_at_the_widest_separator():
    text = "\n\n".join(f"para{i} " + "x" * 40 for i in range(6))  # six paragraphs of 46 characters
    parts = split_text(text, size=100, overlap=50)
    # Two paragraphs (46 + 48 characters, separator included) per passage; the last one carried over.
    assert parts == ["\n\n".join(text.split("\n\n")[i:i + 2]) for i in (0, 1, 2, 3, 4)]
    assert split_text("a" * 250, size=100, overlap=20) == ["a" * 100, "a" * 100, "a" * 90]
    # Overlap is kept only while the next piece still fits (LangChain's splitter gives the same).
    words = split_text("one two three four five six", size=10, overlap=4)
    assert words == ["one two", "two three", "four five", "six"]


async def test_memories_are_retrieved_before_every_message(tmp_path):
    from incanon.bench.coser.files import write_book

    write_book(book(), tmp_path / "Pride and Prejudice.json")
    embedder = CountingEmbedder()
    memory = BookMemory(tmp_path, embedder, parse_rag("expr3_conv1"))
    data = sample_data(plot={**sample_data()["plot"], "i_p": 6})
    nsp = ScriptedModel(default="Elizabeth Bennet", rules=[(r"last message was Elizabeth", "Mr Bennet")])
    actor = secret_actor()
    sim = await simulate_case(TestSample.model_validate(data), Cast(
        actor=actor, nsp=nsp, environment=ScriptedModel(default="wind"), memory=memory),
        SimulationConfig(max_rounds=4))
    lizzy = [m for m in sim.messages if m.role == "Elizabeth Bennet"]
    assert len(lizzy) == 2 and len(embedder.queries) == 2  # one retrieval per message, Mr Bennet has no data
    for m in lizzy:
        experiences, conversation = m.retrieved
        assert all(f"LIZZY-EXP-{i}" in experiences for i in (3, 4, 5)) and "LIZZY-EXP-6" not in experiences
        assert experiences.index("LIZZY-EXP-3") < experiences.index("LIZZY-EXP-5")  # story order
        assert "LIZZY-CONV-5" in conversation and "LIZZY-CONV-4" not in conversation
    assert all(m.retrieved is None for m in sim.messages if m.role != "Elizabeth Bennet")
    # The query is the scene as she sees it: her last three chat messages (her own thoughts included).
    assert "Mr Bennet: (looks up) Speech number 3." in embedder.queries[1]
    assert "[SECRET-Elizabeth Bennet-2]" in embedder.queries[1]
    assert "LIZZY-EXP" not in sim.prompts["Elizabeth Bennet"]  # the stored prompt is the one without memories
