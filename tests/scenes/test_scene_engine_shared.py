"""The one scene engine (``incanon.scenes.engine``): who hears a line, what each performer and the
director are shown, how a turn is taken; and both front ends (the product's ``SceneSession`` and
CoSER's ``simulate_case``) take their turns through it. Every visibility check here is also run
against a planted break (a view that shows thoughts, a hearing rule that lets everyone hear an
aside) and is seen to catch it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

import incanon.scenes.engine as engine_module
from incanon.agents.base import Turn
from incanon.bench.coser.formats import TestSample
from incanon.bench.coser.simulation import Cast, SimulationConfig, simulate_case
from incanon.bench.coser.simulation import stage as coser_stage
from incanon.canon.position import Position
from incanon.models import ScriptedModel
from incanon.scenes.engine import (
    DIRECTOR, Cue, Performance, SceneEngine, concealing_view, hearers, hears, said_by,
)

from .conftest import scene, scripted, sent_to

THOUGHT = re.compile(r"\[([^\]]*)\]")


def conceal(text: str) -> str:
    return THOUGHT.sub("", text).strip()


@dataclass
class ToyLine:
    speaker: str
    text: str
    heard_by: list[str] | None = None
    to: str | None = None
    at: str | None = None


@dataclass
class ToyStage:
    """Lines in a list, a story position, the concealing view; records what it is given."""

    present: list[str]
    position: Position | None = None
    lines: list[ToyLine] = field(default_factory=list)
    render_with: object = None

    def render(self, viewer: str, lines: Sequence[ToyLine]) -> list[Turn]:
        render = self.render_with or concealing_view(conceal, open_speakers=("Env",))
        return render(viewer, lines)  # type: ignore[operator]

    def record(self, cue: Cue, performance: Performance) -> ToyLine:
        line = ToyLine(str(cue.speaker), performance.text, hearers(str(cue.speaker), self.present, cue.to,
                                                                   voices=("narrator",)),
                       to=cue.to, at=str(self.position) if self.position else None)
        self.lines.append(line)
        return line


class Order:
    """A director taking speakers in a fixed order, then ending; keeps what it was shown."""

    def __init__(self, *speakers: str) -> None:
        self.speakers = list(speakers)
        self.shown: list[list[Turn]] = []

    async def cue(self, engine: SceneEngine) -> Cue:  # type: ignore[type-arg]
        self.shown.append(engine.public_view())
        return Cue(self.speakers.pop(0), how="order") if self.speakers else Cue.end("done")


class Given:
    """Performers that answer with a secret thought and keep every view they were given."""

    def __init__(self) -> None:
        self.views: list[tuple[str, list[Turn]]] = []

    def __call__(self, speaker: str):  # noqa: ANN204 - the engine's cast
        async def perform(name: str, turns: list[Turn]) -> Performance:
            self.views.append((name, turns))
            thought = "" if name == "Env" else f"[SECRET-{name}-{len(self.views)}] "  # the Environment keeps none
            return Performance(text=f"{thought}Words of {name}.", source="model")

        return perform


def leaks(views: list[tuple[str, list[Turn]]], lines: Sequence[ToyLine]) -> list[str]:
    """What a performer was shown that was not for it: another's thought, or an aside to another."""
    found = []
    for viewer, turns in views:
        seen = "\n".join(t.text for t in turns)
        found += [f"{viewer} saw {m}" for m in re.findall(r"SECRET-([A-Za-z]+)-\d+", seen) if m != viewer]
        found += [f"{viewer} heard the aside to {line.to}" for line in lines
                  if line.to not in (None, viewer) and line.speaker != viewer and line.text in seen]
    return found


async def _toy_scene(stage: ToyStage, engine_cls: type = SceneEngine) -> tuple[SceneEngine, Order, Given]:
    given, director = Given(), Order("Ann", "Bob", "Env", "Ann", "Bob")
    engine = engine_cls(stage, director, given)
    engine.say(Cue("narrator", script="Rain on the roof."))
    engine.say(Cue("narrator", script="(whispers) The key is under the mat.", to="Ann"))
    ending = await engine.run()
    assert ending.ended_by == "done" and engine.ended is ending
    return engine, director, given


async def test_each_performer_sees_what_it_heard_and_no_other_s_thought():
    stage = ToyStage(present=["Ann", "Bob", "Env"])
    engine, director, given = await _toy_scene(stage)
    assert [line.speaker for line in stage.lines] == ["narrator", "narrator", "Ann", "Bob", "Env", "Ann", "Bob"]
    assert leaks(given.views, stage.lines) == []
    ann_last = given.views[3][1]
    assert [t.text for t in ann_last][:2] == ["Rain on the roof.", "(whispers) The key is under the mat."]
    assert "[SECRET-Ann-1]" in ann_last[2].text  # her own thought, whole
    assert ann_last[3].text == "Words of Bob."   # his, concealed
    assert all("key is under the mat" not in t.text for view in director.shown for t in view)  # no aside
    assert all("SECRET" not in t.text for view in director.shown for t in view)  # the director sees no thought
    assert [line.heard_by for line in stage.lines[:3]] == [["Ann", "Bob", "Env"], ["Ann"], ["Ann", "Bob", "Env"]]


async def test_a_planted_view_that_shows_thoughts_is_caught():
    stage = ToyStage(present=["Ann", "Bob", "Env"], render_with=concealing_view(lambda text: text))
    _, _, given = await _toy_scene(stage)
    assert any(leak.startswith("Bob saw Ann") for leak in leaks(given.views, stage.lines))


async def test_a_planted_hearing_rule_that_lets_everyone_hear_an_aside_is_caught():
    class EveryoneHears(SceneEngine):  # type: ignore[type-arg]
        def heard(self, viewer):  # noqa: ANN001, ANN201 - the break under test
            return list(self.stage.lines)

    stage = ToyStage(present=["Ann", "Bob", "Env"])
    _, _, given = await _toy_scene(stage, EveryoneHears)
    assert "Bob heard the aside to Ann" in leaks(given.views, stage.lines)


def test_hearing_dating_and_hearers():
    line = ToyLine("Ann", "hi", heard_by=["Ann", "Bob"], at="1-2")
    assert hears("Bob", line) and not hears("Cy", line) and hears("Cy", ToyLine("Env", "wind"))
    assert said_by(line, Position.parse("1-3")) and not said_by(line, Position.parse("1-1"))
    assert said_by(line, None) and said_by(ToyLine("Env", "wind"), Position.parse("1-1"))
    assert hearers("Ann", ["Bob", "Cy"]) == ["Ann", "Bob", "Cy"]
    assert hearers("narrator", ["Bob"], voices=("narrator",)) == ["Bob"]
    assert hearers("Bob", ["Ann", "Bob"], to="Ann") == ["Bob", "Ann"]


async def test_a_line_said_later_in_the_story_is_not_heard_before_it():
    stage = ToyStage(present=["Ann", "Bob"], position=Position.parse("1-3"))
    engine = SceneEngine(stage, Order(), Given())
    engine.say(Cue("Ann", script="At 1-3."))
    stage.position = Position.parse("1-1")
    engine.say(Cue("Ann", script="At 1-1."))
    assert [line.text for line in engine.heard("Bob")] == ["At 1-1."]
    assert [t.text for t in engine.public_view()] == ["At 1-1."]
    stage.position = Position.parse("1-3")
    assert [line.text for line in engine.heard("Bob")] == ["At 1-3.", "At 1-1."]


async def test_a_cue_overrides_the_director_a_script_asks_no_performer_and_run_has_a_guard():
    stage = ToyStage(present=["Ann", "Bob"])
    director, given = Order("Bob"), Given()
    engine = SceneEngine(stage, director, given)
    line = await engine.step(Cue("Ann", how="user"))
    assert line is not None and line.speaker == "Ann" and director.speakers == ["Bob"] and len(given.views) == 1
    await engine.step(Cue("Bob", how="original", script="As written."))
    assert stage.lines[-1].text == "As written." and len(given.views) == 1
    with pytest.raises(ValueError):
        engine.say(Cue("Ann"))

    class Endless:
        async def cue(self, engine):  # noqa: ANN001, ANN201
            return Cue("Ann")

    assert (await SceneEngine(ToyStage(present=["Ann"]), Endless(), Given()).run(max_steps=3)).ended_by == "max_steps"


# -- both front ends run on it ---------------------------------------------------------------------

@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every turn the engine takes (who spoke), whichever front end asked."""
    taken: list[str] = []
    step = SceneEngine.step

    async def counting(self, cue=None):  # noqa: ANN001, ANN202
        line = await step(self, cue)
        taken.append("end" if line is None else line.speaker)
        return line

    monkeypatch.setattr(SceneEngine, "step", counting)
    return taken


async def test_the_product_s_turns_are_the_engine_s(vane, steps):
    session = scene(vane, ["Ord", "Tull"], "1-2-1")
    assert isinstance(session.engine, SceneEngine)
    session.narrate("Rain at the window.")
    await session.next()
    await session.next("Tull")
    assert steps == ["Matthias Ord", "Bram Tull"]
    assert session.dialogue_for("Matthias Ord") == session.engine.view("Matthias Ord")
    assert session.public_turns()[0] == Turn(speaker="Narrator", text="Rain at the window.")
    assert session.engine.stage.render(DIRECTOR, session.engine.public()) == session.public_turns()


async def test_the_product_s_asides_rest_on_the_engine_s_hearing_rule(vane, monkeypatch):
    async def play():  # noqa: ANN202
        session = scene(vane, ["Ord", "Tull"], "1-2-1")
        session.aside("Tull", "The door in the lane is open again.")
        await session.next("Ord")
        return sent_to(session, "Matthias Ord")

    assert all("door in the lane" not in m for m in await play())
    monkeypatch.setattr(engine_module, "hears", lambda viewer, line: True)  # planted: everyone hears
    assert any("door in the lane" in m for m in await play())


SAMPLE = {
    "book": "The Wall-Lamps", "i_c": 0, "scenario": "The Lamphouse at dawn.",
    "key_characters": [{"name": "Wren Callow", "thought": "Slip in unseen."}],
    "dialogues": [{"character": "Dace Morrow", "message": "[Late again.] You're late."},
                  {"character": "Wren Callow", "message": "[Fine.] (nods) I know."}],
    "speaking_characters_w_env": ["Dace Morrow", "Wren Callow", "Environment"],
    "major_characters": ["Dace Morrow", "Wren Callow"],
    "plot": {"summary": "Wren is late.", "i_p": 1, "key_characters": []},
    "character_profiles": {"Dace Morrow": "A rival.", "Wren Callow": "An apprentice."},
}


def _coser_cast() -> Cast:
    def actor(messages):  # noqa: ANN001, ANN202
        me = re.match(r"You are (.+?), a character", messages[0].content).group(1)
        return f"[SECRET-{me.split()[0]}] (looks up) Yes."

    return Cast(actor=ScriptedModel(default=actor), nsp=ScriptedModel(default="random"),
                environment=ScriptedModel(default="Wind at the door."))


def _coser_leaks(cast: Cast) -> list[str]:
    found = []
    for call in cast.actor.calls:  # type: ignore[attr-defined]
        me = re.match(r"You are (\S+)", call.messages[0].content).group(1)
        seen = "\n".join(m.content for m in call.messages)
        found += [f"{me} saw {who}" for who in re.findall(r"SECRET-(\w+)", seen) if who != me]
    for call in cast.nsp.calls + cast.environment.calls:  # type: ignore[attr-defined]
        found += [f"a director or the Environment saw {who}"
                  for who in re.findall(r"SECRET-(\w+)", "\n".join(m.content for m in call.messages))]
    return found


async def test_coser_s_rounds_are_the_engine_s_and_its_view_is_the_engine_s(steps, monkeypatch):
    cast = _coser_cast()
    sim = await simulate_case(TestSample.model_validate(SAMPLE), cast, SimulationConfig(max_rounds=6, continue_from=1))
    assert steps == [*(m.role for m in sim.messages), "end"]  # every round (the replayed one too), then the end
    assert sim.messages[0].source == "original" and len(sim.messages) == 6
    assert _coser_leaks(cast) == []

    # Planted: the simulation's view shows everyone's thoughts. The same check catches it.
    monkeypatch.setattr(coser_stage, "_RENDER", concealing_view(lambda text: text))
    planted = _coser_cast()
    await simulate_case(TestSample.model_validate(SAMPLE), planted, SimulationConfig(max_rounds=6, continue_from=1))
    assert _coser_leaks(planted)
